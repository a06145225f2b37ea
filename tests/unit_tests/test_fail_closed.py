"""Approval cannot be switched off by accident: bad modes, bad flags and bad resumes run nothing."""

from __future__ import annotations

import copy
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from common.mcp.config import McpConfigError
from common.safety.approval import ApproveDecision, EditDecision, EditedAction, RejectDecision
from common.safety.interceptor import ApprovalInterceptor
from common.safety.policy import (
    APPROVAL_MODES,
    ApprovalModeError,
    action_for,
    parse_approval_mode,
)
from strategies.with_planner.context import Context, ContextError, make_context
from strategies.with_planner.graph import build_graph, build_task_graph
from strategies.with_planner.offline import ANNOUNCEMENT
from tests.unit_tests.helpers import Thread, log_lines, unique

TOOL = "delete_everything"

# Values people and clients really send, next to arbitrary ones.
NEAR_MISSES = [
    "Interrupt",
    "INTERRUPT",
    " interrupt",
    "interrupt ",
    "plan-only",
    "planonly",
    "Plan_Only",
    "Auto",
    "AUTO",
    " auto",
    "auto\n",
    "",
    "none",
    "off",
    "false",
    "yes",
]
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
MODES = (
    st.sampled_from(NEAR_MISSES) | st.text(max_size=12) | JSONISH | st.sampled_from(APPROVAL_MODES)
)
FLAG_VALUES = (
    JSONISH
    | st.sampled_from(["yes", "true", "false", "1", 1, 0, "delete_*", "*", [1], ["*", 2]])
    | st.sampled_from([True, False, [], ["*"], ["delete_*"], ["nothing*"]])
)


# --- the policy itself -------------------------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=MODES)
def test_only_exact_auto_runs_and_only_exact_plan_only_defers(mode: Any) -> None:
    action = action_for(mode, needs_approval=True)
    if type(mode) is str and mode == "auto":
        assert action == "run"
    elif type(mode) is str and mode == "plan_only":
        assert action == "defer"
    else:
        assert action == "ask"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mode=MODES)
def test_parse_accepts_exactly_the_closed_set(mode: Any) -> None:
    if type(mode) is str and mode in APPROVAL_MODES:
        assert parse_approval_mode(mode) == mode
    else:
        with pytest.raises(ApprovalModeError) as raised:
            parse_approval_mode(mode)
        message = str(raised.value)
        assert "\n" not in message
        assert "interrupt, plan_only, auto" in message


def test_a_human_decision_wins_over_the_mode() -> None:
    edit = EditDecision(type="edit", edited_action=EditedAction(name="x", args={}))
    for mode in [*APPROVAL_MODES, "bogus", None]:
        assert action_for(mode, True, RejectDecision(type="reject")) == "refuse"
        assert action_for(mode, True, ApproveDecision(type="approve")) == "run"
        assert action_for(mode, True, edit) == "run"
        assert action_for(mode, False) == "run"


def test_a_str_subclass_is_not_auto() -> None:
    class Sneaky(str):
        pass

    assert action_for(Sneaky("auto"), True) == "ask"


# --- the context, where a mode enters from the SDK, the dev server or an embedding app ----------


@pytest.mark.parametrize(
    "mode", ["bogus", "Interrupt", "plan-only", "", " auto", 1, None, ["auto"]]
)
def test_a_bad_mode_is_one_line_naming_the_value_and_the_allowed_ones(mode: Any) -> None:
    with pytest.raises(ContextError) as raised:
        make_context({"approval_mode": mode})
    message = str(raised.value)
    assert "\n" not in message
    assert repr(mode) in message
    assert "interrupt, plan_only, auto" in message


def test_unknown_context_fields_are_refused() -> None:
    with pytest.raises(ContextError, match=r"unknown field.*'aproval_mode'"):
        make_context({"aproval_mode": "auto"})


# --- through build_graph() with a context dict: nothing irreversible runs unasked --------------


def _config_with_flags(mcp_config: dict[str, Any], flags: dict[str, Any]) -> dict[str, Any]:
    config = copy.deepcopy(mcp_config)
    config["mcpServers"]["testkit"].update(flags)
    return config


