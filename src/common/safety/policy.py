"""The approval policy: one rule turns a gate verdict, the mode and a decision into an action.

Every enforcement point (the graph's `call_tool` and `guard`, `ApprovalInterceptor`) asks
`action_for`; nothing else compares approval modes. Modes are a closed set:
`parse_approval_mode` refuses anything else where a mode enters (settings, context, CLI flag), and
`action_for` fails closed for whatever still reaches it: only exactly `"auto"` skips approval and
only exactly `"plan_only"` defers; any other value asks a human.
"""

from __future__ import annotations

from typing import Literal, get_args

from common.safety.approval import Decision, RejectDecision

ApprovalMode = Literal["interrupt", "plan_only", "auto"]
"""How irreversible tool calls are handled: ask a human, only plan them, or run them (logged)."""

APPROVAL_MODES: tuple[str, ...] = get_args(ApprovalMode)
"""The allowed approval modes, in the order they are documented."""

Action = Literal["run", "ask", "defer", "refuse"]
"""What to do with one call: send it, ask a human, hold it for later approval, or not send it."""


class ApprovalModeError(ValueError):
    """An approval mode outside the closed set; the message is one sentence naming the value."""


def parse_approval_mode(value: object, source: str = "approval_mode") -> ApprovalMode:
    """`value` as an ApprovalMode, or ApprovalModeError: exact values only (no case folding)."""
    if type(value) is str and value in APPROVAL_MODES:
        return value  # type: ignore[return-value]
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
    raise ApprovalModeError(
        f"{source} {shown} is not an approval mode: use one of {', '.join(APPROVAL_MODES)}."
    )


def action_for(mode: object, needs_approval: bool, decision: Decision | None = None) -> Action:
    """What to do with one call whose gate verdict is `needs_approval`.

    A human's decision wins (reject refuses, approve and edit run). Without one, a call the gate
    clears runs; a gated call runs only in exactly `auto`, is deferred only in exactly
    `plan_only`, and in every other case (`interrupt`, or any unexpected value) asks.
    """
    if isinstance(decision, RejectDecision):
        return "refuse"
    if decision is not None:
        return "run"
    if not needs_approval:
        return "run"
    if type(mode) is str and mode == "auto":
        return "run"
    if type(mode) is str and mode == "plan_only":
        return "defer"
    return "ask"
