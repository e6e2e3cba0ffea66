"""The peer tools' own metrics and verdicts, compared like ragtui's (two runs of each tool).

The pairs in fixtures/ are hand-made from each tool's documented output schema; the
expected values below are worked out by hand from the scores written in them.
"""

from __future__ import annotations

import json

import pytest

from ragtui.cli import main

from .builders import FIXTURES


def report(capsys, *args: str, code: int = 0) -> dict:
    assert main(["report", *args, "--format", "json"]) == code, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def pair(tool: str, suffix: str = "json") -> tuple[str, str]:
    return str(FIXTURES / f"{tool}_pair_a.{suffix}"), str(FIXTURES / f"{tool}_pair_b.{suffix}")


DEEPEVAL = pair("deepeval")
PROMPTFOO = pair("promptfoo")
INSPECT = pair("inspect")
RAGAS = pair("ragas", "jsonl")


# DeepEval: by DeepEval's own per-test-case `success`, B fixes q03, q04, q09 and breaks q06.


def test_deepeval_status_follows_its_own_success_b_fixes_three_and_breaks_q06(capsys):
    data = report(capsys, *DEEPEVAL)
    assert data["status_from"] == "tool"
    assert data["questions"] == {"regressed": ["q06"], "fixed": ["q03", "q04", "q09"], "still_failing": ["q07"]}
    assert [r["kinds_added"] for r in data["regressions"]] == [["tool_fail"]]


def test_deepeval_metrics_are_compared_with_delta_interval_p_value_and_verdict(capsys):
    relevancy = report(capsys, *DEEPEVAL)["tool_metrics"]["deepeval:Answer Relevancy"]
    # A: .9 .8 .3 .9 1 .7 .2 .9 0 .6 = 6.3 / 10; B: .95 .85 .8 .9 1 .4 .3 .9 .9 .65 = 7.65 / 10
    assert (relevancy["A"], relevancy["B"], relevancy["delta"], relevancy["n"]) == (0.63, 0.765, 0.135, 10)
    assert relevancy["threshold"] == 0.5 and relevancy["target"] == 0.5 and relevancy["tool"] == "deepeval"
    # pass → fail: q06; fail → pass: q03, q09 → exact McNemar 2·P(X ≤ 1 | 3, ½) = 1
    assert relevancy["p_value"] == 1.0
    assert relevancy["ci"][0] < 0 < relevancy["ci"][1] and relevancy["verdict"] == "no_clear_change"
    # Against the 0.5 target, each run's bootstrap interval over its 10 questions decides:
    # A's (0.42…0.82) straddles 0.5, B's (0.615…0.89) lies above it.
    assert relevancy["meets_target"] == {"A": "inconclusive", "B": "meets"}
    assert relevancy["ci_by_run"]["A"][0] < 0.5 < relevancy["ci_by_run"]["A"][1] and relevancy["ci_by_run"]["B"][0] >= 0.5
    assert relevancy["pass_rate"] == {"A": 0.7, "B": 0.8}


def test_a_deepeval_metric_error_is_counted_never_averaged(capsys):
    faithfulness = report(capsys, *DEEPEVAL)["tool_metrics"]["deepeval:Faithfulness"]
    # q09 errored in A: left out of both means. A: 7.05 / 9, B: 7.45 / 9
    assert faithfulness["errors"] == {"A": 1, "B": 0}
    assert faithfulness["n"] == 9 and faithfulness["unpaired"] == 1
    assert (faithfulness["A"], faithfulness["B"]) == (round(7.05 / 9, 4), round(7.45 / 9, 4))


def test_an_empty_answer_with_a_metric_error_is_a_tool_error_not_a_pass(capsys):
    from ragtui.core.session import Inputs, load_comparison

    comparison = load_comparison(Inputs(a=FIXTURES / "deepeval_pair_a.json"))
    q09 = comparison.a.question("q09")
    assert q09["answer"] == "" and q09["failed"]
    assert q09["failures"] == ["tool_error"] and "invalid JSON" in q09["tool_error"]
    data = report(capsys, DEEPEVAL[0])
    assert data["runs"]["A"]["tool_errors"] == 1 and data["questions"]["still_failing"] == ["q03", "q04", "q07", "q09"]


