"""The trade-off of several runs: each run read at its own k, the Pareto front, the best on both.

A hand-written sweep over four answerable questions (two factual, two procedural) and one
unanswerable. The ranking is the same in every run: gold at rank 1 (f1), 2 (p1), 4 (f2)
and 8 (p2). So recall at the run's own k is 1/4 at k = 1, 2/4 at k = 3, 3/4 at k = 5 and
4/4 at k = 10 — while at one shared k every run would read the same.
"""

from __future__ import annotations

import pytest
import yaml

from ragtui.core.comparing.tradeoff import best_on_both, build_tradeoff, own_k, pareto_front
from ragtui.core.loading.inputs import Inputs
from ragtui.core.loading.records import write_run_jsonl
from ragtui.core.measuring.metric_specs import MetricValue
from ragtui.core.session import load_comparisons

GOLD = [
    {"id": "f1", "question": "F1 ?", "passages_verite": ["g_f1"], "reponse_attendue": "r", "categorie": "factuelle_courte"},
    {"id": "f2", "question": "F2 ?", "passages_verite": ["g_f2"], "reponse_attendue": "r", "categorie": "factuelle_courte"},
    {"id": "p1", "question": "P1 ?", "passages_verite": ["g_p1"], "reponse_attendue": "r", "categorie": "procedurale"},
    {"id": "p2", "question": "P2 ?", "passages_verite": ["g_p2"], "reponse_attendue": "r", "categorie": "procedurale"},
    {"id": "u1", "question": "U1 ?", "passages_verite": [], "reponse_attendue": "abstention", "categorie": "sans_reponse"},
]
GOLD_RANK = {"f1": 1, "p1": 2, "f2": 4, "p2": 8}


def _retrieved(qid: str) -> list[str]:
    ids = [f"noise_{qid}_{i}" for i in range(10)]
    if qid in GOLD_RANK:
        ids.insert(GOLD_RANK[qid] - 1, f"g_{qid}")
    return ids[:10]


def _record(qid: str, unsupported: int) -> dict:
    """Two attested sentences, plus `unsupported` unattested ones (utility 5 minus them)."""
    sentences = [{"text": f"S{i}.", "attested": i < 2, "evidence": [], "reason": "r"} for i in range(2 + unsupported)]
    return {
        "id": qid,
        "question": f"{qid.upper()} ?",
        "retrieved": _retrieved(qid),
        "answer": " ".join(s["text"] for s in sentences) if qid != "u1" else "Je ne trouve pas cette information.",
        "judge": {"model": "judge-x", "faithfulness": {"sentences": sentences}, "utility": {"score": 5 - unsupported, "reason": "u"}, "error": None},
    }


def _run(tmp_path, name: str, k: int | None, unsupported: int):
    path = tmp_path / f"{name}.jsonl"
    meta = {"name": name, "generator_model": "gen", "judge_model": "judge-x", **({"k": k} if k else {})}
    write_run_jsonl(path, meta, [_record(q["id"], unsupported) for q in GOLD])
    return path


@pytest.fixture
def sweep(tmp_path):
    (tmp_path / "gold.yaml").write_text(yaml.safe_dump(GOLD, allow_unicode=True), encoding="utf-8")
    (tmp_path / "ragtui.yaml").write_text("targets:\n  recall@5: {min: 0.70}\n  faithfulness: {min: 0.60}\n", encoding="utf-8")
    # Faithfulness falls as k grows: 2 of 2, 2 of 3, 2 of 4 sentences attested per answer.
    reference = _run(tmp_path, "ref", 1, 0)
    candidates = [_run(tmp_path, "sweep_k3", None, 0), _run(tmp_path, "at5", 5, 1), _run(tmp_path, "at10", 10, 2)]
    inputs = Inputs(a=reference, gold=tmp_path / "gold.yaml", config=tmp_path / "ragtui.yaml", detail=False)
    return build_tradeoff(load_comparisons(inputs, candidates))


