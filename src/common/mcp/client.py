"""The MCP client session we open: the SDK's, with each tool's output schema checked once.

The SDK validates a tool's structured result with `jsonschema.validate`, which checks the
schema itself against its metaschema on every call (about 1 ms of CPU per call for a small
schema, most of a direct call's client time). Here the validator is built, and the schema
checked, once per output schema the session holds; a result is validated exactly as before
and an invalid one raises the SDK's error. Anything else (a tool not listed yet, no schema,
an invalid schema, a `$ref` that does not resolve) goes to the SDK's own check.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from jsonschema import SchemaError, validators
from jsonschema.exceptions import best_match
from mcp import ClientSession
from mcp.shared.session import RequestResponder
from mcp.types import CallToolResult, ClientResult, ServerNotification, ServerRequest
from referencing import Registry
from referencing.exceptions import Unresolvable

if TYPE_CHECKING:
    from common.models import IdentityCache

MessageHandler = RequestResponder[ServerRequest, ClientResult] | ServerNotification | Exception
"""What a session's `message_handler` receives: a server request, a notification or an error."""

VALIDATOR_CACHE_SIZE = 512
"""Output-schema validators kept (one per schema object a session holds)."""


@cache
def _validators() -> IdentityCache[Any]:
    """The process's validator cache; `common.models` (LangChain) is imported at the first call."""
    from common.models import IdentityCache

    return IdentityCache(VALIDATOR_CACHE_SIZE)


def _validator(schema: dict[str, Any]) -> Any:
    """A validator for `schema`, its schema checked; None when the schema is invalid."""
    cls = validators.validator_for(schema)
    try:
        cls.check_schema(schema)
    except SchemaError:
        return None
    # An explicit empty registry, as the SDK: `$ref`s resolve within the schema document.
    return cls(schema, registry=Registry())


class PlannerClientSession(ClientSession):
    """`ClientSession` whose tool results are validated by a validator built once per schema."""

    async def _validate_tool_result(self, name: str, result: CallToolResult) -> None:
        schemas = getattr(self, "_tool_output_schemas", None)
        schema = schemas.get(name) if isinstance(schemas, dict) else None
        if not isinstance(schema, dict) or result.structuredContent is None:
            return await super()._validate_tool_result(name, result)
        validator = _validators().get(schema, "validator", lambda: _validator(schema))
        if validator is None:
            return await super()._validate_tool_result(name, result)
        try:
            error = best_match(validator.iter_errors(result.structuredContent))
        except Unresolvable:
            return await super()._validate_tool_result(name, result)
        if error is not None:
            raise RuntimeError(f"Invalid structured content returned by tool {name}: {error}")
        return None
