"""Loading: every format gives the same canonical frame; aliases, gold rules, metadata."""

from __future__ import annotations

import json

import polars as pl
import pytest
import yaml
from polars.testing import assert_frame_equal

from ragtui.core.errors import InputError
from ragtui.core.loading.config import Config, load_config
from ragtui.core.loading.fast_jsonl import read_fast
from ragtui.core.loading.gold import load_gold
from ragtui.core.loading.records import read_raw_run
from ragtui.core.loading.runs import check_run, load_run
from ragtui.core.loading.schema import RUN_SCHEMA
from ragtui.core.measuring.evaluate import evaluate

RECORDS = [
    {
        "id": "q1", "question": "Combien ?", "category": "factuelle_courte", "gold_passages": ["p1"],
        "retrieved": [{"id": "p1", "text": "Texte [bold]un[/]", "score": 0.9}, {"id": "p2", "text": "deux", "score": 1}],
        "answer": "Deux jours. Trois.", "cited": ["p1"],
        "judge": {"model": "claude-sonnet-4", "faithfulness": {"sentences": [
            {"text": "Deux jours.", "attested": True, "evidence": ["p1"], "reason": "ok"},
            {"text": "Trois.", "attested": False, "reason": "non"}]},
            "utility": {"score": 4, "reason": "bien"}, "error": None},
        "latency_ms": 1200, "cost_usd": 0.002, "team_note": {"owner": "rh"},
    },
    {"id": "q2", "question": "Et ça ?", "gold_passages": [], "retrieved": [{"id": "p3"}], "answer": None,
     "judge": {"error": "timeout"}},
]
META = {"name": "baseline", "k": 5, "generator_model": "llama-3.1-70b-instruct"}

COMPARED = [c for c in RUN_SCHEMA if not c.endswith("_json") and c != "extra"]


def _write_all_formats(tmp_path):
    jsonl = tmp_path / "run.jsonl"
    jsonl.write_text("\n".join([json.dumps({"run": META})] + [json.dumps(r) for r in RECORDS]) + "\n")
    as_json = tmp_path / "run.json"
    as_json.write_text(json.dumps({"run": META, "results": RECORDS}))
    as_yaml = tmp_path / "run.yaml"
    as_yaml.write_text(yaml.safe_dump({"run": META, "results": RECORDS}, allow_unicode=True))
    return jsonl, as_json, as_yaml


def test_the_fast_path_and_the_exact_path_give_the_same_frame(tmp_path):
    jsonl, _, _ = _write_all_formats(tmp_path)
    fast = read_fast(jsonl.read_bytes())
    assert fast is not None, "a canonical JSONL file must take the fast path"
    exact, problems = check_run(jsonl)
    assert problems == []
    assert_frame_equal(fast[1].select(COMPARED), exact.frame.select(COMPARED))
    for column in ("judge_json", "extra"):
        for f, e in zip(fast[1].get_column(column), exact.frame.get_column(column)):
            assert _without_nulls(json.loads(f) if f else None) == _without_nulls(json.loads(e) if e else None)


