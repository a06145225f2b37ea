"""The `mcp-planner` commands: each checks its input, runs, and ends with a documented exit code."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from strategies.cli import prompts, startup_done
from strategies.cli.answers import Preset, preset_from_options, resume_hint
from strategies.cli.audit import audit_cmd
from strategies.cli.exits import (
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    OutputClosed,
    one_line,
    thread_given,
)
from strategies.cli.help import PlainCommand, PlainGroup
from strategies.cli.outcome import Outcome, error, print_json, show, stopped
from strategies.cli.render import (
    cut,
    fit_output,
    keep_width,
    line,
    new_table,
    out,
    print_table,
    problem,
)
from strategies.cli.request import refuse_empty, request_from
from strategies.cli.serve import serve_cmd
from strategies.cli.token import TokenOption, token_cmd
from strategies.cli.trust import mark_of, trust_app

if TYPE_CHECKING:
    from strategies.cli.answers import Preset
    from strategies.with_planner.context import Context

# LangChain, LangGraph, the MCP SDK and the persistence backends are imported by the commands
# that use them, not here: `--help` and a mistyped option answer at once, and `run` starts its
# MCP servers (strategies.cli.drive) before it imports the graph.


def _user_error_types() -> tuple[type[Exception], ...]:
    """Errors a person causes (`setup.user_error_types`), imported when one is raised."""
    from strategies.cli.setup import user_error_types

    return user_error_types()


PACKAGE = "langgraph-mcp-planner"
"""The distribution whose version `--version` prints."""

app = typer.Typer(
    help="Plan a request over MCP expert servers and run it, asking before anything irreversible.",
    epilog=EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    cls=PlainGroup,
)

ThreadOption = Annotated[
    str | None,
    typer.Option("--thread", metavar="ID", help="Thread id to continue.", callback=thread_given),
]
ModelOption = Annotated[
    str | None,
    typer.Option(
        "--model", metavar="PROVIDER:MODEL", help="Model for every node, e.g. openai:gpt-4o-mini."
    ),
]
ModeOption = Annotated[
    str | None,
    typer.Option(
        "--mode",
        metavar="MODE",
        help="Approval mode: interrupt (ask), plan_only (hold and list) or auto (run, logged); "
        "default APPROVAL_MODE.",
    ),
]
ConfigOption = Annotated[
    Path | None,
    typer.Option(
        "--config", metavar="PATH", help="MCP config file (default MCP_CONFIG: mcp.json)."
    ),
]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print one JSON object on stdout; progress goes to stderr.")
]
ServerOption = Annotated[
    str | None,
    typer.Option(
        "--server",
        metavar="URL",
        help="A LangGraph API server (langgraph dev, Aegra) to run on: the thread lives there, "
        "approvals are still asked here.",
    ),
]


def _show_version(value: bool) -> None:
    if not value:
        return
    try:
        number = version(PACKAGE)
    except PackageNotFoundError:
        number = "unknown (the package is not installed)"
    typer.echo(f"mcp-planner {number}")
    raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    ctx: typer.Context,
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Plan a request over MCP expert servers and run it, asking before anything irreversible."""
    # Only a local run and `graph` import the graph: every other command collects from here on.
    startup_done(ctx.invoked_subcommand)


def _options(
    model: str | None, mode: str | None, config: Path | None, server: str | None = None
) -> list[str]:
    """The options a later `resume` needs to continue the same way."""
    given = [("--server", server), ("--model", model), ("--mode", mode)]
    given += [("--config", str(config) if config else None)]
    return [part for name, value in given if value is not None for part in (name, value)]


@contextmanager
def user_errors() -> Iterator[None]:
    """A mistake the user can fix ends the command with one line on stderr and exit 2."""
    try:
        yield
    except Exception as exc:
        if not isinstance(exc, _user_error_types()):
            raise
        problem(one_line(exc))
        raise typer.Exit(getattr(exc, "code", EXIT_USAGE)) from None


def _conclude(
    body: Callable[[], Outcome], as_json: bool, thread: str, hint: str, shown: bool = False
) -> NoReturn:
    """Run a command's body and end with its outcome: printed, and as JSON with --json."""
    out.stderr = as_json
    fit_output()
    try:
        try:
            outcome = body()
        except (KeyboardInterrupt, prompts.Stopped, OutputClosed) as exc:
            # A closed output (`| head -1`) stops the thread as Ctrl-C does; exit 141.
            outcome, shown = stopped(thread, hint, isinstance(exc, OutputClosed)), False
        except Exception as exc:
            if not isinstance(exc, _user_error_types()):
                raise
            problem(one_line(exc))
            outcome, shown = error(one_line(exc), getattr(exc, "code", EXIT_USAGE)), True
        if not shown:
            show(outcome)
        if as_json:
            print_json(outcome)
    finally:
        out.stderr = False
    raise typer.Exit(outcome.exit_code)


