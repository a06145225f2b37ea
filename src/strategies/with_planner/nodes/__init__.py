"""The graph's nodes, one module per concern."""

from strategies.with_planner.nodes.advance import make_advance
from strategies.with_planner.nodes.approve import await_approval, request_approval
from strategies.with_planner.nodes.assess import assess_task
from strategies.with_planner.nodes.call_tool import call_tool
from strategies.with_planner.nodes.guard import irreversibility_check
from strategies.with_planner.nodes.orchestrate import orchestrate
from strategies.with_planner.nodes.planner import planner
from strategies.with_planner.nodes.respond import generate_response

__all__ = [
    "assess_task",
    "await_approval",
    "call_tool",
    "generate_response",
    "irreversibility_check",
    "make_advance",
    "orchestrate",
    "planner",
    "request_approval",
]
