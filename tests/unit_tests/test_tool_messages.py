"""What a tool's answer carries to the model and to callers: text, structured data, media."""

from __future__ import annotations

from langchain_core.messages import ToolCall

from common.mcp.outcome import outcome
from common.safety.execution import Executed
from strategies.with_planner.nodes.tool_messages import result_message

CALL = ToolCall(name="snapshot", args={}, id="c1", type="tool_call")


def test_an_image_a_tool_returns_reaches_the_tool_message_as_a_content_block() -> None:
    image = {"type": "image", "base64": "iVBORw0KGgo=", "mime_type": "image/png"}
    done = outcome("ok", "[image: image/png, 8 bytes]", {"w": 1}, blocks=[image])  # type: ignore[list-item]
    message = result_message(CALL, Executed(outcome=done, shown=done["content"]))
    assert message.additional_kwargs["blocks"] == [image]
    assert message.content == "[image: image/png, 8 bytes]"
    assert message.artifact == {"w": 1}


def test_a_text_result_carries_no_media_blocks() -> None:
    done = outcome("ok", "42 units")
    message = result_message(CALL, Executed(outcome=done, shown="42 units"))
    assert "blocks" not in message.additional_kwargs
    assert message.status == "success"
