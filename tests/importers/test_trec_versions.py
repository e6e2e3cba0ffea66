"""trec_eval 10.0's files: `#` comment lines in runs and qrels, and files recognised by their
lines whatever their name (trec_eval's own test folder names one `qrels.test.with-comments`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.core.importers import detect, detect_gold, import_gold, import_run
from ragtui.core.importers.trec import GRADES_KEY
from ragtui.core.loading.gold import load_gold

QRELS_WITH_COMMENTS = """# relevance judgments, trec_eval 10.0 style
# qid iter docno rel
q1 0 d2 1
q1 0 d3 0
  # an indented comment
q1 0 d10 2
q2 0 a 0
q3 0 z 1
"""
RUN_WITH_COMMENTS = """# run handrun, produced by a hand
q1 Q0 d3 1 0.5 handrun
q1 Q0 d1 2 0.9 handrun
# a comment between two topics
q2 Q0 a 1 1.0 handrun
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_qrels_with_comment_lines_are_read_with_the_comments_left_out(tmp_path):
    records, lines = import_gold(write(tmp_path, "qrels.txt", QRELS_WITH_COMMENTS), "trec")
    for record in records:
        record.pop(GRADES_KEY)
    assert records == [
        {"id": "q1", "question": None, "gold_passages": ["d2", "d10"]},
        {"id": "q2", "question": None, "gold_passages": []},
        {"id": "q3", "question": None, "gold_passages": ["z"]},
    ]
    assert lines == [3, 7, 8]  # the lines of the file, comments counted


def test_a_run_with_comment_lines_is_read_with_the_comments_left_out(tmp_path):
    run = import_run(write(tmp_path, "run.txt", RUN_WITH_COMMENTS), "trec")
    assert [r["id"] for r in run.records] == ["q1", "q2"] and run.lines == [2, 5]
    assert [p["id"] for p in run.records[0]["retrieved"]] == ["d1", "d3"]


def test_qrels_named_with_comments_are_recognised_by_their_lines_not_their_extension(tmp_path):
    path = write(tmp_path, "qrels.test.with-comments", QRELS_WITH_COMMENTS)
    assert detect_gold(path) == "trec" and detect(path) == "trec"
    gold = load_gold(path)
    assert gold.frame.height == 3


def test_a_run_named_with_comments_opens_against_those_qrels(tmp_path, capsys):
    qrels = write(tmp_path, "qrels.test.with-comments", QRELS_WITH_COMMENTS)
    run = write(tmp_path, "results.test.with-comments", RUN_WITH_COMMENTS)
    assert main(["report", str(run), "--gold", str(qrels), "--format", "json"]) == 0, capsys.readouterr().err


def test_a_file_of_comments_alone_is_not_taken_for_trec(tmp_path):
    path = write(tmp_path, "notes.txt", "# nothing but\n# comments\n")
    assert detect(path) is None and detect_gold(path) is None


# Three topics; t3 is judged with no relevant document. By hand, as trec_eval scores them:
# t1 finds d1 at rank 1 (success 1, rr 1, P@5 0.2), t2 finds d2 at rank 2 (1, 0.5, 0.2),
# t3 has nothing to find (0, 0, 0). trec_eval's means are over 3 topics.
QRELS_WITH_AN_EMPTY_TOPIC = "t1 0 d1 1\nt1 0 d5 0\nt2 0 d2 1\nt3 0 d3 0\nt3 0 d4 0\n"
RUN_OF_THREE_TOPICS = "t1 Q0 d1 1 0.9 r\nt1 Q0 d5 2 0.5 r\nt2 Q0 d9 1 0.9 r\nt2 Q0 d2 2 0.1 r\nt3 Q0 d3 1 0.9 r\n"


def trec_report(tmp_path: Path, capsys, *flags: str) -> dict:
    qrels = write(tmp_path, "qrels.txt", QRELS_WITH_AN_EMPTY_TOPIC)
    run = write(tmp_path, "run.txt", RUN_OF_THREE_TOPICS)
    assert main(["report", str(run), "--gold", str(qrels), "--format", "json", *flags]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_a_topic_without_a_relevant_document_is_left_out_and_the_report_warns_of_trec_evals_count(tmp_path, capsys):
    data = trec_report(tmp_path, capsys)
    assert (data["metrics"]["recall@5"]["A"], data["metrics"]["recall@5"]["n"]) == (1.0, 2)
    assert any("1 topic(s) of the qrels have no relevant document (t3)" in w and "--trec-denominator" in w for w in data["warnings"])


def test_trec_denominator_averages_over_every_judged_topic_as_trec_eval_does(tmp_path, capsys):
    metrics = trec_report(tmp_path, capsys, "--trec-denominator")["metrics"]
    assert {name: (metrics[name]["A"], metrics[name]["n"]) for name in ("recall@5", "mrr@5", "precision@5")} == {
        "recall@5": (0.6667, 3),
        "mrr@5": (0.5, 3),
        "precision@5": (0.1333, 3),
    }


def test_trec_denominator_means_match_pytrec_evals_on_the_same_files(tmp_path, capsys):
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier (a test dependency) is not installed")
    qrels: dict[str, dict[str, int]] = {}
    for line in QRELS_WITH_AN_EMPTY_TOPIC.splitlines():
        qid, _, docno, rel = line.split()
        qrels.setdefault(qid, {})[docno] = int(rel)
    run: dict[str, dict[str, float]] = {}
    for line in RUN_OF_THREE_TOPICS.splitlines():
        qid, _, docno, _, sim, _ = line.split()
        run.setdefault(qid, {})[docno] = float(sim)
    per_topic = pytrec_eval.RelevanceEvaluator(qrels, {"success", "P", "recip_rank"}).evaluate(run)
    assert len(per_topic) == 3  # trec_eval's code evaluates t3 too

    def mean(measure: str) -> float:
        return round(sum(values[measure] for values in per_topic.values()) / len(per_topic), 4)

    metrics = trec_report(tmp_path, capsys, "--trec-denominator")["metrics"]
    assert (metrics["recall@5"]["A"], metrics["mrr@5"]["A"], metrics["precision@5"]["A"]) == (mean("success_5"), mean("recip_rank"), mean("P_5"))
