"""The run cache (loading/run_cache.py): a run parsed once reopens from Parquet, a changed
file is never served from a stale entry, and the cache stays under its size limit."""

from __future__ import annotations

import os
import stat

import pytest
import yaml
from polars.testing import assert_frame_equal

from ragtui.core.loading import run_cache, runs
from ragtui.core.loading.run_cache import RunCache, cache_root, parse_limit
from ragtui.core.loading.runs import load_run
from tests.core.test_loading import _without_nulls

META = {"name": "baseline", "judge_model": "claude-sonnet-4", "k": 5}


def _record(i: int, answer: str = "Réponse.") -> dict:
    return {
        "id": f"q{i:02d}",
        "question": f"Question {i} ?",
        "category": "procedurale",
        "gold_passages": [f"p{i}"],
        "retrieved": [{"id": f"p{i}", "text": f"Passage {i} texte.", "score": 0.9}, {"id": "x", "text": "Autre.", "score": 0.1}],
        "answer": answer,
        "judge": {"faithfulness": {"sentences": [{"text": answer, "attested": True, "evidence": [f"p{i}"], "reason": "dit"}]},
                  "utility": {"score": 4, "reason": "utile"}},
    }


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The files parsed from scratch (not reopened from the cache), in order."""
    parsed: list[str] = []
    original = runs._load

    def counting(request, *args, **kwargs):
        parsed.append(request.path.name)
        return original(request, *args, **kwargs)

    monkeypatch.setattr(runs, "_load", counting)
    return parsed


@pytest.fixture
def cache(private_run_cache) -> RunCache:
    return RunCache.default()


def _texts_of_every_question(run) -> list[dict]:
    """Each question's texts, its raw judge and human JSON as the objects they hold: the
    exact path keeps the record's own text of them, the fast path polars' encoding (the
    question view only shows them decoded)."""
    import json

    from ragtui.core.loading.schema import TEXT_COLUMNS

    def decoded(texts: dict) -> dict:
        return {**texts, **{name: _without_nulls(json.loads(texts[name])) if texts[name] else None for name in ("judge_json", "human_json")}}

    return [decoded(run.texts_of(qid) if run.texts is not None else {c: row[c] for c in TEXT_COLUMNS})
            for qid, row in zip(run.frame.get_column("id"), run.frame.iter_rows(named=True), strict=True)]


def _parquet_run(tmp_path, count: int):
    """A Parquet run of `count` questions: its texts go to the entry's own text files."""
    import json

    import polars as pl

    path = tmp_path / "a.parquet"
    pl.DataFrame([_record(i, f"Réponse {i}.") for i in range(count)], strict=False).write_parquet(
        path, metadata={"ragtui.run": json.dumps(META)}
    )
    return path


def test_second_load_reopens_the_cache_with_the_same_run(tmp_path, write_jsonl, cache, parses):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(30)])
    fresh = load_run(path)
    first = load_run(path, cache=cache)
    again = load_run(path, cache=cache)
    assert parses == ["a.jsonl", "a.jsonl"]  # the uncached load and the first cached one; not the third
    assert_frame_equal(again.frame, load_run(path, detail=False).frame)  # lean in memory…
    assert _texts_of_every_question(again) == _texts_of_every_question(first) == _texts_of_every_question(fresh)  # …texts on demand
    assert again.meta == fresh.meta == first.meta
    assert again.warnings == fresh.warnings
    assert again.source_format == "ragtui" and again.path == path


def test_a_run_smaller_than_the_threshold_is_parsed_at_each_open_and_never_cached(tmp_path, write_jsonl, cache, parses, monkeypatch):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(30)])
    monkeypatch.setattr(run_cache, "CACHED_FROM_BYTES", path.stat().st_size + 1)
    first = load_run(path, cache=cache)
    again = load_run(path, cache=cache)
    assert parses == ["a.jsonl", "a.jsonl"]
    assert not cache.folder.exists()  # nothing written, not even the folder
    assert cache.notes == []  # not a failure: nothing to say in every view
    assert _texts_of_every_question(again) == _texts_of_every_question(first) == _texts_of_every_question(load_run(path))


def test_a_run_of_exactly_the_threshold_is_cached(tmp_path, write_jsonl, cache, parses, monkeypatch):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(30)])
    monkeypatch.setattr(run_cache, "CACHED_FROM_BYTES", path.stat().st_size)
    load_run(path, cache=cache)
    load_run(path, cache=cache)
    assert parses == ["a.jsonl"]
    assert len(cache.entries()) == 1


