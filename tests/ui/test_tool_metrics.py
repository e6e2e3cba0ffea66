"""A peer tool's own metrics in the app: a panel group per tool, its verdicts in the question view.

The runs are the two DeepEval test runs of tests/importers/fixtures: by DeepEval's own
`success`, B fixes q03, q04 and q09 and breaks q06; q09's answer in A is empty and its
Faithfulness metric errored.
"""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from ragtui.core.loading.inputs import Inputs
from ragtui.core.session import load_comparison
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.widgets.metric_panel import MetricPanel
from ragtui.ui.widgets.question_side import QuestionSide
from ragtui.ui.widgets.status_counts import StatusCounts
from ragtui.ui.widgets.tool_panels import ToolMetricsGroup
from tests.ui.conftest import text_of, wait_until_loaded
from tests.ui.triage_data import host_app

FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"
DEEPEVAL = Inputs(a=FIXTURES / "deepeval_pair_a.json", b=FIXTURES / "deepeval_pair_b.json")


def _tool_part(app, side: str) -> str:
    return str(app.screen.query_one(f"#side-{side}", QuestionSide).query_one(".side-tool", Static).render())


async def test_the_dashboard_shows_deepevals_metrics_as_their_own_panel_group():
    app = RagtuiApp(Session(DEEPEVAL))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen), text_of(app.screen)
        group = app.screen.query_one("#tool-deepeval", ToolMetricsGroup)
        assert "DeepEval's own metrics" in text_of(group) and "⚠ tool errors A 1 · B 0" in text_of(group)
        panels = {panel.metric.name: panel for panel in group.query(MetricPanel)}
        assert list(panels) == ["deepeval:Answer Relevancy", "deepeval:Faithfulness"]
        relevancy = panels["deepeval:Answer Relevancy"]
        title = str(relevancy.border_title)
        assert "Answer Relevancy" in title and "target ≥ 50%" in title
        text = text_of(relevancy)
        assert "no clear change · n 10" in text and "A 63.0% ?" in text and "B 76.5% ✓" in text  # A: 0.42…0.82 straddles 0.5


async def test_the_dashboard_counts_and_names_the_status_from_the_tools_verdicts():
    app = RagtuiApp(Session(DEEPEVAL))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        counts = text_of(app.screen.query_one(StatusCounts))
        assert "1 regressed" in counts and "3 fixed" in counts and "1 still failing" in counts
        source = str(app.screen.query_one("#status-source", Static).render())
        assert source == "Question status from: DeepEval's own verdicts (--status-from tool)"


async def test_status_from_ragtui_in_the_app_is_named_too():
    app = RagtuiApp(Session(Inputs(a=DEEPEVAL.a, b=DEEPEVAL.b, status_from="ragtui")))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert "ragtui's verdicts (--status-from ragtui)" in str(app.screen.query_one("#status-source", Static).render())


async def test_a_native_comparison_has_no_tool_group(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert not app.screen.query(ToolMetricsGroup) and not app.screen.query("#status-source")


async def test_the_question_view_shows_each_tool_metric_with_threshold_pass_and_reason():
    comparison = load_comparison(DEEPEVAL)
    async with host_app(lambda: QuestionScreen(comparison, ["q06"], 0)).run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        b_side = _tool_part(pilot.app, "B")
        assert b_side.startswith("DeepEval's verdict ✗ fails")
        assert "✗ Answer Relevancy 0.40 (threshold 0.5)" in b_side
        assert "The score is 0.40 because the answer drifts from the question." in b_side
        assert "✗ Faithfulness 0.60 (threshold 0.7)" in b_side
        assert _tool_part(pilot.app, "A").startswith("DeepEval's verdict ✓ passes")


async def test_the_question_view_shows_a_metric_error_as_a_tool_error_never_a_pass():
    comparison = load_comparison(DEEPEVAL)
    async with host_app(lambda: QuestionScreen(comparison, ["q09"], 0)).run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        a_side = _tool_part(pilot.app, "A")
        assert a_side.startswith("DeepEval's verdict ? tool error: Faithfulness: Evaluation LLM outputted an invalid JSON")
        assert "? Faithfulness n/a (threshold 0.7)" in a_side
        assert "error: Evaluation LLM outputted an invalid JSON." in a_side


# Pictures at 80×24 (regenerate with --snapshot-update and look at the SVGs).


async def _scrolled_to_the_tool_group(pilot) -> None:
    await wait_until_loaded(pilot)
    group = pilot.app.screen.query_one(ToolMetricsGroup)
    pilot.app.screen.query_one("#dashboard-scroll").scroll_to_widget(group, animate=False, top=True)
    await pilot.pause()


def test_dashboard_tool_group_at_80x24_snapshot(snap_compare):
    assert snap_compare(RagtuiApp(Session(DEEPEVAL), theme_name="dark"), terminal_size=(80, 24), run_before=_scrolled_to_the_tool_group)


def test_question_view_with_the_tools_verdicts_at_80x24_snapshot(snap_compare):
    comparison = load_comparison(DEEPEVAL)
    app = host_app(lambda: QuestionScreen(comparison, ["q06"], 0))
    # The side's body scrolls to the tool's verdicts under the answer.
    assert snap_compare(app, press=["end"], terminal_size=(80, 24))


def test_the_failure_list_filters_on_the_tools_failure_kinds_when_they_make_the_status():
    from ragtui.ui.models.failure_rows import FailureFilter, FailureRows

    rows = FailureRows(load_comparison(DEEPEVAL))
    assert rows.kinds[-2:] == ("tool_fail", "tool_error")
    rows.apply(FailureFilter(status="all", kind="tool_error"))
    assert rows.ids() == ["q09"]  # A's empty answer whose metric errored
    native = FailureRows(load_comparison(Inputs(a=DEEPEVAL.a, b=DEEPEVAL.b, status_from="ragtui")))
    assert "tool_fail" not in native.kinds


async def test_the_failure_list_legend_spells_out_the_tools_kinds():
    from ragtui.ui.screens.failures import FailureListScreen

    comparison = load_comparison(DEEPEVAL)
    async with host_app(lambda: FailureListScreen(comparison)).run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        legend = str(pilot.app.screen.query_one("#failures-filters", Static).render())
        assert "T=failed by the tool E=tool error" in legend
