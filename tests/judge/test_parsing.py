"""Parsing judge replies: tolerant of the form, strict about the content."""

from __future__ import annotations

import json

import pytest

from ragtui.core.judge.parsing import ParseError, extract_json_object, parse_verdict, verdict_schema

SENTENCES = ["La période d'essai dure quatre mois.", "Elle est renouvelable six fois."]
IDS = ["p_042", "p_007"]
GOOD = {
    "sentences": [
        {"n": 1, "reason": "article 42", "evidence": ["p_042"], "attested": True},
        {"n": 2, "reason": "une fois, pas six", "evidence": [], "attested": False},
    ],
    "utility": {"reason": "une erreur", "score": 3},
}


def test_a_bare_object_gives_one_verdict_per_sentence_with_our_sentence_text():
    verdict = parse_verdict(json.dumps(GOOD), SENTENCES, IDS)
    assert [s["text"] for s in verdict.sentences] == SENTENCES
    assert [s["attested"] for s in verdict.sentences] == [True, False]
    assert verdict.sentences[0]["evidence"] == ["p_042"]
    assert verdict.utility == {"score": 3, "reason": "une erreur"}


def test_the_course_keys_phrases_texte_atteste_are_accepted():
    reply = {
        "phrases": [
            {"texte": SENTENCES[0], "atteste": True, "preuves": ["p_042"], "raison": "explicite"},
            {"texte": SENTENCES[1], "atteste": "non", "preuves": [], "raison": "six fois est faux"},
        ],
        "utilité": {"note": "3", "raison": "partielle"},
    }
    verdict = parse_verdict(json.dumps(reply, ensure_ascii=False), SENTENCES, IDS)
    assert [s["attested"] for s in verdict.sentences] == [True, False]
    assert verdict.sentences[1]["reason"] == "six fois est faux"
    assert verdict.utility == {"score": 3, "reason": "partielle"}


def test_a_fenced_reply_with_prose_around_it_is_read():
    reply = f"Voici mon évaluation :\n```json\n{json.dumps(GOOD, indent=2)}\n```\nJ'espère que cela aide."
    assert parse_verdict(reply, SENTENCES, IDS).utility["score"] == 3


def test_an_object_inside_prose_is_found_even_after_a_stray_brace():
    reply = "Bien sûr {voici} le résultat : " + json.dumps(GOOD) + " — fin."
    assert parse_verdict(reply, SENTENCES, IDS).utility["score"] == 3


def test_trailing_commas_are_forgiven():
    reply = json.dumps(GOOD)[:-1] + ",}"
    assert parse_verdict(reply, SENTENCES, IDS).utility["score"] == 3


def test_verdicts_numbered_out_of_order_are_put_back_in_order():
    shuffled = dict(GOOD, sentences=list(reversed(GOOD["sentences"])))
    assert [s["attested"] for s in parse_verdict(json.dumps(shuffled), SENTENCES, IDS).sentences] == [True, False]


def test_our_own_output_shape_is_accepted_as_a_reply():
    reply = {"faithfulness": {"sentences": GOOD["sentences"]}, "utility": GOOD["utility"]}
    assert len(parse_verdict(json.dumps(reply), SENTENCES, IDS).sentences) == 2


def test_evidence_keeps_only_ids_of_the_cited_passages():
    reply = json.loads(json.dumps(GOOD))
    reply["sentences"][0]["evidence"] = ["[p_042]", "p_invented", "p_042"]
    assert parse_verdict(json.dumps(reply), SENTENCES, IDS).sentences[0]["evidence"] == ["p_042"]


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("", "empty"),
        ("La réponse me semble correcte.", "no JSON object"),
        (json.dumps(GOOD)[:60], "cut off"),
        (json.dumps({"utility": GOOD["utility"]}), 'no "sentences"'),
        (json.dumps(dict(GOOD, sentences=GOOD["sentences"][:1])), "expected 2 item(s)"),
        (json.dumps(dict(GOOD, utility={"score": 7, "reason": ""})), "from 1 to 5, found 7"),
        (json.dumps(dict(GOOD, utility={"score": 0, "reason": ""})), "from 1 to 5, found 0"),
        (json.dumps(dict(GOOD, utility={"score": 3.5, "reason": ""})), "from 1 to 5, found 3.5"),
        (json.dumps(dict(GOOD, utility={"score": "NaN", "reason": ""})), "from 1 to 5"),
        (json.dumps(dict(GOOD, utility={"reason": "x"})), "from 1 to 5, found nothing"),
        (json.dumps(dict(GOOD, sentences=[{"n": 1, "attested": "peut-être"}, GOOD["sentences"][1]])), 'sentence 1: "attested" must be true or false'),
        (json.dumps(dict(GOOD, sentences=[{"n": 1}, GOOD["sentences"][1]])), 'sentence 1: missing "attested"'),
        (json.dumps({"sentences": GOOD["sentences"]}), 'no "utility"'),
    ],
)
def test_unusable_replies_raise_a_reason_the_model_can_act_on(reply, message):
    with pytest.raises(ParseError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_verdict(reply, SENTENCES, IDS)


def test_a_score_written_as_text_or_integral_float_is_an_integer():
    for score in ("4", "4/5", 4.0):
        assert parse_verdict(json.dumps(dict(GOOD, utility={"score": score})), SENTENCES, IDS).utility["score"] == 4


def test_the_schema_fixes_the_sentence_count_and_forbids_extra_keys():
    schema = verdict_schema(3)
    sentences = schema["properties"]["sentences"]
    assert sentences["minItems"] == sentences["maxItems"] == 3
    assert schema["additionalProperties"] is False and sentences["items"]["additionalProperties"] is False
    assert set(sentences["items"]["required"]) == set(sentences["items"]["properties"])


def test_extraction_prefers_the_object_that_holds_verdicts():
    reply = 'Contexte {"note": "hors sujet"} puis ' + json.dumps(GOOD)
    assert "sentences" in extract_json_object(reply)
