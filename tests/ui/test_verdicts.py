"""The verdict inspector: every sentence, reason, evidence text, human label and the raw JSON."""

from __future__ import annotations

from textual.widgets import Static

from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from tests.ui.triage_data import PROC02_HUMAN_REASON_1, PROC02_REASON_2_B, host_app, screen_lines

TALL = (160, 80)


def _body(app) -> str:
    return "\n".join(str(w.render()) for w in app.screen.query("#verdict-body > Static").results(Static))


def _inspect(comparison, question_id: str, side: str, **kwargs):
    return host_app(lambda: VerdictScreen(comparison, question_id, side, **kwargs))


async def test_the_inspector_shows_model_sentences_reasons_and_evidence_text(triage):
    async with _inspect(triage, "proc-02", "B").run_test(size=TALL) as pilot:
        await pilot.pause()
        body = _body(pilot.app)
        assert "Side B · candidate · judge gpt-4.1" in body
        assert "✓ 1. Reponse a proc-02, premiere phrase." in body
        assert "✗ 2. Deuxieme phrase pour proc-02." in body
        assert f"judge  ✗ not attested — {PROC02_REASON_2_B}" in body
        # Evidence ids are resolved to the passage text from the retrieved list.
        assert "evidence: p_essai_010 (rank 1, ★ gold)" in body
        assert "p_essai_010: Article de reference pour proc-02 : la reponse exacte." in body
        assert "judge  3/5 — one unsupported addition" in body


async def test_human_labels_sit_beside_the_judge_with_disagreements_marked(triage):
    async with _inspect(triage, "proc-02", "B").run_test(size=TALL) as pilot:
        await pilot.pause()
        sentences = [str(w.render()) for w in pilot.app.screen.query(".verdict-sentence").results(Static)]
        assert len(sentences) == 2
        assert f"human  ✗ not attested — {PROC02_HUMAN_REASON_1}" in sentences[0]
        assert "≠ judge and human disagree" in sentences[0]  # judge ✓, human ✗
        assert "human  ✗ not attested — agree: unsupported" in sentences[1]
        assert "≠" not in sentences[1]  # both ✗
        utility = str(pilot.app.screen.query_one(".verdict-utility", Static).render())
        assert "human  2/5 — misleading" in utility
        assert "≠ judge and human differ by 1" in utility


async def test_the_raw_judge_json_is_pretty_printed_as_literal_text(triage):
    async with _inspect(triage, "proc-02", "B").run_test(size=TALL) as pilot:
        await pilot.pause()
        raw = [str(w.render()) for w in pilot.app.screen.query(".verdict-raw").results(Static)]
        assert raw[0].startswith("Raw judge JSON\n{\n  \"model\": \"gpt-4.1\",")
        assert '    "sentences": [' in raw[0]
        assert raw[1].startswith("Raw human label JSON")  # proc-02 B has a human label


async def test_the_judge_error_is_shown_and_nothing_counts_as_attested(triage):
    async with _inspect(triage, "fact-03", "B").run_test(size=TALL) as pilot:
        await pilot.pause()
        body = _body(pilot.app)
        assert "⚠ judge error: timeout after 60 s" in body
        assert "The judge gave no sentence verdicts for this answer." in body
        assert '"error": "timeout after 60 s"' in body


async def test_t_switches_to_the_other_runs_verdicts(triage):
    async with _inspect(triage, "proc-02", "B").run_test(size=TALL) as pilot:
        await pilot.pause()
        await pilot.press("t")
        await pilot.pause()
        body = _body(pilot.app)
        assert "Side A · baseline · judge claude-sonnet-4" in body
        assert PROC02_REASON_2_B not in body
        assert "human" not in body.split("Raw judge JSON")[0]  # A has no human label


async def test_the_inspector_opens_scrolled_to_the_focused_sentence_and_fits_80_columns(triage):
    async with _inspect(triage, "proc-02", "B", sentence=1).run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.pause()
        lines = screen_lines(pilot.app)
        assert any("✗ 2. Deuxieme phrase pour proc-02." in line for line in lines)
        assert all(len(line) <= 80 for line in lines)


async def test_esc_goes_back_to_the_question_view(triage):
    app = host_app(lambda: QuestionScreen(triage, ["proc-02"], 0))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("v")
        await pilot.pause()
        assert isinstance(app.screen, VerdictScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.screen.question_id == "proc-02"


async def test_a_jurys_verdicts_sit_side_by_side_with_the_judges_and_differences_are_marked(tmp_path, write_jsonl):
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.session import load_comparison

    sentences = [{"text": "Premiere phrase.", "attested": True}, {"text": "Deuxieme phrase.", "attested": True}]
    juror = {"model": "model-two", "faithfulness": {"sentences": [{"text": "Premiere phrase.", "attested": True},
                                                                    {"text": "Deuxieme phrase.", "attested": False}]},
             "utility": {"score": 3}}
    run = write_jsonl(tmp_path / "judged.jsonl", {"name": "jury", "judge_model": "model-one"}, [{
        "id": "q1", "question": "Q ?", "gold_passages": ["p1"], "retrieved": [{"id": "p1", "text": "t"}],
        "answer": "Premiere phrase. Deuxieme phrase.",
        "judge": {"model": "model-one", "faithfulness": {"sentences": sentences}, "utility": {"score": 4}},
        "jury": [juror],
    }])
    comparison = load_comparison(Inputs(a=run, cache=False))
    async with _inspect(comparison, "q1", "A").run_test(size=TALL) as pilot:
        await pilot.pause()
        jury = str(pilot.app.screen.query_one(".verdict-jury", Static).render()).splitlines()
        assert jury[0] == "Jury · side by side"
        assert "model-one" in jury[1] and "model-two" in jury[1]
        assert jury[2].split() == ["1", "✓", "✓"]
        assert jury[3].split() == ["2", "✓", "✗", "≠"]
        assert jury[4].split() == ["u", "4", "3", "≠"]
