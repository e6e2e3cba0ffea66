"""A long answer is drawn a window at a time, says what it leaves out, and hides nothing.

Speed itself is measured in bench/bench_triage.py; these tests pin the behaviour that
makes it fast: only a window of sentences is drawn, long texts are cut with a line
saying how to read the rest, and a question the run-wide scan did not flag is not
scanned again.
"""

from __future__ import annotations

import sys
from contextlib import nullcontext

import pytest
from textual.widgets import Static

from ragtui.ui.content.answer_view import WINDOW_AFTER, WINDOW_BEFORE
from ragtui.ui.content.verdict_sections import ANSWER_LIMIT, RAW_LIMIT
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from ragtui.ui.widgets.label_bar import LABEL_WINDOW
from tests.ui.long_answer import long_answer_comparison, sentence_text
from tests.ui.triage_data import host_app

SENTENCES = 300
NARROW = (80, 24)


@pytest.fixture
def long(tmp_path):
    return long_answer_comparison(tmp_path / "runs", SENTENCES)


def _answer(app) -> str:
    """The answer block of the active side (B, the candidate, first)."""
    return str(app.screen.query_one("QuestionSide.-active .side-answer", Static).render())


async def test_the_question_view_draws_a_window_of_sentences_and_counts_the_rest(long):
    async with host_app(lambda: QuestionScreen(long, ["long"], 0)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        answer = _answer(pilot.app)
        drawn = WINDOW_BEFORE + WINDOW_AFTER
        assert f"{drawn}. {sentence_text(drawn - 1)}" in answer
        assert sentence_text(drawn) not in answer
        assert f"⋮ sentences {drawn + 1}–{SENTENCES} below (j goes on)" in answer
        assert "above" not in answer


async def test_j_past_the_window_moves_it_and_says_what_is_above(long):
    async with host_app(lambda: QuestionScreen(long, ["long"], 0)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        first = pilot.app.screen.sentence_at["B"]  # the first unsupported sentence
        await pilot.press(*["j"] * (WINDOW_BEFORE + 3))
        await pilot.pause()
        focus = first + WINDOW_BEFORE + 3
        assert pilot.app.screen.sentence_at["B"] == focus
        answer = _answer(pilot.app)
        start = focus - WINDOW_BEFORE  # the window keeps 8 sentences above the focus
        assert f"⋮ sentences 1–{start} above (k goes back)" in answer
        assert sentence_text(start - 1) not in answer and sentence_text(start) in answer
        assert f"{focus + 1}. {sentence_text(focus)}" in answer


async def test_the_inspector_mounts_a_window_around_the_focused_sentence(long):
    async with host_app(lambda: VerdictScreen(long, "long", "B", sentence=100)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        shown = [w.id for w in screen.query(".verdict-sentence")]
        assert len(shown) == len(screen.window) < SENTENCES
        assert "verdict-sentence-100" in shown
        body = "\n".join(str(w.render()) for w in screen.query("#verdict-body > Static").results(Static))
        assert f"⋮ sentences 1–{screen.window.start} above (k goes back)" in body
        assert f"⋮ sentences {screen.window.stop + 1}–{SENTENCES} below (j goes on)" in body
        await pilot.press(*["j"] * len(screen.window))
        await pilot.pause()
        assert screen.sentence == 100 + len(shown) and f"verdict-sentence-{screen.sentence}" in [w.id for w in screen.query(".verdict-sentence")]


async def test_the_inspector_cuts_the_answer_and_the_raw_json_and_says_where_the_rest_is(long):
    answer = long.b.question("long")["answer"]
    async with host_app(lambda: VerdictScreen(long, "long", "B")).run_test(size=NARROW) as pilot:
        await pilot.pause()
        summary = str(pilot.app.screen.query_one(".verdict-summary", Static).render())
        assert answer[:ANSWER_LIMIT] in summary and answer[: ANSWER_LIMIT + 1] not in summary
        assert f"⋮ {len(answer) - ANSWER_LIMIT:,} more characters — o, then a: all of it in $PAGER" in summary
        raw = str(pilot.app.screen.query_one(".verdict-raw", Static).render())
        assert raw.startswith('Raw judge JSON\n{\n  "model": "test-judge",')
        assert raw.endswith(f"⋮ cut after {RAW_LIMIT:,} characters — o, then v: all of it in $PAGER")


async def test_o_then_a_in_the_inspector_pages_the_whole_long_answer(long, tmp_path, monkeypatch):
    seen = tmp_path / "seen.txt"
    pager = tmp_path / "pager.py"
    pager.write_text(f"import shutil, sys\nshutil.copy(sys.argv[1], {str(seen)!r})\n", encoding="utf-8")
    monkeypatch.setenv("PAGER", f"{sys.executable} {pager}")
    async with host_app(lambda: VerdictScreen(long, "long", "B")).run_test(size=NARROW) as pilot:
        monkeypatch.setattr(type(pilot.app), "suspend", lambda self: nullcontext())  # headless: no terminal to give
        await pilot.press("o", "a")
        await pilot.pause()
    assert seen.read_text(encoding="utf-8").rstrip("\n") == long.b.question("long")["answer"]


async def test_a_question_the_run_scan_did_not_flag_is_not_scanned_again(long, monkeypatch):
    import ragtui.ui.models.question as question_model

    assert long.b.judge_directed["ids"] == []  # nothing in these runs addresses the judge

    def scan(*args, **kwargs):
        raise AssertionError("the question's texts were scanned again")

    monkeypatch.setattr(question_model, "question_flags", scan)
    async with host_app(lambda: VerdictScreen(long, "long", "B")).run_test(size=NARROW) as pilot:
        await pilot.pause()
        assert not pilot.app.screen.query(".verdict-directed")
    async with host_app(lambda: QuestionScreen(long, ["long", "short"], 0)).run_test(size=NARROW) as pilot:
        await pilot.press("n")
        assert pilot.app.screen.question_id == "short"


async def test_the_label_bar_of_a_long_answer_shows_the_sentences_around_the_focus(long):
    async with host_app(lambda: QuestionScreen(long, ["long"], 0)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press(*["j"] * 30)
        await pilot.pause()
        focus = pilot.app.screen.sentence_at["B"]
        bar = str(pilot.app.screen.query_one("#label-bar", Static).render())
        start = focus - LABEL_WINDOW // 4
        assert bar.startswith("person …") and f" …{SENTENCES}  utility" in bar
        assert f"›{focus + 1}·" in bar and f" {start + 1}·" in bar and f" {start}·" not in bar
        assert f" {start + LABEL_WINDOW}·" in bar and f" {start + LABEL_WINDOW + 1}·" not in bar
