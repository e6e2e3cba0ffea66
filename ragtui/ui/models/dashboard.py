"""What the dashboard shows, gathered from the core once, in the loading worker.

Nothing here computes: values, intervals, verdicts, counts, the recall curve and the
judge's agreement with people are all read from the `Comparison` that `compare` returned.
This module only picks them out and orders them, so the widgets stay simple views.

`DashboardData` holds plain values for the widgets; the `Comparison` it was picked from
rides along for everything past the dashboard.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragtui.core.comparing.result import CategoryComparison, Comparison, MetricComparison
    from ragtui.core.measuring.label_values import Calibration, CorrectedMetric
    from ragtui.core.measuring.metric_specs import Counts

# The panels, in reading order: the four headline metrics, then the three that explain them.
DASHBOARD_METRICS = ("recall", "faithfulness", "abstention", "utility", "context_precision", "mrr", "false_abstention")
# What answering took, in one compact panel after them (and as grid columns), when the runs record it.
DASHBOARD_QUANTITIES = ("latency_p50_ms", "latency_p95_ms", "cost_usd", "tokens")


@dataclass(frozen=True)
class RunHeader:
    """One run's identity and counts, for its header box."""

    label: str  # "A" (reference) or "B" (candidate)
    name: str
    created_at: str | None
    system: str | None
    generator_model: str | None
    judge_model: str | None
    k: int  # the comparison's k: what recall@k and the retrieval metrics are measured at
    counts: Counts
    calibration: Calibration | None = None  # judge vs human labels, where the run has them
    own_k: int | None = None  # the k the run's file says it sent its generator (a sweep's k), when it says one


@dataclass(frozen=True)
class DashboardData:
    """Everything the dashboard needs; B-side fields are absent with a single run."""

    runs: tuple[RunHeader, ...]
    metrics: tuple[MetricComparison, ...]
    curves: dict[str, list[float | None]]
    status_counts: dict[str, int]
    categories: dict[str, CategoryComparison]
    category_names: dict[str, str]  # category → the name the config gives it
    k: int
    two_runs: bool
    confidence: float
    max_drop: float
    status_from: str = "ragtui"  # whose verdicts make a question pass: "ragtui", "tool", "both"
    intervals_pending: bool = False  # the intervals, verdicts and target readings are still being computed
    warnings: tuple[str, ...] = field(default_factory=tuple)
    # side → metric → the value corrected by the sampled labels (faithfulness, utility);
    # empty for a side when no run has a sampled label (`corrections_of`)
    corrections: dict[str, dict[str, CorrectedMetric]] = field(default_factory=dict)
    # One panel group per peer tool whose own metrics the runs carry: (tool, metrics).
    tool_groups: tuple[tuple[str, tuple[MetricComparison, ...]], ...] = ()
    # Per run ("A", "B"): questions the tool could not judge (counted like judge errors).
    tool_errors: dict[str, int] = field(default_factory=dict)
    # The comparison the values were picked from: None for a dashboard read back from the
    # cache until its runs are loaded. Not a value the dashboard shows: equality ignores it.
    comparison: Comparison | None = field(default=None, compare=False, repr=False)
    multiple_testing: str = "holm"  # how the grid's p-values are adjusted (its ‼ marks)
    # Latency, cost and tokens the runs record (none recorded: empty, and the dashboard shows no trace of them).
    quantities: tuple[MetricComparison, ...] = ()

    @property
    def grid_metrics(self) -> tuple[MetricComparison, ...]:
        """The category grid's columns: the panels' metrics, then latency, cost and tokens."""
        return self.metrics + self.quantities


def _header(comparison: Comparison, label: str) -> RunHeader:
    evaluation, summary = comparison.evaluations[label], comparison.runs[label]
    run = evaluation.run
    return RunHeader(
        label=label,
        name=run.name,
        created_at=run.meta.created_at,
        system=run.meta.system,
        generator_model=run.meta.generator_model,
        judge_model=run.judge_model(),
        k=evaluation.k,
        counts=summary.counts,
        calibration=summary.calibration,
        own_k=run.meta.k,
    )


def dashboard_metrics(comparison: Comparison) -> tuple[MetricComparison, ...]:
    """The dashboard's metrics in panel order (by spec key, whatever k is)."""
    by_key = {m.spec.key: m for m in comparison.metrics.values()}
    return tuple(by_key[key] for key in DASHBOARD_METRICS if key in by_key)


