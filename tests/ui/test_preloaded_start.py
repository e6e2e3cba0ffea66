"""`launch` starts the load before Textual; what the app does with a load already under way.

Done before the app mounts (the bundled sample, a run read from the cache), the dashboard
is the first screen: no "Loading…" is drawn only to be replaced. Still running, or
failed, the app goes through the loading screen as it always did. While any load runs,
the interpreter switches threads every 0.5 ms, so the load's polars queries win the GIL
back from Textual's import quickly; the usual interval returns when the last load ends.
"""

from __future__ import annotations

import sys
import threading
import time

import pytest

from ragtui.core.loading.inputs import Inputs
from ragtui.ui import loader, startup
from ragtui.ui.app import RagtuiApp
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.error import ErrorScreen
from ragtui.ui.screens.loading import LoadingScreen

from .conftest import wait_until_loaded


@pytest.fixture
def no_load_running() -> None:
    """An earlier test's app may have closed during its load, which still runs for a while."""
    deadline = time.monotonic() + 30
    while loader._loads_running and time.monotonic() < deadline:
        time.sleep(0.01)
    assert loader._loads_running == 0


def _count_loading_screens(monkeypatch) -> list[LoadingScreen]:
    made: list[LoadingScreen] = []

    class Counted(LoadingScreen):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(startup, "LoadingScreen", Counted)
    return made


async def test_a_load_finished_before_the_app_mounts_opens_straight_on_the_dashboard(two_runs, monkeypatch):
    made = _count_loading_screens(monkeypatch)
    preloaded = loader.start_loading(two_runs)
    loaded = preloaded.result(timeout=60)
    own_loads: list[object] = []
    monkeypatch.setattr(startup, "start_loading", own_loads.append)
    shown: list[object] = []
    monkeypatch.setattr(DashboardScreen, "on_mount", lambda screen: shown.append(screen.data))
    app = RagtuiApp(two_runs, preloaded=preloaded)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert made == [] and own_loads == []
        assert shown == [loaded]  # the dashboard of the preloaded values; the intervals follow
        await wait_until_loaded(pilot)
        assert not app.comparison.intervals_pending
        assert [type(screen) for screen in app.screen_stack[1:]] == [DashboardScreen]


async def test_a_load_still_running_at_mount_goes_through_the_loading_screen(two_runs, monkeypatch):
    made = _count_loading_screens(monkeypatch)
    release = threading.Event()
    real = loader._prepare
    monkeypatch.setattr(loader, "_prepare", lambda inputs: release.wait(10) and real(inputs))
    preloaded = loader.start_loading(two_runs)
    app = RagtuiApp(two_runs, preloaded=preloaded)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen) and len(made) == 1
        release.set()
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen)
        assert not any(isinstance(screen, LoadingScreen) for screen in app.screen_stack)


def test_the_interval_put_back_is_the_one_set_when_the_load_started(two_runs, monkeypatch, no_load_running):
    original = sys.getswitchinterval()
    try:
        sys.setswitchinterval(0.002)  # someone's own setting, made after ragtui was imported
        release = threading.Event()
        real = loader._prepare
        monkeypatch.setattr(loader, "_prepare", lambda inputs: release.wait(10) and real(inputs))
        future = loader.start_loading(two_runs)
        assert sys.getswitchinterval() == loader._LOAD_SWITCH_INTERVAL
        release.set()
        future.result(timeout=60)
        _wait_for_interval(0.002)
        assert sys.getswitchinterval() == 0.002
    finally:
        sys.setswitchinterval(original)


def _wait_for_interval(expected: float) -> None:
    # A future's callbacks run just after its waiters wake: give the last one a moment.
    deadline = time.monotonic() + 10
    while sys.getswitchinterval() != expected and time.monotonic() < deadline:
        time.sleep(0.01)


async def test_a_load_that_failed_before_the_app_mounts_shows_its_problems(fixture_paths):
    lines = fixture_paths["b"].read_text(encoding="utf-8").splitlines()
    lines[2] = "not json at all"
    fixture_paths["b"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    inputs = Inputs(a=fixture_paths["a"], b=fixture_paths["b"], gold=fixture_paths["gold"], config=fixture_paths["config"])
    preloaded = loader.start_loading(inputs)
    assert preloaded.exception(timeout=60) is not None
    app = RagtuiApp(inputs, preloaded=preloaded)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert any(problem.startswith(f"{fixture_paths['b']}:3:") for problem in app.load_problems), app.load_problems


def test_threads_switch_often_while_loads_run_and_as_usual_after_the_last(two_runs, monkeypatch, no_load_running):
    usual = sys.getswitchinterval()
    real = loader._prepare
    first_release, second_release = threading.Event(), threading.Event()
    monkeypatch.setattr(loader, "_prepare", lambda inputs: first_release.wait(10) and real(inputs))
    first = loader.start_loading(two_runs)
    monkeypatch.setattr(loader, "_prepare", lambda inputs: second_release.wait(10) and real(inputs))
    second = loader.start_loading(two_runs)
    assert sys.getswitchinterval() == loader._LOAD_SWITCH_INTERVAL < usual
    first_release.set()
    first.result(timeout=60)
    # One load still runs: the short interval stays.
    assert sys.getswitchinterval() == loader._LOAD_SWITCH_INTERVAL
    second_release.set()
    second.result(timeout=60)
    _wait_for_interval(usual)
    assert sys.getswitchinterval() == usual


def test_a_failed_load_gives_the_usual_switch_interval_back(two_runs, monkeypatch, no_load_running):
    usual = sys.getswitchinterval()

    def broken(inputs):
        raise OSError("disk gone")

    monkeypatch.setattr(loader, "_prepare", broken)
    assert isinstance(loader.start_loading(two_runs).exception(timeout=60), OSError)
    _wait_for_interval(usual)
    assert sys.getswitchinterval() == usual
