"""Compare two evaluations: Δ with its interval, verdicts, per-question status and causes.

One pairing rule holds everywhere: A, B and Δ = B − A are all computed over the questions
both runs hold (with a gold set, every gold question: a missing one counts as a failure),
overall and per category; questions in one run only are counted and named, never mixed
in. Each metric gets a paired bootstrap interval (and an exact McNemar p-value for 0/1
outcomes) and a verdict: `regressed` when the interval lies wholly on the bad side of 0
(and, for 0/1 outcomes, McNemar's p is below 1 − confidence), `improved` on the good side,
else `no_clear_change`; a drop larger than `max_drop` is flagged either way.

`compare` returns the whole result every view renders (`ragtui.core.comparing.result`):
metrics, categories, each run's counts, recall curve and judge trust, statuses, warnings.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl

from ragtui.core.comparing.power import metric_power
from ragtui.core.comparing.result import CategoryCell, CategoryComparison, Comparison, MetricComparison
from ragtui.core.comparing.run_summary import run_labels, summarize_run
from ragtui.core.comparing.run_warnings import judge_change_warning, judge_directed_warning, judge_warnings, unpaired_warning
from ragtui.core.comparing.stats import mcnemar_exact_p, paired_bootstrap_ci
from ragtui.core.comparing.targets import NO_READING, read_targets
from ragtui.core.loading.config import Config
from ragtui.core.loading.labels import RunLabels
from ragtui.core.measuring.calibration import calibrate
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metrics import METRICS, MetricSpec, MetricValue, summarize, summarize_by_category

REGRESSED, IMPROVED, NO_CLEAR_CHANGE = "regressed", "improved", "no_clear_change"
STATUSES = ("regressed", "fixed", "still_failing", "passing", "not_measured")
# Utility is on a 1–5 scale: a drop is flagged at the same share of its range as a rate.
UTILITY_RANGE = 4.0


def _verdict(spec: MetricSpec, ci: tuple[float, float] | None, p_value: float | None, confidence: float) -> str:
    """Improved or regressed only when the interval excludes 0 and, for a 0/1 metric, the
    exact McNemar test agrees: with 4 questions all flipping one way the bootstrap interval
    is [−1, −1] but p = 0.125, which is not evidence."""
    if ci is None:
        return NO_CLEAR_CHANGE
    if spec.binary and (p_value is None or p_value >= 1 - confidence):
        return NO_CLEAR_CHANGE
    low, high = ci
    if low > 0:
        return IMPROVED if spec.higher_is_better else REGRESSED
    if high < 0:
        return REGRESSED if spec.higher_is_better else IMPROVED
    return NO_CLEAR_CHANGE


def _measure_columns(evaluation: Evaluation) -> pl.DataFrame:
    """Per question: each metric's (num, den) and whether anything was measured at all."""
    specs = []
    for spec in METRICS:
        num, den = spec.num_den()
        specs += [num.alias(f"{spec.key}:num"), den.alias(f"{spec.key}:den")]
    frame = evaluation.questions.with_columns(specs)
    measures = [pl.col(f"{spec.key}:den") > 0 for spec in METRICS]
    if "tool_pass" in frame.columns:  # a peer tool's own pass/fail verdict measures the question too
        measures.append(pl.col("tool_pass").is_not_null())
    measured = pl.any_horizontal(measures)
    return frame.with_columns(measured.alias("measured"))


def _paired(a: Evaluation, b: Evaluation) -> pl.DataFrame:
    """A and B side by side on the questions both hold (all gold questions with a gold set)."""
    # Only what `_status` reads besides the metrics' own columns: list columns are costly to join.
    keep = ["id", "category", "present", "failed", "failures", "measured", "hit_at_k", "first_gold_rank", "retrieved_ids"]
    keep += [f"{spec.key}:{part}" for spec in METRICS for part in ("num", "den")]
    left = _measure_columns(a).select(keep)
    right = _measure_columns(b).select(keep)
    return left.join(right.drop("category"), on="id", how="inner", suffix="_b", maintain_order="left")


def _paired_values(frame: pl.DataFrame, k: int) -> tuple[dict[str, MetricValue], dict[str, MetricValue]]:
    """Each metric of A and of B over the same (paired) questions, with each run's n."""
    sums = frame.select(
        pl.col(f"^{spec.key}:(num|den)(_b)?$").sum() for spec in METRICS
    ).row(0, named=True) if frame.height else {}
    counts = frame.select(
        [(pl.col(f"{spec.key}:den{side}") > 0).sum().alias(f"{spec.key}:n{side}") for spec in METRICS for side in ("", "_b")]
    ).row(0, named=True) if frame.height else {}
    out_a: dict[str, MetricValue] = {}
    out_b: dict[str, MetricValue] = {}
    for spec in METRICS:
        for side, out in (("", out_a), ("_b", out_b)):
            den = sums.get(f"{spec.key}:den{side}", 0.0)
            value = sums[f"{spec.key}:num{side}"] / den if den else None
            out[spec.name(k)] = MetricValue(value, int(counts.get(f"{spec.key}:n{side}", 0)))
    return out_a, out_b


