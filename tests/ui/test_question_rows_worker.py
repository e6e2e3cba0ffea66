"""`n`, `p`, `:` and Enter onto a question whose rows are long: the view answers at once
with what the frames hold and "loading the question…", reads the rows in a worker, keeps
them per question, and never draws rows read for a question it has left.

The worker is held on an Event (`held_rows`), so each claim is about order, not time.
How long the key takes is measured in bench/bench_triage.py (`n onto this question`).
"""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

from ragtui.core.measuring.evaluate import Evaluation
from ragtui.ui.models import question_rows
from ragtui.ui.screens.question import LOADING, QuestionScreen
from tests.ui.conftest import held_until, poll_until
from tests.ui.long_answer import long_answer_comparison, sentence_text
from tests.ui.triage_data import host_app

SENTENCES = 5_000
NARROW = (80, 24)


@pytest.fixture(scope="module")
def long(tmp_path_factory):
    """`long`: 5,000 judged sentences (a line of about 1 MB a run); `short`: 3."""
    return long_answer_comparison(tmp_path_factory.mktemp("long"), SENTENCES)


class HeldRows:
    """The rows read in a worker, (run name, id), each waiting for `release`."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.read: list[tuple[str, str]] = []


@pytest.fixture
def held_rows(monkeypatch):
    held = HeldRows()
    question = Evaluation.question

    def held_question(self, question_id, *, texts=True):
        if texts and threading.current_thread() is not threading.main_thread():
            held.read.append((self.run.name, question_id))
            held.started.set()
            if not held_until(held.release):  # the app quit with the read held
                return None
        return question(self, question_id, texts=texts)

    monkeypatch.setattr(Evaluation, "question", held_question)
    yield held
    held.release.set()


def _answer(app) -> str:
    return str(app.screen.query_one("QuestionSide.-active .side-answer", Static).render())


def _header(app) -> str:
    return str(app.screen.query_one("#question-header", Static).render())


def test_only_a_long_line_is_read_in_a_worker(long):
    assert question_rows.line_bytes(long.b, "long") > question_rows.AT_ONCE_BYTES
    assert 0 < question_rows.line_bytes(long.b, "short") <= question_rows.AT_ONCE_BYTES
    assert question_rows.line_bytes(long.b, "absent") == 0


async def test_n_onto_a_long_question_then_n_again_before_it_is_read_lands_on_the_next(long, held_rows):
    async with host_app(lambda: QuestionScreen(long, ["short", "long", "short"], 0)).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        await pilot.press("n")
        assert screen.question_id == "long" and screen.has_class("-loading")
        assert "long ·" in _header(pilot.app) and "Question long ?" in _header(pilot.app)  # from the frames
        await poll_until(pilot, held_rows.started.is_set)
        assert held_rows.started.is_set()
        await pilot.press("n")  # while long's rows are held
        assert screen.index == 2 and screen.question_id == "short" and not screen.has_class("-loading")
        assert sentence_text(0) in _answer(pilot.app)
        held_rows.release.set()
        await poll_until(pilot, lambda: len(pilot.app.workers) == 0)
        # long's rows came after the view left it: not drawn over short's.
        assert screen.index == 2 and not screen.has_class("-loading") and "Question short ?" in _header(pilot.app)
        read = len(held_rows.read)
        await pilot.press("p")  # back onto long: its rows were kept, drawn at once
        assert screen.question_id == "long" and not screen.has_class("-loading")
        assert sentence_text(6) in _answer(pilot.app) and len(held_rows.read) == read


async def test_a_long_question_s_texts_appear_once_read(long, held_rows):
    async with host_app(lambda: QuestionScreen(long, ["short", "long"], 0)).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        await pilot.press("n")
        assert LOADING in str(screen.query_one("#question-loading", Static).render())
        await pilot.press("v")  # needs the texts: says so, opens nothing
        assert pilot.app.screen is screen
        held_rows.release.set()
        await poll_until(pilot, lambda: not screen.has_class("-loading"))
        assert not screen.has_class("-loading")
        assert sentence_text(6) in _answer(pilot.app)
        assert "A→B" in _header(pilot.app)  # the changes, made from the texts
        assert sorted(held_rows.read) == [("A", "long"), ("B", "long")]


async def test_a_view_opened_on_a_long_question_reads_it_in_a_worker(long, held_rows):
    # Enter on the failure list opens the view on the question: the same path.
    async with host_app(lambda: QuestionScreen(long, ["long"], 0)).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        assert screen.has_class("-loading")
        held_rows.release.set()
        await poll_until(pilot, lambda: not screen.has_class("-loading"))
        assert sentence_text(6) in _answer(pilot.app)


def test_a_long_question_being_read_at_80x24_snapshot(snap_compare, long, held_rows):
    app = host_app(lambda: QuestionScreen(long, ["short", "long"], 1))
    assert snap_compare(app, terminal_size=NARROW)
