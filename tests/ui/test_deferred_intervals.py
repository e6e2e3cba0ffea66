"""The dashboard paints the values first; the intervals and what they decide fill in after.

The intervals worker is held on an event, so each test sees the pending state for as long
as it needs: values on screen, every verdict and target mark absent and said to be pending
(never a pass), then — once released — the same screen with its intervals and verdicts.
"""

from __future__ import annotations

import threading

import pytest

from ragtui.core.vocabulary import INTERVALS_FAILED, INTERVALS_PENDING, TARGET_LEGEND, VERDICT_LABEL
from ragtui.ui import loader
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.widgets.category_grid import CategoryGrid
from ragtui.ui.widgets.metric_panel import MetricPanel

from .conftest import poll_until, text_of, wait_until_loaded

_MARKS = ("✓", "✗", "▲", "▼", "~ no clear change", "meets target", "misses target", "inconclusive")


@pytest.fixture
def held_intervals(monkeypatch) -> threading.Event:
    """The intervals wait until the test sets the event (the values load as usual)."""
    release = threading.Event()
    real = loader.fill_intervals

    def held(data):
        if not release.wait(timeout=60):
            raise TimeoutError("the test never released the intervals")
        return real(data)

    monkeypatch.setattr(loader, "fill_intervals", held)
    return release


def _panel(app, key: str) -> str:
    return str(app.screen.query_one(f"#metric-{key}", MetricPanel).render())


async def test_pending_panels_show_the_values_and_say_the_intervals_are_being_computed(sample, held_intervals):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        assert app.comparison is not None and app.comparison.intervals_pending
        recall = _panel(app, "recall")
        # The values are there: 78 of 90 for B (86.7 %), and the Δ.
        assert "B 86.7%" in recall and "Δ " in recall
        assert f"… {INTERVALS_PENDING}" in recall and "95% CI …" in recall
        for panel in app.screen.query(MetricPanel).results(MetricPanel):
            text = str(panel.render())
            assert not any(mark in text for mark in _MARKS), text
            assert not panel.has_class("-regressed") and not panel.has_class("-improved") and not panel.has_class("-misses-target")
            assert not text.startswith("mde ") and "\nmde " not in text  # no power before the intervals
        held_intervals.set()


async def test_pending_grid_shows_no_target_mark_and_its_legend_says_why(sample, held_intervals):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        grid = app.screen.query_one(CategoryGrid)
        # Short factual recall meets its target once known (tests/ui/test_target_certainty.py): not before.
        assert str(grid.get_cell("factuelle_courte", "recall@5")) == "92% +2"
        cells = [str(grid.get_cell(category, "recall@5")) for category in app.comparison.categories]
        assert not any(mark in cell for cell in cells for mark in ("✓", "✗", "?"))
        legend = text_of(app.screen.query_one("#categories-legend"))
        assert f"vs target: {INTERVALS_PENDING}" in legend and TARGET_LEGEND not in legend
        held_intervals.set()


async def test_waiting_for_the_values_returns_while_the_intervals_are_still_held(sample, held_intervals):
    # The sample's load is shared between tests, so the dashboard may be up and the
    # intervals worker running before the test first looks: waiting for the values must
    # not wait on that worker too (it did, and got the intervals a minute later).
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await poll_until(pilot, lambda: any(worker.group == "intervals" for worker in app.workers))
        assert any(worker.group == "intervals" and not worker.is_finished for worker in app.workers)
        await wait_until_loaded(pilot, intervals=False)
        assert any(worker.group == "intervals" and not worker.is_finished for worker in app.workers)
        assert INTERVALS_PENDING in _panel(app, "recall")
        held_intervals.set()


async def test_the_intervals_fill_in_on_the_same_dashboard_once_computed(sample, held_intervals):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        dashboard = app.screen
        assert INTERVALS_PENDING in _panel(app, "recall")
        held_intervals.set()
        await wait_until_loaded(pilot)
        assert app.screen is dashboard and not app.comparison.intervals_pending
        recall = _panel(app, "recall")
        assert INTERVALS_PENDING not in recall
        assert "B 86.7% ?" in recall and "CIs A 69.4…86.1% · B 78.1…92.2%" in recall
        assert any(label in recall for label in VERDICT_LABEL.values())
        assert "mde 11.9 pts" in recall
        assert str(dashboard.query_one(CategoryGrid).get_cell("factuelle_courte", "recall@5")).startswith("92% +2 ✓")
        assert TARGET_LEGEND in text_of(dashboard.query_one("#categories-legend"))


async def test_a_single_run_reads_pending_against_its_targets_then_gets_its_verdict(sample_single, held_intervals):
    app = RagtuiApp(Session(sample_single))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        recall = _panel(app, "recall")
        assert recall.startswith(f"… {INTERVALS_PENDING}") and "A " in recall
        assert not any(mark in recall for mark in _MARKS)
        held_intervals.set()
        await wait_until_loaded(pilot)
        recall = _panel(app, "recall")
        assert INTERVALS_PENDING not in recall and "CI " in recall


async def test_a_failure_of_the_intervals_is_said_and_nothing_reads_as_a_pass(sample, monkeypatch, toasts):
    def broken(data):
        raise RuntimeError("resampling failed")

    monkeypatch.setattr(loader, "fill_intervals", broken)
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        await poll_until(pilot, lambda: any("intervals could not be computed" in toast for toast in toasts))
        assert any("The intervals could not be computed: RuntimeError: resampling failed" in toast for toast in toasts)
        await pilot.pause()
        assert app.comparison.intervals_pending
        recall = _panel(app, "recall")
        assert f"… {INTERVALS_FAILED}" in recall and INTERVALS_PENDING not in recall and "✓" not in recall
        assert f"vs target: {INTERVALS_FAILED}" in text_of(app.screen.query_one("#categories-legend"))
