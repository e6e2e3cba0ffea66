"""Every metric on hand-computed fixtures: the spec's worked example and the edge cases."""

from __future__ import annotations

import math

import pytest
import yaml

from ragtui.core.loading.config import Config
from ragtui.core.loading.gold import load_gold
from ragtui.core.loading.runs import load_run
from ragtui.core.measuring.evaluate import evaluate
from ragtui.core.measuring.metrics import counts, recall_curve, summarize, summarize_by_category
from tests.core import edge_fixture


def values(evaluation):
    return {name: v.value for name, v in summarize(evaluation).items()}


def test_the_spec_worked_example_gives_the_documented_numbers(shared_dir):
    examples = shared_dir / "spec" / "examples"
    evaluation = evaluate(load_run(examples / "run_a.jsonl"), load_gold(examples / "gold.yaml"), Config())
    got = values(evaluation)
    assert got["recall@5"] == pytest.approx(2 / 3)
    assert got["mrr@5"] == pytest.approx(2 / 3)
    assert got["context_recall@5"] == pytest.approx(2 / 3)
    assert got["faithfulness"] == pytest.approx(0.80)
    assert got["abstention"] == pytest.approx(1.0)
    assert got["utility"] == pytest.approx(3.5)
    failures = dict(evaluation.questions.select("id", "failures").iter_rows())
    assert sorted(failures["q003"]) == ["low_utility", "unfaithful"]
    assert sorted(failures["q004"]) == ["low_utility", "retrieval_miss"]
    assert failures["q001"] == [] and failures["q002"] == []


@pytest.fixture
def edge(tmp_path, write_jsonl):
    gold_path = tmp_path / "gold.yaml"
    gold_path.write_text(yaml.safe_dump(edge_fixture.GOLD, allow_unicode=True), encoding="utf-8")
    run_path = write_jsonl(tmp_path / "run.jsonl", {"name": "edge", "k": 3}, edge_fixture.RUN)
    return evaluate(load_run(run_path), load_gold(gold_path), Config(k=3), k=3)


def test_retrieval_metrics_count_duplicates_once_and_divide_precision_by_k(edge):
    got = values(edge)
    # Answerable: e1, e2, e4, e5 (e5 missing counts as a miss).
    assert got["recall@3"] == pytest.approx((1 + 1 + 0 + 0) / 4)
    assert got["mrr@3"] == pytest.approx((1 / 2 + 1 + 0 + 0) / 4)
    assert got["context_recall@3"] == pytest.approx((1 + 1 / 2 + 0 + 0) / 4)
    # precision@3 divides by k even when fewer were retrieved (e2 has one passage).
    assert got["precision@3"] == pytest.approx((1 / 3 + 1 / 3 + 0 + 0) / 4)
    # context precision: e1 = (1/2)/1, e2 = (1/1)/1.
    assert got["context_precision@3"] == pytest.approx((0.5 + 1 + 0 + 0) / 4)
    ndcg_e1 = 1 / math.log2(3)
    ndcg_e2 = 1 / (1 + 1 / math.log2(3))
    assert got["ndcg@3"] == pytest.approx((ndcg_e1 + ndcg_e2) / 4)


def test_the_recall_curve_uses_the_first_gold_rank_for_every_k(edge):
    curve = recall_curve(edge)
    assert curve[0] == pytest.approx(1 / 4)  # only e2 at rank 1
    assert curve[1] == pytest.approx(2 / 4)  # e1 at rank 2
    assert curve[3] == pytest.approx(3 / 4)  # e4 at rank 4
    assert curve == sorted(curve)


def test_answer_metrics_leave_out_abstentions_and_judge_errors_but_count_them(edge):
    got = values(edge)
    assert got["faithfulness"] == pytest.approx((1 + 3) / (2 + 3))
    assert got["faithfulness_macro"] == pytest.approx((0.5 + 1.0) / 2)
    assert got["utility"] == pytest.approx((3 + 5 + 4) / 3)
    assert got["abstention"] == pytest.approx(1.0)
    # e5 is missing: a missing answerable question counts as a false abstention (1 of 4).
    assert got["false_abstention"] == pytest.approx(1 / 4)
    c = counts(edge)
    assert (c.questions, c.present, c.missing, c.judge_errors, c.abstained_excluded) == (5, 4, 1, 1, 1)


def test_failure_kinds_per_question(edge):
    failures = {i: sorted(f) for i, f in edge.questions.select("id", "failures").iter_rows()}
    assert failures == {
        "e1": ["low_utility", "unfaithful"],
        "e2": [],
        "e3": [],
        "e4": ["judge_error", "retrieval_miss"],
        "e5": ["missing", "retrieval_miss"],
    }


def test_every_category_has_its_own_metrics_and_n(edge):
    by_category = summarize_by_category(edge)
    assert {c: n for c, (n, _) in by_category.items()} == {"factuelle_courte": 3, "procedurale": 1, "sans_reponse": 1}
    factual = by_category["factuelle_courte"][1]
    assert factual["recall@3"].value == pytest.approx(1 / 3) and factual["recall@3"].n == 3
    assert by_category["sans_reponse"][1]["recall@3"].value is None  # not available, not 0


