"""Compare two evaluations: Δ with its interval, verdicts, per-question status and causes.

One pairing rule holds everywhere: A, B and Δ = B − A are all computed over the questions
both runs hold (with a gold set, every gold question: a missing one counts as a failure),
overall and per category; questions in one run only are counted and named, never mixed
in. Each metric gets a paired bootstrap interval (and an exact McNemar p-value for 0/1
outcomes) and a verdict: `regressed` when the interval lies wholly on the bad side of 0
(and, for 0/1 outcomes, McNemar's p is below 1 − confidence), `improved` on the good side,
else `no_clear_change`; a drop larger than `max_drop` is flagged either way. Those
intervals, verdicts and target readings are the slow half (`intervals.py`): with
`intervals=False` they are left pending, for the app to paint the values first.

`compare` returns the whole result every view renders (`ragtui.core.comparing.result`):
metrics, categories, each run's counts, recall curve and judge trust, statuses, warnings.
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from ragtui.core.comparing.intervals import IMPROVED, NO_CLEAR_CHANGE, REGRESSED, with_intervals
from ragtui.core.comparing.pairing import measure_columns, paired_frame
from ragtui.core.comparing.result import CategoryCell, CategoryComparison, Comparison, MetricComparison
from ragtui.core.comparing.run_summary import run_labels, summarize_run
from ragtui.core.comparing.run_warnings import judge_change_warning, judge_directed_warning, judge_warnings, unpaired_warning
from ragtui.core.loading.config import Config
from ragtui.core.loading.labels import RunLabels
from ragtui.core.measuring.calibration import calibrate
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metric_specs import METRICS, UTILITY_RANGE, MetricValue
from ragtui.core.measuring.metrics import metric_value, quantile_of, summarize, summarize_by_category, summarize_by_tag
from ragtui.core.measuring.retrieval import same_top_k

__all__ = ["IMPROVED", "NO_CLEAR_CHANGE", "REGRESSED", "STATUSES", "UTILITY_RANGE", "Comparison", "MetricComparison", "compare", "paired_frame", "relabelled"]

STATUSES = ("regressed", "fixed", "still_failing", "passing", "not_measured")


def _paired_values(frame: pl.DataFrame, k: int) -> tuple[dict[str, MetricValue], dict[str, MetricValue]]:
    """Each metric of A and of B over the same (paired) questions, with each run's n."""
    quantiles = [
        quantile_of(spec, pl.col(f"{spec.key}:num{side}"), pl.col(f"{spec.key}:den{side}")).alias(f"{spec.key}:q{side}")
        for spec in METRICS if spec.quantile is not None for side in ("", "_b")
    ]
    # Sums, quantiles and counts in one query: it runs once per category and tag.
    row = frame.select(
        *[pl.col(f"{spec.key}:{part}{side}").sum() for spec in METRICS for part in ("num", "den") for side in ("", "_b")],
        *quantiles,
        *[(pl.col(f"{spec.key}:den{side}") > 0).sum().alias(f"{spec.key}:n{side}") for spec in METRICS for side in ("", "_b")],
    ).row(0, named=True) if frame.height else {}
    out_a: dict[str, MetricValue] = {}
    out_b: dict[str, MetricValue] = {}
    for spec in METRICS:
        for side, out in (("", out_a), ("_b", out_b)):
            out[spec.name(k)] = MetricValue(metric_value(spec, row, side), int(row.get(f"{spec.key}:n{side}", 0)))
    return out_a, out_b


def _metric_values(paired: pl.DataFrame, a: Evaluation, config: Config, judge_changed: bool) -> dict[str, MetricComparison]:
    """Each metric's A, B, Δ, n and drop flag; its interval and verdict are left pending (`intervals.py`)."""
    values_a, values_b = _paired_values(paired, a.k)
    common = paired.select(
        ((pl.col(f"{spec.key}:den") > 0) | (pl.col(f"{spec.key}:den_b") > 0)).sum().alias(spec.key) for spec in METRICS
    ).row(0, named=True)
    out = {}
    for spec in METRICS:
        name = spec.name(a.k)
        point_a, point_b = values_a[name].value, values_b[name].value
        delta = point_b - point_a if point_a is not None and point_b is not None else None
        scale = UTILITY_RANGE if spec.scale == "score" else 1.0
        if spec.quantity and point_a is not None:  # ms, $ or tokens: max_drop is a share of A's value
            scale = abs(point_a)
        bad_move = None if delta is None else (-delta if spec.higher_is_better else delta)
        out[name] = MetricComparison(
            name=name,
            spec=spec,
            a=values_a[name],
            b=values_b[name],
            delta=delta,
            n=int(common[spec.key]),
            target=config.target(name),
            drop_flagged=bool(bad_move is not None and bad_move > config.max_drop * scale + 1e-12),
            judge_changed=judge_changed and spec.judged,
            intervals_pending=True,
        )
    return out