def test_each_run_is_read_at_its_own_k_from_its_metadata_or_its_name(sweep):
    assert [(p.label, p.name, p.k, p.k_source) for p in sweep.points] == [
        ("A", "ref", 1, "metadata"),
        ("B1", "sweep_k3", 3, "name"),
        ("B2", "at5", 5, "metadata"),
        ("B3", "at10", 10, "metadata"),
    ]
    assert [p.values["recall"].value for p in sweep.points] == [0.25, 0.5, 0.75, 1.0]
    assert all(p.values["recall"].n == 4 for p in sweep.points)


def test_faithfulness_and_utility_are_each_runs_own(sweep):
    assert [p.values["faithfulness"].value for p in sweep.points] == pytest.approx([1.0, 1.0, 2 / 3, 0.5])
    # Utility counts every answered question, the abstention included: 5 − unsupported each.
    assert [p.values["utility"].value for p in sweep.points] == pytest.approx([5.0, 5.0, 4.0, 3.0])


def test_recall_at_own_k_per_category(sweep):
    procedural = [p.reading("procedurale")["recall"].value for p in sweep.points]
    factual = [p.reading("factuelle_courte")["recall"].value for p in sweep.points]
    assert procedural == [0.0, 0.5, 0.5, 1.0]  # p1 at rank 2, p2 at rank 8
    assert factual == [0.5, 0.5, 1.0, 1.0]  # f1 at rank 1, f2 at rank 4
    assert sweep.points[0].reading("sans_reponse")["recall"] == MetricValue(None, 0)


def test_the_targets_are_the_configs_with_the_recall_target_written_for_the_comparison_k(sweep):
    assert sweep.targets == {"recall": 0.70, "faithfulness": 0.60, "utility": 4.0, "tokens": None, "cost_usd": None}
    assert sweep.target_k == 1  # the reference's k: the comparisons' k
    assert sweep.categories == ("factuelle_courte", "procedurale", "sans_reponse")


def test_the_best_run_on_both_has_the_largest_smaller_margin_over_the_targets(sweep):
    # Margins (recall − 0.70, faithfulness − 0.60): A (−0.45, 0.40), B1 (−0.20, 0.40),
    # B2 (0.05, 0.067), B3 (0.30, −0.10): B2 is the only run meeting both.
    assert sweep.best() == "B2"
    # A is dominated by B1 (same faithfulness, higher recall); the other three trade one axis for the other.
    assert sweep.front() == frozenset({"B1", "B2", "B3"})


def test_a_category_has_its_own_best_run(sweep):
    # Procedural: recall 0, .5, .5, 1; faithfulness 1, 1, 2/3, 1/2 → margins −.7, −.2, −.2 (B1 first), −.1.
    assert sweep.best("procedurale") == "B3"


def test_best_on_both_without_targets_uses_the_values_and_ignores_unmeasured_runs():
    points = [
        ("A", {"recall": MetricValue(0.9, 10), "faithfulness": MetricValue(0.5, 10)}),
        ("B1", {"recall": MetricValue(0.7, 10), "faithfulness": MetricValue(0.7, 10)}),
        ("B2", {"recall": MetricValue(None, 0), "faithfulness": MetricValue(0.99, 10)}),
    ]
    assert best_on_both(points, {"recall": None, "faithfulness": None}) == "B1"
    assert pareto_front(points) == frozenset({"A", "B1"})
    assert best_on_both(points[2:], {}) is None


def test_own_k_falls_back_to_the_comparison_k_when_neither_metadata_nor_name_says(tmp_path):
    from ragtui.core.loading.config import Config
    from ragtui.core.loading.runs import load_run
    from ragtui.core.measuring.evaluate import evaluate

    path = _run(tmp_path, "rerank-v2", None, 0)  # "v2" is not a k
    evaluation = evaluate(load_run(path), None, Config())
    assert own_k(evaluation, 7) == (7, "comparison")
    named = _run(tmp_path, "bm25_top20", None, 0)
    assert own_k(evaluate(load_run(named), None, Config()), 7) == (20, "name")
