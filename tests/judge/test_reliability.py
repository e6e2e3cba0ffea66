"""Whatever the server does, every question ends with verdicts or an explained error."""

from __future__ import annotations

import json
import re

import pytest

from ragtui.core.judge.runner import judge_run
from tests.judge.fake_llm import verdict_object
from tests.judge.helpers import raw_run, record, settings_for

# directive -> (ends with verdicts?, requests the server sees for it, words the error must hold)
SCRIPTS = {
    "": (True, 1, None),
    "[[429ms]]": (True, 2, None),
    "[[500]]": (True, 2, None),
    "[[529]]": (True, 2, None),
    "[[408]]": (True, 2, None),
    "[[409]]": (True, 2, None),
    "[[hang]]": (True, 2, None),
    "[[fenced]]": (True, 1, None),
    "[[prose]]": (True, 1, None),
    "[[french]]": (True, 1, None),
    "[[trunc]]": (True, 2, None),  # cut off once: asked again with twice the tokens
    "[[count]]": (True, 2, None),  # wrong count once: one repair request
    "[[badscore]]": (True, 2, None),
    "[[empty]]": (True, 2, None),
    "[[truncalways]]": (False, 2, "truncated at the output bound"),
    "[[countalways]]": (False, 2, 'expected 2 item(s) in "sentences"'),
    "[[nojson]]": (False, 2, "holds no JSON object"),
    "[[always500]]": (False, 3, "HTTP 500"),
    "[[400]]": (False, 1, "HTTP 400"),
}


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
async def test_every_question_ends_with_verdicts_or_an_explained_error(make_fake, provider, tmp_path):
    server = make_fake(hang_seconds=2)
    records = [record(f"q{i:02d}", directive) for i, directive in enumerate(SCRIPTS)]
    settings = settings_for(server.url, provider, cache_dir=tmp_path / "cache", timeout=0.4, max_retries=2)
    result = await judge_run(raw_run(records), settings)

    for rec, (directive, (ok, requests, words)) in zip(result.records, SCRIPTS.items()):
        judge = rec["judge"]
        assert server.attempts_for(f"{rec['id']} ? {directive}".strip()) == requests, directive
        if ok:
            assert judge["error"] is None, (directive, judge["error"])
            assert [s["text"] for s in judge["faithfulness"]["sentences"]] == ["La periode d'essai dure quatre mois.", "Elle est renouvelable une fois."]
            assert judge["utility"]["score"] == 4
        else:
            assert words in judge["error"], (directive, judge["error"])
            assert judge["faithfulness"] is None and judge["utility"] is None
    json.dumps(result.records, allow_nan=False)  # no NaN anywhere
    assert result.meta["judge_errors"] == result.totals.errors == 5
    assert server.paid_twice() == []


async def test_a_failed_reply_is_kept_raw_for_inspection(fake_llm):
    result = await judge_run(raw_run([record("q1", "[[nojson]]")]), settings_for(fake_llm.url))
    judge = result.records[0]["judge"]
    assert judge["raw"] == "La réponse me semble correcte et bien sourcée."
    assert judge["error"].startswith("unusable judge reply, even after one repair request")


async def test_the_repair_request_quotes_the_problem_and_the_previous_reply(fake_llm):
    await judge_run(raw_run([record("q1", "[[count]]")]), settings_for(fake_llm.url))
    first, repair = fake_llm.bodies()
    assert [m["role"] for m in repair["messages"]] == ["system", "user", "assistant", "user"]
    first_reply = json.dumps(verdict_object(first["messages"][1]["content"], drop_one=True), ensure_ascii=False)
    assert repair["messages"][2] == {"role": "assistant", "content": first_reply}
    assert "expected 2 item(s)" in repair["messages"][3]["content"]


async def test_a_truncated_reply_is_asked_again_with_twice_the_tokens(fake_llm):
    await judge_run(raw_run([record("q1", "[[trunc]]")]), settings_for(fake_llm.url, max_tokens=500))
    assert [b["max_tokens"] for b in fake_llm.bodies()] == [500, 1000]


