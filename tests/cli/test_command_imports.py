"""Each command imports its own module only: `ragtui A B` reaches the app without the
judge's, the report's or the runner's modules (docs/performance.md, "How the app starts")."""

from __future__ import annotations

import json
import subprocess
import sys

from ragtui.cli import COMMANDS
from ragtui.cli.tui import sample_inputs

_PROBE = """
import json, sys
import ragtui.ui.launch as launch
import ragtui.cli.terminal as terminal
terminal.terminal_problem = lambda: None  # no terminal under pytest
launch.launch = lambda inputs, **options: 0  # stop where the app would start
from ragtui.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(m for m in sys.modules if m.startswith("ragtui.cli."))}))
"""


def _command_modules_after(argv: list[str]) -> tuple[int, set[str]]:
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    command_modules = {module for module, _ in COMMANDS.values()}
    return found["code"], command_modules & set(found["modules"])


def test_opening_two_runs_imports_the_compare_command_alone():
    sample = sample_inputs()
    code, imported = _command_modules_after([str(sample["a"]), str(sample["b"]), "--gold", str(sample["gold"])])
    assert code == 0
    assert imported == {"ragtui.cli.tui"}


def test_the_help_of_one_command_imports_that_command_alone(capsys):
    from ragtui.cli import main

    assert main(["report", "--help"]) == 0
    assert "--gold" in capsys.readouterr().out  # its own options are there
    code, imported = _command_modules_after(["report", "--help"])
    assert code == 0 and imported == {"ragtui.cli.report"}


def test_the_general_help_lists_every_command(capsys):
    from ragtui.cli import main

    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in COMMANDS)
