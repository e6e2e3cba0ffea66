"""One metric's panel: verdict, target, A and B, Δ with its interval, n, power.

Everything shown is a field of the core's `MetricComparison`; this widget only
formats. The verdict and each run's verdict against the target carry a symbol
(▲ ▼ ~; ✓ meets, ✗ misses, ? inconclusive) next to their colour, and each run's
value is followed by its own interval, the one that decided that verdict. Until the
intervals are computed (`MetricComparison.intervals_pending`) the panel shows the values
and says so, with no verdict and no target mark: nothing reads as a pass before it is known.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from ragtui.core.comparing.result import MetricComparison
from ragtui.core.vocabulary import (
    INTERVALS_PENDING,
    JUDGE_CHANGED_NOTE,
    NOT_MEASURED,
    TARGET_LABEL,
    VERDICT_LABEL,
    VERDICT_SYMBOL,
    ci_text,
    clustered_text,
    count_text,
    delta_text,
    drop_text,
    interval_text,
    level_text,
    metric_title,
    p_value_text,
    power_text,
    target_symbol,
    target_text,
    value_text,
)
from ragtui.ui.content.safe_text import join
from ragtui.ui.content.verdict_styles import TARGET_STYLE, VERDICT_STYLE


def _side(label: str, metric: MetricComparison, which: str) -> Content:
    """`A 86.7% ?`: the value and its verdict against the target."""
    value = metric.a if which == "A" else metric.b
    verdict = metric.target_reading(which).verdict
    parts: list[Content | str] = [Content.styled(f"{label} ", "dim"), Content.styled(value_text(value.value if value else None, metric.spec), "bold")]
    if verdict is not None:
        parts += [" ", Content.styled(target_symbol(verdict), f"{TARGET_STYLE[verdict]} bold")]
    return join(*parts)


def _not_measured(metric: MetricComparison, two_runs: bool) -> bool:
    """n = 0 on a side shown: the panel says so rather than showing a lone "n/a"."""
    sides = [metric.a] + ([metric.b] if two_runs and metric.b is not None else [])
    return any(side.n == 0 for side in sides)


def _run_intervals(metric: MetricComparison, runs: tuple[str, ...]) -> Content | None:
    """`CIs A 69.4…86.0% · B 78.1…92.2%`: each run's own interval, the one behind its ✓ ✗ ?."""
    shown = [f"{run} {interval_text(metric.target_reading(run).ci, metric.spec)}" for run in runs if metric.target_reading(run).ci]
    return Content.styled(("CIs " if len(shown) > 1 else "CI ") + " · ".join(shown), "dim") if shown else None


def _headline(metric: MetricComparison, two_runs: bool, pending: str) -> Content:
    """First line: the verdict (two runs) or the verdict against the target (one run), then n and p."""
    if two_runs and metric.verdict is not None:
        verdict = metric.verdict
        head = Content.styled(f"{VERDICT_SYMBOL[verdict]} {VERDICT_LABEL[verdict]}", f"bold {VERDICT_STYLE[verdict]}")
        # Compact ("n 90 · p 0.12") so the line fits a panel at 80 columns.
        detail = f"n {count_text(metric.n)}" + (f" · p {p_value_text(metric.p_value)}" if metric.p_value is not None else "")
    elif _not_measured(metric, two_runs):
        head = Content.styled(NOT_MEASURED, "bold $warning")
        sides = [metric.a] + ([metric.b] if two_runs and metric.b is not None else [])
        detail = "n " + " · ".join(count_text(side.n) for side in sides)
    elif metric.intervals_pending:
        head = Content.styled(f"… {pending}", "italic $text-muted")
        detail = f"n {count_text(metric.n)}"
    else:
        reading = metric.target_reading("A").verdict
        if reading is None:
            head = Content.styled("measured", "dim")
        else:
            head = Content.styled(f"{target_symbol(reading)} {TARGET_LABEL[reading]}", f"bold {TARGET_STYLE[reading]}")
        detail = f"n {count_text(metric.a.n)}"
    return join(head, Content.styled(f" · {detail}", "dim"))


def panel_title(metric: MetricComparison, k: int) -> Content:
    """`Recall@5 · target ≥ 80%` (the target sits in the border to save a line)."""
    title = Content.styled(metric_title(metric.spec, k), "bold")
    if metric.target is None:
        return title
    return join(title, Content.styled(f" · target {target_text(metric.target, metric.spec)}", "not bold"))


