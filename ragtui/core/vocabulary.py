"""The words, symbols and number formats of ragtui: defined once, for the app and the reports.

Rates are shown as percentages and their differences in points ("pts"); utility is a
1–5 score and its difference is in score units; latency, cost and tokens in their units.
The scale always comes from the metric's `MetricSpec` (a report metric's spec:
`comparing.targets.metric_spec`), never from its name. This is the one home of number
formats — a value, a Δ, an interval, a percentage, points — for the dashboard, the triage
screens, the calibration texts, the gates and the text, markdown and CI reports, so the
same number reads the same everywhere (tests/ui/test_formats_agree.py). The JSON report
carries raw numbers (`json_number`), not these strings.

Every verdict has a symbol as well as a colour, so a monochrome terminal (NO_COLOR) loses
nothing. No Textual here; the colours of each state are the UI's
(`ragtui.ui.content.verdict_styles`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # keeps polars out of this module's imports
    from ragtui.core.measuring.metric_specs import MetricSpec

MINUS = "\u2212"  # a real minus sign: "−3.0" does not read as a hyphen

VERDICT_SYMBOL = {"improved": "▲", "regressed": "▼", "no_clear_change": "~"}
VERDICT_LABEL = {"improved": "improved", "regressed": "regressed", "no_clear_change": "no clear change"}

# A question's status in a comparison of A and B; the same symbol on every screen and report.
STATUS_SYMBOL = {"regressed": "▼", "fixed": "▲", "still_failing": "✗", "passing": "✓", "not_measured": "○"}
STATUS_LABEL = {
    "regressed": "regressed", "fixed": "fixed", "still_failing": "still failing", "passing": "passing", "not_measured": "not measured",
}
# A panel or cell whose population is empty: nothing was measured, which is not 0.
NOT_MEASURED = "not measured"

PASS, FAIL, NA = "✓", "✗", "–"  # a question passes / fails; NA: nothing to measure
INCONCLUSIVE_MARK = "?"
# A run's value against its target, decided by the run's own interval (comparing/targets.py):
# `meets` (whole interval on the good side), `misses` (wholly on the bad side), `inconclusive`.
TARGET_SYMBOL = {"meets": PASS, "misses": FAIL, "inconclusive": INCONCLUSIVE_MARK}
TARGET_LABEL = {"meets": "meets target", "misses": "misses target", "inconclusive": "inconclusive"}
TARGET_LEGEND = " ".join(f"{TARGET_SYMBOL[v]} {v}" for v in TARGET_SYMBOL)  # "✓ meets ✗ misses ? inconclusive"
# The app paints the values before the bootstrap intervals are known: what they decide
# (verdicts, ✓ ✗ ? against the target, power) reads as this meanwhile, never as a pass.
INTERVALS_PENDING = "computing intervals…"
INTERVALS_FAILED = "intervals not computed"  # the computation failed: said, and still no pass
WORST = "◆"  # the worst category of a metric in the grid
# The trade-off view's points: the best run on both axes, a run on the Pareto front, a dominated one.
TRADEOFF_BEST, TRADEOFF_FRONT, TRADEOFF_DOMINATED = "✦", "●", "◦"
# Its target lines: faithfulness across (a row), recall up (a column).
TARGET_ROW, TARGET_COLUMN = "┄", "╎"


def run_label(position: int) -> str:
    """A run's label among several: A is the reference (position 0), then B1, B2, … each compared with A."""
    return "A" if position == 0 else f"B{position}"


VERDICT_PASS, VERDICT_FAIL, VERDICT_UNKNOWN = "✓", "✗", "?"
GOLD_MARK = "★"
BEYOND_K_MARK = "┆"
CURSOR_MARK = "›"
DISAGREE_MARK = "≠"
# An answer or passage the detector flags (judge_directed.py), and the judge's own report of it.
JUDGE_DIRECTED_MARK = "⚠"
JUDGE_DIRECTED_LABEL = "addresses the judge"
JUDGE_INJECTION_LABEL = "the judge reported an injection attempt"
# A question whose verdicts change when the judge is asked again (`ragtui judge --repeat N`).
UNSTABLE_MARK = "↕"
UNSTABLE_LABEL = "unstable verdict"

# The peer tools whose files carry their own scores (by import format), as they call
# themselves, and whose verdicts make a question pass or fail (--status-from).
TOOL_LABELS = {"deepeval": "DeepEval", "ragas": "RAGAS", "promptfoo": "promptfoo", "inspect": "inspect_ai"}
STATUS_SOURCE_LABELS = {
    "ragtui": "ragtui's verdicts",
    "tool": "{tools}'s own verdicts",
    "both": "ragtui's and {tools}'s verdicts (failing either fails)",
}


