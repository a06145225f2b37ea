"""Agent Chat UI in headless Chromium against the served graph."""