async def test_a_truncated_repair_reply_does_not_claim_a_retry_with_more_tokens(fake_llm):
    result = await judge_run(raw_run([record("q1", "[[nojsonthentrunc]]")]), settings_for(fake_llm.url, max_tokens=500))
    error = result.records[0]["judge"]["error"]
    assert [b["max_tokens"] for b in fake_llm.bodies()] == [500, 500]  # the bound was never raised
    assert error == "judge reply to the repair request truncated at the output bound (length, 500 tokens): raise --max-tokens"


async def test_a_truncated_reply_twice_says_the_bound_was_raised_once(fake_llm):
    result = await judge_run(raw_run([record("q1", "[[truncalways]]")]), settings_for(fake_llm.url, max_tokens=500))
    error = result.records[0]["judge"]["error"]
    assert [b["max_tokens"] for b in fake_llm.bodies()] == [500, 1000]
    assert error == "judge reply truncated at the output bound (length, 1000 tokens), even after one retry with 2× the bound: raise --max-tokens"


async def test_a_truncated_repair_after_a_raised_bound_says_the_bound_was_already_raised(fake_llm):
    result = await judge_run(raw_run([record("q1", "[[truncthencount]]")]), settings_for(fake_llm.url, max_tokens=500))
    error = result.records[0]["judge"]["error"]
    assert [b["max_tokens"] for b in fake_llm.bodies()] == [500, 1000, 1000]
    assert error == (
        "judge reply to the repair request truncated at the output bound (length, 1000 tokens) "
        "(a bound already raised 2× after a first truncated reply): raise --max-tokens"
    )


async def test_questions_that_cannot_be_judged_fairly_cost_nothing_and_say_why(fake_llm):
    no_answer = dict(record("q1"), answer=None)
    no_text = dict(record("q2"), retrieved=["p_q2_a"])
    no_question = {k: v for k, v in record("q3").items() if k != "question"}
    result = await judge_run(raw_run([no_answer, no_text, no_question]), settings_for(fake_llm.url))
    errors = [r["judge"]["error"] for r in result.records]
    assert "answer is null" in errors[0]
    assert "'p_q2_a' has no text" in errors[1]
    assert "no question text" in errors[2]
    assert fake_llm.requests == []


async def test_without_cited_ids_the_top_k_retrieved_passages_are_judged(fake_llm):
    uncited = {k: v for k, v in record("q1").items() if k != "cited"}
    await judge_run(raw_run([uncited]), settings_for(fake_llm.url, k=1))
    prompt = fake_llm.bodies()[0]["messages"][1]["content"]
    assert re.search(r'<passage-[0-9a-f]{12} id="p_q1_a">', prompt) and "p_q1_b" not in prompt


async def test_the_gold_set_supplies_the_question_and_expected_answer(fake_llm):
    gold = {"q1": {"id": "q1", "question": "Question du gold ?", "reponse_attendue": "Quatre mois."}}
    await judge_run(raw_run([record("q1")]), settings_for(fake_llm.url), gold=gold)
    prompt = fake_llm.bodies()[0]["messages"][1]["content"]
    assert "Question du gold ?" in prompt and "Quatre mois." in prompt


async def test_never_more_requests_in_flight_than_the_concurrency(make_fake):
    server = make_fake(latency=0.05)
    result = await judge_run(raw_run([record(f"q{i}") for i in range(12)]), settings_for(server.url, concurrency=3))
    assert server.max_in_flight == 3 and result.totals.errors == 0


async def test_a_rate_limit_pauses_the_other_workers_too(make_fake):
    server = make_fake(latency=0.02)
    records = [record("q0", "[[429s]]")] + [record(f"q{i}") for i in range(1, 12)]
    result = await judge_run(raw_run(records), settings_for(server.url, concurrency=2))
    assert result.totals.errors == 0
    limited_at = min(t for t, prompt in server.arrivals if "[[429s]]" in prompt)
    # The server asked for 1 s: nobody knocks in that second (the other worker's request
    # already on its way when the 429 came back may land in the first few milliseconds).
    during = [t - limited_at for t, _ in server.arrivals if limited_at + 0.1 < t < limited_at + 0.95]
    assert during == []
