# Every target installs what it needs into .venv first, so each works on a fresh clone.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test lint format bench clean third-party aegra aegra-serve

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

# Aegra (the self-hosted LangGraph Agent Server: PostgreSQL + Redis, several instances) needs
# Python >= 3.12: found on PATH or under pyenv. Pinned, because a resolve on an older Python
# silently picks aegra-api 0.6.
AEGRA_VENV ?= .venv-aegra
AEGRA_PINS := aegra-api==0.11.0 aegra-cli==0.11.0
AEGRA_STAMP := $(AEGRA_VENV)/.installed
DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/aegra
REDIS_URL ?= redis://127.0.0.1:6379/0
AEGRA_HOST ?= 127.0.0.1
AEGRA_PORT ?= 2026

aegra: $(AEGRA_STAMP)

$(AEGRA_STAMP): pyproject.toml
	@py=$$(bash .ci/find-python312); \
	  test -n "$$py" || { echo "make aegra: no Python >= 3.12 found on PATH or under pyenv; install one (e.g. pyenv install 3.12) and run make aegra again" >&2; exit 1; }; \
	  $$py -m venv $(AEGRA_VENV)
	$(AEGRA_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(AEGRA_VENV)/bin/python -m pip install --quiet -e ".[dev]" $(AEGRA_PINS)
	touch $(AEGRA_STAMP)

# One instance on DATABASE_URL / REDIS_URL: migrations first (once, never from two instances at
# the same moment), then the server in the foreground; run it under a supervisor in production.
aegra-serve: aegra
	DATABASE_URL=$(DATABASE_URL) $(AEGRA_VENV)/bin/aegra db upgrade
	DATABASE_URL=$(DATABASE_URL) REDIS_URL=$(REDIS_URL) REDIS_BROKER_ENABLED=true \
	  RUN_MIGRATIONS_ON_STARTUP=false AEGRA_CONFIG=aegra.json \
	  exec $(AEGRA_VENV)/bin/python -m uvicorn aegra_api.main:app --host $(AEGRA_HOST) --port $(AEGRA_PORT)

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
	$(MAKE) aegra
	$(PY) bench/bench_aegra.py --no-check

clean:
	rm -rf $(VENV) $(AEGRA_VENV) .venv-tools .ci/mcp-servers .mcp-planner .pytest_cache .mypy_cache .ruff_cache
