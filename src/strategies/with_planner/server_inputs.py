"""What the person answered a server's questions, as the call that asked goes on with it.

A call that stopped at its MCP server's questions (`TaskState.asking`) goes on with the
answers the graph collected under `<call key>#<question key>` (`inputs_for`); what the person
typed into a server's form is data the data-leaving check tracks (`answered_data`).
"""

from __future__ import annotations

import json

from common.mcp.asking import Inputs
from common.safety.server_questions import read_answer
from strategies.with_planner.plans import TaskState


def inputs_for(task: TaskState, key: str) -> Inputs | None:
    """The answers a call that stopped at its server's questions goes on with (None: it did not)."""
    asking = (task.get("asking") or {}).get(key)
    if asking is None:
        return None
    given = task.get("answers") or {}
    answers = {
        q["key"]: read_answer(given.get(f"{key}#{q['key']}", "")) for q in asking["questions"]
    }
    return Inputs(answers, asking["state"], list(asking["questions"]), asking["round"])


def answered_data(inputs: Inputs) -> str:
    """What the person put in the servers' forms, as data the guard tracks (empty: nothing)."""
    given = [a["content"] for a in inputs.answers.values() if a["content"]]
    return json.dumps(given, ensure_ascii=False) if given else ""


TOO_MANY_ROUNDS = "Not finished: the server asked question after question ({n} rounds); given up."
"""A call whose server would not stop asking."""
