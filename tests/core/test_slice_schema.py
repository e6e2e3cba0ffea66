"""A JSONL run parsed in slices, each with the schema of the slice before it (slice_schema.py),
gives the frame that inferring every slice gives — and infers only when a slice needs it."""

from __future__ import annotations

import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import ragtui.core.loading.fast_jsonl as fast_jsonl
from ragtui.core.loading.runs import check_run
from ragtui.core.loading.schema import RUN_SCHEMA
from ragtui.core.loading.slice_schema import count_lines, values_read

JSON_COLUMNS = ("judge_json", "human_json", "extra")
PLAIN_COLUMNS = [c for c in RUN_SCHEMA if c not in JSON_COLUMNS]


def _record(i: int, **fields: Any) -> dict[str, Any]:
    return {
        "id": f"q{i:03d}", "question": f"Question {i} ?", "category": "procedurale", "gold_passages": ["p1"],
        "retrieved": [{"id": "p1", "text": "Le texte.", "score": 0.5}, {"id": "p2", "text": "Autre.", "score": 0.25}],
        "answer": "Deux jours.",
        "judge": {"model": "m", "faithfulness": {"sentences": [{"text": "Deux jours.", "attested": True, "evidence": ["p1"],
                                                                "reason": "ok"}]},
                  "utility": {"score": 4, "reason": "bien"}, "error": None},
        "latency_ms": 1200, "tag": "t", "team_note": {"owner": "rh"},
        **fields,
    }


def _read(data: bytes, monkeypatch: pytest.MonkeyPatch, *, chunk: int, infer_every_slice: bool = False):
    monkeypatch.setattr(fast_jsonl, "CHUNK_BYTES", chunk)
    if infer_every_slice:  # what the reader did before: the oracle
        monkeypatch.setattr(fast_jsonl, "parse_slice", lambda piece, _: pl.read_ndjson(io.BytesIO(piece), infer_schema_length=None))
    try:
        return fast_jsonl.read_fast_stream(io.BytesIO(data))
    finally:
        monkeypatch.undo()


