"""Model timeouts, retries and errors: what the clients get, and the one line a failure becomes."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from common.models import ModelCallError, describe_failure, load_chat_model, model_errors
from common.provider_errors import ProviderError, provider_error, status_of
from common.settings import ConfigError, get_settings, load_settings
from common.structured import BadOutput, method_refused, structured_call, text_answer, tool_round
from tests.doubles import ScriptedChatModel

MODEL = "openai:gpt-4o-mini"
URL = "http://127.0.0.1:9/v1"


class Verdict(BaseModel):
    """A small schema for structured calls."""

    completed: bool
    """Whether it is done."""


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loopback OpenAI-compatible endpoint, 7 s timeout, 3 retries."""
    settings = get_settings()
    monkeypatch.setattr(settings, "openai_base_url", URL)
    monkeypatch.setattr(settings, "model_timeout_s", 7.0)
    monkeypatch.setattr(settings, "model_max_retries", 3)


def _status(code: int) -> openai.APIStatusError:
    request = httpx2.Request("POST", f"{URL}/chat/completions")
    response = httpx2.Response(code, request=request, headers={"retry-after": "1"})
    return openai.APIStatusError(f"Error code: {code}", response=response, body=None)


def test_the_openai_client_gets_the_timeout_and_retries(endpoint: None) -> None:
    model = load_chat_model(MODEL)
    assert isinstance(model, ChatOpenAI)
    assert model.request_timeout == 7.0
    assert model.max_retries == 3


def test_the_defaults_are_60_seconds_and_2_retries(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    settings = load_settings()
    assert (settings.model_timeout_s, settings.model_max_retries) == (60.0, 2)


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        (
            "MODEL_TIMEOUT_S",
            "0",
            "Setting MODEL_TIMEOUT_S='0' is invalid: expected a number greater than 0.",
        ),
        (
            "MODEL_MAX_RETRIES",
            "11",
            "Setting MODEL_MAX_RETRIES='11' is invalid: expected a whole number from 0 to 10.",
        ),
    ],
)
def test_bad_values_are_one_line_naming_the_setting(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as caught:
        load_settings()
    assert str(caught.value) == expected


def test_a_refused_connection_names_node_model_setting_and_resume(endpoint: None) -> None:
    request = httpx2.Request("POST", URL)
    try:
        try:
            raise ConnectionRefusedError(111, "Connection refused")
        except ConnectionRefusedError as inner:
            raise openai.APIConnectionError(request=request) from inner
    except openai.APIConnectionError as exc:
        error = exc
    assert describe_failure("planner", MODEL, error) == (
        f"The planner node's model '{MODEL}' at OPENAI_BASE_URL={URL} could not be reached "
        "(connection refused); check OPENAI_BASE_URL or the network"
    )


def test_a_timeout_names_the_timeout_setting(endpoint: None) -> None:
    error = openai.APITimeoutError(request=httpx2.Request("POST", URL))
    text = describe_failure("orchestrate", MODEL, error)
    assert text.startswith(f"The orchestrate node's model '{MODEL}' at OPENAI_BASE_URL={URL}")
    assert "did not answer within MODEL_TIMEOUT_S=7 (after 3 retries)" in text
    assert text.endswith("raise MODEL_TIMEOUT_S=7")


@pytest.mark.parametrize(
    ("code", "says", "check"),
    [
        (500, "kept failing with HTTP 500 (after 3 retries", "check OPENAI_BASE_URL"),
        (429, "kept answering 429 Too Many Requests (after 3 retries", "wait 1 s"),
        (401, "refused the key (HTTP 401", "set OPENAI_API_KEY"),
        (404, "does not serve this model (HTTP 404", "set MODEL"),
        (400, "refused the request (HTTP 400", "please report it"),
    ],
)
def test_statuses_that_survive_the_retries_say_what_to_check(
    endpoint: None, code: int, says: str, check: str
) -> None:
    text = describe_failure("assess", MODEL, _status(code))
    assert text.startswith("The assess_task node's model")
    assert says in text
    assert check in text


def test_the_error_is_one_line_with_retry_advice_and_survives_pickling() -> None:
    error = ModelCallError("The planner node's model 'x' at y could not be reached (z); check w")
    assert str(error).endswith(
        ", then resume the thread to retry (`mcp-planner resume THREAD`, or invoke it with None)."
    )
    assert error.advice("run `mcp-planner resume t1` to retry").endswith(
        "check w, then run `mcp-planner resume t1` to retry."
    )
    copy = pickle.loads(pickle.dumps(error))
    assert str(copy) == str(error)
    assert copy.summary == error.summary


async def test_model_errors_turns_transport_errors_into_one_model_call_error(
    endpoint: None,
) -> None:
    with pytest.raises(ModelCallError) as caught:
        async with model_errors("response", MODEL):
            raise ConnectionError("provider down")
    assert "The generate_response node's model" in str(caught.value)
    assert "(provider down)" in str(caught.value)
    assert isinstance(caught.value.__cause__, ConnectionError)


async def test_model_errors_leaves_other_errors_alone() -> None:
    with pytest.raises(KeyError):
        async with model_errors("planner", MODEL):
            raise KeyError("a bug, not the endpoint")


@pytest.mark.parametrize(
    "error",
    [IndexError("list index out of range"), ValueError("no 'parsed' field nor a 'refusal'")],
    ids=["no-choices", "empty-structured"],
)
async def test_no_choices_and_empty_structured_answers_are_bad_output(error: Exception) -> None:
    result = await structured_call(ScriptedChatModel(script=[error]), Verdict, [HumanMessage("?")])
    assert isinstance(result, BadOutput)
    reply = await tool_round(ScriptedChatModel(script=[error]), [HumanMessage("?")])
    assert isinstance(reply, BadOutput)


async def test_a_long_parser_error_is_cut_in_the_reason() -> None:
    error = ValueError("x" * 5000)
    result = await structured_call(ScriptedChatModel(script=[error]), Verdict, [HumanMessage("?")])
    assert isinstance(result, BadOutput)
    assert len(result.reason) < 400


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("The answer.", "The answer."),
        ("", BadOutput("The answer was empty.")),
        (
            IndexError("list index out of range"),
            BadOutput("The answer could not be parsed: list index out of range"),
        ),
    ],
    ids=["text", "empty", "no-choices"],
)
async def test_free_text_answers(reply: Any, expected: Any) -> None:
    result = await text_answer(ScriptedChatModel(script=[reply]), [HumanMessage("?")])
    if isinstance(expected, BadOutput):
        assert result == expected
    else:
        assert isinstance(result, AIMessage)
        assert result.content == expected


