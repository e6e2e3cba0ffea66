"""The app on the bundled sample keeps a mark in the user's data folder and says where."""

from __future__ import annotations

from ragtui.core.triage.notes import Notes
from ragtui.ui.app import RagtuiApp
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.conftest import poll_until, wait_until_loaded


async def test_a_mark_on_the_sample_is_saved_in_the_data_folder_and_the_toast_says_where(sample, private_data_home, toasts):
    before = sorted(path.name for path in sample.a.parent.iterdir())
    app = RagtuiApp(sample, question="q005")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await poll_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        await pilot.press("m", "b", *"invented step", "enter")
        await pilot.pause()
    notes = private_data_home / "sample" / "candidate.notes.jsonl"
    assert Notes.load(notes).get("q005").mark == "bug"
    assert any(f"q005: marked bug — saved in {notes}" in message for message in toasts)
    assert sorted(path.name for path in sample.a.parent.iterdir()) == before