def _without_nulls(value: Any) -> Any:
    """A JSON value with its null members left out: a slice's schema may name a member a
    record does not have, which polars then writes as null."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _assert_same_rows(mine: pl.DataFrame, theirs: pl.DataFrame) -> None:
    assert_frame_equal(mine.select(PLAIN_COLUMNS), theirs.select(PLAIN_COLUMNS))
    for name in JSON_COLUMNS:
        values = (
            [_without_nulls(json.loads(text)) if text else {} for text in frame.get_column(name).to_list()]
            for frame in (mine, theirs)
        )
        assert next(values) == next(values), name


def _assert_same_frames(data: bytes, monkeypatch: pytest.MonkeyPatch, chunk: int) -> pl.DataFrame | None:
    reused = _read(data, monkeypatch, chunk=chunk)
    inferred = _read(data, monkeypatch, chunk=chunk, infer_every_slice=True)
    assert (reused is None) == (inferred is None)
    if reused is None or inferred is None:
        return None
    _assert_same_rows(reused[1], inferred[1])
    return reused[1]


def _lines(records: list[dict[str, Any]], separators: tuple[str, str] = (", ", ": ")) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False, separators=separators) + "\n" for r in records).encode()


def test_members_and_strings_are_counted_at_every_depth_and_nulls_are_not():
    frame = pl.read_ndjson(io.BytesIO(
        b'{"id": "a", "gold_passages": ["p1", "p2"], "judge": {"model": "m", "utility": {"score": 3}, "error": null},'
        b' "retrieved": [{"id": "p", "text": null}]}\n'
        b'{"id": "b", "judge": null, "retrieved": []}\n'
    ))
    # members — a: id, gold_passages, judge, model, utility, score, retrieved, retrieved[0].id = 8
    # (error and text are null); b: id, retrieved = 2 (gold_passages and judge are null)
    # strings — a: "a", "p1", "p2", "m", "p" = 5; b: "b" = 1
    assert values_read(frame) == (10, 6)


@pytest.mark.parametrize(
    "late",
    [
        {"late_note": {"owner": "rh", "n": 2}},  # an unknown top-level field: kept in `extra`
        {"judge": {"model": "m", "utility": {"score": 2}, "error": None, "latency": 3}},  # an unknown judge member
        {"expected_answer": "Trois jours."},  # a known field the first slices never had
        {"judge": {"error": "timeout"}},  # a judge error where the first slices' errors were all null
        {"human": {"utility": {"score": 5}}},  # human labels that start late in the file
        {"latency_ms": 12.5},  # a fraction where the first slices had whole numbers
        {"retrieved": [{"id": "p1", "text": "x", "score": 1, "rank": 1}]},  # an unknown passage member
        {"answer": 'Il a dit \\": oui\\" puis ": null \\\\'},  # the counted patterns inside a text
        {"tag": 7},  # numbers where the first slices had text
        {"team_note": {"owner": 42}},  # the same, nested
        {"team_note": {"owner": {"name": "rh"}}},  # an object where the first slices had text
        {"gold_passages": [3]},  # numbers in a list of strings (the exact path's to report)
    ],
)
def test_what_only_appears_after_the_first_slices_is_read_as_inferring_every_slice_reads_it(late, monkeypatch):
    # Records 28-39 span whole slices of ~4 records: a slice holds nothing but the late form.
    records = [_record(i, **(late if 28 <= i < 40 else {})) for i in range(48)]
    frame = _assert_same_frames(_lines(records), monkeypatch, chunk=2048)
    assert frame is None or frame.height == 48


def test_slices_that_hold_nothing_new_are_parsed_without_inferring_their_schema_again(monkeypatch):
    data = _lines([_record(i) for i in range(60)])
    inferred = []
    real = pl.read_ndjson

    def spy(source, **options):
        if options.get("infer_schema_length", 100) is None:
            inferred.append(1)
        return real(source, **options)

    monkeypatch.setattr(pl, "read_ndjson", spy)
    monkeypatch.setattr(fast_jsonl, "CHUNK_BYTES", 2048)
    result = fast_jsonl.read_fast_stream(io.BytesIO(data))
    slices = sum(1 for _ in fast_jsonl._slices(io.BytesIO(data), b""))
    assert result is not None and result[1].height == 60
    assert slices > 10 and len(inferred) == 1


_text = st.lists(st.sampled_from(list('ab é":\\{}[], nul') + ["null", '": null', '":', '\\"']), max_size=8).map("".join)
_number = st.one_of(st.integers(0, 5), st.floats(0, 1, allow_nan=False))
# Unknown members keep one type each: where a slice mixes types, polars' inference turns them
# all into text, as it did before schemas were reused (docs/decisions.md), and the exact path
# would not.
_unknown = st.fixed_dictionaries({}, optional={
    "note": st.one_of(st.none(), _text), "n": st.one_of(st.none(), st.integers(-5, 5)), "flag": st.one_of(st.none(), st.booleans()),
    "meta": st.one_of(st.none(), st.fixed_dictionaries({}, optional={"k": _text, "v": st.integers(0, 3)})),
})
_passage = st.fixed_dictionaries(
    {"id": st.sampled_from(["p1", "p2", "p3"])},
    optional={"text": st.one_of(st.none(), _text), "score": _number, "rank": st.integers(1, 3)},
)
_sentence = st.fixed_dictionaries({"attested": st.booleans()}, optional={
    "text": _text, "reason": _text, "evidence": st.lists(st.sampled_from(["p1", "p2"]), max_size=2)})
_verdict = st.fixed_dictionaries({}, optional={
    "model": st.one_of(st.none(), st.sampled_from(["m1", "m2"])),
    "error": st.one_of(st.none(), _text),
    "utility": st.fixed_dictionaries({"score": st.integers(1, 5)}, optional={"reason": _text}),
    "faithfulness": st.fixed_dictionaries({"sentences": st.lists(_sentence, max_size=2)}),
    "note": st.one_of(st.none(), _text),
})
_fields = st.fixed_dictionaries({}, optional={
    "question": _text, "answer": st.one_of(st.none(), _text), "category": st.sampled_from(["procedurale", "factuelle_courte"]),
    "gold_passages": st.lists(st.sampled_from(["p1", "p2"]), max_size=2), "retrieved": st.lists(_passage, max_size=3),
    "judge": st.one_of(st.none(), _verdict), "human": st.one_of(st.none(), _verdict),
    "latency_ms": st.one_of(st.none(), _number), "team": st.one_of(st.none(), _unknown),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_fields, min_size=1, max_size=30), st.sampled_from([(", ", ": "), (",", ":")]), st.integers(150, 900))
# A text holding `": null` once made up, in the counts, for the passage id a list the
# earlier slice typed Null lost.
@example(
    [{}, {}, {"question": "", "gold_passages": [], "retrieved": [{"id": "p1"}]}, {"question": '": null', "gold_passages": ["p1"]}],
    (", ", ": "),
    150,
)
def test_any_run_the_fast_path_reads_in_slices_gives_the_exact_paths_frame(fields, separators, chunk):
    data = _lines([{"id": f"q{i:03d}", **f} for i, f in enumerate(fields)], separators)
    with pytest.MonkeyPatch.context() as monkeypatch:
        fast = _read(data, monkeypatch, chunk=chunk)
    if fast is None:
        return  # the exact path reads it, and reports what it finds
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        path.write_bytes(data)
        exact, problems = check_run(path, "ragtui")
    assert exact is not None and not [p for p in problems if p.is_error]
    _assert_same_rows(fast[1], exact.frame)


@pytest.mark.parametrize(
    ("piece", "lines"),
    [(b'{"id": "q1"}\n', 1), (b'{"id": "q1"}\n{"id": "q2"}', 2), (b'{"id": "q1"}\n\n{"id": "q2"}\n', 3), (b"\n", 1), (b"", 0)],
)
@pytest.mark.parametrize("numpy_imported", [True, False])
def test_count_lines_counts_blank_lines_and_a_last_line_without_its_newline(piece, lines, numpy_imported, monkeypatch):
    if not numpy_imported:  # a process that has not imported numpy counts with bytes.count
        monkeypatch.delitem(sys.modules, "numpy")
    assert count_lines(piece) == lines
