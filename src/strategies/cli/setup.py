"""Everything a command checks before it runs: settings, approval mode, MCP config, models.

All of it happens before persistence is opened, so a mistake leaves nothing on disk. The run
context (`strategies.with_planner.context`, which loads LangGraph) is imported only by the
commands that build one: `tools` reads the MCP config through here and runs no graph.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.mcp import McpConfig, McpConfigError
from common.mcp.config import anchor_to_file, parse_mcp_config
from common.models import ModelConfigError
from common.safety.policy import ApprovalModeError, parse_approval_mode
from common.settings import ConfigError, Settings, get_settings
from strategies.cli.exits import CliProblem

if TYPE_CHECKING:
    from strategies.with_planner.context import Context


def user_error_types() -> tuple[type[Exception], ...]:
    """Errors a person causes: each is reported as one line with exit code 2."""
    from strategies.with_planner.context import ContextError

    return (
        CliProblem,
        ContextError,
        ApprovalModeError,
        McpConfigError,
        ModelConfigError,
        ConfigError,
    )


def settings() -> Settings:
    """The process settings (a bad setting raises ConfigError, one line)."""
    return get_settings()


EMPTY_MODEL = (
    "--model is empty: give provider:model (e.g. openai:gpt-4o-mini), or leave --model out to "
    "use MODEL."
)
"""The line for `--model ''` (the context check would name a field the user never typed)."""


def _not_found(target: str, flag: bool) -> str:
    """The line for a config file named by `--config` (`flag`) or MCP_CONFIG that is missing."""
    if flag:
        name, fix = "--config", "correct the path, or leave --config out"
    else:
        name, fix = "MCP_CONFIG", "correct MCP_CONFIG, or unset it"
    where = "" if Path(target).is_absolute() else f" in {Path.cwd()}"
    return (
        f"MCP config file {target!r} ({name}) not found{where}: {fix} to use mcp.json in this "
        "folder."
    )


def read_mcp_config(path: Path | None) -> tuple[dict[str, Any], McpConfig]:
    """The MCP config document at `path` (default MCP_CONFIG), raw and validated."""
    explicit = path is not None
    target = path if path is not None else settings().mcp_config
    try:
        raw = json.loads(target.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        if explicit or "mcp_config" in settings().model_fields_set:
            raise McpConfigError(_not_found(str(target), explicit)) from exc
        raise McpConfigError(
            f"No MCP config file {str(target)!r} in {Path.cwd()}: run mcp-planner from the "
            "folder that holds it, pass --config PATH or set MCP_CONFIG."
        ) from exc
    except IsADirectoryError as exc:
        raise McpConfigError(f"MCP config {str(target)!r} is a folder, not a JSON file.") from exc
    except OSError as exc:
        raise McpConfigError(f"Cannot read MCP config {str(target)!r}: {exc.strerror}.") from exc
    except json.JSONDecodeError as exc:
        raise McpConfigError(f"MCP config file {str(target)!r} is not valid JSON: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise McpConfigError(f"MCP config file {str(target)!r} is not UTF-8 text.") from exc
    # The run's context carries the document as a dict: anchor its paths to the file first.
    raw = anchor_to_file(raw, target)
    return raw, parse_mcp_config(raw, source=str(target))


def build_context(model: str | None, mode: str | None, config: Path | None) -> Context:
    """The validated run context from the command's options; fails before anything runs.

    The same path as the graph's (`turn_context`): a model named with --model or set in the
    settings that cannot load is an error; with none chosen and no key, `offline:rules`. The
    announcement is made when a run starts (drive.run_thread), after every check passed, so a
    refused command still prints exactly one line.
    """
    process = settings()
    # The terminal answers approvals in the HITL format, whatever INTERRUPT_FORMAT says.
    given: dict[str, Any] = {"interrupt_format": "hitl"}
    if mode is not None:
        given["approval_mode"] = parse_approval_mode(mode, "--mode")
    if model is not None and not model.strip():
        raise CliProblem(EMPTY_MODEL)
    if model is not None:
        given["model"] = model
    from strategies.with_planner.context import turn_context

    given["mcp_config"], _ = read_mcp_config(config)
    context, _announcement = turn_context(given, process, labels={"model": "--model"})
    return context
