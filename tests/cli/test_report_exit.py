"""`ragtui report` as a whole process (`run_and_exit`): it ends without the interpreter's
shutdown once its output is flushed, so what it wrote and its exit code must be whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ragtui.cli.tui import sample_inputs


def _sample_flags() -> list[str]:
    paths = sample_inputs()
    return [str(paths["a"]), str(paths["b"]), "--gold", str(paths["gold"]), "--config", str(paths["config"])]


def _report(*flags: str, cache_home) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "ragtui", "report", *_sample_flags(), *flags]
    return subprocess.run(command, capture_output=True, env={**os.environ, "XDG_CACHE_HOME": str(cache_home)}, timeout=300, check=False)


def test_a_report_process_writes_all_of_its_output_and_its_gate_lines_and_ends_with_the_gates_code(tmp_path, capsys):
    from ragtui.cli import main

    ended = _report("--format", "json", "--fail-on-drop", "--no-cache", cache_home=tmp_path)
    code = main(["report", *_sample_flags(), "--format", "json", "--fail-on-drop", "--no-cache"])
    assert code == ended.returncode == 1  # the sample's drops
    in_process = capsys.readouterr()
    assert ended.stdout.decode() == in_process.out and json.loads(ended.stdout)["k"] == 5
    assert ended.stderr.decode() == in_process.err and in_process.err.startswith("ragtui: gate --fail-on-drop: FAILED")


def test_a_report_written_to_a_file_is_whole_when_the_process_ends(tmp_path):
    target = tmp_path / "report.md"
    ended = _report("--format", "markdown", "-o", str(target), cache_home=tmp_path)
    assert ended.returncode == 0 and ended.stdout == b""
    assert target.read_text(encoding="utf-8").endswith("\n") and len(target.read_bytes()) > 1000
