"""Runs parsed in processes of their own (loading/run_process.py): the parent gets the run it
would have built itself — frame, metadata, warnings, problems, cache entry — and nothing is
left behind, whether the child answers, is killed or is stopped by Ctrl-C."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from ragtui.core.errors import InputError
from ragtui.core.loading import run_process, runs
from ragtui.core.loading.inputs import Inputs
from ragtui.core.loading.remote import RemoteLocation
from ragtui.core.loading.run_cache import RunCache
from ragtui.core.loading.run_process import ProcessParse, worth_processes
from ragtui.core.loading.runs import load_run
from ragtui.core.session import load_comparison

META = {"name": "baseline", "judge_model": "claude-sonnet-4", "k": 5, "team": "rh"}


def _record(i: int, passage: str | None = None) -> dict:
    answer = f"Réponse {i}."
    return {
        "id": f"q{i:05d}",
        "question": f"Question {i} ?",
        "category": ["procedurale", "sans_reponse"][i % 2],
        "gold_passages": [f"p{i}"],
        "retrieved": [{"id": f"p{i}", "text": passage or f"Passage {i} texte.", "score": 0.9}, {"id": "x", "text": "Autre.", "score": 0.1}],
        "answer": answer,
        "judge": {"faithfulness": {"sentences": [{"text": answer, "attested": i % 3 > 0, "evidence": [f"p{i}"], "reason": "dit"}]},
                  "utility": {"score": 1 + i % 5, "reason": "utile"}},
    }


def _run_file(path: Path, count: int, write_jsonl, *, long_passage: bool = False) -> Path:
    """A native JSONL run of `count` questions, read by the fast path; `long_passage`: record
    3 has a passage long enough to be warned about, and a French key that sends the file to
    the exact path (the fast path does not warn)."""
    records = [_record(i) for i in range(count)]
    if long_passage:
        records[3] = {**_record(3, "mot " * 26_000), "categorie": records[3].pop("category")}
    return write_jsonl(path, META, records)


@pytest.fixture
def started(monkeypatch) -> list[subprocess.Popen]:
    """Every child started, in order."""
    started: list[subprocess.Popen] = []

    class Recorded(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(run_process.subprocess, "Popen", Recorded)
    return started


@pytest.fixture
def in_children(started, monkeypatch) -> list[subprocess.Popen]:
    """`started`, and parsing in this process fails the test (the children do not inherit the patch)."""

    def not_here(*args, **kwargs):
        raise AssertionError("parsed in the parent")

    monkeypatch.setattr(run_process, "parse_run", not_here)
    return started


def _same_run(here, there) -> None:
    assert_frame_equal(there.frame, here.frame)
    assert there.frame.n_chunks() == here.frame.n_chunks()  # one chunk a slice parsed, as here
    assert (there.meta, there.warnings, there.source_format, there.path) == (here.meta, here.warnings, here.source_format, here.path)


@pytest.mark.parametrize("detail", [False, True])
def test_a_run_parsed_in_a_child_equals_the_run_parsed_here(tmp_path, write_jsonl, in_children, detail):
    path = _run_file(tmp_path / "a.jsonl", 300, write_jsonl, long_passage=True)
    processes = ProcessParse()
    there = load_run(path, detail=detail, parse=processes)
    here = load_run(path, detail=detail)
    _same_run(here, there)
    assert here.warnings and "a whole document?" in here.warnings[0].message  # a warning crossed, file and line intact
    assert len(in_children) == 1 and in_children[0].returncode == 0 and processes.notes == []


def test_metadata_that_json_alone_can_carry_crosses_from_a_child_unchanged(tmp_path, write_jsonl, in_children):
    # The answer crosses as JSON: a NaN, an integer past 64 bits, nested values, phrases and
    # a non-ASCII name come back as the parse here reads them, and the metadata type is the same.
    meta = {**META, "name": "système é", "fallback_phrases": ["Je ne trouve pas cette information"],
            "budget": float("nan"), "seed": 10**40, "nested": {"a": [1, 2.5, None, True], "b": "ü"}}
    path = write_jsonl(tmp_path / "a.jsonl", meta, [_record(i) for i in range(40)])
    there = load_run(path, detail=False, parse=ProcessParse())
    here = load_run(path, detail=False)
    assert type(there.meta) is type(here.meta)
    assert repr(there.meta) == repr(here.meta)  # NaN equals nothing, its repr does
    assert there.meta.fallback_phrases == ("Je ne trouve pas cette information",)
    assert there.meta.extra["seed"] == 10**40 and math.isnan(there.meta.extra["budget"])
    assert len(in_children) == 1 and in_children[0].returncode == 0


def test_a_bad_line_in_a_childs_file_gives_the_message_it_gives_here(tmp_path, write_jsonl, in_children):
    path = _run_file(tmp_path / "a.jsonl", 50, write_jsonl)
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[7] = lines[7].replace('"answer": "Réponse 6."', '"answer": 12')
    lines[20] = "{not json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as there:
        load_run(path, detail=False, parse=ProcessParse())
    with pytest.raises(InputError) as here:
        load_run(path, detail=False)
    assert there.value.problems == here.value.problems
    assert [(p.line, p.field) for p in there.value.problems] == [(21, None), (8, "answer")]
    assert str(there.value) == str(here.value)


def test_an_entry_written_by_a_child_is_reopened_with_its_texts(tmp_path, write_jsonl, in_children, monkeypatch):
    path = _run_file(tmp_path / "a.jsonl", 200, write_jsonl)
    cache = RunCache.default()
    there = load_run(path, detail=True, cache=cache, parse=ProcessParse())
    assert len(in_children) == 1 and cache.notes == []
    assert len(cache.entries()) == 1 and cache.unfinished() == []
    here = load_run(path, detail=True, cache=RunCache(tmp_path / "another-cache"))
    assert there.texts is not None and type(there.texts) is type(here.texts)
    assert [there.texts_of(f"q{i:05d}") for i in (0, 42, 199)] == [here.texts_of(f"q{i:05d}") for i in (0, 42, 199)]
    parsed: list[Path] = []
    monkeypatch.setattr(runs, "_load", lambda path, *args: parsed.append(path))
    reopened = load_run(path, detail=True, cache=RunCache.default())
    assert parsed == []  # served by the entry the child wrote
    assert_frame_equal(reopened.frame, there.frame)
    assert reopened.texts_of("q00042") == there.texts_of("q00042")


def _children_of_this_process() -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


def _open_descriptors() -> int:
    return len(os.listdir(f"/proc/{os.getpid()}/fd"))


def _kill_when_building(started: list[subprocess.Popen], cache_folder: Path, sig: int) -> threading.Thread:
    """Send `sig` to the first child as soon as its cache entry is being built (mid-load)."""

    def watch() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if started and any(cache_folder.glob(f".tmp-{started[0].pid}-*")):
                started[0].send_signal(sig)
                return
            time.sleep(0.002)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts children and descriptors through /proc")
def test_a_child_killed_mid_load_leaves_its_run_parsed_here_and_nothing_behind(tmp_path, write_jsonl, monkeypatch, private_run_cache, started):
    path = _run_file(tmp_path / "a.jsonl", 20_000, write_jsonl)
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    here = load_run(path, detail=False)  # first: what a first load opens for good is not counted below
    descriptors = _open_descriptors()
    cache = RunCache.default()
    processes = ProcessParse()
    killer = _kill_when_building(started, private_run_cache, signal.SIGKILL)
    run = load_run(path, detail=False, cache=cache, parse=processes)
    killer.join()
    assert started[0].returncode == -signal.SIGKILL
    assert processes.notes == [f"{path}: its process was killed by SIGKILL (often for lack of memory): parsed in the main process instead"]
    _same_run(here, run)
    assert len(cache.entries()) == 1  # the parse here wrote the entry
    assert [p.name for p in private_run_cache.iterdir()] == [cache.entries()[0].folder.name]  # the child's build is gone
    assert _children_of_this_process() == set() and _open_descriptors() == descriptors
    assert list((tmp_path / "tmp").iterdir()) == []


def test_ctrl_c_in_a_child_stops_the_load_and_leaves_no_entry_behind(tmp_path, write_jsonl, private_run_cache, started):
    path = _run_file(tmp_path / "a.jsonl", 20_000, write_jsonl)
    killer = _kill_when_building(started, private_run_cache, signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):
        load_run(path, detail=False, cache=RunCache.default(), parse=ProcessParse())
    killer.join()
    assert started[0].returncode == -signal.SIGINT
    assert list(private_run_cache.iterdir()) == []
    assert _children_of_this_process() == set()


def test_a_child_whose_parent_is_gone_stops(tmp_path, write_jsonl, private_run_cache):
    """The parent killed outright (no cleanup of its own): its child sees its stdin close,
    removes its unfinished entry and ends."""
    path = _run_file(tmp_path / "a.jsonl", 40_000, write_jsonl)
    parent = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, subprocess\nfrom ragtui.core.loading import run_process\n"
            "from ragtui.core.loading.run_cache import RunCache\nfrom ragtui.core.loading.runs import load_run\n"
            "class Told(subprocess.Popen):\n    def __init__(self, *a, **k):\n        super().__init__(*a, **k)\n"
            "        print(self.pid, flush=True)\nrun_process.subprocess.Popen = Told\n"
            f"load_run({str(path)!r}, detail=False, cache=RunCache.default(), parse=run_process.ProcessParse())\n"
        )],
        stdout=subprocess.PIPE,
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    deadline = time.monotonic() + 60
    while not any(private_run_cache.glob(f".tmp-{child}-*")) and time.monotonic() < deadline:
        time.sleep(0.002)
    parent.kill()
    parent.wait()
    parent.stdout.close()
    deadline = time.monotonic() + 30
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # reaped by init once it ends
    assert not Path(f"/proc/{child}").exists()
    assert list(private_run_cache.iterdir()) == []


def test_two_large_native_runs_are_worth_processes_and_nothing_else_is(tmp_path, write_jsonl):
    a = _run_file(tmp_path / "a.jsonl", 20, write_jsonl)
    b = _run_file(tmp_path / "b.ndjson", 20, write_jsonl)
    size = min(a.stat().st_size, b.stat().st_size)
    assert worth_processes((a, b), size)
    assert not worth_processes((a, b), size + 1)  # the smaller one is under the threshold
    assert not worth_processes((a, None), 0)  # one run
    assert not worth_processes((a, RemoteLocation("https://example.org/b.jsonl")), 0)
    parquet = tmp_path / "b.parquet"
    parquet.write_bytes(b.read_bytes())
    assert not worth_processes((a, parquet), 0)
    fifo = tmp_path / "b.jsonl.fifo"
    os.mkfifo(fifo)
    named = tmp_path / "fifo.jsonl"
    named.symlink_to(fifo)
    assert not worth_processes((a, named), 0)


def test_a_comparison_opened_with_processes_equals_the_one_opened_in_threads(tmp_path, write_jsonl, monkeypatch):
    a = _run_file(tmp_path / "a.jsonl", 400, write_jsonl, long_passage=True)
    b = write_jsonl(tmp_path / "b.jsonl", {**META, "name": "candidate"}, [_record(i) for i in range(5, 405)])
    gold = write_jsonl(tmp_path / "gold.jsonl", None, [
        {key: _record(i)[key] for key in ("id", "question", "category", "gold_passages")} for i in range(410)
    ])
    inputs = Inputs(a=a, b=b, gold=gold, detail=False, cache=False)
    parsed_apart: list = []
    original = run_process.parse_in_child
    monkeypatch.setattr(run_process, "parse_in_child", lambda *args: parsed_apart.append(args[0]) or original(*args))
    there = load_comparison(inputs, intervals=False, processes_from=0)
    assert sorted(parsed_apart) == [a, b]
    here = load_comparison(inputs, intervals=False)
    assert len(parsed_apart) == 2  # the small runs were read in this process
    assert there.warnings == here.warnings and there.warnings
    for side in ("a", "b"):
        assert_frame_equal(getattr(there, side).questions, getattr(here, side).questions)
    assert_frame_equal(there.status, here.status)
    assert there.metrics == here.metrics and there.runs == here.runs


def test_a_child_that_cannot_start_leaves_both_runs_parsed_here_and_the_comparison_says_so(tmp_path, write_jsonl, monkeypatch):
    a = _run_file(tmp_path / "a.jsonl", 30, write_jsonl)
    b = write_jsonl(tmp_path / "b.jsonl", {**META, "name": "candidate"}, [_record(i) for i in range(30)])
    inputs = Inputs(a=a, b=b, detail=False, cache=False)
    here = load_comparison(inputs, intervals=False)
    monkeypatch.setattr(run_process.sys, "executable", str(tmp_path / "no-such-python"))
    there = load_comparison(inputs, intervals=False, processes_from=0)
    said = [warning for warning in there.warnings if warning not in here.warnings]
    assert sorted(said) == [
        f"{path}: cannot start a process to parse it (No such file or directory): parsed in the main process instead" for path in (a, b)
    ]
    assert_frame_equal(there.a.questions, here.a.questions)
    assert_frame_equal(there.status, here.status)


def test_a_child_runs_numpys_blas_on_one_thread_unless_the_user_chose(monkeypatch):
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    assert run_process._child_environment()["OPENBLAS_NUM_THREADS"] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    assert run_process._child_environment()["OPENBLAS_NUM_THREADS"] == "3"
