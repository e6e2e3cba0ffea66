# `make run` and `make test` work on a fresh machine that has only python3.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test lint install install-test bench clean

# Python caches the bytecode of what it imports (`__pycache__`), so the suite's second
# process and every `python -m ragtui` a test starts reuse what the first one compiled.
# A shell that sets PYTHONDONTWRITEBYTECODE (this project's CI machine does) made each
# of them compile textual, rich, polars and the 106 test modules again.
unexport PYTHONDONTWRITEBYTECODE

# The pip that comes with Python ≥ 3.11 installs an editable pyproject project; upgrading
# it first cost 5 s of every fresh `make test`.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The stamps re-install only when pyproject.toml (or the test constraints) change.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

# Snapshot tests compare pixels of text: the libraries that draw them are pinned.
# --no-compile: byte-compiling every installed file (mypy, hypothesis, setuptools, …) took
# 12 of 41 s; the suite compiles only what it imports.
$(VENV)/.installed-test: pyproject.toml tests/constraints.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test]' -c tests/constraints.txt
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(BIN)/ragtui $(ARGS)

# The rules that keep the tree readable (pyproject.toml): the layer contracts, the lint
# rules and the core's types. tests/test_code_rules.py runs the same three in a plain
# pytest; `make test` runs them once, here, and tells the suite so (RAGTUI_RULES_CHECKED).
lint: install-test
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff check ragtui tests bench tools
	$(BIN)/mypy

# Three workers on two cores: the suite is mostly Pilot tests, and each spends part of its
# time waiting on its app (a worker thread, a refresh); a third worker fills those waits.
# Measured on this 2-core machine, quiet: -n 2 331 s, -n 3 248 s, -n 4 264 s.
test: lint
	RAGTUI_RULES_CHECKED=1 $(BIN)/python -m pytest -q -n 3 $(PYTEST_ARGS)

# Every row of the README's performance tables: retrieval (bench_core), `n` and `j`
# (bench_triage), the judge (bench_judge), and the scale rows (bench_scale --markdown);
# with the detector and power figures of docs/performance.md. bench_scale.py writes
# 2 × 1,000,000-question runs (about 8 GB) under bench/out and takes most of an hour on
# a 2-core machine.
bench: install-test
	$(BIN)/python bench/bench_core.py
	$(BIN)/python bench/bench_triage.py
	$(BIN)/python bench/bench_judge.py
	$(BIN)/python bench/bench_judge_directed.py
	$(BIN)/python bench/bench_power.py
	$(BIN)/python bench/bench_scale.py --markdown

clean:
	rm -rf $(VENV) build *.egg-info
