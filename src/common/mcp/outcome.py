"""The one shape of a tool call's outcome, from the MCP result to the ledger and the ToolMessage.

A `ToolOutcome` is plain JSON data (a TypedDict), so the call ledger can store it as it is and a
re-run can replay it. Errors are values: every way a call can end is a status, never an exception.

Converting an MCP `CallToolResult`: langchain-mcp-adapters has a converter
(`langchain_mcp_adapters.tools._convert_call_tool_result`), but it is private, raises on
`AudioContent` and on error results (we keep a failed call's text as a value), and drops the text
a model needs to know that an image or a link was returned. So every MCP content type is handled
here, into the same LangChain standard content blocks the adapter produces (`create_*_block` of
langchain-core): text stays text exactly as before; an embedded text resource keeps its text; an
image, audio clip, binary resource or resource link becomes a one-line description in the text
and a content block in `blocks`, for callers that can show it. The converters import the MCP SDK
when they run: the value shape alone is imported while the graph is only being built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, NotRequired, TypedDict

from langchain_core.messages.content import (
    AudioContentBlock,
    FileContentBlock,
    ImageContentBlock,
    create_audio_block,
    create_file_block,
    create_image_block,
)

from common.mcp.asking import Asking

if TYPE_CHECKING:
    from mcp.types import CallToolResult, ContentBlock, EmbeddedResource, ResourceLink

OutcomeStatus = Literal[
    "ok", "tool_error", "timeout", "unknown_tool", "unavailable", "interrupted", "needs_input"
]
"""How a tool call ended; "interrupted": an irreversible call cut off (a crash, a timeout) whose
effect is unknown: it was not sent again; "needs_input": it stopped at its server's questions
to the person (`asking`), and goes on once they are answered."""

MediaBlock = ImageContentBlock | AudioContentBlock | FileContentBlock
"""A non-text part of a tool's result, as a LangChain standard content block."""


class ToolOutcome(TypedDict):
    """The result of one tool call, as a value: errors included, never raised."""

    status: OutcomeStatus
    """How the call ended."""
    content: str
    """Text for the model: the tool's output (non-text parts described) or the error."""
    structured: dict[str, Any] | None
    """The tool's structured content, when it returned any (templates read it)."""
    blocks: NotRequired[list[MediaBlock]]
    """Non-text parts (images, audio, files, links); absent in records written before them."""
    asking: NotRequired[Asking]
    """The server's questions, when the call stopped at them ("needs_input")."""


def outcome(
    status: OutcomeStatus,
    content: str,
    structured: dict[str, Any] | None = None,
    blocks: list[MediaBlock] | None = None,
) -> ToolOutcome:
    """A ToolOutcome; `blocks` is stored only when there are any."""
    made = ToolOutcome(status=status, content=content, structured=structured)
    if blocks:
        made["blocks"] = blocks
    return made


def asking_outcome(asking: Asking) -> ToolOutcome:
    """A call stopped at its server's questions."""
    shown = "; ".join(q["message"] for q in asking["questions"])
    made = outcome("needs_input", f"The server asks the user: {shown}")
    made["asking"] = asking
    return made


def is_error(result: ToolOutcome) -> bool:
    """Whether the call failed."""
    return result["status"] != "ok"


def blocks_of(result: ToolOutcome) -> list[MediaBlock]:
    """The outcome's non-text parts (none for records that predate them)."""
    return result.get("blocks", [])


def from_result(result: CallToolResult) -> ToolOutcome:
    """The outcome of a call that reached the tool: its content converted, nothing dropped."""
    texts: list[str] = []
    blocks: list[MediaBlock] = []
    for part in result.content:
        text, block = _convert(part)
        texts.append(text)
        if block is not None:
            blocks.append(block)
    status: OutcomeStatus = "tool_error" if result.is_error else "ok"
    return outcome(status, "\n".join(texts), result.structured_content, blocks)


def _convert(part: ContentBlock) -> tuple[str, MediaBlock | None]:
    """One MCP content block as (text for the model, content block for callers)."""
    from mcp.types import AudioContent, ImageContent, ResourceLink, TextContent

    if isinstance(part, TextContent):
        return part.text, None
    if isinstance(part, ImageContent):
        described = f"[image: {part.mime_type}, {_size(part.data)}]"
        return described, create_image_block(base64=part.data, mime_type=part.mime_type)
    if isinstance(part, AudioContent):
        described = f"[audio: {part.mime_type}, {_size(part.data)}]"
        return described, create_audio_block(base64=part.data, mime_type=part.mime_type)
    if isinstance(part, ResourceLink):
        return _link(part)
    return _embedded(part)


def _link(part: ResourceLink) -> tuple[str, MediaBlock]:
    """A resource link: described with its name, address and type, kept as a URL block."""
    mime = part.mime_type or None
    title = f"{part.name}: " if part.name else ""
    described = f"[resource link: {title}{part.uri}{f' ({mime})' if mime else ''}]"
    if mime and mime.startswith("image/"):
        return described, create_image_block(url=str(part.uri), mime_type=mime)
    return described, create_file_block(url=str(part.uri), mime_type=mime)


def _embedded(part: EmbeddedResource) -> tuple[str, MediaBlock | None]:
    """An embedded resource: its text kept as text, a binary one described and kept as a block."""
    from mcp.types import TextResourceContents

    resource = part.resource
    if isinstance(resource, TextResourceContents):
        return resource.text, None
    # A base64 block needs a type; an unlabelled blob is plain bytes.
    mime = resource.mime_type or "application/octet-stream"
    described = (
        f"[resource {resource.uri}: {resource.mime_type or 'binary'}, {_size(resource.blob)}]"
    )
    if mime.startswith("image/"):
        return described, create_image_block(base64=resource.blob, mime_type=mime)
    return described, create_file_block(base64=resource.blob, mime_type=mime)


def _size(data: str) -> str:
    """The decoded size of base64 `data`, without decoding it."""
    n = len(data) * 3 // 4 - data[-2:].count("=")
    return f"{n} bytes" if n < 1024 else f"{n / 1024:.1f} KiB"
