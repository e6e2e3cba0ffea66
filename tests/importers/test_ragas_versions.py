"""RAGAS 0.1 files: contexts written as numpy arrays in its CSV, and its JSONL recognised as
RAGAS's rather than as a ragtui run. Fixtures follow RAGAS 0.1's `Result.to_pandas()`:
columns question, contexts, answer, ground_truth, then one per metric."""

from __future__ import annotations

import json
from pathlib import Path

from ragtui.cli import main
from ragtui.core.importers import detect, import_run

# numpy's repr of an array of strings: no commas, a line break where it wraps, each
# literal quoted as Python quotes it (double quotes around a text holding an apostrophe).
NUMPY_CELL = """["Article 12 — L'indemnite de licenciement est due apres huit mois."
 'Le préavis est de deux mois pour un cadre.']"""
CSV = (
    ",question,contexts,answer,ground_truth,faithfulness\n"
    f'0,Quel est le préavis d\'un cadre ?,"{NUMPY_CELL.replace(chr(34), 2 * chr(34))}",Deux mois.,Deux mois.,1.0\n'
)  # as pandas' CSV writer quotes a cell: inner double quotes doubled
ROWS = [
    {"question": "Quel est le préavis d'un cadre ?", "contexts": ["Le préavis est de deux mois pour un cadre."],
     "answer": "Deux mois.", "ground_truth": "Deux mois.", "faithfulness": 1.0, "answer_relevancy": 0.93},
    {"question": "Qui valide les notes de frais ?", "contexts": ["Le manager valide les notes de frais."],
     "answer": "Le manager.", "ground_truth": "Le manager.", "faithfulness": 1.0, "answer_relevancy": 0.88},
]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_ragas_0_1_csv_whose_contexts_are_a_numpy_repr_reads_each_string_on_its_own(tmp_path):
    record = import_run(write(tmp_path, "result.csv", CSV), "ragas").records[0]
    assert [passage["text"] for passage in record["retrieved"]] == [
        "Article 12 — L'indemnite de licenciement est due apres huit mois.",
        "Le préavis est de deux mois pour un cadre.",
    ]


def test_a_ragas_0_1_jsonl_is_detected_as_ragas_not_as_a_ragtui_run(tmp_path, capsys):
    path = write(tmp_path, "result.jsonl", "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in ROWS))
    assert detect(path) == "ragas"
    assert main(["report", str(path), "--format", "json"]) == 0, capsys.readouterr().err
    metrics = json.loads(capsys.readouterr().out)["tool_metrics"]
    assert metrics["ragas:answer_relevancy"]["A"] == 0.905


def test_a_ragtui_run_record_is_not_taken_for_ragas_0_1(tmp_path):
    record = {"id": "q1", "question": "Q ?", "contexts": ["kept by a team"], "retrieved": [{"id": "p1"}], "answer": "A."}
    assert detect(write(tmp_path, "run.jsonl", json.dumps(record) + "\n")) is None


def test_a_ragas_0_1_json_array_is_detected_by_its_first_rows_columns(tmp_path):
    assert detect(write(tmp_path, "result.json", json.dumps(ROWS, indent=2, ensure_ascii=False))) == "ragas"
    native = [{"id": "q1", "question": "Q ?", "answer": "A.", "retrieved": [{"id": "p1"}]}]
    assert detect(write(tmp_path, "run.json", json.dumps(native))) is None
