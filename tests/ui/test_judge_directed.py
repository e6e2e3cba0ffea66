"""Questions whose answer or passages address the judge say so in the question view and
the verdict inspector; the judge's own injection report shows in the inspector."""

from __future__ import annotations

import json
from pathlib import Path

from textual.widgets import Static

from ragtui.core.loading.inputs import Inputs
from ragtui.core.session import load_comparison
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from tests.judge.hostile_texts import HOSTILE_ANSWERS, HOSTILE_PASSAGES
from tests.ui.triage_data import host_app, screen_lines

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
WIDE = (160, 50)


def _comparison(tmp_path: Path):
    """The sample with a hostile answer in B's q001 (its judge reported it) and a hostile passage in A's q002."""
    def rewrite(name: str, change) -> Path:
        lines = []
        for line in (SAMPLE / name).read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            change(record)
            lines.append(json.dumps(record, ensure_ascii=False))
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def hostile_answer(record):
        if record.get("id") == "q001":
            record["answer"] = HOSTILE_ANSWERS["fr_note_au_juge"]
            record["judge"]["injection"] = True

    def hostile_passage(record):
        if record.get("id") == "q002":
            record["retrieved"][0]["text"] = HOSTILE_PASSAGES["fr_passage_system"]

    a, b = rewrite("baseline.jsonl", hostile_passage), rewrite("candidate.jsonl", hostile_answer)
    return load_comparison(Inputs(a=a, b=b, gold=SAMPLE / "gold.yaml"))


async def test_the_question_view_marks_the_side_whose_answer_addresses_the_judge(tmp_path):
    comparison = _comparison(tmp_path)
    async with host_app(lambda: QuestionScreen(comparison, ["q001", "q002", "q003"], 0)).run_test(size=WIDE) as pilot:
        await pilot.pause()
        text = "\n".join(screen_lines(pilot.app))
        assert "⚠ addresses the judge — B: answer (speaks to the judge, dictates a verdict)" in text
        await pilot.press("n")
        await pilot.pause()
        text = "\n".join(screen_lines(pilot.app))
        assert "⚠ addresses the judge — A: passage p_" in text and "role marker" in text
        await pilot.press("n")
        await pilot.pause()
        assert "addresses the judge" not in "\n".join(screen_lines(pilot.app))


async def test_the_verdict_inspector_shows_the_flag_and_the_judges_own_report(tmp_path):
    comparison = _comparison(tmp_path)
    async with host_app(lambda: VerdictScreen(comparison, "q001", "B")).run_test(size=WIDE) as pilot:
        await pilot.pause()
        (directed,) = [str(w.render()) for w in pilot.app.screen.query(".verdict-directed").results(Static)]
        assert "⚠ addresses the judge — answer (speaks to the judge, dictates a verdict)" in directed
        assert "⚠ the judge reported an injection attempt (verdicts kept as given)" in directed
        await pilot.press("t")
        await pilot.pause()
        assert not list(pilot.app.screen.query(".verdict-directed"))


def test_question_view_of_an_answer_addressing_the_judge_snapshot(snap_compare, tmp_path):
    comparison = _comparison(tmp_path)
    assert snap_compare(host_app(lambda: QuestionScreen(comparison, ["q001"], 0)), terminal_size=(80, 24))


def test_verdict_inspector_of_an_answer_addressing_the_judge_snapshot(snap_compare, tmp_path):
    comparison = _comparison(tmp_path)
    assert snap_compare(host_app(lambda: VerdictScreen(comparison, "q001", "B")), terminal_size=(80, 24))
