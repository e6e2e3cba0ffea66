"""The rules that keep the tree readable hold: layer contracts, lint, the types of all of ragtui.

They run inside the suite so that a plain `pytest` checks them too; `make test` runs the
three tools once itself (mypy beside the suite), and sets RAGTUI_RULES_CHECKED so they are not run
twice. The settings are in pyproject.toml (`[tool.importlinter]`, `[tool.ruff]`, `[tool.mypy]`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    if os.environ.get("RAGTUI_RULES_CHECKED") == "1":
        pytest.skip("make test runs lint-imports, ruff and mypy itself")
    executable = BIN / tool if (BIN / tool).exists() else shutil.which(tool)
    if executable is None:
        pytest.skip(f"{tool} is not installed (it comes with the test extras: pip install -e '.[test]')")
    return subprocess.run([str(executable), *args], cwd=REPO, capture_output=True, text=True, timeout=300)


def test_the_layers_hold_core_below_app_below_command_line_and_inside_the_app_by_kind():
    done = _run("lint-imports", "--no-cache")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_code_passes_the_projects_lint_rules():
    done = _run("ruff", "check", "ragtui", "tests", "bench", "tools")
    assert done.returncode == 0, done.stdout[-3000:]


def test_every_module_of_ragtui_type_checks():
    done = _run("mypy")
    assert done.returncode == 0, done.stdout[-3000:]
