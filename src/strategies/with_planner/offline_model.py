"""The `offline:rules` chat model: the rules of `strategies.with_planner.offline`, as a model.

Built only when a node asks for `offline:rules`: defining a chat model class loads LangChain's
model layers (`common.local_models`), which building or drawing the graph does not need.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from common.local_models import LocalChatModel
from common.messages import last_human
from strategies.with_planner.offline import ASK_ME, plan_request

_TASK = re.compile(r"Your task \([^)]*\): (.*)")


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


class OfflineRulesModel(LocalChatModel):
    """The `offline:rules` model: deterministic, keyword-based, never calls a network."""

    @property
    def _llm_type(self) -> str:
        return "offline-rules"

    def reply(self, messages: list[BaseMessage], tools: list[Any]) -> AIMessage:
        """Answer from the prompt (tools are accepted: direct steps do the calling)."""
        system = next((_text(m) for m in messages if isinstance(m, SystemMessage)), "")
        if "Plan and results:" in system:
            body = system.split("Plan and results:", 1)[1].split("Notes on this turn:", 1)[0]
            return AIMessage("Here is what was done (offline:rules):\n" + body.strip()[:3000])
        asked = _ask_user(system, messages, tools)
        if asked is not None:
            return asked
        tool_results = [m for m in messages if isinstance(m, ToolMessage)]
        if tool_results:
            return AIMessage(_text(tool_results[-1]))
        return AIMessage("I can only run simple requests offline; set MODEL for more.")

    def structured(self, messages: list[BaseMessage], schema: Any) -> dict[str, Any]:
        """Plan, assess or analyse by rules, depending on the schema asked for."""
        name = getattr(schema, "__name__", "")
        system = next((_text(m) for m in messages if isinstance(m, SystemMessage)), "")
        request = last_human(messages)
        if name == "PlannerResult":
            return plan_request(_text(request) if request is not None else "", system)
        if name == "Assessment":
            failed = [m for m in messages if isinstance(m, ToolMessage) and m.status == "error"]
            return {"completed": not failed, "reason": "judged by the tool result"}
        return {"irreversible": False, "blocked_tools": [], "read_only_tools": [], "reasons": []}


def _ask_user(system: str, messages: list[BaseMessage], tools: list[Any]) -> AIMessage | None:
    """For an "ask me ..." task: the `ask_user` call, then the answer reported; else None."""
    task = _TASK.search(system)
    ask = ASK_ME.match(task.group(1)) if task else None
    offered = any(
        str(t.get("function", {}).get("name")) == "ask_user" for t in tools if isinstance(t, dict)
    )
    if ask is None or not offered:
        return None
    answered = [m for m in messages if isinstance(m, ToolMessage) and m.name == "ask_user"]
    if not answered:
        question = ask.group(1)[0].upper() + ask.group(1)[1:] + "?"
        call = {"name": "ask_user", "args": {"question": question}, "id": "offline-ask"}
        return AIMessage("", tool_calls=[{**call, "type": "tool_call"}])
    after = messages[messages.index(answered[-1]) + 1 :]
    answer = next((_text(m) for m in after if isinstance(m, HumanMessage)), "")
    return AIMessage(f"You answered: {answer}")
