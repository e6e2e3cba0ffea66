"""`ragtui convert` writes a peer tool's file as a ragtui run (or gold set) that reads back whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ragtui.cli import main
from ragtui.core.importers import import_run
from ragtui.core.loading.records import read_raw_run

from .builders import FIXTURES, inspect_entries, write_archive

RUNS = ["ragas_results.csv", "ragas_results.jsonl", "promptfoo_output.json", "inspect_log.json", "deepeval_test_run.json", "trec_run.txt"]


@pytest.mark.parametrize("name", RUNS)
def test_a_converted_run_reads_back_with_every_field(tmp_path, capsys, name):
    out = tmp_path / "run.jsonl"
    assert main(["convert", str(FIXTURES / name), "-o", str(out)]) == 0
    imported = import_run(FIXTURES / name)
    written = read_raw_run(out)
    assert written.records == json.loads(json.dumps(imported.records))
    assert written.meta == json.loads(json.dumps(imported.meta))
    assert written.meta["imported_from"]["path"] == str(FIXTURES / name)
    assert f"wrote {len(imported.records)} questions" in capsys.readouterr().err


def test_an_eval_archive_converts_too(tmp_path):
    log = json.loads((FIXTURES / "inspect_log.json").read_text(encoding="utf-8"))
    archive = write_archive(tmp_path / "log.eval", inspect_entries(log))
    assert main(["convert", str(archive), "-o", str(tmp_path / "run.jsonl")]) == 0
    assert read_raw_run(tmp_path / "run.jsonl").meta["imported_from"] == {
        "format": "inspect", "path": str(archive), "status": "success", "metrics": {"model_graded_fact": {"accuracy": 0.5}},
        "not_available": ["judge", "cost_usd"],
    }


def test_convert_with_a_gold_set_gives_rows_the_gold_ids(tmp_path, shared_dir):
    out = tmp_path / "run.jsonl"
    gold = shared_dir / "spec" / "examples" / "gold.yaml"
    assert main(["convert", str(FIXTURES / "ragas_results.csv"), "-o", str(out), "--gold", str(gold)]) == 0
    assert [r["id"] for r in read_raw_run(out).records] == ["q001", "q002", "q003", "q004"]


def test_qrels_convert_to_a_gold_set_yaml(tmp_path):
    out = tmp_path / "gold.yaml"
    assert main(["convert", str(FIXTURES / "trec_qrels.txt"), "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Gold set converted by ragtui from the TREC qrels trec_qrels.txt.")
    assert yaml.safe_load(text) == [
        {"id": "q1", "question": None, "gold_passages": ["d2", "d10"]},
        {"id": "q2", "question": None, "gold_passages": []},
        {"id": "q3", "question": None, "gold_passages": ["z"]},
    ]


def test_qrels_cannot_be_written_as_a_run(tmp_path, capsys):
    assert main(["convert", str(FIXTURES / "trec_qrels.txt"), "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "TREC qrels are a gold set: write them to a .yaml file" in capsys.readouterr().err


def test_a_run_is_written_as_jsonl_only(tmp_path, capsys):
    assert main(["convert", str(FIXTURES / "ragas_results.csv"), "-o", str(tmp_path / "x.csv")]) == 2
    assert "give an output ending in .jsonl" in capsys.readouterr().err


def test_variant_reaches_the_importer(tmp_path):
    data = json.loads((FIXTURES / "promptfoo_output.json").read_text(encoding="utf-8"))
    for result in list(data["results"]["results"]):
        data["results"]["results"].append({**result, "provider": {"id": "ollama:mistral"}, "response": {"output": "B"}})
    source = tmp_path / "out.json"
    source.write_text(json.dumps(data), encoding="utf-8")
    assert main(["convert", str(source), "-o", str(tmp_path / "a.jsonl")]) == 2
    assert main(["convert", str(source), "-o", str(tmp_path / "b.jsonl"), "--variant", "2"]) == 0
    assert {r["answer"] for r in read_raw_run(tmp_path / "b.jsonl").records} == {"B"}


def test_bad_input_exits_2_with_file_and_place(tmp_path, capsys):
    bad = tmp_path / "r.csv"
    bad.write_text("user_input,retrieved_contexts\nQ ?,['a' 'b'\n", encoding="utf-8")
    assert main(["convert", str(bad), "-o", str(tmp_path / "x.jsonl"), "--from", "ragas"]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2: retrieved_contexts: not a list literal" in err
    assert "Traceback" not in err
    assert not (tmp_path / "x.jsonl").exists()


def test_a_missing_input_exits_2(tmp_path, capsys):
    assert main(["convert", str(tmp_path / "absent.csv"), "-o", str(tmp_path / "x.jsonl")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_convert_help_lists_the_formats(capsys):
    assert main(["convert", "--help"]) == 0
    assert "(ragas, promptfoo, inspect, deepeval, trec)" in " ".join(capsys.readouterr().out.split())


def test_written_records_keep_french_text_readable(tmp_path):
    out = tmp_path / "run.jsonl"
    assert main(["convert", str(FIXTURES / "ragas_results.csv"), "-o", str(out)]) == 0
    assert "téléphone" in Path(out).read_text(encoding="utf-8")
