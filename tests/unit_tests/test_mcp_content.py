"""Tool results of every MCP content type reach the outcome: text as before, nothing dropped."""

from __future__ import annotations

import base64
import json
import uuid

from mcp.server.mcpserver import MCPServer
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from common.mcp import ExpertRegistry, is_error
from common.mcp.config import parse_mcp_config
from common.mcp.inprocess import register_inprocess_server
from common.mcp.outcome import blocks_of, from_result

PNG = base64.b64encode(b"\x89PNG" + bytes(96)).decode()
"""A 100-byte stand-in for an image."""


def media_server() -> str:
    """An in-process server whose tools return text, an image, resources and links."""
    mcp = MCPServer(f"media-{uuid.uuid4().hex[:8]}")

    @mcp.tool(structured_output=False)
    def chart() -> list[ContentBlock]:
        """A chart with a caption."""
        return [
            TextContent(type="text", text="Sales by month:"),
            ImageContent(type="image", data=PNG, mimeType="image/png"),
        ]

    @mcp.tool(structured_output=False)
    def report() -> list[ContentBlock]:
        """A report embedded as a resource, with a link to the full file."""
        return [
            EmbeddedResource(
                type="resource",
                resource=TextResourceContents(
                    uri="file:///reports/q3.md", mimeType="text/markdown", text="# Q3\nUp."
                ),
            ),
            ResourceLink(
                type="resource_link",
                name="q3-full",
                uri="file:///reports/q3.pdf",
                mimeType="application/pdf",
            ),
        ]

    @mcp.tool()
    def stock(sku: str) -> dict[str, int]:
        """Stock of one SKU (structured content)."""
        return {"stock": 14}

    register_inprocess_server(mcp.name, mcp)
    return mcp.name


def registry(server: str) -> ExpertRegistry:
    raw = {"mcpServers": {"media": {"inprocess": server, "description": "Media."}}}
    return ExpertRegistry(parse_mcp_config(raw))


async def test_an_image_is_described_and_kept_as_a_block() -> None:
    result = await registry(media_server()).call("media", "chart", {}, 10, retry_safe=True)

    assert not is_error(result)
    assert result["content"] == "Sales by month:\n[image: image/png, 100 bytes]"
    (block,) = blocks_of(result)
    assert (block["type"], block.get("mime_type"), block.get("base64")) == (
        "image",
        "image/png",
        PNG,
    )
    assert json.loads(json.dumps(result)) == result


async def test_an_embedded_text_resource_keeps_its_text_and_a_link_is_named() -> None:
    result = await registry(media_server()).call("media", "report", {}, 10, retry_safe=True)

    assert result["content"] == (
        "# Q3\nUp.\n[resource link: q3-full: file:///reports/q3.pdf (application/pdf)]"
    )
    (block,) = blocks_of(result)
    assert (block["type"], block.get("url")) == ("file", "file:///reports/q3.pdf")


async def test_text_results_and_structured_content_are_unchanged() -> None:
    result = await registry(media_server()).call("media", "stock", {"sku": "A"}, 10, True)

    assert result["status"] == "ok"
    assert result["structured"] == {"stock": 14}
    assert json.loads(result["content"]) == {"stock": 14}
    assert "blocks" not in result


def test_audio_binary_resources_and_image_links_are_converted() -> None:
    blob = base64.b64encode(bytes(3000)).decode()
    result = from_result(
        CallToolResult(
            content=[
                AudioContent(type="audio", data=PNG, mimeType="audio/wav"),
                EmbeddedResource(
                    type="resource",
                    resource=BlobResourceContents(uri="file:///a.bin", mimeType=None, blob=blob),
                ),
                ResourceLink(
                    type="resource_link",
                    name="",
                    uri="https://example.org/p.png",
                    mimeType="image/png",
                ),
            ],
            isError=True,
        )
    )

    assert result["status"] == "tool_error"
    assert result["content"].splitlines() == [
        "[audio: audio/wav, 100 bytes]",
        "[resource file:///a.bin: binary, 2.9 KiB]",
        "[resource link: https://example.org/p.png (image/png)]",
    ]
    assert [b["type"] for b in blocks_of(result)] == ["audio", "file", "image"]
