"""DeepEval test runs (`test_run_*.json`, `.deepeval/.latest_test_run.json`) become ragtui runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers import import_run

from .builders import FIXTURES

TEST_RUN = FIXTURES / "deepeval_test_run.json"


def write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / ".latest_test_run.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_test_case_maps_its_fields_and_metrics_with_their_reasons():
    first = import_run(TEST_RUN, "deepeval").records[0]
    assert first == {
        "id": "q001",
        "question": "Quelle est la duree de la periode d'essai pour un cadre ?",
        "category": "factuelle_courte",
        "expected_answer": "Quatre mois, renouvelable une fois par ecrit.",
        "retrieved": [
            {"id": "ctx_1", "text": "Article 42 — La periode d'essai des cadres est de quatre mois. Elle peut etre renouvelee une fois, par ecrit."},
            {"id": "ctx_2", "text": "Charte informatique — Le materiel fourni reste la propriete de l'entreprise."},
        ],
        "answer": "La periode d'essai d'un cadre dure quatre mois. Elle est renouvelable une fois par ecrit.",
        "scores": {"Faithfulness": 1.0, "Contextual Recall": 1.0},
        "score_details": {
            "Faithfulness": {
                "reason": "The score is 1.00 because the output makes no claim the retrieval context contradicts.",
                "threshold": 0.7,
                "pass": True,
                "model": "gpt-4.1",
            },
            "Contextual Recall": {"reason": "Every sentence of the expected output is attributable to node 1.", "threshold": 0.7, "pass": True, "model": "gpt-4.1"},
        },
        "latency_ms": 1400.0,
        "cost_usd": 0.0003,
        "tokens_in": 402,
        "tokens_out": 29,
        "tool_fields": {
            "chunking": "v2",
            "context": ["Article 42 — La periode d'essai des cadres est de quatre mois. Elle peut etre renouvelee une fois, par ecrit."],
            "tags": ["category:factuelle_courte", "prompt-v2"],
        },
        "tool_verdict": {"pass": True},
        "source": {"name": "test_case_0", "index": 1},
    }


def test_a_metric_that_failed_is_null_with_the_error_as_its_note():
    second = import_run(TEST_RUN, "deepeval").records[1]
    assert second["id"] == "test_case_1" and second["category"] == "procedurale"
    assert second["scores"] == {"Faithfulness": None, "Answer Relevancy": 0.5}
    assert second["scores_notes"]["Faithfulness"].startswith("the metric failed: Evaluation LLM outputted an invalid JSON")


def test_deepeval_passages_have_no_ids_so_retrieval_is_positional():
    run = import_run(TEST_RUN, "deepeval")
    assert run.meta["retrieval_ids"] == "positional"
    assert "gold_passages" in run.meta["imported_from"]["not_available"]


def test_the_run_metadata_names_generator_and_judge():
    meta = import_run(TEST_RUN, "deepeval").meta
    assert (meta["name"], meta["generator_model"], meta["judge_model"]) == ("test_hr_rag.py", "llama-3.1-70b-instruct", "gpt-4.1")


def test_older_files_with_snake_case_keys_are_read(tmp_path):
    data = json.loads(TEST_RUN.read_text(encoding="utf-8"))
    case = data["testCases"][1]
    old = {"test_cases": [{"name": case["name"], "input": case["input"], "actual_output": case["actualOutput"], "retrieval_context": case["retrievalContext"]}]}
    record = import_run(write(tmp_path, old), "deepeval").records[0]
    assert record["answer"] == case["actualOutput"]
    assert [p["text"] for p in record["retrieved"]] == case["retrievalContext"]


def test_malformed_json_names_the_line(tmp_path):
    path = tmp_path / "test_run_1.json"
    path.write_text('{"testCases": [\n  {"name": "x",,}\n]}', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_run(path, "deepeval")
    assert caught.value.problems[0].line == 2


def test_a_file_without_test_cases_says_where_they_belong(tmp_path):
    with pytest.raises(InputError, match="testCases: missing"):
        import_run(write(tmp_path, {"testFile": "t.py"}), "deepeval")


def test_a_test_case_without_a_string_input_is_named(tmp_path):
    data = {"testCases": [{"name": "a", "input": "Q ?"}, {"name": "b", "input": ["not", "a", "string"]}]}
    with pytest.raises(InputError) as caught:
        import_run(write(tmp_path, data), "deepeval")
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (2, "input")


def test_a_retrieval_context_of_the_wrong_type_is_named(tmp_path):
    data = {"testCases": [{"name": "a", "input": "Q ?", "retrievalContext": "one string"}]}
    with pytest.raises(InputError) as caught:
        import_run(write(tmp_path, data), "deepeval")
    assert (caught.value.problems[0].line, caught.value.problems[0].field) == (1, "retrievalContext")
