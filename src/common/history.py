"""Tool-call histories the providers accept: one checker, and the repair before each model call.

The invariant (OpenAI's, which Anthropic and Gemini share in their own words): every call of
an assistant message is answered by one tool message, in the block of tool messages right
after it, before any other message; and every tool message answers a call of the assistant
message its block follows. OpenAI refuses anything else with HTTP 400 ("messages with role
'tool' must be a response to a preceeding message with 'tool_calls'", "An assistant message
with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'").
Calls whose arguments could not be parsed (`invalid_tool_calls`) count: langchain-openai sends
them as calls too.

The builders keep the invariant (`nodes.call_tool` answers every call of a round, the user's
answers to questions after the block; the conversation a model sees has no tool messages).
`provider_history` is the last line of defence before each model call: a broken history is
repaired deterministically (an orphaned tool message dropped, a stray answer moved up to its
call, an unanswered call answered with a tool message saying no answer was recorded) and the
problems are logged as a warning. It repairs rather than fails because only the model's view
changes (the thread's state, ledger and records keep what happened), and a run that stopped
on a bookkeeping slip would lose the user's work for nothing a person can fix.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

logger = logging.getLogger(__name__)

NO_ANSWER = (
    "No answer to this call was recorded; do not assume it ran, check before calling it again."
)
"""The answer put in for a call the history left unanswered."""


def calls_of(message: BaseMessage) -> list[tuple[str, str]]:
    """The (id, name) of each call an assistant message makes, unparsable ones included."""
    if not isinstance(message, AIMessage):
        return []
    found = [(c["id"], c["name"]) for c in message.tool_calls]
    found += [(c["id"], c["name"] or "") for c in message.invalid_tool_calls]
    return [(cid, name) for cid, name in found if cid]


def history_problems(messages: Sequence[BaseMessage]) -> list[str]:
    """What a provider would refuse in `messages` (empty when the history is valid)."""
    problems: list[str] = []
    pending: dict[str, str] = {}
    opener = -1
    in_block = False
    for i, m in enumerate(messages):
        if isinstance(m, ToolMessage):
            if in_block and m.tool_call_id in pending:
                del pending[m.tool_call_id]
            else:
                problems.append(
                    f"message {i}: tool answer {m.tool_call_id!r} follows no call of that id"
                )
            continue
        problems += _unanswered(pending, opener)
        calls = calls_of(m)
        pending, opener, in_block = dict(calls), i, bool(calls)
    return problems + _unanswered(pending, opener)


def _unanswered(pending: dict[str, str], opener: int) -> list[str]:
    """A problem per call of message `opener` still without an answer."""
    return [
        f"message {opener}: call {cid!r} ({name}) is not answered" for cid, name in pending.items()
    ]


def repaired(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """`messages` made valid: each call's answers moved right after it, orphans dropped.

    An answer is looked for up to the next assistant message; a call with none gets
    `NO_ANSWER`. A valid history comes back unchanged.
    """
    out: list[BaseMessage] = []
    moved: set[int] = set()
    for i, m in enumerate(messages):
        if i in moved or isinstance(m, ToolMessage):
            continue  # moved up to its call already, or an orphan
        out.append(m)
        calls = calls_of(m)
        if not calls:
            continue
        open_ids = dict(calls)
        for j in range(i + 1, len(messages)):
            later = messages[j]
            if isinstance(later, AIMessage):
                break
            if isinstance(later, ToolMessage) and later.tool_call_id in open_ids:
                del open_ids[later.tool_call_id]
                moved.add(j)
                out.append(later)
        out += [
            ToolMessage(NO_ANSWER, tool_call_id=cid, name=name, status="error")
            for cid, name in open_ids.items()
        ]
    return out


def provider_history(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """`messages` as a provider takes them: repaired, with a warning, when they were not."""
    problems = history_problems(messages)
    if not problems:
        return list(messages)
    logger.warning("repaired a tool-call history before a model call: %s", "; ".join(problems))
    return repaired(messages)


def tool_free(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """`messages` for a request that binds none of their tools: calls and answers as text.

    Anthropic refuses `tool_use` and `tool_result` blocks in a request that defines no tools
    ("Requests which include `tool_use` or `tool_result` blocks must define tools"; Bedrock's
    "The toolConfig field must be defined when using toolUse and toolResult content blocks"),
    and the assessor, the answer writer and the planner bind none of the expert's tools (a
    structured answer asked by function calling binds only its own schema). What a call did is
    kept word for word: the call as the assistant's text, the answer (and whether it failed) as
    the user's.
    """
    out: list[BaseMessage] = []
    for m in messages:
        if isinstance(m, ToolMessage):
            failed = " (failed)" if m.status == "error" else ""
            out.append(HumanMessage(f"[result of call {m.tool_call_id}{failed}]\n{m.text}"))
        elif isinstance(m, AIMessage) and (m.tool_calls or m.invalid_tool_calls):
            out.append(AIMessage("\n".join(filter(None, [m.text, *_said_calls(m)]))))
        else:
            out.append(m)
    return out


def _said_calls(message: AIMessage) -> list[str]:
    """Each call of `message` as one line of text: id, tool name and arguments."""
    lines = [
        f"[call {c['id']}] {c['name']}({json.dumps(c['args'], ensure_ascii=False)})"
        for c in message.tool_calls
    ]
    broken = message.invalid_tool_calls
    lines += [f"[call {c['id']}] {c['name'] or '?'}({c['args'] or ''})" for c in broken]
    return lines
