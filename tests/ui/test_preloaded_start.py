"""`launch` starts the load before Textual; what the app does with a load already under way.

A small load (`launch.preload`) is finished before Textual is imported, a large one left
running beside it. Done before the app mounts (the bundled sample), the dashboard is the
first screen: no "Loading…" is drawn only to be replaced. Still running, or failed, the
app goes through the loading screen as it always did. A key that needs the comparison,
pressed while it loads, is queued and acts once it is loaded.
"""

from __future__ import annotations

import os
import threading
from dataclasses import replace

from ragtui.core.loading.inputs import Inputs
from ragtui.core.loading.remote import RemoteLocation
from ragtui.ui import app as app_module
from ragtui.ui import launch, loader
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.error import ErrorScreen
from ragtui.ui.screens.loading import LoadingScreen

from .conftest import wait_until_loaded


def _count_loading_screens(monkeypatch) -> list[LoadingScreen]:
    made: list[LoadingScreen] = []

    class Counted(LoadingScreen):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(app_module, "LoadingScreen", Counted)
    return made


async def test_a_load_finished_before_the_app_mounts_opens_straight_on_the_dashboard(two_runs, monkeypatch):
    made = _count_loading_screens(monkeypatch)
    preloaded = loader.start_loading(Session(two_runs))
    loaded = preloaded.result(timeout=60)
    own_loads: list[object] = []
    monkeypatch.setattr(app_module, "start_loading", own_loads.append)
    shown: list[object] = []
    monkeypatch.setattr(DashboardScreen, "on_mount", lambda screen: shown.append(screen.data))
    app = RagtuiApp(Session(two_runs), preloaded=preloaded)
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
    session = Session(two_runs)
    app = RagtuiApp(session, preloaded=loader.start_loading(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen) and len(made) == 1
        release.set()
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen)
        assert not any(isinstance(screen, LoadingScreen) for screen in app.screen_stack)


async def test_a_load_that_failed_before_the_app_mounts_shows_its_problems(fixture_paths):
    lines = fixture_paths["b"].read_text(encoding="utf-8").splitlines()
    lines[2] = "not json at all"
    fixture_paths["b"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    inputs = Inputs(a=fixture_paths["a"], b=fixture_paths["b"], gold=fixture_paths["gold"], config=fixture_paths["config"])
    preloaded = loader.start_loading(Session(inputs))
    assert preloaded.exception(timeout=60) is not None
    app = RagtuiApp(Session(inputs), preloaded=preloaded)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert any(problem.startswith(f"{fixture_paths['b']}:3:") for problem in app.load_problems), app.load_problems


async def test_keys_pressed_while_loading_are_queued_and_act_once_the_runs_are_loaded(two_runs, monkeypatch):
    from ragtui.ui.screens.calibration import CalibrationScreen

    release = threading.Event()
    real = loader._prepare
    monkeypatch.setattr(loader, "_prepare", lambda inputs: release.wait(10) and real(inputs))
    session = Session(two_runs)
    app = RagtuiApp(session, preloaded=loader.start_loading(session))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen)
        await pilot.press("C")  # the calibration screen needs the comparison
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen)
        release.set()
        await wait_until_loaded(pilot)
        await pilot.pause()
        assert isinstance(app.screen, CalibrationScreen)
        assert [type(screen) for screen in app.screen_stack[1:]] == [DashboardScreen, CalibrationScreen]


def test_a_small_load_is_finished_before_textual_is_imported(two_runs):
    preloaded = launch.preload(Session(two_runs))
    assert preloaded.done() and preloaded.exception() is None
    assert preloaded.result().comparison is not None


def test_a_large_load_is_left_running_while_textual_starts(two_runs, monkeypatch):
    monkeypatch.setattr(launch, "SMALL_LOAD_BYTES", 100)  # the fixture runs are larger
    release = threading.Event()
    real = loader._prepare
    monkeypatch.setattr(loader, "_prepare", lambda inputs: release.wait(10) and real(inputs))
    preloaded = launch.preload(Session(two_runs))
    assert not preloaded.done()  # returned at once: Textual is imported while it loads
    release.set()
    assert preloaded.result(timeout=60).comparison is not None


def test_the_size_of_a_load_counts_every_local_file_and_a_folders_files(tmp_path):
    a, b, gold = (tmp_path / name for name in ("a.jsonl", "b.jsonl", "gold.yaml"))
    a.write_bytes(b"x" * 300)
    b.write_bytes(b"x" * 200)
    gold.write_bytes(b"x" * 50)
    corpus = tmp_path / "corpus" / "deep"
    corpus.mkdir(parents=True)
    (corpus / "doc.yaml").write_bytes(b"x" * 7)
    inputs = Inputs(a=a, b=b, gold=gold, corpus=tmp_path / "corpus")
    assert launch.input_bytes(inputs, limit=10_000) == 557
    # Counted no further than past the limit: a large corpus folder is not walked whole.
    assert launch.input_bytes(replace(inputs, corpus=None), limit=100) == 300
    many = tmp_path / "many"
    many.mkdir()
    for number in range(20):
        (many / f"doc{number:02}.yaml").write_bytes(b"x" * 10)
    assert launch.input_bytes(Inputs(a=a, corpus=many), limit=330) == 340  # the run, then four documents


def test_a_load_of_unknown_size_is_never_waited_for(tmp_path):
    a = tmp_path / "a.jsonl"
    a.write_bytes(b"x")
    fifo = tmp_path / "b.jsonl"
    os.mkfifo(fifo)
    assert launch.input_bytes(Inputs(a=a, b=fifo), limit=10_000) is None  # a pipe: read once, by the load
    assert launch.input_bytes(Inputs(a=RemoteLocation("https://example.org/a.parquet")), limit=10_000) is None
    assert launch.input_bytes(Inputs(a=tmp_path / "missing.jsonl"), limit=10_000) is None