def dashboard_quantities(comparison: Comparison) -> tuple[MetricComparison, ...]:
    """Latency, cost and tokens in panel order, those that some run records (n > 0)."""
    by_key = {m.spec.key: m for m in comparison.metrics.values()}
    found = (by_key[key] for key in DASHBOARD_QUANTITIES if key in by_key)
    return tuple(m for m in found if m.a.n or (m.b is not None and m.b.n))


def build_dashboard_data(comparison: Comparison) -> DashboardData:
    """Pick out of a Comparison what the dashboard shows (runs in the loading worker)."""
    config = comparison.config
    return DashboardData(
        runs=tuple(_header(comparison, label) for label in comparison.runs),
        metrics=dashboard_metrics(comparison),
        quantities=dashboard_quantities(comparison),
        curves={label: summary.recall_curve for label, summary in comparison.runs.items()},
        status_counts=comparison.status_counts,
        categories=comparison.categories,
        category_names={category: config.category_name(category) for category in comparison.categories},
        k=comparison.k,
        two_runs=comparison.b is not None,
        confidence=config.confidence,
        max_drop=config.max_drop,
        multiple_testing=config.multiple_testing,
        status_from=comparison.status_from,
        intervals_pending=comparison.intervals_pending,
        # The same warning can come from both runs; show it once.
        warnings=tuple(dict.fromkeys(comparison.warnings)),
        corrections=corrections_of(comparison),
        tool_groups=tool_groups(comparison),
        tool_errors=tool_errors(comparison),
        comparison=comparison,
    )


def with_intervals(data: DashboardData, comparison: Comparison) -> DashboardData:
    """`data` for the same comparison with its intervals: the metrics and category cells
    change; the rest (the corrections above all, read once) is kept as it is."""
    return replace(
        data, metrics=dashboard_metrics(comparison), quantities=dashboard_quantities(comparison), categories=comparison.categories,
        intervals_pending=comparison.intervals_pending, comparison=comparison,
    )


def corrections_of(comparison: Comparison) -> dict[str, dict[str, CorrectedMetric]]:
    """Each side's corrected faithfulness and utility, as the comparison holds them.

    Without a sampled label in any run nothing is corrected, and the panels show no
    corrected line: the corrections (their label plans, which the calibration screen shows)
    are then left for `Comparison.corrected` to work out when asked, not at load.
    """
    from ragtui.core.measuring.correction import corrects_anything

    if not any(corrects_anything(labels) for labels in comparison.labels.values()):
        return {side: {} for side in comparison.runs}
    return {side: {name: found.runs[side] for name, found in comparison.corrected.items()} for side in comparison.runs}


def tool_errors(comparison: Comparison) -> dict[str, int]:
    """Questions each run's tool could not judge, for the tool group's title."""
    return {side: summary.tool.errors for side, summary in comparison.runs.items() if summary.tool is not None}


def tool_groups(comparison: Comparison) -> tuple[tuple[str, tuple[MetricComparison, ...]], ...]:
    """The tool metrics grouped by tool, in the order the files name them."""
    groups: dict[str, list[MetricComparison]] = {}
    for metric in comparison.tool_metrics.values():
        groups.setdefault(metric.tool, []).append(metric.comparison)
    return tuple((tool, tuple(metrics)) for tool, metrics in groups.items())


def worst_categories(data: DashboardData, side: str) -> dict[str, str]:
    """metric name → the category to mark as worst in the category grid.

    With two runs and side "B", the worst cell is the biggest move in the bad direction
    (where a change hurt most); otherwise the weakest value of the side shown. Categories
    where the metric does not apply (n = 0) are never marked; nothing is marked when no
    category moved the bad way.
    """
    worst: dict[str, str] = {}
    for metric in data.grid_metrics:
        sign = 1.0 if metric.spec.higher_is_better else -1.0
        best_score, best_category = None, None
        for category, found in data.categories.items():
            cell = found.metrics.get(metric.name)
            if cell is None:
                continue
            if data.two_runs and side == "B":
                delta = cell.delta
                score = None if delta is None or sign * delta >= 0 else sign * delta
            else:
                value = cell.value(side)
                score = None if value is None or value.value is None or value.n == 0 else sign * value.value
            if score is not None and (best_score is None or score < best_score):
                best_score, best_category = score, category
        if best_category is not None:
            worst[metric.name] = best_category
    return worst
