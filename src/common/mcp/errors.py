"""What callers of the registry catch or route on, kept apart from the MCP SDK.

Nodes test for `ExpertUnavailable` when the graph is only being built; this module imports no
MCP SDK, so building or drawing the graph does not load it (see `common.mcp`).
"""


class ExpertUnavailable(RuntimeError):
    """An MCP server that could not be started or reached; the message names it.

    The message leaves out when the server is tried again (`retry_in_s`): a one-shot command
    ends long before then, so "next start in 5s" would mean nothing to its reader.
    """

    def __init__(self, server: str, message: str, retry_in_s: float = 0.0) -> None:
        super().__init__(f"Expert {server!r} is unavailable: {message}")
        self.server = server
        """The expert's name."""
        self.reason = message
        """Why it is unavailable, without the expert's name."""
        self.retry_in_s = retry_in_s
        """Seconds before this process starts the server again (0: on the next use)."""
