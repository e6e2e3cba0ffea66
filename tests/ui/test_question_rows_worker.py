"""`n`, `p`, `:` and Enter onto a question whose rows are long: the view answers at once
with what the frames hold and "loading the question…", reads the rows in a worker, keeps
them per question, and never draws rows read for a question it has left. `y`, `o` and `e`
on the failure list do the same before they offer the question's texts: "loading the
question…" at once, the list answering meanwhile, Esc stopping it.

The worker is held on an Event (`held_rows`, conftest.py), so each claim is about order, not time.
How long the key takes is measured in bench/bench_triage.py (`n onto this question`).
"""

from __future__ import annotations

import pytest
from textual.widgets import Static

from ragtui.ui.models import question_rows
from ragtui.ui.screens.calibration_queue import CalibrationQueueScreen
from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.menus import ChoiceMenu
from ragtui.ui.screens.question import LOADING, QuestionScreen
from ragtui.ui.screens.triage import READING
from ragtui.ui.screens.verdicts import VerdictScreen
from tests.ui.conftest import poll_until
from tests.ui.long_answer import long_answer_comparison, sentence_text
from tests.ui.triage_data import host_app

SENTENCES = 5_000
NARROW = (80, 24)


@pytest.fixture(scope="module")
def long(tmp_path_factory):
    """`long`: 5,000 judged sentences (a line of about 1 MB a run); `short`: 3."""
    return long_answer_comparison(tmp_path_factory.mktemp("long"), SENTENCES)


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
        read = len(held_rows.calls)
        await pilot.press("p")  # back onto long: its rows were kept, drawn at once
        assert screen.question_id == "long" and not screen.has_class("-loading")
        assert sentence_text(6) in _answer(pilot.app) and len(held_rows.calls) == read


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
        assert sorted(held_rows.calls) == [("A", "long"), ("B", "long")]


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


async def _list_on(pilot, question_id: str) -> FailureListScreen:
    """The failure list on screen, its cursor moved to `question_id`."""
    screen = pilot.app.screen
    assert isinstance(screen, FailureListScreen)
    index = screen.rows.index_of(question_id)
    assert index is not None
    screen.table.cursor = index
    await pilot.pause()
    return screen


def _detail(app, screen=None) -> str:
    """The failure list's detail line (of `screen`, else the screen shown)."""
    return str((screen or app.screen).query_one("#failures-detail", Static).render())


def _away_and_back(screen: FailureListScreen) -> tuple[str, str]:
    """The cursor key that leaves the row under the cursor, and the one that comes back."""
    return ("down", "up") if screen.table.cursor == 0 else ("up", "down")


def _every_question(comparison):
    return host_app(lambda: FailureListScreen(comparison, status="all"))


async def test_y_on_the_failure_list_says_loading_at_once_the_list_answers_and_the_copy_menu_follows(long, held_rows):
    app = _every_question(long)
    async with app.run_test(size=NARROW) as pilot:
        screen = await _list_on(pilot, "long")
        await pilot.press("y")
        assert READING in _detail(pilot.app) and pilot.app.screen is screen  # drawn before any row is read
        await poll_until(pilot, held_rows.started.is_set)
        assert held_rows.started.is_set() and pilot.app.screen is screen  # no menu while the rows are held
        away, back = _away_and_back(screen)
        await pilot.press(away)  # the list answers meanwhile
        assert screen.table.current_id == "short"
        await pilot.press(back)
        assert screen.table.current_id == "long"
        held_rows.release.set()
        await poll_until(pilot, lambda: isinstance(pilot.app.screen, ChoiceMenu))
        assert isinstance(pilot.app.screen, ChoiceMenu) and READING not in _detail(pilot.app, screen)
        await pilot.press("a")  # the answer, from the rows just read
        assert pilot.app.clipboard.startswith(sentence_text(0)) and sentence_text(4_999) in pilot.app.clipboard
        assert sorted(held_rows.calls) == [("A", "long"), ("B", "long")]


async def test_esc_stops_o_loading_a_long_question_and_no_menu_opens_later(long, held_rows):
    app = _every_question(long)
    async with app.run_test(size=NARROW) as pilot:
        screen = await _list_on(pilot, "long")
        await pilot.press("o")
        await poll_until(pilot, held_rows.started.is_set)
        await pilot.press("escape")  # stops the read: the list stays
        assert pilot.app.screen is screen and any("stopped loading the question" in message for message, _ in app.toasts)
        assert READING not in _detail(pilot.app)
        held_rows.release.set()
        await poll_until(pilot, lambda: len(pilot.app.workers) == 0)
        assert pilot.app.screen is screen
        await pilot.press("escape")  # nothing is read now: Esc goes back as ever
        assert pilot.app.screen is not screen


