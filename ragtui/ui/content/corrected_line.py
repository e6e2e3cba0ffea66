"""The corrected value under a metric panel's raw one (faithfulness and utility).

`corrected B 84.1% (79.0…89.2%) · 40 labels · label ≈ 35 more for ±3.0 pts` — from the
sampled labels (PPI++, `ragtui.core.measuring.correction`); nothing when no run has any.
"""

from __future__ import annotations

from textual.content import Content

from ragtui.core.calibration_words import cal_interval, too_few_text
from ragtui.core.measuring.label_values import CORRECTED_METRICS, CorrectedMetric
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import half_width_text, value_text
from ragtui.ui.content.safe_text import join


def corrected_content(metric: str, corrections: dict[str, dict[str, CorrectedMetric]]) -> Content | None:
    """One line per run with sampled labels, or None (the panel then shows only raw values)."""
    if metric not in CORRECTED_METRICS:
        return None
    lines = []
    for side, found in corrections.items():
        result = found.get(metric)
        if result is None or result.corrected is None:
            continue
        c = result.corrected
        if c.too_few:
            lines.append(join(Content.styled(f"corrected {side} ", "dim"), too_few_text(c.labels, why=False)))
            continue
        parts: list[Content | str] = [
            Content.styled(f"corrected {side} ", "dim"),
            Content.styled(value_text(c.value, metric_by_name(metric)), "bold"),
            f"{cal_interval(metric, c.ci)} · {c.labels} labels",
        ]
        if result.budget:
            parts.append(Content.styled(f" · +{result.budget} for {half_width_text(result.target_half_width, metric_by_name(metric))}", "dim"))
        lines.append(join(*parts))
    return Content("\n").join(lines) if lines else None
