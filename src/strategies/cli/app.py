"""The `mcp-planner` command: run the with_planner graph from a terminal."""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any, cast

import typer
from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.types import Command, Interrupt
from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.panel import Panel
from rich.prompt import Prompt
from rich.spinner import Spinner
from rich.table import Table

from common.embeddings import configured_embeddings
from common.mcp import ExpertRegistry, ExpertUnavailable, McpConfig, McpConfigError, load_mcp_config
from common.mcp.registry import shutdown_pool
from common.memory import namespace as memory_namespace
from common.memory import search_runs
from common.models import ModelConfigError, load_chat_model
from common.offline import ANNOUNCEMENT
from common.persistence import open_persistence
from common.safety.classify import ToolVerdict, classify_tools
from common.settings import get_settings

app = typer.Typer(
    help="Plan a request over MCP expert servers and run it, asking before anything irreversible.",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()
err = Console(stderr=True)

EXIT_OK, EXIT_FAILED, EXIT_CONFIG, EXIT_INTERRUPTED = 0, 1, 2, 130
ROLES = ("planner", "orchestrate", "assess", "response")


def _context(model: str | None, mode: str | None, config: Path | None) -> dict[str, Any]:
    ctx: dict[str, Any] = {}
    if model:
        ctx["model"] = model
    if mode:
        ctx["approval_mode"] = mode
    if config:
        try:
            ctx["mcp_config"] = json.loads(config.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise McpConfigError(f"Cannot read MCP config {str(config)!r}: {exc}") from exc
    return ctx


def _check_models(ctx: dict[str, Any], explicit: bool) -> None:
    """Fail early on an unusable model; with none chosen and no key, fall back to offline:rules."""
    from strategies.with_planner.context import Context

    context = Context(**ctx)
    try:
        for role in ROLES:
            load_chat_model(context.model_for(role))
    except ModelConfigError:
        if explicit or any(getattr(context, f"{r}_model") for r in ROLES):
            raise
        ctx["model"] = "offline:rules"
        err.print(f"[yellow]{ANNOUNCEMENT}[/]")


STATUS_STYLE = {
    "completed": "green",
    "failed": "red",
    "skipped": "yellow",
    "cancelled": "yellow",
    "running": "cyan",
    "pending": "dim",
}


class PlanBoard:
    """The plan as a live table: one row per task, a spinner while it runs."""

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, str]] = {}
        self.spinners: dict[str, Spinner] = {}

    def apply(self, event: dict[str, Any]) -> None:
        """Update the rows from a custom stream event."""
        kind = event.get("event")
        if kind == "plan":
            for t in event["plan"]:
                self.tasks[t["id"]] = {
                    "expert": t["expert"],
                    "task": t["task"],
                    "status": t["status"],
                }
        elif kind == "task_start" and event["task_id"] in self.tasks:
            self.tasks[event["task_id"]]["status"] = "running"
        elif kind == "task_end" and event["task_id"] in self.tasks:
            self.tasks[event["task_id"]]["status"] = event["status"]

    def __rich__(self) -> Table:
        table = Table(title="Plan", expand=False)
        for col in ("", "id", "expert", "task", "status"):
            table.add_column(col)
        for tid, t in self.tasks.items():
            mark: Any = ""
            if t["status"] == "running":
                mark = self.spinners.setdefault(tid, Spinner("dots"))
            style = STATUS_STYLE.get(t["status"], "")
            table.add_row(mark, tid, t["expert"], t["task"][:60], f"[{style}]{t['status']}[/]")
        return table


def _render_event(event: dict[str, Any]) -> None:
    kind = event.get("event")
    if kind == "guard":
        blocked = [f"{s}.{t}" for s, tools in event["irreversible"].items() for t in tools]
        console.print(f"[dim]guard: needs approval: {', '.join(blocked) or 'nothing'}[/]")
        if event.get("analysis") == "skipped":
            console.print("[dim]guard: every tool settled by config or trusted annotations[/]")
        for note in event.get("notes", []):
            console.print(f"[yellow]guard: {note}[/]")
        for server, error in event["unavailable"].items():
            console.print(f"[red]unavailable: {server}: {error}[/]")
    elif kind == "tool_result":
        style = "red" if event["status"] == "error" else "green"
        console.print(f"  [{style}]{event['tool']}[/] → {event['content'][:200]}")
    elif kind == "task_end" and event.get("error"):
        console.print(f"[red]{event['task_id']} {event['status']}: {event['error']}[/]")


