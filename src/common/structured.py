"""Model calls whose answer must have a shape: malformed output is a value, never an exception.

The planner, the orchestrator, the assessor and the answer writer all go through here, so an
unparsable answer, one that fails validation, an empty one or one with no choices is handled the
same way everywhere: the caller gets a `BadOutput` with the reason and decides (retry, count a
failed round, "not completed", the deterministic summary). Connection, timeout and HTTP status
errors are not malformed output: the node turns them into `common.models.ModelCallError`.
Every call's messages pass `common.history.provider_history` first: a tool-call history a
provider would refuse is repaired, with a warning; a request that binds none of the history's
tools (a structured or free-text answer) to a provider that then refuses tool blocks
(Anthropic) gets the calls and their answers as text (`common.history.tool_free`).

How a structured answer is asked for fits the server: `STRUCTURED_OUTPUT_METHOD` (json_schema
with strict schemas for OpenAI and Azure models by default), and a server that refuses the
method (HTTP 400/422, or a 5xx naming the method's request field) is asked with the next one
(`NEXT_METHOD`), said once in the log and remembered for the model.

The structured-output and tool-bound runnables are built once per model, schema and method (or
exact tool list) and reused: building one generates the schema's JSON schema (with OpenAI models,
milliseconds of CPU for the planner's schema). They are keyed by the model object's identity,
so two models never share one, and carry no per-call state: callbacks, tags and run names reach
the model through each call's config.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from langchain_core.exceptions import OutputParserException
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, ValidationError

from common.call_bounds import bounded
from common.cut_answers import cut_of, length_error
from common.history import provider_history, tool_free
from common.model_text import said
from common.models import IdentityCache, model_label
from common.provider_errors import provider_error, status_of
from common.raw_structured import one_step, plain_json_schema, with_raw
from common.settings import get_settings
from common.strict_schema import response_format
from common.tool_schemas import adapt_specs, family_of, restored

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel, LanguageModelInput

logger = logging.getLogger(__name__)

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


Method = Literal["json_schema", "function_calling", "json_mode"]
"""A way of asking for a structured answer (see `STRUCTURED_OUTPUT_METHOD`)."""

NEXT_METHOD: dict[Method, Method | None] = {
    "json_schema": "function_calling",
    "function_calling": "json_mode",
    "json_mode": None,
}
"""The method tried after a server refused one (`method_refused`), in order of fidelity."""

REFUSED_STATUSES = frozenset({400, 422})
"""Statuses with which a server refuses a request's form (422: FastAPI-based servers)."""

METHOD_FIELDS: dict[Method, tuple[str, ...]] = {
    "json_schema": ("response_format", "json_schema"),
    "function_calling": ("tool_choice", "tools", "function"),
    "json_mode": ("response_format", "json_object"),
}
"""Request fields each method sends: a 5xx whose message names one refused the method."""

SCHEMA_REFUSALS = ("Invalid schema for",)
"""How a server that takes the method says it refuses our schema: a bug to report, not a
method to change (OpenAI: "Invalid schema for response_format 'PlannerResult': ...")."""

_CHOSEN: IdentityCache[list[Method | None]] = IdentityCache(RUNNABLE_CACHE_SIZE)
"""The method each model is asked with now: starts at the setting's, moves on refusals."""


def _is_openai(model: BaseChatModel) -> bool:
    """Whether `model` is a langchain-openai chat model (OpenAI, Azure, compatible servers)."""
    return any(c.__module__.startswith("langchain_openai.") for c in type(model).__mro__)


TOOL_BLOCKS_NEED_TOOLS = ("langchain_anthropic.", "langchain_aws.")
"""Integrations whose API refuses tool calls and answers in a request binding none of those
tools (Anthropic's Messages API, Bedrock's Converse): such a request gets them as text."""


def _text_history(model: object) -> bool:
    """Whether a request to `model` that binds none of the history's tools needs it as text."""
    target = getattr(model, "bound", model)
    return any(c.__module__.startswith(TOOL_BLOCKS_NEED_TOOLS) for c in type(target).__mro__)


def method_for(model: BaseChatModel) -> Method | None:
    """The method `model` is asked with; None means its integration's own default.

    `auto` is json_schema for langchain-openai models (strict schemas, see
    `common.strict_schema`) and the integration's default for the others; a method a server
    refused is remembered for the process.
    """
    setting = get_settings().structured_output_method
    first: Method | None = None if setting == "auto" else setting
    if setting == "auto" and _is_openai(model):
        first = "json_schema"
    return _CHOSEN.get(model, ("method", setting), lambda: [first])[0]


