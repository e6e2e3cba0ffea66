"""The run cache against a hostile or full disk: it serves an entry only for the key it
was written for, removes only what it wrote, and a full disk is a note, not a traceback."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl

from ragtui.cli import main
from ragtui.core.loading.run_cache import LEAN, RunCache
from ragtui.core.loading.runs import load_run

META = {"name": "r", "k": 5}


def record(i: int, utility: int) -> dict:
    return {
        "id": f"q{i}",
        "question": f"Question {i} ?",
        "gold_passages": [f"p{i}"],
        "retrieved": [{"id": f"p{i}", "text": "Texte.", "score": 0.9}],
        "answer": "Réponse.",
        "judge": {"utility": {"score": utility}},
    }


def two_cached_runs(tmp_path, write_jsonl, cache):
    low = write_jsonl(tmp_path / "low.jsonl", META, [record(i, 1) for i in range(3)])
    high = write_jsonl(tmp_path / "high.jsonl", META, [record(i, 4) for i in range(3)])
    for path in (low, high):
        load_run(path, cache=cache)
    return low, high


def test_another_runs_frame_copied_into_an_entry_is_never_served(tmp_path, write_jsonl, private_run_cache):
    cache = RunCache.default()
    low, high = two_cached_runs(tmp_path, write_jsonl, cache)
    low_entry, high_entry = cache.entry(low, "ragtui"), cache.entry(high, "ragtui")
    assert high_entry is not None and low_entry is not None
    shutil.copyfile(low_entry.folder / LEAN, high_entry.folder / LEAN)  # the low numbers under the high key
    again = load_run(high, cache=cache)
    assert again.frame["judge_utility"].to_list() == [4.0, 4.0, 4.0]
    assert high_entry.read(high) is None


def test_cache_clear_removes_its_entries_and_nothing_it_did_not_write(tmp_path, write_jsonl, private_run_cache, capsys):
    cache = RunCache.default()
    two_cached_runs(tmp_path, write_jsonl, cache)
    user = tmp_path / "user"
    (user / "photos").mkdir(parents=True)
    (user / "photos" / "cat.jpg").write_bytes(b"cat")
    (user / "notes.txt").write_text("mine", encoding="utf-8")
    runs = private_run_cache
    (runs / "linked").symlink_to(user)  # a symbolic link to a user's folder
    shutil.copytree(user, runs / "copied")  # a user's folder inside the cache folder
    (runs / "loose.txt").write_text("mine", encoding="utf-8")
    entry = next(folder for folder in runs.iterdir() if (folder / "entry.json").is_file() and not folder.is_symlink())
    (entry / "keep.me").write_text("mine", encoding="utf-8")  # a user's file put inside an entry

    assert main(["cache", "clear"]) == 0
    err = capsys.readouterr().err
    assert "removed 2 cached run(s)" in err
    assert (user / "photos" / "cat.jpg").read_bytes() == b"cat" and (user / "notes.txt").is_file()
    assert (runs / "linked").is_symlink() and (runs / "copied" / "photos" / "cat.jpg").is_file()
    assert (runs / "loose.txt").is_file()
    assert sorted(p.name for p in entry.iterdir()) == ["keep.me"]  # its own files gone, the user's kept
    for name in ("linked", "copied", "loose.txt", entry.name):
        assert f"ragtui: left {runs / name}: not written by the run cache" in err


def test_a_cache_folder_that_is_a_symlink_is_not_followed(tmp_path, private_run_cache, capsys):
    user = tmp_path / "user"
    user.mkdir()
    (user / "a.parquet").write_bytes(b"mine")
    private_run_cache.parent.mkdir(parents=True, exist_ok=True)
    private_run_cache.symlink_to(user)
    assert main(["cache", "clear"]) == 0
    assert (user / "a.parquet").read_bytes() == b"mine"
    assert f"left {private_run_cache}" in capsys.readouterr().err


def test_a_full_disk_is_a_note_and_leaves_no_temporary_folder(tmp_path, write_jsonl, private_run_cache, monkeypatch):
    path = write_jsonl(tmp_path / "run.jsonl", META, [record(i, 3) for i in range(3)])

    def disk_full(self, *args, **kwargs):
        raise pl.exceptions.ComputeError("failed to write: No space left on device (os error 28)")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", disk_full)
    cache = RunCache.default()
    run = load_run(path, cache=cache)
    assert run.frame.height == 3
    assert len(cache.notes) == 1 and "No space left on device" in cache.notes[0] and str(path) in cache.notes[0]
    assert [p.name for p in private_run_cache.iterdir()] == []


def test_a_build_left_by_an_ended_process_is_counted_then_swept(tmp_path, write_jsonl, private_run_cache, capsys):
    cache = RunCache.default()
    private_run_cache.mkdir(parents=True)
    dead = private_run_cache / ".tmp-999999999-abcdef"  # no such process
    dead.mkdir()
    (dead / ".ragtui-staging").write_bytes(b"")
    (dead / "texts-00000.parquet").write_bytes(b"half")
    alive = private_run_cache / f".tmp-{os.getpid()}-abcdef"
    alive.mkdir()
    (alive / ".ragtui-staging").write_bytes(b"")
    assert cache.unfinished() == [dead]
    assert main(["cache"]) == 0
    assert "1 unfinished entry of ended processes" in capsys.readouterr().out
    load_run(write_jsonl(tmp_path / "run.jsonl", META, [record(1, 3)]), cache=cache)
    assert not dead.exists() and alive.is_dir()


def test_an_empty_build_folder_of_an_ended_process_is_swept_and_a_foreign_one_kept(tmp_path, write_jsonl, private_run_cache):
    # A build is a folder made, then marked: a process killed in between leaves it empty.
    cache = RunCache.default()
    private_run_cache.mkdir(parents=True)
    empty = private_run_cache / ".tmp-999999999-0a0b0c"  # no such process
    empty.mkdir()
    foreign = private_run_cache / ".tmp-999999998-0a0b0c"  # not the cache's: something in it, no marker
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert cache.unfinished() == [empty]
    load_run(write_jsonl(tmp_path / "run.jsonl", META, [record(1, 3)]), cache=cache)
    assert not empty.exists() and (foreign / "notes.txt").read_text() == "mine"


def test_an_entry_written_now_carries_its_key(tmp_path, write_jsonl, private_run_cache):
    cache = RunCache.default()
    path = write_jsonl(tmp_path / "run.jsonl", META, [record(1, 3)])
    load_run(path, cache=cache)
    entry = cache.entry(path, "ragtui")
    assert entry is not None
    assert pl.read_parquet_metadata(Path(entry.folder) / LEAN)["ragtui.cache_key"] == entry.key


def _served(cache: RunCache, path: Path) -> bool:
    entry = cache.entry(path, "ragtui")
    return entry is not None and entry.read(path) is not None


def test_an_entry_folder_swapped_under_another_key_is_never_served(tmp_path, write_jsonl, private_run_cache):
    cache = RunCache.default()
    low, high = two_cached_runs(tmp_path, write_jsonl, cache)
    low_entry, high_entry = cache.entry(low, "ragtui"), cache.entry(high, "ragtui")
    assert low_entry is not None and high_entry is not None
    shutil.rmtree(high_entry.folder)
    os.rename(low_entry.folder, high_entry.folder)  # the low run's whole entry under the high run's key
    assert not _served(cache, high)
    assert load_run(high, cache=cache).frame["judge_utility"].to_list() == [4.0, 4.0, 4.0]


def test_a_truncated_entry_file_is_never_read(tmp_path, write_jsonl, private_run_cache):
    cache = RunCache.default()
    low, _ = two_cached_runs(tmp_path, write_jsonl, cache)
    entry = cache.entry(low, "ragtui")
    assert entry is not None and _served(cache, low)
    for name in (LEAN, "lines.npy"):
        saved = (entry.folder / name).read_bytes()
        (entry.folder / name).write_bytes(saved[: len(saved) - 1])  # one byte short
        assert not _served(cache, low), name
        (entry.folder / name).write_bytes(saved)
    assert _served(cache, low)


def test_a_reopen_reads_sampled_blocks_not_the_whole_file(tmp_path, write_jsonl, private_run_cache, monkeypatch):
    from ragtui.core.loading import run_cache

    monkeypatch.setattr(run_cache, "SAMPLE_BLOCK_BYTES", 64)
    cache = RunCache.default()
    path = write_jsonl(tmp_path / "run.jsonl", META, [record(i, 3) for i in range(200)])
    load_run(path, cache=cache)
    hashed: list[Path] = []
    monkeypatch.setattr(run_cache, "file_check", lambda source: hashed.append(source) or "not it")
    assert load_run(path, detail=False, cache=cache).frame.height == 200  # served before any whole-file hash
    assert cache.settle() == [path]  # then the whole file was hashed, beside the load, and did not match
    assert hashed == [path] and not _served(cache, path)


def test_a_change_in_a_sampled_block_is_a_new_key(tmp_path, write_jsonl, private_run_cache, monkeypatch):
    from ragtui.core.loading import run_cache

    monkeypatch.setattr(run_cache, "SAMPLE_BLOCK_BYTES", 64)
    path = write_jsonl(tmp_path / "run.jsonl", META, [record(i, 3) for i in range(200)])
    identity = run_cache.file_identity(path)
    before = run_cache.sampled_digest(path, identity[2])
    data = bytearray(path.read_bytes())
    data[-30:-29] = b"4" if data[-30:-29] != b"4" else b"5"  # inside the last block, sampled always
    path.write_bytes(bytes(data))
    assert run_cache.sampled_digest(path, identity[2]) != before


def test_a_rewrite_the_key_cannot_see_is_caught_in_the_background_and_the_comparison_parses_again(
    tmp_path, write_jsonl, private_run_cache, monkeypatch
):
    """Size, times and sampled blocks all kept: the entry is served, the whole-file hash made
    beside the measures finds the change, and `load_comparison` answers from a fresh parse."""
    from ragtui.core.loading import run_cache
    from ragtui.core.session import Inputs, load_comparison

    low = write_jsonl(tmp_path / "low.jsonl", META, [record(i, 1) for i in range(3)])
    high = write_jsonl(tmp_path / "high.jsonl", META, [record(i, 4) for i in range(3)])
    load_comparison(Inputs(a=low, b=high))
    keys = {path: run_cache.file_identity(path) for path in (low, high)}
    samples = {path: run_cache.sampled_digest(path, keys[path][2]) for path in (low, high)}
    write_jsonl(high, META, [record(i, 2) for i in range(3)])  # same length, other scores
    monkeypatch.setattr(run_cache, "file_identity", lambda path: keys[path])
    monkeypatch.setattr(run_cache, "sampled_digest", lambda path, size: samples[path])
    comparison = load_comparison(Inputs(a=low, b=high))
    assert comparison.b is not None
    assert comparison.b.run.frame["judge_utility"].to_list() == [2.0, 2.0, 2.0]
