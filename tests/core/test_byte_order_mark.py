"""A UTF-8 byte-order mark is accepted by every reader (issue 9, item 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.cli import main

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "importers" / "fixtures"
BOM = "\ufeff".encode()


def _with_bom(source: Path, folder: Path) -> Path:
    target = folder / source.name  # the same name: run names come from it
    target.write_bytes(BOM + source.read_bytes())
    return target


def _report(capsys, *args: str) -> dict:
    assert main(["report", *args, "--format", "json"]) == 0, capsys.readouterr().err
    report = json.loads(capsys.readouterr().out)
    for run in report["runs"].values():
        run.pop("path")  # the fields that name a file
    for calibration in report.get("calibration", {}).values():
        if calibration:
            calibration.pop("labels_file", None)
    return report


@pytest.mark.parametrize(
    "run", ["deepeval_test_run.json", "inspect_log.json", "promptfoo_output.json", "ragas_results.csv", "ragas_results.jsonl"]
)
def test_a_byte_order_mark_is_accepted_by_every_importer(tmp_path, capsys, run):
    assert _report(capsys, str(_with_bom(FIXTURES / run, tmp_path))) == _report(capsys, str(FIXTURES / run))


def test_a_byte_order_mark_is_accepted_by_the_trec_readers(tmp_path, capsys):
    plain = _report(capsys, str(FIXTURES / "trec_run.txt"), "--gold", str(FIXTURES / "trec_qrels.txt"))
    marked = _report(capsys, str(_with_bom(FIXTURES / "trec_run.txt", tmp_path)), "--gold", str(_with_bom(FIXTURES / "trec_qrels.txt", tmp_path)))
    assert marked == plain


def test_a_byte_order_mark_is_accepted_by_the_native_jsonl_gold_and_config_readers(tmp_path, capsys):
    sample = REPO / "sample_data"
    plain = _report(capsys, str(sample / "baseline.jsonl"), "--gold", str(sample / "gold.yaml"), "--config", str(sample / "ragtui.yaml"))
    marked = _report(
        capsys,
        str(_with_bom(sample / "baseline.jsonl", tmp_path)),
        "--gold", str(_with_bom(sample / "gold.yaml", tmp_path)),
        "--config", str(_with_bom(sample / "ragtui.yaml", tmp_path)),
    )
    assert marked == plain
    assert main(["validate", str(_with_bom(sample / "baseline.jsonl", tmp_path))]) == 0