def _refused(model: BaseChatModel, method: Method, exc: Exception) -> Method | None:
    """The method to try after `method` was refused with `exc`; None when the error stands.

    Said once in the log: the choice is remembered for the model, so later calls start there.
    """
    nxt = NEXT_METHOD[method]
    if nxt is None or not method_refused(method, exc):
        return None
    setting = get_settings().structured_output_method
    chosen = _CHOSEN.get(model, ("method", setting), lambda: [method])
    if chosen[0] == method:
        chosen[0] = nxt
        logger.warning(
            "The model %s refused structured output by %s (%s); asking with %s from now on "
            "(set STRUCTURED_OUTPUT_METHOD to choose).",
            model_label(model),
            method,
            provider_error(exc).said(status_of(exc) or 0),
            nxt,
        )
    return chosen[0]


def method_refused(method: Method, exc: Exception) -> bool:
    """Whether `exc` is the server refusing `method`: HTTP 400/422, or a 5xx naming its field.

    llama.cpp's server (llama-cpp-python 0.3.36) answers `response_format` json_schema with
    HTTP 500 and a validation message naming `response_format`, not with a 400. A server that
    takes the method but refuses our schema (`SCHEMA_REFUSALS`) is not asked another way: the
    schema is a bug, and the error says so.
    """
    status = status_of(exc)
    message = provider_error(exc).message
    if status is None or any(phrase in message for phrase in SCHEMA_REFUSALS):
        return False
    if status in REFUSED_STATUSES:
        return True
    return status >= 500 and any(field in message for field in METHOD_FIELDS[method])


async def ainvoke_structured(
    model: BaseChatModel,
    schema: type[BaseModel],
    messages: Sequence[BaseMessage],
    *,
    include_raw: bool = False,
) -> Any:
    """`structured_runnable(...).ainvoke(messages)`, moving to the next method on a refusal.

    A server that refuses the method (`method_refused`, e.g. llama.cpp's server and
    `response_format` json_schema) is asked again with the next one (`NEXT_METHOD`); an answer
    cut at its length limit (the openai client's `LengthFinishReasonError`) raises
    `AnswerCutError`; any other error, or a refusal of the last method, raises as it came.
    """
    while True:
        method = method_for(model)
        runnable = structured_runnable(model, schema, include_raw=include_raw, method=method)
        try:
            return await bounded(runnable.ainvoke(list(messages)))
        except Exception as exc:
            cut = length_error(exc)
            if cut is not None:
                raise cut from exc
            if method is None or _refused(model, method, exc) is None:
                raise


def structured_runnable(
    model: BaseChatModel,
    schema: type[BaseModel],
    *,
    include_raw: bool = False,
    method: Method | None = None,
) -> Runnable[LanguageModelInput, Any]:
    """`model.with_structured_output(schema, ...)` by `method`, built once per model and schema.

    An OpenAI chat model answers a dict (or, with `include_raw`, a dict as `parsed`) to be
    validated into `schema` by the caller: see `_openai_structured`.
    """
    return _RUNNABLES.get(
        model,
        ("structured", schema, include_raw, method),
        lambda: (
            _openai_structured(model, schema, include_raw, method)
            if _is_openai(model) and method is not None
            else model.with_structured_output(
                schema, include_raw=include_raw, **({"method": method} if method else {})
            )
        ),
    )


def _openai_structured(
    model: BaseChatModel, schema: type[BaseModel], include_raw: bool, method: Method
) -> Runnable[LanguageModelInput, Any]:
    """For langchain-openai models: the request by `method`, its schema built once.

    The schema is `strict_json_schema`'s, built once per class (the openai client would
    rebuild it from the pydantic class on every call), so the answer comes back as JSON data,
    which the callers validate into `schema` (a malformed one is still malformed output).
    json_mode sends `{"type": "json_object", "schema": ...}`: servers that constrain their
    output with a grammar (llama.cpp) take the schema there; the instruction added to the
    prompt tells the others the shape (and gives OpenAI's JSON mode the word JSON it needs),
    compactly (`json_shape`), since the prompt shares a small local model's context.
    """
    spec = response_format(schema)
    plain = plain_json_schema(model, spec) if method == "json_schema" and include_raw else None
    if plain is not None:
        return one_step(plain)
    if method == "json_schema":
        chain = model.with_structured_output(spec, method="json_schema", include_raw=include_raw)
        # The same request, its answer parsed in one step (`common.raw_structured`).
        return with_raw(chain) if include_raw else chain
    if method == "function_calling":
        tool = {
            "name": spec["name"],
            "description": schema.__doc__ or spec["name"],
            "parameters": spec["schema"],
        }
        return model.with_structured_output(
            tool, method="function_calling", include_raw=include_raw
        )
    bound = model.bind(response_format={"type": "json_object", "schema": spec["schema"]})
    return _json_mode(bound, spec["schema"], include_raw)


