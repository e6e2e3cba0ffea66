"""Compare two evaluations: Δ with its interval, verdicts, per-question status and causes.

Δ = metric(B) − metric(A) on the questions both runs hold. Each metric gets a paired
bootstrap interval (and an exact McNemar p-value for 0/1 outcomes) and a verdict:
`regressed` when the interval lies wholly on the bad side of 0, `improved` on the good
side, else `no_clear_change`; a drop larger than `max_drop` is flagged either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from ragtui.core.loading.config import Config
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metrics import METRICS, Counts, MetricSpec, MetricValue, counts, summarize, summarize_by_category
from ragtui.core.comparing.stats import mcnemar_exact_p, paired_bootstrap_ci

REGRESSED, IMPROVED, NO_CLEAR_CHANGE = "regressed", "improved", "no_clear_change"
STATUSES = ("regressed", "fixed", "still_failing", "passing")
# Utility is on a 1–5 scale: a drop is flagged at the same share of its range as a rate.
UTILITY_RANGE = 4.0


@dataclass(frozen=True)
class MetricComparison:
    """One metric for A and B (B fields None with a single run)."""

    name: str
    spec: MetricSpec
    a: MetricValue
    b: MetricValue | None = None
    delta: float | None = None
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    verdict: str | None = None
    n: int = 0
    target: float | None = None
    drop_flagged: bool = False

    def meets_target(self, value: MetricValue | None) -> bool | None:
        if self.target is None or value is None or value.value is None:
            return None
        return value.value >= self.target if self.spec.higher_is_better else value.value <= self.target


@dataclass(frozen=True)
class Comparison:
    """Everything the dashboard and the report show; B is None for a single run."""

    a: Evaluation
    b: Evaluation | None
    config: Config
    metrics: dict[str, MetricComparison]
    categories: dict[str, dict]
    status: pl.DataFrame  # id, category, status, cause, kinds_added, kinds_removed, …
    warnings: tuple[str, ...] = field(default_factory=tuple)
    # A peer tool's own metrics (`TOOL:METRIC` → tool_metrics.ToolMetric) and whose
    # verdicts made each question pass or fail ("ragtui", "tool", "both"): see session.
    tool_metrics: dict[str, Any] = field(default_factory=dict)
    status_from: str = "ragtui"
    # People's labels per side ("A", "B"), set by `session.load_comparison` (ragtui.core.labels).
    labels: dict = field(default_factory=dict)

    @property
    def k(self) -> int:
        return self.a.k

    def question_ids(self, status: str) -> list[str]:
        return self.status.filter(pl.col("status") == status).get_column("id").to_list()


def _verdict(spec: MetricSpec, ci: tuple[float, float] | None) -> str:
    if ci is None:
        return NO_CLEAR_CHANGE
    low, high = ci
    if low > 0:
        return IMPROVED if spec.higher_is_better else REGRESSED
    if high < 0:
        return REGRESSED if spec.higher_is_better else IMPROVED
    return NO_CLEAR_CHANGE


def _paired(a: Evaluation, b: Evaluation) -> pl.DataFrame:
    """A and B side by side on the questions both hold (all gold questions with a gold set)."""
    # Only what `_status` reads besides the metrics' own columns: list columns are costly to join.
    keep = ["id", "category", "present", "failed", "failures", "hit_at_k", "first_gold_rank", "retrieved_ids"]
    specs = []
    for spec in METRICS:
        num, den = spec.num_den()
        specs += [num.alias(f"{spec.key}:num"), den.alias(f"{spec.key}:den")]
    left = a.questions.with_columns(specs).select(keep + [c.meta.output_name() for c in specs])
    right = b.questions.with_columns(specs).select(keep + [c.meta.output_name() for c in specs])
    return left.join(right.drop("category"), on="id", how="inner", suffix="_b", maintain_order="left")


def _metric_comparisons(paired: pl.DataFrame, a: Evaluation, b: Evaluation, config: Config) -> dict[str, MetricComparison]:
    values_a, values_b = summarize(a), summarize(b)
    out = {}
    for spec in METRICS:
        name = spec.name(a.k)
        cols = paired.select(f"{spec.key}:num", f"{spec.key}:den", f"{spec.key}:num_b", f"{spec.key}:den_b").to_numpy()
        num_a, den_a, num_b, den_b = cols.T if len(cols) else (np.array([]),) * 4
        common = int(((den_a > 0) | (den_b > 0)).sum()) if len(cols) else 0
        point_a = float(num_a.sum() / den_a.sum()) if len(cols) and den_a.sum() > 0 else None
        point_b = float(num_b.sum() / den_b.sum()) if len(cols) and den_b.sum() > 0 else None
        delta = point_b - point_a if point_a is not None and point_b is not None else None
        ci = paired_bootstrap_ci(num_a, den_a, num_b, den_b, confidence=config.confidence) if delta is not None else None
        p_value = None
        if spec.binary and delta is not None:
            both = (den_a > 0) & (den_b > 0)
            worse = int(((num_a == 1) & (num_b == 0) & both).sum())
            better = int(((num_a == 0) & (num_b == 1) & both).sum())
            p_value = mcnemar_exact_p(worse, better)
        scale = UTILITY_RANGE if spec.scale == "score" else 1.0
        bad_move = None if delta is None else (-delta if spec.higher_is_better else delta)
        out[name] = MetricComparison(
            name=name,
            spec=spec,
            a=values_a[name],
            b=values_b[name],
            delta=delta,
            ci=ci,
            p_value=p_value,
            verdict=_verdict(spec, ci) if delta is not None else None,
            n=common,
            target=config.target(name),
            drop_flagged=bool(bad_move is not None and bad_move > config.max_drop * scale + 1e-12),
        )
    return out


def _status(paired: pl.DataFrame, k: int) -> pl.DataFrame:
    failed_a, failed_b = pl.col("failed"), pl.col("failed_b")
    status = (
        pl.when(~failed_a & failed_b).then(pl.lit("regressed"))
        .when(failed_a & ~failed_b).then(pl.lit("fixed"))
        .when(failed_a & failed_b).then(pl.lit("still_failing"))
        .otherwise(pl.lit("passing"))
    )
    top_a = pl.col("retrieved_ids").fill_null([]).list.unique(maintain_order=True).list.head(k).list.sort()
    top_b = pl.col("retrieved_ids_b").fill_null([]).list.unique(maintain_order=True).list.head(k).list.sort()
    gold_fell_out = (pl.col("hit_at_k") == 1) & (pl.col("hit_at_k_b") == 0)
    gold_came_in = (pl.col("hit_at_k") == 0) & (pl.col("hit_at_k_b") == 1)
    same_passages = top_a == top_b
    cause = (
        pl.when(~pl.col("present_b")).then(pl.lit("missing"))
        .when(gold_fell_out.fill_null(False)).then(pl.lit("retrieval"))
        .when(same_passages.fill_null(False)).then(pl.lit("generation_same_passages"))
        .otherwise(pl.lit("generation"))
    )
    return paired.select(
        "id",
        "category",
        status.alias("status"),
        pl.when(status == "regressed").then(cause).alias("cause"),
        pl.col("failures_b").list.set_difference(pl.col("failures")).alias("kinds_added"),
        pl.col("failures").list.set_difference(pl.col("failures_b")).alias("kinds_removed"),
        gold_fell_out.fill_null(False).alias("gold_fell_out"),
        gold_came_in.fill_null(False).alias("gold_came_in"),
        same_passages.fill_null(False).alias("same_passages"),
        pl.col("first_gold_rank").alias("first_gold_rank_a"),
        pl.col("first_gold_rank_b"),
    )


def _categories(a: Evaluation, b: Evaluation | None) -> dict[str, dict]:
    by_a = summarize_by_category(a)
    by_b = summarize_by_category(b) if b is not None else {}
    out: dict[str, dict] = {}
    for category in list(by_a) + [c for c in by_b if c not in by_a]:
        n_a, metrics_a = by_a.get(category, (0, {}))
        n_b, metrics_b = by_b.get(category, (0, {}))
        metrics = {}
        for name in metrics_a or metrics_b:
            va = metrics_a.get(name, MetricValue(None, 0))
            vb = metrics_b.get(name) if b is not None else None
            delta = vb.value - va.value if vb is not None and vb.value is not None and va.value is not None else None
            metrics[name] = {"A": va, "B": vb, "delta": delta}
        out[category] = {"n": max(n_a, n_b), "metrics": metrics}
    return out


def compare(a: Evaluation, b: Evaluation | None, config: Config) -> Comparison:
    """The comparison of B against A (or the summary of A alone when B is None)."""
    warnings = list(a.warnings)
    if b is None:
        values = summarize(a)
        metrics = {
            name: MetricComparison(name=name, spec=next(s for s in METRICS if s.name(a.k) == name), a=value, n=value.n, target=config.target(name))
            for name, value in values.items()
        }
        status = a.questions.select(
            "id", "category", pl.when(pl.col("failed")).then(pl.lit("still_failing")).otherwise(pl.lit("passing")).alias("status")
        )
        return Comparison(a, None, config, metrics, _categories(a, None), status, tuple(warnings) + _judge_warnings(a))
    warnings += list(b.warnings)
    if a.k != b.k:
        warnings.append(f"the runs were evaluated at different k ({a.k} and {b.k})")
    paired = _paired(a, b)
    if paired.height == 0:
        from ragtui.core.errors import InputError, problem

        raise InputError(problem(b.run.path, None, "id", f"no question in common with {a.run.path}"))
    only = a.questions.height + b.questions.height - 2 * paired.height
    if only:
        warnings.append(f"{only} question(s) are in only one run and are left out of Δ")
    metrics = _metric_comparisons(paired, a, b, config)
    return Comparison(
        a, b, config, metrics, _categories(a, b), _status(paired, a.k),
        tuple(warnings) + _judge_warnings(a, "A") + _judge_warnings(b, "B") + _judge_directed_warning(a, b),
    )


def _judge_directed_warning(a: Evaluation, b: Evaluation) -> tuple[str, ...]:
    """B addresses the judge more than A: its faithfulness may have been talked up."""
    in_a, in_b = a.judge_directed["questions"], b.judge_directed["questions"]
    if in_b <= in_a:
        return ()
    return (
        f"B has more questions whose answer or passages address the judge than A ({in_b} vs {in_a}): "
        "its verdicts may have been talked into; read those questions (⚠) before trusting a gain",
    )


def _judge_warnings(evaluation: Evaluation, label: str | None = None) -> tuple[str, ...]:
    from ragtui.core.families import same_family_warning

    run = evaluation.run
    warning = same_family_warning(run.meta.generator_model, run.judge_model())
    if warning is None:
        return ()
    return (f"{label or run.name} ({run.name}): {warning}" if label else warning,)


def counts_for(comparison: Comparison) -> dict[str, Counts]:
    """Counts of A and B for headers (questions, missing, judge errors, …)."""
    out = {"A": counts(comparison.a)}
    if comparison.b is not None:
        out["B"] = counts(comparison.b)
    return out
