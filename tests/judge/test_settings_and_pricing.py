"""Settings from flags, ragtui.yaml and the environment; prices per model."""

from __future__ import annotations

import pytest

from ragtui.core.errors import InputError
from ragtui.core.judge.pricing import Price, PriceTable
from ragtui.core.judge.settings import JudgeSettings
from tests.judge.helpers import SECRET


def test_the_api_key_comes_from_the_provider_variable_or_a_named_one():
    assert JudgeSettings.from_env("openai", "gpt-4o", environ={"OPENAI_API_KEY": SECRET}).api_key == SECRET
    assert JudgeSettings.from_env("anthropic", "claude-sonnet-4-5", environ={"ANTHROPIC_API_KEY": SECRET}).api_key == SECRET
    assert JudgeSettings.from_env("openai", "m", api_key_env="MY_KEY", environ={"MY_KEY": SECRET, "OPENAI_API_KEY": "other"}).api_key == SECRET


def test_the_api_key_never_shows_in_the_settings_repr():
    settings = JudgeSettings.from_env("openai", "gpt-4o", environ={"OPENAI_API_KEY": SECRET})
    assert SECRET not in repr(settings) and SECRET not in str(settings)


def test_a_missing_key_for_an_official_endpoint_is_a_clear_input_error():
    with pytest.raises(InputError, match="OPENAI_API_KEY is not set"):
        JudgeSettings.from_env("openai", "gpt-4o", environ={}).validated()


def test_a_local_server_needs_no_key():
    settings = JudgeSettings.from_env("openai", "qwen", base_url="http://localhost:8000/v1", environ={}).validated()
    assert settings.api_key is None


def test_a_network_judge_needs_a_model():
    with pytest.raises(InputError, match="--model is required"):
        JudgeSettings(provider="anthropic", api_key="k" * 10).validated()


def test_config_judge_section_is_read_and_flags_win(tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text(
        "k: 3\njudge:\n  provider: anthropic\n  model: claude-haiku-4-5\n  concurrency: 2\n  lang: en\n"
        "  prices:\n    my-judge: {input: 1, output: 2}\n",
        encoding="utf-8",
    )
    settings = JudgeSettings.from_config(config, environ={"ANTHROPIC_API_KEY": SECRET}, concurrency=5, model=None)
    assert (settings.provider, settings.model, settings.concurrency, settings.lang, settings.k) == ("anthropic", "claude-haiku-4-5", 5, "en", 3)
    assert settings.api_key == SECRET and settings.prices == {"my-judge": {"input": 1, "output": 2}}


def test_a_config_with_a_wrong_type_names_the_field(tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text("judge:\n  concurrency: many\n", encoding="utf-8")
    with pytest.raises(InputError, match="judge.concurrency"):
        JudgeSettings.from_config(config, environ={})


def test_prices_match_dated_variants_but_not_other_models():
    table = PriceTable()
    assert table.price("gpt-4o-mini-2024-07-18") == table.price("gpt-4o-mini") == Price(0.15, 0.60, 0.075, 0.30)
    assert table.price("claude-sonnet-4-5-20250929") == Price(3.0, 15.0, 1.5, 7.5)
    assert table.price("openai/gpt-4.1-mini") == Price(0.40, 1.60, 0.20, 0.80)
    assert table.price("o3-pro") is None  # not o3's price


def test_an_unknown_model_has_an_unknown_cost_not_zero_except_local_ollama():
    table = PriceTable()
    assert table.cost("my-finetune", 1000, 1000) is None
    assert table.cost("qwen2.5:14b", 1000, 1000, provider="ollama") == 0.0


def test_config_prices_override_and_extend_the_shipped_table():
    table = PriceTable({"gpt-4o": {"input": 1, "output": 1}, "my-judge": {"input": 2, "output": 4}})
    assert table.cost("gpt-4o", 1_000_000, 0) == 1.0
    assert table.cost("my-judge", 500_000, 250_000) == pytest.approx(2.0)


def test_batch_calls_cost_the_batch_price_and_an_entry_without_one_is_unknown():
    table = PriceTable({"my-judge": {"input": 2, "output": 4}})
    assert table.cost("gpt-4.1-mini", 1_000_000, 1_000_000, batch=True) == pytest.approx(1.0)  # half of 0.40 + 1.60
    assert table.cost("gpt-4.1-mini", 1_000_000, 1_000_000) == pytest.approx(2.0)
    assert table.cost("my-judge", 1000, 1000, batch=True) is None  # no batch price given: unknown, not the full one
    assert table.cost("qwen2.5:14b", 1000, 1000, provider="ollama", batch=True) == 0.0
