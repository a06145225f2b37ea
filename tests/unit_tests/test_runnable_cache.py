"""Structured-output and tool-bound runnables, and remote models, are built once and reused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableLambda
from mcp.types import Tool
from pydantic import BaseModel, PrivateAttr

from common.models import load_chat_model
from common.safety.analysis import analyse
from common.settings import get_settings
from common.structured import BadOutput, structured_call, tool_round, with_tools
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call

ASK: list[BaseMessage] = [HumanMessage("?")]


class Verdict(BaseModel):
    """A small schema."""

    ok: bool
    """Whether it worked."""


class Count(BaseModel):
    """Another small schema."""

    n: int
    """A number."""


class SpyModel(ScriptedChatModel):
    """A scripted model that counts how often a runnable is built from it."""

    _built: list[str] = PrivateAttr(default_factory=list)

    @property
    def built(self) -> list[str]:
        """What was built, in order: `structured:SCHEMA` or `tools:NAME,NAME`."""
        return self._built

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        """Record the build, then build as usual."""
        self._built.append(f"structured:{schema.__name__}")
        return super().with_structured_output(schema, include_raw=include_raw, **kwargs)

    def bind_tools(
        self, tools: Sequence[Any], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Record the build, then bind as usual."""
        self._built.append("tools:" + ",".join(t["function"]["name"] for t in tools))
        return super().bind_tools(tools, **kwargs)


def spec(name: str, properties: dict[str, Any] | None = None) -> dict[str, Any]:
    """A function spec, built anew on every call (as the orchestrator does)."""
    parameters = {"type": "object", "properties": properties or {}}
    return {
        "type": "function",
        "function": {"name": name, "description": "", "parameters": parameters},
    }


async def test_the_second_structured_call_reuses_the_runnable() -> None:
    model = SpyModel(script=[{"ok": True}, {"ok": False}])
    first = await structured_call(model, Verdict, ASK)
    second = await structured_call(model, Verdict, ASK)
    assert (first, second) == (Verdict(ok=True), Verdict(ok=False))
    assert model.built == ["structured:Verdict"]


async def test_another_schema_builds_its_own_runnable() -> None:
    model = SpyModel(script=[{"ok": True}, {"n": 3}, {"ok": False}])
    assert await structured_call(model, Verdict, ASK) == Verdict(ok=True)
    assert await structured_call(model, Count, ASK) == Count(n=3)
    assert await structured_call(model, Verdict, ASK) == Verdict(ok=False)
    assert model.built == ["structured:Verdict", "structured:Count"]


async def test_equal_models_never_share_a_runnable() -> None:
    """Two models that compare equal still answer from their own scripts."""
    first, second = SpyModel(script=[{"ok": True}]), SpyModel(script=[{"ok": True}])
    assert first == second
    assert await structured_call(first, Verdict, ASK) == Verdict(ok=True)
    assert await structured_call(second, Verdict, ASK) == Verdict(ok=True)
    assert (len(first.requests), len(second.requests)) == (1, 1)
    assert first.built == second.built == ["structured:Verdict"]


async def test_malformed_answers_are_still_bad_output_on_a_reused_runnable() -> None:
    model = SpyModel(script=[{"ok": True}, {"ok": "perhaps"}])
    assert await structured_call(model, Verdict, ASK) == Verdict(ok=True)
    result = await structured_call(model, Verdict, ASK)
    assert isinstance(result, BadOutput)
    assert "did not match Verdict" in result.reason


async def test_the_analyser_builds_its_runnable_once_per_model() -> None:
    answer = {"irreversible": True, "blocked_tools": ["notes/delete_note"]}
    model = SpyModel(script=[answer, answer])
    catalog = {"notes": [Tool(name="delete_note", inputSchema={"type": "object"})]}
    request = [HumanMessage("delete my notes")]
    outcomes = [await analyse(model, catalog, "(plan)", request, timeout_s=5) for _ in range(2)]
    assert [o.status for o in outcomes] == ["ok", "ok"]
    assert all(o.verdict and o.verdict.irreversible for o in outcomes)
    assert model.built == ["structured:IrreversibilityAnalysis"]


