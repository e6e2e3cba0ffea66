# `make run` and `make test` work on a fresh machine that has only python3.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: run test install install-test bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# The stamps re-install only when pyproject.toml changes.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

run: install
	$(BIN)/ragtui $(ARGS)

test: install-test
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

bench: install-test
	$(BIN)/python bench/bench_core.py
	$(BIN)/python bench/bench_judge.py

clean:
	rm -rf $(VENV) build *.egg-info
