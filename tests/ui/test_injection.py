"""Hostile text in the files shows literally on the triage screens, and does nothing.

Every text a run or gold file holds — question, expected answer, passage ids and texts,
answer, judge reasons and error, run name, category — carries markup with an action
(`[@click=app.quit]`), stray tags, CSI / OSC 0 / OSC 8 / OSC 52 escapes, a C1 control
and a bidi override (see triage_data.PAYLOAD). The claims: the markup shows as text, no
control character reaches the terminal (each has a visible stand-in), no segment carries
a link or an action, and clicking or focusing the text leaves the app running unchanged.
"""

from __future__ import annotations

import pytest

from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from ragtui.ui.widgets.failure_table import FailureTable
from tests.ui.triage_data import HOSTILE_ID, RAW_CONTROLS, host_app, screen_lines, screen_strips

BIG = (200, 100)
LITERALS = (
    "[@click=app.quit]x[/]",  # markup, not parsed
    "[bold]b",
    "␛[31mred",  # CSI: ESC made visible
    "␛]0;title␇",  # OSC 0: window title
    "␛]8;;http://evil.example␇link",  # OSC 8: hyperlink
    "␛]52;c;AAAA␇",  # OSC 52: clipboard write
    "\\x9b6n",  # C1 CSI
    "<U+202E>evil",  # bidi override
)


def _assert_inert(app) -> None:
    """The screen shows the payload literally and sends nothing the terminal would act on."""
    text = "\n".join(screen_lines(app))
    for literal in LITERALS:
        assert literal in text, literal
    for control in RAW_CONTROLS:
        assert control not in text, repr(control)
    for strip in screen_strips(app):
        for segment in strip:
            style = segment.style
            if style is None:
                continue
            assert not style.link, segment
            assert not any(str(key).startswith("@") for key in (style.meta or {})), segment


async def _click_every_payload(pilot) -> None:
    """Click each place the payload's markup is drawn; the app must keep running, unchanged."""
    app = pilot.app
    screen, depth, title = app.screen, len(app.screen_stack), app.title
    hits = [(line.index("[@click"), y) for y, line in enumerate(screen_lines(app)) if "[@click" in line]
    assert hits
    for x, y in hits[:6]:
        await pilot.click(offset=(x + 1, y))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert app.screen is screen and len(app.screen_stack) == depth
        assert app.title == title


async def test_the_failure_list_shows_hostile_text_literally_and_inertly(hostile_triage):
    app = host_app(lambda: FailureListScreen(hostile_triage, status="all"))
    async with app.run_test(size=BIG) as pilot:
        await pilot.pause()
        table = app.screen.query_one(FailureTable)
        table.cursor = table.rows.index_of(HOSTILE_ID)  # the hostile row is focused
        await pilot.pause()
        _assert_inert(app)
        assert any("Failures · A baseline [@click=app.quit]x[/" in line for line in screen_lines(app))
        assert any(line.strip().startswith("[bold]cat␛[31m") for line in screen_lines(app))  # category header
        await _click_every_payload(pilot)


async def test_the_failure_list_search_treats_markup_as_text(hostile_triage):
    app = host_app(lambda: FailureListScreen(hostile_triage, status="all"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"[@click")
        await pilot.pause()
        assert HOSTILE_ID in app.screen.query_one(FailureTable).rows.ids()
        assert app.is_running


@pytest.mark.parametrize("question_id", ["proc-02", HOSTILE_ID])
async def test_the_question_view_shows_hostile_text_literally_and_inertly(hostile_triage, question_id):
    app = host_app(lambda: QuestionScreen(hostile_triage, ["proc-02", HOSTILE_ID], ["proc-02", HOSTILE_ID].index(question_id)))
    async with app.run_test(size=BIG) as pilot:
        await pilot.pause()
        await pilot.press("j")  # focus sentence 2: its reason is the payload too
        await pilot.pause()
        _assert_inert(app)
        await _click_every_payload(pilot)
        await pilot.press("t", "j", "k", "n", "p")  # keyboard over it: nothing fires either
        assert app.is_running and isinstance(app.screen, QuestionScreen)


async def test_the_question_view_is_inert_at_80_columns(hostile_triage):
    app = host_app(lambda: QuestionScreen(hostile_triage, [HOSTILE_ID], 0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for control in RAW_CONTROLS:
            assert control not in "\n".join(screen_lines(app))
        assert any("[@click=app.quit]" in line for line in screen_lines(app))
        await _click_every_payload(pilot)


@pytest.mark.parametrize("side", ["A", "B"])
async def test_the_verdict_inspector_shows_hostile_text_literally_and_inertly(hostile_triage, side):
    app = host_app(lambda: VerdictScreen(hostile_triage, "proc-02", side))
    async with app.run_test(size=BIG) as pilot:
        await pilot.pause()
        _assert_inert(app)
        await _click_every_payload(pilot)


async def test_the_judge_error_is_shown_literally(hostile_triage):
    app = host_app(lambda: VerdictScreen(hostile_triage, "fact-03", "B"))
    async with app.run_test(size=BIG) as pilot:
        await pilot.pause()
        _assert_inert(app)
        assert any("⚠ judge error: [@click=app.quit]x[/]" in line for line in screen_lines(app))


async def test_re_judging_a_hostile_question_keeps_its_toasts_and_verdicts_literal(tmp_path):
    from tests.ui.triage_data import triage_comparison

    comparison = triage_comparison(tmp_path / "hostile-lexical", hostile=True, judge_provider="lexical")
    app = host_app(lambda: QuestionScreen(comparison, [HOSTILE_ID], 0))
    async with app.run_test(size=BIG) as pilot:
        await pilot.pause()
        await pilot.press("J")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any(message.startswith("re-judging proc-[@click=app.quit]9") for message, _ in app.toasts)
        assert all(markup is False for _, markup in app.toasts)
        assert any("Re-judged by" in line for line in screen_lines(app))
        _assert_inert(app)
        await _click_every_payload(pilot)


async def test_the_verdict_inspector_never_prints_a_raw_question_id(hostile_triage):
    # An id no run holds takes the "not in run" branch, which once printed the id raw.
    hostile_id = "q\x1b]52;c;AAAA\x07"
    app = host_app(lambda: VerdictScreen(hostile_triage, hostile_id, "B"))
    async with app.run_test(size=BIG) as pilot:
        await pilot.pause()
        text = "\n".join(screen_lines(app))
        assert "q␛]52;c;AAAA␇ is not in run B" in text
        assert "\x1b" not in text and "\x07" not in text