def _render_update(node: str) -> None:
    console.print(f"[dim]· {node}[/]")


def _ask_approval(value: dict[str, Any]) -> dict[str, Any]:
    if value.get("error"):
        err.print(f"[red]{value['error']}[/]")
    decisions: list[dict[str, Any]] = []
    for req in value["action_requests"]:
        console.print(
            Panel(
                f"{req['description']}\n\nargs: {json.dumps(req['args'], indent=2)}",
                title=f"Approve {req['name']}?",
                border_style="yellow",
            )
        )
        choice = Prompt.ask("approve / edit / reject", choices=["a", "e", "r"], default="r")
        if choice == "a":
            decisions.append({"type": "approve"})
        elif choice == "e":
            raw = Prompt.ask("new args as JSON", default=json.dumps(req["args"]))
            decisions.append(
                {"type": "edit", "edited_action": {"name": req["name"], "args": json.loads(raw)}}
            )
        else:
            reason = Prompt.ask("reason (optional)", default="")
            decisions.append({"type": "reject", "message": reason})
    return {"decisions": decisions}


def _answer(interrupt_: Interrupt) -> Any:
    value = interrupt_.value
    if isinstance(value, dict) and "action_requests" in value:
        return _ask_approval(value)
    if isinstance(value, dict) and value.get("type") == "ask_user":
        return Prompt.ask(f"[bold]{value['question']}[/]")
    return Prompt.ask(f"The run asks: {value!r}")


def resume_command(interrupts: list[Interrupt], answers: list[Any]) -> Command[Any]:
    """The resume command: a plain value for one interrupt, keyed by id for several.

    LangGraph stores a plain resume value at once, so a crash cannot lose a single approval.
    """
    if len(interrupts) == 1:
        return Command(resume=answers[0])
    return Command(resume={i.id: a for i, a in zip(interrupts, answers, strict=True)})


async def _run(
    payload: Any,
    thread: str,
    ctx: dict[str, Any],
    summary: dict[str, Any] | None = None,
    close_sessions: bool = True,
) -> int:
    """Run (or resume) the thread until it ends, answering interrupts in the terminal."""
    from strategies.with_planner.graph import build_graph

    config: RunnableConfig = {"configurable": {"thread_id": thread}}
    async with open_persistence() as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        if payload is None:
            pending = list((await graph.aget_state(config)).interrupts)
            if pending:
                payload = resume_command(pending, [_answer(i) for i in pending])
        board = PlanBoard()
        try:
            while True:
                # The live table stops before any prompt, so questions are never overdrawn.
                with Live(board, console=console, refresh_per_second=8):
                    async for _ns, mode, chunk in graph.astream(
                        payload,
                        config,
                        context=ctx,
                        stream_mode=["updates", "custom"],
                        subgraphs=True,
                    ):
                        if mode == "custom":
                            board.apply(cast(dict[str, Any], chunk))
                            _render_event(cast(dict[str, Any], chunk))
                            continue
                        for node in cast(dict[str, Any], chunk):
                            if node not in ("__interrupt__", "run_task"):
                                _render_update(node)
                # Parallel tasks may wait on several interrupts at once.
                interrupts = list((await graph.aget_state(config)).interrupts)
                if not interrupts:
                    break
                payload = resume_command(interrupts, [_answer(i) for i in interrupts])
        finally:
            if close_sessions:
                await shutdown_pool()
        state = await graph.aget_state(config)
    last = state.values["messages"][-1]
    console.print(Panel(escape(str(last.content)), title="Answer", border_style="cyan"))
    stats = state.values.get("guard_stats")
    if stats:
        console.print(
            f"[dim]irreversibility analysis on this thread: {stats['llm_calls']} model call(s), "
            f"{stats['llm_skipped']} turn(s) settled without the model[/]"
        )
    plan = state.values.get("previous_plan", [])
    failed = [t for t in plan if t["status"] == "failed"]
    console.print(f"[dim]thread {thread}[/]")
    code = EXIT_FAILED if failed or not isinstance(last, AIMessage) else EXIT_OK
    if summary is not None:
        summary.update(
            thread=thread,
            answer=str(last.content),
            exit_code=code,
            tasks=[
                {k: t[k] for k in ("id", "expert", "task", "status", "result", "error")}
                for t in plan
            ],
        )
    return code


