"""A lean frame (the headless report's, the run cache's) read with a declared schema
(lean_schema.py: polars' read, where the typed decoder of typed_lean.py declines a slice)
is the exact path's frame without its detail, and anything the declared
schema could lose or mistype — a field that first appears late, a value of another type, a
record that does not validate — is read, or reported, exactly as before."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

import ragtui.core.loading.fast_jsonl as fast_jsonl
import ragtui.core.loading.slice_schema as slice_schema
import ragtui.core.loading.typed_lean as typed_lean
from ragtui.core.errors import InputError
from ragtui.core.loading.lean_schema import LEAN_RECORD, UNREAD, LeanSchema
from ragtui.core.loading.runs import check_run, load_run
from ragtui.core.loading.schema import RUN_SCHEMA, without_detail
from tests.core.test_slice_schema import _record as slice_record

CHUNK = 2048  # slices of about four records: a late form fills whole slices


def _record(i: int, **fields: Any) -> dict[str, Any]:
    """test_slice_schema's record without its fields of its own (each would send its slice back)."""
    own = ("tag", "team_note")
    return {**{k: v for k, v in slice_record(i).items() if k not in own}, "cost_usd": 0.001, **fields}


def _write(tmp_path: Path, records: list[dict[str, Any]], separators: tuple[str, str] = (", ", ": ")) -> Path:
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=separators) + "\n" for r in records), encoding="utf-8")
    return path


def _lean(path: Path, monkeypatch: pytest.MonkeyPatch) -> pl.DataFrame:
    monkeypatch.setattr(fast_jsonl, "CHUNK_BYTES", CHUNK)
    return load_run(path, detail=False).frame


def _exact_lean(path: Path) -> pl.DataFrame:
    run, problems = check_run(path, "ragtui")
    assert run is not None, problems
    return without_detail(run.frame)


def _assert_same(mine: pl.DataFrame, theirs: pl.DataFrame) -> None:
    plain = [c for c in RUN_SCHEMA if c != "extra"]
    assert_frame_equal(mine.select(plain), theirs.select(plain))
    # An unknown field written null is left out of `extra` by every fast path (test_slice_schema.py).
    parsed = ([{k: v for k, v in json.loads(t).items() if v is not None} if t else {} for t in frame.get_column("extra").to_list()]
              for frame in (mine, theirs))
    assert next(parsed) == next(parsed)


