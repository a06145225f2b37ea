# Every target installs what it needs into .venv first, so each works on a fresh clone.
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test lint format bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: install
	$(VENV)/bin/mcp-planner run 'How many units of WID-1 are in stock, then write a note titled "stock"'


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
	rm -rf $(VENV) .mcp-planner .pytest_cache .mypy_cache .ruff_cache
