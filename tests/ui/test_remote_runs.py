"""The app on runs at an address: two Parquet runs fetched from a server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ragtui.core.loading.remote import RemoteLocation
from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.error import ErrorScreen
from ragtui.ui.screens.question import QuestionScreen

from ..file_server import serving
from .conftest import META_A, META_B, run_a_records, run_b_records, wait_until_loaded, write_fixture


def _write_parquet(path: Path, meta: dict, records: list[dict]) -> None:
    pl.DataFrame(records).write_parquet(path, metadata={"ragtui.run": json.dumps(meta)})


async def test_app_opens_two_parquet_runs_served_over_http_and_steps_into_a_question(tmp_path, monkeypatch):
    paths = write_fixture(tmp_path / "runs")
    monkeypatch.chdir(tmp_path)  # where the sidecars of runs at an address are kept
    with serving(tmp_path / "served") as (base, folder, requests):
        _write_parquet(folder / "a.parquet", META_A, run_a_records())
        _write_parquet(folder / "b.parquet", META_B, run_b_records())
        inputs = Inputs(a=RemoteLocation(f"{base}/bucket/a.parquet"), b=RemoteLocation(f"{base}/bucket/b.parquet"),
                        gold=paths["gold"], config=paths["config"])
        app = RagtuiApp(Session(inputs))
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_until_loaded(pilot)
            assert not any(isinstance(screen, ErrorScreen) for screen in app.screen_stack), app.load_problems
            assert isinstance(app.screen, DashboardScreen)
            assert any(path.startswith("/bucket/b.parquet") for path in requests)  # really fetched
            app.show_question("p1")
            await pilot.pause()
            assert isinstance(app.screen, QuestionScreen)
            await pilot.press("m")  # a mark on a run at an address: kept in the current folder
            await pilot.pause()
        assert app.return_code in (None, 0)
