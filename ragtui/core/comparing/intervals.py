"""The slow half of a comparison: intervals, the verdicts they decide, power.

`compare` measures first — each run's values, Δ, n, statuses, counts: passes over the
columns — and then adds what needs resampling, here: each metric's paired bootstrap
interval and exact McNemar p, the verdict they support, each run's own interval against
its target (in every category cell) and what the comparison could detect. On the bundled
sample that half is most of `compare`'s time. The report asks for both at once; the app
paints the values first and calls `with_intervals` from a worker, and until then every
such field reads as pending (`Comparison.intervals_pending`) — never as a pass.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from ragtui.core.comparing.power import metric_power
from ragtui.core.comparing.quantiles import paired_quantile_ci
from ragtui.core.comparing.result import NO_READING, CategoryComparison, Comparison, MetricComparison
from ragtui.core.comparing.stats import mcnemar_exact_p, paired_bootstrap_ci
from ragtui.core.comparing.targets import read_targets
from ragtui.core.measuring.metric_specs import UTILITY_RANGE, MetricSpec

if TYPE_CHECKING:
    import polars as pl

    from ragtui.core.loading.config import Config
    from ragtui.core.measuring.evaluate import Evaluation

REGRESSED, IMPROVED, NO_CLEAR_CHANGE = "regressed", "improved", "no_clear_change"


def change_verdict(spec: MetricSpec, ci: tuple[float, float] | None, p_value: float | None, confidence: float) -> str:
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


def _paired_interval(metric: MetricComparison, paired: pl.DataFrame, config: Config) -> MetricComparison:
    """One metric's Δ interval, McNemar p, verdict and power over the paired questions."""
    spec = metric.spec
    if metric.delta is None:  # nothing measured in a run: nothing to resample or to size
        return replace(metric, intervals_pending=False)
    num_a, den_a, num_b, den_b = paired.select(
        f"{spec.key}:num", f"{spec.key}:den", f"{spec.key}:num_b", f"{spec.key}:den_b"
    ).to_numpy().T
    if spec.quantile is not None:
        ci = paired_quantile_ci(num_a, den_a > 0, num_b, den_b > 0, spec.quantile, confidence=config.confidence)
    else:
        ci = paired_bootstrap_ci(num_a, den_a, num_b, den_b, confidence=config.confidence)
    if spec.quantity:  # no power in ms or $: max_drop reads as a share of A's value there (compare.py)
        return replace(metric, ci=ci, verdict=change_verdict(spec, ci, None, config.confidence), intervals_pending=False)
    p_value = None
    if spec.binary:
        both = (den_a > 0) & (den_b > 0)
        worse = int(((num_a == 1) & (num_b == 0) & both).sum())
        better = int(((num_a == 0) & (num_b == 1) & both).sum())
        p_value = mcnemar_exact_p(worse, better)
    scale = UTILITY_RANGE if spec.scale == "score" else 1.0
    power = metric_power(spec.binary, num_a, den_a, num_b, den_b, drop=config.max_drop * scale, span=scale, confidence=config.confidence)
    verdict = change_verdict(spec, ci, p_value, config.confidence)
    return replace(metric, ci=ci, p_value=p_value, verdict=verdict, power=power, intervals_pending=False)


def with_targets(
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
        name: replace(m, targets={label: overall.get(name, NO_READING) for label, (overall, _) in readings.items()}, intervals_pending=False)
        for name, m in metrics.items()
    }
    return metrics, categories


def with_intervals(comparison: Comparison, paired: pl.DataFrame | None = None) -> Comparison:
    """The comparison with its intervals, verdicts, target readings and power filled in.

    Args:
        comparison: What `compare(..., intervals=False)` returned (a complete one is returned as is).
        paired: A and B side by side (`compare`'s own frame); rebuilt from the runs when None.
    """
    if not comparison.intervals_pending:
        return comparison
    a, b, config = comparison.a, comparison.b, comparison.config
    metrics = comparison.metrics
    runs: dict[str, Evaluation] = {"A": a}
    if b is not None:
        if paired is None:
            from ragtui.core.comparing.compare import paired_frame  # it builds on this module

            paired = paired_frame(a, b)
        metrics = {name: _paired_interval(metric, paired, config) for name, metric in metrics.items()}
        # Each run's target verdict is read over the paired questions too: the value it judges is the paired one.
        ids = paired.select("id")
        runs = {
            label: replace(run, questions=run.questions.join(ids, on="id", how="semi")) if comparison.unpaired.get(label) else run
            for label, run in (("A", a), ("B", b))
        }
    metrics, categories = with_targets(metrics, comparison.categories, runs, config)
    return replace(comparison, metrics=metrics, categories=categories, intervals_pending=False)