def _metric_comparisons(paired: pl.DataFrame, a: Evaluation, config: Config, judge_changed: bool) -> dict[str, MetricComparison]:
    values_a, values_b = _paired_values(paired, a.k)
    out = {}
    for spec in METRICS:
        name = spec.name(a.k)
        cols = paired.select(f"{spec.key}:num", f"{spec.key}:den", f"{spec.key}:num_b", f"{spec.key}:den_b").to_numpy()
        num_a, den_a, num_b, den_b = cols.T if len(cols) else (np.array([]),) * 4
        common = int(((den_a > 0) | (den_b > 0)).sum()) if len(cols) else 0
        point_a, point_b = values_a[name].value, values_b[name].value
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
            verdict=_verdict(spec, ci, p_value, config.confidence) if delta is not None else None,
            n=common,
            target=config.target(name),
            drop_flagged=bool(bad_move is not None and bad_move > config.max_drop * scale + 1e-12),
            judge_changed=judge_changed and spec.judged,
            power=metric_power(
                spec.binary, num_a, den_a, num_b, den_b, drop=config.max_drop * scale, span=scale, confidence=config.confidence
            )
            if delta is not None
            else None,  # nothing measured in a run: nothing to size
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
    top_a = pl.col("retrieved_ids").fill_null([]).list.unique(maintain_order=True).list.head(k).list.sort()
    top_b = pl.col("retrieved_ids_b").fill_null([]).list.unique(maintain_order=True).list.head(k).list.sort()
    gold_fell_out = (pl.col("hit_at_k") == 1) & (pl.col("hit_at_k_b") == 0)
    gold_came_in = (pl.col("hit_at_k") == 0) & (pl.col("hit_at_k_b") == 1)
    same_passages = top_a == top_b
    kinds_added = pl.col("failures_b").list.set_difference(pl.col("failures"))
    # The judge failing on B is not the system getting worse: told apart from generation.
    only_judge_error = (kinds_added.list.len() == 1) & kinds_added.list.contains("judge_error")
    cause = (
        pl.when(~pl.col("present_b")).then(pl.lit("missing"))
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
    measured = _measure_columns(a).get_column("measured")
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


def _unpaired(a: Evaluation, b: Evaluation) -> dict[str, list[str]]:
    """Ids held by one run only (never with a gold set: both then hold every gold question)."""
    ids_a, ids_b = a.questions.select("id"), b.questions.select("id")
    return {
        "A": ids_a.join(ids_b, on="id", how="anti").get_column("id").to_list(),
        "B": ids_b.join(ids_a, on="id", how="anti").get_column("id").to_list(),
    }


def _with_targets(
    metrics: dict[str, MetricComparison], categories: dict[str, CategoryComparison], runs: dict[str, Evaluation], config: Config
) -> tuple[dict[str, MetricComparison], dict[str, CategoryComparison]]:
    """Each run's verdicts against the targets, on the metrics and in each category cell."""
    readings = {label: read_targets(evaluation, config) for label, evaluation in runs.items()}
    categories = {
        category: replace(data, metrics={
            name: replace(cell, targets={label: by_category.get(category, {}).get(name, NO_READING) for label, (_, by_category) in readings.items()})
            for name, cell in data.metrics.items()
        })
        for category, data in categories.items()
    }
    metrics = {
        name: replace(m, targets={label: overall.get(name, NO_READING) for label, (overall, _) in readings.items()})
        for name, m in metrics.items()
    }
    return metrics, categories


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
) -> Comparison:
    """The comparison of B against A (or the summary of A alone when B is None).

    Args:
        a: The reference run, measured.
        b: The candidate run, measured; None to summarise A alone.
        config: Targets, confidence, max_drop.
        labels: People's labels per run ("A", "B"); a run left out uses its own `human` labels.
        status_from: Whose verdicts made each question pass (recorded, for the views to say).
    """
    from ragtui.core.comparing.tool_metrics import compare_tool_metrics  # it builds on this module

    warnings = list(a.warnings)
    if b is None:
        values = summarize(a)
        metrics = {
            name: MetricComparison(name=name, spec=next(s for s in METRICS if s.name(a.k) == name), a=value, n=value.n, target=config.target(name))
            for name, value in values.items()
        }
        metrics, categories = _with_targets(metrics, _categories(a, None), {"A": a}, config)
        status = _single_status(a)
        warnings += judge_warnings(a)
        unpaired: dict[str, list[str]] = {}
    else:
        warnings += list(b.warnings)
        if a.k != b.k:
            warnings.append(f"the runs were evaluated at different k ({a.k} and {b.k})")
        paired = _paired(a, b)
        if paired.height == 0:
            from ragtui.core.errors import InputError, problem

            raise InputError(problem(b.run.path, None, "id", f"no question in common with {a.run.path}"))
        unpaired = _unpaired(a, b)
        judge_change = judge_change_warning(a, b)
        warnings += [w for w in (unpaired_warning(unpaired), judge_change) if w]
        metrics = _metric_comparisons(paired, a, config, judge_change is not None)
        # Each run's target verdict is read over the paired questions too: the value it judges is the paired one.
        ids = paired.select("id")
        runs = {label: replace(run, questions=run.questions.join(ids, on="id", how="semi")) if unpaired[label] else run for label, run in (("A", a), ("B", b))}
        metrics, categories = _with_targets(metrics, _categories(a, paired), runs, config)
        status = _status(paired, a.k)
        warnings += [*judge_warnings(a, "A"), *judge_warnings(b, "B"), *judge_directed_warning(a, b)]
    evaluations = {"A": a, **({"B": b} if b is not None else {})}
    labels = run_labels(evaluations, labels)
    return Comparison(
        a, b, config, metrics, categories, status, tuple(warnings),
        unpaired=unpaired,
        tool_metrics=compare_tool_metrics(a, b, config) if "tool_scores" in a.questions.columns else {},
        status_from=status_from,
        labels=labels,
        runs={side: summarize_run(evaluation, labels[side], config) for side, evaluation in evaluations.items()},
        status_counts=_status_counts(status),
    )


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
