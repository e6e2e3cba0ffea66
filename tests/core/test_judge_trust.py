"""Same-family warnings and judge–human agreement."""

from __future__ import annotations

import polars as pl
import pytest

from ragtui.core.families import model_family, same_family_warning
from ragtui.core.measuring.calibration import calibrate, cohen_kappa


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("gpt-4o-mini", "OpenAI"), ("o3-mini", "OpenAI"), ("openai/gpt-4.1", "OpenAI"),
        ("claude-sonnet-4", "Anthropic"), ("anthropic.claude-3-5-sonnet", "Anthropic"),
        ("llama-3.1-70b-instruct", "Llama"), ("meta-llama/Llama-3.3-70B-Instruct", "Llama"),
        ("mixtral-8x7b", "Mistral"), ("mistral-large", "Mistral"), ("gemini-2.0-flash", "Google"),
        ("gemma-2-9b", "Google"), ("Qwen2.5-72B-Instruct", "Qwen"), ("deepseek-v3", "DeepSeek"),
        ("phi-4", "Phi"), ("command-r-plus", "Cohere"), ("my-own-model", None), (None, None), ("omni-7b", None),
    ],
)
def test_model_families_are_recognised_by_name(model, family):
    assert model_family(model) == family


def test_same_family_warns_and_suggests_another_family():
    warning = same_family_warning("llama-3.1-70b-instruct", "llama-3.3-70b-instruct")
    assert "Llama family" in warning and "another family" in warning
    assert same_family_warning("llama-3.1-70b-instruct", "claude-sonnet-4") is None
    assert same_family_warning("my-model", "my-model") is None  # unknown stays unknown


def test_cohen_kappa_matches_a_hand_computation():
    judge = [True, True, True, False, False, True, True, False]
    human = [True, True, False, False, True, True, True, False]
    # observed 6/8; p_judge = 5/8, p_human = 5/8; expected = 25/64 + 9/64 = 34/64.
    assert cohen_kappa(judge, human) == pytest.approx((6 / 8 - 34 / 64) / (1 - 34 / 64))
    assert cohen_kappa([True, True], [True, True]) is None


def _sentences(*verdicts):
    return [{"text": str(i), "attested": v, "evidence": [], "reason": None} for i, v in enumerate(verdicts)]


def test_calibration_pairs_sentences_by_position_and_counts_misaligned_answers():
    frame = pl.DataFrame(
        {
            "id": ["a", "b", "c", "d"],
            "judge_present": [True, True, True, False],
            "human_present": [True, True, True, True],
            "judge_error": [None, None, None, None],
            "judge_sentences": [_sentences(True, False), _sentences(True), _sentences(True, True), None],
            "human_sentences": [_sentences(True, True), _sentences(True), _sentences(True), _sentences(True)],
            "judge_utility": [4.0, 5.0, 2.0, None],
            "human_utility": [4.0, 3.0, 3.0, 1.0],
        }
    )
    result = calibrate(frame)
    assert result.answers == 3 and result.sentences == 3 and result.misaligned_answers == 1
    assert result.sentence_agreement == pytest.approx(2 / 3)
    assert result.utility_pairs == 3 and result.utility_exact == pytest.approx(1 / 3)
    assert result.utility_within_one == pytest.approx(2 / 3) and result.utility_mean_abs_diff == pytest.approx(1.0)