async def test_e_after_the_cursor_left_the_long_question_opens_no_menu_for_it(long, held_rows):
    app = _every_question(long)
    async with app.run_test(size=NARROW) as pilot:
        screen = await _list_on(pilot, "long")
        away, back = _away_and_back(screen)
        await pilot.press("e")
        await poll_until(pilot, held_rows.started.is_set)
        await pilot.press(away)
        held_rows.release.set()
        await poll_until(pilot, lambda: len(pilot.app.workers) == 0)
        assert pilot.app.screen is screen  # the person moved on: nothing pops up over the list
        await pilot.press(back, "e")  # back on it: its rows were kept, the menu opens at once
        assert isinstance(pilot.app.screen, ChoiceMenu) and len(held_rows.calls) == 2


async def test_y_on_a_short_question_of_the_failure_list_offers_its_texts_at_once(long, held_rows):
    app = _every_question(long)
    async with app.run_test(size=NARROW) as pilot:
        await _list_on(pilot, "short")
        screen = pilot.app.screen
        await pilot.press("y")
        assert isinstance(pilot.app.screen, ChoiceMenu) and not held_rows.calls
        assert READING not in _detail(pilot.app, screen)


async def test_v_in_the_calibration_queue_waits_for_a_long_answer_then_hands_the_inspector_its_rows(long, held_rows):
    async with host_app(lambda: CalibrationQueueScreen(long, ["long"], "B")).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        await poll_until(pilot, held_rows.started.is_set)
        await pilot.press("v")  # the rows are being read: says so, opens nothing
        assert pilot.app.screen is screen and any(message.startswith(READING) for message, _ in pilot.app.toasts)
        held_rows.release.set()
        await poll_until(pilot, lambda: not screen.has_class("-loading"))
        await pilot.press("v")
        inspector = pilot.app.screen
        assert isinstance(inspector, VerdictScreen) and inspector.sampled_side == "B"
        assert sorted(inspector.loaded_rows()) == ["A", "B"]  # the view's rows: none read again on the UI thread


def test_a_long_question_being_read_for_y_on_the_failure_list_at_80x24_snapshot(snap_compare, long, held_rows):
    async def reading(pilot) -> None:
        await _list_on(pilot, "long")
        await pilot.press("y")
        await poll_until(pilot, held_rows.started.is_set)

    assert snap_compare(_every_question(long), run_before=reading, terminal_size=NARROW)


async def test_a_comparison_recomputed_while_a_long_question_is_read_reads_it_again_from_the_new_one(long, held_rows):
    # A gold fix recomputes the comparison (`use_comparison`) while the old one's rows are
    # being read: those are not drawn, and the view does not wait on them forever.
    from ragtui.core.session import Inputs, load_comparison

    root = long.a.run.path.parent
    again = load_comparison(Inputs(a=root / "a.jsonl", b=root / "b.jsonl", gold=root / "gold.yaml"))
    async with host_app(lambda: QuestionScreen(long, ["long"], 0)).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        await poll_until(pilot, held_rows.started.is_set)
        screen.use_comparison(again)
        held_rows.release.set()
        await poll_until(pilot, lambda: not screen.has_class("-loading"))
        assert not screen.has_class("-loading") and screen.comparison is again
        assert sentence_text(6) in _answer(pilot.app)


def test_the_session_keeps_the_last_32_rows_of_which_8_heavy_ones_at_most():
    class Run:
        """An evaluation whose question `h…` is judged in 600 sentences, any other in 3."""

        def __init__(self) -> None:
            self.reads: list[str] = []

        def question(self, question_id):
            self.reads.append(question_id)
            said = [{"text": f"s{i}", "attested": True} for i in range(600 if question_id.startswith("h") else 3)]
            return {"id": question_id, "judge_sentences": said}

    run = Run()
    rows = question_rows.QuestionRows()
    for index in range(10):
        rows.row(run, f"h{index}")  # a heavy row each
    for index in range(30):
        rows.row(run, f"l{index}")  # light ones
    assert [f"h{i}" for i in range(10) if rows.kept(run, f"h{i}")] == [f"h{i}" for i in range(8, 10)]  # 40 read: the last 32 kept
    assert all(rows.kept(run, f"l{i}") for i in range(30))
    rows.row(run, "h0")
    assert rows.kept(run, "h0") and rows.kept(run, "h9") and not rows.kept(run, "h8")  # still 32: the oldest went
    for index in range(10, 20):
        rows.row(run, f"h{index}")
    assert [f"h{i}" for i in range(20) if rows.kept(run, f"h{i}")] == [f"h{i}" for i in range(12, 20)]  # the last 8 heavy ones
