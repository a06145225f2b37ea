"""Bundled demo experts: a read-only inventory and a notes store with irreversible tools."""