def test_a_gold_set_smaller_than_the_threshold_is_read_from_its_file_and_never_cached(tmp_path, write_jsonl, cache, monkeypatch):
    from ragtui.core.loading.gold import load_gold
    from tests.core.test_gold_cache import gold_file, question

    path = gold_file(tmp_path, write_jsonl, [question(i) for i in range(4)])
    monkeypatch.setattr(run_cache, "CACHED_FROM_BYTES", path.stat().st_size + 1)
    assert load_gold(path, cache).frame.height == load_gold(path, cache).frame.height == 4
    assert not cache.folder.exists()


def test_the_bundled_samples_runs_are_under_the_threshold_and_never_cached(cache_threshold, cache, parses):
    from ragtui.cli.tui import sample_inputs

    sample = sample_inputs()
    assert cache_threshold == 1_000_000
    for _ in range(2):
        load_run(sample["a"], cache=cache)
    assert parses == [sample["a"].name] * 2
    assert not cache.folder.exists()


def test_texts_read_in_any_order_across_kept_row_groups_are_each_questions_own(tmp_path, cache, monkeypatch):
    monkeypatch.setattr(run_cache, "TEXT_ROW_GROUP", 4)  # 40 questions: ten groups, two kept at a time
    opened = load_run(_parquet_run(tmp_path, 40), cache=cache)
    for i in (0, 3, 1, 30, 5, 31, 2, 39, 4, 0, 38, 17):  # same group, other groups, back to an evicted one
        texts = opened.texts_of(f"q{i:02d}")
        assert texts["judge_sentences"][0]["text"] == f"Réponse {i}." and texts["retrieved_texts"][0] == f"Passage {i} texte."
    assert len(opened.texts._groups) == 2


def test_app_rows_hold_no_text_in_memory_and_the_question_row_has_them_all(tmp_path, write_jsonl, cache):
    from ragtui.core.loading.config import Config
    from ragtui.core.measuring.evaluate import evaluate

    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(10)])
    evaluation = evaluate(load_run(path, cache=cache), None, Config())
    assert evaluation.questions.get_column("retrieved_texts").list.drop_nulls().list.len().sum() == 0
    assert evaluation.question("q04")["retrieved_texts"] == ["Passage 4 texte.", "Autre."]
    assert evaluation.question("q04")["judge_utility_reason"] == "utile"


def test_texts_of_a_cleared_entry_say_why_they_are_missing(tmp_path, cache):
    from ragtui.core.loading.config import Config
    from ragtui.core.measuring.evaluate import evaluate

    evaluation = evaluate(load_run(_parquet_run(tmp_path, 10), cache=cache), None, Config())
    cache.clear()
    row = evaluation.question("q04")
    assert row["retrieved_texts"] == [None, None] and row["judge_sentences"][0]["attested"] is True  # the lean row still measures
    assert row["texts_error"].startswith("the texts of this run cannot be read again")


def test_headless_load_from_the_cache_needs_no_parse(tmp_path, write_jsonl, cache, parses):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(30)])
    load_run(path, cache=cache)
    lean = load_run(path, detail=False, cache=cache)
    assert parses == ["a.jsonl"]
    assert_frame_equal(lean.frame, load_run(path, detail=False).frame)


def test_touched_file_is_parsed_again(tmp_path, write_jsonl, cache, parses):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(10)])
    load_run(path, cache=cache)
    later = path.stat().st_mtime_ns + 5_000_000_000
    os.utime(path, ns=(later, later))
    load_run(path, cache=cache)
    assert parses == ["a.jsonl", "a.jsonl"]


def test_truncated_file_is_never_read_from_the_stale_entry(tmp_path, write_jsonl, cache):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(10)])
    assert load_run(path, cache=cache).frame.height == 10
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    with path.open("r+", encoding="utf-8") as handle:  # in place: same inode
        handle.truncate(sum(len(line.encode()) for line in lines[:5]))
    assert load_run(path, cache=cache).frame.height == 4  # the metadata line and 4 records


def test_same_size_rewrite_with_the_old_times_restored_is_never_served_stale(tmp_path, write_jsonl, cache):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i, "Oui.") for i in range(10)])
    times = path.stat()
    load_run(path, cache=cache)
    write_jsonl(path, META, [_record(i, "Non.") for i in range(10)])  # same length, other words
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))  # as `rsync -t` or `touch -r` would
    assert path.stat().st_size == times.st_size
    assert load_run(path, cache=cache).frame.get_column("answer").unique().to_list() == ["Non."]


