"""The call cache: keyed by what determines a verdict, atomic, and shared by the app."""

from __future__ import annotations

import json

from ragtui.core.judge import JudgeSettings, judge_record
from ragtui.core.judge.cache import CallCache, call_key
from tests.judge.helpers import record, settings_for

MESSAGES = [{"role": "user", "content": "Question ?"}]


def test_the_key_changes_with_provider_model_prompt_version_inputs_and_token_bound():
    base = call_key("openai", "gpt-4o", "ragtui-fr@1", MESSAGES, 2048)
    assert base == call_key("openai", "gpt-4o", "ragtui-fr@1", [dict(MESSAGES[0])], 2048)
    variants = [
        call_key("anthropic", "gpt-4o", "ragtui-fr@1", MESSAGES, 2048),
        call_key("openai", "gpt-4.1", "ragtui-fr@1", MESSAGES, 2048),
        call_key("openai", "gpt-4o", "ragtui-fr@2", MESSAGES, 2048),
        call_key("openai", "gpt-4o", "ragtui-fr@1", [{"role": "user", "content": "Question ?!"}], 2048),
        call_key("openai", "gpt-4o", "ragtui-fr@1", MESSAGES, 4096),
    ]
    assert len({base, *variants}) == 6 and len(base) == 64


async def test_entries_are_single_files_written_whole(tmp_path):
    cache = CallCache(tmp_path)
    cache.put("ab" + "0" * 62, {"response": {"text": "{}"}})
    await cache.flush()
    (path,) = tmp_path.glob("ab/*.json")
    assert json.loads(path.read_text(encoding="utf-8"))["response"] == {"text": "{}"}
    assert not list(tmp_path.rglob("*.tmp"))


def test_a_damaged_entry_is_a_miss_not_a_crash(tmp_path):
    key = "cd" + "1" * 62
    (tmp_path / "cd").mkdir()
    (tmp_path / "cd" / f"{key}.json").write_text('{"key": "cd11', encoding="utf-8")
    assert CallCache(tmp_path).get(key) is None


async def test_judge_record_reuses_the_cli_cache_so_a_rejudge_is_free(fake_llm, tmp_path):
    settings = settings_for(fake_llm.url, cache_dir=tmp_path / "judged.jsonl.cache")
    first = await judge_record(record("q1"), settings)
    second = await judge_record(record("q1"), settings)
    assert first == second and len(fake_llm.requests) == 1


async def test_judge_record_leaves_the_record_untouched(fake_llm):
    original = record("q1")
    snapshot = json.loads(json.dumps(original))
    judge = await judge_record(original, settings_for(fake_llm.url))
    assert original == snapshot and judge["error"] is None


async def test_settings_for_the_app_can_come_from_a_config_mapping(fake_llm, tmp_path):
    config = {"judge": {"provider": "ollama", "model": "qwen2.5:14b", "base_url": fake_llm.url, "cache": str(tmp_path / "c")}}
    settings = JudgeSettings.from_config(config, environ={})
    judge = await judge_record(record("q1"), settings, gold={"id": "q1", "question": "Q ?", "expected_answer": "Quatre mois."})
    assert judge["model"] == "qwen2.5:14b" and judge["error"] is None
    assert any((tmp_path / "c").rglob("*.json"))
