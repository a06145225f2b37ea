"""Property: no call the guard holds irreversible ever runs without an approve or edit decision.

Each example builds a random expert (tool names, annotations, config flags), a random analyser
answer (structured, text, malformed or an error), random orchestrator steps and random human
decisions, runs the real graph against an in-process server that records what it executed,
and compares the executions with the guard's verdicts in state and the decisions sent.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st
from mcp.types import ToolAnnotations

from common.safety.arguments import destructive_intent
from common.safety.gate import ASKED_AGAIN
from tests.doubles import ScriptedChatModel, calls, install_scripted, tool_call
from tests.unit_tests.guard_helpers import GENERATED_DESCRIPTION, call_key, servers, tool_server
from tests.unit_tests.helpers import Thread, done, not_done, plan, task

SERVER = "srv"
VERBS = ["get", "list", "search", "fetch", "send", "delete", "sync", "frob", "run", "archive"]
NOUNS = ["note", "item", "message", "sql"]
ANNOTATIONS: dict[str, ToolAnnotations | None] = {
    "none": None,
    "read_only": ToolAnnotations(readOnlyHint=True),
    "write": ToolAnnotations(readOnlyHint=False),
    "destructive": ToolAnnotations(destructiveHint=True),
    "additive": ToolAnnotations(readOnlyHint=False, destructiveHint=False),
    "read_only_destructive": ToolAnnotations(readOnlyHint=True, destructiveHint=True),
}
ARGS = [
    "hello",
    "quarterly report",
    "SELECT 1",
    "DROP TABLE t",
    "rm -rf /tmp/x",
    "UPDATE t SET a=1",
]
IRREVERSIBLE_PATTERNS = ["send_*", "*_note", "delete*"]
REVERSIBLE_PATTERNS = ["get_*", "*_item", "sync*", "frob_*"]
UNKNOWN_NAMES = ["email_everyone", "drop_database", "srv__nothing"]
MALFORMED = ["I'm not sure", "", "IRREVERSIBLE: maybe", "IRREVERSIBLE: YES or NO", "YES NO"]


@dataclass(frozen=True)
class Tool:
    name: str
    param: str
    annotation: str

    @property
    def hints(self) -> ToolAnnotations | None:
        return ANNOTATIONS[self.annotation]


Decision = tuple[str, str, str]
"""(approve | reject | edit, tool to edit into, its argument value); used in turn."""


@dataclass(frozen=True)
class Scenario:
    tools: tuple[Tool, ...]
    flags: dict[str, Any]
    answer: Any
    named: frozenset[str]
    """Catalog tools the answer names in a form that must resolve (YES answers only)."""
    steps: tuple[tuple[tuple[str, str], ...], ...]
    """Per orchestrate step, its calls as (tool, argument value)."""
    mode: str = "interrupt"
    decisions: tuple[Decision, ...] = (("approve", "", ""),)
    """The human's answers, one per held call, cycled through."""
    malformed_first: bool = False
    """Whether each approval request first gets a malformed answer."""
    go_ahead: bool = False
    """In plan_only, whether the user says "go ahead" on a second turn."""

    def tool(self, name: str) -> Tool:
        return next(t for t in self.tools if t.name == name)

    def args(self, name: str, value: str) -> dict[str, str]:
        return {self.tool(name).param: value}


def flags(**given: Any) -> dict[str, Any]:
    base = {"sandboxed": False, "trust_annotations": False}
    return {**base, "irreversible_tools": [], "reversible_tools": [], **given}


def _decorate(name: str, form: int) -> str:
    return [name, f"`{name}`", f"**{name}**", f"mcp__{SERVER}__{name}", f"{SERVER}/{name}"][form]


