"""The sample's k sweep tells the trade-off: recall rises with k, faithfulness falls past 5.

The sweep is the candidate's pipeline with k = 3, 10 and 20 passages sent to the
generator; the candidate itself is its k = 5 point. Numbers are recomputed by hand from
the files (docs/metrics.md's definitions), independently of ragtui's own metrics.
"""

from __future__ import annotations

import pytest

from .test_sample_story import GOLD, SAMPLE, _load_run, abstained, answerable, judged

SWEEP = {3: "candidate_k3.jsonl", 5: "candidate.jsonl", 10: "candidate_k10.jsonl", 20: "candidate_k20.jsonl"}
RUNS = {k: _load_run(name) for k, name in SWEEP.items()}


def recall_at_own_k(k: int) -> float:
    """recall@k of the run that sent k passages: a gold passage in its first k (missing counts as a miss)."""
    _, records = RUNS[k]
    hits = []
    for qid, q in GOLD.items():
        if answerable(q):
            top = [item["id"] for item in records[qid]["retrieved"][:k]] if qid in records else []
            hits.append(bool(set(q["passages_verite"]) & set(top)))
    return sum(hits) / len(hits)


def micro_faithfulness(k: int) -> float:
    meta, records = RUNS[k]
    attested = total = 0
    for record in records.values():
        if judged(record) and not abstained(meta, record):
            sentences = record["judge"]["faithfulness"]["sentences"]
            attested += sum(s["attested"] for s in sentences)
            total += len(sentences)
    return attested / total


def test_the_sweep_runs_declare_their_k_and_share_the_candidates_generator_and_judge() -> None:
    candidate, _ = RUNS[5]
    for k, (meta, _records) in RUNS.items():
        assert meta["k"] == k
        assert meta["name"] == SWEEP[k].removesuffix(".jsonl")
        assert (meta["generator_model"], meta["judge_model"]) == (candidate["generator_model"], candidate["judge_model"])
        assert (SAMPLE / SWEEP[k]).is_file()


@pytest.mark.parametrize("k", [3, 10, 20])
def test_a_sweep_run_ranks_like_the_candidate_and_shows_the_generator_its_first_k_in_full(k: int) -> None:
    _, candidate = RUNS[5]
    _, records = RUNS[k]
    for qid, record in records.items():
        if qid in candidate:  # the same retriever: the same ranking
            assert [i["id"] for i in record["retrieved"]] == [i["id"] for i in candidate[qid]["retrieved"]]
        full = [not item["text"].endswith(" …") for item in record["retrieved"][:k]]
        assert all(full), qid


def test_recall_at_the_runs_own_k_rises_with_k() -> None:
    recalls = [recall_at_own_k(k) for k in sorted(RUNS)]
    assert recalls == sorted(recalls)
    assert recalls[-1] - recalls[0] >= 0.10  # 0.867 at k = 3 to 0.978 at k = 20
    assert round(recalls[1], 3) == 0.867  # the candidate, as the sample's README says


def test_faithfulness_is_highest_at_k_5_and_falls_past_it() -> None:
    faithfulness = {k: micro_faithfulness(k) for k in RUNS}
    assert round(faithfulness[5], 3) == 0.844
    assert faithfulness[10] < faithfulness[5] and faithfulness[20] < faithfulness[5]
    assert max(faithfulness, key=faithfulness.get) == 5
