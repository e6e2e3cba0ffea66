"""Opening runs opened before: the kept dashboard first, the load after its paint.

The kept copy is the dashboard's values from the last open of the same inputs
(`dashboard_cache`). The app draws it as its first screen, starts loading the runs only
once it is painted, then takes the loaded values over: the same screen when they are
equal, redrawn where they differ. Until the runs are loaded, what needs them says so.
"""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import replace

import pytest

from ragtui.core.errors import InputError, problem
from ragtui.ui import loader, startup
from ragtui.ui.app import RagtuiApp
from ragtui.ui.launch import begin
from ragtui.ui.models.dashboard import DashboardData
from ragtui.ui.models.dashboard_cache import dashboard_key, read_dashboard
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.error import ErrorScreen
from ragtui.ui.screens.loading import LoadingScreen
from ragtui.ui.widgets.status_counts import StatusCounts

from .conftest import poll_until, wait_until_loaded


@pytest.fixture
def kept(two_runs) -> DashboardData:
    """The fixture's runs opened once (their dashboard kept), and that kept copy."""
    loader._prepare(two_runs)
    found = read_dashboard(dashboard_key(two_runs))
    assert found is not None
    return found


@pytest.fixture
def held_load(monkeypatch) -> list[Future]:
    """Loads the app starts, held until the test gives each its result."""
    started: list[Future] = []

    def start(inputs) -> Future:
        future: Future = Future()
        future.set_running_or_notify_cancel()
        started.append(future)
        return future

    monkeypatch.setattr(startup, "start_loading", start)
    return started


def _regressed_label(app) -> str:
    return str(app.screen.query_one("#status-regressed").label)


def test_launch_reads_the_kept_dashboard_instead_of_starting_a_load(two_runs, kept):
    assert begin(two_runs) == (None, kept)
    preloaded, none_kept = begin(replace(two_runs, cache=False))  # --no-cache: neither read nor kept
    assert none_kept is None and preloaded is not None
    assert preloaded.result(timeout=60).comparison is not None


async def test_the_kept_dashboard_is_the_first_screen_and_the_load_starts_after_its_paint(two_runs, kept, held_load, monkeypatch):
    made: list[LoadingScreen] = []
    monkeypatch.setattr(startup, "LoadingScreen", lambda *args, **kwargs: made.append(args) or LoadingScreen(*args, **kwargs))
    app = RagtuiApp(two_runs, kept=kept)
    async with app.run_test(size=(80, 24)) as pilot:
        await poll_until(pilot, lambda: held_load)
        first = app.screen
        assert isinstance(first, DashboardScreen) and first.data is kept and first.is_mounted
        assert app.comparison is None and len(held_load) == 1 and made == []
        held_load[0].set_result(loader._prepare(two_runs))
        await wait_until_loaded(pilot)
        assert app.screen is first  # equal values: taken over, not redrawn
        assert first.data.comparison is app.comparison is not None
        assert not first.data.intervals_pending  # the intervals filled in as after any load
        assert [type(screen) for screen in app.screen_stack[1:]] == [DashboardScreen]


async def test_loaded_values_that_differ_from_the_kept_copy_are_drawn(two_runs, kept, held_load):
    loaded = loader._prepare(two_runs)
    regressed = loaded.status_counts["regressed"]
    stale = replace(kept, status_counts={**kept.status_counts, "regressed": regressed + 40})
    app = RagtuiApp(two_runs, kept=stale)
    async with app.run_test(size=(80, 24)) as pilot:
        await poll_until(pilot, lambda: held_load)
        assert f"{regressed + 40} " in _regressed_label(app)
        held_load[0].set_result(loaded)
        await wait_until_loaded(pilot)
        await poll_until(pilot, lambda: app.screen.query(StatusCounts) and f"{regressed} regressed" in _regressed_label(app))
        assert f"{regressed + 40} " not in _regressed_label(app)


async def test_keys_that_need_the_runs_say_so_until_they_are_loaded(two_runs, kept, held_load, toasts):
    app = RagtuiApp(two_runs, kept=kept)
    async with app.run_test(size=(80, 24)) as pilot:
        await poll_until(pilot, lambda: held_load)
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert toasts == ["Still loading the runs."]
        held_load[0].set_result(loader._prepare(two_runs))
        await wait_until_loaded(pilot)
        await pilot.press("f")
        await poll_until(pilot, lambda: not isinstance(app.screen, DashboardScreen))


async def test_a_load_that_fails_after_the_kept_dashboard_shows_its_problems(two_runs, kept, held_load, fixture_paths):
    app = RagtuiApp(two_runs, kept=kept)
    async with app.run_test(size=(80, 24)) as pilot:
        await poll_until(pilot, lambda: held_load)
        held_load[0].set_exception(InputError([problem(fixture_paths["b"], 3, "id", "missing")]))
        await poll_until(pilot, lambda: isinstance(app.screen, ErrorScreen))
        assert app.load_problems == [f"{fixture_paths['b']}:3: id: missing"]
        assert [type(screen) for screen in app.screen_stack[1:]] == [ErrorScreen]


async def test_a_question_asked_for_opens_over_the_kept_dashboard_once_the_runs_are_loaded(two_runs, kept, held_load):
    from ragtui.ui.screens.question import QuestionScreen

    app = RagtuiApp(two_runs, kept=kept, question="f1")
    async with app.run_test(size=(80, 24)) as pilot:
        await poll_until(pilot, lambda: held_load)
        assert isinstance(app.screen, DashboardScreen)  # no question view without the runs
        held_load[0].set_result(loader._prepare(two_runs))
        await poll_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        assert app.screen.question_id == "f1"
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen) and app.screen.data.comparison is app.comparison


async def test_the_kept_dashboard_looks_exactly_as_the_loaded_one_before_its_intervals(two_runs, kept, held_load, monkeypatch):
    import threading

    release = threading.Event()
    real = loader.fill_intervals
    monkeypatch.setattr(loader, "fill_intervals", lambda data: release.wait(30) and real(data))
    shots = []
    for app in (RagtuiApp(two_runs, kept=kept), RagtuiApp(two_runs, preloaded=loader.start_loading(replace(two_runs, cache=False)))):
        async with app.run_test(size=(80, 24)) as pilot:
            await poll_until(pilot, lambda app=app: isinstance(app.screen, DashboardScreen) and app.screen.focused is not None)
            await pilot.pause()
            shots.append(app.export_screenshot())
    release.set()
    assert shots[0] == shots[1]
