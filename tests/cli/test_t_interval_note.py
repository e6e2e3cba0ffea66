"""The report says which Δ intervals are t intervals rather than the bootstrap (`t_intervals`)."""

from __future__ import annotations

from typing import Any, cast

from ragtui.cli.render_certainty import t_interval_line
from ragtui.core.comparing.report_model import Report


def test_the_text_names_the_metrics_and_counts_the_grid_cells_whose_interval_is_a_t_interval():
    report = cast("Report", {"t_intervals": {"from_questions": 5000, "metrics": ["cost_usd"], "cells": [{"category": "x", "metric": "cost_usd"}] * 4}})
    assert t_interval_line(report) == (
        "Δ intervals of a mean over ≥ 5,000 questions with values distinct on nearly every question "
        "are paired t intervals, not the bootstrap: cost_usd, 4 grid cells"
    )


def test_a_report_without_t_intervals_says_nothing_of_them():
    assert t_interval_line(cast("Report", cast("dict[str, Any]", {}))) is None