def panel_content(metric: MetricComparison, two_runs: bool, confidence: float, max_drop: float, pending: str = INTERVALS_PENDING) -> Content:
    """The panel's lines: verdict and n; A and B against the target; Δ and its interval; power; the drop flag.

    `pending` is what the headline says while the intervals are not known (being computed, or failed).
    """
    lines = [_headline(metric, two_runs, pending)]
    if two_runs and metric.b is not None:
        lines.append(join(_side("A", metric, "A"), "   ", _side("B", metric, "B")))
        intervals = _run_intervals(metric, ("A", "B"))
        interval = f"{level_text(confidence)} CI " + ("…" if metric.intervals_pending else ci_text(metric.ci, metric.spec))
        lines += [intervals] if intervals is not None else []
        lines.append(join(Content.styled("Δ ", "dim"), Content.styled(delta_text(metric.delta, metric.spec), "bold"), "  ", Content.styled(interval, "dim")))
        if metric.power is not None:
            power = metric.power
            lines.append(Content.styled(power_text(power.mde, power.n_needed, power.drop, metric.spec), "dim"))
        if metric.drop_flagged:
            limit = drop_text(max_drop * metric.spec.span, metric.spec)
            # A drop beyond max_drop is flagged even when the interval straddles 0.
            note = f"! > {limit}: could be noise at n = {count_text(metric.n)}" if metric.verdict != "regressed" else f"! drop > {limit}"
            if metric.intervals_pending:  # noise or not is for the interval to say
                note = f"! drop > {limit}"
            lines.append(Content.styled(note, "$warning bold"))
        if metric.judge_changed:
            lines.append(Content.styled(JUDGE_CHANGED_NOTE, "$warning"))
    else:
        lines.append(_side("A", metric, "A"))
        intervals = _run_intervals(metric, ("A",))
        lines += [intervals] if intervals is not None else []
    return Content("\n").join(lines)


class VerdictPanel(Static):
    """A bordered panel of the metric grid whose border colour follows its verdict
    (the classes of `verdict_classes`)."""

    DEFAULT_CSS = """
    VerdictPanel {
        height: auto;
        border: round $panel-lighten-2;
        border-title-color: $text;
        border-title-style: bold;
        padding: 0 1;
        &.-regressed { border: round $regression; }
        &.-improved { border: round $improvement; }
        &.-misses-target { border: round $verdict-fail 60%; }
    }
    """


class MetricPanel(VerdictPanel):
    """A bordered panel for one metric; its border colour follows the verdict."""

    def __init__(self, metric: MetricComparison, *, k: int, two_runs: bool, confidence: float, max_drop: float,
                 corrected: Content | None = None) -> None:
        self.raw_content = panel_content(metric, two_runs, confidence, max_drop)
        self._corrected = corrected
        super().__init__(self._shown(), id=f"metric-{metric.spec.key}", classes=" ".join(_verdict_classes(metric, two_runs)))
        self.metric = metric
        self._settings = (two_runs, confidence, max_drop)
        self.border_title = panel_title(metric, k)
        self.border_subtitle = clustered_text(metric.clusters) or ""

    def _shown(self) -> Content:
        if self._corrected is None:
            return self.raw_content
        return Content("\n").join([self.raw_content, self._corrected])  # the values corrected by people's labels, under the raw ones

    def set_metric(self, metric: MetricComparison, pending: str = INTERVALS_PENDING) -> None:
        """The same metric with its intervals and verdicts filled in (or, still pending, why)."""
        two_runs, confidence, max_drop = self._settings
        self.metric = metric
        self.raw_content = panel_content(metric, two_runs, confidence, max_drop, pending)
        self.set_classes(" ".join(_verdict_classes(metric, two_runs)))
        self.border_subtitle = clustered_text(metric.clusters) or ""
        self.update(self._shown())

    def set_corrected(self, corrected: Content | None) -> None:
        """Show (or drop) the corrected values under the raw ones."""
        self._corrected = corrected
        self.update(self._shown())


def verdict_classes(metrics: tuple[MetricComparison, ...], two_runs: bool) -> list[str]:
    """The border's colour for a panel of `metrics`: a regression, else a missed target, else
    an improvement (none while the intervals are pending)."""
    verdicts = {metric.verdict for metric in metrics} if two_runs else set()
    if "regressed" in verdicts:
        return ["-regressed"]
    if any(metric.target_reading("B" if two_runs else "A").verdict == "misses" for metric in metrics):
        return ["-misses-target"]
    return ["-improved"] if "improved" in verdicts else []


def _verdict_classes(metric: MetricComparison, two_runs: bool) -> list[str]:
    """The border's colour: the verdict, else a missed target (none while the intervals are pending)."""
    if two_runs and metric.verdict in ("regressed", "improved"):
        return [f"-{metric.verdict}"]
    return verdict_classes((metric,), two_runs)
