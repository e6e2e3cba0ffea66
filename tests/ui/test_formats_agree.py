"""The app and the reports print the same strings for the same numbers (one format module,
`ragtui.core.vocabulary`).

The bundled sample, compared once: each headline metric's value, Δ, interval of Δ, each run's
own interval and the target read the same in a dashboard panel (its Content, as the app draws
it), in the text report, in the markdown report and in the gate messages. The expected strings
are written out by hand from the JSON report (tests/cli/golden/sample_report.json): recall@5
is 0.7889 → 0.8667, Δ 0.0778 [0.0, 0.1609], A's own interval [0.6937, 0.8605], …

The settings read the same too: the confidence level (0.95), max_drop (0.03: 3 points of
a rate, 0.12 of utility, 3 % of a latency's A value) and a p-value (recall@5's 0.1185), in
the metric and quantity panels, the recall curve and the reports' power section.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtui.cli.render import render_text
from ragtui.cli.render_markdown import render_markdown
from ragtui.core.comparing.gates import run_gates
from ragtui.core.comparing.report import build_report
from ragtui.ui.models.dashboard import build_dashboard_data
from ragtui.ui.widgets.metric_panel import panel_content, panel_title
from ragtui.ui.widgets.quantity_panel import quantity_content
from ragtui.ui.widgets.recall_curve import curve_content

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
# metric: (A, B, Δ, interval of Δ, A's own interval, B's own interval, target)
SAMPLE_STRINGS = {
    "recall@5": ("78.9%", "86.7%", "+7.8 pts", "0.0…+16.1", "69.4…86.1%", "78.1…92.2%", "≥ 80%"),
    "faithfulness": ("87.5%", "84.4%", "−3.1 pts", "−9.3…+3.1", "82.1…92.5%", "79.7…88.9%", "≥ 85%"),
    "abstention": ("90.0%", "80.0%", "−10.0 pts", "−21.9…0.0", "74.4…96.5%", "62.7…90.5%", "≥ 90%"),
    "utility": ("3.90", "3.91", "+0.01", "−0.21…+0.25", "3.64…4.14", "3.67…4.13", "≥ 4.00"),
}


@pytest.fixture(scope="module")
def sample():
    """The sample as tests/cli/golden/sample_report.json compares it (runs and gold set, no config)."""
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.session import load_comparison

    comparison = load_comparison(Inputs(a=SAMPLE / "baseline.jsonl", b=SAMPLE / "candidate.jsonl", gold=SAMPLE / "gold.yaml", cache=False))
    return comparison, build_report(comparison)


def _panel(comparison, name: str) -> str:
    metric = comparison.metrics[name]
    config = comparison.config
    return panel_title(metric, comparison.k).plain + "\n" + panel_content(metric, True, config.confidence, config.max_drop).plain


def _row(text: str, name: str) -> str:
    """The metric's row of the text report's main table (its name may carry the judge mark ≠)."""
    return next(line for line in text.splitlines() if line.split(" ")[0].rstrip("≠") == name)


@pytest.mark.parametrize("name", list(SAMPLE_STRINGS))
def test_a_headline_metric_reads_the_same_in_its_dashboard_panel_and_in_the_text_and_markdown_reports(sample, name):
    comparison, report = sample
    a, b, delta, ci, a_interval, b_interval, target = SAMPLE_STRINGS[name]
    panel = _panel(comparison, name)
    for shown in (f"A {a}", f"B {b}", f"Δ {delta}", f"CI {ci}", f"A {a_interval}", f"B {b_interval}", f"target {target}"):
        assert shown in panel, (shown, panel)
    text = render_text(report)
    row = _row(text, name)
    bare_delta = delta.removesuffix(" pts")  # the table's heading says "Δ pts"
    for shown in (target, a, b, f"{bare_delta} ({ci})"):
        assert shown in row, (shown, row)
    # Each run's own interval, in the table of verdicts against the targets.
    target_row = next(line for line in text.splitlines() if line.startswith(f"{name} ") and "inconclusive" in line)
    assert a_interval in target_row and b_interval in target_row
    markdown_row = next(line for line in render_markdown(report).splitlines() if line.startswith(f"| `{name}` | {target} |"))
    assert f"| {a} " in markdown_row and f"| {b} " in markdown_row and f"| {delta} ({ci})" in markdown_row


def test_a_gate_names_the_numbers_as_the_app_and_the_reports_do(sample):
    comparison, report = sample
    target, drop = (gate.reason for gate in run_gates(report, on_drop=True, below_target=True, strict_targets=True))
    assert "faithfulness dropped more than max_drop (Δ −3.1 pts, no clear change)" in drop
    assert "recall@5 of B is inconclusive against its target ≥ 80% (86.7%, CI 78.1…92.2%; --strict-targets)" in target
    assert "Δ −3.1 pts" in _panel(comparison, "faithfulness") and "B 86.7%" in _panel(comparison, "recall@5")


def test_a_value_at_a_rounding_boundary_is_rounded_once_as_the_json_stores_it(sample):
    # recall@5 of A: its own (Wilson) interval ends at 0.860474…, stored as 0.8605 in the JSON;
    # the panel and the report both print 86.1% (never 86.0% in one and 86.1% in the other).
    comparison, report = sample
    assert 0.86047 < comparison.metrics["recall@5"].target_reading("A").ci[1] < 0.86048
    assert report["metrics"]["recall@5"]["ci_by_run"]["A"] == [0.6937, 0.8605]
    assert "A 69.4…86.1%" in _panel(comparison, "recall@5")


def test_the_confidence_level_the_drop_limit_and_a_p_value_read_the_same_in_the_panels_and_the_reports(sample):
    comparison, report = sample
    text, markdown = render_text(report), render_markdown(report)
    assert report["power"]["confidence"] == 0.95 and report["power"]["max_drop"] == 0.03
    faithfulness, utility, recall = (_panel(comparison, name) for name in ("faithfulness", "utility", "recall@5"))
    for shown in ("95% CI", "for 3 pts", "! > 3 pts: could be noise at n = 89"):
        assert shown in faithfulness, (shown, faithfulness)
    assert "for 0.12" in utility and "p 0.12" in recall  # recall@5: p 0.1185 in the JSON
    for report_text in (text, markdown):
        assert "Power (80% power, 95% confidence)" in report_text and "a drop of 3 pts" in report_text
        assert "891 (for 0.12)" in report_text  # utility's questions needed, as its panel says "n 891 for 0.12"
    data = build_dashboard_data(comparison)
    assert "! Δ > 3% of A's value" in quantity_content(data.quantities, data.k, True, data.max_drop).plain


def test_the_recall_curve_s_numbers_round_as_the_reports_do(sample):
    # recall@5 is 0.7889 → 0.8667 (78.9% and 86.7% in the reports): 79 and 87 at k = 5.
    comparison, _ = sample
    data = build_dashboard_data(comparison)
    lines = curve_content(data.curves, data.k, 84).plain.splitlines()  # 84 columns: a row of numbers under each run's bars
    numbers = {lines[index - 1].split()[0]: line.split() for index, line in enumerate(lines) if line.startswith("     ")}
    assert numbers["A"][4] == "79" and numbers["B"][4] == "87"
    assert "A @1 31%  @5 79%" in curve_content(data.curves, data.k, 84).plain