def _config_clears_the_tool(flags: dict[str, Any]) -> bool:
    """Whether a *valid* config says the tool is reversible (then running it is correct)."""
    if flags.get("sandboxed") is True:
        return True
    patterns = flags.get("reversible_tools")
    return (
        isinstance(patterns, list)
        and all(type(p) is str for p in patterns)
        and any(fnmatch(TOOL, p) for p in patterns)
    )


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    mode=MODES,
    flags=st.dictionaries(
        st.sampled_from(
            ["sandboxed", "trust_annotations", "irreversible_tools", "reversible_tools"]
        ),
        FLAG_VALUES,
        max_size=4,
    ),
    answer=st.sampled_from(["reject", "garbage", "none", "approve"]),
)
async def test_no_irreversible_call_runs_without_approval_whatever_the_context(
    scripted: Any, workdir: Path, mcp_config: dict[str, Any], mode: Any, flags: Any, answer: str
) -> None:
    assume(not _config_clears_the_tool(flags))
    scope = unique("scope")
    step = {"id": "t1", "expert": "testkit", "task": "wipe", "tool": TOOL, "args": {"scope": scope}}
    ctx, _ = scripted(planner=[{"plan": [step]}], response=["answered"])
    ctx["approval_mode"] = mode
    ctx["mcp_config"] = _config_with_flags(mcp_config, flags)
    thread = Thread(ctx)
    approved, refusal = False, ""
    try:
        await thread.send("Wipe the scope")
        pending = await thread.interrupts()
        event("interrupted" if pending else "not interrupted")
        if pending and answer != "none":
            value: Any = {"decisions": [{"type": answer}]} if answer != "garbage" else "go"
            approved = answer == "approve"
            await thread.resume(value)
    except (ContextError, McpConfigError, TypeError) as refused:
        event(f"refused: {type(refused).__name__}")
        refusal = str(refused)
    # A refusal is one line (before the planner ran).
    assert "\n" not in refusal
    ran = any(scope in line for line in log_lines(workdir / "testkit.log"))
    exactly_auto = type(mode) is str and mode == "auto"
    if ran:
        assert approved or exactly_auto, f"ran unasked with mode={mode!r}, flags={flags!r}"


@pytest.mark.parametrize("mode", APPROVAL_MODES)
@pytest.mark.parametrize(
    "flags",
    [
        {},
        {"sandboxed": False},
        {"trust_annotations": True},
        {"irreversible_tools": ["nothing*"]},
        {"reversible_tools": ["nothing*"]},
        {"trust_annotations": True, "reversible_tools": []},
    ],
)
@pytest.mark.parametrize("answer", ["reject", "garbage", "approve"])
async def test_every_valid_mode_and_flag_set_runs_the_call_only_when_allowed(
    scripted: Any, workdir: Path, mcp_config: dict[str, Any], mode: str, flags: Any, answer: str
) -> None:
    scope = unique("scope")
    step = {"id": "t1", "expert": "testkit", "task": "wipe", "tool": TOOL, "args": {"scope": scope}}
    ctx, _ = scripted(planner=[{"plan": [step]}], response=["answered"] * 2)
    ctx["approval_mode"] = mode
    ctx["mcp_config"] = _config_with_flags(mcp_config, flags)
    thread = Thread(ctx)
    await thread.send("Wipe the scope")
    asked = bool(await thread.interrupts())
    assert asked == (mode == "interrupt")
    if asked:
        await thread.resume({"decisions": [{"type": answer}]} if answer != "garbage" else "go")
    runs = [ln for ln in log_lines(workdir / "testkit.log") if scope in ln]
    expected = 1 if mode == "auto" or (mode == "interrupt" and answer == "approve") else 0
    assert len(runs) == expected


async def test_a_mutated_mode_that_reaches_the_gate_still_asks(
    scripted: Any, workdir: Path
) -> None:
    """Even with validation bypassed, the gate itself fails closed."""
    scope = unique("scope")
    ctx_dict, _ = scripted()
    ctx = Context(**ctx_dict)
    object.__setattr__(ctx, "approval_mode", "Auto")  # as if validation had been skipped
    task_graph = build_task_graph()
    task_graph.checkpointer = InMemorySaver()  # interrupts need one; the subgraph has none
    step: dict[str, Any] = {
        "id": "t1",
        "expert": "testkit",
        "task": "wipe",
        "depends_on": [],
        "critical": True,
        "tool": TOOL,
        "args": {"scope": scope},
        "approval": None,
        "status": "running",
        "attempts": 0,
        "result": None,
        "data": None,
        "error": None,
        "declined": [],
        "started_at": "2025-01-01T00:00:00",
        "ended_at": None,
        "messages": [],
    }
    verdict = {"server": "testkit", "tool": TOOL, "irreversible": True}
    task_input = {
        "task": step,
        "request": "wipe",
        "plan_view": "",
        "inputs": {},
        "order": ["t1"],
        "guard": {
            "irreversible": {"testkit": [TOOL]},
            "verdicts": [{**verdict, "source": "heuristic", "reason": "delete"}],
            "unavailable": {},
            "analysis": "skipped",
            "notes": [],
        },
        "max_attempts": 1,
        "run_context": {},
    }
    config = {"configurable": {"thread_id": unique("t")}}
    result = await task_graph.ainvoke(task_input, config, context=ctx)
    # The task stops before the call and hands it up to be asked about; nothing ran.
    (waiting,) = result["awaiting"]
    assert waiting["call"]["name"] == TOOL
    assert result["plan"]["t1"]["status"] == "awaiting_approval"
    assert not any(scope in line for line in log_lines(workdir / "testkit.log"))


