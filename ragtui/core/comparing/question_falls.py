"""Which headline metrics fell for one question between A and B, and from what to what.

A regressed question's cause says where it broke (retrieval, generation, …); a CI report
also names the metrics that fell on it: `faithfulness 1.000 → 0.667`. Each value is the
question's own share of the metric (`metrics.num_den`, the same numerator and denominator
the run's value sums), so a question outside a metric's population has no value for it.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metric_specs import HEADLINE, metric_by_name
from ragtui.core.measuring.metrics import num_den


@dataclass(frozen=True)
class MetricFall:
    """One metric that fell on one question: its reported name and the question's values."""

    metric: str  # `recall@5`, `faithfulness`, …
    a: float
    b: float | None  # None: B did not measure it (the question is missing, or its verdict errored)


def _values(evaluation: Evaluation, ids: list[str], k: int) -> pl.DataFrame:
    """id and one column per headline metric: the question's value, null outside the metric's population."""
    columns = []
    for key in HEADLINE:
        spec = metric_by_name(key)
        num, den = num_den(spec)
        columns.append(pl.when(den > 0).then(num / den).otherwise(None).alias(spec.name(k)))
    return evaluation.questions.filter(pl.col("id").is_in(ids)).select("id", *columns)


def metric_falls(a: Evaluation, b: Evaluation, ids: list[str], k: int) -> dict[str, tuple[MetricFall, ...]]:
    """For each id, the headline metrics whose value got worse in B (or was lost), in HEADLINE's order."""
    if not ids:
        return {}
    joined = _values(a, ids, k).join(_values(b, ids, k), on="id", how="left", suffix=":b")
    names = [metric_by_name(key).name(k) for key in HEADLINE]
    falls: dict[str, tuple[MetricFall, ...]] = {}
    for row in joined.iter_rows(named=True):
        found = []
        for name in names:
            before, after = row[name], row[f"{name}:b"]
            if before is None:
                continue
            worse = after is None or (after < before if metric_by_name(name).higher_is_better else after > before)
            if worse:
                found.append(MetricFall(name, before, after))
        falls[row["id"]] = tuple(found)
    return falls
