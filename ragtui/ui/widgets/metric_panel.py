"""One metric's panel: verdict, target, A and B, Δ with its interval, n.

Everything shown is a field of the core's `MetricComparison`; this widget only
formats. The verdict and the pass/fail against the target each carry a symbol
(▲ ▼ ~, ✓ ✗) next to their colour.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ragtui.core.comparing.compare import UTILITY_RANGE, MetricComparison
from ragtui.core.vocabulary import (
    FAIL,
    PASS,
    VERDICT_LABEL,
    VERDICT_STYLE,
    VERDICT_SYMBOL,
    ci_text,
    count_text,
    delta_text,
    metric_title,
    target_symbol,
    target_text,
    value_text,
)
from ragtui.ui.safe_text import join


def _side(label: str, metric: MetricComparison, which: str) -> Content:
    value = metric.a if which == "A" else metric.b
    meets = metric.meets_target(value)
    mark = target_symbol(meets)
    style = {True: "$verdict-pass bold", False: "$verdict-fail bold"}.get(meets, "")
    parts: list[Content | str] = [Content.styled(f"{label} ", "dim"), Content.styled(value_text(value.value if value else None, metric.spec), "bold")]
    if mark:
        parts += [" ", Content.styled(mark, style)]
    return join(*parts)


def _headline(metric: MetricComparison, two_runs: bool) -> Content:
    """First line: the verdict (two runs) or pass/fail (one run), then n and p."""
    if two_runs and metric.verdict is not None:
        verdict = metric.verdict
        head = Content.styled(f"{VERDICT_SYMBOL[verdict]} {VERDICT_LABEL[verdict]}", f"bold {VERDICT_STYLE[verdict]}")
        # Compact ("n 90 · p 0.12") so the line fits a panel at 80 columns.
        detail = f"n {count_text(metric.n)}" + (f" · p {metric.p_value:.2g}" if metric.p_value is not None else "")
    else:
        meets = metric.meets_target(metric.a)
        if meets is None:
            head = Content.styled("measured", "dim")
        elif meets:
            head = Content.styled(f"{PASS} meets target", "bold $verdict-pass")
        else:
            head = Content.styled(f"{FAIL} below target", "bold $verdict-fail")
        detail = f"n {count_text(metric.a.n)}"
    return join(head, Content.styled(f" · {detail}", "dim"))


def panel_title(metric: MetricComparison, k: int) -> Content:
    """`Recall@5 · target ≥ 80%` (the target sits in the border to save a line)."""
    title = Content.styled(metric_title(metric.spec, k), "bold")
    if metric.target is None:
        return title
    return join(title, Content.styled(f" · target {target_text(metric.target, metric.spec)}", "not bold"))


def panel_content(metric: MetricComparison, two_runs: bool, confidence: float, max_drop: float) -> Content:
    """The panel's lines: verdict and n; A and B with ✓/✗; Δ and its interval; the drop flag."""
    lines = [_headline(metric, two_runs)]
    if two_runs and metric.b is not None:
        lines.append(join(_side("A", metric, "A"), "   ", _side("B", metric, "B")))
        interval = f"{confidence * 100:g}% CI {ci_text(metric.ci, metric.spec)}"
        lines.append(join(Content.styled("Δ ", "dim"), Content.styled(delta_text(metric.delta, metric.spec), "bold"), "  ", Content.styled(interval, "dim")))
        if metric.drop_flagged:
            limit = f"{max_drop * 100:g} pts" if metric.spec.scale == "rate" else f"{max_drop * UTILITY_RANGE:g}"
            # A drop beyond max_drop is flagged even when the interval straddles 0.
            note = f"! > {limit}: could be noise at n = {count_text(metric.n)}" if metric.verdict != "regressed" else f"! drop > {limit}"
            lines.append(Content.styled(note, "$warning bold"))
    else:
        lines.append(_side("A", metric, "A"))
    return Content("\n").join(lines)


class MetricPanel(Static):
    """A bordered panel for one metric; its border colour follows the verdict."""

    DEFAULT_CSS = """
    MetricPanel {
        height: auto;
        border: round $panel-lighten-2;
        border-title-color: $text;
        border-title-style: bold;
        padding: 0 1;
        &.-regressed { border: round $regression; }
        &.-improved { border: round $improvement; }
        &.-below-target { border: round $verdict-fail 60%; }
    }
    """

    def __init__(self, metric: MetricComparison, *, k: int, two_runs: bool, confidence: float, max_drop: float,
                 corrected: Content | None = None) -> None:
        content = panel_content(metric, two_runs, confidence, max_drop)
        self.raw_content = content
        if corrected is not None:  # the values corrected by people's labels, under the raw ones
            content = Content("\n").join([content, corrected])
        classes = []
        if two_runs and metric.verdict in ("regressed", "improved"):
            classes.append(f"-{metric.verdict}")
        elif metric.meets_target(metric.b if two_runs else metric.a) is False:
            classes.append("-below-target")
        super().__init__(content, id=f"metric-{metric.spec.key}", classes=" ".join(classes))
        self.metric = metric
        self.border_title = panel_title(metric, k)

    def set_corrected(self, corrected: Content | None) -> None:
        """Show (or drop) the corrected values under the raw ones."""
        self.update(self.raw_content if corrected is None else Content("\n").join([self.raw_content, corrected]))