@app.command()
def run(
    request: Annotated[str, typer.Argument(help="What you want done.")],
    thread: Annotated[str | None, typer.Option(help="Thread id to continue.")] = None,
    model: Annotated[str | None, typer.Option(help="Model for every node, provider:model.")] = None,
    mode: Annotated[
        str | None, typer.Option(help="Approval mode: interrupt, plan_only or auto.")
    ] = None,
    config: Annotated[
        Path | None, typer.Option(help="MCP config file (default MCP_CONFIG).")
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the outcome as JSON on stdout (progress on stderr)."),
    ] = False,
) -> None:
    """Run one request and print the answer.

    Example: mcp-planner run "How many blue widgets are in stock? Save it as a note."
    """
    try:
        ctx = _context(model, mode, config)
        _check_models(ctx, explicit=model is not None)
    except (ModelConfigError, McpConfigError) as exc:
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(EXIT_CONFIG) from exc
    try:
        payload = {"messages": [{"role": "user", "content": request}]}
        summary: dict[str, Any] = {}
        # With --json, progress goes to stderr so stdout holds only the JSON.
        console.stderr = as_json
        thread = thread or uuid.uuid4().hex[:12]
        try:
            code = asyncio.run(_run(payload, thread, ctx, summary))
        except KeyboardInterrupt:
            err.print(f"\n[yellow]Stopped. The thread is saved: mcp-planner resume {thread}[/]")
            raise typer.Exit(EXIT_INTERRUPTED) from None
        finally:
            console.stderr = False
        if as_json:
            sys.stdout.write(json.dumps(summary, indent=2, default=str) + "\n")
    except (ModelConfigError, McpConfigError) as exc:
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(EXIT_CONFIG) from exc
    raise typer.Exit(code)


async def _classify_all(config: McpConfig) -> tuple[list[ToolVerdict], dict[str, str]]:
    registry = ExpertRegistry(config, get_settings().mcp_startup_timeout_s)
    try:
        catalog = await registry.catalog(registry.experts)
    finally:
        await shutdown_pool()
    verdicts: list[ToolVerdict] = []
    errors: dict[str, str] = {}
    for server, tools in catalog.items():
        if isinstance(tools, ExpertUnavailable):
            errors[server] = str(tools)
        else:
            verdicts += classify_tools(server, tools, registry.server(server))
    return verdicts, errors