@pytest.mark.parametrize(
    ("code", "says"),
    [
        (500, "failed with HTTP 500 (not retried: MODEL_MAX_RETRIES=0"),
        (429, "answered 429 Too Many Requests (not retried: MODEL_MAX_RETRIES=0"),
    ],
)
def test_with_retries_off_the_sentence_says_so_instead_of_after_0_retries(
    endpoint: None, monkeypatch: pytest.MonkeyPatch, code: int, says: str
) -> None:
    monkeypatch.setattr(get_settings(), "model_max_retries", 0)
    text = describe_failure("planner", MODEL, _status(code))
    assert says in text
    assert "0 retries" not in text
    assert "kept" not in text


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ("openai:gpt-4o-mini", "max_tokens"),
        ("anthropic:claude-sonnet-4-5", "max_tokens"),
        ("google_genai:gemini-2.0-flash", "max_output_tokens"),
        ("ollama:llama3.2", "num_predict"),
    ],
)
def test_every_remote_model_gets_the_answer_length_bound(
    monkeypatch: pytest.MonkeyPatch, spec: str, field: str
) -> None:
    settings = get_settings()
    monkeypatch.setattr(settings, "model_max_tokens", 777)
    monkeypatch.setattr(settings, "allow_model_requests", True)
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.setenv(key, "k")
    assert getattr(load_chat_model(spec), field) == 777


def test_the_answer_length_bound_defaults_to_4096_tokens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    assert load_settings().model_max_tokens == 4096
    monkeypatch.setenv("MODEL_MAX_TOKENS", "0")
    with pytest.raises(ConfigError, match="MODEL_MAX_TOKENS"):
        load_settings()


def _gemini_refusal(message: str) -> Exception:
    """What langchain-google-genai raises when Gemini answers HTTP 400 (INVALID_ARGUMENT)."""
    from google.api_core.exceptions import InvalidArgument
    from langchain_google_genai.chat_models import ChatGoogleGenerativeAIError

    try:
        try:
            raise InvalidArgument(message)
        except InvalidArgument as exc:
            raise ChatGoogleGenerativeAIError(
                f"Invalid argument provided to Gemini: {exc}"
            ) from exc
    except ChatGoogleGenerativeAIError as exc:
        return exc


def test_a_gemini_refusal_is_read_behind_the_integrations_own_error() -> None:
    error = _gemini_refusal('Unknown name "responseJsonSchema": Cannot find field.')
    assert status_of(error) == 400
    assert provider_error(error) == ProviderError(
        'Unknown name "responseJsonSchema": Cannot find field.', "INVALID_ARGUMENT"
    )
    assert method_refused("json_schema", error)
    sentence = describe_failure("planner", "google_genai:gemini-2.0-flash", error)
    assert 'refused the request (HTTP 400 INVALID_ARGUMENT: "Unknown name' in sentence
