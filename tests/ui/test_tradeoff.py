"""The trade-off view: T on the dashboard of more than two runs, and the pairs picked from it.

The fixture's A and B, plus C (B's records, sent with k = 10 and named so) and D (A's
records again, with a hostile name). Two runs keep today's dashboard: no T.
"""

from __future__ import annotations

import pytest
from textual.widgets._footer import FooterKey

from ragtui.core.loading.inputs import Inputs
from ragtui.core.loading.records import write_run_jsonl
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.tradeoff import TradeoffScreen
from ragtui.ui.widgets.key_footer import KeyFooter
from ragtui.ui.widgets.run_header import RunHeaderBox
from ragtui.ui.widgets.tradeoff_chart import TradeoffChart

from .conftest import META_A, META_B, run_a_records, run_b_records, text_of, wait_until_loaded

HOSTILE = "[@click=app.quit]evil\x1b[31m"


@pytest.fixture
def four_runs(fixture_paths) -> Inputs:
    p = fixture_paths
    c = p["a"].parent / "c.jsonl"
    d = p["a"].parent / "d.jsonl"
    write_run_jsonl(c, {**META_B, "name": "candidate_k10", "k": 10}, run_b_records())
    write_run_jsonl(d, {**META_A, "name": HOSTILE}, run_a_records())
    return Inputs(a=p["a"], b=p["b"], gold=p["gold"], config=p["config"], others=(c, d))


async def _tradeoff(pilot) -> TradeoffScreen:
    await wait_until_loaded(pilot)
    await pilot.press("T")
    for _ in range(400):  # the other runs load in a worker; the view says so meanwhile
        await pilot.pause(0.05)
        screen = pilot.app.screen
        if isinstance(screen, TradeoffScreen) and screen.tradeoff is not None and screen.query(TradeoffChart):
            break
    screen = pilot.app.screen
    assert isinstance(screen, TradeoffScreen) and screen.tradeoff is not None
    await pilot.pause()
    return screen


async def _dashboard_of(pilot, a_name: str, b_name: str) -> DashboardScreen:
    for _ in range(400):
        await pilot.pause(0.05)
        screen = pilot.app.screen
        comparison = pilot.app.comparison
        if isinstance(screen, DashboardScreen) and comparison.a.run.name == a_name and comparison.b.run.name == b_name:
            return screen
    raise AssertionError(f"no dashboard of {a_name} → {b_name}")


async def test_two_runs_keep_the_dashboard_without_a_trade_off_key(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert app.screen.check_action("tradeoff", ()) is False
        await pilot.press("T")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_more_than_two_runs_open_on_the_dashboard_of_a_and_b_with_t_for_the_trade_off(four_runs):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen)
        assert (app.comparison.a.run.name, app.comparison.b.run.name) == ("baseline", "candidate")
        assert app.screen.check_action("tradeoff", ()) is True


async def test_the_trade_off_lists_every_run_at_its_own_k_with_recall_faithfulness_and_utility(four_runs):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _tradeoff(pilot)
        points = screen.tradeoff.points
        assert [(p.label, p.k) for p in points] == [("A", 5), ("B1", 5), ("B2", 10), ("B3", 5)]
        runs = text_of(screen.query_one("#tradeoff-runs"))
        assert "candidate_k10" in runs and " 10 " in runs
        # B finds a gold passage in its top 5 on 6 of the 9 answerable questions (p1 pushed out, c1 never found, c3 missing).
        b1 = points[1].values
        assert b1["recall"].value == pytest.approx(6 / 9)
        assert f"{b1['recall'].value * 100:.1f}%" in runs
        assert "[@click" in runs and "\x1b" not in runs  # the hostile name is shown as text


async def test_c_segments_the_trade_off_by_category(four_runs):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _tradeoff(pilot)
        assert "all questions" in text_of(screen.query_one("#tradeoff-title"))
        await pilot.press("c")
        await pilot.pause()
        first = screen.tradeoff.categories[0]
        assert screen.category == first
        assert screen.query_one(TradeoffChart).category == first
        for _ in screen.tradeoff.categories:
            await pilot.press("c")
        assert screen.category is None


async def test_enter_opens_the_reference_against_the_highlighted_run_on_the_dashboard(four_runs):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await _tradeoff(pilot)
        await pilot.press("down", "enter")  # from B1 (the pair on screen) to B2
        dashboard = await _dashboard_of(pilot, "baseline", "candidate_k10")
        assert dashboard.check_action("tradeoff", ()) is True
        assert len(app.screen_stack) == 2  # the trade-off view is closed, the old dashboard replaced


