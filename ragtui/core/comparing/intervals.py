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

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ragtui.core.comparing.clustered import clustered_change, clustered_paired_p, clusters_in, design_effect, independent_change
from ragtui.core.comparing.multiplicity import adjust_p_values
from ragtui.core.comparing.pairing import paired_frame
from ragtui.core.comparing.power import metric_power
from ragtui.core.comparing.quantiles import QuantileDraws, paired_quantile_change, paired_quantile_ci
from ragtui.core.comparing.result import NO_READING, CategoryComparison, Comparison, MetricComparison, TargetReading
from ragtui.core.comparing.stats import (
    T_INTERVAL_FROM,
    CountDraws,
    RowGroups,
    bootstrap_p,
    distinct_rows,
    mcnemar_exact_p,
    paired_bootstrap_deltas,
    paired_values,
    percentile_interval,
    resamples_rows,
)
from ragtui.core.comparing.targets import read_targets
from ragtui.core.measuring.clusters import Clusters, cluster_index
from ragtui.core.measuring.metric_specs import UTILITY_RANGE, MetricSpec
from ragtui.core.side_by_side import side_by_side

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


@dataclass(frozen=True)
class PairedChange:
    """Δ's interval and test over some paired questions, and how clustered they are."""

    ci: tuple[float, float] | None
    p_value: float | None
    clusters: int | None = None
    design_effect: float | None = None
    t_interval: bool = False  # the large-sample t interval of a many-valued mean, not the bootstrap


def paired_change(
    spec: MetricSpec, columns: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], clusters: Clusters | None,
    confidence: float, *, bootstrap_p_value: bool = False, draws: CountDraws | None = None,
    rows: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> PairedChange:
    """The interval of Δ and its p-value; clustered when `clusters` is given (comparing/clustered.py).

    Without clusters: the paired bootstrap's percentile interval; a 0/1 metric's p is exact
    McNemar's, another metric's the bootstrap's own when asked (`bootstrap_p_value`: the
    category grid, whose many cells also draw their counts the fast way,
    `stats.multinomial_counts`; `draws` shares the resampled counts between the cells that
    have the same, `stats.CountDraws`). With clusters: the CR2 t interval and its dual p (a
    0/1 metric's over the questions measured in both runs: Obuchowski's clustered McNemar).
    From `stats.T_INTERVAL_FROM` questions on, a Δ whose bootstrap would resample rows (a
    mean of cost or tokens, different on every question: `stats.resamples_rows`) gets the t
    interval of its linearisation and its dual p instead (`clustered.independent_change`).
    `rows` gives the distinct rows of the columns' `paired_values` when they were grouped
    beside other subsets of the same questions (`stats.RowGroups`).
    """
    num_a, den_a, num_b, den_b = columns
    both = (den_a > 0) & (den_b > 0)
    if clusters is not None:
        change = clustered_change(num_a, den_a, num_b, den_b, clusters)
        ci = None if change is None else _within_range(spec, change.interval(confidence))
        if spec.binary:
            p_value: float | None = clustered_paired_p((num_b - num_a)[both], Clusters(clusters.index[both], clusters.count))
        else:
            p_value = change.p_value if bootstrap_p_value and change is not None else None
        count = clusters_in((den_a > 0) | (den_b > 0), clusters)
        return PairedChange(ci, p_value, count, design_effect(num_a, den_a, num_b, den_b, clusters))
    values = None  # grouped beside other subsets (`rows`), the rows are stacked only if they are resampled
    if rows is not None:
        distinct = rows()
    else:
        values = paired_values(num_a, den_a, num_b, den_b)
        distinct = distinct_rows(values)
    if len(num_a) >= T_INTERVAL_FROM and resamples_rows(len(num_a), len(distinct[0])):
        large = independent_change(num_a, den_a, num_b, den_b)
        if large is None:
            return PairedChange(None, None, t_interval=True)
        return PairedChange(_within_range(spec, large.interval(confidence)), large.p_value if bootstrap_p_value else None, t_interval=True)
    deltas = paired_bootstrap_deltas(
        num_a, den_a, num_b, den_b, fast_counts=bootstrap_p_value, draws=draws, values=values, distinct=distinct,
    )
    ci = percentile_interval(deltas, confidence)
    p_value = None
    if spec.binary:
        worse = int(((num_a == 1) & (num_b == 0) & both).sum())
        better = int(((num_a == 0) & (num_b == 1) & both).sum())
        p_value = mcnemar_exact_p(worse, better)
    elif bootstrap_p_value:
        p_value = bootstrap_p(deltas)
    return PairedChange(ci, p_value)


