"""Pictures of the dashboard on the bundled sample, at 80×24 and 160×50, in several themes.

Each snapshot also checks a fact about the screen it shows (a snapshot alone only says
"something changed"). Regenerate with `pytest tests/ui --snapshot-update` and look at
the SVGs before committing them.
"""

from __future__ import annotations

from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen

from .conftest import wait_until_loaded


async def _loaded(pilot) -> None:
    await wait_until_loaded(pilot)
    assert isinstance(pilot.app.screen, DashboardScreen)


async def _loaded_then_categories(pilot) -> None:
    await _loaded(pilot)
    await pilot.press("c")  # the grid takes focus and scrolls into view
    await pilot.pause()
    assert pilot.app.screen.focused.id == "category-grid"


def test_dashboard_at_80x24_in_dark_reads_from_the_top(snap_compare, sample):
    assert snap_compare(RagtuiApp(Session(sample), theme_name="dark"), terminal_size=(80, 24), run_before=_loaded)


def test_dashboard_of_the_test_fixture_at_80x24(snap_compare, two_runs):
    """The hand-written fixture: every verdict (▲ ▼ ~) and the noise flag on one screen."""
    assert snap_compare(RagtuiApp(Session(two_runs)), terminal_size=(80, 24), run_before=_loaded)


def test_dashboard_at_80x24_in_light(snap_compare, sample):
    assert snap_compare(RagtuiApp(Session(sample), theme_name="light"), terminal_size=(80, 24), run_before=_loaded)


def test_dashboard_at_80x24_scrolled_to_the_category_grid(snap_compare, sample):
    assert snap_compare(RagtuiApp(Session(sample)), terminal_size=(80, 24), run_before=_loaded_then_categories)


def test_dashboard_at_160x50_in_dark_shows_panels_grid_and_curve_at_once(snap_compare, sample):
    """Every panel, the grid and the recall curve on one screen; the grid's latency and cost
    columns are the ones its line names out of view (`c`, then →)."""
    assert snap_compare(RagtuiApp(Session(sample), theme_name="dark"), terminal_size=(160, 50), run_before=_loaded)


def test_dashboard_at_160x50_in_high_contrast(snap_compare, sample):
    assert snap_compare(RagtuiApp(Session(sample), theme_name="high-contrast"), terminal_size=(160, 50), run_before=_loaded)


def test_single_run_dashboard_at_80x24(snap_compare, sample_single):
    assert snap_compare(RagtuiApp(Session(sample_single)), terminal_size=(80, 24), run_before=_loaded)


def test_dashboard_at_80x24_with_no_color(snap_compare, sample, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(RagtuiApp(Session(sample)), terminal_size=(80, 24), run_before=_loaded)