def status_source_text(source: str, tools: list[str]) -> str:
    """`Question status from: DeepEval's own verdicts (--status-from tool)`."""
    names = " / ".join(dict.fromkeys(TOOL_LABELS.get(tool, tool) for tool in tools)) or "the tool"
    return f"Question status from: {STATUS_SOURCE_LABELS[source].format(tools=names)} (--status-from {source})"


# Short codes keep the A→B kinds column narrow at 80 columns; the detail line and the
# question view spell them out.
KIND_CODES = {
    "retrieval_miss": "R",
    "unfaithful": "F",
    "answered_unanswerable": "H",
    "false_abstention": "A",
    "low_utility": "U",
    "system_error": "S",
    "judge_error": "J",
    "missing": "M",
}
KIND_LABELS = {
    "retrieval_miss": "retrieval miss",
    "unfaithful": "unfaithful",
    "answered_unanswerable": "answered the unanswerable",
    "false_abstention": "false abstention",
    "low_utility": "low utility",
    "system_error": "system error",
    "judge_error": "judge error",
    "missing": "missing",
    "tool_fail": "failed by the tool",
    "tool_error": "tool error",
}
# A peer tool's own verdicts, when they make the status (--status-from tool|both); kept
# apart so the legend of a plain ragtui comparison does not list them.
TOOL_KIND_CODES = {"tool_fail": "T", "tool_error": "E"}
CAUSE_LABELS = {
    "retrieval": "retrieval",
    "generation_same_passages": "generation (same passages)",
    "generation": "generation",
    "missing": "missing from B",
    "system_error": "system error in B",
    "judge_error": "judge error in B",
}
# The cause spelled out, for the reports' regressed list.
CAUSE_EXPLAINED = {
    "retrieval": "retrieval (gold left the top k)",
    "generation_same_passages": "generation (same passages)",
    "generation": "generation (retrieval not worse)",
    "missing": "missing from B",
    "system_error": "system error in B (the call failed)",
    "judge_error": "judge error in B (not the system)",
}
CAUSE_SHORT = {
    "retrieval": "retrieval", "generation_same_passages": "gen·same", "generation": "generation", "missing": "missing", "system_error": "system err", "judge_error": "judge err",
}
JUDGE_CHANGED_NOTE = "⚠ judge changed: Δ mixes judges"
MULTIPLE_TESTING_SHORT = {"holm": "Holm", "bh": "Benjamini–Hochberg"}


def clustered_text(clusters: int | None) -> str | None:
    """`clustered by document (7)`: the panels' and reports' word for a clustered interval."""
    return None if clusters is None else f"clustered by document ({clusters})"


# Column headings short enough for a category grid at 80 columns.
SHORT_LABELS = {
    "recall": "Recall@{k}",
    "faithfulness": "Faithful",
    "abstention": "Abstain",
    "utility": "Utility",
    "context_precision": "CtxPrec@{k}",
    "mrr": "MRR@{k}",
    "false_abstention": "FalseAbst",
    # A quantity's unit in its heading: the cells hold bare numbers.
    "latency_p50_ms": "p50(ms)",
    "latency_p95_ms": "p95(ms)",
    "cost_usd": "Cost($)",
    "tokens": "Tokens",
}


def _signed(number: float, digits: int) -> str:
    text = f"{number:+.{digits}f}"
    if float(text) == 0:  # no "−0.0" or "+0.0": nothing moved at this precision
        return f"{0:.{digits}f}"
    return text.replace("-", MINUS)


def metric_title(spec: MetricSpec, k: int) -> str:
    """`Recall@5`, `Faithfulness`, `Context precision@5`."""
    return f"{spec.label}@{k}" if spec.at_k else spec.label


def short_label(spec: MetricSpec, k: int) -> str:
    return SHORT_LABELS.get(spec.key, spec.label).format(k=k)


def quantity_text(value: float, scale: str, *, signed: bool = False, unit: bool = True) -> str:
    """A latency, a cost or a token count in its unit: `1563 ms`, `$0.000824`, `937 tokens`;
    signed for a Δ (`+251 ms`, `+$0.000002`); `unit=False` where a heading names it (`1563`)."""
    sign = ("+" if value >= 0 else MINUS) if signed else ("" if value >= 0 else MINUS)
    size = abs(value)
    if scale == "usd":
        return f"{sign}{'$' if unit else ''}{size:.6f}"
    return f"{sign}{size:.0f}" + (f" {'ms' if scale == 'ms' else 'tokens'}" if unit else "")