def _status(paired: pl.DataFrame, k: int) -> pl.DataFrame:
    failed_a, failed_b = pl.col("failed"), pl.col("failed_b")
    status = (
        pl.when(~failed_a & failed_b).then(pl.lit("regressed"))
        .when(failed_a & ~failed_b & pl.col("measured_b")).then(pl.lit("fixed"))
        .when(failed_a & failed_b).then(pl.lit("still_failing"))
        # Passing is a measured claim: a question nothing measured in B is not passing.
        .when(~pl.col("measured_b")).then(pl.lit("not_measured"))
        .otherwise(pl.lit("passing"))
    )
    gold_fell_out = (pl.col("hit_at_k") == 1) & (pl.col("hit_at_k_b") == 0)
    gold_came_in = (pl.col("hit_at_k") == 0) & (pl.col("hit_at_k_b") == 1)
    same_passages = same_top_k(pl.col("retrieved_ids"), pl.col("retrieved_ids_b"), k)
    kinds_added = pl.col("failures_b").list.set_difference(pl.col("failures"))
    # The judge failing on B is not the system getting worse: told apart from generation.
    only_judge_error = (kinds_added.list.len() == 1) & kinds_added.list.contains("judge_error")
    cause = (
        pl.when(~pl.col("present_b")).then(pl.lit("missing"))
        .when(kinds_added.list.contains("system_error").fill_null(False)).then(pl.lit("system_error"))
        .when(only_judge_error.fill_null(False)).then(pl.lit("judge_error"))
        .when(gold_fell_out.fill_null(False)).then(pl.lit("retrieval"))
        .when(same_passages.fill_null(False)).then(pl.lit("generation_same_passages"))
        .otherwise(pl.lit("generation"))
    )
    return paired.select(
        "id",
        "category",
        status.alias("status"),
        pl.when(status == "regressed").then(cause).alias("cause"),
        kinds_added.alias("kinds_added"),
        pl.col("failures").list.set_difference(pl.col("failures_b")).alias("kinds_removed"),
        gold_fell_out.fill_null(False).alias("gold_fell_out"),
        gold_came_in.fill_null(False).alias("gold_came_in"),
        same_passages.fill_null(False).alias("same_passages"),
        pl.col("first_gold_rank").alias("first_gold_rank_a"),
        pl.col("first_gold_rank_b"),
    )


def _single_status(a: Evaluation) -> pl.DataFrame:
    measured = measure_columns(a).get_column("measured")
    return a.questions.with_columns(measured=measured).select(
        "id",
        "category",
        pl.when(pl.col("failed")).then(pl.lit("still_failing"))
        .when(~pl.col("measured")).then(pl.lit("not_measured"))
        .otherwise(pl.lit("passing")).alias("status"),
    )


def _category_cells(values_a: dict[str, MetricValue], values_b: dict[str, MetricValue] | None) -> dict[str, CategoryCell]:
    cells = {}
    for name, va in values_a.items():
        vb = values_b[name] if values_b is not None else None
        delta = vb.value - va.value if vb is not None and vb.value is not None and va.value is not None else None
        cells[name] = CategoryCell(va, vb, delta)
    return cells


def _categories(a: Evaluation, paired: pl.DataFrame | None) -> dict[str, CategoryComparison]:
    """Per category: A, B and Δ under the same pairing rule as the overall metrics."""
    if paired is None:
        return {
            category: CategoryComparison(n, _category_cells(values, None))
            for category, (n, values) in summarize_by_category(a).items()
        }
    out: dict[str, CategoryComparison] = {}
    for (category,), group in paired.group_by("category", maintain_order=True):
        values_a, values_b = _paired_values(group, a.k)
        out[str(category)] = CategoryComparison(group.height, _category_cells(values_a, values_b))
    return out


def _tags(a: Evaluation, paired: pl.DataFrame | None) -> dict[str, CategoryComparison]:
    """Per tag of the gold set (a question counts in each of its tags), as `_categories` is per
    category; tags in order of first appearance. None without a gold set that has tags."""
    if paired is None:
        return {tag: CategoryComparison(n, _category_cells(values, None)) for tag, (n, values) in summarize_by_tag(a).items()}
    if "tags" not in paired.columns:
        return {}
    exploded = paired.explode("tags").filter(pl.col("tags").is_not_null())
    out: dict[str, CategoryComparison] = {}
    for (tag,), group in exploded.group_by("tags", maintain_order=True):
        values_a, values_b = _paired_values(group, a.k)
        out[str(tag)] = CategoryComparison(group.height, _category_cells(values_a, values_b))
    return out


