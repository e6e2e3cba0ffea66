"""The question view: gold data, A/B sides, verdicts, sentence focus, stepping, re-judge."""

from __future__ import annotations

from textual.widgets import Static

from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from ragtui.ui.widgets.failure_table import FailureTable
from ragtui.ui.widgets.question_side import QuestionSide
from tests.ui.triage_data import PROC02_REASON_2_B, host_app, screen_lines, triage_comparison

WIDE, NARROW = (160, 50), (80, 24)


def _header(app) -> str:
    return str(app.screen.query_one("#question-header", Static).render())


def _side(app, side: str) -> QuestionSide:
    return app.screen.query_one(f"#side-{side}", QuestionSide)


def _part(app, side: str, part: str) -> str:
    return str(_side(app, side).query_one(f".side-{part}", Static).render())


def _open(comparison, ids: list[str], index: int = 0):
    return host_app(lambda: QuestionScreen(comparison, ids, index))


async def test_the_header_shows_question_expected_answer_and_gold_ids(triage):
    async with _open(triage, ["proc-01"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        header = _header(pilot.app)
        assert header.startswith("proc-01 · Procedural · ▼ regressed")
        assert "Comment demander un jour de teletravail ?" in header
        assert "Par le portail RH, 48 h avant." in header
        assert "★ p_teletravail_042" in header


async def test_a_regression_shows_its_cause_and_what_changed_between_a_and_b(triage):
    async with _open(triage, ["proc-01", "proc-02"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        header = _header(pilot.app)
        assert "cause: retrieval" in header
        assert "▼ gold p_teletravail_042 fell out of the top 5 (rank 1 → rank 7)" in header
        await pilot.press("n")
        header = _header(pilot.app)
        assert "cause: generation (same passages)" in header
        assert "▼ sentence 2 became unsupported" in header


async def test_a_wide_terminal_shows_a_and_b_side_by_side(triage):
    async with _open(triage, ["proc-01"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        a, b = _side(pilot.app, "A"), _side(pilot.app, "B")
        assert a.display and b.display
        assert a.region.x < b.region.x and a.region.y == b.region.y
        assert "gold p_teletravail_042 at rank 1" in _part(pilot.app, "A", "passages")
        assert "gold p_teletravail_042 at rank 7 — outside the top 5" in _part(pilot.app, "B", "passages")
        assert b.has_class("-active") and not a.has_class("-active")  # the candidate first


async def test_a_narrow_terminal_shows_one_side_b_first_and_t_or_tab_switches_it(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.pause()
        app = pilot.app
        assert _side(app, "B").display and not _side(app, "A").display
        tabs = str(app.screen.query_one("#question-tabs", Static).render())
        assert "▶ B · candidate" in tabs
        assert any("at rank 7 — outside the top 5" in line for line in screen_lines(app))
        await pilot.press("t")
        await pilot.pause()
        assert _side(app, "A").display and not _side(app, "B").display
        assert str(app.screen.query_one("#question-tabs", Static).render()).startswith("▶ A · baseline")
        assert any("gold p_teletravail_042 at rank 1" in line for line in screen_lines(app))
        await pilot.press("tab")
        await pilot.pause()
        assert _side(app, "B").display and not _side(app, "A").display


async def test_gold_passages_are_starred_and_passages_beyond_k_are_marked_and_dimmed(triage):
    async with _open(triage, ["proc-01"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        passages = _part(pilot.app, "B", "passages").splitlines()
        gold = next(line for line in passages[1:] if "p_teletravail_042" in line)
        assert gold.startswith("★  7")
        assert any("beyond the top 5: not sent to the generator" in line for line in passages)
        beyond = [line for line in passages if line.startswith("┆  ")]
        assert [line.split()[1] for line in beyond] == ["6"]  # k + 2 and the gold one
        assert passages[-1] == "┆ 1 more passage(s) not shown — a: show all"
        content = _side(pilot.app, "B").query_one(".side-passages", Static).render()
        assert any("dim" in str(span.style) for span in content.spans)
        await pilot.press("a")
        passages = _part(pilot.app, "B", "passages").splitlines()
        assert [line.split()[1] for line in passages if line.startswith("┆  ")] == ["6", "8"]


async def test_sentences_carry_their_verdict_symbol(triage):
    async with _open(triage, ["proc-02"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        answer_b = _part(pilot.app, "B", "answer")
        assert "  ✓ 1. Reponse a proc-02, premiere phrase." in answer_b
        assert "› ✗ 2. Deuxieme phrase pour proc-02." in answer_b  # the unsupported one has focus
        assert "1 of 2 sentences attested" in answer_b
        assert "Utility 3/5 — one unsupported addition" in answer_b


async def test_the_first_unsupported_sentence_has_focus_and_j_k_move_it_showing_the_reason(triage):
    async with _open(triage, ["proc-02"]).run_test(size=NARROW) as pilot:
        await pilot.pause()
        app = pilot.app
        detail = _part(app, "B", "detail")
        assert detail.startswith("sentence 2 of 2 ✗ not attested")
        assert PROC02_REASON_2_B in detail
        assert "evidence: none cited" in detail
        await pilot.pause()
        assert any("the passage says renewable once" in line for line in screen_lines(app))
        await pilot.press("k")
        detail = _part(app, "B", "detail")
        assert detail.startswith("sentence 1 of 2 ✓ attested — reason: explicit in the passage")
        assert "evidence: p_essai_010 (rank 1, ★ gold)" in detail
        await pilot.press("k")  # stays on the first sentence
        assert _part(app, "B", "detail").startswith("sentence 1 of 2")
        await pilot.press("j", "j")  # and on the last
        assert _part(app, "B", "detail").startswith("sentence 2 of 2")
        await pilot.press("t")  # A's answer is all supported: its focus starts at sentence 1
        assert _part(app, "A", "detail").startswith("sentence 1 of 2 ✓ attested")


async def test_n_and_p_step_through_the_list_in_place(triage):
    ids = ["proc-01", "proc-02", "fact-03"]
    async with _open(triage, ids).run_test(size=NARROW) as pilot:
        await pilot.pause()
        app = pilot.app
        screen, depth = app.screen, len(app.screen_stack)
        await pilot.press("n")
        assert app.screen is screen and len(app.screen_stack) == depth  # redrawn, not pushed
        assert _header(app).startswith("proc-02 ·") and "2 of 3" in _header(app)
        await pilot.press("n")
        assert _header(app).startswith("fact-03 ·")
        await pilot.press("n")  # the end of the list: stays
        assert _header(app).startswith("fact-03 ·")
        await pilot.press("p", "p")
        assert _header(app).startswith("proc-01 ·") and "1 of 3" in _header(app)


async def test_the_judge_error_and_the_abstention_are_shown(triage):
    async with _open(triage, ["fact-03", "none-01"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        answer_b = _part(pilot.app, "B", "answer")
        assert "⚠ judge error: timeout after 60 s" in answer_b
        assert "? " in answer_b and "(not judged)" in answer_b  # never shown as attested
        await pilot.press("n")
        assert "⊘ abstained" in _part(pilot.app, "A", "answer")
        assert "⊘ abstained" not in _part(pilot.app, "B", "answer")
        assert "▲ B answered where A abstained" in _header(pilot.app) or "B answered where A abstained" in _header(pilot.app)


async def test_esc_returns_to_the_list_with_the_cursor_on_the_last_question_seen(triage):
    app = host_app(lambda: FailureListScreen(triage, status="regressed"))
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        assert isinstance(app.screen, QuestionScreen) and app.screen.question_id == "fact-03"
        await pilot.press("n", "n")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, FailureListScreen)
        assert app.screen.query_one(FailureTable).current_id == "proc-02"


async def test_v_opens_the_verdict_inspector_on_the_active_side(triage):
    async with _open(triage, ["proc-02"]).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("j", "v")
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, VerdictScreen)
        assert (screen.question_id, screen.side, screen.sentence) == ("proc-02", "B", 1)


async def test_a_single_run_has_one_side_and_no_switch(tmp_path):
    single = triage_comparison(tmp_path / "single", single=True)
    async with _open(single, ["fact-02"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        assert not pilot.app.screen.query("#side-B")
        assert "A→B" not in _header(pilot.app)
        await pilot.press("t")  # nothing to switch to, nothing breaks
        assert pilot.app.screen.side == "A"


async def test_J_without_a_configured_judge_says_how_to_configure_one(triage):
    async with _open(triage, ["proc-02"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        await pilot.press("J")
        await pilot.pause()
        messages = [message for message, _ in pilot.app.toasts]
        assert any("No judge configured" in m and "provider: lexical" in m for m in messages)


async def test_J_rejudges_with_the_lexical_judge_and_shows_the_new_verdict_beside_the_old(tmp_path):
    comparison = triage_comparison(tmp_path / "lexical", judge_provider="lexical")
    async with _open(comparison, ["proc-02"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        await pilot.press("J")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        panel = _side(pilot.app, "B").query_one(".side-rejudge", Static)
        assert panel.display
        text = str(panel.render())
        assert text.startswith("Re-judged by ")
        assert "old ✓ → new" in text  # sentence 1 was attested by the original judge
        assert "old ✗ → new" in text  # sentence 2 was not
        assert not _side(pilot.app, "A").query_one(".side-rejudge", Static).display


async def test_without_colour_every_state_still_reads_from_symbols(triage, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    async with _open(triage, ["proc-02"]).run_test(size=NARROW) as pilot:
        await pilot.pause()
        assert pilot.app.no_color
        # On a busy machine the answer may be drawn a few frames after the header.
        for _ in range(100):
            text = "\n".join(screen_lines(pilot.app))
            if "› ✗ 2." in text:
                break
            await pilot.pause(0.05)
        assert "▼ regressed" in text  # status
        assert "▶ B · candidate" in text  # the side on show
        assert "▼ sentence 2 became unsupported" in text  # what got worse
        assert "  ✓ 1." in text and "› ✗ 2." in text  # verdicts and the focused sentence
        assert "★ p_essai_010" in text  # the gold passage


async def test_a_run_file_changed_under_the_app_says_so_on_a_texts_line_instead_of_showing_other_texts(triage):
    from ragtui.core.loading.line_texts import LineTexts

    assert isinstance(triage.b.run.texts, LineTexts)  # B's texts are read from its file
    async with _open(triage, ["proc-01", "proc-02"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        assert "Texts" not in _header(pilot.app)
        with triage.b.run.path.open("a", encoding="utf-8") as handle:  # rewritten by another tool
            handle.write("\n")
        await pilot.press("n")
        await pilot.pause()
        header = _header(pilot.app)
        assert "B: the texts of this run cannot be read again" in header and "changed since it was opened" in header
        assert "A: " not in header.split("Texts", 1)[1].split("\n", 1)[0]  # A's file is untouched: its texts are shown


async def test_the_texts_line_shows_a_hostile_run_path_inert(tmp_path):
    comparison = triage_comparison(tmp_path / "runs\x1b[2J\x07[b]bold[/b]")
    async with _open(comparison, ["proc-01", "proc-02"]).run_test(size=WIDE) as pilot:
        await pilot.pause()
        with comparison.b.run.path.open("a", encoding="utf-8") as handle:
            handle.write("\n")
        await pilot.press("n")
        await pilot.pause()
        header = _header(pilot.app)
        assert "cannot be read again" in header
        assert "\x1b" not in header and "\x07" not in header and "[b]bold[/b]" in header  # controls shown, markup kept as text


async def test_at_80x24_the_answer_and_its_verdicts_come_first_on_screen_and_the_passages_after(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:  # a retrieval regression: nothing scrolls to the answer
        await pilot.pause()
        await pilot.pause()
        side = _side(pilot.app, "B")
        answer = side.query_one(".side-answer", Static)
        passages = side.query_one(".side-passages", Static)
        assert answer.region.y < passages.region.y
        lines = screen_lines(pilot.app)
        first_sentence = next(i for i, line in enumerate(lines) if "1. " in line and ("✓" in line or "✗" in line or "?" in line))
        assert first_sentence < 24 - 2  # on screen, above the footer and the label bar
