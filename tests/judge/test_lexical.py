"""The offline lexical judge: deterministic, checkable by hand, labelled approximate."""

from __future__ import annotations

from ragtui.core.judge import judge_record
from ragtui.core.judge.inputs import build_inputs
from ragtui.core.judge.lexical import MODEL_LABEL, content_words, is_abstention, judge_sentences, judge_utility
from ragtui.core.judge.settings import JudgeSettings

PASSAGE = "Article 42 — La période d'essai des cadres est de quatre mois. Elle peut être renouvelée une fois, par écrit."
RECORD = {
    "id": "q001",
    "question": "Quelle est la durée de la période d'essai pour un cadre ?",
    "retrieved": [{"id": "p042", "text": PASSAGE}, {"id": "p007", "text": "Le matériel reste la propriété de l'entreprise."}],
    "cited": ["p042"],
    "answer": "La période d'essai des cadres dure quatre mois. Le salarié reçoit une prime de bienvenue.",
    "expected_answer": "Quatre mois, renouvelable une fois par écrit.",
}


def test_content_words_ignore_accents_case_stop_words_and_plurals():
    assert content_words("Les Périodes d'essai des cadres") == {"periode", "essai", "cadre"}


def test_a_sentence_made_of_passage_words_is_attested_and_an_invented_one_is_not():
    verdicts = judge_sentences(build_inputs(RECORD, 5), threshold=0.6)
    assert [v["attested"] for v in verdicts] == [True, False]
    # "periode essai cadre dure quatre moi": 5 of 6 words are in the passage.
    assert verdicts[0]["evidence"] == ["p042"] and verdicts[0]["reason"].startswith("approximate: 5/6")
    assert verdicts[1]["evidence"] == []


def test_utility_is_the_share_of_expected_words_found_in_the_answer():
    utility = judge_utility(build_inputs(RECORD, 5), ["Je ne trouve pas cette information"])
    # expected: quatre, moi, renouvelable, foi, ecrit -> 2 of 5 in the answer -> 1 + 4*0.4 = 2.6 -> 3
    assert utility["score"] == 3 and utility["reason"].startswith("approximate")


def test_an_abstention_on_an_unanswerable_question_scores_five_and_an_answer_scores_one():
    unanswerable = dict(RECORD, expected_answer="abstention", answer="Je ne trouve pas cette information dans les documents.")
    assert judge_utility(build_inputs(unanswerable, 5), ["Je ne trouve pas cette information"])["score"] == 5
    invented = dict(unanswerable, answer="Le téléphone coûte 30 euros.")
    assert judge_utility(build_inputs(invented, 5), ["Je ne trouve pas cette information"])["score"] == 1


def test_abstention_detection_ignores_case_accents_and_punctuation():
    assert is_abstention("Désolé : JE NE TROUVE PAS cette information !", ["Je ne trouve pas cette information"])


async def test_the_lexical_judge_runs_offline_and_says_it_is_approximate():
    judge = await judge_record(RECORD, JudgeSettings(provider="lexical"))
    assert judge["model"] == MODEL_LABEL == "lexical-overlap (approximate)"
    assert judge["error"] is None and judge["usage"]["cost_usd"] == 0.0
    assert all(s["reason"].startswith("approximate") for s in judge["faithfulness"]["sentences"])
    assert judge == await judge_record(RECORD, JudgeSettings(provider="lexical"))  # deterministic