def _within_range(spec: MetricSpec, ci: tuple[float, float]) -> tuple[float, float]:
    """A t interval of Δ cut to the differences the metric can take (±1 for a rate, ±4 for utility)."""
    if spec.quantity:
        return ci
    span = UTILITY_RANGE if spec.scale == "score" else 1.0
    return max(ci[0], -span), min(ci[1], span)


def _columns(frame: pl.DataFrame, spec: MetricSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    num_a, den_a, num_b, den_b = frame.select(
        f"{spec.key}:num", f"{spec.key}:den", f"{spec.key}:num_b", f"{spec.key}:den_b"
    ).to_numpy().T
    return num_a, den_a, num_b, den_b


def _paired_interval(
    metric: MetricComparison, columns: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], clusters: Clusters | None,
    config: Config, quantile_draws: QuantileDraws, rows: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> MetricComparison:
    """One metric's Δ interval, McNemar p, verdict and power over the paired questions (its
    `_columns`; `quantile_draws`: the resamples latency p50 and p95 share; `rows`: as
    `paired_change` takes them)."""
    spec = metric.spec
    if metric.delta is None:  # nothing measured in a run: nothing to resample or to size
        return replace(metric, intervals_pending=False)
    num_a, den_a, num_b, den_b = columns
    if spec.quantile is not None:  # latency p50/p95: the bootstrap of the quantiles' difference (quantiles.py)
        ci = paired_quantile_ci(num_a, den_a > 0, num_b, den_b > 0, spec.quantile, confidence=config.confidence, draws=quantile_draws)
        return replace(metric, ci=ci, p_value=None, verdict=change_verdict(spec, ci, None, config.confidence), intervals_pending=False)
    change = paired_change(spec, columns, clusters, config.confidence, rows=rows)
    if spec.quantity:  # no power in ms or $: max_drop reads as a share of A's value there (compare.py)
        return replace(
            metric, ci=change.ci, p_value=change.p_value, verdict=change_verdict(spec, change.ci, change.p_value, config.confidence),
            intervals_pending=False, t_interval=change.t_interval,
        )
    scale = UTILITY_RANGE if spec.scale == "score" else 1.0
    power = metric_power(spec.binary, num_a, den_a, num_b, den_b, drop=config.max_drop * scale, span=scale, confidence=config.confidence)
    verdict = change_verdict(spec, change.ci, change.p_value, config.confidence)
    return replace(
        metric, ci=change.ci, p_value=change.p_value, verdict=verdict, power=power, intervals_pending=False,
        clusters=change.clusters, design_effect=change.design_effect, t_interval=change.t_interval,
    )


def _cell_change(
    spec: MetricSpec, columns: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], clusters: Clusters | None,
    confidence: float, draws: CountDraws, quantile_draws: QuantileDraws, rows: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
) -> PairedChange:
    """A grid cell's Δ interval and p: a latency quantile's as the headline has it (the paired
    bootstrap of the quantiles' difference, questions resampled even with documents), and its
    dual p; any other metric's by `paired_change`."""
    if spec.quantile is not None:
        num_a, den_a, num_b, den_b = columns
        ci, p_value = paired_quantile_change(num_a, den_a > 0, num_b, den_b > 0, spec.quantile, confidence=confidence, draws=quantile_draws)
        return PairedChange(ci, p_value)
    return paired_change(spec, columns, clusters, confidence, bootstrap_p_value=True, draws=draws, rows=rows)


def adjusted_verdict(spec: MetricSpec, delta: float | None, p_adjusted: float | None, confidence: float) -> str:
    """A grid cell's verdict: regressed or improved only when its adjusted p is below 1 − confidence."""
    if delta is None or p_adjusted is None or p_adjusted >= 1 - confidence or delta == 0:
        return NO_CLEAR_CHANGE
    better = delta > 0 if spec.higher_is_better else delta < 0
    return IMPROVED if better else REGRESSED