def as_stored(number: float, spec: MetricSpec) -> float:
    """`number` as the JSON report stores it (`json_number` at the spec's digits). Every format
    starts from it, so the app, the text and markdown reports and the JSON agree to the last
    digit shown: formatting the raw number in one place and the stored one in another would
    round 0.860465 to 86.0% here and, through 0.8605, to 86.1% there."""
    return round(number, spec.json_digits)


def value_text(value: float | None, spec: MetricSpec, *, digits: int = 1, unit: bool = True) -> str:
    """`91.7%` for a rate, `4.12` for a score, `1563 ms` for a quantity (`1563` with
    `unit=False`, where a heading names it), `n/a` when there is nothing to measure."""
    if value is None:
        return "n/a"
    value = as_stored(value, spec)
    if spec.quantity:
        return quantity_text(value, spec.scale, unit=unit)
    if spec.scale == "score":
        return f"{value:.{digits + 1}f}"
    return f"{value * 100:.{digits}f}%"


def delta_text(delta: float | None, spec: MetricSpec, *, digits: int = 1, unit: bool = True) -> str:
    """`−6.0 pts` for a rate, `−0.21` for a score, `+251 ms` for a quantity; `unit=False`
    leaves out " pts" and a quantity's unit (`−6.0`, `+251`)."""
    if delta is None:
        return "n/a"
    delta = as_stored(delta, spec)
    if spec.quantity:
        return quantity_text(delta, spec.scale, signed=True, unit=unit)
    if spec.scale == "score":
        return _signed(delta, digits + 1)
    return _signed(delta * 100, digits) + (" pts" if unit else "")


def ci_text(ci: tuple[float, float] | list[float | None] | None, spec: MetricSpec) -> str:
    """The interval of Δ in the unit of `delta_text`: `−9.1…+1.2`; `n/a` without one."""
    low, high = ci if ci else (None, None)
    if low is None or high is None:
        return "n/a"
    return f"{delta_text(low, spec, unit=False)}…{delta_text(high, spec, unit=False)}"


def delta_ci_text(delta: float | None, ci: tuple[float, float] | list[float | None] | None, spec: MetricSpec, *, unit: bool = True) -> str:
    """Δ and its interval in one cell: `−6.0 pts (−9.1…+1.2)`, `+0.12 (−0.05…+0.30)`; `n/a`
    without a Δ, and the Δ alone without an interval. `unit=False` leaves out " pts" (for a
    table whose heading names it)."""
    if delta is None:
        return "n/a"
    interval = ci_text(ci, spec)
    return delta_text(delta, spec, unit=unit) + ("" if interval == "n/a" else f" ({interval})")


def percent_text(share: float | None, *, digits: int = 1, unit: bool = True) -> str:
    """A share of 0–1 that is no metric's value (an agreement, a flip rate, a power): `91.2%`;
    `unit=False` leaves out the `%` (a row of numbers whose legend names it)."""
    if share is None:
        return "n/a"
    return f"{round(share, 4) * 100:.{digits}f}" + ("%" if unit else "")  # as the JSON stores a share (`json_number`)


def level_text(share: float) -> str:
    """A share the configuration sets — a confidence level, max_drop as a share of a
    quantity's A value — with the digits it was written with: `95%`, `97.5%`, `3%`."""
    return f"{share * 100:g}%"


def interval_heading(confidence: float) -> str:
    """`95% CI`: what an interval at `confidence` is called in a heading or a label."""
    return f"{level_text(confidence)} CI"


def p_value_text(p_value: float) -> str:
    """A p-value to two significant digits: `0.12`, `0.0002`, `1`."""
    return f"{p_value:.2g}"


def points_text(difference: float, *, digits: int = 1) -> str:
    """An unsigned difference of rates in points: `3.0 pts`."""
    return f"{difference * 100:.{digits}f} pts"


def half_width_text(half_width: float, spec: MetricSpec) -> str:
    """The half-width of an interval in the unit of `delta_text`: `±3.0 pts`, `±0.20` (utility)."""
    if spec.scale == "score":
        return f"±{half_width:.2f}"
    return "±" + points_text(half_width)


def target_text(target: float | None, spec: MetricSpec, *, missing: str = "no target") -> str:
    """`≥ 80%`, `≤ 5%`, `≥ 4.00`, or `missing` (`no target`; a table's cell leaves it empty)."""
    if target is None:
        return missing
    sign = "≥" if spec.higher_is_better else "≤"
    return f"{sign} {value_text(target, spec, digits=0 if spec.scale == 'rate' else 1)}"


