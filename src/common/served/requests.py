"""The one reader of the two servers' request shapes, for the auth handlers and Aegra's routes.

LangGraph's server hands the handlers its own records: a run's fields nested in `kwargs`, a
cron's in `payload`, headers as bytes, a store request's namespace as `namespace`. Aegra hands
them the request body itself (`context`, `config`, `command` at the top), headers as str, and
names a search's namespace `namespace_prefix` and a listing's `prefix`. Everything the handlers
decide is asked of a `Request` read here once, so no handler guesses a shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

NESTED = ("kwargs", "payload")
"""Where LangGraph nests a run's (`kwargs`) and a cron's (`payload`) fields."""

STATE_KEYS = frozenset({"values", "as_node", "supersteps", "checkpoint", "checkpoint_id"})
"""Fields that write a thread's checkpointed state (Aegra passes the request body)."""

REPLAY_KEYS = ("checkpoint", "checkpoint_id", "checkpoint_ns", "checkpoint_map")
"""Config keys that start a run elsewhere than the thread's latest checkpoint (LangGraph folds a
run's `checkpoint` field into them before the handlers see it)."""

ANSWER_EXTRAS = (
    "webhook",
    "interrupt_before",
    "interrupt_after",
    "feedback_keys",
    "checkpoint",
    "checkpoint_id",
)
"""Run fields LangGraph keeps in `kwargs` that an answer never needs (unset: None or empty)."""


EMPTY: tuple[Any, ...] = (None, "", {}, [])
"""Values that set nothing."""


@dataclass(frozen=True)
class Request:
    """What a create-run (or cron, or assistant) request asks, as either server passed it."""

    contexts: tuple[Mapping[str, Any], ...]
    """The run contexts it sets: `context` and `config.configurable`, at every level."""
    commands: tuple[Mapping[str, Any], ...]
    """The commands it sends (`Command` as a dict: resume, update, goto)."""
    has_input: bool
    """Whether it sends input (a new message)."""
    extras: tuple[str, ...]
    """Fields beyond an answer it sets: a webhook, interrupts, an earlier checkpoint."""


def _holders(value: object) -> list[Mapping[str, Any]]:
    """The request and the records LangGraph nests in it (`kwargs`, `payload`)."""
    if not isinstance(value, Mapping):
        return []
    nested = [value.get(k) for k in NESTED]
    return [value, *(n for n in nested if isinstance(n, Mapping))]


def _configurable(holder: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A holder's `config.configurable`, if it has one."""
    config = holder.get("config")
    found = config.get("configurable") if isinstance(config, Mapping) else None
    return found if isinstance(found, Mapping) else None


def read(value: object) -> Request:
    """The request `value` as one shape, whichever server passed it."""
    contexts: list[Mapping[str, Any]] = []
    commands: list[Mapping[str, Any]] = []
    extras: list[str] = []
    has_input = False
    for holder in _holders(value):
        context, configurable = holder.get("context"), _configurable(holder)
        contexts += [c for c in (context, configurable) if isinstance(c, Mapping)]
        if isinstance(holder.get("command"), Mapping):
            commands.append(holder["command"])
        has_input = has_input or holder.get("input") is not None
        extras += [k for k in ANSWER_EXTRAS if holder.get(k) not in EMPTY]
        given = configurable or {}
        extras += [f"config.configurable.{k}" for k in REPLAY_KEYS if given.get(k) not in EMPTY]
    return Request(tuple(contexts), tuple(commands), has_input, tuple(dict.fromkeys(extras)))


def answers_only(request: Request) -> bool:
    """Whether a run only answers a question: a resume, no input, no update, jump or replay."""
    if request.has_input or request.extras or not request.commands:
        return False
    return all(
        {k for k, v in command.items() if v not in (None, [], {})} == {"resume"}
        for command in request.commands
    )


def configurables(value: object) -> list[Mapping[str, Any]]:
    """Every `config.configurable` a request carries (where a server's identity keys go)."""
    return [c for h in _holders(value) if (c := _configurable(h)) is not None]


def header(headers: Mapping[Any, Any], name: str) -> str | None:
    """A request header by lower-case name: LangGraph passes bytes, Aegra str."""
    for key, found in headers.items():
        text = key.decode() if isinstance(key, bytes) else str(key)
        if text.lower() == name:
            return found.decode() if isinstance(found, bytes) else str(found)
    return None


def store_namespace(value: object) -> tuple[str, ...]:
    """The namespace (or prefix) a store request names, as either server passes it."""
    if not isinstance(value, Mapping):
        return ()
    for key in ("namespace", "namespace_prefix", "prefix"):
        if value.get(key):
            return tuple(str(part) for part in value[key])
    return ()


def is_copy(value: object) -> bool:
    """Whether a thread creation is LangGraph's copy of another thread (it names only the id).

    The copy is asked as a read of the source (which an approver may do) and this creation,
    which does not name the source: so no handler can tell whose thread is copied.
    """
    return isinstance(value, Mapping) and set(value) == {"thread_id"}


def writes_state(value: object) -> bool:
    """Whether a thread update writes its state rather than its metadata or a run's status.

    LangGraph asks with only the `thread_id` for `threads.update_state` and
    `bulk_update_state`, with `metadata` for a metadata update and with `action` and
    `metadata` for a cancel; Aegra passes the request body (`values`, `as_node`...).
    """
    if not isinstance(value, Mapping):
        return True
    keys = set(value)
    return bool(keys & STATE_KEYS) or keys <= {"thread_id"}
