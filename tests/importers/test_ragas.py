"""RAGAS results (CSV, JSONL, JSON array) become ragtui run records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers import import_run

from .builders import FIXTURES, gold_index

CSV = FIXTURES / "ragas_results.csv"
JSONL = FIXTURES / "ragas_results.jsonl"
GOLD = [
    {"id": "q001", "question": "Quelle est la duree de la periode d'essai pour un cadre ?"},
    {"id": "q002", "question": "Quel est le montant du telephone de fonction pour un stagiaire ?"},
    {"id": "q003", "question": "Comment poser un jour de RTT ?"},
    {"id": "q004", "question": "Combien de jours de teletravail par semaine ?"},
]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_csv_rows_become_records_with_stable_ids_from_row_order():
    run = import_run(CSV, "ragas")
    assert [r["id"] for r in run.records] == ["ragas_0001", "ragas_0002", "ragas_0003", "ragas_0004"]
    assert run.lines == [2, 3, 4, 5]
    assert run.records[0] == {
        "id": "ragas_0001",
        "question": "Quelle est la duree de la periode d'essai pour un cadre ?",
        "gold_passages": ["p_reglement_intx_042"],
        "expected_answer": "Quatre mois, renouvelable une fois par ecrit.",
        "retrieved": [
            {"id": "p_reglement_intx_042", "text": "Article 42 — La periode d'essai des cadres est de quatre mois. Elle peut etre renouvelee une fois, par ecrit."},
            {"id": "p_charte_info_007", "text": "Charte informatique — Le materiel fourni reste la propriete de l'entreprise."},
        ],
        "answer": "La periode d'essai d'un cadre dure quatre mois. Elle est renouvelable une fois par ecrit.",
        "scores": {"faithfulness": 1.0, "context_recall": 1.0, "id_based_context_precision": 0.5},
        "tool_fields": {"synthesizer_name": "single_hop_specific_query_synthesizer"},
        "source": {"row": 1},
    }


def test_list_literals_with_quotes_and_commas_parse_exactly():
    third = import_run(CSV, "ragas").records[2]
    assert [p["id"] for p in third["retrieved"]] == ["p_guide_conges_011", "p_frais_002", "p_guide_conges_012"]
    assert third["retrieved"][1]["text"] == 'Notes de frais — Les indemnites kilometriques suivent le bareme du tableau 2, dit "bareme fiscal".'
    assert third["gold_passages"] == ["p_guide_conges_011", "p_guide_conges_012"]
    assert third["scores"]["id_based_context_precision"] == pytest.approx(2 / 3)


def test_an_empty_gold_list_stays_an_empty_list():
    assert import_run(CSV, "ragas").records[1]["gold_passages"] == []


def test_nan_scores_become_null_with_a_note_never_silently():
    second = import_run(CSV, "ragas").records[1]
    assert second["scores"] == {"faithfulness": None, "context_recall": None, "id_based_context_precision": 0.0}
    assert set(second["scores_notes"]) == {"faithfulness", "context_recall"}
    assert "NaN" in second["scores_notes"]["faithfulness"]


def test_nothing_is_invented_for_what_ragas_lacks():
    run = import_run(CSV, "ragas")
    assert not any(key in record for record in run.records for key in ("category", "judge", "latency_ms", "cost_usd"))
    assert run.meta["imported_from"]["not_available"] == ["category", "judge", "latency_ms", "cost_usd", "tokens_in", "tokens_out"]
    assert run.meta["imported_from"]["format"] == "ragas"
    assert "retrieval_ids" not in run.meta  # the file gave real ids


def test_rows_join_the_gold_set_by_question_ignoring_case_accents_and_spaces():
    run = import_run(CSV, "ragas", gold_index(GOLD))
    assert [r["id"] for r in run.records] == ["q001", "q002", "q003", "q004"]
    # the text as written is kept, the gold set's wording is the reference
    assert "question" not in run.records[2]
    assert run.records[2]["source"] == {"row": 3, "question": "comment poser un  jour de RTT ?"}
    assert "question" not in run.meta["imported_from"]["not_available"]


def test_a_row_whose_question_is_not_in_the_gold_set_keeps_its_row_id_and_says_so():
    run = import_run(CSV, "ragas", gold_index(GOLD[:1]))
    assert [r["id"] for r in run.records] == ["q001", "ragas_0002", "ragas_0003", "ragas_0004"]
    assert "not found in the gold set" in run.records[1]["import_notes"][0]


def test_jsonl_without_context_ids_gets_positional_ids_flagged_as_not_gold_comparable():
    run = import_run(JSONL, "ragas")
    assert run.meta["retrieval_ids"] == "positional"
    assert [p["id"] for p in run.records[0]["retrieved"]] == ["ctx_1", "ctx_2"]
    assert run.records[1]["question"] == "Quel est le montant du téléphone de fonction pour un stagiaire ?"
    assert run.records[1]["scores"] == {"faithfulness": None, "answer_relevancy": None}
    assert run.records[0]["scores"] == {"faithfulness": 1.0, "answer_relevancy": 0.91}
    assert "gold_passages" in run.meta["imported_from"]["not_available"]


def test_a_json_array_of_rows_is_read_too(tmp_path):
    rows = [json.loads(line) for line in JSONL.read_text().splitlines()]
    path = write(tmp_path, "ragas.json", json.dumps(rows, indent=2))
    assert import_run(path, "ragas").records == import_run(JSONL, "ragas").records


def test_ragas_0_1_column_names_are_read_as_their_0_4_names(tmp_path):
    path = write(tmp_path, "old.csv", "question,contexts,answer,ground_truth,faithfulness\nQ ?,['passage'],A.,Ref.,0.25\n")
    record = import_run(path, "ragas").records[0]
    assert record["question"] == "Q ?" and record["answer"] == "A." and record["expected_answer"] == "Ref."
    assert record["retrieved"] == [{"id": "ctx_1", "text": "passage"}]
    assert record["scores"] == {"faithfulness": 0.25}


def test_a_missing_question_column_is_named(tmp_path):
    path = write(tmp_path, "r.csv", "response,faithfulness\nA.,1.0\n")
    with pytest.raises(InputError) as caught:
        import_run(path, "ragas")
    assert str(caught.value) == (
        f"{path}:1: user_input: missing column: a RAGAS result has the question in 'user_input' (RAGAS 0.1: 'question'); "
        "save EvaluationResult.to_pandas() whole, with its sample columns"
    )


def test_a_list_literal_that_does_not_parse_names_line_and_column(tmp_path):
    # strings with and without commas between them: neither a list literal nor a numpy repr
    path = write(tmp_path, "r.csv", "user_input,retrieved_contexts,reference_context_ids\nQ1 ?,['a'],[]\nQ2 ?,\"['a' 'b', 'c']\",['x'\n")
    with pytest.raises(InputError) as caught:
        import_run(path, "ragas")
    assert [(p.line, p.field) for p in caught.value.problems] == [(3, "retrieved_contexts"), (3, "reference_context_ids")]
    # Python would read ['a' 'b', 'c'] as ['ab', 'c']: refused, not silently misread
    assert caught.value.problems[0].message.startswith("not a list literal (strings without commas between them")
    assert caught.value.problems[1].message.startswith("not a list literal (")


def test_a_cell_holding_code_is_rejected_not_run(tmp_path):
    marker = tmp_path / "ran"
    cell = f"[__import__('pathlib').Path({str(marker)!r}).touch()]"
    path = write(tmp_path, "r.csv", f'user_input,retrieved_contexts\nQ ?,"{cell}"\n')
    with pytest.raises(InputError, match="not a list literal"):
        import_run(path, "ragas")
    assert not marker.exists()


def test_a_deeply_nested_cell_is_an_error_not_a_crash(tmp_path):
    path = write(tmp_path, "r.csv", "user_input,retrieved_contexts\nQ ?," + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(InputError, match="retrieved_contexts"):
        import_run(path, "ragas")


def test_a_list_of_non_strings_is_named_with_its_position(tmp_path):
    path = write(tmp_path, "r.csv", 'user_input,retrieved_context_ids\nQ ?,"[\'a\', [1]]"\n')
    with pytest.raises(InputError) as caught:
        import_run(path, "ragas")
    assert caught.value.problems[0].field == "retrieved_context_ids[1]"


def test_a_csv_row_with_the_wrong_number_of_cells_is_named(tmp_path):
    path = write(tmp_path, "r.csv", "user_input,response\nQ1 ?,A1\nQ2 ?,A2,extra\n")
    with pytest.raises(InputError) as caught:
        import_run(path, "ragas")
    assert str(caught.value) == f"{path}:3: -: malformed CSV row: 3 cells, the header has 2"


def test_malformed_jsonl_names_every_bad_line(tmp_path):
    path = write(tmp_path, "r.jsonl", '{"user_input": "Q1 ?"}\n{"user_input": \n[1]\n')
    with pytest.raises(InputError) as caught:
        import_run(path, "ragas")
    assert [(p.line, p.message.split(":")[0]) for p in caught.value.problems] == [(2, "malformed JSON"), (3, "expected a JSON object, found [1]")]


def test_an_empty_question_is_an_error_naming_the_line(tmp_path):
    path = write(tmp_path, "r.csv", "user_input,response\n,A1\n")
    with pytest.raises(InputError) as caught:
        import_run(path, "ragas")
    assert (caught.value.problems[0].line, caught.value.problems[0].field) == (2, "user_input")


def test_two_rows_joined_to_one_gold_question_are_duplicates(tmp_path):
    path = write(tmp_path, "r.csv", "user_input\nComment poser un jour de RTT ?\nCOMMENT poser un jour de RTT ?\n")
    with pytest.raises(InputError, match="duplicate id 'q003'"):
        import_run(path, "ragas", gold_index(GOLD))
