"""Triage through the real app: --question, --notes, marks that survive a restart, `:` anywhere."""

from __future__ import annotations

from ragtui.core.session import Inputs
from ragtui.core.triage.notes import Notes
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.conftest import poll_until, wait_until_loaded
from tests.ui.triage_data import write_triage_runs


def _inputs(paths) -> Inputs:
    return Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"])


async def test_question_opens_the_question_view_there_over_the_dashboard(tmp_path):
    paths = write_triage_runs(tmp_path / "r")
    app = RagtuiApp(Session(_inputs(paths)), question="contra-01")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.screen.question_id == "contra-01"
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)


async def test_question_opens_there_even_when_the_intervals_cannot_be_computed(tmp_path, monkeypatch):
    from ragtui.ui import loader

    def broken(data):
        raise RuntimeError("resampling failed")

    monkeypatch.setattr(loader, "fill_intervals", broken)  # the question view needs no interval
    app = RagtuiApp(Session(_inputs(write_triage_runs(tmp_path / "r"))), question="contra-01")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        await poll_until(pilot, lambda: isinstance(app.screen, QuestionScreen))  # opened after the dashboard's first refresh
        assert isinstance(app.screen, QuestionScreen) and app.screen.question_id == "contra-01"


async def test_an_unknown_question_id_is_said_and_the_dashboard_stays(tmp_path, toasts):
    paths = write_triage_runs(tmp_path / "r")
    app = RagtuiApp(Session(_inputs(paths)), question="q999")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert any("no question 'q999'" in message for message in toasts)


async def test_a_mark_goes_to_the_notes_file_named_and_is_there_after_a_restart(tmp_path, toasts):
    paths = write_triage_runs(tmp_path / "r")
    notes = tmp_path / "elsewhere" / "triage.jsonl"
    app = RagtuiApp(Session(_inputs(paths), notes_path=notes), question="proc-01")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.pause()
        await pilot.press("m", "b", *"gold at 7", "enter")
        await pilot.pause()
        assert any(str(notes) in message for message in toasts)  # the app says where
    assert Notes.load(notes).get("proc-01").note == "gold at 7"
    assert not paths["b"].with_name("b.notes.jsonl").exists()
    again = RagtuiApp(Session(_inputs(paths), notes_path=notes))
    async with again.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("colon", *"proc-01", "enter")  # `:` from the dashboard
        await pilot.pause()
        header = str(again.screen.query_one("#question-header").render())
        assert "[bug] gold at 7" in header


async def test_a_broken_line_in_the_notes_file_is_named_not_dropped_silently(tmp_path, toasts):
    paths = write_triage_runs(tmp_path / "r")
    sidecar = paths["b"].with_name("b.notes.jsonl")
    sidecar.write_text('{"id": "proc-01", "mark": "ok"}\n{"id": "proc-02", "mark": "bu\n', encoding="utf-8")
    app = RagtuiApp(Session(_inputs(paths)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        messages = toasts
        assert any("1 line(s) of the notes file skipped" in m and "b.notes.jsonl:2" in m for m in messages)
        assert app.session.notes.get("proc-01").mark == "ok"