RequestArgument = Annotated[
    str,
    typer.Argument(
        metavar="REQUEST",
        help="What you want done, or - to read it from standard input (echo '...' | mcp-planner "
        "run -, a here-doc); nothing is asked there then: approvals wait, exit 3.",
    ),
]
"""The run command's request (`strategies.cli.request`)."""


@app.command(cls=PlainCommand, epilog=EXIT_CODES_HELP)
def run(
    request: RequestArgument,
    thread: ThreadOption = None,
    model: ModelOption = None,
    mode: ModeOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
    server: ServerOption = None,
    token: TokenOption = None,
    new: Annotated[
        bool, typer.Option("--new", help="Start a new thread under the --thread ID given.")
    ] = False,
) -> None:
    """Run one request and print the answer.

    In a terminal it asks before anything irreversible; without one (pipe, CI) it lists the
    pending approvals with the resume command and exits 3. With --server URL the run and its
    thread live on that LangGraph API server (langgraph dev, Aegra); approvals are asked here.

    Example (works keyless, on offline:rules with the demo mcp.json): mcp-planner run 'How many
    units of WID-1 are in stock, then write a note titled "stock"'

    Open-ended requests ("Which widgets are low on stock? Save a summary as a note.") need a
    language model: set MODEL (e.g. openai:gpt-4o-mini) and its API key, or pass --model.

    --thread ID continues that thread, and an unknown ID is refused (exit 2), so a mistyped id
    never starts a thread of its own; --thread ID --new starts a new thread under that id.
    """
    if not (request := request_from(request)).strip():
        _conclude(refuse_empty, as_json, thread or "", "")
    if new and thread is None:
        problem("--new starts a thread under the id you give: add --thread ID.")
        raise typer.Exit(EXIT_USAGE)
    # Must the thread exist (--thread ID), must it not (--thread ID --new), or is it new (None)?
    existing = None if thread is None else not new
    if server is not None:
        _run_on_server(
            server, request, thread, bool(existing), (model, mode, config), as_json, token
        )
    thread_id = thread or uuid.uuid4().hex[:12]
    hint = resume_hint(thread_id, _options(model, mode, config))

    def body() -> Outcome:
        from strategies.cli.setup import build_context

        ctx = build_context(model, mode, config)
        payload = {"messages": [{"role": "user", "content": request}]}
        return asyncio.run(_run_and_show(payload, thread_id, ctx, hint, existing=existing))

    _conclude(body, as_json, thread_id, hint, shown=True)


async def _run_and_show(
    payload: Any,
    thread: str,
    ctx: Context,
    hint: str,
    preset: Preset | None = None,
    existing: bool | None = None,
) -> Outcome:
    """Run or resume the thread and show how it ended, then close its experts.

    Shown before the experts are closed (closing stdio servers takes a moment nobody need wait
    for). `existing` True refuses an unknown thread, False a known one (None: either).
    """
    from common.mcp.registry import shutdown_pool
    from strategies.cli.experts import start_experts
    from strategies.cli.records import nothing_saved

    if existing and nothing_saved("checkpoints"):
        from strategies.cli.drive import no_thread

        raise no_thread(thread, new_hint=True)
    try:
        # Launched before the driver, the graph and persistence are imported: they start meanwhile.
        await start_experts(ctx.mcp_config)
        from strategies.cli.drive import run_thread

        outcome = await run_thread(
            payload, thread, ctx, hint, preset, close_sessions=False, existing=existing
        )
        show(outcome)
        return outcome
    finally:
        await shutdown_pool()


DecisionsOption = Annotated[
    str | None,
    typer.Option(
        "--decisions",
        metavar="JSON",
        help='One decision per pending call, in order: {"decisions": [{"type": "approve"} | '
        '{"type": "edit", "edited_action": {"name": ..., "args": {...}}} | '
        '{"type": "reject", "message": ...}]}.',
    ),
]
"""The resume command's --decisions option."""


