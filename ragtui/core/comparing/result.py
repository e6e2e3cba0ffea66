"""What `compare` hands over: one typed result that every view renders without computing.

The JSON report (`report.py`), the text and markdown reports (which read that document)
and the dashboard all read a `Comparison`; none of them calls a metric, a count, the recall
curve or the calibration itself. Each piece is computed once, by `compare`, here named:

- `metrics`: each metric for A and B over the paired questions, Δ, interval, verdict;
- `categories`: the same per category (`CategoryComparison` of `CategoryCell`s);
- `runs`: per run ("A", "B") what its header shows — counts, recall curve, the metrics
  that measured nothing, the peer tool's counts, the judge's agreement with people
  and with itself (its flip rates when asked again);
- `status` and `status_counts`: each question's status and cause, and their tally;
- `corrected`: faithfulness and utility corrected by the sampled labels (computed on
  first read: it costs about a second per 100,000 questions and the app's start does not
  show it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import polars as pl

    from ragtui.core.comparing.run_summary import CorrectedComparison, RunSummary
    from ragtui.core.loading.config import Config
    from ragtui.core.loading.labels import RunLabels
    from ragtui.core.measuring.evaluate import Evaluation
    from ragtui.core.measuring.metric_specs import MetricSpec, MetricValue


@dataclass(frozen=True)
class Power:
    """What a comparison can detect, in the metric's own units (a rate's fraction, utility's score).

    `mde` is None when no drop within the metric's range would be detected (too few
    questions) or when the runs never differ on it (no variance to go by); `n_needed` is
    None in the second case only.
    """

    mde: float | None
    n_needed: int | None
    drop: float  # the drop `n_needed` is for (max_drop in the metric's units)
    n: int  # questions the figures are computed from


@dataclass(frozen=True)
class TargetReading:
    """One run's value against its target: the run's interval and the verdict it supports.

    `verdict` is None when the metric has no target or the run has nothing to measure.
    """

    verdict: str | None
    ci: tuple[float, float] | None


NO_READING = TargetReading(None, None)


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
    judge_changed: bool = False  # A and B judged by different models or prompts (judged metrics only)
    # Each run's interval and its verdict against the target, by run label ("A", "B").
    targets: dict[str, TargetReading] = field(default_factory=dict)
    power: Power | None = None  # what this comparison could detect (two runs only)
    # Questions grouped by document (measuring/clusters.py): how many documents the metric's
    # questions come from, and the clustered variance of Δ over the independent one.
    clusters: int | None = None
    design_effect: float | None = None
    # Δ's interval is the large-sample t interval (many distinct values, `stats.T_INTERVAL_FROM`), not the bootstrap.
    t_interval: bool = False
    # `compare(..., intervals=False)`: ci, p_value, verdict, targets and power not computed yet.
    intervals_pending: bool = False

    def target_reading(self, run: str) -> TargetReading:
        """Run `run`'s verdict against the target (`meets`/`misses`/`inconclusive`) and interval."""
        return self.targets.get(run, NO_READING)


@dataclass(frozen=True)
class CategoryCell:
    """One metric in one category: A, B (None with a single run) and Δ over the paired
    questions, and each run's verdict against the target on the category's questions."""

    a: MetricValue
    b: MetricValue | None = None
    delta: float | None = None
    targets: dict[str, TargetReading] = field(default_factory=dict)
    # Δ's paired interval and test, as the headline metrics have them; `p_adjusted` is the
    # p-value adjusted over the whole grid (Holm or Benjamini–Hochberg), which alone decides
    # `verdict`.
    ci: tuple[float, float] | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    verdict: str | None = None
    clusters: int | None = None
    design_effect: float | None = None
    t_interval: bool = False  # as `MetricComparison.t_interval`

    def value(self, run: str) -> MetricValue | None:
        """The value of run "A" or "B"."""
        return self.a if run == "A" else self.b

    def target_reading(self, run: str) -> TargetReading:
        return self.targets.get(run, NO_READING)

    @property
    def applies(self) -> bool:
        """Whether the metric measured anything in this category, in either run."""
        return any(value is not None and value.n for value in (self.a, self.b))


@dataclass(frozen=True)
class CategoryComparison:
    """One category: its paired questions and each metric's cell, by metric name."""

    n: int
    metrics: dict[str, CategoryCell]


@dataclass(frozen=True)
class Comparison:
    """Everything the dashboard and the report show; B is None for a single run."""

    a: Evaluation
    b: Evaluation | None
    config: Config
    metrics: dict[str, MetricComparison]
    categories: dict[str, CategoryComparison]
    status: pl.DataFrame  # id, category, status, cause, kinds_added, kinds_removed, …
    warnings: tuple[str, ...] = field(default_factory=tuple)
    unpaired: dict[str, list[str]] = field(default_factory=dict)  # "A"/"B" → ids in that run only
    # A peer tool's own metrics (`TOOL:METRIC` → tool_metrics.ToolMetric) and whose
    # verdicts made each question pass or fail ("ragtui", "tool", "both").
    tool_metrics: dict[str, Any] = field(default_factory=dict)
    status_from: str = "ragtui"
    # People's labels per run ("A", "B"): the run's own `human` labels with the sidecar replayed over them.
    labels: dict[str, RunLabels] = field(default_factory=dict)
    runs: dict[str, RunSummary] = field(default_factory=dict)  # "A", "B" → the run's header
    status_counts: dict[str, int] = field(default_factory=dict)  # status → questions, every status
    # The intervals, verdicts and target readings are not computed yet (`intervals.with_intervals`).
    intervals_pending: bool = False
    # The same as `categories`, per tag of the gold set (`tags: [acronyme, …]`); a question counts in each of its tags.
    tags: dict[str, CategoryComparison] = field(default_factory=dict)
    # A and B side by side (`pairing.paired_frame`), kept while the intervals are pending for
    # `with_intervals` to resample (the app fills them in later), and let go once they are in.
    paired: pl.DataFrame | None = field(default=None, repr=False, compare=False)

    @property
    def k(self) -> int:
        return self.a.k

    @property
    def evaluations(self) -> dict[str, Evaluation]:
        """The runs by label: {"A": a} or {"A": a, "B": b}."""
        return {"A": self.a, **({"B": self.b} if self.b is not None else {})}

    @property
    def unstable_ids(self) -> set[str]:
        """The questions whose verdicts flip between the judge's repetitions, in either run."""
        return {qid for summary in self.runs.values() if summary.noise is not None for qid in summary.noise.unstable_ids}

    def question_ids(self, status: str) -> list[str]:
        import polars as pl

        return self.status.filter(pl.col("status") == status).get_column("id").to_list()

    @cached_property
    def corrected(self) -> dict[str, CorrectedComparison]:
        """"faithfulness" and "utility" corrected by each run's sampled labels."""
        from ragtui.core.comparing.run_summary import corrected_metrics

        return corrected_metrics(self.evaluations, self.labels, self.config)