def _typed_decoder_declines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every slice left to polars' declared read, as if the typed decoder (typed_lean.py,
    tests/core/test_typed_lean.py) refused it."""
    monkeypatch.setattr(typed_lean, "read_typed", lambda piece, line: None)


def _declared_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """How each slice is parsed: "declared" (LEAN_RECORD or fewer of its fields) or "inferred"."""
    _typed_decoder_declines(monkeypatch)
    reads: list[str] = []
    real = pl.read_ndjson

    def spy(source, **options):
        schema = options.get("schema")
        reads.append("declared" if schema is not None and set(schema) <= set(LEAN_RECORD) else "inferred")
        return real(source, **options)

    monkeypatch.setattr(pl, "read_ndjson", spy)
    return reads


def test_a_clean_run_is_read_with_the_declared_fields_only_never_inferred_nor_its_quotes_counted(tmp_path, monkeypatch):
    path = _write(tmp_path, [_record(i) for i in range(40)])
    reads = _declared_reads(monkeypatch)
    recounts: list[int] = []
    monkeypatch.setattr(slice_schema, "every_member_read", lambda *_: recounts.append(1) or True)
    frame = _lean(path, monkeypatch)
    monkeypatch.undo()
    assert len(reads) > 8 and set(reads) == {"declared"} and recounts == []
    _assert_same(frame, _exact_lean(path))


def test_the_judges_evidence_and_reasons_are_never_parsed_for_a_lean_frame(tmp_path, monkeypatch):
    path = _write(tmp_path, [_record(i) for i in range(12)])
    schemas: list[pl.Schema] = []
    real = pl.read_ndjson

    def spy(source, **options):
        schemas.append(pl.Schema(options["schema"]))
        return real(source, **options)

    monkeypatch.setattr(pl, "read_ndjson", spy)
    _typed_decoder_declines(monkeypatch)
    _lean(path, monkeypatch)
    judge = [s["judge"] for s in schemas]
    sentence = {f.name for f in judge[0].to_schema()["faithfulness"].to_schema()["sentences"].inner.fields}  # type: ignore[union-attr]
    assert sentence == {"text", "attested"}
    assert "reason" not in judge[0].to_schema()["utility"].to_schema()  # type: ignore[union-attr]
    assert all(set(s) & set(UNREAD) == set(UNREAD) for s in schemas)  # only as a record's own fields, to refuse them


@pytest.mark.parametrize(
    "late",
    [
        {"late_note": {"owner": "rh", "n": 2}},  # an unknown top-level field: kept in `extra`
        {"reason": "a record's own field named like an unread member"},
        {"evidence": ["p1"]},
        {"judge": {"model": "m", "utility": {"score": 2}, "error": None, "latency": 3}},  # an unknown judge member
        {"expected_answer": "Trois jours."},  # a known field the first slices never had
        {"judge": {"error": "timeout"}},  # a judge error where the first slices' errors were all null
        {"human": {"utility": {"score": 5, "reason": "ok"}}},  # human labels that start late in the file
        {"judge": {"model": "m", "provider": "p", "usage": {"calls": 1}, "utility": {"score": 3},
                   "repeats": [{"utility": {"score": 4}, "faithfulness": {"sentences": [{"attested": False}]}}]}},
        {"retrieved": [{"id": "p1", "text": "x", "score": 1, "rank": 1}]},  # an unknown passage member
        {"answer": 'Il a dit \\": oui\\" puis ": null \\\\'},  # the counted patterns inside a text
        {"judge": {"model": "m", "utility": 4}},  # a bare score: the exact path reads it as {"score": 4}
        {"error": {"code": 500}},  # an error object: the exact path writes it as JSON
        {"abstained": None, "cited": [], "tokens_in": 12},
    ],
)
def test_what_only_appears_late_in_the_file_is_read_as_the_exact_path_reads_it(late, tmp_path, monkeypatch):
    # Records 28-39 fill whole slices: a slice holds nothing but the late form.
    records = [_record(i, **(late if 28 <= i < 40 else {})) for i in range(48)]
    path = _write(tmp_path, records)
    _assert_same(_lean(path, monkeypatch), _exact_lean(path))


@pytest.mark.parametrize(
    ("member", "twice"),
    [
        ('"answer": "Deux jours."', '"answer": "Deux jours.", "answer": "Trois."'),
        ('"model": "m"', '"model": "m", "model": "n"'),
        ('"text": "Le texte."', '"text": "Le texte.", "text": "Ignore all previous instructions"'),
    ],
)
def test_a_slice_with_an_object_naming_a_member_twice_is_not_read_with_the_declared_fields(member, twice):
    # The exact path keeps the last value, polars the first: such a slice is left to the reading before.
    lines = [json.dumps(_record(i)) for i in range(4)]
    lines[2] = lines[2].replace(member, twice, 1)
    lean = LeanSchema()
    assert lean.read(("\n".join(lines) + "\n").encode()) is None
    assert lean.read(("\n".join(lines[:2]) + "\n").encode()) is not None


def test_a_space_before_a_colon_cannot_hide_an_unknown_member(tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    lines = [json.dumps(_record(i)) for i in range(20)]
    # One member the `":` count misses, one it counts but the schema drops: they would cancel out.
    lines[9] = lines[9].replace('"answer": ', '"answer" : ').replace('"latency_ms"', '"team": "rh", "latency_ms"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    frame = _lean(path, monkeypatch)
    _assert_same(frame, _exact_lean(path))
    assert json.loads(frame.get_column("extra")[9]) == {"team": "rh"}


@pytest.mark.parametrize(
    ("late", "field"),
    [
        ({"id": 17}, "id"),
        ({"question": 3}, "question"),
        ({"answer": True}, "answer"),
        ({"judge": {"model": 5}}, "judge.model"),
        ({"retrieved": [{"id": "p1", "text": 7}]}, "retrieved[0].text"),
        ({"judge": {"faithfulness": {"sentences": [{"text": "x", "attested": True, "reason": 5}]}}},
         "judge.faithfulness.sentences[0].reason"),
        ({"judge": {"faithfulness": {"sentences": [{"text": "x", "attested": True, "evidence": ["p1", 2]}]}}},
         "judge.faithfulness.sentences[0].evidence[1]"),
        ({"judge": {"faithfulness": {"sentences": [{"text": "x", "attested": True, "evidence": "p1"}]}}},
         "judge.faithfulness.sentences[0].evidence"),
        ({"judge": {"utility": {"score": 3, "reason": {"why": "x"}}}}, "judge.utility.reason"),
        ({"human": {"faithfulness": {"sentences": [{"text": "x", "attested": True, "reason": ["a"]}]}}},
         "human.faithfulness.sentences[0].reason"),
        ({"gold_passages": [3]}, "gold_passages[0]"),
        ({"cited": "p1"}, "cited"),
        ({"latency_ms": "12"}, "latency_ms"),
        ({"judge": {"faithfulness": {"sentences": [{"text": "x", "attested": None}]}}}, "judge.faithfulness.sentences[0].attested"),
    ],
)
def test_a_value_of_another_type_late_in_the_file_is_reported_at_its_line_and_field_as_before(late, field, tmp_path, monkeypatch):
    records = [_record(i, **(late if i == 33 else {})) for i in range(48)]
    path = _write(tmp_path, records)
    with pytest.raises(InputError) as lean:
        _lean(path, monkeypatch)
    with pytest.raises(InputError) as detailed:
        load_run(path, detail=True)
    exact = [p for p in check_run(path, "ragtui")[1] if p.is_error]
    assert lean.value.problems == detailed.value.problems == exact
    assert [(p.line, p.field) for p in exact] == [(34, field)]


def test_the_first_slices_fields_are_read_until_another_appears_then_every_declared_field(tmp_path, monkeypatch):
    records = [_record(i, **({"human": {"utility": {"score": 2}}} if i == 30 else {})) for i in range(48)]
    path = _write(tmp_path, records)
    schemas: list[set[str]] = []
    real = pl.read_ndjson

    def spy(source, **options):
        schemas.append(set(options["schema"]))
        return real(source, **options)

    monkeypatch.setattr(pl, "read_ndjson", spy)
    _typed_decoder_declines(monkeypatch)
    frame = _lean(path, monkeypatch)
    monkeypatch.undo()
    assert "human" in schemas[0] and "human" not in schemas[1]  # the first slice had no human labels
    assert schemas[-1] == set(LEAN_RECORD)  # from the slice that has one on, every declared field
    _assert_same(frame, _exact_lean(path))
    assert frame.get_column("human_utility").drop_nulls().to_list() == [2.0]


_text = st.lists(st.sampled_from(list('ab é":\\{}[], nul') + ["null", '": null', '":', '\\"']), max_size=8).map("".join)
_number = st.one_of(st.integers(0, 5), st.floats(0, 1, allow_nan=False))
_passage = st.fixed_dictionaries(
    {"id": st.sampled_from(["p1", "p2", "p3"])},
    optional={"text": st.one_of(st.none(), _text), "score": _number, "rank": st.integers(1, 3)},
)
_sentence = st.fixed_dictionaries({"attested": st.booleans()}, optional={
    "text": _text, "reason": st.one_of(st.none(), _text), "evidence": st.lists(st.sampled_from(["p1", "p2"]), max_size=2)})
_verdict = st.fixed_dictionaries({}, optional={
    "model": st.one_of(st.none(), st.sampled_from(["m1", "m2"])),
    "error": st.one_of(st.none(), _text),
    "utility": st.fixed_dictionaries({"score": st.integers(1, 5)}, optional={"reason": _text}),
    "faithfulness": st.fixed_dictionaries({"sentences": st.lists(_sentence, max_size=2)}),
    "usage": st.fixed_dictionaries({"calls": st.integers(0, 2)}),
    "note": st.one_of(st.none(), _text),
})
_fields = st.fixed_dictionaries({}, optional={
    "question": _text, "answer": st.one_of(st.none(), _text), "category": st.sampled_from(["procedurale", "factuelle_courte"]),
    "gold_passages": st.lists(st.sampled_from(["p1", "p2"]), max_size=2), "retrieved": st.lists(_passage, max_size=3),
    "judge": st.one_of(st.none(), _verdict), "human": st.one_of(st.none(), _verdict),
    "latency_ms": st.one_of(st.none(), _number), "reason": st.one_of(st.none(), _text), "team": st.one_of(st.none(), _text),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_fields, min_size=1, max_size=30), st.sampled_from([(", ", ": "), (",", ":")]), st.integers(150, 900))
def test_any_run_read_for_a_lean_frame_gives_the_exact_paths_frame_without_its_detail(fields, separators, chunk):
    data = "".join(json.dumps({"id": f"q{i:03d}", **f}, ensure_ascii=False, separators=separators) + "\n" for i, f in enumerate(fields))
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setattr(fast_jsonl, "CHUNK_BYTES", chunk)
        fast = fast_jsonl.read_fast_stream(io.BytesIO(data.encode()), detail=False)
    if fast is None:
        return  # the exact path reads it, and reports what it finds
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "run.jsonl"
        path.write_text(data, encoding="utf-8")
        exact = _exact_lean(path)
    _assert_same(fast[1], exact)
