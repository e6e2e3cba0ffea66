"""Numbers and verdicts as short text, the same way on every screen.

Rates are shown as percentages and their differences in points ("pts"); utility is a
1–5 score and its difference is in score units. Every verdict has a symbol as well as a
colour, so a monochrome terminal (NO_COLOR) loses nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # keeps polars out of this module's imports
    from ragtui.core.measuring.metrics import MetricSpec

MINUS = "\u2212"  # a real minus sign: "−3.0" does not read as a hyphen

VERDICT_SYMBOL = {"improved": "▲", "regressed": "▼", "no_clear_change": "~"}
VERDICT_LABEL = {"improved": "improved", "regressed": "regressed", "no_clear_change": "no clear change"}
# The theme variable that colours each verdict (styles in Content resolve $variables).
VERDICT_STYLE = {"improved": "$improvement", "regressed": "$regression", "no_clear_change": "$no-change"}
STATUS_SYMBOL = {"regressed": "▼", "fixed": "▲", "still_failing": "✗", "passing": "✓"}
STATUS_LABEL = {"regressed": "regressed", "fixed": "fixed", "still_failing": "still failing", "passing": "passing"}
PASS, FAIL, NA = "✓", "✗", "–"
WORST = "◆"

# Column headings short enough for a category grid at 80 columns.
SHORT_LABELS = {
    "recall": "Recall@{k}",
    "faithfulness": "Faithful",
    "abstention": "Abstain",
    "utility": "Utility",
    "context_precision": "CtxPrec@{k}",
    "mrr": "MRR@{k}",
    "false_abstention": "FalseAbst",
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


def value_text(value: float | None, spec: MetricSpec, *, digits: int = 1) -> str:
    """`91.7%` for a rate, `4.12` for a score, `n/a` when there is nothing to measure."""
    if value is None:
        return "n/a"
    if spec.scale == "score":
        return f"{value:.{digits + 1}f}"
    return f"{value * 100:.{digits}f}%"


def delta_text(delta: float | None, spec: MetricSpec, *, digits: int = 1, unit: bool = True) -> str:
    """`−6.0 pts` for a rate, `−0.21` for a score."""
    if delta is None:
        return "n/a"
    if spec.scale == "score":
        return _signed(delta, digits + 1)
    return _signed(delta * 100, digits) + (" pts" if unit else "")


def ci_text(ci: tuple[float, float] | None, spec: MetricSpec) -> str:
    """The interval of Δ in the unit of `delta_text`: `−9.1…+1.2`."""
    if ci is None:
        return "n/a"
    low, high = ci
    return f"{delta_text(low, spec, unit=False)}…{delta_text(high, spec, unit=False)}"


def target_text(target: float | None, spec: MetricSpec) -> str:
    """`≥ 80%`, `≤ 5%`, `≥ 4.00`, or `no target`."""
    if target is None:
        return "no target"
    sign = "≥" if spec.higher_is_better else "≤"
    return f"{sign} {value_text(target, spec, digits=0 if spec.scale == 'rate' else 1)}"


def target_symbol(meets: bool | None) -> str:
    return {True: PASS, False: FAIL}.get(meets, "")


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