@st.composite
def answers(draw: Any, names: list[str]) -> tuple[Any, frozenset[str]]:
    kind = draw(st.sampled_from(["structured", "text"] * 2 + ["malformed", "error"]))
    if kind == "malformed":
        return draw(st.sampled_from(MALFORMED)), frozenset()
    if kind == "error":
        return RuntimeError("the analyser is down"), frozenset()
    yes = draw(st.sampled_from([True, True, False]))
    valid = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    unknown = draw(st.lists(st.sampled_from(UNKNOWN_NAMES), unique=True, max_size=2))
    mentioned = [_decorate(n, draw(st.integers(0, 4))) for n in valid] + unknown
    mentioned = draw(st.permutations(mentioned))
    named = frozenset(valid) if yes else frozenset()
    if kind == "structured":
        return {"irreversible": yes, "blocked_tools": mentioned}, named
    listed = ", ".join(mentioned) or "NONE"
    return f"IRREVERSIBLE: {'YES' if yes else 'NO'}\nBLOCKED_TOOLS: {listed}", named


@st.composite
def scenarios(draw: Any) -> Scenario:
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(VERBS), st.sampled_from(NOUNS)),
            min_size=1,
            max_size=4,
            unique=True,
        )
    )
    tools = tuple(
        Tool(
            f"{verb}_{noun}",
            draw(st.sampled_from(["text", "query"])),
            draw(st.sampled_from(list(ANNOTATIONS))),
        )
        for verb, noun in pairs
    )
    names = [t.name for t in tools]
    one_in_four = st.sampled_from([False, False, False, True])
    answer, named = draw(answers(names))
    one_call = st.tuples(st.sampled_from(names), st.sampled_from(ARGS))
    steps = draw(st.lists(st.lists(one_call, min_size=1, max_size=3), min_size=1, max_size=3))
    decision = st.tuples(
        st.sampled_from(["approve", "reject", "edit"]),
        st.sampled_from(names),
        st.sampled_from(ARGS),
    )
    return Scenario(
        tools=tools,
        flags=flags(
            sandboxed=draw(one_in_four),
            trust_annotations=draw(one_in_four),
            irreversible_tools=draw(st.lists(st.sampled_from(IRREVERSIBLE_PATTERNS), max_size=1)),
            reversible_tools=draw(
                st.lists(st.sampled_from([*REVERSIBLE_PATTERNS, ""]), max_size=1).map(
                    lambda patterns: [p for p in patterns if p]
                )
            ),
        ),
        answer=answer,
        named=named,
        steps=tuple(tuple(s) for s in steps),
        mode=draw(st.sampled_from(["interrupt", "interrupt", "plan_only"])),
        decisions=tuple(draw(st.lists(decision, min_size=1, max_size=4))),
        malformed_first=draw(one_in_four),
        go_ahead=draw(st.booleans()),
    )


def _one(name: str, param: str, annotation: str) -> tuple[Tool, ...]:
    return (Tool(name, param, annotation),)


PINNED = [
    # The analyser is all that holds a read-named, unannotated tool.
    Scenario(
        tools=_one("get_item", "text", "none") + _one("send_message", "text", "none"),
        flags=flags(),
        answer="IRREVERSIBLE: YES\nBLOCKED_TOOLS: `get_item`",
        named=frozenset({"get_item"}),
        steps=((("get_item", "hello"), ("send_message", "hello")),),
        decisions=(("reject", "", ""), ("approve", "", "")),
    ),
    # Only the arguments make this trusted read-only query tool dangerous.
    Scenario(
        tools=_one("run_sql", "query", "read_only"),
        flags=flags(trust_annotations=True),
        answer="IRREVERSIBLE: NO\nBLOCKED_TOOLS: NONE",
        named=frozenset(),
        steps=((("run_sql", "SELECT 1"),), (("run_sql", "DROP TABLE t"),)),
        decisions=(("edit", "run_sql", "rm -rf /tmp/x"),),
        malformed_first=True,
    ),
    # A failed analysis holds the unannotated read tool, not the annotated one.
    Scenario(
        tools=_one("list_note", "text", "none") + _one("fetch_item", "text", "read_only"),
        flags=flags(),
        answer=RuntimeError("the analyser is down"),
        named=frozenset(),
        steps=((("list_note", "hello"), ("fetch_item", "hello")),),
        decisions=(("reject", "", ""),),
    ),
    # plan_only: held calls wait for the go-ahead, then run as recorded.
    Scenario(
        tools=_one("delete_note", "text", "destructive") + _one("search_item", "text", "none"),
        flags=flags(),
        answer={"irreversible": True, "blocked_tools": ["srv/search_item", "nonexistent"]},
        named=frozenset({"search_item"}),
        steps=((("delete_note", "hello"),), (("search_item", "quarterly report"),)),
        mode="plan_only",
        go_ahead=True,
    ),
]


