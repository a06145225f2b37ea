"""A served instance's settings, checked once at start: a bad one stops it with one sentence.

The graph module (`server.py`) and the auth module (`handlers.py`) are loaded at start by
`langgraph dev` and by Aegra, and each asks `checked_or_stop`. A configuration error raises
`SystemExit`, the normal way a Python program stops, which both servers' start-up lets
through (an `Exception` would not do: Aegra logs one from its auth module and serves with no
auth at all). The server then reports its failed start its own way (uvicorn: "Application
startup failed. Exiting.", exit code 3; with `--reload`, it keeps watching for a fix), and the
sentence is printed once more as the process ends, so it is the last line whatever the server
logged after it.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from multiprocessing.util import Finalize
from typing import NoReturn

from common.models import ModelConfigError
from common.settings import ConfigError, Settings, check_auth, get_settings

BAD_SETTING_EXIT = 2
"""Exit code of a process stopped by a bad setting where nothing else decides it (a server's
start-up reports its own, uvicorn's 3)."""


def checked_or_stop(*checks: Callable[[Settings], object]) -> Settings:
    """The settings after `check_auth` and `checks`; a ConfigError stops the process (exit 2).

    A check raises ConfigError (or ModelConfigError: a model the settings name cannot load);
    its message is the one sentence printed.
    """
    try:
        settings = get_settings()
        check_auth(settings)
        for check in checks:
            check(settings)
    except (ConfigError, ModelConfigError) as exc:
        stop(str(exc))
    return settings


def stop(sentence: str) -> NoReturn:
    """Print `sentence` now and as the process ends, and stop it (SystemExit, code 2)."""
    sys.stdout.flush()
    print(sentence, file=sys.stderr, flush=True)
    # multiprocessing's exit hook, not atexit: it runs in the main process and also in the
    # worker a server with --reload starts (multiprocessing ends it with os._exit).
    Finalize(None, _last_line, args=(sentence,), exitpriority=0)
    # A server with --reload keeps its worker alive and logs the failed start: say it after.
    after = _AfterTheReport(sentence)
    for name in ("", "uvicorn.error"):
        logging.getLogger(name).addHandler(after)
    raise SystemExit(BAD_SETTING_EXIT)


class _AfterTheReport(logging.Handler):
    """Prints the sentence after each log record that reports the stop (the server's traceback)."""

    def __init__(self, sentence: str) -> None:
        super().__init__()
        self.sentence = sentence
        """What stopped the start."""
        self.told: set[int] = set()
        """Records already followed by the sentence (one record reaches the root too)."""

    def emit(self, record: logging.LogRecord) -> None:
        """The sentence, after a record whose exception is this stop (or a failed start)."""
        stopped = record.exc_info is not None and isinstance(record.exc_info[1], SystemExit)
        if (stopped or "startup failed" in record.getMessage()) and id(record) not in self.told:
            self.told.add(id(record))
            _last_line(self.sentence)


def _last_line(sentence: str) -> None:
    """The sentence again, after whatever the server logged about its failed start."""
    sys.stdout.flush()
    print(sentence, file=sys.stderr, flush=True)
