"""Leaving: Ctrl-C quits, `q` quits from every screen and closes every menu, and menus
show their keys in a footer like every screen."""

from __future__ import annotations

import pytest

from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.menus import ChoiceMenu, MarkMenu
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.widgets.key_footer import KeyFooter

from .conftest import wait_until_loaded

# From the dashboard, the keys that lead to each screen.
SCREENS = {
    "failure list": ("f",),
    "question view": ("f", "enter"),
    "verdict inspector": ("f", "enter", "v"),
    "calibration": ("C",),
    "calibration queue": ("L",),
    "help": ("question_mark",),
}


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_q_and_ctrl_c_quit_with_exit_code_0(two_runs, key):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press(key)
        await pilot.pause()
    assert app.return_code == 0


@pytest.mark.parametrize("screen", list(SCREENS))
async def test_q_quits_from_every_screen(two_runs, screen):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        for key in SCREENS[screen]:
            await pilot.press(key)
            await pilot.pause()
        assert len(app.screen_stack) == 2 + len(SCREENS[screen][1:]) + bool(SCREENS[screen])  # really there
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0


@pytest.mark.parametrize(("key", "menu"), [("y", ChoiceMenu), ("o", ChoiceMenu), ("m", MarkMenu), ("X", ChoiceMenu)])
async def test_q_closes_every_menu_and_every_menu_shows_its_footer(two_runs, key, menu):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("f", "enter")
        await pilot.pause()
        if key == "X":
            await pilot.press("m", "b", "enter")  # a mark: X exports the marked question
            await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert isinstance(app.screen, menu)
        assert app.screen.query(KeyFooter)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert app.return_code is None  # closed the menu, not the app
