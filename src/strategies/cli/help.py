"""Help screens with plain metavars: `TEXT`, `PATH`, `ID` instead of `<str>`, nothing for flags.

The command group is also where a closed output ends every command (`closed_output`).
"""

from __future__ import annotations

import inspect
from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

from strategies.cli.closed_output import help_ends_when_closed


class _Argument(TyperArgument):
    """An argument shown by its metavar alone, click-style in the usage line."""

    def display_type_rich(self, ctx: Any) -> str | None:
        """No type column: the metavar already says what to give."""
        return None

    def _usage_display_name(self) -> str:
        name = self.display_name_raw
        return name if self.required else f"[{name}]"


def _reflow(text: str | None) -> str | None:
    """Docstring paragraphs as single lines: the rich help keeps every source line break."""
    if text is None:
        return None
    paragraphs = inspect.cleandoc(text).split("\n\n")
    return "\n\n".join(" ".join(p.split()) for p in paragraphs)


def _plain(params: list[Any]) -> None:
    for param in params:
        if type(param) is TyperArgument:
            # The installed typer prints `<str>` beside every argument; the metavar is enough.
            param.__class__ = _Argument
        elif isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""


class PlainCommand(TyperCommand):
    """A command whose help shows metavars, not Python types."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help = _reflow(self.help)
        _plain(self.params)

    def get_help_option(self, ctx: Any) -> Any:
        """The --help flag, without a `<bool>` type."""
        option = super().get_help_option(ctx)
        _plain([option] if option is not None else [])
        return option


class PlainGroup(TyperGroup):
    """The command group, with the same plain help; a closed output ends any of its commands."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _plain(self.params)

    def invoke(self, ctx: Any) -> Any:
        """Run the command; a closed output (`| head -1`, its help too) ends it with exit 141."""
        with help_ends_when_closed():
            return super().invoke(ctx)

    def make_context(
        self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any
    ) -> Any:
        """Parse the arguments; `--help` or `--version` into a closed output ends with exit 141."""
        with help_ends_when_closed():
            return super().make_context(info_name, args, parent=parent, **extra)

    def get_help_option(self, ctx: Any) -> Any:
        """The --help flag, without a `<bool>` type."""
        option = super().get_help_option(ctx)
        _plain([option] if option is not None else [])
        return option
