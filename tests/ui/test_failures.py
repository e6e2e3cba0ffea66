"""The failure list: grouping, filters, search, cursor, and the virtual view at 100,000."""

from __future__ import annotations

from ragtui.ui.models.session import Session
from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.widgets.failure_table import CACHE_LINES, FailureTable
from tests.ui.conftest import poll_until
from tests.ui.triage_data import host_app, screen_lines


def _table(app) -> FailureTable:
    return app.screen.query_one(FailureTable)


def _listed(app) -> list[str]:
    return _table(app).rows.ids()


def _text(app) -> str:
    return "\n".join(screen_lines(app))


async def test_failing_questions_are_grouped_under_category_headers(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        lines = screen_lines(app)
        headers = [i for i, line in enumerate(lines) if line.strip().startswith(("Short factual", "Procedural", "No answer in corpus"))]
        assert len(headers) == 3
        procedural = next(i for i in headers if "Procedural" in lines[i])
        assert "proc-01" in lines[procedural + 1] and "proc-02" in lines[procedural + 2]
        # Passing questions are not failures: fact-01 and contra-01 are not listed.
        assert "fact-01" not in _text(app) and "contra-01" not in _text(app)
        assert _listed(app) == ["fact-03", "fact-02", "proc-01", "proc-02", "none-01", "none-02"]


async def test_a_row_shows_status_symbol_kinds_in_a_and_b_cause_and_question(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        row = next(line for line in screen_lines(app) if "proc-01" in line)
        assert "▼" in row  # regressed
        assert "—→R" in row  # passes in A, retrieval miss in B
        assert "retrieval" in row  # the cause of the regression
        assert "Comment demander un jour" in row
        fixed = next(line for line in screen_lines(app) if "fact-02" in line)
        assert "▲" in fixed and "R→—" in fixed
        still = next(line for line in screen_lines(app) if "none-02" in line)
        assert "✗" in still


async def test_the_detail_line_spells_out_the_highlighted_question(triage):
    app = host_app(lambda: FailureListScreen(triage, status="regressed", category="procedurale"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        detail = str(app.screen.query_one("#failures-detail").render())
        assert detail.startswith("proc-01 ▼ regressed · cause: retrieval")
        assert "B: retrieval miss" in detail


async def test_filters_given_by_the_dashboard_are_applied_on_open(triage):
    app = host_app(lambda: FailureListScreen(triage, category="procedurale", status="regressed"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _listed(app) == ["proc-01", "proc-02"]
        assert "2 of 8" in str(app.screen.query_one("#failures-filters").render())


async def test_s_cycles_the_status_filter(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        assert _listed(app) == ["fact-03", "proc-01", "proc-02", "none-01"]  # regressed
        await pilot.press("s")
        assert _listed(app) == ["fact-02"]  # fixed
        await pilot.press("s")
        assert _listed(app) == ["none-02"]  # still failing
        await pilot.press("s")
        assert len(_listed(app)) == 8  # all, passing included
        assert "all questions" in str(app.screen.query_one("#failures-filters").render())


async def test_k_cycles_the_failure_kind_filter(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("k")  # retrieval_miss, in A or in B
        assert _listed(app) == ["fact-02", "proc-01"]
        assert "retrieval miss" in str(app.screen.query_one("#failures-filters").render())
        await pilot.press("k")  # unfaithful
        assert _listed(app) == ["proc-02"]


async def test_c_cycles_the_category_filter_and_x_clears_every_filter(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        assert _listed(app) == ["fact-03", "fact-02"]
        await pilot.press("c")
        assert _listed(app) == ["proc-01", "proc-02"]
        await pilot.press("x")
        assert len(_listed(app)) == 6


async def test_search_matches_id_or_question_text_literally_and_case_insensitively(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"TELETRAVAIL")
        assert _listed(app) == ["proc-01"]
        await pilot.press("enter")  # keeps the search, back to the list
        assert isinstance(app.focused, FailureTable)
        assert "“TELETRAVAIL”" in str(app.screen.query_one("#failures-filters").render())
        await pilot.press("slash", *"ctrl+u".split(), "(", "[")  # regex metacharacters are text
        await pilot.pause()
        assert _listed(app) == []
        assert "no question matches" in str(app.screen.query_one("#failures-detail").render())


async def test_a_large_comparisons_first_search_indexes_in_a_worker_and_the_list_stays_usable(triage, held_index_build):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"TELETRAVAIL")
        filters = app.screen.query_one("#failures-filters")
        assert "indexing the texts for the search…" in str(filters.render())
        assert len(_listed(app)) == 6  # not filtered yet, and the keys still answer
        await pilot.press("enter", "down")
        assert app.screen.table.cursor == 1
        held_index_build.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert _listed(app) == ["proc-01"]
        assert "indexing" not in str(filters.render()) and "“TELETRAVAIL”" in str(filters.render())


async def test_search_by_id(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"none-0")
        assert _listed(app) == ["none-01", "none-02"]


async def test_esc_closes_the_search_first_then_leaves_the_screen(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", "p", "r", "o", "c")
        assert len(_listed(app)) == 2
        await pilot.press("escape")
        assert len(_listed(app)) == 6  # Esc clears the search
        assert isinstance(app.screen, FailureListScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, FailureListScreen)


async def test_cursor_keys_move_between_questions_and_skip_category_headers(triage):
    app = host_app(lambda: FailureListScreen(triage))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = _table(app)
        assert table.current_id == "fact-03"
        await pilot.press("down", "down")
        assert table.current_id == "proc-01"  # across the "Procedural" header
        await pilot.press("end")
        assert table.current_id == "none-02"
        await pilot.press("home")
        assert table.current_id == "fact-03"
        await pilot.press("pagedown")
        assert table.current_id == "none-02"
        await pilot.press("up")
        assert table.current_id == "none-01"


async def test_enter_opens_the_question_view_on_the_highlighted_question_with_the_list(triage):
    app = host_app(lambda: FailureListScreen(triage, status="regressed"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert app.screen.question_id == "proc-01"
        assert app.screen.question_ids == ["fact-03", "proc-01", "proc-02", "none-01"]


async def test_a_single_run_lists_its_failures_without_a_b_columns(tmp_path):
    from tests.ui.triage_data import triage_comparison

    single = triage_comparison(tmp_path / "single", single=True)
    app = host_app(lambda: FailureListScreen(single))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert _listed(app) == ["fact-02", "none-02"]  # A's own failures
        assert "cause" not in screen_lines(app)[2]
        await pilot.press("s")
        assert len(_listed(app)) == 8


# ---- 100,000 questions -------------------------------------------------------------------


async def test_100000_questions_scroll_to_the_end_drawing_only_a_screenful(big_comparison):
    app = host_app(lambda: FailureListScreen(big_comparison, status="all"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = _table(app)
        assert table.rows.row_count == 100_000
        height = table.scrollable_content_region.height
        await pilot.press("end")
        await pilot.pause()
        last = table.rows.ids()[-1]
        assert any(last in line for line in screen_lines(app))
        assert table.current_id == last
        # Two screenfuls at most were ever drawn (the first page and the last), and the
        # cache is bounded: nothing scales with the 100,000 rows.
        assert table.lines_rendered <= 3 * height
        assert table.cache_size <= CACHE_LINES
        assert len(app.screen.query("*")) < 40  # widgets: a handful, never one per row
        await pilot.press("pageup")
        await pilot.pause()
        assert table.lines_rendered <= 4 * height


async def test_filtering_100000_questions_by_search_is_one_expression(big_comparison):
    app = host_app(lambda: FailureListScreen(big_comparison, status="all"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"q09999")
        wanted = [f"q09999{d}" for d in range(10)]
        # From 20,000 questions the index is built in a worker: the filter applies once it is built.
        await poll_until(pilot, lambda: sorted(_listed(app)) == wanted)
        assert sorted(_listed(app)) == wanted


# ---- through the real app ----------------------------------------------------------------


async def test_from_the_dashboard_to_a_regressed_procedural_question_its_cause_its_verdicts_and_back(tmp_path):
    from ragtui.core.session import Inputs
    from ragtui.ui.app import RagtuiApp
    from ragtui.ui.screens.dashboard import DashboardScreen
    from ragtui.ui.screens.verdicts import VerdictScreen
    from tests.ui.conftest import wait_until_loaded
    from tests.ui.triage_data import write_triage_runs

    paths = write_triage_runs(tmp_path / "e2e")
    app = RagtuiApp(Session(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"])))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("r")  # the dashboard's "regressed" key
        await pilot.pause()
        assert isinstance(app.screen, FailureListScreen)
        assert _listed(app) == ["fact-03", "proc-01", "proc-02", "none-01"]
        await pilot.press("c", "c")  # category: Procedural
        assert _listed(app) == ["proc-01", "proc-02"]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        header = str(app.screen.query_one("#question-header").render())
        assert header.startswith("proc-01 · Procedural · ▼ regressed — cause: retrieval")
        assert "gold p_teletravail_042 fell out of the top 5 (rank 1 → rank 7)" in header
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, VerdictScreen) and app.screen.side == "B"
        assert any("Verdicts · proc-01 · side B" in line for line in screen_lines(app))
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FailureListScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_the_bundled_sample_leads_from_a_regressed_procedural_question_to_its_verdicts(sample):
    from ragtui.ui.app import RagtuiApp
    from ragtui.ui.screens.dashboard import DashboardScreen
    from ragtui.ui.screens.verdicts import VerdictScreen
    from tests.ui.conftest import wait_until_loaded

    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("r")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FailureListScreen)
        for _ in range(len(screen.rows.categories) + 1):
            if screen.rows.filter.category == "procedurale":
                break
            await pilot.press("c")
        assert _listed(app), "the sample has regressed procedural questions"
        first = _listed(app)[0]
        await pilot.press("enter")
        await pilot.pause()
        header = str(app.screen.query_one("#question-header").render())
        assert header.startswith(f"{first} · Procedural · ▼ regressed — cause: ")
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, VerdictScreen) and app.screen.question_id == first
        await pilot.press("escape", "escape", "escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
