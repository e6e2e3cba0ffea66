"""Every peer tool's file opens in the app, and what it lacks reads as "not available"."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtui.core.loading.inputs import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.widgets.metric_panel import MetricPanel
from tests.ui.conftest import text_of, wait_until_loaded

FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"


@pytest.mark.parametrize(
    "name",
    ["ragas_results.csv", "ragas_results.jsonl", "promptfoo_output.json", "inspect_log.json", "deepeval_test_run.json", "trec_run.txt"],
)
async def test_a_peer_tool_file_opens_on_the_dashboard(name):
    gold = FIXTURES / "trec_qrels.txt" if name.startswith("trec") else None
    app = RagtuiApp(Session(Inputs(a=FIXTURES / name, gold=gold)))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen), text_of(app.screen)
        assert len(app.screen.query(MetricPanel)) >= 4
        assert "(reference)" in text_of(app.screen)


async def test_a_ragas_result_compared_against_a_ragtui_run_opens(shared_dir):
    examples = shared_dir / "spec" / "examples"
    app = RagtuiApp(Session(Inputs(a=examples / "run_a.jsonl", b=FIXTURES / "ragas_results.jsonl", gold=examples / "gold.yaml")))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen), text_of(app.screen)
        text = text_of(app.screen)
        assert "baseline" in text and "ragas_results" in text


async def test_a_trec_run_without_answers_shows_its_answer_metrics_as_not_available():
    app = RagtuiApp(Session(Inputs(a=FIXTURES / "trec_run.txt", gold=FIXTURES / "trec_qrels.txt")))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until_loaded(pilot)
        text = text_of(app.screen)
        assert "no judge verdicts" in text and "not available" in text
