"""ragtui's retrieval metrics equal trec_eval's own output and pytrec_eval's, to 4 decimals."""

from __future__ import annotations

import random

import pytest

from tests.core.trec_helpers import evaluation_from_trec, read_qrels, read_results

# ragtui column → trec_eval measure stem (README of the oracle folder).
MEASURES = {"hit_at_k": "success", "context_recall_at_k": "recall", "precision_at_k": "P", "ndcg_at_k": "ndcg_cut"}


def read_aq(path):
    table = {}
    for line in path.read_text().splitlines():
        name, topic, value = line.split()
        try:
            table[(name, topic)] = float(value)
        except ValueError:  # runid and other text-valued lines
            continue
    return table


@pytest.fixture(scope="module")
def oracle(request):
    from tests.conftest import SHARED

    folder = SHARED / "oracles" / "trec_eval"
    if not folder.is_dir():
        pytest.skip(f"../shared/oracles/trec_eval is absent ({folder}): trec_eval's test files live there")
    return folder


@pytest.mark.parametrize("k", [5, 10])
def test_success_recall_precision_ndcg_match_trec_eval_per_topic_and_overall(oracle, tmp_path, k):
    expected = read_aq(oracle / "out.test.aq")
    evaluation = evaluation_from_trec(read_qrels(oracle / "qrels.test"), read_results(oracle / "results.test"), k, tmp_path)
    frame = evaluation.questions
    for column, stem in MEASURES.items():
        measure = f"{stem}_{k}"
        for topic, value in frame.select("id", column).iter_rows():
            assert round(value, 4) == pytest.approx(expected[(measure, topic)], abs=1e-4), (measure, topic)
        assert round(frame.get_column(column).mean(), 4) == pytest.approx(expected[(measure, "all")], abs=1e-4), measure


def test_reciprocal_rank_without_cutoff_matches_trec_eval(oracle, tmp_path):
    expected = read_aq(oracle / "out.test.aq")
    evaluation = evaluation_from_trec(read_qrels(oracle / "qrels.test"), read_results(oracle / "results.test"), 1000, tmp_path)
    for topic, value in evaluation.questions.select("id", "rr_at_k").iter_rows():
        assert round(value, 4) == pytest.approx(expected[("recip_rank", topic)], abs=1e-4)
    assert evaluation.questions.get_column("rr_at_k").mean() == pytest.approx(expected[("recip_rank", "all")], abs=1e-4)


def _random_case(seed: int):
    rng = random.Random(seed)
    docs = [f"d{i:03d}" for i in range(60)]
    qrels, run = {}, {}
    for q in range(25):
        qid = f"q{q}"
        relevant = rng.sample(docs, rng.randint(1, 8))
        qrels[qid] = {d: 1 for d in relevant} | {d: 0 for d in rng.sample(docs, 5) if d not in relevant}
        retrieved = rng.sample(docs, rng.randint(1, 30))
        # Ties in score on purpose: trec_eval then orders by docno descending.
        run[qid] = [(d, float(rng.randint(0, 10))) for d in retrieved]
    return qrels, run


@pytest.mark.parametrize("seed", range(5))
def test_random_runs_agree_with_pytrec_eval(tmp_path, seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_case(seed)
    measures = {"success.5,10", "recall.5,10", "P.5,10", "ndcg_cut.5,10", "recip_rank"}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate({q: dict(rows) for q, rows in run.items()})
    for k in (5, 10):
        (tmp_path / str(k)).mkdir()
        evaluation = evaluation_from_trec(qrels, run, k, tmp_path / str(k))
        for row in evaluation.questions.iter_rows(named=True):
            theirs = oracle[row["id"]]
            assert row["hit_at_k"] == pytest.approx(theirs[f"success_{k}"], abs=1e-4)
            assert row["context_recall_at_k"] == pytest.approx(theirs[f"recall_{k}"], abs=1e-4)
            assert row["precision_at_k"] == pytest.approx(theirs[f"P_{k}"], abs=1e-4)
            assert row["ndcg_at_k"] == pytest.approx(theirs[f"ndcg_cut_{k}"], abs=1e-4)
    (tmp_path / "rr").mkdir()
    evaluation = evaluation_from_trec(qrels, run, 1000, tmp_path / "rr")
    for row in evaluation.questions.iter_rows(named=True):
        assert row["rr_at_k"] == pytest.approx(oracle[row["id"]]["recip_rank"], abs=1e-4)