def test_rewrite_that_keeps_every_stat_field_is_caught_by_the_content_hash(tmp_path, write_jsonl, cache, monkeypatch):
    # Within one clock tick an in-place rewrite can keep size, mtime and ctime: only the bytes
    # tell them apart — the sampled blocks of the key, which are the whole of a small file.
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i, "Oui.") for i in range(10)])
    identity = run_cache.file_identity(path)
    load_run(path, cache=cache)
    write_jsonl(path, META, [_record(i, "Non.") for i in range(10)])
    monkeypatch.setattr(run_cache, "file_identity", lambda _path: identity)
    assert load_run(path, cache=cache).frame.get_column("answer").unique().to_list() == ["Non."]


def test_cache_lives_in_xdg_cache_home_else_in_dot_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_root() == tmp_path / "xdg" / "ragtui"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # invalid per the XDG spec: ignored
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_root() == tmp_path / "home" / ".cache" / "ragtui"


def test_limit_is_five_gigabytes_unless_the_environment_sets_one(monkeypatch):
    assert RunCache.default().limit == 5_000_000_000
    monkeypatch.setenv("RAGTUI_CACHE_LIMIT", "800MB")
    assert RunCache.default().limit == 800_000_000
    assert parse_limit("2 GB") == 2_000_000_000 and parse_limit("1500") == 1500
    with pytest.raises(ValueError):
        parse_limit("lots")


def test_cache_never_grows_past_its_limit_least_recently_used_first(tmp_path, write_jsonl, private_run_cache):
    paths = [write_jsonl(tmp_path / f"{name}.jsonl", META, [_record(i) for i in range(40)]) for name in "abc"]
    load_run(paths[0], cache=RunCache.default())
    size = RunCache.default().entries()[0].size
    cache = RunCache(private_run_cache, limit=int(size * 2.5))  # room for two entries
    load_run(paths[1], cache=cache)
    load_run(paths[0], cache=cache)  # a is now used more recently than b
    load_run(paths[2], cache=cache)
    assert sorted(info.source for info in cache.entries()) == [str(paths[0].resolve()), str(paths[2].resolve())]
    assert sum(info.size for info in cache.entries()) <= cache.limit
    assert cache.notes == []


def test_run_larger_than_the_limit_is_not_kept_and_says_so(tmp_path, write_jsonl, private_run_cache):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(40)])
    cache = RunCache(private_run_cache, limit=1000)
    opened = load_run(path, cache=cache)
    assert opened.frame.height == 40 and opened.texts is None  # the texts are in memory instead
    assert opened.frame.row(2, named=True)["retrieved_texts"] == ["Passage 2 texte.", "Autre."]
    assert cache.entries() == []
    assert cache.notes == [f"{path}: not kept in the run cache (the run alone is larger than the cache limit (1,000 bytes)): "
                           "the next open parses the file again"]


def test_unwritable_cache_folder_never_stops_a_load_and_says_so(tmp_path, write_jsonl):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("", encoding="utf-8")
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(5)])
    cache = RunCache(blocker / "runs")
    opened = load_run(path, cache=cache)
    assert opened.frame.height == 5 and opened.frame.row(0, named=True)["judge_utility_reason"] == "utile"
    assert len(cache.notes) == 1 and "not kept in the run cache (cannot write" in cache.notes[0]


def test_cache_files_and_folders_follow_the_umask(tmp_path, write_jsonl, cache):
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(5)])
    previous = os.umask(0o027)
    try:
        load_run(path, cache=cache)
    finally:
        os.umask(previous)
    folder = cache.entries()[0].folder
    assert stat.S_IMODE(folder.stat().st_mode) == 0o750
    assert {stat.S_IMODE(part.stat().st_mode) for part in folder.iterdir()} == {0o640}


def test_failed_load_leaves_no_entry_and_no_temporary_folder(tmp_path, cache):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"id": "q1", "retrieved": 3}\n', encoding="utf-8")
    with pytest.raises(Exception, match="retrieved"):
        load_run(path, cache=cache)
    assert not cache.folder.exists() or list(cache.folder.iterdir()) == []


