"""The CLI as a good citizen of pipes, files and terminals.

Subprocess tests where the claim is about file descriptors (no terminal, a closed
pipe, /dev/full, the locale); the rest call `main` in-process on the bundled sample.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.cli.tui import sample_inputs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files and terminals")

REPO = Path(__file__).resolve().parents[2]
SAMPLE = sample_inputs()
REPORT = ["report", str(SAMPLE["a"]), str(SAMPLE["b"]), "--gold", str(SAMPLE["gold"]), "--config", str(SAMPLE["config"])]
FIXTURES = REPO / "tests" / "importers" / "fixtures"


def _ragtui(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    env = {**os.environ, **kwargs.pop("env", {})}
    return subprocess.run([sys.executable, "-m", "ragtui", *args], cwd=REPO, env=env, timeout=timeout, check=False, **kwargs)


@pytest.fixture
def umask():
    """Set the process umask for one test, and put the old one back."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


# ---- no terminal --------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["open", "sample_data/baseline.jsonl"]], ids=["app", "open"])
def test_without_a_terminal_the_app_exits_2_at_once_pointing_to_report(command):
    done = _ragtui(*command, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == b""  # not one escape code written
    assert "needs an interactive terminal — use `ragtui report`" in done.stderr.decode()
    assert len(done.stderr.decode().splitlines()) == 1


def test_with_term_dumb_the_app_exits_2_even_on_a_terminal():
    master, slave = os.openpty()
    try:
        done = _ragtui(stdin=slave, stdout=slave, stderr=subprocess.PIPE, env={"TERM": "dumb"}, timeout=60)
    finally:
        os.close(slave)
        os.close(master)
    assert done.returncode == 2
    assert "needs an interactive terminal — use `ragtui report` (TERM=dumb" in done.stderr.decode()


# ---- pipes and full disks ----------------------------------------------------------------


def test_a_reader_that_left_ends_the_report_silently():
    read_end, write_end = os.pipe()
    os.close(read_end)  # `| true`, `| head -n0`: nobody reads
    try:
        done = _ragtui(*REPORT, stdout=write_end, stderr=subprocess.PIPE)
    finally:
        os.close(write_end)
    assert done.stderr == b""  # no traceback, no message
    assert done.returncode == 141  # as a process ended by SIGPIPE; not 1, which means "a check failed"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_standard_output_is_one_line_on_stderr_and_exit_2():
    with open("/dev/full", "wb") as full:
        done = _ragtui(*REPORT, stdout=full, stderr=subprocess.PIPE)
    lines = done.stderr.decode().splitlines()
    assert done.returncode == 2
    assert lines == ["ragtui: standard output: -: cannot write: No space left on device"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_output_to_dev_full_is_written_in_place_and_fails_with_one_line(capsys):
    assert main([*REPORT, "-o", "/dev/full"]) == 2
    assert capsys.readouterr().err.splitlines() == ["ragtui: /dev/full: -o: cannot write: No space left on device"]
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)  # still the device, never replaced by a file


# ---- what -o replaces -------------------------------------------------------------------


def test_output_through_a_symlink_rewrites_its_target_and_keeps_the_link(tmp_path, capsys):
    target = tmp_path / "reports" / "latest.md"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "report.md"
    link.symlink_to(target)
    assert main([*REPORT, "--format", "markdown", "-o", str(link)]) == 0
    assert link.is_symlink() and link.resolve() == target
    assert target.read_text(encoding="utf-8").startswith("### ragtui report")


def test_output_to_a_fifo_feeds_its_reader_and_leaves_the_fifo(tmp_path, capsys):
    fifo = tmp_path / "report.pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main([*REPORT, "--format", "json", "-o", str(fifo)]) == 0
    reader.join(timeout=60)
    assert received and received[0].startswith(b"{")  # the reader got the report, not a hang
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_output_dash_is_standard_output(capsys):
    assert main([*REPORT, "--format", "json", "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("{")
    assert not Path("-").exists()


def test_convert_output_dash_writes_the_run_to_standard_output(capsys):
    assert main(["convert", str(FIXTURES / "ragas_results.csv"), "-o", "-"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith('{"run": ')


def test_output_to_a_folder_is_a_usage_error(tmp_path, capsys):
    assert main([*REPORT, "-o", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


# ---- folders and permissions (issue 9) ----------------------------------------------------


def _judge(out: Path) -> list[str]:
    return ["judge", str(SAMPLE["a"]), "-o", str(out), "--provider", "lexical", "--no-cache", "-q"]


def _convert(out: Path) -> list[str]:
    return ["convert", str(FIXTURES / "ragas_results.csv"), "-o", str(out)]


def _report(out: Path) -> list[str]:
    return [*REPORT, "-o", str(out)]


WRITERS = {"report": (_report, "r.txt"), "judge": (_judge, "j.jsonl"), "convert": (_convert, "c.jsonl")}


@pytest.mark.parametrize("command", sorted(WRITERS))
def test_output_into_a_missing_folder_is_a_usage_error_and_creates_nothing(command, tmp_path, capsys):
    build, name = WRITERS[command]
    out = tmp_path / "missing" / name
    assert main(build(out)) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not out.parent.exists()


@pytest.mark.parametrize("command", sorted(WRITERS))
@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600)])
def test_written_files_honour_the_umask(command, mask, mode, tmp_path, umask, capsys):
    build, name = WRITERS[command]
    out = tmp_path / name
    umask(mask)
    assert main(build(out)) == 0
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_a_replaced_file_keeps_its_permissions(tmp_path, umask, capsys):
    out = tmp_path / "report.txt"
    out.write_text("old\n")
    out.chmod(0o640)
    assert main(_report(out)) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640 and out.read_text(encoding="utf-8") != "old\n"


# ---- locale ----------------------------------------------------------------------------


def test_the_report_is_utf8_under_a_latin1_locale():
    # PYTHONIOENCODING stands in for a Latin-1 locale whether or not one is installed here.
    env = {"LANG": "fr_FR.ISO-8859-1", "LC_ALL": "", "PYTHONIOENCODING": "latin-1:backslashreplace"}
    done = _ragtui(*REPORT, capture_output=True, env=env)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")  # strict: every byte is UTF-8
    assert "✓" in text and "✗" in text and "−" in text and "\\u" not in text
