"""The dashboard shows what the core computed, with symbols, and leads to the failures."""

from __future__ import annotations

import pytest
from textual.content import Content

from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.measuring.metrics import recall_curve
from ragtui.core.session import load_comparison
from ragtui.core.vocabulary import MINUS, delta_text, value_text
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.dashboard import DASHBOARD_METRICS, build_dashboard_data, worst_categories
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.widgets.category_grid import CategoryGrid, cell_text
from ragtui.ui.widgets.metric_panel import MetricPanel
from ragtui.ui.widgets.recall_curve import RecallCurve, column_width, curve_content
from ragtui.ui.widgets.status_counts import StatusCounts

from .conftest import text_of, wait_until_loaded
from .triage_data import screen_lines

RECALL = metric_by_name("recall@5")


def pct(value: float) -> str:
    """A rate as the test expects to read it: one decimal, per cent."""
    return f"{value * 100:.1f}%"


def pts(value: float) -> str:
    text = f"{value * 100:+.1f}"
    if float(text) == 0:  # nothing moved at this precision: "0.0", neither "+0.0" nor "−0.0"
        text = "0.0"
    return text.replace("-", MINUS) + " pts"


@pytest.fixture
def comparison(two_runs):
    return load_comparison(two_runs)


async def test_each_panel_shows_a_b_delta_and_interval_as_the_core_computed(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        panels = {p.metric.spec.key: p for p in app.screen.query(MetricPanel)}
        assert list(panels) == list(DASHBOARD_METRICS)
        for name in ("recall@5", "faithfulness", "abstention", "context_precision@5", "mrr@5", "false_abstention"):
            m = comparison.metrics[name]
            text = str(panels[m.spec.key].render())
            assert f"A {pct(m.a.value)}" in text, name
            assert f"B {pct(m.b.value)}" in text, name
            assert f"Δ {pts(m.delta)}" in text, name
            low, high = (f"{v * 100:+.1f}".replace("-", MINUS) for v in m.ci)
            assert f"95% CI {low.replace('+0.0', '0.0')}…{high.replace('+0.0', '0.0')}" in text, name
            assert f"n {m.n}" in text
        utility = comparison.metrics["utility"]
        text = str(panels["utility"].render())
        assert f"A {utility.a.value:.2f}" in text and f"B {utility.b.value:.2f}" in text
        assert f"Δ {utility.delta:+.2f}".replace("-", MINUS) in text


async def test_verdicts_read_from_symbols_not_only_colour(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        panels = {p.metric.name: str(p.render()) for p in app.screen.query(MetricPanel)}
        expected = {"improved": "▲ improved", "regressed": "▼ regressed", "no_clear_change": "~ no clear change"}
        seen = set()
        for name, text in panels.items():
            verdict = comparison.metrics[name].verdict
            assert text.splitlines()[0].startswith(expected[verdict]), name
            seen.add(verdict)
        assert seen == set(expected)  # the fixture exercises all three
        # Against the target: ✓ meets, ✗ misses, ? inconclusive after each value that has a target,
        # then the run's own interval that decided it.
        recall = comparison.metrics["recall@5"]
        marks = {"meets": "✓", "misses": "✗", "inconclusive": "?"}
        for run, value in (("A", recall.a), ("B", recall.b)):
            reading = recall.target_reading(run)
            low, high = reading.ci
            assert f"{run} {pct(value.value)} {marks[reading.verdict]}" in panels["recall@5"], run
            assert f"{run} {low * 100:.1f}…{high * 100:.1f}%" in panels["recall@5"], run
        # The target sits in the panel's border title.
        panel = app.screen.query_one("#metric-recall", MetricPanel)
        assert Content.from_markup(panel.border_title).plain == "Recall@5 · target ≥ 80%"


async def test_a_flagged_drop_that_is_not_significant_says_it_could_be_noise(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        for panel in app.screen.query(MetricPanel):
            m = panel.metric
            text = str(panel.render())
            if m.drop_flagged and m.verdict != "regressed":
                assert f"could be noise at n = {m.n}" in text, m.name
            elif m.drop_flagged:
                assert "! drop >" in text and "noise" not in text
            else:
                assert "!" not in text, m.name


async def test_status_counts_match_the_comparison(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        text = text_of(app.screen.query_one(StatusCounts))
        for status, symbol, label in (("regressed", "▼", "regressed"), ("fixed", "▲", "fixed"), ("still_failing", "✗", "still failing")):
            assert f"{symbol} {len(comparison.question_ids(status))} {label}" in text
        assert f"✓ {len(comparison.question_ids('passing'))} passing" in text


@pytest.mark.parametrize(("key", "status"), [("r", "regressed"), ("x", "fixed"), ("s", "still_failing"), ("f", None)])
async def test_status_keys_open_the_failure_list_filtered_by_status(two_runs, recorded_failures, key, status):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press(key)
        await pilot.pause()
        assert recorded_failures == [{"category": None, "failure_kind": None, "status": status}]


async def test_enter_on_a_status_count_opens_its_list(two_runs, recorded_failures):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        app.screen.query_one("#status-fixed").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert recorded_failures == [{"category": None, "failure_kind": None, "status": "fixed"}]


async def test_enter_on_a_category_cell_opens_that_category_and_the_metrics_failure_kind(two_runs, recorded_failures):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("c")
        grid = app.screen.query_one(CategoryGrid)
        assert grid.has_focus
        # Rows follow the gold set's order: factuelle_courte, procedurale, …; columns:
        # category, n, then recall@5 (retrieval_miss), faithfulness (unfaithful), …
        await pilot.press("down", "right", "right", "enter")
        await pilot.pause()
        assert recorded_failures == [{"category": "procedurale", "failure_kind": "retrieval_miss", "status": None}]
        await pilot.press("escape")  # back from the list: the cursor is where it was
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("right", "enter")
        await pilot.pause()
        assert recorded_failures[-1] == {"category": "procedurale", "failure_kind": "unfaithful", "status": None}


async def test_enter_on_a_category_name_opens_that_category_unfiltered_by_kind(two_runs, recorded_failures):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("c", "down", "down", "enter")
        await pilot.pause()
        assert recorded_failures == [{"category": "sans_reponse", "failure_kind": None, "status": None}]


async def test_a_cell_where_the_metric_does_not_apply_says_so_instead_of_opening(two_runs, recorded_failures, monkeypatch):
    notes = []
    monkeypatch.setattr(CategoryGrid, "notify", lambda self, message, **kw: notes.append(message))
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        # "No answer in corpus" × recall@5: no answerable question there (n = 0).
        await pilot.press("c", "down", "down", "right", "right", "enter")
        await pilot.pause()
        assert recorded_failures == []
        assert notes and "does not apply" in notes[0]


async def test_the_grid_shows_each_categorys_n_and_values_with_the_worst_marked(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        grid = app.screen.query_one(CategoryGrid)
        worst = worst_categories(build_dashboard_data(comparison), "B")
        assert worst["recall@5"] in ("procedurale", "contradiction_connue")
        for row, (category, data) in enumerate(comparison.categories.items()):
            assert str(grid.get_cell_at((row, 1))) == str(data.n)
            cell = data.metrics["recall@5"]
            value = cell.b.value if cell.b.n else None
            expected = cell_text(value, cell.delta, RECALL)
            shown = str(grid.get_cell_at((row, 2)))
            assert shown.startswith(expected)
            assert shown.endswith("◆") == (worst["recall@5"] == category)


async def test_b_toggles_the_grid_between_b_and_a_values(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        grid = app.screen.query_one(CategoryGrid)
        cell = comparison.categories["procedurale"].metrics["recall@5"]
        assert str(grid.get_cell_at((1, 2))).startswith(cell_text(cell.b.value, cell.delta, RECALL))
        await pilot.press("b")
        await pilot.pause()
        assert grid.side == "A"
        assert str(grid.get_cell_at((1, 2))).split(" ")[0] == cell_text(cell.a.value, None, RECALL)
        assert "values of A" in str(app.screen.query_one("#categories-title").render())


async def test_at_80_columns_the_grid_names_the_metric_columns_out_of_view_and_arrows_reach_each(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        grid = app.screen.query_one(CategoryGrid)
        more = app.screen.query_one("#categories-more")
        labels = [column.label.plain for column in grid.ordered_columns[2:]]
        assert labels[-3:] == ["CtxPrec@5", "MRR@5", "FalseAbst"]
        # At first the right end is out of view, and the cue says which columns, in words.
        _, right = grid.columns_out_of_view()
        assert right and right == labels[-len(right):]
        assert more.display and text_of(more) == f"more ▶ {' '.join(right)} (c, then ← →)"
        await pilot.press("c", *["right"] * (len(labels) + 1))
        await pilot.pause()
        # On the last column: it is wholly in view, the category still pinned, the cue now points left.
        assert grid.cursor_coordinate.column == len(labels) + 1
        left, right = grid.columns_out_of_view()
        assert right == [] and left == labels[: len(left)] and "FalseAbst" not in left
        assert text_of(more) == f"◀ {' '.join(left)} (c, then ← →)"
        header = next(line for line in screen_lines(app) if "Category" in line)
        assert header.split()[0] == "Category" and header.rstrip().endswith("FalseAbst")


async def test_at_160_columns_every_grid_column_is_in_view_and_no_cue_is_shown(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until_loaded(pilot)
        assert app.screen.query_one(CategoryGrid).columns_out_of_view() == ([], [])
        assert not app.screen.query_one("#categories-more").display


async def test_the_recall_curve_shows_the_cores_values_at_1_k_and_20(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        text = str(app.screen.query_one(RecallCurve).render())
        for side, evaluation in (("A", comparison.a), ("B", comparison.b)):
            curve = recall_curve(evaluation)
            line = next(line for line in text.splitlines() if line.strip().startswith(f"{side} @1"))
            assert f"@1 {curve[0] * 100:.0f}%" in line and f"@5 {curve[4] * 100:.0f}%" in line and f"@20 {curve[19] * 100:.0f}%" in line
        assert "▲ k = 5" in text


async def test_warnings_are_listed_with_a_symbol(two_runs, comparison):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        text = text_of(app.screen.query_one("WarningsPanel"))
        assert comparison.warnings
        for warning in comparison.warnings:
            assert f"⚠ {warning}" in text
        assert "Llama family" in text and "1 question(s) missing" in text


async def test_panels_stack_two_a_row_at_80_columns_and_four_at_160(two_runs):
    for size, per_row in (((80, 24), 2), ((130, 40), 3), ((160, 50), 4)):
        app = RagtuiApp(Session(two_runs))
        async with app.run_test(size=size) as pilot:
            await wait_until_loaded(pilot)
            panels = list(app.screen.query(MetricPanel))
            first_row_y = panels[0].region.y
            assert sum(1 for p in panels if p.region.y == first_row_y) == per_row, size
            assert all(p.region.right <= size[0] for p in panels)


async def test_at_160_columns_the_grid_and_curve_sit_side_by_side(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until_loaded(pilot)
        grid = app.screen.query_one("#categories")
        curve = app.screen.query_one(RecallCurve)
        assert curve.region.x >= grid.region.right and curve.region.y == grid.region.y
        # …and everything fits on one screen, nothing below the fold.
        assert curve.region.bottom <= 49



async def test_once_painted_the_dashboard_scroll_has_the_focus_and_page_down_scrolls_it(two_runs):
    # The focus comes right after the first paint (DashboardScreen.AUTO_FOCUS): the keys
    # that scroll at 80×24 must still reach the scroll without a Tab first.
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.pause()
        scroll = app.screen.query_one("#dashboard-scroll")
        assert app.screen.focused is scroll and scroll.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert scroll.scroll_y > 0


async def test_a_focus_given_before_the_first_paint_is_kept(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        screen = app.screen
        await pilot.press("c")  # a key pressed before the first paint's callback ran
        await pilot.pause()
        grid = screen.query_one(CategoryGrid)
        assert screen.focused is grid
        screen._focus_after_paint()  # the callback, late
        await pilot.pause()
        assert screen.focused is grid

# ---- pure pieces --------------------------------------------------------------------


def test_value_and_delta_texts_use_points_for_rates_and_units_for_scores():
    recall, utility = metric_by_name("recall@5"), metric_by_name("utility")
    assert value_text(0.9166, recall) == "91.7%" and value_text(None, recall) == "n/a"
    assert delta_text(-0.06, recall) == f"{MINUS}6.0 pts" and delta_text(0.0001, recall) == "0.0 pts"
    assert value_text(4.1234, utility) == "4.12" and delta_text(-0.21, utility) == f"{MINUS}0.21"


def test_cell_text_rounds_to_whole_points_and_hides_a_zero_move():
    assert cell_text(0.6667, -0.3333, RECALL) == f"67% {MINUS}33"
    assert cell_text(1.0, 0.0, RECALL) == "100%"
    assert cell_text(1.0, 0.004, RECALL) == "100%"  # +0.4 points: no move in whole points
    assert cell_text(None, None, RECALL) == "–"
    assert cell_text(3.3333, -0.6667, metric_by_name("utility")) == f"3.3 {MINUS}0.7"


def test_the_curve_marks_k_and_fits_the_width_it_is_given():
    curves = {"A": [i / 20 for i in range(1, 21)], "B": [min(1.0, i / 18) for i in range(1, 21)]}
    for width in (40, 64, 84, 200):
        text = curve_content(curves, 5, width)
        assert max(len(line) for line in text.plain.splitlines()) <= max(width, 44)
        assert "▲ k = 5" in text.plain and " A " in text.plain and " B " in text.plain
    assert column_width(84, 20) == 4 and column_width(64, 20) == 3 and column_width(50, 20) == 2
    wide = curve_content(curves, 5, 84).plain
    assert " 25 " in wide  # the numbers row at 4 cells a k: A@5 = 25 %


def test_the_curve_without_any_answerable_question_says_so():
    assert "no recall curve" in curve_content({"A": [None] * 20}, 5, 80).plain


def test_worst_category_is_the_biggest_drop_with_b_and_the_weakest_value_with_a(comparison):
    worst_b = worst_categories(build_dashboard_data(comparison), "B")
    worst_a = worst_categories(build_dashboard_data(comparison), "A")
    # Utility fell most in procedurale (5.0 → 3.3); with A alone, sans_reponse is weakest (4.0).
    assert worst_b["utility"] == "procedurale"
    assert worst_a["utility"] == "sans_reponse"
    # Faithfulness only improved: nothing to mark on the B side.
    assert "faithfulness" not in worst_b


async def test_each_run_header_says_how_often_its_judge_agrees_with_the_human_labels(sample):
    from ragtui.core.measuring.calibration import calibrate

    comparison = load_comparison(sample)
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until_loaded(pilot)
        headers = list(app.screen.query("RunHeaderBox"))
        for header, evaluation in zip(headers, (comparison.a, comparison.b)):
            expected = calibrate(evaluation.questions)
            text = text_of(header)
            assert f"{expected.sentence_agreement:.0%} agree" in text
            assert f"κ {expected.sentence_kappa:.2f}" in text and f"{expected.sentences} sentences" in text


def test_the_run_header_shows_the_judge_trust_the_report_prints_sidecar_labels_included(tmp_path, write_jsonl):
    import json

    from ragtui.core.comparing.report import build_report
    from ragtui.core.session import Inputs
    from ragtui.ui.models.dashboard import build_dashboard_data

    sentences = [{"text": "S.", "attested": True}]
    records = [{"id": f"q{i}", "gold_passages": ["p"], "retrieved": ["p"], "answer": "S.", "judge": {"faithfulness": {"sentences": sentences}}} for i in range(3)]
    a = write_jsonl(tmp_path / "a.jsonl", {"name": "base"}, records)
    # The person disagrees with the judge on q1's only sentence: 2 of 3 agree.
    events = [{"id": f"q{i}", "run": "base", "sentence": 0, "human": i != 1, "sampled": True, "at": "t"} for i in range(3)]
    (tmp_path / "a.labels.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    comparison = load_comparison(Inputs(a=a))
    header = build_dashboard_data(comparison).runs[0].calibration
    assert (header.sentences, header.sentence_agreement) == (3, pytest.approx(2 / 3))
    assert build_report(comparison)["calibration"]["A"]["sentence_agreement"] == round(2 / 3, 4)


async def test_with_its_corpus_the_samples_panels_say_clustered_by_document_and_the_grid_legend_names_holm():
    from dataclasses import replace

    from ragtui.cli.tui import sample_inputs
    from ragtui.core.loading.inputs import Inputs

    paths = sample_inputs()
    corpus = paths["a"].parent / "corpus"
    if not corpus.is_dir():
        pytest.skip("the bundled sample (sample_data/) is not there")
    inputs = replace(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"], cache=False), corpus=corpus)
    app = RagtuiApp(Session(inputs))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.pause()
        panels = {p.metric.spec.key: p for p in app.screen.query(MetricPanel)}
        assert str(panels["recall"].border_subtitle) == "clustered by document (7)"
        assert "underlined: Δ survives Holm" in text_of(app.screen.query_one("#categories-legend"))


def test_the_breakpoint_class_is_the_widest_breakpoint_the_width_reaches():
    from ragtui.ui.screens.dashboard import breakpoint_class

    breakpoints = DashboardScreen.HORIZONTAL_BREAKPOINTS
    assert [breakpoint_class(breakpoints, width) for width in (80, 119, 120, 159, 160, 300)] == [
        "-narrow", "-narrow", "-wide", "-wide", "-very-wide", "-very-wide",
    ]


@pytest.mark.parametrize(("size", "expected"), [((80, 24), "-narrow"), ((130, 40), "-wide"), ((170, 50), "-very-wide")])
async def test_the_dashboard_is_drawn_with_the_breakpoint_class_textual_gives_its_width(two_runs, size, expected, monkeypatch):
    def classes(screen) -> set[str]:
        return {name for _, name in DashboardScreen.HORIZONTAL_BREAKPOINTS if screen.has_class(name)}

    at_mount: list[set[str]] = []
    own_on_mount = DashboardScreen.on_mount
    monkeypatch.setattr(DashboardScreen, "on_mount", lambda screen: at_mount.append(classes(screen)) or own_on_mount(screen))
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=size) as pilot:
        await wait_until_loaded(pilot)
        # Given before its widgets are styled (Textual's first resize comes after), and the
        # one Textual keeps.
        assert at_mount == [{expected}]
        assert classes(app.screen) == {expected}
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert classes(app.screen) == {"-narrow"}