def test_deepeval_tags_give_the_category_and_metadata_ids_give_retrieval(capsys):
    data = report(capsys, *DEEPEVAL)
    # tags are ["hr-rag", CATEGORY]: the tag naming a known category wins over the first
    assert list(data["categories"]) == ["factuelle_courte", "procedurale", "sans_reponse", "contradiction_connue"]
    # metadata.expected_ids / retrieved_ids: A retrieves the gold passage for odd ids only
    # (q01 q03 q07 q09 of the 9 answerable questions), B for all.
    assert data["metrics"]["recall@5"]["A"] == round(4 / 9, 4) and data["metrics"]["recall@5"]["B"] == 1.0


def test_two_runs_with_the_same_name_are_titled_by_their_file_names(capsys):
    runs = report(capsys, *DEEPEVAL)["runs"]
    assert (runs["A"]["name"], runs["B"]["name"]) == ("deepeval_pair_a.json", "deepeval_pair_b.json")


def test_status_from_ragtui_is_shown_and_ignores_the_tool_verdicts(capsys):
    data = report(capsys, *DEEPEVAL, "--status-from", "ragtui")
    assert data["status_from"] == "ragtui"
    assert "q06" not in data["questions"]["regressed"]  # q06's retrieval did not change
    assert "tool_metrics" in data and data["tool_metrics"]["deepeval:Answer Relevancy"]["delta"] == 0.135


def test_status_from_both_fails_a_question_that_either_verdict_fails(capsys):
    data = report(capsys, *DEEPEVAL, "--status-from", "both")
    # ragtui adds A's retrieval misses (even ids but q05, which is unanswerable) to the tool's failures
    assert data["status_from"] == "both"
    # q06 misses its gold passage in A (ragtui) and fails DeepEval in B: still failing
    assert data["questions"] == {
        "regressed": [],
        "fixed": ["q02", "q03", "q04", "q08", "q09", "q10"],
        "still_failing": ["q06", "q07"],
    }


def test_status_from_tool_on_runs_without_tool_verdicts_is_a_usage_error(capsys):
    code = main(["report", RAGAS[0], RAGAS[1], "--status-from", "tool"])
    assert code == 2
    assert "no per-question verdicts of its tool" in capsys.readouterr().err


# promptfoo: `success` per result; B breaks q1 and fixes q2, q4 and q6 (a provider error in A).


def test_promptfoo_status_and_named_scores_compared(capsys):
    data = report(capsys, *PROMPTFOO)
    assert data["status_from"] == "tool"
    assert data["questions"] == {"regressed": ["q1"], "fixed": ["q2", "q4", "q6"], "still_failing": []}
    faithfulness = data["tool_metrics"]["promptfoo:faithfulness"]
    # q6 failed in A (provider error): out of the means. A: 1 .5 .9 1 .9; B: .6 .9 .9 1 1
    assert (faithfulness["A"], faithfulness["B"], faithfulness["delta"], faithfulness["n"]) == (0.86, 0.88, 0.02, 5)
    assert faithfulness["threshold"] == 0.8 and faithfulness["errors"] == {"A": 1, "B": 0}
    # pass → fail q1, fail → pass q2: p = 1
    assert faithfulness["p_value"] == 1.0


def test_a_promptfoo_provider_error_scores_nothing_even_its_zero_total(capsys):
    overall = report(capsys, *PROMPTFOO)["tool_metrics"]["promptfoo:overall"]
    # promptfoo writes score 0 for the failed call: never averaged. A: 3.95 / 5, B: 4.3 / 5
    assert (overall["A"], overall["B"], overall["errors"]) == (0.79, 0.86, {"A": 1, "B": 0})