def _unpaired(a: Evaluation, b: Evaluation) -> dict[str, list[str]]:
    """Ids held by one run only (never with a gold set: both then hold every gold question)."""
    ids_a, ids_b = a.questions.select("id"), b.questions.select("id")
    return {
        # Each run's own order, whatever order polars would choose.
        "A": ids_a.join(ids_b, on="id", how="anti", maintain_order="left").get_column("id").to_list(),
        "B": ids_b.join(ids_a, on="id", how="anti", maintain_order="left").get_column("id").to_list(),
    }


def _status_counts(status: pl.DataFrame) -> dict[str, int]:
    """Questions per status, every status named (0 where none)."""
    tally = status.group_by("status").agg(pl.len().alias("n"))
    found = dict(zip(tally.get_column("status").to_list(), tally.get_column("n").to_list(), strict=True))
    return {name: int(found.get(name, 0)) for name in STATUSES}


def compare(
    a: Evaluation,
    b: Evaluation | None,
    config: Config,
    *,
    labels: dict[str, RunLabels] | None = None,
    status_from: str = "ragtui",
    intervals: bool = True,
) -> Comparison:
    """The comparison of B against A (or the summary of A alone when B is None).

    Args:
        a: The reference run, measured.
        b: The candidate run, measured; None to summarise A alone.
        config: Targets, confidence, max_drop.
        labels: People's labels per run ("A", "B"); a run left out uses its own `human` labels.
        status_from: Whose verdicts made each question pass (recorded, for the views to say).
        intervals: False leaves the intervals, verdicts, target readings and power pending
            (`intervals.with_intervals` fills them in later).
    """
    from ragtui.core.comparing.tool_metrics import compare_tool_metrics  # it builds on this module

    warnings = list(a.warnings)
    if b is None:
        values = summarize(a)
        metrics = {
            name: MetricComparison(
                name=name, spec=next(s for s in METRICS if s.name(a.k) == name), a=value, n=value.n, target=config.target(name), intervals_pending=True
            )
            for name, value in values.items()
        }
        categories = _categories(a, None)
        paired = None
        status = _single_status(a)
        warnings += judge_warnings(a)
        unpaired: dict[str, list[str]] = {}
    else:
        warnings += list(b.warnings)
        if a.k != b.k:
            warnings.append(f"the runs were evaluated at different k ({a.k} and {b.k})")
        paired = paired_frame(a, b)
        if paired.height == 0:
            from ragtui.core.errors import InputError, problem

            raise InputError(problem(b.run.path, None, "id", f"no question in common with {a.run.path}"))
        unpaired = _unpaired(a, b)
        judge_change = judge_change_warning(a, b)
        warnings += [w for w in (unpaired_warning(unpaired), judge_change) if w]
        metrics = _metric_values(paired, a, config, judge_change is not None)
        categories = _categories(a, paired)
        status = _status(paired, a.k)
        warnings += [*judge_warnings(a, "A"), *judge_warnings(b, "B"), *judge_directed_warning(a, b)]
    evaluations = {"A": a, **({"B": b} if b is not None else {})}
    labels = run_labels(evaluations, labels)
    comparison = Comparison(
        a, b, config, metrics, categories, status, tuple(warnings),
        unpaired=unpaired,
        tool_metrics=compare_tool_metrics(a, b, config) if "tool_scores" in a.questions.columns else {},
        tags=_tags(a, paired),
        status_from=status_from,
        labels=labels,
        runs={side: summarize_run(evaluation, labels[side], config) for side, evaluation in evaluations.items()},
        status_counts=_status_counts(status),
        intervals_pending=True,
        paired=paired,
    )
    return with_intervals(comparison) if intervals else comparison


def relabelled(comparison: Comparison, labels: dict[str, RunLabels] | None = None) -> Comparison:
    """The comparison with each run's judge trust read again from its labels.

    A person labelling in the app changes `RunLabels` in place: the calibration and the
    corrected values handed over at load are then read again from this new result.

    Args:
        comparison: What `compare` returned.
        labels: The labels per run to read (default: the comparison's own).
    """
    config = comparison.config
    labels = {**comparison.labels, **(labels or {})}
    runs = {
        side: replace(summary, calibration=calibrate(comparison.evaluations[side].questions, labels[side], confidence=config.confidence))
        for side, summary in comparison.runs.items()
    }
    return replace(comparison, runs=runs, labels=labels)  # a new object: `corrected` is read again too