# --- the oracle -----------------------------------------------------------------------------------


def config_decides(s: Scenario, name: str) -> bool | None:
    """What the server config alone says (irreversible?), or None when it says nothing."""
    if any(fnmatchcase(name, p) for p in s.flags["irreversible_tools"]):
        return True
    if any(fnmatchcase(name, p) for p in s.flags["reversible_tools"]) or s.flags["sandboxed"]:
        return False
    return None


def check_verdicts(s: Scenario, guard: dict[str, Any]) -> set[str]:
    """Independent floor on the verdicts; returns the tools held irreversible this turn."""
    verdicts = {v["tool"]: v for v in guard["verdicts"]}
    assert set(verdicts) == {t.name for t in s.tools}
    for t in s.tools:
        v, by_config, hints = verdicts[t.name], config_decides(s, t.name), t.hints
        if by_config is True:
            assert (v["irreversible"], v["source"]) == (True, "config"), v
        if by_config is not None:
            continue
        if hints is not None and hints.destructive_hint and not hints.read_only_hint:
            assert v["irreversible"], v
        if guard["analysis"] == "error" and not (hints and hints.read_only_hint):
            assert v["irreversible"], v
        settled = v["source"] == "annotation" and s.flags["trust_annotations"]
        if guard["analysis"] == "ok" and t.name in s.named and not settled:
            assert v["irreversible"], v
    if all(config_decides(s, t.name) is not None for t in s.tools):
        assert guard["analysis"] == "skipped"
    return {name for name, v in verdicts.items() if v["irreversible"]}


def flagged(s: Scenario, irreversible: set[str], name: str, value: str) -> bool:
    """Whether the guard (tool verdict) or the argument check must hold this call."""
    schema = {"type": "object", "properties": {s.tool(name).param: {"type": "string"}}}
    args = s.args(name, value)
    intent = destructive_intent(name, schema, args, description=GENERATED_DESCRIPTION)
    return name in irreversible or intent is not None


def free_calls(
    s: Scenario, irreversible: set[str], steps: tuple[tuple[tuple[str, str], ...], ...]
) -> Counter[str]:
    """The calls of `steps` that need no decision."""
    return Counter(
        call_key(name, s.args(name, value))
        for step in steps
        for name, value in step
        if not flagged(s, irreversible, name, value)
    )


# --- running one example --------------------------------------------------------------------------


def context_for(s: Scenario, inprocess: str) -> tuple[dict[str, Any], dict[str, Any]]:
    k = len(s.steps)
    scripts: dict[str, list[Any]] = {
        "planner": [plan(task("t1", SERVER, "do the work")), plan()],
        "irreversibility": [s.answer],
        "orchestrate": [calls(*(tool_call(n, s.args(n, v)) for n, v in step)) for step in s.steps],
        "assess": [not_done()] * (k - 1) + [done()],
        "response": ["ok", "ok"],
    }
    models = {role: ScriptedChatModel(script=items, name_=role) for role, items in scripts.items()}
    ctx: dict[str, Any] = {role + "_model": install_scripted(m) for role, m in models.items()}
    ctx.update(
        model="scripted:missing",
        approval_mode=s.mode,
        max_task_attempts=k,
        mcp_config=servers(**{SERVER: {"inprocess": inprocess, **s.flags}}),
    )
    return ctx, models