@app.command()
def tools(
    config: Annotated[
        Path | None, typer.Option(help="MCP config file (default MCP_CONFIG).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """List every tool of every expert with its classification, without running any model.

    Only the deterministic layers decide here (config, annotations, names); the per-turn LLM
    analysis can add to them during a run, never clear them.

    Example: mcp-planner tools --config mcp.json --json
    """
    try:
        mcp = load_mcp_config(None, config or get_settings().mcp_config)
    except McpConfigError as exc:
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(EXIT_CONFIG) from exc
    verdicts, errors = asyncio.run(_classify_all(mcp))
    if as_json:
        sys.stdout.write(json.dumps([dict(v) for v in verdicts], indent=2) + "\n")
    else:
        table = Table(title="Tools and their classification")
        for col in ("server", "tool", "class", "source", "reason"):
            table.add_column(col)
        for v in verdicts:
            cls = "[red]irreversible[/]" if v["irreversible"] else "[green]reversible[/]"
            table.add_row(v["server"], v["tool"], cls, v["source"], v["reason"])
        console.print(table)
    for error in errors.values():
        err.print(f"[red]{error}[/]")
    raise typer.Exit(EXIT_FAILED if errors else EXIT_OK)


async def _chat(thread: str, ctx: dict[str, Any]) -> int:
    code = EXIT_OK
    try:
        while True:
            try:
                text = Prompt.ask("[bold]you[/]")
            except EOFError:
                break
            if text.strip().lower() in {"exit", "quit", ":q"}:
                break
            payload = {"messages": [{"role": "user", "content": text}]}
            code = await _run(payload, thread, ctx, close_sessions=False)
    finally:
        await shutdown_pool()
    return code


@app.command()
def chat(
    thread: Annotated[str | None, typer.Option(help="Thread id to continue.")] = None,
    model: Annotated[str | None, typer.Option(help="Model for every node, provider:model.")] = None,
    config: Annotated[
        Path | None, typer.Option(help="MCP config file (default MCP_CONFIG).")
    ] = None,
) -> None:
    """Talk to the planner turn after turn on one thread (exit, quit or Ctrl-D to stop).

    Example: mcp-planner chat --thread my-notes
    """
    try:
        ctx = _context(model, None, config)
        _check_models(ctx, explicit=model is not None)
    except (ModelConfigError, McpConfigError) as exc:
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(EXIT_CONFIG) from exc
    thread = thread or uuid.uuid4().hex[:12]
    console.print(f"[dim]thread {thread}; exit, quit or Ctrl-D to stop[/]")
    raise typer.Exit(asyncio.run(_chat(thread, ctx)))


@app.command()
def resume(
    thread: Annotated[str, typer.Argument(help="Thread id, as printed after a run.")],
    model: Annotated[str | None, typer.Option(help="Model for every node, provider:model.")] = None,
    config: Annotated[
        Path | None, typer.Option(help="MCP config file (default MCP_CONFIG).")
    ] = None,
) -> None:
    """Continue a thread: answer its pending approval, or finish a run that was stopped.

    Example: mcp-planner resume 3f2a9c1b7d4e
    """
    try:
        ctx = _context(model, None, config)
        _check_models(ctx, explicit=model is not None)
        code = asyncio.run(_run(None, thread, ctx))
    except (ModelConfigError, McpConfigError) as exc:
        err.print(f"[red]{exc}[/]")
        raise typer.Exit(EXIT_CONFIG) from exc
    raise typer.Exit(code)


async def _threads() -> list[dict[str, Any]]:
    from strategies.with_planner.graph import build_graph

    rows: list[dict[str, Any]] = []
    async with open_persistence() as (saver, store):
        graph = build_graph(checkpointer=saver, store=store)
        # Finish listing before reading states: the SQLite saver serialises its queries.
        latest: dict[str, str] = {}
        async for item in saver.alist(None):
            conf = item.config["configurable"]
            if not conf.get("checkpoint_ns"):
                latest.setdefault(str(conf["thread_id"]), str(item.checkpoint.get("ts", "")))
        for thread, updated in latest.items():
            state = await graph.aget_state({"configurable": {"thread_id": thread}})
            humans = [m for m in state.values.get("messages", []) if m.type == "human"]
            status = "waiting for approval" if state.interrupts else "stopped mid-run"
            rows.append(
                {
                    "thread": thread,
                    "last_question": str(humans[-1].content) if humans else "",
                    "status": status if state.next else "done",
                    "updated": updated,
                }
            )
    rows.sort(key=lambda r: r["updated"], reverse=True)
    return rows


@app.command()
def threads(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """List threads with their last question and status, newest first.

    Example: mcp-planner threads --json
    """
    rows = asyncio.run(_threads())
    if as_json:
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    table = Table(title="Threads")
    for col in ("thread", "last question", "status", "updated"):
        table.add_column(col)
    for r in rows:
        table.add_row(r["thread"], r["last_question"][:60], r["status"], r["updated"][:19])
    console.print(table)


async def _history(query: str, user: str, limit: int) -> list[dict[str, Any]]:
    async with open_persistence() as (_saver, store):
        if query:
            embeddings = await configured_embeddings(get_settings().embedding_model)
            runs = await search_runs(store, user, query, limit=limit, embeddings=embeddings)
            return [{k: v for k, v in r.items() if k != "embedding"} for r in runs]
        items = await store.asearch(memory_namespace(user), limit=limit)
        return [{k: v for k, v in i.value.items() if k != "embedding"} for i in items]


@app.command()
def history(
    query: Annotated[str, typer.Argument(help="Words to look for; empty lists recent runs.")] = "",
    user: Annotated[str, typer.Option(help="Whose runs (the context's user_id).")] = "default",
    limit: Annotated[int, typer.Option(help="How many runs at most.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")] = False,
) -> None:
    """Search your past runs: question, plan, tool calls and answer.

    Example: mcp-planner history "stock widgets" --limit 5
    """
    runs = asyncio.run(_history(query, user, limit))
    if as_json:
        sys.stdout.write(json.dumps(runs, indent=2, default=str) + "\n")
        return
    table = Table(title=f"Past runs of {user!r}" + (f" matching {query!r}" if query else ""))
    for col in ("when", "question", "answer"):
        table.add_column(col)
    for r in runs:
        table.add_row(str(r.get("ended_at", ""))[:19], r["question"][:60], r["answer"][:80])
    console.print(table)


@app.command("graph")
def graph_cmd() -> None:
    """Print the graph as a Mermaid drawing.

    Example: mcp-planner graph > graph.mmd
    """
    from strategies.with_planner.graph import graph

    sys.stdout.write(graph.get_graph().draw_mermaid())
