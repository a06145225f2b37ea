import pytest
from langgraph.checkpoint.memory import InMemorySaver
from common.testing import calls, tool_call
from strategies.with_planner.graph import build_graph

async def test_smoke(scripted):
    ctx, models = scripted(
        planner=[{"plan": [{"id": "t1", "expert": "testkit", "task": "echo hi"}]}],
        orchestrate=[calls(tool_call("echo", {"text": "hi"})), "done"],
        assess=[{"completed": False, "reason": "x"}, {"completed": True, "reason": "ok"}],
        response=["final"],
    )
    g = build_graph(InMemorySaver())
    out = await g.ainvoke({"messages": [{"role": "user", "content": "hi"}]}, {"configurable": {"thread_id": "s"}}, context=ctx)
    for m in out["messages"]:
        print(type(m).__name__, repr(m.content)[:200], getattr(m, "tool_calls", None))
    print(out["previous_plan"])
    print(models["orchestrate"].requests[0]["tools"])