JSON_MODE_INSTRUCTION = (
    "Answer with one JSON object of this shape ([x]: a list of x; a|b: a or b):\n{shape}"
)
"""Added once to the system prompt in json_mode, where nothing else tells the model the shape.

The shape, not the JSON schema: every node's prompt already says what each field means, and the
schema's descriptions, titles and quoted keys cost about ten times the tokens (llama.cpp's
chatml templates also HTML-escape each `"` in a prompt into `&#34;`, several tokens apiece).
"""


def json_shape(schema: dict[str, Any]) -> str:
    """`schema` as a compact shape: `{decision: "continue"|"replace", plan: [{id: string}]}`."""
    return _shape(schema, schema.get("$defs") or {}, ())


def _shape(node: dict[str, Any], defs: dict[str, Any], seen: tuple[str, ...]) -> str:
    """One schema node's shape; a `$ref` is written out where it is used (by name if recursive)."""
    if "$ref" in node:
        name = str(node["$ref"]).rsplit("/", 1)[-1]
        return name if name in seen or name not in defs else _shape(defs[name], defs, (*seen, name))
    if "enum" in node or "const" in node:
        return "|".join(json.dumps(v) for v in node.get("enum", [node.get("const")]))
    kind = node.get("type")
    choices = node.get("anyOf") or node.get("oneOf")
    if isinstance(kind, list):
        choices = [{**node, "type": k} for k in kind]
    if choices:
        return "|".join(_shape(n, defs, seen) for n in choices)
    if kind == "array":
        return f"[{_shape(node.get('items') or {}, defs, seen)}]"
    props = node.get("properties")
    if isinstance(props, dict) and props:
        required = set(node.get("required") or props)
        return (
            "{"
            + ", ".join(
                f"{key}{'' if key in required else '?'}: {_shape(sub, defs, seen)}"
                for key, sub in props.items()
            )
            + "}"
        )
    return kind if isinstance(kind, str) else "any"


def _json_mode(
    bound: Runnable[LanguageModelInput, BaseMessage], schema: dict[str, Any], include_raw: bool
) -> Runnable[LanguageModelInput, Any]:
    """A json_mode runnable: the schema's shape in the prompt, the reply parsed as JSON."""
    # Imported here: LangChain's output parsers load its chat-model layers, which building the
    # graph does not need.
    from langchain_core.output_parsers import JsonOutputParser

    instruction = JSON_MODE_INSTRUCTION.format(shape=json_shape(schema))
    parser = JsonOutputParser()

    async def ask(value: LanguageModelInput) -> Any:
        messages = list(value) if isinstance(value, list) else [value]
        raw = await bound.ainvoke(_with_instruction(messages, instruction))
        if not include_raw:
            return parser.invoke(raw)
        try:
            return {"raw": raw, "parsed": parser.invoke(raw), "parsing_error": None}
        except OutputParserException as exc:
            return {"raw": raw, "parsed": None, "parsing_error": exc}

    return RunnableLambda(ask)


def _with_instruction(messages: list[Any], instruction: str) -> list[Any]:
    """`messages` with `instruction` at the end of the first system message (or as one)."""
    for i, m in enumerate(messages):
        if isinstance(m, SystemMessage):
            merged = SystemMessage(f"{m.text}\n\n{instruction}")
            return [*messages[:i], merged, *messages[i + 1 :]]
    return [SystemMessage(instruction), *messages]


def with_tools(
    model: BaseChatModel, specs: Sequence[dict[str, Any]]
) -> Runnable[LanguageModelInput, BaseMessage]:
    """`model.bind_tools(specs)`, the schemas adapted to its provider, built once per tool list.

    Keyed by the specs' content (names, descriptions, schemas), so a changed tool list
    binds again while the same list, even as new dicts, is reused. The parameters are what the
    provider accepts (`common.tool_schemas`) and a reply's arguments come back in the tools'
    own shape. langchain-openai models are bound with `tool_choice="auto"` (OpenAI's default
    when tools are given): OpenAI-compatible servers such as llama.cpp's leave tools sent
    without a `tool_choice` out of the prompt.
    """
    key = ("tools", json.dumps(list(specs), sort_keys=True, default=repr))
    return _RUNNABLES.get(model, key, lambda: _bound(model, specs))


