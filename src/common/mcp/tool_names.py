"""Provider-safe names for MCP tools: a tool's real name to the name a model is given, and back.

MCP tool names may carry dots, slashes and spaces and run to 128 characters. The providers
take less: OpenAI and Anthropic want function names matching `^[a-zA-Z0-9_-]{1,64}$`, Gemini
wants them to start with a letter or an underscore (dots, colons and dashes allowed, at most
64). A bound name satisfies all of them at once: a letter first, then `[a-zA-Z0-9_-]`, at most
64 characters.

The mapping is deterministic and local to a name: a name that is already safe is bound as it
is (prompts, logs and tests stay readable); any other is cleaned (each run of other characters
becomes `_`, `t_` in front of one that does not start with a letter, cut to fit) and always gets
an 8-hex-digit digest of the real name, so two names that clean or cut to the same text stay
apart. Only when a set of names still collides (a safe name equal to another's bound name, or
equal digests) does the digest grow, in sorted order of the real names, so the same tool list
always binds the same names.

The graph speaks real names everywhere (execution, approval questions, the plan card, the
audit, the ledger); only the messages a model is sent carry bound names: `for_model` renames
the calls in a history on the way out and `from_model` renames a reply's calls on the way in.
A reply's provider-specific fields (`additional_kwargs`, content blocks) keep the bound names
the model used: they are what the provider sent and what it is sent back.

Hand-written: LangChain and the MCP adapters pass names through unchanged (a refused request is
the provider's 400), and no well-kept library does this mapping.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from langchain_core.messages import AIMessage, BaseMessage, ToolCall, ToolMessage

MAX_NAME_CHARS = 64
"""Longest function name every supported provider takes (OpenAI, Anthropic, Gemini)."""

MAX_TOOLS = 128
"""Most tools OpenAI takes in one request (`tools` array); the others take at least as many."""

DIGEST_CHARS = 8
"""Hex digits of the real name's digest added to a name that had to change."""

SAFE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")
"""A name every provider takes as it is."""

_OTHER = re.compile(r"[^A-Za-z0-9_-]+")


def is_safe(name: str) -> bool:
    """Whether every provider takes `name` as a function name unchanged."""
    return SAFE_NAME.fullmatch(name) is not None


def safe_name(name: str, digest_chars: int = DIGEST_CHARS) -> str:
    """The bound name of `name` on its own: itself when safe, else cleaned plus a digest."""
    if is_safe(name):
        return name
    cleaned = _OTHER.sub("_", name).strip("_") or "tool"
    if not cleaned[0].isalpha():
        cleaned = "t_" + cleaned
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:digest_chars]
    return f"{cleaned[: MAX_NAME_CHARS - len(digest) - 1]}_{digest}"


@dataclass(frozen=True)
class ToolNames:
    """A tool list's bound names, both ways (build it with `ToolNames.of`)."""

    to_bound: Mapping[str, str] = field(default_factory=dict)
    """Bound name by real MCP name."""
    to_mcp: Mapping[str, str] = field(default_factory=dict)
    """Real MCP name by bound name."""

    @classmethod
    def of(cls, names: Iterable[str]) -> ToolNames:
        """Distinct bound names for `names`; safe names keep theirs, the rest take digests."""
        unique = sorted(set(names))
        taken = {n for n in unique if is_safe(n)}
        to_bound = {n: n for n in taken}
        for name in (n for n in unique if n not in taken):
            digest = DIGEST_CHARS
            bound = safe_name(name, digest)
            while bound in taken:
                digest += 8  # a digest collision, or a safe name that equals this bound name
                bound = safe_name(name, digest)
            taken.add(bound)
            to_bound[name] = bound
        return cls(to_bound, {b: n for n, b in to_bound.items()})

    def bound(self, name: str) -> str:
        """The name a model is given for the real `name` (one not in the list: `safe_name`)."""
        return self.to_bound.get(name) or safe_name(name)

    def mcp(self, bound: str) -> str:
        """The real name behind `bound` (a name the model made up comes back unchanged)."""
        return self.to_mcp.get(bound, bound)

    def for_model(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """`messages` with every tool call and tool answer under its bound name."""
        return [self._outbound(m) for m in messages]

    def from_model(self, message: AIMessage) -> AIMessage:
        """A model's reply with its tool calls under their real names."""
        calls = [_renamed(c, self.mcp(c["name"])) for c in message.tool_calls]
        if calls == message.tool_calls:
            return message
        return message.model_copy(update={"tool_calls": calls})

    def _outbound(self, message: BaseMessage) -> BaseMessage:
        """One message as the model is sent it."""
        if isinstance(message, AIMessage) and message.tool_calls:
            calls = [_renamed(c, self.bound(c["name"])) for c in message.tool_calls]
            if calls != message.tool_calls:
                return message.model_copy(update={"tool_calls": calls})
        if isinstance(message, ToolMessage) and message.name:
            name = self.bound(message.name)
            if name != message.name:
                return message.model_copy(update={"name": name})
        return message


def _renamed(call: ToolCall, name: str) -> ToolCall:
    """A copy of `call` under `name`."""
    return ToolCall(name=name, args=call["args"], id=call["id"], type="tool_call")


def names_in(messages: Sequence[BaseMessage]) -> ToolNames:
    """The bound names of the tools a history calls (for a model given the history, no tools)."""
    return ToolNames.of(
        c["name"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls
    )


def bound_spec(spec: Mapping[str, object], names: ToolNames) -> dict[str, object]:
    """An OpenAI-style function spec under its bound name; a renamed one says its real name."""
    function = dict(spec["function"])  # type: ignore[call-overload]
    real = str(function["name"])
    bound = names.bound(real)
    if bound != real:
        described = str(function.get("description") or "")
        function["description"] = f"{described}\n(MCP tool `{real}`)".strip()
    function["name"] = bound
    return {**spec, "function": function}
