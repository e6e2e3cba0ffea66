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

# Installing is most of what a fresh `make test` spends before its first test: pip took
# 14 s to resolve and unpack the test extras, and 4 s to put itself into the venv. uv,
# fetched into .venv/uv by python3's own pip, does both in about 5 s (it puts pip in the
# venv too, for whoever uses it). Where uv cannot be had or cannot install (no pip beside
# python3, an index set up for pip only), pip installs as it did.
UV := $(VENV)/uv/bin/uv
$(BIN)/python:
	$(PYTHON) -m venv --without-pip $(VENV)

# $(call venv_install,ARGUMENTS): pip-style arguments, installed into the venv.
venv_install = \
	{ { [ -x $(UV) ] || $(PYTHON) -m pip install --quiet --disable-pip-version-check --target $(VENV)/uv uv >/dev/null 2>&1; } \
	  && $(UV) pip install --quiet --python $(BIN)/python pip $(1); } \
	|| { echo 'uv could not install: installing with pip' >&2 \
	  && $(BIN)/python -m ensurepip --default-pip >/dev/null \
	  && $(BIN)/python -m pip install --quiet --no-compile $(1); }

# The stamps re-install only when pyproject.toml (or the test constraints) change.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@$(call venv_install,-e .)
	@touch $@

# Snapshot tests compare pixels of text: the libraries that draw them are pinned.
# Nothing is byte-compiled at install (uv does not; pip is told --no-compile): compiling
# every installed file (mypy, hypothesis, setuptools, …) took 12 of pip's 41 s, and the
# suite compiles only what it imports.
$(VENV)/.installed-test: pyproject.toml tests/constraints.txt | $(BIN)/python
	@$(call venv_install,-e '.[test]' -c tests/constraints.txt)
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(BIN)/ragtui $(ARGS)

# The rules that keep the tree readable (pyproject.toml): the layer contracts, the lint
# rules and the types of all of ragtui. tests/test_code_rules.py runs the same three in a plain
# pytest; `make test` runs them once, itself, and tells the suite so (RAGTUI_RULES_CHECKED).
LAYERS := $(BIN)/lint-imports --no-cache
STYLE  := $(BIN)/ruff check ragtui tests bench tools
TYPES  := $(BIN)/mypy
SUITE  := RAGTUI_RULES_CHECKED=1 $(BIN)/python -m pytest -q -n 3 --dist worksteal $(PYTEST_ARGS)

lint: install-test
	$(LAYERS)
	$(STYLE)
	$(TYPES)

# Three workers on two cores: the suite is mostly Pilot tests, and each spends part of its
# time waiting on its app (a worker thread, a refresh); a third worker fills those waits.
# Measured on this 2-core machine, quiet: -n 2 331 s, -n 3 248 s, -n 4 264 s.
# --dist worksteal: a worker that runs out of tests takes some of another's, so the run
# does not end on one worker's last long tests (four interleaved pairs, same commit:
# 160.7, 194.7, 167.4 and 136.8 s against 205.8, 201.1, 176.3 and 167.9 s for the
# default --dist load).
# mypy (all of ragtui: about 10 s of CPU on a fresh clone, no cache) runs beside the suite, in its waits; its verdict
# is printed after the suite's and either failing fails `make test`.
test: install-test
	$(LAYERS)
	$(STYLE)
	@echo '$(TYPES), beside the suite: its output follows'
	@echo '$(SUITE)'
	@$(TYPES) > $(VENV)/mypy.log 2>&1 & types=$$!; \
	$(SUITE); suite=$$?; \
	wait $$types; typed=$$?; cat $(VENV)/mypy.log; \
	[ $$suite -eq 0 ] && [ $$typed -eq 0 ]

# Every headline figure, each beside its floor or peer measured in the same run, every
# comparison opened with --gold: retrieval (bench_core), the keys (bench_triage), the judge
# (bench_judge), `ragtui run` (bench_run), the detector (bench_judge_directed), power
# (bench_power), the sample's start and the large runs (bench_scale). Each script prints
# its own detail and hands its headline figures to bench/headlines.py through
# RAGTUI_BENCH_HEADLINES; the run ends with their one table (docs/performance.md), every
# script run even if one fails, a failed one's figures "not measured" and `make` failing.
# bench_scale.py writes 2 × 1,000,000-question runs (about 8 GB) under bench/out and takes
# most of an hour on a 2-core machine. bench_load.py measures the loading figures at both
# sizes the goals are set at: 2 × 100,000 questions in three rounds, 2 × 1,000,000 in one
# (about a quarter of an hour more), so that one run of `make bench` checks every goal.
BENCHES := "bench_load.py --size 100000" "bench_load.py --size 1000000 --repeat 1" bench_core.py bench_triage.py bench_judge.py bench_run.py \
	bench_judge_directed.py bench_power.py bench_scale.py
bench: export RAGTUI_BENCH_HEADLINES := $(CURDIR)/bench/out/headlines.jsonl
bench: install-test
	$(BIN)/python bench/headlines.py start
	@failed=0; for script in $(BENCHES); do \
	  echo "$(BIN)/python bench/$$script"; $(BIN)/python bench/$$script || failed=1; \
	done; \
	$(BIN)/python bench/headlines.py table; exit $$failed

clean:
	rm -rf $(VENV) build *.egg-info
