"""A JSONL gold set kept in the run cache (loading/gold.py `_fast_gold`, run_cache.py
`RunCache.gold_entry`): read once by polars, then from the cache; keyed and checked as a
run's entry is; a gold set with problems is never kept and says them the same every time."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from ragtui.cli import main
from ragtui.core.errors import InputError
from ragtui.core.loading import fast_gold, run_cache
from ragtui.core.loading.gold import load_gold
from ragtui.core.loading.run_cache import GOLD_KIND, LEAN, RunCache

META = {"name": "r", "k": 5}


def question(i: int, passage: str | None = None) -> dict:
    return {"id": f"q{i}", "question": f"Question {i} ?", "category": "factuelle", "gold_passages": [passage or f"p{i}"]}


def answer(i: int) -> dict:
    return {
        "id": f"q{i}",
        "retrieved": [{"id": f"p{i}", "text": "Texte.", "score": 0.9}],
        "answer": "Réponse.",
        "judge": {"utility": {"score": 4}},
    }


@pytest.fixture
def cache(private_run_cache) -> RunCache:
    return RunCache.default()


@pytest.fixture
def reads(monkeypatch) -> list[int]:
    """The gold sets polars parsed (not taken from the cache): their sizes in bytes."""
    parsed: list[int] = []
    original = fast_gold.read_fast_gold

    def counting(data: bytes):
        parsed.append(len(data))
        return original(data)

    monkeypatch.setattr(fast_gold, "read_fast_gold", counting)
    return parsed


def gold_file(tmp_path: Path, write_jsonl, questions: list[dict]) -> Path:
    return write_jsonl(tmp_path / "gold.jsonl", None, questions)


def test_a_jsonl_gold_set_read_again_comes_from_the_cache_the_same_frame(tmp_path, write_jsonl, cache, reads):
    questions = [question(i) for i in range(4)]
    questions[1] |= {"tags": ["sigle", "tableau"], "document": "doc-1", "expected_answer": "Oui."}
    questions[2] |= {"tags": [], "gold_passages": []}
    path = gold_file(tmp_path, write_jsonl, questions)
    first = load_gold(path, cache)
    again = load_gold(path, cache)
    assert len(reads) == 1  # the second read is the cache's
    assert_frame_equal(again.frame, first.frame)
    assert_frame_equal(again.frame, load_gold(path).frame)  # and the one the file gives without the cache
    assert again.path == path and again.grades is None and not again.from_qrels
    assert cache.settle() == []  # the whole-file check made beside it found the same bytes


def test_the_cache_lists_the_gold_set_as_what_it_is(tmp_path, write_jsonl, cache, capsys):
    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(4)])
    load_gold(path, cache)
    (entry,) = cache.entries()
    assert entry.kind == GOLD_KIND and entry.source == str(path.resolve())
    assert main(["cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("0 run(s), 1 gold set(s), 0.")
    assert lines[3].endswith(f"{path.resolve()} (gold set)")  # after the line on small files
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().err.startswith("ragtui: removed 0 cached run(s), 1 gold set(s), 0.")
    assert cache.entries() == []


def test_a_gold_set_with_problems_is_never_kept_and_says_them_the_same_each_time(tmp_path, write_jsonl, cache):
    path = gold_file(tmp_path, write_jsonl, [question(1), {"id": "q2", "gold_passages": ["p2"]}, question(1)])
    said = []
    for _ in range(2):
        with pytest.raises(InputError) as raised:
            load_gold(path, cache)
        said.append([str(p) for p in raised.value.problems])
    with pytest.raises(InputError) as uncached:
        load_gold(path)
    assert said[0] == said[1] == [str(p) for p in uncached.value.problems]
    assert said[0] == [f"{path}:2: question: required, missing", f"{path}:3: id: duplicate id 'q1' (first on line 1)"]
    assert cache.entries() == []


def test_a_yaml_gold_set_is_not_kept(tmp_path, cache):
    path = tmp_path / "gold.yaml"
    path.write_text("questions:\n  - id: q1\n    question: Q ?\n    gold_passages: [p1]\n", encoding="utf-8")
    assert load_gold(path, cache).frame.height == 1
    assert cache.entries() == []


def test_a_changed_gold_set_is_read_again(tmp_path, write_jsonl, cache, reads):
    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(4)])
    load_gold(path, cache)
    gold_file(tmp_path, write_jsonl, [question(i, "other") for i in range(4)])
    assert load_gold(path, cache).frame["gold_passages"].to_list() == [["other"]] * 4
    assert len(reads) == 2


def _served(cache: RunCache, path: Path) -> bool:
    entry = cache.gold_entry(path)
    return entry is not None and entry.read_gold() is not None


def test_an_entry_that_is_not_the_one_its_key_names_is_never_served(tmp_path, write_jsonl, cache):
    one = write_jsonl(tmp_path / "one.jsonl", None, [question(i) for i in range(3)])
    two = write_jsonl(tmp_path / "two.jsonl", None, [question(i, "other") for i in range(3)])
    for path in (one, two):
        load_gold(path, cache)
    one_entry, two_entry = cache.gold_entry(one), cache.gold_entry(two)
    assert one_entry is not None and two_entry is not None and _served(cache, two)
    saved = (two_entry.folder / LEAN).read_bytes()
    shutil.copyfile(one_entry.folder / LEAN, two_entry.folder / LEAN)  # another gold set's frame under this key
    assert not _served(cache, two)
    (two_entry.folder / LEAN).write_bytes(saved[:-1])  # truncated
    assert not _served(cache, two)
    shutil.rmtree(two_entry.folder)
    os.rename(one_entry.folder, two_entry.folder)  # a whole entry under another key
    assert not _served(cache, two)
    assert load_gold(two, cache).frame["gold_passages"].to_list() == [["other"]] * 3


def test_a_run_entry_is_never_read_as_a_gold_set(tmp_path, write_jsonl, cache):
    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(3)])
    load_gold(path, cache)
    entry = cache.gold_entry(path)
    assert entry is not None and entry.read(path) is None


def test_gold_entry_files_follow_the_umask(tmp_path, write_jsonl, cache):
    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(3)])
    previous = os.umask(0o027)
    try:
        load_gold(path, cache)
    finally:
        os.umask(previous)
    folder = cache.entries()[0].folder
    assert stat.S_IMODE(folder.stat().st_mode) == 0o750
    assert {stat.S_IMODE(part.stat().st_mode) for part in folder.iterdir()} == {0o640}


def test_an_unwritable_cache_is_a_note_and_the_gold_set_still_loads(tmp_path, write_jsonl, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    cache = RunCache(blocker / "runs")
    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(3)])
    assert load_gold(path, cache).frame.height == 3
    (note,) = cache.notes
    assert note.startswith(f"{path}: gold set not kept in the run cache (") and note.endswith("the next open reads the file again")


def test_a_gold_set_rewritten_past_the_key_is_caught_beside_the_comparison_and_read_again(
    tmp_path, write_jsonl, cache, monkeypatch
):
    """Size, times and sampled blocks all kept: the gold entry is served, the whole-file
    check made beside the measures finds the change, and `load_comparison` reads it again."""
    from ragtui.core.session import Inputs, load_comparison

    run = write_jsonl(tmp_path / "run.jsonl", META, [answer(i) for i in range(3)])
    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(3)])
    first = load_comparison(Inputs(a=run, gold=path))
    assert first.a.questions["hit_at_k"].to_list() == [1.0, 1.0, 1.0]
    key = run_cache.file_identity(path)
    sample = run_cache.sampled_digest(path, key[2])
    gold_file(tmp_path, write_jsonl, [question(i, f"x{i}") for i in range(3)])  # same length, other gold passages
    real_identity, real_sample = run_cache.file_identity, run_cache.sampled_digest
    monkeypatch.setattr(run_cache, "file_identity", lambda p: key if p == path else real_identity(p))
    monkeypatch.setattr(run_cache, "sampled_digest", lambda p, size: sample if p == path else real_sample(p, size))
    again = load_comparison(Inputs(a=run, gold=path))
    assert again.a.questions["hit_at_k"].to_list() == [0.0, 0.0, 0.0]


def test_a_report_from_the_cached_gold_set_is_the_reports_from_the_file(tmp_path, write_jsonl, capsys, private_run_cache):
    run = write_jsonl(tmp_path / "run.jsonl", META, [answer(i) for i in range(3)])
    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(3)])
    outputs = []
    for flags in (["--no-cache"], [], []):
        assert main(["report", str(run), "--gold", str(path), "--format", "json", *flags]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert [info.kind for info in RunCache.default().entries()].count(GOLD_KIND) == 1
