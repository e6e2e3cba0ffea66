"""`q` and `?` stay in the footer of every screen, whatever the terminal's width."""

from __future__ import annotations

import pytest

from ragtui.core.loading.inputs import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.error import ErrorScreen
from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.help import HelpScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from tests.ui.conftest import wait_until_loaded, write_fixture
from tests.ui.triage_data import screen_lines

SIZES = [(40, 15), (60, 20), (80, 24)]


def _footer(app) -> str:
    return screen_lines(app)[-1]


async def _settle(pilot) -> None:
    for _ in range(3):
        await pilot.pause()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_q_and_question_mark_are_in_every_footer_at_any_width(sample, size):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=size) as pilot:
        await wait_until_loaded(pilot)
        seen = {"dashboard": _footer(app)}
        app.open_failures(status="regressed")
        await _settle(pilot)
        assert isinstance(app.screen, FailureListScreen)
        seen["failures"] = _footer(app)
        await pilot.press("enter")
        await _settle(pilot)
        assert isinstance(app.screen, QuestionScreen)
        seen["question"] = _footer(app)
        await pilot.press("v")
        await _settle(pilot)
        assert isinstance(app.screen, VerdictScreen)
        seen["verdicts"] = _footer(app)
        for screen, footer in seen.items():
            assert "q Quit" in footer and "? Help" in footer, f"{screen} at {size}: {footer!r}"
        await pilot.press("question_mark")
        await _settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        assert "q Quit" in _footer(app) and "? Close" in _footer(app)
        await pilot.press("q")  # a modal screen hides the app's keys: q still quits from help
        await _settle(pilot)
    assert app.return_code == 0


async def test_the_error_screen_keeps_q_and_question_mark_at_40_columns(tmp_path):
    paths = write_fixture(tmp_path)
    paths["a"].write_text("not json at all\n", encoding="utf-8")
    app = RagtuiApp(Session(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"])))
    async with app.run_test(size=(40, 15)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, ErrorScreen)
        assert "q Quit" in _footer(app) and "? Help" in _footer(app)


async def test_keys_that_do_not_fit_are_hidden_whole_and_shown_again_when_the_terminal_widens(sample):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await _settle(pilot)
        narrow = _footer(app)
        # At 80 columns the dashboard's keys up to "b A/B" fit beside the pinned group;
        # "L Label" does not, and was drawn cut under it before ("L Lab").
        assert narrow.split("q Quit")[0].rstrip() == " f Failures  r Regressed  c Categories  b A/B"
        await pilot.resize_terminal(160, 30)
        await _settle(pilot)
        assert "b A/B  L Label  C Calibration" in _footer(app)
        await pilot.resize_terminal(80, 24)
        await _settle(pilot)
        assert _footer(app) == narrow


async def test_the_footer_is_rebuilt_only_when_the_keys_it_lists_change(sample):
    from ragtui.ui.widgets.key_footer import KeyFooter

    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until_loaded(pilot)
        await _settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        keys, text = list(footer.query("*")), _footer(app)
        focused = app.focused
        await pilot.press("tab")  # focus moves to a button: other hidden keys, the same listed ones
        await _settle(pilot)
        assert app.focused is not focused
        assert list(footer.query("*")) == keys and _footer(app) == text

        app.open_failures(status="regressed")
        await _settle(pilot)
        footer = app.screen.query_one(KeyFooter)
        keys = list(footer.query("*"))
        await pilot.press("slash")  # the search field takes the keys: the footer lists only its own
        await _settle(pilot)
        assert list(footer.query("*")) != keys
        assert _footer(app).split() == ["/", "search", "▏^p", "palette"]
