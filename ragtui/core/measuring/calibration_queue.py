"""The calibration queue: a run's answers in a seeded, stratified random order.

A correction is only valid on a random sample; labels chosen by looking at failures are
biased. The queue orders the answers the judge scored so that every prefix of it is a
proportional stratified sample — by category and by the judge's verdict (every sentence
attested, some not, no sentence verdict) — so whoever stops after 30 answers has labelled
a random sample in which each stratum has its share. The order depends only on the
answers' ids, the strata and the seed: the same run and seed give the same queue.

The queue follows the label plan (Neyman allocation, `stratified.neyman_plan`) once the
correction is stratified — every category holds `MIN_STRATUM_ANSWERS` labelled answers,
so each category's value is its own and the weights are the categories' shares, whatever
share of the labels each one got. From then on the plan's next category comes first, in
its own stretch of the queue's order (still a random sample within the category); before
that the proportional order stands, since the pooled value it feeds is unbiased only on a
proportional sample.
"""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl

from ragtui.core.loading.labels import RunLabels
from ragtui.core.loading.schema import UNCATEGORIZED
from ragtui.core.measuring.calibration import sentence_units, utility_units
from ragtui.core.measuring.label_values import CorrectedMetric

QUEUE_SEED = 12  # shown on the queue screen: the order is reproducible from it


def _stable_seed(seed: int, stratum: str) -> int:
    digest = hashlib.sha256(f"{seed}:{stratum}".encode()).digest()
    return int.from_bytes(digest[:8], "little")


def _verdicts(questions: pl.DataFrame) -> pl.DataFrame:
    """id, category, verdict for each answer the judge scored (sentences or utility)."""
    sentences = sentence_units(questions).group_by("id").agg(pl.col("judge").all().alias("all_attested"))
    scored = pl.concat([sentence_units(questions).select("id"), utility_units(questions).select("id")]).unique()
    category = pl.col("category").fill_null(UNCATEGORIZED) if "category" in questions.columns else pl.lit(UNCATEGORIZED)
    frame = questions.select("id", category.alias("category")).join(scored, on="id", how="semi")
    frame = frame.join(sentences, on="id", how="left")
    verdict = (
        pl.when(pl.col("all_attested").is_null()).then(pl.lit("no_sentences"))
        .when(pl.col("all_attested")).then(pl.lit("faithful"))
        .otherwise(pl.lit("unfaithful"))
    )
    return frame.select("id", "category", verdict.alias("verdict"))


def queue_order(questions: pl.DataFrame, seed: int = QUEUE_SEED) -> list[str]:
    """Every scored answer's id, in the stratified random order of the queue.

    Within a stratum the order is a seeded shuffle; the strata are interleaved by the
    position each item would have in a proportional allocation (item i of a stratum of
    size s sits at (i + u)/s, u uniform in [0, 1)), so any prefix holds each stratum in
    proportion to its size, give or take one.
    """
    frame = _verdicts(questions).sort("id")
    keys: list[tuple[float, str]] = []
    for (category, verdict), group in frame.group_by("category", "verdict", maintain_order=True):
        stratum = f"{category}\x1f{verdict}"
        rng = np.random.default_rng(_stable_seed(seed, stratum))
        ids = group.get_column("id").to_list()
        order = rng.permutation(len(ids))
        jitter = rng.random(len(ids))
        keys += [((rank + jitter[rank]) / len(ids), ids[index]) for rank, index in enumerate(order)]
    keys.sort()
    return [qid for _, qid in keys]


def answer_done(questions_row: dict, labels: RunLabels) -> bool:
    """True when every judged sentence of this answer and its utility carry a label from the queue.

    Labels made elsewhere (or inside the run) do not take an answer out of the queue: the
    sample must not skip the answers someone chose to look at.
    """
    said, utility = labels.of_answer(questions_row["id"])
    judge = questions_row.get("judge_sentences") or []
    judged = questions_row.get("judged", bool(judge))
    sentences_done = not judged or all(said.get(index, (None, False))[1] for index in range(len(judge)))
    needs_utility = questions_row.get("utility_q") is not None
    return sentences_done and (not needs_utility or (utility is not None and utility[1]))


def plan_category(corrected: list[CorrectedMetric]) -> str | None:
    """The category the queue offers first: the stratified metrics' plans' next category with
    the largest gap (faithfulness before utility on a tie); None while no metric is stratified
    or every plan is met."""
    gaps = [
        (metric.plan.next_more, -order, metric.plan.next_category)
        for order, metric in enumerate(corrected)
        if metric.stratified and metric.plan is not None and metric.plan.next_category is not None
    ]
    return max(gaps)[2] if gaps else None


def pending(questions: pl.DataFrame, labels: RunLabels, seed: int = QUEUE_SEED, *, first: str | None = None) -> list[str]:
    """The queue without the answers already labelled in full from it; `first`: that
    category's answers before the others (the label plan's, `plan_category`), each part in
    the queue's order."""
    order = queue_order(questions, seed)
    columns = ["id", "judge_sentences", *[c for c in ("judged", "utility_q", "category") if c in questions.columns]]
    rows = {row["id"]: row for row in questions.select(columns).iter_rows(named=True)}
    left = [qid for qid in order if not answer_done(rows[qid], labels)]
    if first is None:
        return left
    planned = [qid for qid in left if (rows[qid].get("category") or UNCATEGORIZED) == first]
    return planned + [qid for qid in left if (rows[qid].get("category") or UNCATEGORIZED) != first]