@app.command(cls=PlainCommand, epilog=EXIT_CODES_HELP)
def resume(
    thread: Annotated[str, typer.Argument(metavar="ID", help="Thread id, as printed after a run.")],
    approve: Annotated[
        bool, typer.Option("--approve", help="Approve every pending call (no prompt).")
    ] = False,
    reject: Annotated[
        bool, typer.Option("--reject", help="Reject every pending call (no prompt).")
    ] = False,
    message: Annotated[
        str | None,
        typer.Option("--message", metavar="TEXT", help="With --reject: why, told to the planner."),
    ] = None,
    decisions: DecisionsOption = None,
    answer: Annotated[
        str | None,
        typer.Option("--answer", metavar="TEXT", help="The answer to a pending question."),
    ] = None,
    question: Annotated[
        list[str] | None,
        typer.Option(
            "--question",
            metavar="ID",
            help="The id of the question answered, as printed with it: refused (exit 2) when "
            "another question waits now. Once per waiting question.",
        ),
    ] = None,
    model: ModelOption = None,
    mode: ModeOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
    server: ServerOption = None,
    token: TokenOption = None,
) -> None:
    """Continue a thread: answer its pending approval, or finish a run that was stopped.

    In a terminal it asks; from a script answer with --approve, --reject [--message TEXT],
    --decisions JSON or --answer TEXT. They apply to what is pending now only: a later call
    that needs approval is asked about again (exit 3 without a terminal).

    Example: mcp-planner resume 3f2a9c1b7d4e --approve
    """
    hint = resume_hint(thread, _options(model, mode, config, server))

    def body() -> Outcome:
        bound = tuple(question or ())
        preset = preset_from_options(approve, reject, message, decisions, answer, bound)
        return _resume_thread(thread, hint, preset, (model, mode, config), server, token)

    _conclude(body, as_json, thread, hint, shown=server is None)


def _resume_thread(
    thread: str,
    hint: str,
    preset: Preset | None,
    settings: tuple[str | None, str | None, Path | None],
    server: str | None,
    token: str | None = None,
) -> Outcome:
    """Resume a thread on a server, or in this process from the saved checkpoints."""
    model, mode, config = settings
    if server is not None:
        from strategies.cli import remote

        startup_done()
        url = remote.server_url(server)
        context = remote.server_context(model, mode, config)
        return asyncio.run(
            remote.resume_remote(url, thread, context, hint, preset, remote.token_for(token))
        )
    from strategies.cli.drive import no_thread
    from strategies.cli.records import nothing_saved
    from strategies.cli.setup import build_context

    ctx = build_context(model, mode, config)
    if nothing_saved("checkpoints"):
        raise no_thread(thread)
    return asyncio.run(_run_and_show(None, thread, ctx, hint, preset))


def _run_on_server(
    server: str,
    request: str,
    thread: str | None,
    existing: bool,
    settings: tuple[str | None, str | None, Path | None],
    as_json: bool,
    token: str | None = None,
) -> NoReturn:
    """`run --server`: the same command, on a thread of the server's."""
    from strategies.cli import remote

    startup_done()
    model, mode, config = settings

    thread_id = thread or remote.new_thread_id()
    hint = resume_hint(thread_id, _options(model, mode, config, server))

    def body() -> Outcome:
        url = remote.server_url(server)
        context = remote.server_context(model, mode, config)
        return asyncio.run(
            remote.run_remote(
                url, request, thread_id, existing, context, hint, remote.token_for(token)
            )
        )

    _conclude(body, as_json, thread_id, hint)


async def _chat(thread: str, hint: str, ctx: Context) -> Outcome:
    """Turn after turn on one thread until exit, quit, Ctrl-D, or a wait with no terminal."""
    from common.mcp.registry import shutdown_pool
    from strategies.cli.drive import run_thread

    outcome = Outcome(thread_id=thread, status="completed", exit_code=EXIT_OK)
    try:
        while True:
            text = prompts.ask_turn()
            if text is None or text.strip().lower() in {"exit", "quit", ":q"}:
                return outcome
            payload = {"messages": [{"role": "user", "content": text}]}
            outcome = await run_thread(payload, thread, ctx, hint, close_sessions=False)
            show(outcome)
            if outcome.status == "awaiting_approval":
                return outcome
    finally:
        await shutdown_pool()


@app.command(cls=PlainCommand, epilog=EXIT_CODES_HELP)
def chat(
    thread: ThreadOption = None,
    model: ModelOption = None,
    mode: ModeOption = None,
    config: ConfigOption = None,
) -> None:
    """Talk to the planner turn after turn on one thread (exit, quit or Ctrl-D to stop).

    Example: mcp-planner chat --thread my-notes
    """
    thread_id = thread or uuid.uuid4().hex[:12]
    hint = resume_hint(thread_id, _options(model, mode, config))

    def body() -> Outcome:
        from strategies.cli.setup import build_context

        ctx = build_context(model, mode, config)
        line(f"thread {thread_id}; exit, quit or Ctrl-D to stop", "dim")
        return asyncio.run(_chat(thread_id, hint, ctx))

    _conclude(body, False, thread_id, hint, shown=True)


