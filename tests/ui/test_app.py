"""The app shell: loading, errors, keys everywhere, the palette, untrusted text."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import Static

import ragtui.core.session as session
from ragtui.core.loading.records import write_run_jsonl
from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.error import ErrorScreen
from ragtui.ui.screens.help import HelpScreen
from ragtui.ui.screens.loading import LoadingScreen
from ragtui.ui.widgets.run_header import RunHeaderBox, WarningsPanel

from .conftest import META_A, poll_until, run_a_records, text_of, wait_until_loaded, write_fixture


async def test_loading_screen_names_the_files_then_the_dashboard_replaces_it(two_runs, monkeypatch):
    release = threading.Event()
    real = session.load_comparison

    def held(inputs, **options):
        release.wait(10)
        return real(inputs, **options)

    monkeypatch.setattr(session, "load_comparison", held)
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen)
        shown = str(app.screen.query_one("#loading-what", Static).render())
        assert "a.jsonl" in shown and "b.jsonl" in shown
        release.set()
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen)


async def test_quitting_during_a_long_load_does_not_wait_for_it(two_runs, monkeypatch):
    never = threading.Event()
    monkeypatch.setattr(session, "load_comparison", lambda inputs, **options: never.wait(30))
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    await app.workers.wait_for_complete()
    # The app has closed while the load is still blocked: it did not wait for it.
    assert not never.is_set()
    assert app.return_code == 0
    never.set()


async def test_help_opened_while_loading_leaves_nothing_under_the_dashboard(two_runs, monkeypatch):
    release = threading.Event()
    real = session.load_comparison
    monkeypatch.setattr(session, "load_comparison", lambda inputs, **options: release.wait(10) and real(inputs, **options))
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        release.set()
        await wait_until_loaded(pilot)
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert not any(isinstance(screen, (LoadingScreen, HelpScreen)) for screen in app.screen_stack)


async def test_dashboard_shows_both_run_names_and_roles(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        headers = app.screen.query(RunHeaderBox)
        assert [h.header.label for h in headers] == ["A", "B"]
        text = text_of(app.screen.query_one("#runs"))
        assert "baseline (reference)" in text and "candidate (candidate)" in text
        assert "claude-sonnet-4" in text and "llama-3.3-70b-instruct" in text


async def test_question_mark_lists_the_keys_of_each_screen_and_escape_closes_it(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = text_of(app.screen)
        assert "Everywhere" in text and "Dashboard  (this screen)" in text
        for key, words in (("q", "Quit"), ("f", "Failures"), ("r", "Regressed"), ("c", "Categories"), ("b", "A/B")):
            assert any(line.strip().startswith(key) and words in line for line in text.splitlines()), key
        assert "▲ / ▼ / ~" in text  # the symbols are explained too
        assert "★" in text and "a gold passage" in text and "⊘" in text
        # The failure list's own table keys (Enter opens a question) are listed too.
        failures = text.split("Failure list", 1)[1].split("Question", 1)[0]
        assert "Open the question view on this question" in failures and "Page down" in failures
        assert "Failure kinds in the list" in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("escape")  # nothing below the dashboard: Esc stays
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_an_input_error_lists_every_problem_and_q_exits_with_code_2(tmp_path):
    paths = write_fixture(tmp_path)
    lines = paths["a"].read_text(encoding="utf-8").splitlines()
    lines[2] = '{"id": "f2", "retrieved": [oops'
    lines[4] = "not json at all"
    paths["a"].write_text("\n".join(lines) + "\n", encoding="utf-8")
    app = RagtuiApp(Session(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"])))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, ErrorScreen)
        text = text_of(app.screen)
        assert "cannot open these files: 2 problems" in text
        assert f"{paths['a']}:3" in text and f"{paths['a']}:5" in text
        assert "Traceback" not in text
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 2
    assert len(app.load_problems) == 2  # launch() prints these on stderr after the screen closes


# A TimeoutError too: the app once polled the load with `result(timeout=…)` and read the
# load's own TimeoutError as "not finished yet", showing "Loading…" forever.
@pytest.mark.parametrize("error", [RuntimeError("boom"), TimeoutError("boom")], ids=["RuntimeError", "TimeoutError"])
async def test_a_crash_while_loading_is_shown_as_a_bug_without_a_traceback(two_runs, monkeypatch, error):
    def broken(inputs, **options):
        raise error

    monkeypatch.setattr(session, "load_comparison", broken)
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        # Polled, not waited for: the bug never ended the load worker.
        await poll_until(pilot, lambda: isinstance(app.screen, ErrorScreen), seconds=10)
        assert isinstance(app.screen, ErrorScreen)
        await wait_until_loaded(pilot)
        text = text_of(app.screen)
        assert f"{type(error).__name__}: boom" in text and "a bug in ragtui" in text
        assert "Traceback" not in text
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 1


async def test_a_single_run_shows_the_dashboard_without_b(one_run):
    app = RagtuiApp(Session(one_run))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen)
        assert [h.header.label for h in app.screen.query(RunHeaderBox)] == ["A"]
        text = text_of(app.screen)
        assert "B " not in text.replace("B (", "")  # no B column, no B value
        assert "regressed" not in text and "failing" in text
        # Keys that need two runs are off.
        await pilot.press("b")
        await pilot.pause()
        assert app.screen.side == "A"


async def test_launch_passes_no_mouse_to_textual(two_runs, monkeypatch):
    from ragtui.ui import launch as launch_module

    seen = {}

    def fake_run(self, **kwargs):
        seen.update(kwargs)

    monkeypatch.setattr(RagtuiApp, "run", fake_run)
    assert launch_module.launch(two_runs, theme="light", mouse=False) == 0
    assert seen == {"mouse": False}


async def test_the_problems_left_in_the_terminal_after_the_app_are_inert_one_line_each(two_runs, monkeypatch, capsys):
    from ragtui.ui import launch as launch_module

    def fake_run(self, **kwargs):
        self.load_problems = ["b.jsonl:3: id: duplicate id 'q\x1b]0;pwned\x07\nragtui: all good'"]

    monkeypatch.setattr(RagtuiApp, "run", fake_run)
    launch_module.launch(two_runs)
    err = capsys.readouterr().err
    assert err == "ragtui: b.jsonl:3: id: duplicate id 'q␛]0;pwned␇ ragtui: all good'\n"


def test_the_cli_theme_and_no_mouse_options_reach_launch(monkeypatch, fixture_paths):
    from ragtui.cli import main
    from ragtui.ui import launch as launch_module

    seen = {}
    monkeypatch.setattr("ragtui.cli.terminal.terminal_problem", lambda: None)  # pytest has no terminal
    monkeypatch.setattr(launch_module, "launch", lambda inputs, theme, mouse, **_: seen.update(inputs=inputs, theme=theme, mouse=mouse) or 0)
    p = fixture_paths
    assert main([str(p["a"]), str(p["b"]), "--gold", str(p["gold"]), "--theme", "high-contrast", "--no-mouse"]) == 0
    assert seen["theme"] == "high-contrast" and seen["mouse"] is False and seen["inputs"].b == p["b"]


def test_every_binding_has_an_id_so_keys_can_be_remapped():
    for cls in (RagtuiApp, DashboardScreen, ErrorScreen, HelpScreen):
        for binding in cls.BINDINGS:
            assert binding.id, f"{cls.__name__}: {binding.key} has no id"


async def test_a_keymap_file_in_the_config_folder_moves_a_key(two_runs, isolated_config_home, recorded_failures):
    (isolated_config_home / "ragtui").mkdir()
    (isolated_config_home / "ragtui" / "keymap.yaml").write_text("dashboard.failures: F\n", encoding="utf-8")
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert recorded_failures == []
        await pilot.press("F")
        await pilot.pause()
        assert recorded_failures == [{"category": None, "failure_kind": None, "status": None}]


async def test_the_palette_opens_the_regressed_list(two_runs, recorded_failures):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"open regressed")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert recorded_failures == [{"category": None, "failure_kind": None, "status": "regressed"}]


async def _palette(pilot, query: str) -> None:
    await pilot.press("ctrl+p")
    await pilot.pause()
    await pilot.press(*query)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()


async def test_the_palette_toggles_a_b_and_opens_help(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await _palette(pilot, "toggle a/b")
        assert app.screen.side == "A"
        await _palette(pilot, "help: keys")
        assert isinstance(app.screen, HelpScreen)


async def test_the_failure_list_screen_is_pushed_for_real(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("r")
        await pilot.pause()
        assert type(app.screen).__name__ == "FailureListScreen"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


HOSTILE = "[@click=app.quit]x[/] \x1b]52;c;AAAA\x07 [b]bold?[/b]"


async def test_untrusted_run_name_and_category_show_literally_and_clicking_does_nothing(tmp_path):
    from .conftest import gold_records

    gold = gold_records()
    for record in gold:
        if record["categorie"] == "procedurale":
            record["categorie"] = "[@click=app.quit]proc[/]"
    paths = write_fixture(tmp_path, meta_a={**META_A, "name": HOSTILE, "generator_model": "[red]gen[/red]"}, gold=gold)
    app = RagtuiApp(Session(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"])))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        header = app.screen.query(RunHeaderBox).first()
        shown = text_of(header)
        assert "[@click=app.quit]x[/]" in shown and "[b]bold?[/b]" in shown and "[red]gen[/red]" in shown
        assert "\x1b" not in shown and "\x07" not in shown and "␛]52;c;AAAA␇" in shown
        # Warnings quote the run name too.
        warnings = text_of(app.screen.query_one(WarningsPanel))
        assert "\x1b" not in warnings
        # Clicking on the name (the header's first line, where a live @click would be) does nothing.
        await pilot.click(header.query_one(".identity"), offset=(4, 0))
        await pilot.click(header.query_one(".identity"), offset=(8, 0))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        grid = app.screen.query_one("#category-grid")
        await pilot.press("c")  # focuses the grid and scrolls it into view
        await pilot.pause()
        labels = [str(grid.get_cell_at((row, 0))) for row in range(grid.row_count)]
        assert "[@click=app.quit]proc[/]" in labels
        await pilot.click(grid, offset=(4, 2))
        await pilot.pause()
        assert app.return_code is None


async def test_untrusted_category_in_the_palette_is_inert(tmp_path, recorded_failures):
    from .conftest import gold_records

    gold = gold_records()
    for record in gold:
        if record["categorie"] == "procedurale":
            record["categorie"] = "[@click=app.quit]proc[/]"
    paths = write_fixture(tmp_path, gold=gold)
    app = RagtuiApp(Session(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"])))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"click")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.return_code is None
        assert recorded_failures == [{"category": "[@click=app.quit]proc[/]", "failure_kind": None, "status": None}]


def test_run_records_fixture_round_trips(tmp_path):
    """The fixture writer is the core's own: a sanity check that the files load."""
    path = tmp_path / "a.jsonl"
    write_run_jsonl(path, META_A, run_a_records())
    assert path.read_text(encoding="utf-8").count("\n") == 13


def _modules_after(code: str) -> set[str]:
    import subprocess
    import sys
    from pathlib import Path

    script = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[2])
    return set(result.stdout.split())


def test_importing_the_app_leaves_polars_and_numpy_to_the_loading_thread():
    loaded = _modules_after("import ragtui.ui.app")
    assert not {"polars", "numpy", "httpx"} & loaded


def test_the_way_to_a_painted_dashboard_never_loads_httpx_or_the_judge(sample):
    code = f"""
from pathlib import Path
from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens import dashboard
from ragtui.ui.models.session import Session
own_on_mount = dashboard.DashboardScreen.on_mount
dashboard.DashboardScreen.on_mount = lambda self: (self.call_after_refresh(self.app.exit), own_on_mount(self))
inputs = Inputs(a=Path(r'{sample.a}'), b=Path(r'{sample.b}'), gold=Path(r'{sample.gold}'), config=Path(r'{sample.config}'))
app = RagtuiApp(Session(inputs))
app.run(headless=True, size=(80, 24))
assert app.return_code == 0
"""
    loaded = _modules_after(code)
    assert "ragtui.ui.screens.dashboard" in loaded
    assert "httpx" not in loaded and "ragtui.core.judge" not in loaded
