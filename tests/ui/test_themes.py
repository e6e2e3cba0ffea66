"""Themes: bundled YAML, user YAML from the XDG folder, clear failures, NO_COLOR."""

from __future__ import annotations

from importlib.resources import files

import pytest
from textual.color import Color

from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.themes import (
    DEFAULT_THEME,
    THEME_VARIABLE_DEFAULTS,
    ThemeFileError,
    builtin_themes,
    load_user_themes,
    theme_from_text,
)
from ragtui.ui.widgets.metric_panel import MetricPanel

from .conftest import text_of, wait_until_loaded

GOOD = """\
name: ocean
primary: "#0077BE"
background: "#001F3F"
variables:
  verdict-fail: "#FF6347"
"""


def test_the_bundled_themes_load_from_the_installed_package():
    themes = builtin_themes()
    assert {"dark", "light", "high-contrast"} <= set(themes)
    assert DEFAULT_THEME in themes
    # Read through importlib.resources: the YAML files ship inside the wheel.
    assert {entry.name for entry in files("ragtui.themes").iterdir()} >= {"dark.yaml", "light.yaml", "high-contrast.yaml"}
    assert themes["light"].dark is False and themes["dark"].dark is True


def test_every_bundled_theme_sets_every_ragtui_variable():
    for theme in builtin_themes().values():
        assert set(THEME_VARIABLE_DEFAULTS) <= set(theme.variables), theme.name


def test_the_variable_defaults_are_literal_colours():
    # Textual refuses a stylesheet naming an undefined variable: every default must parse.
    for name, value in THEME_VARIABLE_DEFAULTS.items():
        assert Color.parse(value), name


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("name: x\nprimary: '#12345'\n", "primary: '#12345' is not a colour"),
        ("name: x\nprimary: '#123456'\nvariables:\n  verdict-pass: blurple\n", "variables.verdict-pass"),
        ("name: x\nprimay: '#123456'\n", "unknown field(s) primay"),
        ("primary: '#123456'\n", "name:"),
        ("name: '[@click=app.quit]x'\nprimary: '#123456'\n", "name:"),
        ("name: x\n", "primary: required"),
        ("name: x\nprimary: '#123456'\ndark: maybe\n", "dark: expected true or false"),
        ("name: [x\n", "malformed YAML"),
        ("- just a list\n", "expected a mapping"),
    ],
)
def test_a_bad_theme_file_names_the_field_and_what_was_expected(text, says):
    with pytest.raises(ThemeFileError) as info:
        theme_from_text(text, "mine.yaml")
    assert says in str(info.value) and str(info.value).startswith("mine.yaml")


def test_user_themes_return_loaded_and_failed(tmp_path):
    (tmp_path / "ocean.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("name: broken\nprimary: notacolour\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    loaded, failed = load_user_themes(tmp_path)
    assert list(loaded) == ["ocean"] and loaded["ocean"].variables["verdict-fail"] == "#FF6347"
    assert len(failed) == 1 and "broken.yaml" in failed[0] and "primary" in failed[0]
    assert load_user_themes(tmp_path / "absent") == ({}, [])


@pytest.mark.parametrize("name", ["dark", "light", "high-contrast"])
async def test_the_theme_option_selects_a_bundled_theme_and_the_dashboard_renders(two_runs, name):
    app = RagtuiApp(Session(two_runs), theme_name=name)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.theme == name
        assert app.theme_variables["verdict-fail"] == builtin_themes()[name].variables["verdict-fail"]
        assert len(app.screen.query(MetricPanel)) == 7


async def test_a_user_theme_in_the_xdg_folder_can_be_chosen(two_runs, isolated_config_home):
    folder = isolated_config_home / "ragtui" / "themes"
    folder.mkdir(parents=True)
    (folder / "ocean.yaml").write_text(GOOD, encoding="utf-8")
    app = RagtuiApp(Session(two_runs), theme_name="ocean")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.theme == "ocean"
        assert app.theme_variables["verdict-fail"] == "#FF6347"
        # Variables the user theme leaves out fall back to the literal defaults.
        assert app.theme_variables["gold-passage"] == THEME_VARIABLE_DEFAULTS["gold-passage"]
        assert "ocean" in app.ragtui_theme_names()


async def test_broken_user_themes_give_one_notification_and_the_default_theme(two_runs, isolated_config_home, monkeypatch):
    folder = isolated_config_home / "ragtui" / "themes"
    folder.mkdir(parents=True)
    (folder / "mine.yaml").write_text("name: mine\nprimary: '#zzzzzz'\n", encoding="utf-8")
    (folder / "other.yaml").write_text("name: [unclosed\n", encoding="utf-8")
    notes = []
    monkeypatch.setattr(RagtuiApp, "notify", lambda self, message, **kw: notes.append((message, kw)))
    app = RagtuiApp(Session(two_runs), theme_name="mine")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.theme == DEFAULT_THEME
        assert len(notes) == 1
        message, options = notes[0]
        assert "mine.yaml" in message and "other.yaml" in message and "Unknown theme 'mine'" in message
        assert options["markup"] is False and options["severity"] == "warning"


async def test_an_unknown_theme_name_falls_back_to_the_default_with_a_notice(two_runs, monkeypatch):
    notes = []
    monkeypatch.setattr(RagtuiApp, "notify", lambda self, message, **kw: notes.append(message))
    app = RagtuiApp(Session(two_runs), theme_name="nope")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.theme == DEFAULT_THEME
        assert notes == [f"Unknown theme 'nope'; using 'dark'. Themes: {', '.join(app.ragtui_theme_names())}."]


async def test_the_palette_lists_the_themes_and_switches(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.theme == "dark"
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"theme: light")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.theme == "light"
        assert app.theme_variables["verdict-fail"] == builtin_themes()["light"].variables["verdict-fail"]


async def test_with_no_color_every_verdict_still_reads_from_its_symbol(two_runs, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = RagtuiApp(Session(two_runs))
    assert app.no_color  # Textual turns the whole screen monochrome
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        text = text_of(app.screen)
        for symbol in ("▲ improved", "▼ regressed", "~ no clear change", "✓", "✗", "◆", "⚠"):
            assert symbol in text
