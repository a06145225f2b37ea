# Every target installs what it needs into .venv first, so each works on a fresh clone.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test lint format bench clean third-party

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# Real MCP servers for the integration tests, each in its own environment (mcp-server-time wants
# mcp 2, we use mcp 1 client APIs; the npm servers need Node.js).
third-party:
	python3 -m venv .venv-tools
	.venv-tools/bin/python -m pip install --quiet mcp-server-time
	npm install --prefix .ci/mcp-servers --no-audit --no-fund --silent \
		@modelcontextprotocol/server-filesystem @modelcontextprotocol/server-memory

# In a terminal the demo asks before writing the note. Without one (CI, `make demo </dev/null`)
# the CLI lists the pending approval with the command that gives it and exits 3: that is the
# demo's expected end, so 3 counts as success here; any other failure still fails the target.
demo: install
	$(VENV)/bin/mcp-planner run 'How many units of WID-1 are in stock, then write a note titled "stock"' \
		|| test $$? -eq 3
	@echo 'mcp-planner is installed in $(VENV): activate it (. $(VENV)/bin/activate) or call $(VENV)/bin/mcp-planner'


test: install
	$(PY) -m pytest -q

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) bench/bench_sessions.py
	$(PY) bench/bench_parallel.py

clean:
	rm -rf $(VENV) .venv-tools .ci/mcp-servers .mcp-planner .pytest_cache .mypy_cache .ruff_cache