class GridChanges:
    """Every grid cell's Δ interval and p, adjusted over the grid: metrics × categories and
    metrics × tags of the gold set, one family (a question counts in each of its tags).

    The headline metrics are a family of their own and keep their unadjusted verdicts.
    `draw` may run in two threads at once: each takes the next group (a category or a tag)
    that no thread has taken, until none is left, so the thread done with the headline
    intervals helps with the grid rather than wait for it. A cell's numbers do not depend
    on the thread that draws them: each bootstrap is seeded alone, and what `CountDraws` and
    `QuantileDraws` share between cells are the very draws each cell would make.
    """

    def __init__(
        self, categories: dict[str, CategoryComparison], tags: dict[str, CategoryComparison], paired: pl.DataFrame,
        clusters: Clusters | None, specs: dict[str, MetricSpec], config: Config,
    ) -> None:
        self._categories, self._tags, self._clusters, self._specs, self._config = categories, tags, clusters, specs, config
        # Each metric's four columns read once, each group's rows found once: selecting them
        # per cell from the frame cost more than the cells' bootstraps at 100,000 questions.
        # A group's rows are kept as their indices: taken from a column, they are the rows a
        # boolean mask picks, in the same order, twenty times faster than the mask.
        self.columns = {name: _columns(paired, spec) for name, spec in specs.items()}
        labels = paired.get_column("category")
        masks = {("category", category): (labels == category).to_numpy() for category in categories}
        if tags:
            in_tag = paired.get_column("tags")
            masks |= {("tag", tag): in_tag.list.contains(tag).fill_null(False).to_numpy() for tag in tags}
        self._rows = {group: np.flatnonzero(mask) for group, mask in masks.items()}
        self._groups = {("category", name): data for name, data in categories.items()} | {("tag", name): data for name, data in tags.items()}
        self._untaken = list(reversed(self._groups))
        self._lock = threading.Lock()
        self._draws = CountDraws()
        self._quantile_draws = QuantileDraws(spec.quantile for spec in specs.values() if spec.quantile is not None)
        self._changes: dict[tuple[tuple[str, str], str], PairedChange] = {}
        self._row_groups: dict[str, RowGroups] = {}
        self._grouping = threading.Lock()

    def distinct_rows(self, name: str, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """`stats.distinct_rows` of metric `name`'s paired values, over every question or
        those at `rows` (indices, ascending): the questions grouped once for the headline and every cell."""
        with self._grouping:
            groups = self._row_groups.get(name)
            if groups is None:
                groups = self._row_groups[name] = RowGroups(paired_values(*self.columns[name]))
        return groups.whole if rows is None else groups.within(rows)

    def draw(self) -> None:
        """Each cell's interval and p, group after group, until every group is taken."""
        confidence = self._config.confidence
        while True:
            with self._lock:
                if not self._untaken:
                    return
                group = self._untaken.pop()
            rows = self._rows[group]
            clusters = Clusters(self._clusters.index[rows], self._clusters.count) if self._clusters is not None else None
            for name, cell in self._groups[group].metrics.items():
                if cell.delta is None:
                    continue
                part = tuple(column[rows] for column in self.columns[name])
                self._changes[(group, name)] = _cell_change(
                    self._specs[name], (part[0], part[1], part[2], part[3]), clusters, confidence, self._draws, self._quantile_draws,
                    functools.partial(self.distinct_rows, name, rows),
                )

    def adjusted(self) -> tuple[dict[str, CategoryComparison], dict[str, CategoryComparison]]:
        """The categories and tags with every cell's change, its adjusted p and verdict (after `draw`)."""
        config = self._config
        # In the grid's order, whichever thread drew each cell.
        changes = {(group, name): self._changes[(group, name)] for group, data in self._groups.items() for name in data.metrics if (group, name) in self._changes}
        tested = [(key, change.p_value) for key, change in changes.items() if change.p_value is not None]
        adjusted = dict(zip([key for key, _ in tested], adjust_p_values([p for _, p in tested], config.multiple_testing), strict=True))
        out: dict[tuple[str, str], CategoryComparison] = {}
        for group, data in self._groups.items():
            cells = {}
            for name, cell in data.metrics.items():
                change = changes.get((group, name))
                if change is None:
                    cells[name] = cell
                    continue
                p_adjusted = adjusted.get((group, name))
                cells[name] = replace(
                    cell, ci=change.ci, p_value=change.p_value, p_adjusted=p_adjusted,
                    verdict=adjusted_verdict(self._specs[name], cell.delta, p_adjusted, config.confidence),
                    clusters=change.clusters, design_effect=change.design_effect, t_interval=change.t_interval,
                )
            out[group] = replace(data, metrics=cells)
        return {name: out[("category", name)] for name in self._categories}, {name: out[("tag", name)] for name in self._tags}


def paired_clusters(comparison: Comparison, paired: pl.DataFrame) -> Clusters | None:
    """The paired questions' clusters, or None when nothing names a document (the independent path)."""
    if not comparison.a.clustered_by or "cluster" not in paired.columns:
        return None
    return cluster_index(paired.get_column("cluster"), paired.get_column("id"))


def target_readings(runs: dict[str, Evaluation], config: Config) -> dict[str, tuple[dict[str, TargetReading], dict[str, dict[str, TargetReading]]]]:
    """Each run's readings against the targets: overall, and by category."""
    return {label: read_targets(evaluation, config) for label, evaluation in runs.items()}


def with_targets(
    metrics: dict[str, MetricComparison], categories: dict[str, CategoryComparison],
    readings: dict[str, tuple[dict[str, TargetReading], dict[str, dict[str, TargetReading]]]],
) -> tuple[dict[str, MetricComparison], dict[str, CategoryComparison]]:
    """Each run's verdicts against the targets (`target_readings`), on the metrics and in each category cell."""
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


def with_intervals(comparison: Comparison) -> Comparison:
    """The comparison with its intervals, verdicts, target readings and power filled in.

    With two runs, the headline metrics' intervals and the target readings are computed in
    this thread while the category grid's are computed in another, which this one joins
    once its own are done: numpy draws the bootstrap counts without the GIL, so the two
    halves use both cores. Every bootstrap has its own seeded generator, so the numbers
    are those of one thread.

    Args:
        comparison: What `compare(..., intervals=False)` returned (a complete one is returned as is).
            Its A and B side by side (`Comparison.paired`) are resampled, or rebuilt from the runs
            when it has none; the result keeps none.
    """
    if not comparison.intervals_pending:
        return comparison
    a, b, config = comparison.a, comparison.b, comparison.config
    if b is None:
        metrics, categories = with_targets(comparison.metrics, comparison.categories, target_readings({"A": a}, config))
        return replace(comparison, metrics=metrics, categories=categories, intervals_pending=False)
    both = comparison.paired if comparison.paired is not None else paired_frame(a, b)
    clusters = paired_clusters(comparison, both)
    specs = {name: metric.spec for name, metric in comparison.metrics.items()}
    # Each run's target verdict is read over the paired questions too: the value it judges is the paired one.
    ids = both.select("id")
    runs = {
        label: replace(run, questions=run.questions.join(ids, on="id", how="semi")) if comparison.unpaired.get(label) else run
        for label, run in (("A", a), ("B", b))
    }
    # The grid's cells cost more than the headline metrics and the target readings together
    # (1.1 s against 0.6 + 0.15 s of CPU at 100,000 questions): a thread draws the grid while
    # this one draws the headline, then takes the grid's groups left (`GridChanges`).
    quantile_draws = QuantileDraws(spec.quantile for spec in specs.values() if spec.quantile is not None)
    grid = GridChanges(comparison.categories, comparison.tags, both, clusters, specs, config)

    def headline() -> tuple[dict[str, MetricComparison], dict[str, tuple[dict[str, TargetReading], dict[str, dict[str, TargetReading]]]]]:
        metrics = {
            name: _paired_interval(metric, grid.columns[name], clusters, config, quantile_draws, functools.partial(grid.distinct_rows, name))
            for name, metric in comparison.metrics.items()
        }
        readings = target_readings(runs, config)
        grid.draw()
        return metrics, readings

    (metrics, readings), _ = side_by_side(headline, grid.draw, name="ragtui-grid-intervals")
    categories, tags = grid.adjusted()
    metrics, categories = with_targets(metrics, categories, readings)
    return replace(comparison, metrics=metrics, categories=categories, tags=tags, intervals_pending=False, paired=None)
