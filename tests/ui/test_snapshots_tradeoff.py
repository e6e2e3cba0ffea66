"""Pictures of the trade-off view on the bundled sample's five runs, at 80×24.

Each snapshot also checks a fact about the screen it shows. Regenerate with
`pytest tests/ui --snapshot-update` and look at the SVGs before committing them.
"""

from __future__ import annotations

import pytest

from ragtui.core.loading.inputs import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.tradeoff import TradeoffScreen
from ragtui.ui.widgets.tradeoff_chart import TradeoffChart

from .conftest import text_of, wait_until_loaded


@pytest.fixture
def sample_sweep(sample) -> Inputs:
    """`ragtui` with no argument: baseline, candidate and the candidate's k sweep."""
    from dataclasses import replace

    from ragtui.cli.tui import sample_sweep

    return replace(sample, others=sample_sweep())


async def _tradeoff(pilot, *keys: str) -> None:
    await wait_until_loaded(pilot)
    await pilot.press("T")
    for _ in range(1200):  # three more comparisons load in a worker
        await pilot.pause(0.05)
        screen = pilot.app.screen
        if isinstance(screen, TradeoffScreen) and screen.tradeoff is not None and screen.query(TradeoffChart):
            break
    for key in keys:
        await pilot.press(key)
    await pilot.pause(0.2)
    screen = pilot.app.screen
    assert isinstance(screen, TradeoffScreen)
    # The sample's story: the candidate (k = 5) is the best on both; k = 20 finds the most.
    assert screen.tradeoff.best() == "B1"
    assert "candidate_k20" in text_of(screen.query_one("#tradeoff-runs"))


def test_tradeoff_of_the_sample_at_80x24(snap_compare, sample_sweep):
    assert snap_compare(RagtuiApp(Session(sample_sweep), theme_name="dark"), terminal_size=(80, 24), run_before=_tradeoff)


def test_tradeoff_of_the_sample_on_procedural_questions_at_80x24(snap_compare, sample_sweep):
    async def procedural(pilot) -> None:
        await _tradeoff(pilot, "c", "c")
        assert pilot.app.screen.category == "procedurale"

    assert snap_compare(RagtuiApp(Session(sample_sweep), theme_name="dark"), terminal_size=(80, 24), run_before=procedural)


def test_tradeoff_of_the_sample_at_80x24_with_no_color(snap_compare, sample_sweep, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(RagtuiApp(Session(sample_sweep)), terminal_size=(80, 24), run_before=_tradeoff)
