"""A tool list that cannot be read is never "nothing needs approval".

When an expert's tools cannot be listed this turn (its server does not start), nothing says what
a call to it does: a call the guard did not decide is not sent at all, nor asked about (the
server might answer again by the time it would be sent), its step fails saying why, and the
CLI's guard line names the expert instead of "nothing". The planner may still plan such a call
from the tool list it remembers from an earlier turn.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from common.mcp import ExpertRegistry, ExpertUnavailable
from strategies.cli import render
from tests.integration_tests.helpers import drop_pooled
from tests.unit_tests.helpers import Thread, note_actions, plan, task, unique


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


async def test_a_call_to_an_expert_whose_tools_cannot_be_listed_is_not_sent(
    scripted: Any, tmp_path: Path
) -> None:
    title = unique("unlisted")
    write = {**task("t1", "notes", "save it"), "tool": "write_note"}
    write["args"] = {"title": title, "body": "x"}
    ctx, _ = scripted(planner=[plan(), plan(write)], response=["Nothing to do.", "Not saved."])
    config, down = notes_until_down(tmp_path)
    ctx["mcp_config"] = config
    thread = Thread(ctx)
    await thread.send("Hello")  # the notes server starts: its tool list is remembered
    down.touch()
    await drop_pooled(config, "notes")

    await thread.send(f'Write a note titled "{title}"')

    values = await thread.values()
    assert values["guard"]["irreversible"] == {}
    assert "down for maintenance" in values["guard"]["unavailable"]["notes"]
    assert await thread.interrupts() == []
    (step,) = values["previous_plan"]
    assert step["status"] == "failed"
    assert step["error"].startswith(
        "Not run: the tools of 'notes' could not be listed, so what 'write_note' does is unknown"
    )
    assert "down for maintenance" in step["error"]
    assert not (tmp_path / "notes.log").exists()


def test_the_guard_line_names_an_expert_whose_tools_could_not_be_listed(
    capsys: Any,
) -> None:
    event = {"event": "guard", "irreversible": {}, "unavailable": {"notes": "Expert 'notes' ..."}}

    render.render_event(event)

    shown = " ".join(capsys.readouterr().out.split())
    assert (
        "guard: needs approval: unknown for notes (its tools could not be listed; "
        "no call to it is sent)"
    ) in shown
    assert "needs approval: nothing" not in shown


async def test_a_call_is_not_sent_when_its_server_answers_again_after_a_failed_listing(
    scripted: Any, mcp_config: dict[str, Any], workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race the rule closes: listing fails, then the server answers the call itself."""
    title = unique("answers-again")
    write = {**task("t1", "notes", "save it"), "tool": "write_note"}
    write["args"] = {"title": title, "body": "x"}
    ctx, _ = scripted(planner=[plan(write)], response=["Not saved."])
    listing, tools = ExpertRegistry._listing, ExpertRegistry.tools

    guarded: list[str] = []
    gated: list[str] = []

    async def unlisted_listing(self: ExpertRegistry, name: str, cached_ok: bool) -> Any:
        if name == "notes" and not cached_ok:  # the guard's listing
            guarded.append(name)
            raise ExpertUnavailable("notes", "the listing timed out")
        return await listing(self, name, cached_ok)

    async def unlisted_tools(self: ExpertRegistry, expert: str, *args: Any) -> Any:
        # The next listing (the gate's, before the call) fails too; the server answers all after.
        if expert == "notes" and guarded and not gated:
            gated.append(expert)
            raise ExpertUnavailable("notes", "the listing timed out")
        return await tools(self, expert, *args)

    monkeypatch.setattr(ExpertRegistry, "_listing", unlisted_listing)
    monkeypatch.setattr(ExpertRegistry, "tools", unlisted_tools)
    thread = Thread(ctx)

    await thread.send(f'Write a note titled "{title}"')

    (step,) = (await thread.values())["previous_plan"]
    assert step["status"] == "failed"
    assert "the listing timed out" in step["error"]
    assert note_actions(workdir, title) == []
