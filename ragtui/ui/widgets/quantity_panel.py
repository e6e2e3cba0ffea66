"""What answering took — latency p50 and p95, cost and tokens per question — in one panel.

Four more panels would push the category grid two screens down at 80×24, so the
quantities share one panel of the metric grid, two lines each: the verdict's symbol, the
metric (its unit in the heading, as the category grid's column), A → B with each run's
✓ ✗ ? against its target, then Δ with its paired interval and `!` when it grew by more
than max_drop of A's value. Lower is better for all four. The panel is there only when
the runs record some of them (`DashboardData.quantities`).
"""

from __future__ import annotations

from textual.content import Content

from ragtui.core.comparing.result import MetricComparison
from ragtui.core.vocabulary import (
    INTERVALS_PENDING,
    VERDICT_SYMBOL,
    ci_text,
    delta_text,
    level_text,
    short_label,
    target_symbol,
    target_text,
    value_text,
)
from ragtui.ui.content.safe_text import join
from ragtui.ui.content.verdict_styles import TARGET_STYLE, VERDICT_STYLE
from ragtui.ui.widgets.metric_panel import VerdictPanel, verdict_classes

QUANTITY_TITLE = "Latency & cost"


def _number(value: float | None, metric: MetricComparison, *, signed: bool = False) -> str:
    """`1562`, `+250` (signed, a Δ): bare, the unit is in the metric's label."""
    return delta_text(value, metric.spec, unit=False) if signed else value_text(value, metric.spec, unit=False)


def _run_value(metric: MetricComparison, side: str) -> Content:
    """`1562 ✓`: the run's value, bold, and its verdict against the target."""
    found = metric.a if side == "A" else metric.b
    value = found.value if found is not None and found.n else None
    verdict = metric.target_reading(side).verdict
    mark: list[Content | str] = []
    if verdict is not None and value is not None:
        mark = [" ", Content.styled(target_symbol(verdict), f"{TARGET_STYLE[verdict]} bold")]
    return join(Content.styled(_number(value, metric), "bold"), *mark)


def _rows(metric: MetricComparison, k: int, two_runs: bool) -> list[Content]:
    """The metric's lines: its values (and the verdict, two runs), Δ and its interval, its target."""
    label = Content.styled(f"{short_label(metric.spec, k):<7} ", "dim")
    if not two_runs or metric.b is None:
        lines = [join(label, _run_value(metric, "A"))]
    else:
        verdict = metric.verdict
        symbol = Content.styled(VERDICT_SYMBOL[verdict], f"bold {VERDICT_STYLE[verdict]}") if verdict is not None else Content(" ")
        lines = [join(symbol, " ", label, _run_value(metric, "A"), Content.styled(" → ", "dim"), _run_value(metric, "B"))]
        interval = "" if metric.ci is None else f" ({ci_text(metric.ci, metric.spec)})"
        flag = [Content.styled(" !", "$warning bold")] if metric.drop_flagged else []
        lines.append(join(Content.styled("  Δ ", "dim"), Content.styled(_number(metric.delta, metric, signed=True), "bold"), Content.styled(interval, "dim"), *flag))
    if metric.target is not None:
        lines.append(Content.styled(f"  target {target_text(metric.target, metric.spec)}", "dim"))
    return lines


def quantity_content(metrics: tuple[MetricComparison, ...], k: int, two_runs: bool, max_drop: float, pending: str = INTERVALS_PENDING) -> Content:
    """The panel's lines: what it compares (or that the intervals are pending), then two lines a metric."""
    if any(metric.intervals_pending for metric in metrics):
        head = Content.styled(f"… {pending}", "italic $text-muted")
    else:
        head = Content.styled("per question · lower is better" if two_runs else "per question", "dim")
    lines = [head]
    for metric in metrics:
        lines += _rows(metric, k, two_runs)
    if two_runs and any(metric.drop_flagged for metric in metrics):
        lines.append(Content.styled(f"! Δ > {level_text(max_drop)} of A's value", "$warning"))
    return Content("\n").join(lines)


class QuantityPanel(VerdictPanel):
    """Latency, cost and tokens of the runs, compared; the border follows the worst verdict."""

    def __init__(self, metrics: tuple[MetricComparison, ...], *, k: int, two_runs: bool, max_drop: float) -> None:
        super().__init__(quantity_content(metrics, k, two_runs, max_drop), id="quantities", classes=" ".join(verdict_classes(metrics, two_runs)))
        self.metrics = metrics
        self._settings = (k, two_runs, max_drop)
        self.border_title = Content.styled(QUANTITY_TITLE, "bold")

    def set_metrics(self, metrics: tuple[MetricComparison, ...], pending: str = INTERVALS_PENDING) -> None:
        """The same metrics with their intervals and verdicts filled in (or, still pending, why)."""
        k, two_runs, max_drop = self._settings
        self.metrics = metrics
        self.set_classes(" ".join(verdict_classes(metrics, two_runs)))
        self.update(quantity_content(metrics, k, two_runs, max_drop, pending))
