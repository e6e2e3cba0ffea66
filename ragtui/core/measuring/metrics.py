"""Aggregate metrics of docs/metrics.md, overall and per category, with their n.

Every metric is a ratio Σ num / Σ den over per-question columns: a mean over its
population (den = 1 for members, 0 otherwise) or a pooled ratio (faithfulness:
attested / judged sentences). The same per-question columns feed the paired bootstrap
in `compare`, so the point estimate and its interval can never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metric_specs import METRICS, Counts, MetricSpec, MetricValue

CURVE_MAX_K = 20


@dataclass(frozen=True)
class Formula:
    """How one metric is computed from the per-question columns: Σ num / Σ den over its members."""

    member: pl.Expr
    num: pl.Expr
    den: pl.Expr = pl.lit(1.0)
    # The questions the metric is about, measured or not: an empty population with a
    # non-empty scope is "not available" (verdicts missing or errored, no gold passages…);
    # an empty scope is "does not apply" (no unanswerable question in the gold set).
    scope: pl.Expr | None = None


_RETRIEVAL_MEMBER = pl.col("answerable") & pl.col("gold_known")
_ANSWERED = pl.col("present") & pl.col("answer").is_not_null()
_NEEDS_VERDICT = _ANSWERED & ~pl.col("abstained").fill_null(False)
_MAYBE_UNANSWERABLE = pl.col("unanswerable") | ~pl.col("answerability_known")
_ANSWERED_OK = pl.col("present") & ~pl.col("system_failed")

FORMULAS: dict[str, Formula] = {
    "recall": Formula(_RETRIEVAL_MEMBER, pl.col("hit_at_k")),
    "faithfulness": Formula(pl.col("judged"), pl.col("n_attested"), pl.col("n_sentences"), scope=_NEEDS_VERDICT),
    "abstention": Formula(
        pl.col("unanswerable") & pl.col("answer_known") & pl.col("answerability_known"), pl.col("abstained"), scope=_MAYBE_UNANSWERABLE
    ),
    "utility": Formula(pl.col("utility_q").is_not_null(), pl.col("utility_q"), scope=_ANSWERED),
    "context_precision": Formula(_RETRIEVAL_MEMBER, pl.col("context_precision_at_k")),
    "mrr": Formula(_RETRIEVAL_MEMBER, pl.col("rr_at_k")),
    "false_abstention": Formula(
        pl.col("answerable") & pl.col("answer_known") & pl.col("answerability_known"), pl.col("abstained_or_missing"), scope=pl.col("answerable")
    ),
    "context_recall": Formula(_RETRIEVAL_MEMBER, pl.col("context_recall_at_k")),
    "precision": Formula(_RETRIEVAL_MEMBER, pl.col("precision_at_k")),
    "ndcg": Formula(_RETRIEVAL_MEMBER, pl.col("ndcg_at_k")),
    "faithfulness_macro": Formula(pl.col("judged"), pl.col("faithfulness_q"), scope=_NEEDS_VERDICT),
    # A system error's latency or cost is not the system's answering: left out, as its answer is.
    "latency_p50_ms": Formula(_ANSWERED_OK & pl.col("latency_ms").is_not_null(), pl.col("latency_ms"), scope=_ANSWERED_OK),
    "latency_p95_ms": Formula(_ANSWERED_OK & pl.col("latency_ms").is_not_null(), pl.col("latency_ms"), scope=_ANSWERED_OK),
    "cost_usd": Formula(_ANSWERED_OK & pl.col("cost_usd").is_not_null(), pl.col("cost_usd"), scope=_ANSWERED_OK),
    "tokens": Formula(
        _ANSWERED_OK & (pl.col("tokens_in").is_not_null() | pl.col("tokens_out").is_not_null()),
        pl.col("tokens_in").fill_null(0) + pl.col("tokens_out").fill_null(0),
        scope=_ANSWERED_OK,
    ),
}


def num_den(spec: MetricSpec) -> tuple[pl.Expr, pl.Expr]:
    """Per-question (numerator, denominator) of a metric, zero outside its population."""
    formula = FORMULAS[spec.key]
    member = formula.member.fill_null(False)
    return (
        pl.when(member).then(formula.num.cast(pl.Float64)).otherwise(0.0),
        pl.when(member).then(formula.den.cast(pl.Float64)).otherwise(0.0),
    )


def quantile_of(spec: MetricSpec, num: pl.Expr, den: pl.Expr) -> pl.Expr:
    """A quantile metric's value: the quantile of `num` over its member rows (den > 0)."""
    assert spec.quantile is not None
    return num.filter(den > 0).quantile(spec.quantile, interpolation="linear")


