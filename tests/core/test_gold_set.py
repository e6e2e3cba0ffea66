"""The gold set's own stage: `gold check` findings, the corpus reader, the edits log and its replay."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from ragtui.core.comparing.report import build_report
from ragtui.core.errors import InputError
from ragtui.core.gold.check import check_gold_set, composition
from ragtui.core.gold.edits import GoldEdits, apply_edits
from ragtui.core.gold.rewrite import edited_gold_text, lost_in_rewrite
from ragtui.core.gold.triage import GoldFixer
from ragtui.core.loading.config import Config
from ragtui.core.loading.corpus import document_of, load_corpus
from ragtui.core.loading.gold import load_gold
from ragtui.core.loading.inputs import Inputs, default_gold_edits_path
from ragtui.core.session import load_comparison

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"

# Every kind of problem once (ids name them); 6 questions: too few, and 2 of 6 unanswerable (33 %).
BAD_GOLD = """\
- id: ok
  question: "Quelle est la durée de la période d'essai ?"
  gold_passages: [p1]
  expected_answer: "Quatre mois."
  category: factuelle
- id: dup
  question: "quelle est la DUREE de la periode d'essai"
  gold_passages: [p1]
  expected_answer: "Quatre mois."
  category: factuelle
- id: nogold
  question: "Combien de RTT ?"
  gold_passages: []
  expected_answer: "Dix."
  category: factuelle
- id: withgold
  question: "Où est le parking ?"
  gold_passages: [p2]
  expected_answer: "Abstention."
  category: sans_reponse
- id: unknown
  question: "Que dit l'article 9 ?"
  gold_passages: [p_gone]
  expected_answer: "Rien."
  category: factuelle
- id: noanswer
  question: "Qui signe les congés ?"
  gold_passages: [p2]
  category: procedurale
