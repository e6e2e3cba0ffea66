"""promptfoo files read with promptfoo's own numbers and order: per-test `namedScores`, nested
`assert-set`s, `promptIdx` order, JSON-array vars, and results version 2 refused by name.

`fixtures/promptfoo_named_scores.json` is written from promptfoo's EvaluateSummaryV3 (results
version 3): two prompts × two tests, rows in file order prompt 2 then prompt 1. Each test
has two `icontains` assertions of one metric (`faithfulness_kw`), a rubric (`utility`) and a
nested assert-set whose children are `citation` and `tone`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.core.errors import InputError
from ragtui.core.importers import detect, import_run

from .builders import FIXTURES

NAMED = FIXTURES / "promptfoo_named_scores.json"


def document() -> dict:
    return json.loads(NAMED.read_text(encoding="utf-8"))


def test_two_assertions_of_one_metric_are_one_score_promptfoos_own_named_score():
    first = import_run(NAMED, "promptfoo", variant=1).records[0]  # prompt 1, q001: "Six mois."
    # icontains "quatre" fails (0), icontains "mois" passes (1): promptfoo's namedScores says 0.5
    assert first["scores"]["faithfulness_kw"] == 0.5
    assert not any(name.startswith("faithfulness_kw#") for name in first["scores"])
    details = first["score_details"]["faithfulness_kw"]
    assert details["pass"] is False and details["assertions"] == 2 and details["reason"] == "no quatre\ncontains mois"


def test_the_prompt_level_named_scores_and_counts_are_kept_as_promptfoo_wrote_them(tmp_path):
    imported = import_run(NAMED, "promptfoo", variant=2).meta["imported_from"]
    assert imported["named_scores"]["faithfulness_kw"] == {"total": 1.5, "count": 4}
    data = document()
    data["results"]["prompts"][1]["metrics"]["namedScoreWeights"] = {"faithfulness_kw": 2}  # newer promptfoo
    imported = import_run(write(tmp_path, data), "promptfoo", variant=2).meta["imported_from"]
    assert imported["named_scores"]["faithfulness_kw"] == {"total": 1.5, "count": 4, "weights": 2}


def test_a_nested_assert_set_is_read_as_its_assertions_metrics_not_as_assertion():
    scores = import_run(NAMED, "promptfoo", variant=2).records[0]["scores"]
    assert set(scores) == {"faithfulness_kw", "utility", "citation", "tone", "overall"}
    assert (scores["citation"], scores["tone"]) == (1.0, 1.0)


def test_variants_follow_promptfoos_prompt_order_not_the_row_order():
    first, second = (import_run(NAMED, "promptfoo", variant=n) for n in (1, 2))
    # rows of prompt 2 come first in the file; variant 1 is promptIdx 0 (rag_prompt_v1)
    assert [r["answer"] for r in first.records] == ["Six mois.", "500 euros par mois."]
    assert [r["answer"] for r in second.records] == ["Quatre mois selon l'article 42.", "Je ne trouve pas cette information."]
    with pytest.raises(InputError, match="1 = openai:gpt-4o-mini with prompt \"rag_prompt_v1\"; 2 = openai:gpt-4o-mini with prompt \"rag_prompt_v2\""):
        import_run(NAMED, "promptfoo")


def test_a_gold_passages_var_holding_an_empty_json_array_is_an_empty_list_not_unknown():
    unanswerable = import_run(NAMED, "promptfoo", variant=2).records[1]
    assert unanswerable["gold_passages"] == []


def test_the_report_compares_the_named_scores_of_two_prompts_of_one_file(capsys):
    assert main(["report", str(NAMED), str(NAMED), "--variant", "1,2", "--format", "json"]) == 0, capsys.readouterr().err
    metric = json.loads(capsys.readouterr().out)["tool_metrics"]["promptfoo:faithfulness_kw"]
    # A: 0.5, 0.5 → 0.5; B: 1.0, 0.5 → 0.75
    assert (metric["A"], metric["B"], metric["delta"]) == (0.5, 0.75, 0.25)


def write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "out.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def version_2() -> dict:
    """promptfoo 0.43's `-o out.json`: no evalId, results version 2 with its table, rows without promptIdx."""
    rows = [
        {"prompt": {"raw": f"Question: q{i}", "display": "Question: {{question}}"}, "vars": {"question": f"q{i}"},
         "response": {"output": "a"}, "success": True, "score": 1, "latencyMs": 10, "provider": {"id": "openai:gpt-3.5-turbo"}}
        for i in range(16)
    ]
    return {"results": {"version": 2, "timestamp": "2024-02-01T10:00:00.000Z", "results": rows, "stats": {"successes": 16, "failures": 0},
                        "table": {"head": {"prompts": [], "vars": ["question"]}, "body": []}}, "config": {}, "shareableUrl": None}


def test_results_version_2_is_recognised_and_refused_by_its_version_with_what_to_do(tmp_path):
    path = write(tmp_path, version_2())
    assert detect(path) == "promptfoo"
    with pytest.raises(InputError) as caught:
        import_run(path)
    message = str(caught.value)
    assert "results.version: promptfoo results version 2 is not supported" in message
    assert "re-export it with promptfoo ≥ 0.60" in message and "systems" not in message


def test_variant_1_2_with_one_file_compares_its_two_systems(capsys):
    assert main(["report", str(NAMED), "--variant", "1,2", "--format", "json"]) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    assert set(data["runs"]) == {"A", "B"}
    metric = data["tool_metrics"]["promptfoo:faithfulness_kw"]
    assert (metric["A"], metric["B"]) == (0.5, 0.75)


def test_assertions_of_one_type_without_a_metric_are_one_score_their_mean(tmp_path):
    data = document()
    for result in data["results"]["results"]:
        for component in result["gradingResult"]["componentResults"]:
            assertion = component.get("assertion", {})
            if assertion.get("type") == "icontains":
                del assertion["metric"]
        for named in (result["namedScores"], result["gradingResult"]["namedScores"]):
            named.pop("faithfulness_kw")
    first = import_run(write(tmp_path, data), "promptfoo", variant=1).records[0]
    # "quatre" 0 and "mois" 1 (the assert-set's children keep their metrics)
    assert first["scores"]["icontains"] == 0.5 and "faithfulness_kw" not in first["scores"]
    assert first["score_details"]["icontains"]["assertions"] == 2


def test_a_metric_named_with_a_var_placeholder_is_the_named_score_promptfoo_rendered(tmp_path):
    data = document()
    for result in data["results"]["results"]:
        result["vars"]["topic"] = result["testCase"]["vars"]["topic"] = "kw"
        for component in result["gradingResult"]["componentResults"]:
            if component.get("assertion", {}).get("metric") == "faithfulness_kw":
                component["assertion"]["metric"] = "faithfulness_{{ topic }}"
    scores = import_run(write(tmp_path, data), "promptfoo", variant=1).records[0]["scores"]
    assert scores["faithfulness_kw"] == 0.5 and not any("{{" in name for name in scores)