def _bound(
    model: BaseChatModel, specs: Sequence[dict[str, Any]]
) -> Runnable[LanguageModelInput, BaseMessage]:
    """`model` bound to `specs` as its provider takes them, its replies' arguments restored."""
    adapted, restores = adapt_specs(family_of(model), specs)
    choice = {"tool_choice": "auto"} if _is_openai(model) and adapted else {}
    bound = model.bind_tools(adapted, **choice)
    if not restores:
        return bound
    return bound | RunnableLambda(lambda message: restored(message, restores))


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
    said: str = ""
    """What the model sent, in its own words (`common.model_text.said`); "" when nothing."""


async def structured_call(
    model: BaseChatModel, schema: type[SchemaT], messages: Sequence[BaseMessage]
) -> SchemaT | BadOutput:
    """Ask `model` for an answer validated into `schema`; malformed or empty output is BadOutput.

    An answer cut at its length limit raises `AnswerCutError`, on every method.
    """
    name = schema.__name__
    out: Any = None
    try:
        history = provider_history(messages)
        if _text_history(model):
            history = tool_free(history)
        out = await ainvoke_structured(model, schema, history, include_raw=True)
        if not isinstance(out, dict):
            out = {"raw": None, "parsed": out, "parsing_error": None}
        cut = cut_of(out.get("raw"))
        if cut is not None:
            raise cut
        if out.get("parsing_error") is not None:
            raise out["parsing_error"]
        if out.get("parsed") is None:
            # Tool-calling parsers give None for an answer without the tool, and for a call
            # whose arguments are not JSON (langchain-openai keeps those apart as invalid).
            return BadOutput(unparsed_reason(out.get("raw"), name), said(out.get("raw")))
        return schema.model_validate(out["parsed"])
    except MALFORMED as exc:
        raw = out.get("raw") if isinstance(out, dict) else getattr(exc, "llm_output", None)
        return BadOutput(f"The answer did not match {name}: {_why(exc)}", said(raw))


def unparsed_reason(raw: Any, name: str) -> str:
    """Why an uncut answer gave no `name`: a call whose arguments are not JSON, or none."""
    broken = getattr(raw, "invalid_tool_calls", None)
    if broken:
        return (
            f"The {name} call's arguments were not valid JSON: "
            f"{_why(ValueError(broken[0].get('error') or broken[0].get('args')))}"
        )
    return f"The answer was empty; expected {name}."


async def _ai_message(
    model: Runnable[LanguageModelInput, BaseMessage],
    messages: Sequence[BaseMessage],
    tools_bound: bool = True,
    keep_cut: bool = False,
) -> AIMessage | BadOutput:
    """The model's reply as an AI message; unparsable or another kind of message is BadOutput.

    A reply cut at its length limit raises `AnswerCutError`. Without tools bound, a provider
    that refuses tool blocks then gets the history's calls and answers as text
    (`TOOL_BLOCKS_NEED_TOOLS`, `history.tool_free`).
    """
    history = provider_history(messages)
    if not tools_bound and _text_history(model):
        history = tool_free(history)
    try:
        message = await bounded(model.ainvoke(history))
    except MALFORMED as exc:
        return BadOutput(f"The answer could not be parsed: {_why(exc)}")
    cut = cut_of(message)
    if cut is not None and not (keep_cut and isinstance(message, AIMessage) and message.content):
        raise cut
    if not isinstance(message, AIMessage):
        return BadOutput(f"The answer was a {type(message).__name__}, not an AI message.")
    if cut is not None:
        # Prose cut short still says what it says: shown, with the limit named, not thrown away.
        note = f"\n\n(The model {cut.problem()}.)"
        return AIMessage(content=str(message.content) + note, id=message.id)
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
    """Ask `model` for a free-text answer; unparsable, non-AI or empty output is BadOutput.

    A free-text answer cut at its length limit is kept, with a note naming the limit: unlike a
    plan or a tool call, half of it is still worth reading (a small model rambles to the limit).
    """
    message = await _ai_message(model, messages, tools_bound=False, keep_cut=True)
    if isinstance(message, BadOutput):
        return message
    if not message.content or not str(message.content).strip():
        return BadOutput("The answer was empty.")
    return message
