"""`d` on an answer B rewrote throughout: the diff is made in a worker, the keys answer
meanwhile, the result is kept per question, and a stale one is never drawn.

The worker is held on an Event (`held_diff`), so each claim is about order, not time:
the other key's effect is on screen while the diff is still being made. How long the
key and the diff take is measured in bench/bench_triage.py.
"""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

from ragtui.core.triage.diffs import SENTENCE_LEVEL, DiffStopped
from ragtui.ui.content.diff_view import COMPUTING, LEVEL_NOTES
from ragtui.ui.models import answer_diffs, question_rows
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.conftest import HeldWork, poll_until
from tests.ui.long_answer import long_answer_comparison, rewritten_text, sentence_text
from tests.ui.triage_data import host_app

SENTENCES = 5_000
NARROW = (80, 24)


@pytest.fixture(scope="module")
def rewritten(tmp_path_factory):
    """`long`: 5,000 judged sentences, ten in eleven rewritten by B; `short`: 3, the same in both."""
    return long_answer_comparison(tmp_path_factory.mktemp("rewritten"), SENTENCES, rewritten=True)


@pytest.fixture(autouse=True)
def rows_read_at_once(monkeypatch):
    """The long rows read on the UI thread, as before they were read in a worker
    (test_question_rows_worker.py): what these tests hold is the diff, from a view that
    shows the question's texts from the first frame."""
    monkeypatch.setattr(question_rows, "AT_ONCE_BYTES", 1 << 40)


@pytest.fixture
def held_diff(monkeypatch):
    """Each answer diff made (`calls`: A's answer length), a long one held until `release`."""
    held = HeldWork()
    make = answer_diffs.answer_diff

    def held_make(a, b, *, stop=None):
        held.calls.append(len(a or ""))
        if not answer_diffs.made_at_once(a or "", b or "") and not held.hold():  # the app quit with the diff held
            raise DiffStopped
        return make(a, b, stop=stop)

    monkeypatch.setattr(answer_diffs, "answer_diff", held_make)
    yield held
    held.release.set()


def _diff(app) -> str:
    return str(app.screen.query_one("#question-diff-body", Static).render())


def test_the_session_s_answer_diffs_make_a_question_s_diff_once_and_again_for_other_answers():
    diffs = answer_diffs.AnswerDiffs()
    a = " ".join(sentence_text(i) for i in range(50))
    b = " ".join(rewritten_text(i) for i in range(50))
    first = diffs.make("q1", a, b)
    assert diffs.get("q1", a, b) is first and diffs.make("q1", a, b) is first
    assert diffs.get("q1", a, a) is None  # other answers (a run reloaded): not this diff
    assert diffs.make("q1", a, a) is not first


async def test_d_answers_at_once_the_keys_work_while_the_diff_is_made_and_a_second_d_reuses_it(rewritten, held_diff):
    async with host_app(lambda: QuestionScreen(rewritten, ["short", "long"], 1)).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        await pilot.press("d")
        assert screen.has_class("-diff") and COMPUTING in _diff(pilot.app)
        await poll_until(pilot, held_diff.started.is_set)
        assert held_diff.started.is_set()
        # The diff is still held: Esc, j and k act on the view all the same.
        await pilot.press("escape")
        assert not screen.has_class("-diff")
        focus = screen.sentence_at["B"]
        await pilot.press("j")
        assert screen.sentence_at["B"] == focus + 1
        await pilot.press("k")
        assert screen.sentence_at["B"] == focus
        await pilot.press("d")  # again while it is made: waits for the same worker
        assert COMPUTING in _diff(pilot.app) and len(held_diff.calls) == 1
        held_diff.release.set()
        await poll_until(pilot, lambda: COMPUTING not in _diff(pilot.app))
        text = _diff(pilot.app)
        assert LEVEL_NOTES[SENTENCE_LEVEL] in text
        # Sentence by sentence: each rewritten sentence struck, its new wording beside it.
        assert f"[-{sentence_text(1)} -]{{+{rewritten_text(1)} +}}" in text
        await pilot.press("d", "d")  # back to the answers and to the diff: kept, not made again
        assert LEVEL_NOTES[SENTENCE_LEVEL] in _diff(pilot.app) and len(held_diff.calls) == 1


