"""Judge noise: repetitions load the same on both paths, flips and flip rates are counted by hand."""

from __future__ import annotations

import json

import pytest
from polars.testing import assert_frame_equal

from ragtui.core.loading.fast_jsonl import read_fast
from ragtui.core.loading.runs import check_run
from ragtui.core.measuring.judge_noise import noise_of_judge, question_noise, run_noise


def _judge(attested: list[bool], score: int, repeats: list[tuple[list[bool] | None, int | None]]) -> dict:
    def verdicts(values, given):
        return {
            "faithfulness": None if values is None else {"sentences": [{"attested": v} for v in values]},
            "utility": None if given is None else {"score": given},
            "error": None if values is not None else "judge call failed",
        }

    first = {"faithfulness": {"sentences": [{"text": f"s{i}.", "attested": v} for i, v in enumerate(attested)]}, "utility": {"score": score}}
    return {**first, "error": None, "repeats": [verdicts(v, s) for v, s in repeats]}


RECORDS = [
    # Sentence 2 flips (✗ then ✓ ✗); the score is 4 every time.
    {"id": "q1", "answer": "s0. s1.", "judge": _judge([True, False], 4, [([True, True], 4), ([True, False], 4)])},
    # Steady sentences, the score flips 3 → 5.
    {"id": "q2", "answer": "s0.", "judge": _judge([True], 3, [([True], 5), ([True], 3)])},
    # One repetition failed: left out, the other agrees.
    {"id": "q3", "answer": "s0. s1.", "judge": _judge([False, True], 2, [(None, None), ([False, True], 2)])},
    # Judged once.
    {"id": "q4", "answer": "s0.", "judge": {"faithfulness": {"sentences": [{"text": "s0.", "attested": True}]}, "utility": {"score": 5}, "error": None}},
]


def _write(tmp_path):
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join([json.dumps({"run": {"name": "r", "judge_repeats": 3}})] + [json.dumps(r) for r in RECORDS]) + "\n")
    return path


def test_repetitions_load_the_same_on_the_fast_and_the_exact_path(tmp_path):
    path = _write(tmp_path)
    fast = read_fast(path.read_bytes())
    assert fast is not None, "typed repetitions must not push a run off the fast path"
    exact, problems = check_run(path)
    assert problems == []
    columns = ["id", "judge_repeat_attested", "judge_repeat_utility"]
    assert_frame_equal(fast[1].select(columns), exact.frame.select(columns))
    assert exact.frame.get_column("judge_repeat_attested").to_list() == [
        [[True, True], [True, False]], [[True], [True]], [None, [False, True]], None
    ]
    assert exact.frame.get_column("judge_repeat_utility").to_list() == [[4.0, 4.0], [5.0, 3.0], [None, 2.0], None]


def test_flip_rates_count_units_judged_at_least_twice(tmp_path):
    frame = check_run(_write(tmp_path))[0].frame
    noise = run_noise(frame)
    assert noise is not None
    # Sentences compared: q1 2 + q2 1 + q3 2 = 5 (q4 judged once), one flips (q1's second).
    assert (noise.faithfulness.flipped, noise.faithfulness.units) == (1, 5)
    # Scores compared: q1, q2, q3 (q3 has two scores), one flips (q2).
    assert (noise.utility.flipped, noise.utility.units) == (1, 3)
    assert noise.unstable_ids == ("q1", "q2")
    assert (noise.repeats, noise.answers, noise.left_out) == (3, 3, 1)


def test_a_run_judged_once_has_no_judge_noise(tmp_path):
    path = tmp_path / "once.jsonl"
    path.write_text(json.dumps(RECORDS[3]) + "\n")
    assert run_noise(check_run(path)[0].frame) is None


def test_a_sentence_flips_when_its_repetitions_disagree_and_votes_are_counted():
    noise = question_noise([True, False, True], 4, [[True, True, True], [True, False, True]], [4, 4])
    assert noise is not None
    assert [(v.attested, v.judged) for v in noise.sentences] == [(3, 3), (1, 3), (3, 3)]
    assert [v.flipped for v in noise.sentences] == [False, True, False]
    assert noise.flipped_sentences == 1 and not noise.utility_flipped and noise.unstable


def test_a_repetition_with_another_sentence_count_is_left_out_not_read_as_agreement():
    noise = question_noise([True, True], 4, [[False], [True, True]], [4, 4])
    assert noise is not None
    assert noise.left_out == 1 and [(v.attested, v.judged) for v in noise.sentences] == [(2, 2), (2, 2)]
    assert not noise.unstable


@pytest.mark.parametrize("repeats", [None, []])
def test_an_answer_judged_once_has_no_noise(repeats):
    assert question_noise([True], 4, repeats, repeats) is None


def test_noise_of_a_judge_object_reads_what_judge_repeat_writes():
    judge = _judge([True, False], 4, [([True, True], 2)])
    noise = noise_of_judge(judge)
    assert noise is not None
    assert noise.flipped_sentences == 1 and noise.scores == (4.0, 2.0) and noise.repeats == 2
