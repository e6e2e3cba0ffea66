"""A peer tool's own metrics on the dashboard: one titled group of metric panels per tool.

Each tool metric is a `MetricComparison` like ragtui's, so it is drawn by the same
`MetricPanel` (verdict, A and B with ✓/✗ against the target, Δ and its interval). The
group's title names the tool and how many questions it could not score; the line
above the panels says whose verdicts make a question pass (`--status-from`).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Grid, Vertical
from textual.content import Content
from textual.widgets import Static

from ragtui.core.comparing.result import MetricComparison
from ragtui.core.vocabulary import TOOL_LABELS
from ragtui.core.vocabulary import status_source_text as _status_source_text
from ragtui.ui.widgets.metric_panel import MetricPanel


def status_source_text(source: str, tools: list[str]) -> Content:
    """The dashboard's line naming whose verdicts make the status."""
    return Content(_status_source_text(source, tools)).stylize("dim")


class ToolMetricsGroup(Vertical):
    """`DeepEval's own metrics`, then its panels in the dashboard's metric grid layout."""

    # The grid itself is laid out with ragtui's metric grid, in app.tcss (`.metric-grid`).
    DEFAULT_CSS = """
    ToolMetricsGroup {
        height: auto;
        margin-bottom: 1;
        & > .tool-title { padding: 0 1; }
    }
    """

    def __init__(
        self,
        tool: str,
        metrics: tuple[MetricComparison, ...],
        *,
        errors: dict[str, int],
        k: int,
        two_runs: bool,
        confidence: float,
        max_drop: float,
    ) -> None:
        super().__init__(id=f"tool-{tool}")
        self.tool = tool
        self.metrics = metrics
        self.errors = errors
        self.panel_options = {"k": k, "two_runs": two_runs, "confidence": confidence, "max_drop": max_drop}

    def compose(self) -> ComposeResult:
        title = TOOL_LABELS.get(self.tool, self.tool)
        yield Static(
            Content.assemble((f"{title}'s own metrics", "bold"), (" · compared like ragtui's", "dim"), self._errors_text()),
            classes="tool-title",
        )
        with Grid(classes="metric-grid"):
            for metric in self.metrics:
                yield MetricPanel(metric, **self.panel_options)  # type: ignore[arg-type]

    def _errors_text(self) -> Content:
        """` · ⚠ tool errors A 1 · B 0`: questions the tool could not judge, never averaged."""
        if not any(self.errors.values()):
            return Content("")
        counts = " · ".join(f"{side} {count}" for side, count in self.errors.items())
        return Content.styled(f" · ⚠ tool errors {counts}", "$warning")
