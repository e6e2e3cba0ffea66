"""Retrieval edge cases (issue 9, item 9): repeated ids are counted and said; graded qrels."""

from __future__ import annotations

import json
import random

import pytest

from ragtui.core.loading.config import Config
from ragtui.core.loading.gold import load_gold
from ragtui.core.loading.runs import load_run
from ragtui.core.measuring.evaluate import evaluate
from tests.core.trec_helpers import rank_like_trec_eval


def _graded_case(seed: int):
    rng = random.Random(seed)
    docs = [f"d{i:03d}" for i in range(40)]
    qrels, run = {}, {}
    for q in range(20):
        relevant = rng.sample(docs, rng.randint(1, 8))
        qrels[f"q{q}"] = {d: rng.choice([1, 2, 3]) for d in relevant} | {d: 0 for d in rng.sample(docs, 4) if d not in relevant}
        run[f"q{q}"] = [(d, float(rng.randint(0, 10))) for d in rng.sample(docs, rng.randint(1, 25))]
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_ndcg_uses_graded_gains_and_agrees_with_pytrec_eval_on_graded_qrels(tmp_path, seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _graded_case(seed)
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.5,10"}).evaluate({q: dict(rows) for q, rows in run.items()})
    qrels_path = tmp_path / "graded.qrels"
    qrels_path.write_text("".join(f"{q} 0 {d} {rel}\n" for q, docs in qrels.items() for d, rel in docs.items()), encoding="utf-8")
    run_path = tmp_path / "run.jsonl"
    run_path.write_text("".join(json.dumps({"id": q, "retrieved": rank_like_trec_eval(rows)}) + "\n" for q, rows in run.items()))
    gold = load_gold(qrels_path)
    for k in (5, 10):
        evaluation = evaluate(load_run(run_path), gold, Config(), k=k)
        for qid, value in evaluation.questions.select("id", "ndcg_at_k").iter_rows():
            assert value == pytest.approx(oracle[qid][f"ndcg_cut_{k}"], abs=1e-4), (qid, k)


def test_graded_gains_by_hand(tmp_path):
    # q1: d1 (rel 3) at rank 2, d2 (rel 1) at rank 1. DCG = 1/log2(2) + 3/log2(3) = 1 + 1.8928;
    # ideal = 3/log2(2) + 1/log2(3) = 3 + 0.6309. nDCG@5 = 2.8928 / 3.6309 = 0.7967.
    (tmp_path / "q.qrels").write_text("q1 0 d1 3\nq1 0 d2 1\n", encoding="utf-8")
    (tmp_path / "run.jsonl").write_text(json.dumps({"id": "q1", "retrieved": ["d2", "d1"]}) + "\n", encoding="utf-8")
    evaluation = evaluate(load_run(tmp_path / "run.jsonl"), load_gold(tmp_path / "q.qrels"), Config(), k=5)
    assert evaluation.questions.get_column("ndcg_at_k")[0] == pytest.approx(2.8928 / 3.6309, abs=1e-4)


def test_a_passage_listed_twice_in_retrieved_is_counted_and_warned(tmp_path, write_jsonl):
    run = write_jsonl(tmp_path / "r.jsonl", {"name": "dups"}, [
        {"id": "q1", "question": "?", "gold_passages": ["p1"], "retrieved": ["p2", "p1", "p2"]},
        {"id": "q2", "question": "?", "gold_passages": ["p1"], "retrieved": ["p1", "p3"]},
    ])
    evaluation = evaluate(load_run(run), None, Config())
    warning = next(w for w in evaluation.warnings if "twice" in w)
    assert "1 question(s) list a passage twice" in warning and "(q1)" in warning and "trec_eval" in warning


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (["d1", "d2", "d3"], ["d3", "d1", "d2"], True),  # the same passages in another order
        (["d1", "d2", "d3"], ["d1", "d2", "d4"], False),
        (["d1", "d1", "d2", "d3"], ["d1", "d2", "d3"], True),  # a repeat counts once, at its first rank
        (["d1", "d1", "d2"], ["d1", "d2", "d3"], False),  # …so the top 3 of A is d1, d2 only
        (["d1", "d2", "d3", "d9"], ["d2", "d3", "d1", "d7"], True),  # below k = 3 nothing counts
        (None, [], True),  # no list is an empty one
        (None, ["d1"], False),
    ],
)
def test_same_top_k_compares_the_first_k_distinct_ids_as_sets(a, b, same):
    import polars as pl

    from ragtui.core.measuring.retrieval import same_top_k

    frame = pl.DataFrame({"a": [a], "b": [b]}, schema={"a": pl.List(pl.String), "b": pl.List(pl.String)})
    assert frame.select(same_top_k(pl.col("a"), pl.col("b"), 3)).item() is same


@pytest.mark.parametrize("nan_to_null", [True, False])
@pytest.mark.parametrize(
    "values",
    [
        [0.5, float("nan"), -0.0, float("inf"), -float("inf"), 1e-310, 3.0],
        [float("nan")] * 3,
        [],
        [0, 3, -7, 2**62],
    ],
    ids=["floats", "all NaN", "empty", "int64"],
)
def test_a_short_retrieval_column_is_the_column_polars_builds_from_the_numpy_array(values, nan_to_null):
    import numpy as np
    import polars as pl

    from ragtui.core.measuring.retrieval import _series

    array = np.array(values, dtype=np.int64 if values and all(isinstance(v, int) for v in values) else np.float64)
    listed, direct = _series("x", array, nan_to_null=nan_to_null), pl.Series("x", array, nan_to_null=nan_to_null)
    assert (listed.name, listed.dtype, listed.len()) == (direct.name, direct.dtype, direct.len())
    assert listed.is_null().to_list() == direct.is_null().to_list()
    # Bit for bit: -0.0, NaN and subnormals included.
    assert listed.fill_null(0).to_numpy().tobytes() == direct.fill_null(0).to_numpy().tobytes()