def _aggregations() -> list[pl.Expr]:
    exprs = []
    for spec in METRICS:
        num, den = num_den(spec)
        member = FORMULAS[spec.key].member
        exprs += [num.sum().alias(f"{spec.key}:num"), den.sum().alias(f"{spec.key}:den"), member.fill_null(False).sum().alias(f"{spec.key}:n")]
        if spec.quantile is not None:
            exprs.append(quantile_of(spec, num, den).alias(f"{spec.key}:q"))
    return exprs


def metric_value(spec: MetricSpec, row: dict, suffix: str = "") -> float | None:
    """A metric's value from its aggregated `KEY:num`, `KEY:den` (and `KEY:q`) fields, None when nothing was measured."""
    den = row.get(f"{spec.key}:den{suffix}") or 0.0
    if not den:
        return None
    if spec.quantile is not None:
        value = row[f"{spec.key}:q{suffix}"]
        return None if value is None else float(value)
    return float(row[f"{spec.key}:num{suffix}"] / den)


def _to_values(row: dict, k: int) -> dict[str, MetricValue]:
    return {spec.name(k): MetricValue(metric_value(spec, row), int(row[f"{spec.key}:n"])) for spec in METRICS}


def unavailable_metrics(evaluation: Evaluation) -> set[str]:
    """Metrics that measure nothing although there are questions for them to measure."""
    exprs = []
    for spec in METRICS:
        formula = FORMULAS[spec.key]
        scope = formula.scope if formula.scope is not None else (pl.col("answerable") if spec.at_k else formula.member)
        exprs += [formula.member.fill_null(False).sum().alias(f"{spec.key}:n"), scope.fill_null(False).sum().alias(f"{spec.key}:scope")]
    row = evaluation.questions.select(exprs).row(0, named=True)
    return {spec.name(evaluation.k) for spec in METRICS if row[f"{spec.key}:n"] == 0 and row[f"{spec.key}:scope"] > 0}


def summarize(evaluation: Evaluation) -> dict[str, MetricValue]:
    """Every metric over all gold questions."""
    row = evaluation.questions.select(_aggregations()).row(0, named=True)
    return _to_values(row, evaluation.k)


def summarize_by_category(evaluation: Evaluation) -> dict[str, tuple[int, dict[str, MetricValue]]]:
    """category → (n questions, every metric), in order of first appearance."""
    grouped = evaluation.questions.group_by("category", maintain_order=True).agg(pl.len().alias("_n"), *_aggregations())
    return {row["category"]: (row["_n"], _to_values(row, evaluation.k)) for row in grouped.iter_rows(named=True)}


def summarize_by_tag(evaluation: Evaluation) -> dict[str, tuple[int, dict[str, MetricValue]]]:
    """tag → (n questions carrying it, every metric), as `summarize_by_category`; {} without tags."""
    if "tags" not in evaluation.questions.columns:
        return {}
    exploded = evaluation.questions.explode("tags").filter(pl.col("tags").is_not_null())
    grouped = exploded.group_by("tags", maintain_order=True).agg(pl.len().alias("_n"), *_aggregations())
    return {row["tags"]: (row["_n"], _to_values(row, evaluation.k)) for row in grouped.iter_rows(named=True)}


def counts(evaluation: Evaluation) -> Counts:
    from ragtui.core.measuring.evaluate import FAILURE_KINDS

    frame = evaluation.questions
    row = frame.select(
        pl.len().alias("questions"),
        pl.col("present").sum().alias("present"),
        (~pl.col("present")).sum().alias("missing"),
        pl.col("judge_failed").sum().alias("judge_errors"),
        pl.col("system_failed").sum().alias("system_errors"),
        pl.col("abstained_excluded").sum().alias("abstained_excluded"),
        pl.col("judged").sum().alias("judged"),
        pl.col("failed").sum().alias("failing"),
        *[pl.col(f"fail_{kind}").sum().alias(f"kind:{kind}") for kind in FAILURE_KINDS],
    ).row(0, named=True)
    return Counts(
        questions=row["questions"],
        present=row["present"],
        missing=row["missing"],
        extra=len(evaluation.extra_ids),
        judge_errors=row["judge_errors"],
        abstained_excluded=row["abstained_excluded"],
        judged=row["judged"],
        failing=row["failing"],
        failure_kinds={kind: row[f"kind:{kind}"] for kind in FAILURE_KINDS},
        system_errors=row["system_errors"],
    )


def recall_curve(evaluation: Evaluation, max_k: int = CURVE_MAX_K) -> list[float | None]:
    """recall@j for j = 1…max_k (from the first gold rank, so one pass serves every j)."""
    # Lazy, so the filter copies the one column read, not the whole frame (seconds at 10^6 rows).
    population = (
        evaluation.questions.lazy().filter(pl.col("answerable") & pl.col("gold_known")).select("first_gold_rank").collect()
    )
    if population.height == 0:
        return [None] * max_k
    rank = pl.col("first_gold_rank")
    row = population.select([(rank <= j).fill_null(False).mean().alias(str(j)) for j in range(1, max_k + 1)]).row(0)
    return [float(v) for v in row]