async def test_the_interceptor_refuses_a_bad_mode_and_fails_closed_when_mutated(
    mcp_config: dict[str, Any],
) -> None:
    from common.mcp.config import parse_mcp_config

    config = parse_mcp_config(mcp_config)
    with pytest.raises(ApprovalModeError):
        ApprovalInterceptor(config, approval_mode="Auto")  # type: ignore[arg-type]
    interceptor = ApprovalInterceptor(config, approval_mode="interrupt")
    interceptor.approval_mode = "AUTO"  # type: ignore[assignment]
    called: list[Any] = []

    class Request:
        server_name, name, args = "testkit", TOOL, {"scope": "x"}

    async def handler(request: Any) -> Any:
        called.append(request)
        return "ran"

    result = await interceptor(Request(), handler)
    # Outside a graph nobody can be asked: refused, never run.
    assert not called
    assert result.is_error


# --- resumes keep the turn's settings ----------------------------------------------------------


async def test_a_resume_cannot_weaken_the_approval_of_a_pending_call(
    scripted: Any, workdir: Path
) -> None:
    scope = unique("scope")
    step = {"id": "t1", "expert": "testkit", "task": "wipe", "tool": TOOL, "args": {"scope": scope}}
    ctx, _ = scripted(planner=[{"plan": [step]}], response=["answered"] * 2)
    thread = Thread(ctx)
    await thread.send("Wipe the scope")
    assert await thread.interrupts()
    # A client resumes with approvals switched off and no decision: nothing runs, it asks again.
    thread.ctx = {**ctx, "approval_mode": "auto"}
    await thread.resume("go")
    (request,) = await thread.interrupts()
    assert "Your last answer was not used" in request["error"]
    assert not any(scope in line for line in log_lines(workdir / "testkit.log"))


async def test_a_resume_without_context_continues_with_the_runs_settings(
    scripted: Any, workdir: Path
) -> None:
    scope = unique("scope")
    step = {"id": "t1", "expert": "testkit", "task": "wipe", "tool": TOOL, "args": {"scope": scope}}
    ctx, _ = scripted(planner=[{"plan": [step]}], response=["Wiped, as you approved."])
    graph = build_graph(InMemorySaver())
    config: Any = {"configurable": {"thread_id": unique("t")}}
    payload = {"messages": [{"role": "user", "content": "Wipe the scope"}]}
    await graph.ainvoke(payload, config, context=ctx)
    # No context on resume: the scripted models and the test's MCP config still apply.
    await graph.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), config)
    state = await graph.aget_state(config)
    assert state.values["messages"][-1].content == "Wiped, as you approved."
    assert [ln for ln in log_lines(workdir / "testkit.log") if scope in ln] == [
        f"delete_everything {scope}"
    ]


# --- the keyless fallback on the server path ----------------------------------------------------


async def test_without_a_key_or_a_chosen_model_the_graph_uses_offline_rules(
    mcp_config: dict[str, Any],
) -> None:
    graph = build_graph(InMemorySaver())
    config: Any = {"configurable": {"thread_id": unique("t")}}
    payload = {"messages": [{"role": "user", "content": "How many units of WID-1 are in stock?"}]}
    # The tests' settings name openai:gpt-4o-mini with no key and refuse remote models.
    state = await graph.ainvoke(payload, config, context={"mcp_config": mcp_config})
    answer = str(state["messages"][-1].content)
    assert ANNOUNCEMENT in answer
    assert "WID-1" in answer
    assert state["report"]["ok"] is True


async def test_a_chosen_model_that_cannot_load_is_an_error_not_a_fallback(
    mcp_config: dict[str, Any],
) -> None:
    from common.models import ModelConfigError

    graph = build_graph(InMemorySaver())
    config: Any = {"configurable": {"thread_id": unique("t")}}
    payload = {"messages": [{"role": "user", "content": "How many units of WID-1?"}]}
    with pytest.raises(ModelConfigError, match="needs OPENAI_API_KEY"):
        await graph.ainvoke(
            payload, config, context={"mcp_config": mcp_config, "model": "openai:gpt-4o"}
        )


async def test_a_model_set_in_the_settings_without_its_key_refuses_the_run(
    mcp_config: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from common.models import ModelConfigError
    from common.settings import get_settings

    settings = get_settings()
    monkeypatch.setattr(settings, "__pydantic_fields_set__", set(settings.model_fields_set))
    monkeypatch.setattr(settings, "model", "openai:gpt-4o")
    graph = build_graph(InMemorySaver())
    config: Any = {"configurable": {"thread_id": unique("t")}}
    payload = {"messages": [{"role": "user", "content": "How many units of WID-1?"}]}
    with pytest.raises(ModelConfigError, match="unset MODEL to run the keyless demo model"):
        await graph.ainvoke(payload, config, context={"mcp_config": mcp_config})
