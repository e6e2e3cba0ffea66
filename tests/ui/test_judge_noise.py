"""Judge noise in the app: the unstable-verdict mark (question view, failure list), each
repetition's verdict in the inspector, the flip rate on the calibration screen.

Run B of the fixture is given two more repetitions (as `ragtui judge --repeat 3` writes
them) that agree with its verdicts, except on regressed question p1: the second
repetition calls its last sentence not attested, the third scores it 3 instead of 2.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest
from textual.widgets import Static

from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.content.failure_lines import question_line
from ragtui.ui.models.session import Session
from ragtui.ui.screens.calibration import CalibrationScreen
from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from ragtui.ui.widgets.failure_table import FailureTable
from tests.ui.conftest import text_of, wait_until_loaded

FLIPPING = "p1"


def _repeated(judge: dict, flip_sentence: bool, score: int | None) -> dict:
    sentences = [{"attested": s["attested"]} for s in (judge.get("faithfulness") or {}).get("sentences") or []]
    if flip_sentence and sentences:
        sentences[-1]["attested"] = not sentences[-1]["attested"]
    utility = judge.get("utility")
    given = None if utility is None else {"score": score if score is not None else utility.get("score")}
    return {"faithfulness": {"sentences": sentences}, "utility": given, "error": None}


def add_repeats(path: Path) -> None:
    """Rewrite run B as if judged three times."""
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        judge = record.get("judge")
        if "run" in record:
            record["run"]["judge_repeats"] = 3
        elif judge and not judge.get("error") and judge.get("faithfulness") is not None:
            flips = record["id"] == FLIPPING
            judge["repeats"] = [_repeated(judge, flips, None), _repeated(judge, False, 3 if flips else None)]
        lines.append(json.dumps(record, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def repeated(fixture_paths) -> Inputs:
    add_repeats(fixture_paths["b"])
    p = fixture_paths
    return Inputs(a=p["a"], b=p["b"], gold=p["gold"], config=p["config"])


async def test_the_question_view_marks_an_unstable_verdict_and_says_what_flipped(repeated):
    async with RagtuiApp(Session(repeated)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        pilot.app.push_screen(QuestionScreen(pilot.app.comparison, [FLIPPING, "p2"], 0))
        await pilot.pause()
        shown = text_of(pilot.app.screen)
        assert "↕ unstable verdict — B: 1 of 2 sentences flip, utility 2 · 2 · 3 over 3 repetitions" in shown
        await pilot.press("n")  # p2: the same verdicts every time, no mark
        await pilot.pause()
        assert "unstable verdict" not in text_of(pilot.app.screen)


async def test_the_failure_list_marks_the_questions_whose_verdicts_flip(repeated):
    async with RagtuiApp(Session(repeated)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("f")
        await pilot.pause()
        assert isinstance(pilot.app.screen, FailureListScreen)
        table = pilot.app.screen.query_one(FailureTable)
        rows = {table.rows.row(i)["id"]: i for i in range(table.rows.row_count)}
        line = partial(question_line, pilot.app, table.rows, cols=table.columns(80), width=80, is_cursor=False)
        marked = {qid: "↕" in line(index).plain for qid, index in rows.items()}
        assert marked.pop(FLIPPING) is True
        assert not any(marked.values()), marked
        table.cursor = rows[FLIPPING]
        await pilot.pause()
        detail = str(pilot.app.screen.query_one("#failures-detail", Static).render())
        assert detail.startswith("p1 ▼ regressed · ↕ unstable verdict · cause: retrieval")


async def test_the_inspector_shows_each_repetitions_verdict_and_the_flip(repeated):
    async with RagtuiApp(Session(repeated)).run_test(size=(80, 40)) as pilot:
        await wait_until_loaded(pilot)
        pilot.app.push_screen(VerdictScreen(pilot.app.comparison, FLIPPING, "B"))
        await pilot.pause()
        await pilot.pause()
        sentences = [str(w.render()) for w in pilot.app.screen.query(".verdict-sentence").results(Static)]
        assert "repeats ✓ ✓ ✓ — the same in 3 repetitions" in sentences[0]
        assert "repeats ✓ ✗ ✓ — ↕ flipped: attested in 2 of 3 repetitions" in sentences[1]
        utility = str(pilot.app.screen.query_one(".verdict-utility", Static).render())
        assert "repeats 2 · 2 · 3 — ↕ the score changed" in utility


async def test_the_calibration_screen_gives_each_runs_flip_rate(repeated):
    async with RagtuiApp(Session(repeated)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("C")
        await pilot.pause()
        assert isinstance(pilot.app.screen, CalibrationScreen)
        b = str(pilot.app.screen.query_one("#calibration-B", Static).render())
        a = str(pilot.app.screen.query_one("#calibration-A", Static).render())
        # B: 8 answers with sentence verdicts, 16 sentences, one flips; 8 scores, one flips.
        assert "judge noise ↕ 3 repetitions of 8 answers: faithfulness 6.2% flip (1 of 16 sentences); utility 12.5% flip (1 of 8 scores); 1 unstable verdict" in b
        assert "judge noise: judged once" in a


def test_inspector_of_an_unstable_verdict_at_80x24_snapshot(snap_compare, repeated):
    app = RagtuiApp(Session(repeated))

    async def open_inspector(pilot):
        await wait_until_loaded(pilot)
        pilot.app.push_screen(VerdictScreen(pilot.app.comparison, FLIPPING, "B"))
        await pilot.pause()
        await pilot.press("j")  # the sentence that flipped
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_inspector)


def test_failure_list_with_an_unstable_verdict_at_80x24_snapshot(snap_compare, repeated, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")  # the mark reads without colour
    app = RagtuiApp(Session(repeated))

    async def open_list(pilot):
        await wait_until_loaded(pilot)
        await pilot.press("f")
        await pilot.pause()
        await pilot.press("down", "down", "down")  # p1: its detail line says why it is marked
        await pilot.pause()

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_list)