@app.command(cls=PlainCommand)
def tools(
    config: ConfigOption = None,
    as_json: JsonOption = False,
    user: Annotated[
        str, typer.Option(metavar="ID", help="Whose remembered approvals to mark.")
    ] = "default",
) -> None:
    """List every tool of every expert with its classification, without running any model.

    Only the deterministic layers decide here (config, annotations, names); the per-turn LLM
    analysis can add to them during a run, and clear only what no signal holds. `remembered`
    marks a tool the user chose not to be asked again for; `changed` one whose definition
    changed since (it is asked again). At call time a call is also held when its arguments
    carry other experts' data out (a URL, a recipient, a message): a server's
    `data_may_leave: true` allows that. Exits 1 when an expert cannot start, 2 when the
    config has no server.

    Example: mcp-planner tools --config mcp.json --json
    """
    from strategies.cli import tool_list
    from strategies.cli.setup import read_mcp_config, settings

    fit_output()
    with user_errors():
        _, mcp = read_mcp_config(config)
        source = str(config if config is not None else settings().mcp_config)
        tool_list.require_servers(mcp, source)
        verdicts, errors, marks = asyncio.run(tool_list.classify_all(mcp, user))
    rows: list[dict[str, Any]] = [{**v, "remembered": mark_of(marks, dict(v))} for v in verdicts]
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    if errors and len(errors) == len(mcp.servers):
        problem(tool_list.none_listed(source, errors))
        raise typer.Exit(EXIT_FAILED)
    if not as_json:
        print_table(tool_list.tool_table(rows))
        line(tool_list.leaving_note(mcp), "dim")
    for message in errors.values():
        problem(message)
    raise typer.Exit(EXIT_FAILED if errors else EXIT_OK)


app.add_typer(trust_app, name="trust")
app.command("audit", cls=PlainCommand)(audit_cmd)
app.command("token", cls=PlainCommand)(token_cmd)
app.command("serve", cls=PlainCommand)(serve_cmd)


@app.command(cls=PlainCommand)
def threads(
    as_json: JsonOption = False,
    server: Annotated[
        str | None,
        typer.Option(
            "--server",
            metavar="URL",
            help="List the threads of this LangGraph API server (langgraph dev, Aegra).",
        ),
    ] = None,
    token: TokenOption = None,
) -> None:
    """List threads with their last question and status, newest first.

    Example: mcp-planner threads --json
    """
    from rich.text import Text

    fit_output()
    with user_errors():
        if server is not None:
            from strategies.cli import remote

            url, sent = remote.server_url(server), remote.token_for(token)
            rows = asyncio.run(remote.list_remote_threads(url, sent))
        else:
            from strategies.cli.records import list_threads, nothing_saved

            rows = [] if nothing_saved("checkpoints") else asyncio.run(list_threads())
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    if not rows:
        line('No threads here yet: mcp-planner run "..." starts one.')
        return
    table = new_table("Threads", ["thread", "last question", "status", "updated"], keep=("thread",))
    keep_width(table, 0, [r["thread_id"] for r in rows])
    for r in rows:
        table.add_row(
            Text(r["thread_id"]), Text(cut(r["last_question"], 60)), r["status"], r["updated"][:19]
        )
    print_table(table)


@app.command(cls=PlainCommand)
def history(
    query: Annotated[
        str, typer.Argument(metavar="WORDS", help="Words to look for; none lists recent runs.")
    ] = "",
    user: Annotated[
        str, typer.Option(metavar="ID", help="Whose runs (the context's user_id).")
    ] = "default",
    limit: Annotated[int, typer.Option(metavar="N", min=1, help="How many runs at most.")] = 10,
    as_json: JsonOption = False,
) -> None:
    """Search your past runs: question, plan, tool calls and answer.

    Example: mcp-planner history "stock widgets" --limit 5
    """
    from rich.text import Text

    from strategies.cli.records import nothing_saved, past_runs

    fit_output()
    with user_errors():
        runs = [] if nothing_saved("store") else asyncio.run(past_runs(query, user, limit))
    if as_json:
        sys.stdout.write(json.dumps(runs, indent=2, default=str) + "\n")
        return
    if not runs:
        line(f"No past runs match {query!r}." if query.strip() else "No past runs yet.")
        return
    title = f"Past runs of {user!r}" + (f" matching {query!r}" if query else "")
    table = new_table(title, ["when", "question", "answer", "thread"], keep=("thread",))
    keep_width(table, 3, [str(r.get("thread_id") or "") for r in runs])
    for r in runs:
        table.add_row(
            str(r.get("ended_at", ""))[:19],
            Text(cut(r.get("question", ""), 50)),
            Text(cut(r.get("answer", ""), 60)),
            Text(str(r.get("thread_id") or "")),
        )
    print_table(table)


@app.command("graph", cls=PlainCommand)
def graph_cmd(
    live: bool = typer.Option(False, "--live", help="Build the graph and draw it (slower)."),
) -> None:
    """Print the graph as a Mermaid drawing, the per-task subgraph inside advance included.

    Example: mcp-planner graph > graph.mmd
    """
    with user_errors():
        from strategies.cli.drawing import drawing

        startup_done()
        shown = drawing(live)
    sys.stdout.write(shown)
