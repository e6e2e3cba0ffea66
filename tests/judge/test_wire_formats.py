"""Each provider speaks its wire format: temperature 0, a token bound, structured JSON."""

from __future__ import annotations

import pytest

from ragtui.core.judge import judge_record
from tests.judge.helpers import SECRET, record, settings_for


async def test_openai_requests_ask_for_a_strict_schema_with_temperature_zero(fake_llm):
    judge = await judge_record(record("q1"), settings_for(fake_llm.url, "openai"))
    assert judge["error"] is None and len(judge["faithfulness"]["sentences"]) == 2
    (body,) = fake_llm.bodies("/v1/chat/completions")
    assert body["temperature"] == 0 and body["max_tokens"] == 2048  # a compatible server: max_tokens
    schema = body["response_format"]["json_schema"]
    assert body["response_format"]["type"] == "json_schema" and schema["strict"] is True
    assert schema["schema"]["properties"]["sentences"]["minItems"] == 2
    (_, headers, _) = fake_llm.requests[0]
    assert headers["Authorization"] == f"Bearer {SECRET}"


async def test_openai_falls_back_to_json_object_when_the_server_refuses_schemas(make_fake):
    server = make_fake(reject_json_schema=True)
    judge = await judge_record(record("q1"), settings_for(server.url, "openai"))
    assert judge["error"] is None
    formats = [(b.get("response_format") or {}).get("type") for b in server.bodies()]
    assert formats == ["json_schema", "json_object"]


async def test_anthropic_requests_prefill_a_brace_and_send_the_version_header(fake_llm):
    judge = await judge_record(record("q1"), settings_for(fake_llm.url, "anthropic"))
    assert judge["error"] is None and judge["utility"]["score"] == 4
    (body,) = fake_llm.bodies("/v1/messages")
    assert body["temperature"] == 0 and body["max_tokens"] == 2048
    assert body["system"] and body["messages"][-1] == {"role": "assistant", "content": "{"}
    (_, headers, _) = fake_llm.requests[0]
    assert headers["x-api-key"] == SECRET and headers["anthropic-version"] == "2023-06-01"


async def test_anthropic_drops_the_prefill_for_models_that_refuse_it(make_fake):
    server = make_fake(reject_prefill=True)
    judge = await judge_record(record("q1"), settings_for(server.url, "anthropic"))
    assert judge["error"] is None
    last_roles = [b["messages"][-1]["role"] for b in server.bodies()]
    assert last_roles == ["assistant", "user"]


async def test_ollama_native_requests_pass_the_schema_as_format(fake_llm):
    judge = await judge_record(record("q1"), settings_for(fake_llm.url, "ollama"))
    assert judge["error"] is None and judge["usage"]["cost_usd"] == 0.0  # local: no bill
    (body,) = fake_llm.bodies("/api/chat")
    assert body["stream"] is False and body["options"] == {"temperature": 0, "num_predict": 2048}
    assert body["format"]["properties"]["sentences"]["maxItems"] == 2


@pytest.mark.parametrize("provider", ["openai", "anthropic", "ollama"])
async def test_tokens_and_cost_of_each_call_are_recorded(fake_llm, provider):
    judge = await judge_record(record("q1"), settings_for(fake_llm.url, provider))
    usage = judge["usage"]
    assert usage["calls"] == 1 and usage["tokens_in"] > 0 and usage["tokens_out"] > 0
    if provider == "openai":  # gpt-4o-mini: 0.15 / 0.60 USD per million tokens
        assert usage["cost_usd"] == pytest.approx((usage["tokens_in"] * 0.15 + usage["tokens_out"] * 0.60) / 1e6)


async def test_the_judge_object_names_model_provider_and_prompt_version(fake_llm):
    judge = await judge_record(record("q1"), settings_for(fake_llm.url, "anthropic", lang="en"))
    assert judge["model"] == "claude-sonnet-4-5" and judge["provider"] == "anthropic"
    assert judge["prompt_version"].startswith("ragtui-en@")
