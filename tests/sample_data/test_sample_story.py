"""The bundled sample tells its story, checked from docs/metrics.md's definitions.

Every number here is recomputed by hand from the files, independently of the generator
(tools/) and of ragtui's own metrics: if either drifts, these claims say what broke.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from pathlib import Path

import pytest
import yaml

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
K = 5
KINDS = ("retrieval_miss", "unfaithful", "answered_unanswerable", "false_abstention", "low_utility", "judge_error")


def _load_yaml(path: Path):
    with path.open(encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _load_run(name: str) -> tuple[dict, dict[str, dict]]:
    lines = (SAMPLE / name).read_text(encoding="utf-8").splitlines()
    meta = json.loads(lines[0])["run"]
    return meta, {record["id"]: record for record in map(json.loads, lines[1:])}


GOLD = {q["id"]: q for q in _load_yaml(SAMPLE / "gold.yaml")}
CONFIG = _load_yaml(SAMPLE / "ragtui.yaml")
RUNS = {"A": _load_run("baseline.jsonl"), "B": _load_run("candidate.jsonl")}


def _fold(text: str) -> str:
    """docs/formats.md: case-, accent- and punctuation-insensitive."""
    text = "".join(c for c in unicodedata.normalize("NFKD", text.lower()) if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w\s]", " ", text).split())


def abstained(meta: dict, record: dict) -> bool:
    answer = record.get("answer")
    return answer is not None and any(_fold(p) in _fold(answer) for p in meta["fallback_phrases"])


def answerable(q: dict) -> bool:
    return bool(q["passages_verite"]) and q["categorie"] != "sans_reponse"


def judged(record: dict) -> bool:
    judge = record.get("judge")
    return bool(judge) and not judge.get("error")


def recall_at_5(run: str) -> float:
    _, records = RUNS[run]
    hits = []
    for qid, q in GOLD.items():
        if answerable(q):
            top = [item["id"] for item in records[qid]["retrieved"][:K]] if qid in records else []
            hits.append(bool(set(q["passages_verite"]) & set(top)))
    return sum(hits) / len(hits)


def micro_faithfulness(run: str) -> float:
    meta, records = RUNS[run]
    attested = total = 0
    for record in records.values():
        if judged(record) and not abstained(meta, record):
            sentences = record["judge"]["faithfulness"]["sentences"]
            attested += sum(s["attested"] for s in sentences)
            total += len(sentences)
    return attested / total


def failure_kinds(run: str) -> dict[str, set[str]]:
    meta, records = RUNS[run]
    utility_min = CONFIG["targets"]["utility"]["min"]
    kinds: dict[str, set[str]] = {kind: set() for kind in (*KINDS, "missing")}
    for qid, q in GOLD.items():
        record = records.get(qid)
        if record is None:
            kinds["missing"].add(qid)
            continue
        top = [item["id"] for item in record["retrieved"][:K]]
        if answerable(q) and not set(q["passages_verite"]) & set(top):
            kinds["retrieval_miss"].add(qid)
        if answerable(q) and abstained(meta, record):
            kinds["false_abstention"].add(qid)
        if not answerable(q) and not abstained(meta, record):
            kinds["answered_unanswerable"].add(qid)
        if not judged(record):
            kinds["judge_error"].add(qid)
            continue
        if record["judge"]["utility"]["score"] < utility_min:
            kinds["low_utility"].add(qid)
        if not abstained(meta, record) and not all(s["attested"] for s in record["judge"]["faithfulness"]["sentences"]):
            kinds["unfaithful"].add(qid)
    return kinds


def test_the_corpus_holds_about_150_passages_from_5_to_7_documents() -> None:
    documents = [_load_yaml(path) for path in sorted((SAMPLE / "corpus").glob("*.yaml"))]
    ids = [p["id"] for d in documents for p in d["passages"]]
    assert 5 <= len(documents) <= 7
    assert 140 <= len(ids) <= 160
    assert len(set(ids)) == len(ids)
    assert all(p["section"] and len(p["text"]) > 100 for d in documents for p in d["passages"])


def test_the_gold_set_has_120_questions_a_quarter_of_them_unanswerable() -> None:
    categories = Counter(q["categorie"] for q in GOLD.values())
    assert len(GOLD) == 120
    assert set(categories) == {"factuelle_courte", "procedurale", "sans_reponse", "contradiction_connue"}
    assert 0.20 <= categories["sans_reponse"] / len(GOLD) <= 0.30
    assert all(len(q["passages_verite"]) <= 3 and q["reponse_attendue"] for q in GOLD.values())
    assert all(q["passages_verite"] == [] for q in GOLD.values() if q["categorie"] == "sans_reponse")


def test_every_id_in_the_sample_is_a_corpus_passage() -> None:
    known = {p["id"] for path in (SAMPLE / "corpus").glob("*.yaml") for p in _load_yaml(path)["passages"]}
    named = {p for q in GOLD.values() for p in q["passages_verite"]}
    for _, records in RUNS.values():
        for record in records.values():
            assert len(record["retrieved"]) == 20
            named |= {item["id"] for item in record["retrieved"]} | set(record["cited"])
    assert named <= known


@pytest.mark.parametrize("run", ["A", "B"])
def test_judge_and_human_sentences_are_the_answer_in_order(run: str) -> None:
    _, records = RUNS[run]
    for record in records.values():
        for labels in (record.get("judge"), record.get("human")):
            if labels and not labels.get("error"):
                texts = [s["text"] for s in labels["faithfulness"]["sentences"]]
                assert " ".join(texts) == record["answer"], record["id"]


def test_the_runs_say_plainly_that_answers_and_verdicts_are_synthetic() -> None:
    for meta, _ in RUNS.values():
        assert "SYNTHETIC" in meta["system"]
        assert "synthétis" in meta["note"]
        assert meta["k"] == K and meta["gold_set"] == "gold.yaml"


def test_the_candidate_finds_more_gold_passages_in_its_top_5() -> None:
    a, b = recall_at_5("A"), recall_at_5("B")
    assert a < CONFIG["targets"]["recall@5"]["min"] <= b


def test_the_candidate_is_about_3_points_less_faithful() -> None:
    a, b = micro_faithfulness("A"), micro_faithfulness("B")
    assert -5.0 <= (b - a) * 100 <= -1.5
    assert a >= CONFIG["targets"]["faithfulness"]["min"] > b


def test_procedural_questions_fail_more_in_the_candidate() -> None:
    def failing_procedures(run: str) -> int:
        kinds = failure_kinds(run)
        failing = set().union(*kinds.values())
        return sum(1 for qid in failing if GOLD[qid]["categorie"] == "procedurale")

    assert failing_procedures("B") >= failing_procedures("A") + 3


def test_only_the_candidate_is_judged_by_its_generators_family() -> None:
    def family(model: str) -> str:
        return re.match(r"[a-z]+", model.lower()).group(0)

    same = {run: family(meta["generator_model"]) == family(meta["judge_model"]) for run, (meta, _) in RUNS.items()}
    assert same == {"A": False, "B": True}


@pytest.mark.parametrize("run", ["A", "B"])
def test_30_answers_carry_human_labels_and_the_judge_agrees_on_80_to_92_percent_of_sentences(run: str) -> None:
    _, records = RUNS[run]
    labelled = [r for r in records.values() if r.get("human")]
    pairs = [
        (j["attested"], h["attested"])
        for r in labelled
        for j, h in zip(r["judge"]["faithfulness"]["sentences"], r["human"]["faithfulness"]["sentences"])
    ]
    assert len(labelled) == 30
    assert 0.80 <= sum(j == h for j, h in pairs) / len(pairs) <= 0.92


@pytest.mark.parametrize("run", ["A", "B"])
def test_every_failure_kind_occurs_at_least_3_times(run: str) -> None:
    counts = {kind: len(ids) for kind, ids in failure_kinds(run).items()}
    assert all(counts[kind] >= 3 for kind in KINDS), counts
    assert counts["missing"] >= (3 if run == "B" else 0)


def test_the_config_carries_the_missions_targets() -> None:
    assert CONFIG["k"] == K
    assert {name: t["min"] for name, t in CONFIG["targets"].items()} == {
        "recall@5": 0.80, "faithfulness": 0.85, "abstention": 0.90, "utility": 4.0,
    }
    assert CONFIG["regression"] == {"max_drop": 0.03, "confidence": 0.95}