def _without_nulls(value):
    """The fast path unifies object keys across rows (absent → null); compare without them."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def test_json_yaml_and_parquet_runs_load_like_jsonl(tmp_path):
    jsonl, as_json, as_yaml = _write_all_formats(tmp_path)
    reference = load_run(jsonl)
    parquet = tmp_path / "run.parquet"
    pl.DataFrame(RECORDS[:1], strict=False).write_parquet(parquet, metadata={"ragtui.run": json.dumps(META)})
    for path in (as_json, as_yaml):
        run = load_run(path)
        assert run.meta.name == "baseline" and run.meta.k == 5
        assert_frame_equal(run.frame.select(COMPARED).drop("line"), reference.frame.select(COMPARED).drop("line"))
    run = load_run(parquet)
    assert run.meta.generator_model == "llama-3.1-70b-instruct"
    assert run.frame.get_column("retrieved_ids").to_list() == [["p1", "p2"]]


def test_french_aliases_are_accepted_in_runs_and_verdicts(tmp_path):
    record = {"id": "q1", "passages_verite": ["p1"], "categorie": "procedurale", "reponse_attendue": "Oui.",
              "retrieved": ["p1"], "answer": "Oui.",
              "judge": {"faithfulness": {"phrases": [{"texte": "Oui.", "atteste": True}]}, "utility": {"score": 5}}}
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(record) + "\n")
    row = load_run(path).frame.row(0, named=True)
    assert row["gold_passages"] == ["p1"] and row["category"] == "procedurale" and row["expected_answer"] == "Oui."
    assert row["judge_sentences"] == [{"text": "Oui.", "attested": True, "evidence": [], "reason": None}]


def test_unknown_fields_are_kept(tmp_path):
    jsonl, _, _ = _write_all_formats(tmp_path)
    extra = load_run(jsonl).frame.get_column("extra").to_list()
    assert json.loads(extra[0])["team_note"] == {"owner": "rh"}


def test_the_gold_set_wins_over_the_run_with_a_warning_and_extra_questions_are_flagged(tmp_path):
    gold = tmp_path / "gold.yaml"
    gold.write_text(yaml.safe_dump([
        {"id": "q1", "question": "Combien ?", "passages_verite": ["p2"], "categorie": "procedurale"},
        {"id": "q9", "question": "Absente ?", "passages_verite": ["p9"]},
    ]))
    jsonl, _, _ = _write_all_formats(tmp_path)
    evaluation = evaluate(load_run(jsonl), load_gold(gold), Config())
    row = evaluation.question("q1")
    assert row["gold_passages"] == ["p2"] and row["category"] == "procedurale"
    assert evaluation.extra_ids == ("q2",)
    assert evaluation.missing_ids == ["q9"]
    text = " | ".join(evaluation.warnings)
    assert "category that differs from the gold set" in text and "gold_passages that differs" in text
    assert "1 question(s) not in the gold set" in text and "1 question(s) missing" in text


def test_gold_passages_in_another_order_are_no_conflict_and_each_differing_question_is_counted_once(tmp_path):
    gold = tmp_path / "gold.yaml"
    gold.write_text(yaml.safe_dump([
        {"id": "q1", "question": "Un ?", "gold_passages": ["p1", "p2"]},
        {"id": "q2", "question": "Deux ?", "gold_passages": ["p3", "p4"]},
        {"id": "q3", "question": "Trois ?", "gold_passages": ["p5"]},
        {"id": "q4", "question": "Quatre ?", "gold_passages": ["p6"]},
    ]))
    run = tmp_path / "run.jsonl"
    given = {"q1": ["p2", "p1"], "q2": ["p4", "p9"], "q3": ["p5", "p7"], "q4": None}
    run.write_text("".join(
        json.dumps({"id": qid, "answer": "Oui.", "retrieved": [{"id": "p1"}], **({"gold_passages": ids} if ids else {})}) + "\n"
        for qid, ids in given.items()
    ))
    warnings = evaluate(load_run(run), load_gold(gold), Config()).warnings
    assert [w.split(": ", 1)[1] for w in warnings if "differs" in w] == [
        "2 question(s) give a gold_passages that differs from the gold set; the gold set wins"
    ]


def test_a_run_in_the_gold_sets_order_measures_the_same_as_the_same_run_in_another_order(tmp_path):
    gold = tmp_path / "gold.yaml"
    gold.write_text(yaml.safe_dump([{"id": f"q{i}", "question": f"Q{i} ?", "gold_passages": [f"p{i}"]} for i in range(4)]))
    records = [{"id": f"q{i}", "answer": "Oui.", "retrieved": [{"id": f"p{i % 2}"}], "latency_ms": i} for i in range(4)]
    in_order, shuffled = tmp_path / "in_order.jsonl", tmp_path / "shuffled.jsonl"
    in_order.write_text("".join(json.dumps(r) + "\n" for r in records))
    shuffled.write_text("".join(json.dumps(records[i]) + "\n" for i in (2, 0, 3, 1)))
    a = evaluate(load_run(in_order), load_gold(gold), Config())
    b = evaluate(load_run(shuffled), load_gold(gold), Config())
    assert a.questions.get_column("id").to_list() == ["q0", "q1", "q2", "q3"]
    assert_frame_equal(a.questions.drop("line"), b.questions.drop("line"))
    assert a.questions.get_column("present").all() and a.extra_ids == () and a.warnings == b.warnings


def test_raw_records_keep_their_line_numbers_across_blank_lines(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text('{"run": {"name": "x"}}\n\n{"id": "a"}\n\n{"id": "b"}\n')
    raw = read_raw_run(path)
    assert raw.lines == [3, 5] and raw.meta == {"name": "x"}
    assert load_run(path).frame.get_column("line").to_list() == [3, 5]


@pytest.mark.parametrize("bad", ['{"run": 3}', '{"id": "a", "retrieved": [1, 2]}', '{"id": "a", "judge": {"utility": {"score": "5"}}}'])
def test_the_fast_path_declines_what_it_is_not_sure_about(bad):
    assert read_fast((bad + "\n").encode()) is None


def test_a_file_parsed_in_slices_gives_the_same_frame_as_in_one_piece(tmp_path, monkeypatch):
    import ragtui.core.loading.fast_jsonl as fast_jsonl

    records = [dict(RECORDS[i % 2], id=f"q{i:03d}") for i in range(200)]
    records[150] = {**records[150], "late_field": "only here"}
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join([json.dumps({"run": META})] + [json.dumps(r) for r in records]) + "\n")
    whole = load_run(path).frame
    monkeypatch.setattr(fast_jsonl, "CHUNK_BYTES", 2048)
    with path.open("rb") as handle:
        sliced = fast_jsonl.read_fast_stream(handle)
    assert sliced is not None
    assert_frame_equal(sliced[1].select(COMPARED), whole.select(COMPARED))
    assert sliced[1].get_column("line").to_list() == list(range(2, 202))
    assert json.loads(sliced[1].get_column("extra")[150])["late_field"] == "only here"


def test_the_config_names_the_categories_and_which_are_unanswerable(tmp_path):
    """A team's own categories: display names and the unanswerable ones come from ragtui.yaml."""
    config_path = tmp_path / "ragtui.yaml"
    config_path.write_text(
        "unanswerable_categories: [hors_corpus]\ncategories:\n  hors_corpus: Out of corpus\n  rh: Human resources\n",
        encoding="utf-8",
    )
    config = load_config(config_path)
    assert config.category_name("hors_corpus") == "Out of corpus"
    assert config.category_name("procedurale") == "Procedural"  # the shipped names stay
    assert config.category_name("something_else") == "something_else"
    run = tmp_path / "run.jsonl"
    records = [
        {"id": "q1", "question": "?", "category": "hors_corpus", "gold_passages": ["p1"], "retrieved": ["p1"], "answer": "Je ne trouve pas cette information."},
        {"id": "q2", "question": "?", "category": "sans_reponse", "gold_passages": ["p1"], "retrieved": ["p1"], "answer": "Oui."},
    ]
    run.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    questions = evaluate(load_run(run), None, config).questions
    by_id = dict(zip(questions.get_column("id").to_list(), questions.get_column("unanswerable").to_list(), strict=True))
    # sans_reponse is no longer unanswerable once the config names its own category
    assert by_id == {"q1": True, "q2": False}


def test_a_config_category_map_that_is_not_a_mapping_is_a_clear_problem(tmp_path):
    config_path = tmp_path / "ragtui.yaml"
    config_path.write_text("categories: [a, b]\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_config(config_path)
    assert "categories" in str(caught.value) and "display name" in str(caught.value)
