"""A tool list that cannot be read is never "nothing needs approval".

When an expert's tools cannot be listed this turn (its server does not start), nothing says what
a call to it does: the gate holds every call the guard did not decide, and the CLI's guard line
names the expert instead of "nothing". The planner may still plan such a call from the tool list
it remembers from an earlier turn.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from strategies.cli import render
from tests.integration_tests.helpers import drop_pooled
from tests.unit_tests.helpers import Thread, plan, task, unique


def notes_until_down(folder: Path) -> tuple[dict[str, Any], Path]:
    """The notes expert, whose server refuses to start once `folder/down` exists."""
    down = folder / "down"
    script = (
        f"if [ -e {down} ]; then echo 'down for maintenance' >&2; exit 1; fi; "
        f"exec {sys.executable} -m common.demo_servers.notes"
    )
    env = {"NOTES_FILE": str(folder / "notes.json"), "NOTES_LOG": str(folder / "notes.log")}
    server = {"command": "sh", "args": ["-c", script], "env": env}
    return {"mcpServers": {"notes": server}}, down


async def test_a_call_to_an_expert_whose_tools_cannot_be_listed_waits_for_a_human(
    scripted: Any, tmp_path: Path
) -> None:
    title = unique("unlisted")
    write = {**task("t1", "notes", "save it"), "tool": "write_note"}
    write["args"] = {"title": title, "body": "x"}
    ctx, _ = scripted(planner=[plan(), plan(write)], response=["Nothing to do.", "Asked."])
    config, down = notes_until_down(tmp_path)
    ctx["mcp_config"] = config
    thread = Thread(ctx)
    await thread.send("Hello")  # the notes server starts: its tool list is remembered
    down.touch()
    await drop_pooled(config, "notes")

    await thread.send(f'Write a note titled "{title}"')

    guard = (await thread.values())["guard"]
    assert guard["irreversible"] == {}
    assert "down for maintenance" in guard["unavailable"]["notes"]
    (question,) = await thread.interrupts()
    (action,) = question["action_requests"]
    assert action["name"] == "write_note"
    assert "the tools of 'notes' could not be listed" in action["description"]
    assert "so what 'write_note' does is unknown" in action["description"]
    assert not (tmp_path / "notes.log").exists()


def test_the_guard_line_names_an_expert_whose_tools_could_not_be_listed(
    capsys: Any,
) -> None:
    event = {"event": "guard", "irreversible": {}, "unavailable": {"notes": "Expert 'notes' ..."}}

    render.render_event(event)

    shown = " ".join(capsys.readouterr().out.split())
    assert "guard: needs approval: every call to notes (its tools could not be listed)" in shown
    assert "needs approval: nothing" not in shown