async def test_a_diff_finished_after_the_view_moved_on_is_kept_but_not_drawn(rewritten, held_diff):
    async with host_app(lambda: QuestionScreen(rewritten, ["long", "short"], 0)).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        await pilot.press("d")
        await poll_until(pilot, held_diff.started.is_set)
        await pilot.press("n")  # to `short` while the long diff is held: short's diff, made at once
        assert screen.question_id == "short"
        assert "the same answer, word for word" in _diff(pilot.app)
        held_diff.release.set()
        await poll_until(pilot, lambda: len(pilot.app.workers) == 0)
        assert screen.question_id == "short" and "the same answer, word for word" in _diff(pilot.app)
        await pilot.press("p")  # back to `long`: its diff was kept
        assert LEVEL_NOTES[SENTENCE_LEVEL] in _diff(pilot.app)
        assert len([n for n in held_diff.calls if n > answer_diffs.AT_ONCE_CHARS]) == 1


async def test_copying_the_answer_diff_after_d_reuses_it(rewritten, held_diff):
    held_diff.release.set()
    async with host_app(lambda: QuestionScreen(rewritten, ["long"], 0)).run_test(size=NARROW) as pilot:
        await pilot.press("d")
        await poll_until(pilot, lambda: COMPUTING not in _diff(pilot.app))
        await pilot.press("y", "d")
        await poll_until(pilot, lambda: bool(pilot.app.clipboard))
        assert pilot.app.clipboard.startswith(f"{sentence_text(0)} [-{sentence_text(1)} -]{{+{rewritten_text(1)} +}}")
        assert len(held_diff.calls) == 1


def test_the_diff_being_made_at_80x24_snapshot(snap_compare, rewritten, held_diff):
    app = host_app(lambda: QuestionScreen(rewritten, ["long"], 0))
    assert snap_compare(app, press=["d"], terminal_size=NARROW)


def test_the_diff_by_sentence_of_a_rewritten_answer_at_80x24_snapshot(snap_compare, rewritten, held_diff):
    held_diff.release.set()

    async def made(pilot) -> None:
        await pilot.press("d")
        await poll_until(pilot, lambda: COMPUTING not in _diff(pilot.app))

    app = host_app(lambda: QuestionScreen(rewritten, ["long"], 0))
    assert snap_compare(app, run_before=made, terminal_size=NARROW)


async def test_while_a_search_is_on_the_texts_holding_it_are_found_in_a_worker_once_a_question(rewritten, monkeypatch):
    # Normalising a 5,000-sentence question's texts to say "in B's answer" takes about 100 ms
    # at each key: held here, the keys still act, and the line is filled in once found.
    from ragtui.ui.screens import question

    release, looked = threading.Event(), []
    find = question.fields_holding

    def held_find(term, fields):
        looked.append(term)
        if sum(len(text) for text in fields.values()) > question.FIELDS_AT_ONCE_CHARS:
            release.wait(20)
        return find(term, fields)

    monkeypatch.setattr(question, "fields_holding", held_find)
    async with host_app(lambda: QuestionScreen(rewritten, ["short", "long"], 0)).run_test(size=NARROW) as pilot:
        screen = pilot.app.screen
        await pilot.press("slash", *"nouvelle", "enter")  # only B's long answer says "nouvelle reponse"
        await pilot.pause()
        assert screen.question_id == "long"
        assert "finding where…" in _header(pilot.app)
        focus = screen.sentence_at["B"]
        await pilot.press("j")
        assert screen.sentence_at["B"] == focus + 1
        release.set()
        await poll_until(pilot, lambda: "finding where…" not in _header(pilot.app))
        assert "· in B's answer ·" in _header(pilot.app)
        found = len(looked)
        await pilot.press("k", "j")
        assert len(looked) == found  # kept for this question and term


def _header(app) -> str:
    return str(app.screen.query_one("#question-header", Static).render())


async def test_the_copy_menu_and_the_inspector_reuse_the_rows_the_question_view_read(rewritten, monkeypatch):
    # A 5,000-sentence row read back from a JSONL run takes most of a second: once the view
    # has read it, `y` (its record made in a worker) and `v` do not read it again.
    import json

    from ragtui.core.measuring.evaluate import Evaluation
    from ragtui.ui.screens.verdicts import VerdictScreen

    async with host_app(lambda: QuestionScreen(rewritten, ["long"], 0)).run_test(size=NARROW) as pilot:
        read = []
        question = Evaluation.question
        monkeypatch.setattr(Evaluation, "question", lambda self, qid: read.append(qid) or question(self, qid))
        await pilot.press("y", "r")
        await poll_until(pilot, lambda: bool(pilot.app.clipboard))
        record = json.loads(pilot.app.clipboard)
        assert record["id"] == "long" and record["answer"].startswith(rewritten_text(0))
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(pilot.app.screen, VerdictScreen)
        assert read == []