def target_symbol(verdict: str | None) -> str:
    """✓ meets, ✗ misses, ? inconclusive; "" without a target or a value."""
    return TARGET_SYMBOL.get(verdict or "", "")


def target_mark(verdict: str | None) -> str:
    """`target_symbol` in a table's column: a space without a verdict, so columns stay aligned."""
    return target_symbol(verdict) or " "


def interval_text(ci: tuple[float, float] | list[float | None] | None, spec: MetricSpec) -> str:
    """A run's own interval in the unit of `value_text`: `78.1…92.2%`, `3.67…4.13`; `n/a` without one."""
    low, high = ci if ci else (None, None)
    if low is None or high is None:
        return "n/a"
    low, high = as_stored(low, spec), as_stored(high, spec)
    if spec.quantity:
        return f"{quantity_text(low, spec.scale)}…{quantity_text(high, spec.scale)}"
    if spec.scale == "score":
        return f"{low:.2f}…{high:.2f}"
    return f"{low * 100:.1f}…{high * 100:.1f}%"


def drop_text(drop: float | None, spec: MetricSpec) -> str:
    """The size of a drop, unsigned: `3 pts`, `9.1 pts`, `0.12` (utility's score units)."""
    if drop is None:
        return "n/a"
    drop = as_stored(drop, spec)
    if spec.quantity:
        return quantity_text(drop, spec.scale)
    if spec.scale == "score":
        return f"{drop:.2f}"
    return points_text(drop).replace(".0 pts", " pts")


def power_text(mde: float | None, n_needed: int | None, drop: float, spec: MetricSpec) -> str:
    """`mde 11.9 pts · n 1 452 for 3 pts` (80 % power): what this comparison can see, and what it would take.

    Short enough for a metric panel at 80 columns (two panels side by side).
    """
    if mde is None and n_needed is None:
        return "mde n/a: A and B never differ here"
    seen = f"mde {drop_text(mde, spec)}" if mde is not None else "mde none"  # none: too few questions
    return f"{seen} · n {count_text(n_needed or 0)} for {drop_text(drop, spec)}"


COST_UNKNOWN = "cost unknown"  # a model without a price: never "$?", never a made-up "$0"


def cost_text(cost: float | None, *, estimate: bool = False) -> str:
    """`$0.0412` (`≈$0.0412` for an estimate), or "cost unknown" when a price is missing."""
    if cost is None:
        return COST_UNKNOWN
    return f"{'≈' if estimate else ''}${cost:.4f}"


def count_text(n: int) -> str:
    """Thousands separated by a thin space: `100 000`."""
    return f"{n:,}".replace(",", "\u2009")


def date_text(created_at: str | None) -> str:
    """`2026-11-20 09:12` from an ISO 8601 time; other text is shown as written."""
    if not created_at:
        return "no date"
    from datetime import datetime

    try:
        when = datetime.fromisoformat(created_at.replace("Z", "+00:00"))
    except ValueError:
        return created_at
    # The clock time as the run file wrote it (no conversion): enough to tell runs apart.
    return when.strftime("%Y-%m-%d %H:%M")


def kind_codes(kinds: list[str] | None) -> str:
    """'RU' for [retrieval_miss, low_utility]; '—' for none."""
    return "".join(KIND_CODES.get(kind) or TOOL_KIND_CODES.get(kind, "?") for kind in kinds or []) or "—"


def kind_words(kinds: list[str] | None) -> str:
    """'retrieval miss, low utility'; 'passes' for none."""
    return ", ".join(KIND_LABELS.get(kind, kind) for kind in kinds or []) or "passes"


KIND_LEGEND = " ".join(f"{code}={KIND_LABELS[kind]}" for kind, code in KIND_CODES.items())
TOOL_KIND_LEGEND = " ".join(f"{code}={KIND_LABELS[kind]}" for kind, code in TOOL_KIND_CODES.items())


def status_label(status: str, two_runs: bool = True) -> str:
    """'still failing' compares two runs; a single run's failing question is just 'failing'."""
    if status == "still_failing" and not two_runs:
        return "failing"
    return STATUS_LABEL.get(status, status)


def json_number(value: float | None, digits: int = 4) -> float | None:
    """A value as the JSON report writes it: rounded, with NaN and None both `null`."""
    if value is None or (isinstance(value, float) and value != value):  # NaN is the one float unequal to itself
        return None
    return round(float(value), digits)
