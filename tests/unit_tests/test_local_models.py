"""`LocalChatModel`: the chat-model plumbing of in-process models (offline rules, test doubles)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel

from common.local_models import LocalChatModel


class _Echo(LocalChatModel):
    """Answers with the last message's text; structured output from a fixed item."""

    item: Any = None

    @property
    def _llm_type(self) -> str:
        return "echo"

    def reply(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        return AIMessage(f"{messages[-1].content} ({len(tools)} tools)")

    def structured(self, messages: list[BaseMessage], schema: Any) -> Any:
        return self.item


class _Answer(BaseModel):
    value: int


async def test_a_local_model_gets_the_chat_model_plumbing_from_its_base() -> None:
    tools = [{"type": "function", "function": {"name": "t", "parameters": {}}}]
    bound = _Echo().bind_tools(tools)
    assert (await bound.ainvoke([HumanMessage("hi")])).content == "hi (1 tools)"
    assert _Echo().invoke([HumanMessage("yo")]).content == "yo (0 tools)"
    parsed = await _Echo(item={"value": 3}).with_structured_output(_Answer).ainvoke("q")
    assert parsed == _Answer(value=3)
    raw = _Echo(item="not json").with_structured_output(_Answer, include_raw=True).invoke("q")
    assert raw["parsed"] is None
    assert raw["raw"].content == "not json"
    both = _Echo(item={"value": 4}).with_structured_output(_Answer, include_raw=True).invoke("q")
    assert both["parsed"] == _Answer(value=4)