"""


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def bad_gold(tmp_path: Path) -> Path:
    return _write(tmp_path / "gold.yaml", BAD_GOLD)


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    _write(folder / "reglement.yaml", "document: reglement\npassages:\n  - {id: p1, section: Art. 1, text: Essai de quatre mois.}\n")
    _write(folder / "more.jsonl", json.dumps({"id": "p2", "text": "Le parking.", "document": "guide"}) + "\n")
    return folder


def test_a_gold_set_with_each_kind_of_problem_gives_each_finding(bad_gold: Path, corpus_dir: Path) -> None:
    gold = load_gold(bad_gold)
    run = pl.DataFrame({"retrieved_ids": [["p1", "p_other"], ["p1"]]})  # p2 and p_gone never come back
    result = check_gold_set(gold, Config(), corpus=load_corpus(corpus_dir), run_frames=[run])
    found = {(f.kind, f.question, f.severity) for f in result.findings}
    assert found == {
        ("too_few_questions", None, "warning"),
        ("unanswerable_share", None, "warning"),
        ("duplicate_question", "dup", "warning"),
        ("answerable_without_gold", "nogold", "error"),
        ("unanswerable_with_gold", "withgold", "error"),
        ("unknown_passage", "unknown", "error"),
        ("missing_expected_answer", "noanswer", "warning"),
        ("never_retrieved", "withgold", "warning"),
        ("never_retrieved", "unknown", "warning"),
        ("never_retrieved", "noanswer", "warning"),
    }
    duplicate = next(f for f in result.findings if f.kind == "duplicate_question")
    assert "'dup'" in duplicate.message and "'ok'" in duplicate.message and duplicate.line == 6
    unknown = next(f for f in result.findings if f.kind == "unknown_passage")
    assert (unknown.file, unknown.line) == (str(bad_gold), 21)
    assert result.errors == 3


def test_too_many_questions_is_a_finding(tmp_path: Path) -> None:
    records = "".join(f"- {{id: q{i}, question: 'Question {i} ?', gold_passages: [p1], expected_answer: a, category: c}}\n" for i in range(201))
    result = check_gold_set(load_gold(_write(tmp_path / "g.yaml", records)), Config())
    assert [f.kind for f in result.findings] == ["too_many_questions", "unanswerable_share"]


def test_composition_counts_unanswerable_as_evaluate_does_and_shrinks_power_with_n(bad_gold: Path) -> None:
    categories, share = composition(load_gold(bad_gold), Config())
    # nogold (empty gold) and withgold (sans_reponse) are unanswerable: 2 of 6.
    assert share == pytest.approx(2 / 6)
    assert (categories["factuelle"].n, categories["factuelle"].answerable, categories["factuelle"].unanswerable) == (4, 3, 1)
    # 4 questions detect only a drop of about 100 points (n = z² / δ at ψ = δ: 3.84 ≤ 4);
    # 1 question detects none, not even 100 % → 0 %.
    assert categories["factuelle"].detectable_drop == pytest.approx(0.998, abs=0.001)
    assert categories["procedurale"].detectable_drop is None


def test_the_sample_gold_set_passes_its_check_with_its_tags_counted() -> None:
    gold = load_gold(SAMPLE / "gold.yaml")
    result = check_gold_set(gold, Config(), corpus=load_corpus(SAMPLE / "corpus"))
    assert result.errors == 0 and result.findings == []
    assert (result.questions, result.unanswerable_share) == (120, 0.25)
    assert result.tags == {"acronyme": 23, "section_recente": 9, "tableau": 3}
    # 120 questions, 15 % discordance, 95 % confidence, 80 % power: about a 10-point drop.
    assert result.detectable_drop == pytest.approx(0.098, abs=0.001)


def test_the_corpus_reads_yaml_documents_jsonl_and_parquet_and_names_each_passages_document(tmp_path: Path, corpus_dir: Path) -> None:
    pl.DataFrame({"id": ["p3"], "text": ["Tableau."], "document": ["bareme"]}).write_parquet(corpus_dir / "z.parquet")
    corpus = load_corpus(corpus_dir)
    assert sorted(corpus.passages) == ["p1", "p2", "p3"]
    assert [document_of(corpus, p) for p in ("p1", "p2", "p3", "nope")] == ["reglement", "guide", "bareme", None]
    assert corpus.passages["p1"].section == "Art. 1"
    assert load_corpus(SAMPLE / "corpus").text("p_frais_014").startswith("Barème des indemnités")


def test_a_corpus_passage_without_text_is_an_error_naming_file_and_line(tmp_path: Path) -> None:
    bad = _write(tmp_path / "c.jsonl", '{"id": "p1", "text": "ok"}\n{"id": "p2"}\n')
    with pytest.raises(InputError) as caught:
        load_corpus(bad)
    assert str(caught.value) == f"{bad}:2: text: passage 'p2': expected a text"


def test_edits_are_appended_replayed_in_order_and_undone_by_action(tmp_path: Path, bad_gold: Path) -> None:
    gold = load_gold(bad_gold)
    fixer = GoldFixer.open(gold, default_gold_edits_path(bad_gold), None, ("sans_reponse",))
    assert fixer.edits.path == tmp_path / "gold.edits.jsonl"
    fixer.toggle_gold_passage("nogold", "p9", "p9 answers it")
    fixer.mark_unanswerable("ok", "nothing says it")
    fixer.toggle_tag("dup", "acronyme")
    assert fixer.undo()[0].field == "tags"
    lines = [json.loads(line) for line in fixer.edits.path.read_text(encoding="utf-8").splitlines()]
    assert [(line.get("question"), line.get("field"), line.get("undo", False)) for line in lines] == [
        ("nogold", "gold_passages", False), ("ok", "gold_passages", False), ("ok", "category", False),
        ("dup", "tags", False), ("dup", "tags", True),
    ]
    assert lines[1]["before"] == ["p1"] and lines[1]["after"] == [] and lines[2]["joined"] is True
    replayed = apply_edits(gold, GoldEdits.load(fixer.edits.path).edits)
    rows = {row["id"]: row for row in replayed.gold.frame.iter_rows(named=True)}
    assert rows["nogold"]["gold_passages"] == ["p9"]
    assert (rows["ok"]["gold_passages"], rows["ok"]["category"]) == ([], "sans_reponse")
    assert rows["dup"]["tags"] == []
    assert len(replayed.pending) == 3
    fixer.undo()  # the whole "unanswerable" action: both of its lines
    assert (fixer.value("ok", "category"), fixer.value("ok", "gold_passages")) == ("factuelle", ["p1"])


def test_an_expected_answer_edit_records_before_and_after_and_an_unchanged_one_records_nothing(tmp_path: Path, bad_gold: Path) -> None:
    fixer = GoldFixer.open(load_gold(bad_gold), tmp_path / "log.jsonl", None, ("sans_reponse",))
    assert fixer.set_expected_answer("ok", "Quatre mois.", "same") == []
    made = fixer.set_expected_answer("ok", "Quatre mois, renouvelable.", "the renewal")
    assert [(e.field, e.before, e.after) for e in made] == [("expected_answer", "Quatre mois.", "Quatre mois, renouvelable.")]
    assert fixer.pending == 1 and len((tmp_path / "log.jsonl").read_text(encoding="utf-8").splitlines()) == 1


def test_an_edit_already_in_the_gold_set_is_not_pending(tmp_path: Path, bad_gold: Path) -> None:
    log = GoldEdits(tmp_path / "gold.edits.jsonl")
    log.record([("ok", "category", "factuelle", "factuelle")])
    assert apply_edits(load_gold(bad_gold), log.edits).pending == []


def test_applying_edits_keeps_course_keys_and_order_and_says_comments_are_lost(tmp_path: Path) -> None:
    path = _write(tmp_path / "g.yaml", '# a comment\n- id: q1\n  question: "Q ?"\n  passages_verite: [p1]\n  reponse_attendue: "R."\n  categorie: c\n')
    log = GoldEdits(tmp_path / "g.edits.jsonl")
    log.record([("q1", "category", "c", "sans_reponse"), ("q1", "gold_passages", ["p1"], [])])
    log.record([("q1", "tags", [], ["acronyme"])])
    text = edited_gold_text(path, log.edits)
    assert text == "- id: q1\n  question: Q ?\n  passages_verite: []\n  reponse_attendue: R.\n  categorie: sans_reponse\n  tags: [acronyme]\n"
    assert lost_in_rewrite(path) == ["1 comment line(s)"]


def test_the_report_applies_the_edits_beside_the_gold_set_and_says_so(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.yaml", (SAMPLE / "gold.yaml").read_text(encoding="utf-8"))
    inputs = Inputs(a=SAMPLE / "baseline.jsonl", b=SAMPLE / "candidate.jsonl", gold=gold, cache=False)
    before = build_report(load_comparison(inputs))
    log = GoldEdits(default_gold_edits_path(gold))
    log.record([("q068", "tags", ["acronyme", "tableau"], ["acronyme"])], "not a table question")
    after = build_report(load_comparison(inputs))
    assert (before["tags"]["tableau"]["n"], after["tags"]["tableau"]["n"]) == (3, 2)
    assert "gold: 1 edit(s) of gold.edits.jsonl not yet in gold.yaml, applied (write them with `ragtui gold apply`)" in after["warnings"]


def test_metrics_per_tag_on_the_sample_match_a_hand_count() -> None:
    inputs = Inputs(a=SAMPLE / "baseline.jsonl", b=SAMPLE / "candidate.jsonl", gold=SAMPLE / "gold.yaml", cache=False)
    tableau = build_report(load_comparison(inputs))["tags"]["tableau"]
    metrics = tableau["metrics"]
    # q068, q069, q070. Gold p_frais_014, p_frais_014, p_frais_015: each ranked first by the
    # baseline (recall 3/3); the candidate has no q068 (a failure), and ranks q069's and
    # q070's gold in its top 2 (2/3).
    assert tableau["n"] == 3
    assert (metrics["recall@5"]["A"], metrics["recall@5"]["B"]) == (1.0, 0.6667)
    # Sentences attested, pooled: baseline q068 2/2 and q069 0/1 (q070: no answer, a judge
    # error) = 2/3; candidate q069 1/1 and q070 2/2 = 3/3.
    assert (metrics["faithfulness"]["A"], metrics["faithfulness"]["B"]) == (0.6667, 1.0)
    assert metrics["faithfulness"]["n_by_run"] == {"A": 2, "B": 2}
    # Utility 5 for every judged answer.
    assert (metrics["utility"]["A"], metrics["utility"]["B"]) == (5.0, 5.0)
    assert "meets_target" not in metrics["recall@5"]  # targets are read per category, not per tag


def _run_line(qid: str, retrieved: list[str], attested: bool = True) -> str:
    judge = {"model": "m", "faithfulness": {"sentences": [{"text": "Oui.", "attested": attested}]}, "utility": {"score": 5}}
    return json.dumps({"id": qid, "retrieved": retrieved, "answer": "Oui.", "judge": judge}) + "\n"


def test_likely_gold_problems_are_failures_in_both_runs_answered_from_the_same_non_gold_first_passage(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.yaml", "".join(
        f"- {{id: {qid}, question: '{qid} ?', gold_passages: [g_{qid}], expected_answer: R, category: factuelle}}\n"
        for qid in ("suspect", "other_first", "unattested", "gold_first")
    ))
    # suspect: both rank p9 first, both answers attested, gold never in the top 5: listed.
    # other_first: A ranks p8 first, B p9. unattested: B's answer is not attested.
    # gold_first: gold ranked first, answers attested: it passes.
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text(_run_line("suspect", ["p9", "p1"]) + _run_line("other_first", ["p8"]) + _run_line("unattested", ["p9"])
                 + _run_line("gold_first", ["g_gold_first"]), encoding="utf-8")
    b.write_text(_run_line("suspect", ["p9", "p2"]) + _run_line("other_first", ["p9"]) + _run_line("unattested", ["p9"], attested=False)
                 + _run_line("gold_first", ["g_gold_first"]), encoding="utf-8")
    report = build_report(load_comparison(Inputs(a=a, b=b, gold=gold, cache=False)))
    assert report["likely_gold_problems"] == [{"id": "suspect", "passage": "p9"}]


def test_likely_gold_problems_are_listed_in_run_as_order_whatever_bs_order(tmp_path: Path) -> None:
    # Every question a suspect; B lists them backwards. The list follows A's order (the
    # report's), as a join left to pick its own order gave a different one on a reopen.
    ids = [f"q{i:04d}" for i in range(3000)]
    gold = tmp_path / "gold.jsonl"
    gold.write_text("".join(json.dumps({"id": qid, "question": f"{qid} ?", "gold_passages": [f"g{qid}"], "category": "factuelle"}) + "\n"
                            for qid in ids), encoding="utf-8")
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_text("".join(_run_line(qid, [f"p{qid}"]) for qid in ids), encoding="utf-8")
    b.write_text("".join(_run_line(qid, [f"p{qid}"]) for qid in reversed(ids)), encoding="utf-8")
    report = build_report(load_comparison(Inputs(a=a, b=b, gold=gold, cache=False)))
    assert [suspect["id"] for suspect in report["likely_gold_problems"]] == ids
