"""The triage keys of the failure list: marks shown and filtered, sort, export, jump, search."""

from __future__ import annotations

import json

from ragtui.core.triage.notes import Notes
from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.widgets.failure_table import FailureTable
from tests.ui.conftest import HeldWork, poll_until
from tests.ui.triage_data import host_app, screen_lines, triage_comparison

NARROW = (80, 24)


def _listed(app) -> list[str]:
    return app.screen.query_one(FailureTable).rows.ids()


def _filters(app) -> str:
    return str(app.screen.query_one("#failures-filters").render())


def _notes(comparison) -> Notes:
    return Notes.load(comparison.b.run.path.with_name("b.notes.jsonl"))


async def test_a_mark_shows_as_its_letter_in_the_row_and_in_the_detail_line(triage):
    _notes(triage).set("proc-02", "bug", "invents a written form")
    async with host_app(lambda: FailureListScreen(triage)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        row = next(line for line in screen_lines(pilot.app) if "proc-02" in line)
        assert "▼b proc-02" in row
        await pilot.press("down", "down", "down")
        detail = str(pilot.app.screen.query_one("#failures-detail").render())
        assert detail.startswith("proc-02") and "[bug] invents a written form" in detail


async def test_marking_from_the_list_shows_at_once_and_m_filters_on_marks(triage):
    async with host_app(lambda: FailureListScreen(triage)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("m", "o", "enter")  # fact-03 (first row): ok, no note
        await pilot.pause()
        assert "▼o fact-03" in next(line for line in screen_lines(pilot.app) if "fact-03" in line)
        await pilot.press("M")  # marked
        assert _listed(pilot.app) == ["fact-03"] and "M marked" in _filters(pilot.app)
        await pilot.press("M")  # ok
        assert _listed(pilot.app) == ["fact-03"]
        await pilot.press("M")  # bug: none
        assert _listed(pilot.app) == []
        await pilot.press("x")
        assert len(_listed(pilot.app)) == 6
    assert _notes(triage).get("fact-03").mark == "ok"


async def test_marks_from_a_previous_session_filter_the_list(triage):
    notes = _notes(triage)
    notes.set("none-02", "gold_wrong")
    notes.set("proc-01", "flaky")
    async with host_app(lambda: FailureListScreen(triage)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        for _ in range(6):  # from any mark: marked, ok, bug, gold wrong, flaky, unmarked
            await pilot.press("M")
        assert "proc-01" not in _listed(pilot.app) and "none-02" not in _listed(pilot.app)
        assert len(_listed(pilot.app)) == 4


async def test_right_bracket_sorts_by_id_then_cause_then_utility_drop_then_gold_fall(triage):
    async with host_app(lambda: FailureListScreen(triage)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("right_square_bracket")
        assert _listed(pilot.app) == ["fact-02", "fact-03", "none-01", "none-02", "proc-01", "proc-02"]
        assert any("all categories · sorted by id" in line for line in screen_lines(pilot.app))
        # cause, in the order the reports list them: retrieval, generation (same passages),
        # generation, judge error in B (fact-03: not the system's fault), then no cause
        await pilot.press("right_square_bracket")
        assert _listed(pilot.app) == ["proc-01", "proc-02", "none-01", "fact-03", "fact-02", "none-02"]
        await pilot.press("right_square_bracket")  # Δ utility: proc-02 lost 2 points (5 → 3), the largest drop
        assert _listed(pilot.app)[0] == "proc-02"
        await pilot.press("right_square_bracket")  # gold rank change: proc-01 fell from 1 to 7
        assert _listed(pilot.app)[0] == "proc-01"
        assert "by gold rank change" in _filters(pilot.app)
        await pilot.press("left_square_bracket", "left_square_bracket", "left_square_bracket", "left_square_bracket")
        assert _listed(pilot.app) == ["fact-03", "fact-02", "proc-01", "proc-02", "none-01", "none-02"]


async def test_x_exports_the_marked_questions_as_markdown_beside_the_notes(triage):
    notes = _notes(triage)
    notes.set("proc-02", "bug", "invents | a written <form>")
    async with host_app(lambda: FailureListScreen(triage)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("X", "m")
        await pilot.pause()
    out = triage.b.run.path.with_name("b.triage.md")
    text = out.read_text(encoding="utf-8")
    assert text.startswith("### ragtui triage: 1 marked question (`baseline` → `candidate`)")
    assert "| `proc-02` | `procedurale` | ▼ regressed | generation (same passages) | bug | `invents \\| a written <form>` |" in text


async def test_x_with_no_mark_exports_the_listed_questions_as_jsonl(triage):
    async with host_app(lambda: FailureListScreen(triage, status="regressed")).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("X", "j")
        await pilot.pause()
    rows = [json.loads(line) for line in triage.b.run.path.with_name("b.triage.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["id"] for r in rows] == ["fact-03", "proc-01", "proc-02", "none-01"]
    assert rows[1]["cause"] == "retrieval" and rows[1]["failures_b"] == ["retrieval_miss"] and rows[1]["mark"] is None


async def test_x_on_a_long_list_writes_in_a_worker_and_the_list_answers_meanwhile(triage, monkeypatch):
    # A whole failure list of 100,000 takes about 2 s to render: past EXPORTED_AT_ONCE the
    # file is written in a worker (held here), the list answers, and the toast says when.
    from ragtui.core.triage import export
    from ragtui.ui.screens import triage as triage_screen

    monkeypatch.setattr(triage_screen, "EXPORTED_AT_ONCE", 0)  # every export counts as long
    held = HeldWork()
    render = export.render_export

    def held_render(*args, **kwargs):
        held.calls.append(args[1])
        if not held.hold():
            raise OSError("the app quit with the export held")
        return render(*args, **kwargs)

    monkeypatch.setattr(export, "render_export", held_render)
    out = triage.b.run.path.with_name("b.triage.jsonl")
    app = host_app(lambda: FailureListScreen(triage, status="regressed"))
    async with app.run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("X", "j")
        assert any(message.startswith("exporting 4 listed questions to") for message, _ in app.toasts)
        await poll_until(pilot, held.started.is_set)
        cursor = pilot.app.screen.table.cursor
        await pilot.press("down")  # the list answers while the file is written
        assert pilot.app.screen.table.cursor == cursor + 1 and not out.exists()
        held.release.set()
        await poll_until(pilot, lambda: any(message.startswith("exported 4 listed") for message, _ in app.toasts))
    assert [json.loads(line)["id"] for line in out.read_text(encoding="utf-8").splitlines()] == ["fact-03", "proc-01", "proc-02", "none-01"]


async def test_colon_from_the_list_opens_any_question(triage):
    async with host_app(lambda: FailureListScreen(triage)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("colon", *"fact-01", "enter")
        await pilot.pause()
        assert isinstance(pilot.app.screen, QuestionScreen) and pilot.app.screen.question_id == "fact-01"


async def test_the_list_search_reaches_judge_reasons_without_accents(triage):
    async with host_app(lambda: FailureListScreen(triage, status="all")).run_test(size=NARROW) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"WRITTEN FÔRM")
        assert _listed(pilot.app) == ["proc-02"]


async def test_the_single_run_list_header_keeps_kinds_and_question_apart(tmp_path):
    single = triage_comparison(tmp_path / "one", single=True)
    async with host_app(lambda: FailureListScreen(single)).run_test(size=NARROW) as pilot:
        await pilot.pause()
        header = screen_lines(pilot.app)[2]
        assert "kindsquestion" not in header and "kinds question" in header