async def test_the_same_tool_list_is_bound_once() -> None:
    model = SpyModel(script=[calls(tool_call("search")), calls(tool_call("search"))])
    for _ in range(2):
        reply = await tool_round(with_tools(model, [spec("search"), spec("ask_user")]), ASK)
        assert isinstance(reply, AIMessage)
        assert [c["name"] for c in reply.tool_calls] == ["search"]
    assert model.built == ["tools:search,ask_user"]
    assert [r["tools"] for r in model.requests] == [["search", "ask_user"]] * 2


async def test_a_changed_tool_list_is_bound_again() -> None:
    """A new tool, or a changed schema, reaches the model."""
    model = SpyModel(script=["a", "b", "c"])
    lists = [
        [spec("search")],
        [spec("search"), spec("delete")],
        [spec("search", {"q": {"type": "string"}}), spec("delete")],
    ]
    for tools in lists:
        await tool_round(with_tools(model, tools), ASK)
    assert model.built == ["tools:search", "tools:search,delete", "tools:search,delete"]
    sent = [r["tools"] for r in model.requests]
    assert sent == [["search"], ["search", "delete"], ["search", "delete"]]


async def test_models_with_the_same_tools_never_share_a_binding() -> None:
    first, second = SpyModel(script=["from first"]), SpyModel(script=["from second"])
    one = await tool_round(with_tools(first, [spec("search")]), ASK)
    two = await tool_round(with_tools(second, [spec("search")]), ASK)
    assert isinstance(one, AIMessage)
    assert isinstance(two, AIMessage)
    assert (one.content, two.content) == ("from first", "from second")


class _Starts(AsyncCallbackHandler):
    """Counts the chat model runs it is told about."""

    def __init__(self) -> None:
        self.starts = 0

    async def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        self.starts += 1


async def test_each_call_s_callbacks_reach_a_reused_runnable() -> None:
    """Callbacks come with the call's config (as a graph node passes them), not the cache."""
    model = SpyModel(script=["one", "two"])

    async def node(messages: list[BaseMessage]) -> AIMessage | BadOutput:
        return await tool_round(with_tools(model, [spec("search")]), messages)

    first, second = _Starts(), _Starts()
    await RunnableLambda(node).ainvoke(ASK, {"callbacks": [first]})
    await RunnableLambda(node).ainvoke(ASK, {"callbacks": [second]})
    assert (first.starts, second.starts) == (1, 1)
    assert model.built == ["tools:search"]


@pytest.fixture
def remote_allowed(monkeypatch: pytest.MonkeyPatch, chdir_tmp: Path) -> Iterator[None]:
    """Remote models may be built (never called), with a made-up key; settings restored after."""
    monkeypatch.setenv("ALLOW_MODEL_REQUESTS", "true")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-real")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_a_remote_model_is_built_once_per_spec_and_settings(
    remote_allowed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = load_chat_model("openai:gpt-4o-mini")
    assert load_chat_model("openai:gpt-4o-mini") is model
    assert load_chat_model("openai:gpt-4o") is not model
    monkeypatch.setattr(get_settings(), "model_timeout_s", 9.0)
    slower = load_chat_model("openai:gpt-4o-mini")
    assert slower is not model
    assert getattr(slower, "request_timeout", None) == 9.0


def test_a_changed_api_key_builds_a_new_model(
    remote_allowed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = load_chat_model("openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-another-not-real")
    after = load_chat_model("openai:gpt-4o-mini")
    assert after is not before
    secret = getattr(after, "openai_api_key", None)
    assert secret is not None
    assert secret.get_secret_value() == "sk-another-not-real"


def test_event_loops_never_share_a_remote_model(remote_allowed: None) -> None:
    async def load() -> Any:
        return load_chat_model("openai:gpt-4o-mini")

    assert asyncio.run(load()) is not asyncio.run(load())


def test_a_reinstalled_scripted_model_is_the_one_resolved() -> None:
    """Local providers are asked every time, so tests' models never leak into each other."""
    old, new = ScriptedChatModel(script=[]), ScriptedChatModel(script=[])
    spec_ = install_scripted(old, name="cache-reinstalled")
    install_scripted(new, name="cache-reinstalled")
    assert load_chat_model(spec_) is new
