"""A JSONL run's texts read back from the run file by line offsets (loading/line_texts.py):
each question's own line, with or without a metadata line, a byte-order mark or a last
newline, never from a file that changed since it was opened."""

from __future__ import annotations

import os

import pytest

from ragtui.core.loading.run_cache import RunCache
from ragtui.core.loading.runs import load_run
from tests.core.test_run_cache import META, _record, _texts_of_every_question


@pytest.fixture
def cache(private_run_cache) -> RunCache:
    return RunCache.default()


def test_a_jsonl_runs_texts_are_read_from_each_records_own_line_of_the_run_file(tmp_path, write_jsonl, cache, monkeypatch):
    from ragtui.core.loading import fast_jsonl
    from ragtui.core.loading.line_texts import LineTexts

    monkeypatch.setattr(fast_jsonl, "CHUNK_BYTES", 2000)  # a few records a slice: many slices
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i, f"Réponse {i}.") for i in range(40)])
    opened = load_run(path, cache=cache)
    assert isinstance(opened.texts, LineTexts) and opened.texts.rows == 40
    (entry,) = cache.folder.iterdir()
    assert not list(entry.glob("texts-*"))  # the entry holds no copy of the texts
    assert opened.texts_of("q27")["judge_sentences"][0]["text"] == "Réponse 27."
    assert opened.texts_of("q27")["retrieved_texts"] == ["Passage 27 texte.", "Autre."]
    assert _texts_of_every_question(load_run(path, cache=cache)) == _texts_of_every_question(load_run(path))
    assert opened.texts_of("absent") is None


@pytest.mark.parametrize("polars_unsure", [False, True])
def test_a_whole_run_pass_reads_every_questions_texts_from_the_run_file_in_blocks(tmp_path, write_jsonl, cache, monkeypatch, polars_unsure):
    from ragtui.core.loading import fast_jsonl, line_texts

    monkeypatch.setattr(line_texts, "_READ_ROWS", 16)  # 40 questions: blocks of 16, 16 and 8
    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i, f"Réponse {i}.") for i in range(40)])
    opened = load_run(path, cache=cache)
    assert isinstance(opened.texts, line_texts.LineTexts)
    if polars_unsure:  # each block is then read record by record
        monkeypatch.setattr(fast_jsonl, "canonical_slice", lambda *_: None)
    blocks = list(opened.texts.frames())
    assert [(start, frame.height) for start, frame in blocks] == [(0, 16), (16, 16), (32, 8)]
    plain = ["retrieved_texts", "judge_sentences", "judge_utility_reason"]  # what the search reads
    read = [row for _, frame in blocks for row in frame.select(plain).iter_rows(named=True)]
    assert read == [{name: opened.texts_of(f"q{i:02d}")[name] for name in plain} for i in range(40)]


@pytest.mark.parametrize("first", ["meta", "record", "bom"])
def test_line_offsets_hold_with_or_without_a_metadata_line_a_byte_order_mark_or_a_last_newline(tmp_path, cache, first):
    import json

    records = [json.dumps(_record(i, f"Réponse {i} « é »."), ensure_ascii=False) for i in range(5)]
    lines = [json.dumps({"run": META}), *records] if first == "meta" else records
    text = ("\ufeff" if first == "bom" else "") + "\n".join(lines)  # no newline after the last line
    path = tmp_path / "a.jsonl"
    path.write_text(text, encoding="utf-8")
    opened = load_run(path, cache=cache)
    assert opened.texts is not None and opened.texts.rows == 5
    assert [opened.texts_of(f"q{i:02d}")["judge_sentences"][0]["text"] for i in range(5)] == [f"Réponse {i} « é »." for i in range(5)]


def test_a_jsonl_runs_texts_outlive_a_cleared_cache_but_never_come_from_a_changed_file(tmp_path, write_jsonl, cache):
    from ragtui.core.loading.config import Config
    from ragtui.core.measuring.evaluate import evaluate

    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i) for i in range(10)])
    evaluation = evaluate(load_run(path, cache=cache), None, Config())
    cache.clear()
    assert evaluation.question("q04")["retrieved_texts"] == ["Passage 4 texte.", "Autre."]
    with path.open("a", encoding="utf-8") as handle:  # the file grows under the app
        handle.write("\n")
    row = evaluation.question("q04")
    assert row["retrieved_texts"] == [None, None]
    assert row["texts_error"].startswith("the texts of this run cannot be read again") and "changed since it was opened" in row["texts_error"]


def test_a_line_that_no_longer_holds_its_question_is_never_shown_as_its_texts(tmp_path, write_jsonl, cache):
    records = [_record(i) for i in range(10)]
    path = write_jsonl(tmp_path / "a.jsonl", META, records)
    opened = load_run(path, cache=cache)
    # The same bytes but two records swapped (q03 and q04 are the same length), the file's times put back.
    times = path.stat()
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[4], lines[5] = lines[5], lines[4]
    path.write_text("".join(lines), encoding="utf-8")
    os.utime(path, ns=(times.st_atime_ns, times.st_mtime_ns))
    with pytest.raises(OSError, match="no longer the record it was"):
        opened.texts_of("q03")


@pytest.mark.parametrize(
    ("piece", "starts"),
    [(b'{"a"}\n{"b"}', [0, 6]), (b'{"a"}\n{"b"}\n', [0, 6]), (b'{"a"}', [0]), (b"\n", [0]), (b'{"a"}\n\n{"b"}\n', [0, 6, 7])],
)
def test_line_starts_count_every_line_blank_ones_included_from_the_slices_place_in_the_file(piece, starts):
    from ragtui.core.loading.fast_jsonl import line_starts

    assert line_starts(piece, 100).tolist() == [100 + start for start in starts]


def test_two_threads_reading_lines_at_once_each_get_their_own_questions_texts(tmp_path, write_jsonl, cache):
    # The question view reads a long row in a worker while the search index reads the run's
    # texts in another: each read opens the file for itself and the instance holds nothing
    # that changes.
    from concurrent.futures import ThreadPoolExecutor

    path = write_jsonl(tmp_path / "a.jsonl", META, [_record(i, f"Réponse {i}.") for i in range(40)])
    opened = load_run(path, cache=cache)
    ids = [f"q{i:02d}" for i in range(40)] * 5
    alone = [opened.texts_of(qid) for qid in ids]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(opened.texts_of, ids))
    assert together == alone
    assert [row["judge_sentences"][0]["text"] for row in together[:40]] == [f"Réponse {i}." for i in range(40)]