def test_two_variants_of_one_promptfoo_file_are_compared_with_variant(capsys, tmp_path):
    data = json.loads((FIXTURES / "promptfoo_pair_a.json").read_text(encoding="utf-8"))
    other = json.loads((FIXTURES / "promptfoo_pair_b.json").read_text(encoding="utf-8"))["results"]["results"]
    for result in other:
        result["provider"] = {"id": "ollama:llama3.1:70b", "label": ""}
    data["results"]["results"] += other
    both = tmp_path / "both.json"
    both.write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", str(both), str(both)]) == 2
    error = capsys.readouterr().err
    assert "1 = openai:gpt-4.1-mini" in error and "2 = ollama:llama3.1:70b" in error and "--variant" in error
    compared = report(capsys, str(both), str(both), "--variant", "1,2")
    assert compared["questions"]["regressed"] == ["q1"] and compared["questions"]["fixed"] == ["q2", "q4", "q6"]
    assert compared["runs"]["A"]["name"] != compared["runs"]["B"]["name"]


# inspect_ai: a sample passes when every scorer is correct (C); B breaks q1, fixes q2, q4, q5.


def test_inspect_status_is_every_scorer_correct(capsys):
    data = report(capsys, *INSPECT)
    assert data["status_from"] == "tool"
    assert data["questions"] == {"regressed": ["q1"], "fixed": ["q2", "q4", "q5"], "still_failing": []}


def test_inspect_grades_are_compared_as_0_1_with_mcnemar(capsys):
    metrics = report(capsys, *INSPECT)["tool_metrics"]
    graded = metrics["inspect:model_graded_fact"]
    # q5 errored in A: out. A: C I C C → .75; B: C C C C → 1
    assert (graded["A"], graded["B"], graded["delta"], graded["n"], graded["errors"]) == (0.75, 1.0, 0.25, 4, {"A": 1, "B": 0})
    assert graded["p_value"] == 1.0  # one discordant pair
    assert metrics["inspect:includes"]["delta"] == 0.0


# RAGAS: no thresholds of its own; tool_targets in ragtui.yaml give them.


def test_ragas_without_targets_keeps_ragtui_status_and_compares_scores(capsys):
    data = report(capsys, *RAGAS)
    assert data["status_from"] == "ragtui"
    relevancy = data["tool_metrics"]["ragas:answer_relevancy"]
    assert relevancy["threshold"] is None and relevancy["target"] is None and relevancy["meets_target"] == {"A": None, "B": None}
    assert (relevancy["A"], relevancy["B"], relevancy["delta"]) == (0.78, 0.84, 0.06)


