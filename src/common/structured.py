"""Model calls whose answer must have a shape: malformed output is a value, never an exception.

The planner, the orchestrator, the assessor and the answer writer all go through here, so an
unparsable answer, one that fails validation, an empty one or one with no choices is handled the
same way everywhere: the caller gets a `BadOutput` with the reason and decides (retry, count a
failed round, "not completed", the deterministic summary). Connection, timeout and HTTP status
errors are not malformed output: the node turns them into `common.models.ModelCallError`.
Every call's messages pass `common.history.provider_history` first: a tool-call history a
provider would refuse is repaired, with a warning.

The structured-output and tool-bound runnables are built once per model and schema (or exact
tool list) and reused: building one generates the schema's JSON schema (with OpenAI models,
milliseconds of CPU for the planner's schema). They are keyed by the model object's identity,
so two models never share one, and carry no per-call state: callbacks, tags and run names reach
the model through each call's config.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel, ValidationError

from common.history import provider_history
from common.models import IdentityCache

MALFORMED: tuple[type[Exception], ...] = (
    OutputParserException,
    ValidationError,
    json.JSONDecodeError,
    # A completion with `choices: []`: the client indexes the first choice.
    IndexError,
    # A structured answer with neither parsed content nor a refusal (e.g. empty content).
    ValueError,
)
"""Errors that mean the model answered, but not in the required shape."""

SchemaT = TypeVar("SchemaT", bound=BaseModel)


RUNNABLE_CACHE_SIZE = 256
"""Structured-output and tool-bound runnables kept (least recently used dropped first)."""

_RUNNABLES: IdentityCache[Runnable[LanguageModelInput, Any]] = IdentityCache(RUNNABLE_CACHE_SIZE)


def structured_runnable(
    model: BaseChatModel, schema: type[BaseModel], *, include_raw: bool = False
) -> Runnable[LanguageModelInput, Any]:
    """`model.with_structured_output(schema, include_raw=...)`, built once per model and schema.

    An OpenAI chat model answers a dict (or, with `include_raw`, a dict as `parsed`) to be
    validated into `schema` by the caller: see `_openai_structured`.
    """
    return _RUNNABLES.get(
        model,
        ("structured", schema, include_raw),
        lambda: (
            _openai_structured(model, schema, include_raw)
            or model.with_structured_output(schema, include_raw=include_raw)
        ),
    )


def _openai_structured(
    model: BaseChatModel, schema: type[BaseModel], include_raw: bool
) -> Runnable[LanguageModelInput, Any] | None:
    """For langchain-openai models: the same request, with the response format built once.

    Given the pydantic class, the openai client rebuilds the strict JSON schema on every call
    (pydantic's `model_json_schema`, 1.5 ms of CPU for the planner's schema) and parses the
    answer into the class. Given the format it would build, once, it sends the same request;
    the answer comes back as JSON data, which the callers validate into `schema` (a malformed
    one is still malformed output). None for other models, or an openai without the helper.
    """
    if not type(model).__module__.startswith("langchain_openai."):
        return None
    try:
        from openai.lib._parsing._completions import type_to_response_format_param
    except ImportError:
        return None
    # {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}: langchain-openai
    # takes the inner part and wraps it back, unchanged.
    response_format: Any = type_to_response_format_param(schema)
    json_schema = response_format.get("json_schema") if isinstance(response_format, dict) else None
    if not isinstance(json_schema, dict):
        return None
    return model.with_structured_output(
        dict(json_schema), method="json_schema", include_raw=include_raw
    )


def with_tools(
    model: BaseChatModel, specs: Sequence[dict[str, Any]]
) -> Runnable[LanguageModelInput, BaseMessage]:
    """`model.bind_tools(specs)`, built once per model and exact tool definitions.

    Keyed by the specs' content (names, descriptions, schemas), so a changed tool list
    binds again while the same list, even as new dicts, is reused.
    """
    key = ("tools", json.dumps(list(specs), sort_keys=True, default=repr))
    return _RUNNABLES.get(model, key, lambda: model.bind_tools(list(specs)))


REASON_CHARS = 300
"""Longest error text kept in a reason: parsers echo the whole answer back."""


def _why(exc: Exception) -> str:
    """The error's message on one line, cut to `REASON_CHARS`."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS] + " …"


@dataclass(frozen=True)
class BadOutput:
    """A model answer that could not be used, and why (shown to the model or the user)."""

    reason: str
    """What was wrong with the answer, in one line."""


async def structured_call(
    model: BaseChatModel, schema: type[SchemaT], messages: Sequence[BaseMessage]
) -> SchemaT | BadOutput:
    """Ask `model` for an answer validated into `schema`; malformed or empty output is BadOutput."""
    name = schema.__name__
    try:
        raw = await structured_runnable(model, schema).ainvoke(provider_history(messages))
        if raw is None:
            # Tool-calling parsers return None when the model answered without the tool.
            return BadOutput(f"The answer was empty; expected {name}.")
        return schema.model_validate(raw)
    except MALFORMED as exc:
        return BadOutput(f"The answer did not match {name}: {_why(exc)}")


async def _ai_message(
    model: Runnable[LanguageModelInput, BaseMessage], messages: Sequence[BaseMessage]
) -> AIMessage | BadOutput:
    """The model's reply as an AI message; unparsable or another kind of message is BadOutput."""
    try:
        message = await model.ainvoke(provider_history(messages))
    except MALFORMED as exc:
        return BadOutput(f"The answer could not be parsed: {_why(exc)}")
    if not isinstance(message, AIMessage):
        return BadOutput(f"The answer was a {type(message).__name__}, not an AI message.")
    return message


async def tool_round(
    model: Runnable[LanguageModelInput, BaseMessage], messages: Sequence[BaseMessage]
) -> AIMessage | BadOutput:
    """Ask a tool-bound `model` for its next step; unparsable or empty output is BadOutput.

    An answer whose only tool calls could not be parsed is malformed too: the valid ones are
    what the graph runs, so with none there is nothing to run and nothing was said.
    """
    message = await _ai_message(model, messages)
    if isinstance(message, BadOutput):
        return message
    if message.tool_calls:
        return message
    if message.invalid_tool_calls:
        broken = "; ".join(
            f"{c.get('name') or '?'}: {c.get('error') or 'unparsable arguments'}"
            for c in message.invalid_tool_calls
        )
        return BadOutput(f"The tool calls could not be parsed ({broken}).")
    if not message.content or not str(message.content).strip():
        return BadOutput("The answer was empty: no text and no tool call.")
    return message


async def text_answer(
    model: Runnable[LanguageModelInput, BaseMessage], messages: Sequence[BaseMessage]
) -> AIMessage | BadOutput:
    """Ask `model` for a free-text answer; unparsable, non-AI or empty output is BadOutput."""
    message = await _ai_message(model, messages)
    if isinstance(message, BadOutput):
        return message
    if not message.content or not str(message.content).strip():
        return BadOutput("The answer was empty.")
    return message
