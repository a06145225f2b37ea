"""A 2026-only MCP server over stdio for the era suite: `era_v2.py --modern-only`.

It answers `server/discover` and enveloped requests, and refuses `initialize` with
UNSUPPORTED_PROTOCOL_VERSION (-32022) and data `{"supported": ["2026-07-28"]}` (the server
middleware `era_v2.refuse_initialize`). Over HTTP it is served by `era_v2.py --http PORT`.
"""

from __future__ import annotations

from era_v2 import build  # the script's folder is first on sys.path

if __name__ == "__main__":
    build(modern_only=True).run()
