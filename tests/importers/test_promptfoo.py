"""promptfoo output files (`-o out.json`, results version 3; `-o out.jsonl`) become ragtui runs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers import import_run

from .builders import FIXTURES, gold_index

OUTPUT = FIXTURES / "promptfoo_output.json"


def document() -> dict:
    return json.loads(OUTPUT.read_text(encoding="utf-8"))


def write(tmp_path: Path, data: object, name: str = "out.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_a_result_maps_vars_response_and_assertion_scores():
    first = import_run(OUTPUT, "promptfoo").records[0]
    assert first == {
        "id": "q001",
        "question": "Quelle est la duree de la periode d'essai pour un cadre ?",
        "category": "factuelle_courte",
        "expected_answer": "Quatre mois, renouvelable une fois par ecrit.",
        "retrieved": [
            {"id": "p_reglement_intx_042", "text": "Article 42 — La periode d'essai des cadres est de quatre mois. Elle peut etre renouvelee une fois, par ecrit."},
            {"id": "p_charte_info_007", "text": "Charte informatique — Le materiel fourni reste la propriete de l'entreprise."},
        ],
        "answer": "La periode d'essai d'un cadre dure quatre mois. Elle est renouvelable une fois par ecrit.",
        "scores": {"context-faithfulness": 1.0, "context-recall": 1.0, "utility": 0.8, "overall": 0.9333},
        "score_details": {
            "context-faithfulness": {"pass": True, "reason": "2 of 2 statements are supported by the context", "type": "context-faithfulness", "threshold": 0.8},
            "context-recall": {"pass": True, "reason": "The expected answer is fully attributable to the context", "type": "context-recall", "threshold": 0.7},
            "utility": {"pass": True, "reason": "Complete and exact", "type": "llm-rubric"},
            "overall": {"pass": True, "reason": "All assertions passed"},
        },
        "latency_ms": 1180,
        "cost_usd": 0.00009,
        "tokens_in": 402,
        "tokens_out": 29,
        "tool_fields": {"vars": {"chunking": "v2"}},
        "tool_verdict": {"pass": True},
        "source": {"testIdx": 0, "promptIdx": 0, "id": "9a1d7c52-0f41-4a8e-9d6c-1b2f3e4d5a60"},
    }


def test_a_result_without_an_id_var_gets_a_stable_id_from_its_test_index():
    second = import_run(OUTPUT, "promptfoo").records[1]
    assert second["id"] == "promptfoo_0002"
    assert second["category"] == "procedurale"  # from the test case's metadata
    assert second["retrieved"] == [{"id": "ctx_1", "text": "RTT — La demande se fait dans l'outil RH au moins 48 heures a l'avance."}]
    assert second["scores"] == {"context-faithfulness": 0.5, "utility": 0.4, "overall": 0.5}
    assert "generation_error" not in second  # a failed assertion is not a failed generation


def test_a_provider_error_is_a_null_answer_with_its_reason():
    third = import_run(OUTPUT, "promptfoo").records[2]
    assert third["answer"] is None
    assert third["generation_error"] == "API error: 429 Too Many Requests"
    assert third["scores"] == {"overall": 0.0}


def test_results_without_ids_join_the_gold_set_by_question():
    gold = [{"id": "q003", "question": "Comment poser un jour de RTT ?"}, {"id": "q004", "question": "Combien de jours de teletravail par semaine ?"}]
    run = import_run(OUTPUT, "promptfoo", gold_index(gold))
    assert [r["id"] for r in run.records] == ["q001", "q003", "q004"]


def test_the_run_metadata_comes_from_the_config_and_the_provider():
    run = import_run(OUTPUT, "promptfoo")
    assert run.meta["name"] == "HR assistant RAG, prompt v2"
    assert run.meta["created_at"] == "2026-11-21T10:02:11.482Z"
    assert run.meta["generator_model"] == "openai:gpt-4o-mini"
    assert run.meta["judge_model"] == "openai:gpt-4o"
    # record 1 named its passages, records 2 and 3 gave texts only
    assert run.meta["retrieval_ids"] == "mixed"
    assert run.meta["imported_from"]["not_available"] == ["gold_passages", "judge"]


def two_providers() -> dict:
    data = document()
    results = data["results"]["results"]
    for result in copy.deepcopy(results):
        result["provider"] = {"id": "ollama:llama3.1:70b", "label": ""}
        result["response"] = {"output": "Autre reponse."}
        results.append(result)
    return data


def test_a_file_with_several_systems_asks_which_one(tmp_path):
    path = write(tmp_path, two_providers())
    with pytest.raises(InputError) as caught:
        import_run(path, "promptfoo")
    message = str(caught.value)
    assert "2 systems in one file" in message and "1 = openai:gpt-4o-mini" in message and "2 = ollama:llama3.1:70b" in message
    assert "--variant N" in message


def test_variant_picks_one_prompt_and_provider(tmp_path):
    run = import_run(write(tmp_path, two_providers()), "promptfoo", variant=2)
    assert [r["answer"] for r in run.records] == ["Autre reponse."] * 3
    assert run.meta["generator_model"] == "ollama:llama3.1:70b"
    assert run.meta["imported_from"]["variant"] == 2


def test_the_jsonl_output_holds_the_same_results(tmp_path):
    lines = [json.dumps(result, ensure_ascii=False) for result in document()["results"]["results"]]
    path = tmp_path / "out.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert import_run(path, "promptfoo").records == import_run(OUTPUT, "promptfoo").records


def test_a_var_holding_a_json_array_string_is_read_as_a_list(tmp_path):
    data = document()
    data["results"]["results"][1]["vars"]["context"] = '["RTT passage", "Frais passage"]'
    record = import_run(write(tmp_path, data), "promptfoo").records[1]
    assert [p["text"] for p in record["retrieved"]] == ["RTT passage", "Frais passage"]


def test_malformed_json_names_the_line(tmp_path):
    path = tmp_path / "out.json"
    path.write_text('{\n  "evalId": "x",\n  "results": {,\n}', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_run(path, "promptfoo")
    assert caught.value.problems[0].line == 3 and "malformed JSON" in caught.value.problems[0].message


def test_a_file_without_results_says_where_they_belong(tmp_path):
    with pytest.raises(InputError, match="results.results: missing"):
        import_run(write(tmp_path, {"evalId": "x", "results": {"version": 3}}), "promptfoo")


def test_a_context_var_of_the_wrong_type_names_the_result_and_the_var(tmp_path):
    data = document()
    data["results"]["results"][1]["vars"]["context"] = {"text": "x"}
    path = write(tmp_path, data)
    with pytest.raises(InputError) as caught:
        import_run(path, "promptfoo")
    (problem,) = caught.value.problems
    assert (problem.line, problem.field) == (2, "vars.context")
    assert problem.message.startswith("expected a list of strings")
