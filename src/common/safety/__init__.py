"""Tool risk: which calls cannot be undone, and how a human approves them."""

from common.safety.approval import (
    ApprovalFormatError,
    Decision,
    PendingCall,
    build_approval_request,
    parse_decisions,
)
from common.safety.classify import ToolVerdict, classify_tool, classify_tools
from common.safety.gate import Gate, GateDecision

__all__ = [
    "ApprovalFormatError",
    "Decision",
    "Gate",
    "GateDecision",
    "PendingCall",
    "ToolVerdict",
    "build_approval_request",
    "classify_tool",
    "classify_tools",
    "parse_decisions",
]