def test_yaml_run_read_by_the_exact_path_reopens_identically(tmp_path, cache, parses):
    path = tmp_path / "a.yaml"
    path.write_text(yaml.safe_dump({"run": META, "results": [_record(i) for i in range(6)]}, allow_unicode=True), encoding="utf-8")
    fresh = load_run(path)
    load_run(path, cache=cache)
    again = load_run(path, cache=cache)
    assert parses == ["a.yaml", "a.yaml"]
    assert_frame_equal(again.frame, load_run(path, detail=False).frame)
    assert _texts_of_every_question(again) == _texts_of_every_question(fresh)
    assert again.meta == fresh.meta


def test_clear_removes_every_entry_and_reports_what_it_freed(tmp_path, write_jsonl, cache):
    for name in "ab":
        load_run(write_jsonl(tmp_path / f"{name}.jsonl", META, [_record(i) for i in range(5)]), cache=cache)
    sizes = sum(info.size for info in cache.entries())
    assert cache.clear() == (2, sizes, [])
    assert cache.entries() == []


def test_peer_tool_file_gets_one_entry_per_gold_set_it_is_matched_to(cache, parses):
    from pathlib import Path

    ragas = Path(__file__).resolve().parents[1] / "importers" / "fixtures" / "ragas_pair_a.jsonl"
    load_run(ragas, cache=cache)
    load_run(ragas, cache=cache)
    load_run(ragas, gold_questions={"anything": "q1"}, cache=cache)  # another gold set may name other ids
    assert parses == ["ragas_pair_a.jsonl", "ragas_pair_a.jsonl"]
    assert len(cache.entries()) == 2


def test_first_open_records_the_files_digest_from_the_parse_without_reading_it_twice(tmp_path, write_jsonl, cache, monkeypatch):
    import json
    import zlib

    path = write_jsonl(tmp_path / "a.jsonl", {"name": "a"}, [_record(i) for i in range(5)])
    monkeypatch.setattr(run_cache, "file_check", lambda _: pytest.fail("the file was read again for its check"))
    load_run(path, cache=cache)
    (manifest,) = cache.folder.glob("*/entry.json")
    assert json.loads(manifest.read_text(encoding="utf-8"))["crc32"] == f"{zlib.crc32(path.read_bytes()):08x}"


def test_the_whole_file_check_is_the_crc32_of_its_bytes_whatever_their_size(tmp_path):
    import zlib

    for size in (0, 1, (1 << 20) - 1, 1 << 20, 3 * (1 << 20) + 7):
        path = tmp_path / f"f{size}"
        data = bytes((i * 7 + size) % 251 for i in range(size))
        path.write_bytes(data)
        assert run_cache.file_check(path) == f"{zlib.crc32(data):08x}"
    with pytest.raises(OSError, match="not a regular file"):
        run_cache.file_check(tmp_path)


def test_a_parquet_run_larger_than_a_part_is_cached_in_parts_each_questions_texts_its_own(tmp_path, cache, monkeypatch):
    import json

    import polars as pl

    monkeypatch.setattr(run_cache, "PART_ROWS", 8)  # 30 questions: parts of 8, 8, 8 and 6 rows
    path = tmp_path / "a.parquet"
    records = [_record(i, f"Réponse {i}.") for i in range(30)]
    pl.DataFrame(records, strict=False).write_parquet(path, metadata={"ragtui.run": json.dumps(META)})
    opened = load_run(path, cache=cache)
    starts, rows = opened.texts.starts, opened.texts.rows
    assert [end - start for start, end in zip(starts, [*starts[1:], rows], strict=True)] == [8, 8, 8, 6]
    for i in (0, 7, 8, 15, 16, 29):  # either side of each part's edge
        texts = opened.texts_of(f"q{i:02d}")
        assert texts["judge_sentences"][0]["text"] == f"Réponse {i}." and texts["retrieved_texts"][0] == f"Passage {i} texte."
    assert _texts_of_every_question(load_run(path, cache=cache)) == _texts_of_every_question(load_run(path))


def test_the_read_ahead_hint_is_harmless_where_it_cannot_apply(tmp_path):
    import io
    import os

    from ragtui.core.loading.run_cache import read_through

    read_end, write_end = os.pipe()  # posix_fadvise refuses a pipe (ESPIPE)
    os.write(write_end, b"abc")
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        assert read_through(pipe) is pipe and pipe.read() == b"abc"
    memory = io.BytesIO(b"xyz")  # no file descriptor at all
    assert read_through(memory) is memory and memory.read() == b"xyz"
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"id": "q1"}\n')
    with read_through(path.open("rb")) as handle:
        assert handle.read() == b'{"id": "q1"}\n'