async def decide(
    s: Scenario,
    thread: Thread,
    request: dict[str, Any],
    held: list[tuple[str, str]],
    turn: int,
    executed: list[Any],
) -> Counter[str]:
    """Answer one approval request from the scenario; returns the executions it allows."""
    assert [(a["name"], a["args"]) for a in request["action_requests"]] == [
        (n, s.args(n, v)) for n, v in held
    ]
    allowed: Counter[str] = Counter()
    decisions = []
    for i, (name, value) in enumerate(held):
        # An edit changes a call's arguments, never its tool (another tool's name is refused).
        kind, _, new_value = s.decisions[(turn + i) % len(s.decisions)]
        if kind == "approve":
            allowed[call_key(name, s.args(name, value))] += 1
            decisions.append({"type": "approve"})
        elif kind == "reject":
            decisions.append({"type": "reject", "message": "no"})
        else:
            new_args = s.args(name, new_value)
            allowed[call_key(name, new_args)] += 1
            decisions.append({"type": "edit", "edited_action": {"name": name, "args": new_args}})
    if s.malformed_first:
        ran = list(executed)
        await thread.resume({"decisions": decisions[:-1]})
        (again,) = await thread.interrupts()
        assert "nothing ran" in again["error"]
        assert again["action_requests"] == request["action_requests"]
        assert executed == ran
    ran = list(executed)
    await thread.resume({"decisions": decisions})
    # An edit held for a reason of its own is asked about again before anything of its step
    # runs; approving it runs the edit as written (already counted above).
    while (again := await thread.interrupts()) and all(
        EDIT_ASKED_AGAIN in a["description"] for a in again[0]["action_requests"]
    ):
        assert executed == ran
        await thread.resume({"decisions": [{"type": "approve"}] * len(again[0]["action_requests"])})
    return allowed


EDIT_ASKED_AGAIN = ASKED_AGAIN.split("{", 1)[0]
"""How the reason of an edited call asked about again begins."""


PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
    ],
)


@PROPERTY
@given(s=scenarios())
@example(s=PINNED[0])
@example(s=PINNED[1])
@example(s=PINNED[2])
@example(s=PINNED[3])
async def test_no_irreversible_call_runs_without_approval(s: Scenario) -> None:
    await check_scenario(s)


async def check_scenario(s: Scenario) -> None:
    """Run one scenario on the graph and check every execution against verdicts and decisions."""
    expert = tool_server([(t.name, t.param, t.hints) for t in s.tools])
    ctx, models = context_for(s, expert.inprocess)
    thread = Thread(ctx)
    await thread.send("Do the work")

    decided: Counter[str] = Counter()
    irreversible: set[str] | None = None
    asked = 0
    while requests := await thread.interrupts():
        asked += 1
        if irreversible is None:
            irreversible = check_verdicts(s, (await thread.values())["guard"])
        (request,) = requests
        index = len(models["orchestrate"].requests) - 1
        held = [(n, v) for n, v in s.steps[index] if flagged(s, irreversible, n, v)]
        # While a step waits for its answer, none of its calls has run, held or not.
        ran_before = decided + free_calls(s, irreversible, s.steps[:index])
        assert Counter(expert.runs.keys()) == ran_before
        decided += await decide(s, thread, request, held, asked, expert.runs.calls)

    state = await thread.values()
    irreversible = check_verdicts(s, state["guard"])
    event(f"mode {s.mode}, analysis {state['guard']['analysis']}")
    event(f"asked a human {min(asked, 2)}+ time(s)")
    assert len(models["orchestrate"].requests) == len(s.steps)
    assert all(r["tools"] == [] for r in models["irreversibility"].requests)
    allowed = decided + free_calls(s, irreversible, s.steps)
    held_back = [
        call_key(name, s.args(name, value))
        for step in s.steps
        for name, value in step
        if flagged(s, irreversible, name, value)
    ]
    if s.mode == "plan_only":
        assert [call_key(d["name"], d["args"]) for d in state["deferred"]] == held_back
        if s.go_ahead:
            await thread.send("go ahead")
            allowed.update(held_back)

    assert Counter(expert.runs.keys()) == allowed
