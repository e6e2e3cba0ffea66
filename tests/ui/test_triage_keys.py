"""The triage keys of the question view: diff, marks, copy, pager, editor, jump, search, full text."""

from __future__ import annotations

import json
import sys
from contextlib import nullcontext

from textual.widgets import Static

from ragtui.core.triage.notes import Notes
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.triage_data import host_app

NARROW, WIDE = (80, 24), (160, 50)


def _open(comparison, ids, index=0):
    return host_app(lambda: QuestionScreen(comparison, ids, index))


def _header(app) -> str:
    return str(app.screen.query_one("#question-header", Static).render())


def _diff(app) -> str:
    return str(app.screen.query_one("#question-diff-body", Static).render())


def _notes_path(comparison):
    return comparison.b.run.path.with_name("b.notes.jsonl")


async def test_d_shows_the_rank_diff_with_the_gold_passage_leaving_the_top_k(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("d")
        await pilot.pause()
        assert pilot.app.screen.has_class("-diff")
        text = _diff(pilot.app)
        assert "★ p_teletravail_042" in text
        line = next(line for line in text.splitlines() if "p_teletravail_042" in line)
        assert "1 → 7" in line and "− left the top 5" in line
        entered = next(line for line in text.splitlines() if "p_proc-01_n4" in line)
        assert "6 → 5" in entered and "+ entered the top 5" in entered
        await pilot.press("d")
        assert not pilot.app.screen.has_class("-diff")


async def test_d_shows_the_answer_diff_with_symbols_that_read_without_colour(triage):
    async with _open(triage, ["none-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("d")
        await pilot.pause()
        text = _diff(pilot.app)
        assert "[-Je ne trouve pas cette information-]" in text
        assert "{+Reponse a none-01, premiere phrase. Deuxieme phrase pour none-01+}" in text
        await pilot.press("escape")  # Esc closes the diff first, not the screen
        assert not pilot.app.screen.has_class("-diff") and isinstance(pilot.app.screen, QuestionScreen)


async def test_an_identical_answer_says_so_in_the_diff(triage):
    async with _open(triage, ["fact-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("d")
        await pilot.pause()
        assert "the same answer, word for word" in _diff(pilot.app)


async def test_m_then_a_letter_and_a_note_marks_the_question_in_the_sidecar_and_the_header(triage):
    async with _open(triage, ["proc-01", "proc-02"]).run_test(size=NARROW) as pilot:
        await pilot.press("m")
        await pilot.pause()
        await pilot.press("g")  # gold wrong, then the note
        await pilot.press(*"rank 7 ok", "enter")
        await pilot.pause()
        assert "Mark     [gold wrong] rank 7 ok" in _header(pilot.app)
        lines = _notes_path(triage).read_text(encoding="utf-8").splitlines()
        assert [json.loads(line)["mark"] for line in lines] == ["gold_wrong"]
        assert json.loads(lines[0])["note"] == "rank 7 ok" and json.loads(lines[0])["id"] == "proc-01"
        await pilot.press("n")
        assert "Mark" not in _header(pilot.app)


async def test_marks_made_earlier_show_when_the_view_opens_and_x_removes_one(triage):
    Notes.load(_notes_path(triage)).set("proc-01", "flaky", "passes one run in two")
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.pause()
        assert "[flaky] passes one run in two" in _header(pilot.app)
        await pilot.press("m", "x")
        await pilot.pause()
        assert "[flaky]" not in _header(pilot.app)
    assert Notes.load(_notes_path(triage)).get("proc-01") is None


async def test_escape_in_the_mark_menu_writes_nothing(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("m", "b", "escape")
        await pilot.pause()
        assert isinstance(pilot.app.screen, QuestionScreen)
    assert not _notes_path(triage).exists()


async def test_y_copies_the_chosen_text_and_says_where_it_went(triage, toasts):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("y", "a")
        await pilot.pause()
        assert pilot.app.clipboard == "Reponse a proc-01, premiere phrase. Deuxieme phrase pour proc-01."
        assert any("clipboard with OSC 52" in message for message in toasts)
        await pilot.press("y", "c")
        assert pilot.app.clipboard.startswith("ragtui ") and pilot.app.clipboard.endswith("--question proc-01")
        assert str(triage.b.run.path) in pilot.app.clipboard
        await pilot.press("y", "r")
        record = json.loads(pilot.app.clipboard)
        assert record["id"] == "proc-01" and record["judge"]["model"] == "gpt-4.1"


async def test_y_on_side_a_copies_a_s_passages_in_full(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("t", "y", "p")
        assert pilot.app.clipboard.startswith("#1 p_teletravail_042 (0.93)\nArticle de reference pour proc-01")


async def test_o_hands_the_text_to_the_pager_and_comes_back_to_the_same_question(triage, tmp_path, monkeypatch, toasts):
    seen = tmp_path / "seen.txt"
    pager = tmp_path / "pager.py"
    pager.write_text(f"import shutil, sys\nshutil.copy(sys.argv[1], {str(seen)!r})\n", encoding="utf-8")
    monkeypatch.setenv("PAGER", f"{sys.executable} {pager}")
    app = _open(triage, ["proc-01", "proc-02"])
    async with app.run_test(size=NARROW) as pilot:
        monkeypatch.setattr(type(pilot.app), "suspend", lambda self: nullcontext())  # headless: no terminal to give
        await pilot.press("n", "o", "t")  # t: the question's text
        await pilot.pause()
        assert seen.read_text(encoding="utf-8") == "Comment renouveler une periode d'essai ?\n"
        assert pilot.app.screen.question_id == "proc-02"
        assert any("back from $PAGER" in message for message in toasts)


async def test_e_opens_a_read_only_copy_in_the_editor(triage, tmp_path, monkeypatch):
    seen = tmp_path / "mode.txt"
    editor = tmp_path / "editor.py"
    editor.write_text(f"import os, sys\nopen({str(seen)!r}, 'w').write(oct(os.stat(sys.argv[1]).st_mode & 0o777))\n", encoding="utf-8")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {editor}")
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        monkeypatch.setattr(type(pilot.app), "suspend", lambda self: nullcontext())
        await pilot.press("e", "a")
        await pilot.pause()
    assert seen.read_text() == "0o400"


async def test_colon_jumps_to_a_passing_question_outside_the_list(triage):
    async with _open(triage, ["proc-01", "proc-02"]).run_test(size=NARROW) as pilot:
        await pilot.press("colon", *"contra-01", "enter")
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.question_id == "contra-01"
        assert screen.question_ids == ["proc-01", "contra-01", "proc-02"]
        assert _header(pilot.app).startswith("contra-01 · Known contradiction · ✓ passing")


async def test_colon_with_an_unknown_id_says_so_and_stays(triage, toasts):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("colon", *"nope", "enter")
        await pilot.pause()
        assert pilot.app.screen.question_id == "proc-01"
        assert any("no question 'nope'" in message for message in toasts)


async def test_slash_finds_an_accented_term_and_n_and_shift_n_step_the_matches(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("slash", *"PÉRIODE", "enter")  # matches "periode" (proc-02) only
        await pilot.pause()
        assert pilot.app.screen.question_id == "proc-02"
        assert "Search   “PÉRIODE” · match 1 of 1" in _header(pilot.app)
        await pilot.press("slash", "ctrl+u", *"deuxieme phrase", "enter")  # every answer but none-01 A
        await pilot.pause()
        first = pilot.app.screen.question_id
        await pilot.press("n")
        second = pilot.app.screen.question_id
        assert second != first
        await pilot.press("N")
        assert pilot.app.screen.question_id == first
        await pilot.press("escape")  # ends the search: n steps the list again
        assert "Search" not in _header(pilot.app)
        assert isinstance(pilot.app.screen, QuestionScreen)


async def test_a_large_comparisons_first_search_waits_for_its_index_built_in_a_worker(triage, held_index_build, monkeypatch):
    toasts: list[str] = []
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        monkeypatch.setattr(pilot.app.screen, "say", lambda message, **kwargs: toasts.append(message))
        await pilot.press("slash", *"PÉRIODE", "enter")
        await pilot.pause()
        assert pilot.app.screen.question_id == "proc-01"  # not yet: the index is building
        assert toasts == ["indexing the texts for the search… (the first search of a large comparison)"]
        held_index_build.set()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert pilot.app.screen.question_id == "proc-02"
        assert "Search   “PÉRIODE” · match 1 of 1" in _header(pilot.app)


async def test_space_expands_the_passages_to_their_full_text_in_place(triage):
    async with _open(triage, ["proc-01"]).run_test(size=(60, 40)) as pilot:
        side = pilot.app.screen.query_one("#side-B")
        passages = lambda: str(side.query_one(".side-passages", Static).render())  # noqa: E731
        assert "du reglement interieur." not in passages()  # one cut line each at 60 columns
        await pilot.press("space")
        await pilot.pause()
        assert "Passage sans rapport numero 0 du reglement\n" in passages() or "du reglement interieur." in passages()
        assert "interieur." in passages()
        await pilot.press("space")
        assert "interieur." not in passages()


async def test_search_shows_the_match_reversed_names_the_field_it_is_in_and_keeps_its_n_of_m(triage):
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("slash", *"DEUXIÈME phrase", "enter")  # every answer but none-01 A
        await pilot.pause()
        screen = pilot.app.screen
        total = len(screen.matches.ids)
        assert total > 3
        start = screen.matches.ids.index("proc-01")  # the question on screen matches: the search starts there
        for shift in range(3):
            step = (start + shift) % total + 1
            header = _header(pilot.app)
            first_line = header.splitlines()[0]
            assert first_line.endswith(f" · {step} of {total}")  # the counter does not grow while stepping
            assert f"match {step} of {total} · in " in header and "'s answer" in header
            answer = screen.query_one(f"#side-{screen.side} .side-answer", Static).render()
            found = [answer.plain[span.start : span.end] for span in answer.spans if str(span.style) == "reverse"]
            assert found and all(text.lower() == "deuxieme phrase" for text in found)
            await pilot.press("n")
            await pilot.pause()
        await pilot.press("escape")  # the search ends: the list it was opened with, the question shown now in it
        await pilot.pause()
        assert "Search" not in _header(pilot.app) and screen.question_id in screen.question_ids


async def test_a_search_the_question_on_screen_matches_stays_on_it(triage):
    ids = ["fact-01", "fact-02", "proc-01", "proc-02"]
    async with _open(triage, ids, 3).run_test(size=NARROW) as pilot:
        await pilot.press("slash", *"deuxieme phrase", "enter")  # every answer but none-01 A: proc-02's too
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.question_id == "proc-02"
        assert f"match {screen.matches.ids.index('proc-02') + 1} of {len(screen.matches.ids)}" in _header(pilot.app)
        await pilot.press("escape")
        assert screen.question_ids == ids and screen.question_id == "proc-02"
