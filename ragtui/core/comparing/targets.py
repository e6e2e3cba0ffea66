"""How sure is "meets the target": each run's own interval, and its verdict against the target.

A point estimate above its target says little at n = 90: 86.7 % ± 7 points reaches below
80 %. Each run's value therefore gets its own interval (at the configured confidence) and
one of three verdicts: `meets` when the whole interval lies on the good side of the target,
`misses` when it lies wholly on the bad side, `inconclusive` otherwise.

Intervals: Wilson for a proportion of questions (recall, abstention, false abstention: a
0/1 outcome per question), the bootstrap over questions for everything else (pooled ratios
such as faithfulness, where a question weighs by its sentence count, and means such as
utility or cost), the bootstrap of the quantile for latency p50/p95 (`quantiles.py`). From
`stats.T_INTERVAL_FROM` questions on, a mean whose bootstrap would resample rows (cost,
tokens: different on every question) gets the t interval of its linearisation instead, as
Δ's does (`intervals.paired_change`). Per category too: a category of 14 questions is `inconclusive` against almost
any target, and the grid says so instead of showing a bare percentage.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from statistics import NormalDist
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ragtui.core.comparing.clustered import expanded_confidence, independent_ratio
from ragtui.core.comparing.quantiles import quantile_interval
from ragtui.core.comparing.report_model import MetricFields, Report
from ragtui.core.comparing.result import NO_READING, TargetReading
from ragtui.core.comparing.stats import (
    RESAMPLES,
    SEED,
    T_INTERVAL_FROM,
    RowGroups,
    bootstrap_delta_sums,
    distinct_rows,
    resamples_rows,
)
from ragtui.core.measuring.clusters import Clusters, cluster_index
from ragtui.core.measuring.distributions import t_quantile
from ragtui.core.measuring.metric_specs import METRICS, MetricSpec, metric_by_name
from ragtui.core.measuring.metrics import num_den
from ragtui.core.vocabulary import interval_text, target_text, value_text

if TYPE_CHECKING:
    from ragtui.core.loading.config import Config
    from ragtui.core.measuring.evaluate import Evaluation

MEETS, MISSES, INCONCLUSIVE = "meets", "misses", "inconclusive"


def two_sided_z(confidence: float) -> float:
    """The normal quantile of a two-sided interval: 1.96 at 95 %."""
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def wilson_interval(
    successes: float, n: float, confidence: float = 0.95, *, quantile: float | None = None
) -> tuple[float, float] | None:
    """Wilson score interval of a proportion; holds near 0 and 1 where the normal one does not.

    `quantile` replaces the normal one (t_{G−1}'s, for a clustered share)."""
    if n <= 0:
        return None
    z = two_sided_z(confidence) if quantile is None else quantile
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def ratio_interval(
    num: np.ndarray, den: np.ndarray, confidence: float = 0.95, *, resamples: int = RESAMPLES, seed: int = SEED,
    distinct: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> tuple[float, float] | None:
    """Percentile interval of Σnum/Σden, resampling questions (rows), never sentences.

    From `T_INTERVAL_FROM` questions on, values different on almost every question (whose
    bootstrap would resample rows) get the t interval of the linearised ratio instead.
    `distinct` gives the `distinct_rows` of the measured (num, den) rows when they were
    grouped beside other subsets of the same questions (`measured_groups`)."""
    keep = den > 0
    if not keep.any():
        return None
    values = np.column_stack([num[keep], den[keep]]).astype(np.float64)
    distinct_values = distinct_rows(values) if distinct is None else distinct()
    if len(values) >= T_INTERVAL_FROM and resamples_rows(len(values), len(distinct_values[0])):
        large = independent_ratio(values[:, 0], values[:, 1])
        return None if large is None else large.interval(confidence)
    sums = bootstrap_delta_sums(values, resamples, seed, distinct=distinct_values)
    ratio = sums[:, 0] / sums[:, 1]  # every resample holds at least one row with den > 0
    alpha = 1.0 - confidence
    low, high = np.quantile(ratio, [alpha / 2, 1 - alpha / 2])
    return float(low), float(high)


def clustered_wilson_interval(outcomes: np.ndarray, clusters: Clusters, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson's interval over the effective number of questions, n / design effect, with t_{G−1}'s quantile.

    The design effect is the clustered variance of the share over the binomial one, never
    taken below 1: a handful of documents cannot vouch for more independence than the
    questions themselves have (Korn & Graubard's effective-n interval).
    """
    n = outcomes.size
    if n == 0:
        return None
    count = int(np.unique(clusters.index).size)
    share = float(outcomes.mean())
    effect = 1.0
    if count >= 2 and 0.0 < share < 1.0:
        sums = np.bincount(clusters.index, weights=outcomes - share, minlength=clusters.count)
        clustered = count / (count - 1) * float((sums**2).sum()) / (n * n)
        effect = max(1.0, clustered / (share * (1 - share) / n))
    quantile = t_quantile(confidence, count - 1) if count >= 2 else two_sided_z(confidence)
    return wilson_interval(share * n / effect, n / effect, confidence, quantile=quantile)


def measured_groups(num: np.ndarray, den: np.ndarray) -> Callable[[np.ndarray | None], tuple[np.ndarray, np.ndarray]]:
    """The `distinct_rows` of the measured (num, den) rows (den > 0) of the questions at any
    ascending row indices (None: all of them), the questions grouped once (`stats.RowGroups`):
    what `ratio_interval` groups for a run overall and in each category."""
    measured = den > 0
    groups = RowGroups(np.column_stack([num[measured], den[measured]]).astype(np.float64))
    place = np.cumsum(measured) - 1  # each question's row among the measured ones

    def within(rows: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        return groups.whole if rows is None else groups.within(place[rows[measured[rows]]])

    return within


def run_interval(
    spec: MetricSpec, num: np.ndarray, den: np.ndarray, confidence: float, clusters: Clusters | None = None,
    distinct: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> tuple[float, float] | None:
    """The run's interval for one metric: Wilson for a 0/1 outcome per question, else the bootstrap.

    With clusters: the clustered Wilson interval, or the bootstrap of whole clusters (its
    percentile interval expanded for few of them, as Δ's is). `distinct`: as `ratio_interval`
    takes it, for the bootstrap without clusters.
    """
    measured = den > 0
    if spec.quantile is not None:  # latency p50/p95: the bootstrap of the run's quantile (quantiles.py)
        return quantile_interval(num, measured, spec.quantile, confidence=confidence)
    if clusters is None:
        if spec.binary:
            return wilson_interval(float(num[measured].sum()), float(measured.sum()), confidence)
        return ratio_interval(num, den, confidence, distinct=distinct)
    kept = Clusters(clusters.index[measured], clusters.count)
    if spec.binary:
        return clustered_wilson_interval(num[measured].astype(np.float64), kept, confidence)
    if not measured.any():
        return None
    count = int(np.unique(kept.index).size)
    sums = kept.sums(np.column_stack([num[measured], den[measured]]).astype(np.float64))
    sums = sums[sums[:, 1] > 0]
    return ratio_interval(sums[:, 0], sums[:, 1], expanded_confidence(confidence, count))


def target_verdict(ci: tuple[float, float] | None, target: float | None, higher_is_better: bool) -> str | None:
    """`meets`, `misses` or `inconclusive`; None without a target or an interval.

    An interval that touches the target from the good side still meets it (`≥ 80 %` holds at 80 %).
    """
    if ci is None or target is None:
        return None
    low, high = ci
    good_low, good_high = (low >= target, high >= target) if higher_is_better else (high <= target, low <= target)
    if good_low and good_high:
        return MEETS
    if not good_low and not good_high:
        return MISSES
    return INCONCLUSIVE


def _reading(
    spec: MetricSpec, num: np.ndarray, den: np.ndarray, target: float, confidence: float, clusters: Clusters | None = None,
    distinct: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> TargetReading:
    ci = run_interval(spec, num, den, confidence, clusters, distinct)
    return TargetReading(target_verdict(ci, target, spec.higher_is_better), ci)


def read_targets(evaluation: Evaluation, config: Config) -> tuple[dict[str, TargetReading], dict[str, dict[str, TargetReading]]]:
    """One run against its targets: (metric name → reading, category → metric name → reading).

    Only metrics with a target get an interval: the interval is what decides the verdict, and
    a bootstrap of a metric with many distinct values costs seconds at 100,000 questions.
    """
    k = evaluation.k
    targeted = [(spec, target) for spec in METRICS if (target := config.target(spec.name(k))) is not None]
    overall: dict[str, TargetReading] = {}
    by_category: dict[str, dict[str, TargetReading]] = {}
    if not targeted:
        return overall, by_category
    columns = []
    for spec, _ in targeted:
        num_expr, den_expr = num_den(spec)
        columns += [num_expr.alias(f"{spec.key}:num"), den_expr.alias(f"{spec.key}:den")]
    frame = evaluation.questions.select(pl.col("category"), *columns)
    clusters = (
        cluster_index(evaluation.questions.get_column("cluster"), evaluation.questions.get_column("id"))
        if evaluation.clustered_by else None
    )
    # Each category's rows found once, by polars: comparing a numpy array of Python strings
    # for every metric and category took 0.8 s at 1,000,000 questions. Kept as indices: the
    # rows a boolean mask picks, in the same order, taken twenty times faster.
    categories = frame.get_column("category")
    category_rows = {category: np.flatnonzero((categories == category).to_numpy()) for category in categories.unique(maintain_order=True).to_list()}
    for spec, target in targeted:
        num = frame.get_column(f"{spec.key}:num").to_numpy()
        den = frame.get_column(f"{spec.key}:den").to_numpy()
        name = spec.name(k)
        # A bootstrap of the run's own values groups its rows once, for the run and every category.
        groups = measured_groups(num, den) if clusters is None and not spec.binary and spec.quantile is None else None
        overall[name] = _reading(spec, num, den, target, config.confidence, clusters, None if groups is None else functools.partial(groups, None))
        for category, rows in category_rows.items():
            part = Clusters(clusters.index[rows], clusters.count) if clusters is not None else None
            distinct = None if groups is None else functools.partial(groups, rows)
            by_category.setdefault(category, {})[name] = _reading(spec, num[rows], den[rows], target, config.confidence, part, distinct)
    return overall, by_category


def readings_of_values(spec: MetricSpec, values: dict[str, np.ndarray], target: float | None, confidence: float) -> dict[str, TargetReading]:
    """Each run's reading for a metric that is a plain mean of per-question values (a tool's score)."""
    if target is None:
        return {}
    return {run: _reading(spec, v, np.ones(len(v)), target, confidence) if len(v) else NO_READING for run, v in values.items()}


def metric_spec(name: str, metric: Mapping[str, object]) -> MetricSpec:
    """The spec of a metric of the report document (a metric or a category's cell): ragtui's
    own, or a tool's (`TOOL:METRIC`, its direction and scale in the report). The formats
    (`vocabulary.value_text`, …) read the scale from it."""
    try:
        return metric_by_name(name)
    except KeyError:
        return MetricSpec(name, name, higher_is_better=bool(metric.get("higher_is_better", True)), scale=str(metric.get("scale", "rate")))


def _target_readings(report: Report) -> list[tuple[str, MetricFields, str, str, list[float | None]]]:
    """(name, metric, the latest run, its verdict, its interval) for every metric with a reading; a peer tool's too."""
    latest = "B" if "B" in report["runs"] else "A"
    out = []
    for name, metric in {**report["metrics"], **report.get("tool_metrics", {})}.items():
        verdict = (metric.get("meets_target") or {}).get(latest)
        ci = (metric.get("ci_by_run") or {}).get(latest)
        if verdict is not None and ci is not None:
            out.append((name, metric, latest, verdict, ci))
    return out


def inconclusive_targets(report: Report) -> list[str]:
    """The metrics whose latest run is inconclusive against its target, in the report's order."""
    return [name for name, _, _, verdict, _ in _target_readings(report) if verdict == INCONCLUSIVE]


def target_failures(report: Report, *, strict: bool) -> list[str]:
    """What `--fail-below-target` fails on in a report document, one reason per metric.

    The latest run (B, or A alone) is judged: `misses` fails; `inconclusive` fails only
    when `strict` (`--strict-targets`), since it means "not enough questions to tell".
    Values read as everywhere else: `recall@5 of B misses its target ≥ 80% (71.1%, CI 61.0…79.5%)`.
    """
    reasons = []
    for name, metric, latest, verdict, ci in _target_readings(report):
        spec = metric_spec(name, metric)
        value = metric["A"] if latest == "A" else metric.get("B")
        said = f"{value_text(value, spec)}, CI {interval_text(ci, spec)}"
        target = target_text(metric["target"], spec)
        if verdict == MISSES:
            reasons.append(f"{name} of {latest} misses its target {target} ({said})")
        elif verdict == INCONCLUSIVE and strict:
            reasons.append(f"{name} of {latest} is inconclusive against its target {target} ({said}; --strict-targets)")
    return reasons
