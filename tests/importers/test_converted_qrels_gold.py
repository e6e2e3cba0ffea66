"""A gold set converted from TREC qrels validates as it is: retrieval needs no question text."""

from __future__ import annotations

import json

from ragtui.cli import main

from .builders import FIXTURES


def test_converted_qrels_validate_as_a_gold_set_and_score_the_run_as_the_qrels_do(tmp_path, capsys):
    gold = tmp_path / "gold.yaml"
    assert main(["convert", str(FIXTURES / "trec_qrels.txt"), "-o", str(gold)]) == 0
    capsys.readouterr()
    assert main(["validate", str(gold)]) == 0
    out = "".join(capsys.readouterr())  # problems on stdout, the verdict and the summary on stderr
    assert f"{gold}: ok (gold)" in out and "0 error(s), 1 warning(s)" in out
    assert "no question has a text: a retrieval-only gold set" in out
    scores = []
    for source in (FIXTURES / "trec_qrels.txt", gold):
        assert main(["report", str(FIXTURES / "trec_run.txt"), "--gold", str(source), "--format", "json"]) == 0
        scores.append(json.loads(capsys.readouterr().out)["metrics"]["recall@5"]["A"])
    assert scores == [0.5, 0.5]  # q1 hit, q3 missing (see test_report_with_imports)


def test_one_question_without_text_among_others_is_still_an_error(tmp_path, capsys):
    gold = tmp_path / "gold.yaml"
    gold.write_text("- {id: q1, question: 'Q ?', gold_passages: [p1]}\n- {id: q2, gold_passages: [p2]}\n", encoding="utf-8")
    assert main(["validate", str(gold)]) == 1
    assert f"{gold}:2: question: required, missing" in capsys.readouterr().out