def test_everything_abstained_gives_no_faithfulness_and_full_false_abstention(tmp_path, write_jsonl):
    records = [
        {"id": g["id"], "question": g["question"], "gold_passages": g["passages_verite"], "category": g["categorie"],
         "retrieved": ["p1"], "answer": "Je ne trouve pas cette information."}
        for g in edge_fixture.GOLD
    ]
    run = load_run(write_jsonl(tmp_path / "all_abstain.jsonl", None, records))
    got = summarize(evaluate(run, None, Config()))
    assert got["faithfulness"].value is None and got["faithfulness"].n == 0
    assert got["abstention"].value == 1.0
    assert got["false_abstention"].value == 1.0
    assert got["utility"].value is None


def test_a_run_without_any_gold_passages_has_retrieval_not_available(tmp_path, write_jsonl):
    run = load_run(write_jsonl(tmp_path / "nogold.jsonl", None, [{"id": "x", "retrieved": ["p1"], "answer": "Oui."}]))
    evaluation = evaluate(run, None, Config())
    assert summarize(evaluation)["recall@5"].value is None
    assert any("retrieval metrics are not available" in w for w in evaluation.warnings)


def test_an_explicit_abstained_flag_wins_over_the_phrase(tmp_path, write_jsonl):
    records = [
        {"id": "a", "gold_passages": [], "category": "sans_reponse", "answer": "Je ne trouve pas cette information.", "abstained": False},
        {"id": "b", "gold_passages": [], "category": "sans_reponse", "answer": "Aucune idée.", "abstained": True},
    ]
    evaluation = evaluate(load_run(write_jsonl(tmp_path / "r.jsonl", None, records)), None, Config())
    assert dict(evaluation.questions.select("id", "abstained").iter_rows()) == {"a": False, "b": True}


def test_run_fallback_phrases_replace_the_default(tmp_path, write_jsonl):
    records = [{"id": "a", "gold_passages": [], "answer": "Information non disponible, désolé."}]
    run = load_run(write_jsonl(tmp_path / "r.jsonl", {"fallback_phrases": ["information non disponible"]}, records))
    assert evaluate(run, None, Config()).questions.get_column("abstained").to_list() == [True]


def test_a_repeated_id_counts_once_and_moves_the_ranks_after_it_up(tmp_path, write_jsonl):
    records = [
        {"id": "r1", "gold_passages": ["g"], "retrieved": ["x", "x", "x", "g", "g"]},
        {"id": "r2", "gold_passages": ["g", "h"], "retrieved": ["h", "y", "h", "g"]},
        {"id": "r3", "gold_passages": ["g"], "retrieved": ["y", "g"]},
    ]
    run = load_run(write_jsonl(tmp_path / "dups.jsonl", None, records))
    rows = {r["id"]: r for r in evaluate(run, None, Config(k=2), k=2).questions.iter_rows(named=True)}
    # r1: deduplicated [x, g]: gold at rank 2. r2: [h, y, g]: hits at ranks 1 and 3.
    assert (rows["r1"]["first_gold_rank"], rows["r1"]["hit_at_k"], rows["r1"]["rr_at_k"]) == (2, 1.0, 0.5)
    assert (rows["r2"]["first_gold_rank"], rows["r2"]["hits_at_k"]) == (1, 1)
    assert rows["r2"]["context_precision_at_k"] == pytest.approx(1.0)
    assert rows["r3"]["first_gold_rank"] == 2


def test_the_question_view_names_the_first_gold_at_the_rank_the_metrics_measured(tmp_path, write_jsonl):
    from ragtui.core.comparing.question_diff import first_gold, gold_rank_text

    records = [{"id": "r1", "gold_passages": ["g"], "retrieved": ["x", "x", "y", "g", "g"], "category": "procedurale"}]
    run = load_run(write_jsonl(tmp_path / "r.jsonl", None, records))
    row = next(evaluate(run, None, Config(k=2), k=2).questions.iter_rows(named=True))
    # [x, x, y, g, g] counts x once: g is third, outside the top 2, in both places.
    assert first_gold(row) == (row["first_gold_rank"], "g") == (3, "g")
    assert gold_rank_text(row, 2) == "gold g at rank 3 — outside the top 2"


def test_the_failure_list_names_every_failed_kind_in_order_for_all_128_combinations():
    import itertools

    import polars as pl

    from ragtui.core.measuring.evaluate import FAILURE_KINDS, _failure_list

    combos = list(itertools.product([False, True], repeat=len(FAILURE_KINDS)))
    frame = pl.DataFrame({f"fail_{kind}": [combo[i] for combo in combos] for i, kind in enumerate(FAILURE_KINDS)})
    listed = frame.select(_failure_list()).to_series().to_list()
    assert listed == [[kind for kind, failed in zip(FAILURE_KINDS, combo, strict=True) if failed] for combo in combos]