async def test_a_then_enter_opens_two_candidates_against_each_other(four_runs):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await _tradeoff(pilot)
        await pilot.press("a", "down", "enter")  # B1 as A, then B2 as B
        await _dashboard_of(pilot, "candidate", "candidate_k10")
        await pilot.press("T")  # back to the trade-off: it starts on the pair shown
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, TradeoffScreen) and (screen.reference, screen.cursor) == (1, 2)


async def test_enter_on_the_reference_itself_asks_for_two_different_runs(four_runs, toasts):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _tradeoff(pilot)
        await pilot.press("up", "enter")  # the cursor on A, the reference
        await pilot.pause()
        assert app.screen is screen
        assert "two different runs" in " ".join(toasts)


async def test_a_candidate_that_cannot_be_read_is_named_and_the_first_pair_still_works(fixture_paths, tmp_path):
    p = fixture_paths
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": "f1", "retrieved": 7}\n', encoding="utf-8")
    app = RagtuiApp(Session(Inputs(a=p["a"], b=p["b"], gold=p["gold"], config=p["config"], others=(broken,))))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("T")
        for _ in range(400):
            await pilot.pause(0.05)
            if app.session.tradeoff_problems:
                break
        await pilot.pause()
        assert any("broken.jsonl" in problem for problem in app.session.tradeoff_problems)
        assert "broken.jsonl" in text_of(app.screen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and app.comparison.b.run.name == "candidate"


def test_the_chart_reads_without_colour_shapes_labels_and_target_lines():
    from ragtui.core.comparing.tradeoff import Tradeoff, TradeoffPoint
    from ragtui.core.measuring.metric_specs import MetricValue
    from ragtui.ui.widgets.tradeoff_chart import chart_content

    def point(label: str, recall: float, faithfulness: float) -> TradeoffPoint:
        values = {"recall": MetricValue(recall, 10), "faithfulness": MetricValue(faithfulness, 10), "utility": MetricValue(4.0, 10)}
        return TradeoffPoint(label, label.lower(), 5, "metadata", values, {})

    # B1 meets both targets; A has more faithfulness, B2 more recall: all three on the front.
    tradeoff = Tradeoff(
        (point("A", 0.70, 0.95), point("B1", 0.85, 0.90), point("B2", 0.97, 0.80), point("B3", 0.75, 0.82)),
        {"recall": 0.80, "faithfulness": 0.85, "utility": 4.0}, 5, (),
    )
    lines = chart_content(tradeoff, None, 60, 16).plain.split("\n")
    text = "\n".join(lines)
    assert "✦B1" in text and "●A" in text and "●B2" in text and "◦B3" in text
    # The y axis runs 80 %…95 % over 12 rows: the 85 % target is row 8 of the plot, ticked.
    target_line = next(line for line in lines if "┄" in line)
    assert target_line.startswith(" 85% ┤") and "┼" in target_line
    # The x axis runs 70 %…100 %: the 80 % target's column is ticked under the axis.
    axis, ticks = lines[-3], lines[-2]
    assert axis.count("┴") == 3 and "80%" in ticks and "70%" in ticks and "100%" in ticks
    assert all(line.rstrip() == line.rstrip()[:60] for line in lines)  # nothing wider than asked


async def test_a_swept_runs_header_says_the_k_its_file_says_once_picked_in_the_trade_off(four_runs):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await _tradeoff(pilot)
        await pilot.press("down", "enter")  # candidate_k10: its file says k 10, the comparison measures @5
        dashboard = await _dashboard_of(pilot, "baseline", "candidate_k10")
        await pilot.pause()
        headers = {box.header.label: text_of(box) for box in dashboard.query(RunHeaderBox)}
        assert "k=10 (measured @5)" in headers["B"]
        assert "k=5 " in headers["A"] and "measured" not in headers["A"]  # its file says 5: nothing to add


@pytest.mark.parametrize("width", [69, 40])
async def test_the_trade_off_footer_keeps_q_and_help_below_70_columns(four_runs, width):
    app = RagtuiApp(Session(four_runs))
    async with app.run_test(size=(width, 24)) as pilot:
        screen = await _tradeoff(pilot)
        await pilot.pause()
        footer = screen.query_one(KeyFooter)
        shown = [key for key in footer.query(FooterKey) if key.display and key.region.width and key.region.right <= width]
        assert {"quit", "help"} <= {key.action.removeprefix("app.") for key in shown}