def test_ragas_tool_targets_give_thresholds_and_the_status(capsys, tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text('tool_targets:\n  "ragas:faithfulness": {min: 0.7}\n', encoding="utf-8")
    data = report(capsys, *RAGAS, "--config", str(config))
    assert data["status_from"] == "tool"
    # A: q2 (0.5) fails, q4 NaN is a tool error; B: q1 (0.6) fails
    assert data["questions"] == {"regressed": ["q1"], "fixed": ["q2", "q4"], "still_failing": []}
    faithfulness = data["tool_metrics"]["ragas:faithfulness"]
    # NaN never averaged: A .9 .5 .8 1 → .8, B .6 .8 .9 1 → .825
    assert (faithfulness["A"], faithfulness["B"], faithfulness["delta"]) == (0.8, 0.825, 0.025)
    assert faithfulness["threshold"] == 0.7 and faithfulness["target"] == 0.7 and faithfulness["errors"] == {"A": 1, "B": 0}


def test_a_lower_is_better_tool_target_reverses_the_verdict_direction(capsys, tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text('tool_targets:\n  "ragas:answer_relevancy": {max: 0.5}\n', encoding="utf-8")
    relevancy = report(capsys, *RAGAS, "--config", str(config))["tool_metrics"]["ragas:answer_relevancy"]
    assert relevancy["higher_is_better"] is False and relevancy["meets_target"] == {"A": "misses", "B": "misses"}
    assert relevancy["verdict"] == "regressed"  # every question rose: bad for a lower-is-better metric


def test_a_malformed_tool_target_names_the_file_and_field(capsys, tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text('tool_targets:\n  faithfulness: {min: high}\n', encoding="utf-8")
    assert main(["report", *RAGAS, "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "ragtui.yaml" in err and "tool_targets.faithfulness" in err


# The three report formats.


@pytest.mark.parametrize("files", [DEEPEVAL, PROMPTFOO, INSPECT], ids=["deepeval", "promptfoo", "inspect"])
def test_the_text_report_shows_the_tool_table_and_status_source_within_80_columns(capsys, files):
    assert main(["report", *files]) == 0
    out = capsys.readouterr().out
    assert "own metrics (its scores, compared like ragtui's):" in out
    assert "Question status from: " in out and "(--status-from tool)" in out
    assert max(len(line) for line in out.splitlines()) <= 80


def test_the_text_report_lists_the_tool_errors_and_the_verdicts(capsys):
    assert main(["report", *DEEPEVAL]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("Answer Relevancy"))
    # A 0.63, B 0.765, Δ 0.135 [−0.04, 0.345], threshold 0.5: in ragtui's formats, as its own rates.
    assert "≥ 50% 63.0% ? 76.5% ✓ +13.5 (−4.0…+34.5)" in row and "~ no clear change" in row
    assert "Tool errors" in out and "Faithfulness 1/0" in out
    assert "DeepEval: 9 verdicts · 3 failing · 1 tool error" in out
    assert "Questions: 1 regressed · 3 fixed · 1 still failing" in out


def test_the_markdown_report_has_a_table_per_tool(capsys):
    assert main(["report", *DEEPEVAL, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "**DeepEval's own metrics**" in out
    assert "| `deepeval:Answer Relevancy` | ≥ 50% | 63.0% ? | 76.5% ✓ | +13.5 pts (−4.0…+34.5) |" in out
    assert "_Question status from: DeepEval's own verdicts (--status-from tool)_" in out


def test_a_regressed_tool_metric_fails_the_regression_gate(capsys, tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text('tool_targets:\n  "ragas:answer_relevancy": {max: 0.5}\n', encoding="utf-8")
    assert main(["report", *RAGAS, "--config", str(config), "--fail-on-regression"]) == 1
    assert "ragas:answer_relevancy regressed" in capsys.readouterr().err


def test_a_ragtui_run_against_a_deepeval_run_shows_the_tools_metric_of_b_alone(capsys, tmp_path):
    native = tmp_path / "baseline.jsonl"
    lines = [json.dumps({"run": {"name": "baseline"}})]
    lines += [json.dumps({"id": f"q{n:02d}", "question": f"Question {n} sur le reglement interieur ?", "answer": "Oui."}) for n in range(1, 11)]
    native.write_text("\n".join(lines) + "\n", encoding="utf-8")
    data = report(capsys, str(native), DEEPEVAL[1])
    assert data["status_from"] == "ragtui"  # A has no tool verdicts: ragtui's own status
    relevancy = data["tool_metrics"]["deepeval:Answer Relevancy"]
    # nothing to pair: B's own mean, no Δ, no verdict
    assert (relevancy["A"], relevancy["B"], relevancy["delta"], relevancy["verdict"], relevancy["n"]) == (None, 0.765, None, None, 0)
    assert relevancy["n_by_run"] == {"A": 0, "B": 10}


def test_converted_runs_keep_the_tools_metrics_and_verdicts(capsys, tmp_path):
    for side, source in zip("ab", DEEPEVAL, strict=True):
        assert main(["convert", source, "-o", str(tmp_path / f"{side}.jsonl")]) == 0
    capsys.readouterr()
    data = report(capsys, str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl"))
    assert data["status_from"] == "tool"
    assert data["questions"] == {"regressed": ["q06"], "fixed": ["q03", "q04", "q09"], "still_failing": ["q07"]}
    assert data["tool_metrics"]["deepeval:Answer Relevancy"]["delta"] == 0.135
