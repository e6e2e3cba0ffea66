"""`ragtui report` opens peer tools' files directly, alone or against a ragtui run."""

from __future__ import annotations

import json

import pytest

from ragtui.cli import main

from .builders import FIXTURES

RAGAS = FIXTURES / "ragas_results.csv"


def report(capsys, *args: str) -> dict:
    assert main(["report", *args, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_a_ragas_file_is_reported_on_its_own_gold_fields(capsys):
    result = report(capsys, str(RAGAS))
    assert result["runs"]["A"]["questions"] == 4
    # q001 and q003 find a gold passage in the top 5, q004 does not; q002 has none to find
    assert result["metrics"]["recall@5"]["A"] == pytest.approx(2 / 3, abs=1e-4)


def test_a_ragas_result_compares_against_a_ragtui_run_on_one_gold_set(capsys, shared_dir):
    examples = shared_dir / "spec" / "examples"
    result = report(capsys, str(examples / "run_a.jsonl"), str(RAGAS), "--gold", str(examples / "gold.yaml"))
    assert result["runs"]["B"]["questions"] == 4 and result["runs"]["B"]["missing"] == 0
    assert result["metrics"]["recall@5"]["B"] == pytest.approx(2 / 3, abs=1e-4)
    # joined by question text: no warning that the questions differ from the gold set
    assert not [w for w in result.get("warnings", []) if "differs" in w]


@pytest.mark.parametrize("name", ["promptfoo_output.json", "inspect_log.json", "deepeval_test_run.json", "trec_run.txt"])
def test_every_peer_format_opens_in_report(capsys, name):
    assert report(capsys, str(FIXTURES / name))["runs"]["A"]["questions"] >= 2


def test_a_trec_run_is_scored_against_its_qrels(capsys):
    result = report(capsys, str(FIXTURES / "trec_run.txt"), "--gold", str(FIXTURES / "trec_qrels.txt"))
    # q1: d2 (relevant) at rank 3 -> hit; q2 has no relevant document (unanswerable);
    # q3 is judged in the qrels but absent from the run: ragtui counts a missing question
    # as a miss (docs/formats.md), where trec_eval without -c would skip it.
    assert result["metrics"]["recall@5"]["A"] == 0.5
    assert result["runs"]["A"]["missing"] == 1
    assert any("1 question(s) missing" in w for w in result["warnings"])
