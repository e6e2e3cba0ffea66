"""The app counts system errors: the run header says how many questions the system failed on."""

from __future__ import annotations

from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.widgets.run_header import RunHeaderBox
from tests.ui.conftest import text_of, wait_until_loaded


def _record(i: int, error: str | None = None) -> dict:
    record = {"id": f"q{i}", "question": f"Q{i}?", "category": "factuelle_courte", "gold_passages": ["p"], "retrieved": ["p"], "answer": "Oui."}
    if error is not None:
        record.update({"answer": None, "retrieved": [], "error": error})
    return record


async def test_the_run_header_counts_the_questions_the_system_failed_on(tmp_path, write_jsonl):
    a = write_jsonl(tmp_path / "a.jsonl", {"name": "before"}, [_record(i) for i in range(1, 5)])
    b = write_jsonl(tmp_path / "b.jsonl", {"name": "after"}, [_record(1), _record(2), _record(3, "HTTP 500: down"), _record(4, "timed out after 60 s")])
    app = RagtuiApp(Session(Inputs(a, b)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        headers = {text_of(box) for box in app.screen.query(RunHeaderBox)}
        assert any("after" in text and "2 system errors" in text for text in headers)
        assert not any("before" in text and "system error" in text for text in headers)


async def test_the_question_view_shows_why_the_system_failed(tmp_path, write_jsonl):
    from textual.widgets import Static

    from ragtui.core.session import load_comparison
    from ragtui.ui.screens.question import QuestionScreen
    from ragtui.ui.widgets.question_side import QuestionSide
    from tests.ui.triage_data import host_app

    a = write_jsonl(tmp_path / "a.jsonl", {"name": "before"}, [_record(1), _record(2)])
    b = write_jsonl(tmp_path / "b.jsonl", {"name": "after"}, [_record(1), _record(2, "HTTP 500: the index is \x1b[31mrebuilding")])
    comparison = load_comparison(Inputs(a, b))
    async with host_app(lambda: QuestionScreen(comparison, ["q2"], 0)).run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        side_b = str(pilot.app.screen.query_one("#side-B", QuestionSide).query_one(".side-answer", Static).render())
        assert "⚠ system error: HTTP 500: the index is" in side_b and "\x1b" not in side_b
