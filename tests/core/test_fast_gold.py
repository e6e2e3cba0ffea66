"""The polars path for JSONL gold sets gives the exact path's frame, or steps aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.core.loading import gold as gold_module
from ragtui.core.loading.fast_gold import read_fast_gold
from ragtui.core.loading.gold import check_gold

CLEAN = [
    {"id": "q1", "question": "Combien de jours ?", "category": "factuelle_courte", "gold_passages": ["p1", "p2"], "expected_answer": "25"},
    {"id": "q2", "question": "Et le télétravail ?", "category": "sans_reponse", "gold_passages": [], "tags": ["acronyme", "tableau", "acronyme"]},
    {"id": "q3", "question": "Quel barème ?", "gold_passages": ["p9"], "document": "accord.pdf", "notes": "relu", "reviewed": True},
]


def _write(tmp_path: Path, records: list, name: str = "gold.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records), encoding="utf-8")
    return path


def _exact(path: Path, monkeypatch: pytest.MonkeyPatch):
    with monkeypatch.context() as patch:
        patch.setattr(gold_module, "_fast_gold", lambda _path, _cache=None: None)
        return check_gold(path)


def test_a_clean_gold_set_read_by_polars_is_the_exact_paths_frame(tmp_path, monkeypatch):
    path = _write(tmp_path, CLEAN)
    assert read_fast_gold(path.read_bytes()) is not None  # the fast path took it
    fast, fast_problems = check_gold(path)
    exact, exact_problems = _exact(path, monkeypatch)
    assert fast is not None and exact is not None
    assert fast.frame.equals(exact.frame) and fast.frame.schema == exact.frame.schema
    assert fast_problems == exact_problems == []
    assert fast.frame.get_column("tags").to_list() == [[], ["acronyme", "tableau"], []]  # each tag once, in order
    assert fast.frame.get_column("line").to_list() == [1, 2, 3]


@pytest.mark.parametrize(
    ("why", "text"),
    [
        ("a number where a text is expected", '{"id": "q1", "question": 5, "gold_passages": []}\n{"id": "q2", "question": "x", "gold_passages": []}\n'),
        ("a blank question", '{"id": "q1", "question": "  ", "gold_passages": []}\n'),
        ("a missing question", '{"id": "q1", "question": "a", "gold_passages": []}\n{"id": "q2", "gold_passages": []}\n'),
        ("no gold passages", '{"id": "q1", "question": "a"}\n'),
        ("a repeated id", '{"id": "q1", "question": "a", "gold_passages": []}\n{"id": "q1", "question": "b", "gold_passages": []}\n'),
        ("a blank line", '{"id": "q1", "question": "a", "gold_passages": []}\n\n{"id": "q2", "question": "b", "gold_passages": []}\n'),
        ("an alias key", '{"id": "q1", "question": "a", "passages_verite": []}\n'),
        ("a null gold passage", '{"id": "q1", "question": "a", "gold_passages": ["p1", null]}\n'),
        ("an escaped surrogate", '{"id": "q1", "question": "\\ud800", "gold_passages": []}\n'),
        ("a malformed line", '{"id": "q1", "question": "a", "gold_passages": []\n'),
        ("a carriage return", '{"id": "q1", "question": "a", "gold_passages": []}\r\n'),
        ("a number in a field the gold set does not use", '{"id": "q1", "question": "a", "gold_passages": [], "n": 1}\n'),
    ],
)
def test_anything_the_fast_path_is_unsure_of_goes_to_the_exact_path_with_its_messages(tmp_path, monkeypatch, why, text):
    path = tmp_path / "gold.jsonl"
    path.write_bytes(text.encode())
    assert read_fast_gold(path.read_bytes()) is None, why
    assert check_gold(path)[1] == _exact(path, monkeypatch)[1]  # the same file, line and field


def test_the_exact_paths_message_for_a_number_question_names_line_and_field(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text('{"id": "q1", "question": "a", "gold_passages": []}\n{"id": "q2", "question": 5, "gold_passages": []}\n')
    gold, problems = check_gold(path)
    assert gold is None
    assert [(p.line, p.field, p.message) for p in problems] == [(2, "question", "expected a string, found a number 5")]


def test_read_beside_native_runs_the_gold_sets_problems_still_come_before_the_runs(tmp_path, write_jsonl):
    from ragtui.core.errors import InputError
    from ragtui.core.loading.runs import needs_no_gold
    from ragtui.core.session import Inputs, load_comparison

    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "q1", "question": 5, "gold_passages": []}\n', encoding="utf-8")
    bad = {"id": "q1", "question": "Q ?", "judge": {"utility": {"score": 9}}}
    run_a = write_jsonl(tmp_path / "a.jsonl", {"name": "a"}, [bad])
    run_b = write_jsonl(tmp_path / "b.jsonl", {"name": "b"}, [bad])
    assert needs_no_gold(run_a, None) and needs_no_gold(run_b, None)  # the gold set is read beside them
    with pytest.raises(InputError) as raised:
        load_comparison(Inputs(a=run_a, b=run_b, gold=gold, cache=False))
    assert [Path(p.file).name for p in raised.value.problems] == ["gold.jsonl", "a.jsonl", "b.jsonl"]


def _many(count: int, late: dict, at: int) -> list[dict]:
    return [{"id": f"q{i}", "question": f"Question {i} ?", "gold_passages": ["p1"], **(late if i == at else {})} for i in range(count)]


@pytest.mark.parametrize(
    "late",
    [
        {"tags": ["acronyme"]},  # a field the first hundred lines never name
        {"document": "accord.pdf", "category": "procedurale"},
        {"notes": "relu"},  # a field of the gold set's own
    ],
)
def test_a_field_first_named_after_the_first_hundred_lines_is_read_as_the_exact_path_reads_it(late, tmp_path, monkeypatch):
    path = _write(tmp_path, _many(150, late, 130))
    fast, _ = check_gold(path)
    exact, _ = _exact(path, monkeypatch)
    assert fast is not None and exact is not None and fast.frame.equals(exact.frame)


@pytest.mark.parametrize(("late", "field"), [({"question": 5}, "question"), ({"tags": [1]}, "tags[0]"), ({"document": ["a"]}, "document")])
def test_a_value_of_another_type_after_the_first_hundred_lines_is_reported_at_its_line_and_field(late, field, tmp_path, monkeypatch):
    path = _write(tmp_path, _many(150, late, 130))
    assert read_fast_gold(path.read_bytes()) is None
    fast, fast_problems = check_gold(path)
    assert fast is None and fast_problems == _exact(path, monkeypatch)[1]
    assert [(p.line, p.field) for p in fast_problems if p.is_error] == [(131, field)]
