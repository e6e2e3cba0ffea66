"""TREC runs and qrels, ranked and read exactly as trec_eval reads them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers import import_gold, import_run
from ragtui.core.importers.trec import GRADES_KEY, trec_order

from .builders import FIXTURES

RUN = FIXTURES / "trec_run.txt"
QRELS = FIXTURES / "trec_qrels.txt"


def write(tmp_path: Path, text: str, name: str = "run.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_run_is_ranked_by_sim_descending_then_docno_descending_ignoring_the_rank_column():
    run = import_run(RUN, "trec")
    q1 = run.records[0]
    # d3 says rank 1, but d1 has the highest sim; the three 0.5 ties go d3 > d2 > d10 (byte order)
    assert q1 == {"id": "q1", "retrieved": [{"id": "d1", "score": 0.9}, {"id": "d3", "score": 0.5}, {"id": "d2", "score": 0.5}, {"id": "d10", "score": 0.5}]}
    assert run.records[1] == {"id": "q2", "retrieved": [{"id": "a", "score": 1.0}, {"id": "b", "score": -0.25}]}
    assert run.lines == [1, 5]


def test_a_run_has_no_answers_so_every_answer_field_is_not_available():
    meta = import_run(RUN, "trec").meta
    assert meta["name"] == "handrun"
    assert {"answer", "judge", "question"} <= set(meta["imported_from"]["not_available"])


def test_qrels_become_a_gold_set_of_the_relevant_documents_with_no_invented_question():
    records, lines = import_gold(QRELS, "trec")
    # The grades ride along under a private key (graded nDCG); the gold set keeps them apart.
    assert [r.pop(GRADES_KEY) for r in records] == [{"d2": 1, "d10": 2}, {}, {"z": 1}]
    assert records == [
        {"id": "q1", "question": None, "gold_passages": ["d2", "d10"]},
        {"id": "q2", "question": None, "gold_passages": []},
        {"id": "q3", "question": None, "gold_passages": ["z"]},
    ]
    assert lines == [1, 4, 5]


def test_trec_order_on_ties_compares_docnos_as_bytes():
    assert trec_order([(1.0, "B"), (1.0, "a"), (1.0, "A"), (2.0, "0")]) == [(2.0, "0"), (1.0, "a"), (1.0, "B"), (1.0, "A")]


def test_a_line_with_five_columns_is_named(tmp_path):
    path = write(tmp_path, "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 0.4\n")
    with pytest.raises(InputError) as caught:
        import_run(path, "trec")
    assert str(caught.value) == f"{path}:2: -: expected 6 columns (qid Q0 docno rank sim tag), found 5"


def test_a_non_numeric_sim_is_named(tmp_path):
    path = write(tmp_path, "q1 Q0 d1 1 0.5 tag\nq1 Q0 d2 2 high tag\nq1 Q0 d3 3 nan tag\n")
    with pytest.raises(InputError) as caught:
        import_run(path, "trec")
    assert [(p.line, p.field) for p in caught.value.problems] == [(2, "sim"), (3, "sim")]
    assert caught.value.problems[0].message == "expected a number in column 5, found 'high'"


def test_qrels_given_as_a_run_say_to_pass_them_as_the_gold_set():
    with pytest.raises(InputError, match="qrels file .*--gold"):
        import_run(QRELS, "trec")


def test_a_run_given_as_qrels_is_refused():
    with pytest.raises(InputError, match="TREC run"):
        import_gold(RUN, "trec")


def test_a_document_judged_twice_for_a_topic_is_named(tmp_path):
    path = write(tmp_path, "q1 0 d1 1\nq1 0 d1 0\n", "qrels.txt")
    with pytest.raises(InputError, match="'d1' is judged twice for topic q1 \\(first on line 1\\)"):
        import_gold(path, "trec")


def test_a_non_integer_relevance_is_named(tmp_path):
    path = write(tmp_path, "q1 0 d1 yes\n", "qrels.txt")
    with pytest.raises(InputError) as caught:
        import_gold(path, "trec")
    assert (caught.value.problems[0].line, caught.value.problems[0].field) == (1, "rel")


# The trec_eval 10.0 test data: its per-topic relstring (the relevance of the first 10
# documents, in trec_eval's own ranking) and recip_rank must come out of our ranking.

def oracle(shared_dir: Path) -> Path:
    folder = shared_dir / "oracles" / "trec_eval"
    if not (folder / "results.test").is_file():
        pytest.skip(f"the trec_eval oracle files are absent from {folder}")
    return folder


def measures(folder: Path, name: str) -> dict[str, str]:
    text = (folder / "out.test.aq").read_text()
    return {topic: value for topic, value in re.findall(rf"^{re.escape(name)}\s+(\d+)\s+(\S+)$", text, re.M)}


def test_topic_301_starts_with_the_documents_trec_eval_ranks_first(shared_dir):
    run = import_run(oracle(shared_dir) / "results.test", "trec")
    topic = next(r for r in run.records if r["id"] == "301")
    assert [p["id"] for p in topic["retrieved"][:5]] == ["FBIS4-50478", "FBIS3-21938", "FBIS3-22085", "FBIS3-9399", "FBIS4-24388"]
    assert len(topic["retrieved"]) == 500


def test_the_ranking_reproduces_trec_evals_relstring_and_reciprocal_rank(shared_dir):
    folder = oracle(shared_dir)
    run = import_run(folder / "results.test", "trec")
    gold = {g["id"]: set(g["gold_passages"]) for g in import_gold(folder / "qrels.test", "trec")[0]}
    relstrings, recip_ranks = measures(folder, "relstring"), measures(folder, "recip_rank")
    assert set(relstrings) == {"301", "302", "303"}
    for record in run.records:
        ranked = [p["id"] for p in record["retrieved"]]
        relevant = gold[record["id"]]
        assert "'" + "".join("1" if doc in relevant else "0" for doc in ranked[:10]) + "'" == relstrings[record["id"]]
        first = next(i for i, doc in enumerate(ranked, 1) if doc in relevant)
        assert f"{1 / first:.4f}" == recip_ranks[record["id"]]


def test_the_oracle_qrels_count_the_relevant_documents_as_trec_eval_does(shared_dir):
    folder = oracle(shared_dir)
    gold = {g["id"]: g["gold_passages"] for g in import_gold(folder / "qrels.test", "trec")[0]}
    num_rel = measures(folder, "num_rel")
    assert {topic: str(len(docs)) for topic, docs in gold.items()} == num_rel
