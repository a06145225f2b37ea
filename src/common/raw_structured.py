"""A structured answer with its raw message, from langchain-openai, in one runnable.

`ChatOpenAI.with_structured_output(schema, method="json_schema", include_raw=True)` answers
`{"raw": message, "parsed": ..., "parsing_error": ...}` through a chain of five runnables (a map
around the bound model, an assign with a fallback, a refusal check, the parser), each with its
callback manager and config, and one (`RunnableAssign._ainvoke`) whose signature LangChain
inspects on every call: about half a millisecond of a planner call's CPU (issue 45). `with_raw`
keeps that chain's bound model, so the request is the same to the byte, and does the rest in
one step: the refusal check and JSON parse of langchain-openai's own, any error of them
answered as `parsing_error` with `parsed` None, as the chain's fallback does. A chain of another
shape (another langchain-openai) is kept as it is.

`plain_json_schema` goes one step further for the chat completions API: the same format sent as
plain body data, so the openai client's `create` sends it as it is (see there).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableLambda

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import RunnableConfig


def bound_model(chain: Runnable[Any, Any]) -> Runnable[Any, BaseMessage] | None:
    """The bound model of `with_structured_output(..., include_raw=True)`'s chain, or None.

    That chain is `RunnableMap(raw=bound model) | parser with fallback`.
    """
    steps = getattr(getattr(chain, "first", None), "steps__", None)
    model = steps.get("raw") if isinstance(steps, dict) and len(steps) == 1 else None
    return model if isinstance(model, RunnableBinding) else None


def plain_json_schema(
    model: Runnable[Any, BaseMessage], spec: dict[str, Any]
) -> Runnable[Any, BaseMessage] | None:
    """A langchain-openai model bound to ask for `spec` as plain body data, or None.

    The same `response_format` in the same request body, sent through `extra_body` (merged over
    the model's own) instead of the typed parameter: langchain-openai then calls the client's
    `create`, not `parse`, so the openai client neither walks the schema through its request
    transform (about 2 ms of CPU per call, the same every time) nor parses the answer into a
    class nobody reads. None where the model would take the Responses API, whose request names
    the format differently: that keeps the stock chain.
    """
    prefers_responses = getattr(model, "_use_responses_api", None)
    if not hasattr(model, "extra_body") or prefers_responses is None or prefers_responses({}):
        return None
    body = {**(getattr(model, "extra_body", None) or {})}
    body["response_format"] = {"type": "json_schema", "json_schema": spec}
    return model.bind(extra_body=body)


def with_raw(chain: Runnable[LanguageModelInput, Any]) -> Runnable[LanguageModelInput, Any]:
    """`chain` (an include_raw json_schema chain of langchain-openai) as one step; see above."""
    model = bound_model(chain)
    return chain if model is None else one_step(model)


def one_step(model: Runnable[Any, BaseMessage]) -> Runnable[LanguageModelInput, Any]:
    """A model bound to a json_schema format, answering `{raw, parsed, parsing_error}`."""
    # Imported here, as `common.structured` imports LangChain's parsers: building the graph
    # does without them (and a graph without OpenAI models without langchain-openai).
    from langchain_core.output_parsers import JsonOutputParser
    from langchain_core.outputs import ChatGeneration
    from langchain_openai.chat_models.base import _raise_on_refusal

    parser = JsonOutputParser()

    def answer(raw: BaseMessage) -> dict[str, Any]:
        if raw.response_metadata.get("finish_reason") == "content_filter":
            # As the client's `parse` does on the typed path, whose answer a sent `extra_body`
            # skips: a filtered answer is an error of the call, not a parsing error.
            from openai import ContentFilterFinishReasonError

            raise ContentFilterFinishReasonError()
        try:
            _raise_on_refusal(raw)
            parsed = parser.parse_result([ChatGeneration(message=raw)])
        except Exception as exc:  # as the chain's fallback: any parsing error is the answer's
            return {"raw": raw, "parsed": None, "parsing_error": exc}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}

    def ask(value: LanguageModelInput, config: RunnableConfig) -> dict[str, Any]:
        return answer(model.invoke(value, config))

    async def aask(value: LanguageModelInput, config: RunnableConfig) -> dict[str, Any]:
        return answer(await model.ainvoke(value, config))

    return RunnableLambda(ask, aask, name="structured_with_raw")
