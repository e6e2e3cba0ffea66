"""The run file's resumability rules, and the progress line, on hand-written files."""

from __future__ import annotations

import io
import json
import os
import stat

import pytest

from ragtui.cli import main
from ragtui.cli.judge_progress import Progress
from ragtui.core.errors import InputError
from ragtui.core.running.run_file import RunWriter, read_previous
from tests.running.conftest import write_gold

META = {"run": {"name": "r", "k": 5}}


def _write(path, *lines: str) -> None:
    path.write_text("".join(lines), encoding="utf-8")


def test_a_last_line_cut_short_is_dropped_and_the_file_rewritten_before_appending(tmp_path):
    path = tmp_path / "run.jsonl"
    _write(path, json.dumps(META) + "\n", '{"id": "a", "answer": "x"}\n', '{"id": "b", "answ')
    previous = read_previous(path, rerun_errors=False)
    assert list(previous.records) == ["a"] and previous.torn_line
    with RunWriter(path, {"name": "ignored"}, previous) as writer:
        writer.append({"id": "b", "answer": "y"})
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [META, {"id": "a", "answer": "x"}, {"id": "b", "answer": "y"}]


def test_rerun_errors_drops_the_errored_records_so_no_question_is_recorded_twice(tmp_path):
    path = tmp_path / "run.jsonl"
    _write(path, json.dumps(META) + "\n", '{"id": "a", "answer": "x"}\n', '{"id": "b", "answer": null, "error": "HTTP 500"}\n')
    assert list(read_previous(path, rerun_errors=False).records) == ["a", "b"]
    previous = read_previous(path, rerun_errors=True)
    assert list(previous.records) == ["a"] and previous.dropped_errors == ["b"]
    RunWriter(path, {}, previous).close()
    assert [json.loads(line)["id"] for line in path.read_text(encoding="utf-8").splitlines()[1:]] == ["a"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": "a"}\n{"id": "a"}\n', "question a is recorded twice"),
        ('{"answer": "no id"}\n', "a record without an id"),
        ('{"id": "a"}\nnot json\n{"id": "b"}\n', "malformed JSON"),
    ],
)
def test_a_file_that_is_not_a_resumable_run_is_refused_rather_than_appended_to(tmp_path, content, message):
    path = tmp_path / "run.jsonl"
    _write(path, content)
    with pytest.raises(InputError) as caught:
        read_previous(path, rerun_errors=False)
    assert message in str(caught.value) and "give another -o" in str(caught.value)
    assert path.read_text(encoding="utf-8") == content


def test_a_new_run_file_gets_the_users_umask(tmp_path):
    path = tmp_path / "run.jsonl"
    old = os.umask(0o027)
    try:
        RunWriter(path, {"name": "r"}, read_previous(path, rerun_errors=False)).close()
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_resuming_without_k_keeps_the_files_k(tmp_path):
    gold = write_gold(tmp_path / "gold.yaml", ["a"])
    out = tmp_path / "run.jsonl"
    _write(out, json.dumps({"run": {"name": "r", "k": 3}}) + "\n")
    assert main(["run", str(gold), "--system", "ragtui.sample_data.example_system:answer", "-o", str(out), "-q"]) == 0
    assert len(json.loads(out.read_text(encoding="utf-8").splitlines()[1])["retrieved"]) == 3


def test_resuming_with_another_k_is_refused(tmp_path, capsys):
    gold = write_gold(tmp_path / "gold.yaml", ["a"])
    out = tmp_path / "run.jsonl"
    _write(out, json.dumps({"run": {"name": "r", "k": 5}}) + "\n")
    code = main(["run", str(gold), "--system", "ragtui.sample_data.example_system:answer", "-o", str(out), "-k", "20", "-q"])
    assert code == 2
    assert "this run was started with k = 5, not 20: rerun with -k 5, or write to another -o" in capsys.readouterr().err


def test_the_progress_line_shows_done_errors_median_latency_and_eta():
    clock = iter([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    stream = io.StringIO()
    progress = Progress(4, stream, tty=False, interval=0.0, clock=lambda: next(clock), label="run", show_cached=False)
    progress.update(error=False, cost=0.0, latency_ms=100.0)
    progress.update(error=True, cost=0.0, latency_ms=300.0)
    last = stream.getvalue().splitlines()[-1]
    assert last == "run  2/4   50%  1.0/s  ETA 0:00:02  errors 1  p50 200 ms  retries 0  $0.0000"
