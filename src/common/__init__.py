"""Pieces shared by every planning strategy: settings, models, MCP experts, safety, plans."""
