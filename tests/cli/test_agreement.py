"""`ragtui agreement J1 J2`: two judges on the same answers, checked against scikit-learn and by hand."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragtui.cli import main
from ragtui.core.comparing.judge_agreement import krippendorff_alpha, weighted_kappa

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def _second_judge(source: Path, target: Path) -> None:
    """The sample's candidate judged again: a seeded judge that flips 15 % of sentence verdicts
    and moves 30 % of utility scores by one point (up more often than down)."""
    rng = np.random.default_rng(34)
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        judge = record.get("judge")
        if isinstance(judge, dict):
            for sentence in (judge.get("faithfulness") or {}).get("sentences", []):
                if rng.random() < 0.15:
                    sentence["attested"] = not sentence["attested"]
            utility = judge.get("utility")
            if isinstance(utility, dict) and isinstance(utility.get("score"), int | float) and rng.random() < 0.3:
                utility["score"] = int(min(5, max(1, utility["score"] + (1 if rng.random() < 0.7 else -1))))
        lines.append(json.dumps(record, ensure_ascii=False))
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _pairs(first: Path, second: Path) -> tuple[list[bool], list[bool], list[float], list[float]]:
    """Sentence verdicts and utility scores of both files, read straight from the JSONL."""

    def verdicts(path: Path) -> dict[str, dict]:
        out = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "id" in record and isinstance(record.get("judge"), dict):
                out[record["id"]] = record["judge"]
        return out

    one, two = verdicts(first), verdicts(second)
    s1, s2, u1, u2 = [], [], [], []
    for qid, judge in one.items():
        sentences = [s["attested"] for s in (judge.get("faithfulness") or {}).get("sentences", [])]
        other = [s["attested"] for s in (two[qid].get("faithfulness") or {}).get("sentences", [])]
        s1 += sentences
        s2 += other
        if isinstance(judge.get("utility"), dict) and judge["utility"].get("score") is not None:
            u1.append(judge["utility"]["score"])
            u2.append(two[qid]["utility"]["score"])
    return s1, s2, u1, u2


@pytest.fixture
def judged_twice(tmp_path) -> tuple[Path, Path]:
    first = SAMPLE / "candidate.jsonl"
    if not first.is_file():
        pytest.skip("the bundled sample (sample_data/) is not there")
    second = tmp_path / "candidate.second_judge.jsonl"
    _second_judge(first, second)
    return first, second


def test_kappa_and_weighted_kappa_equal_scikit_learns_on_a_pair_of_judged_runs(judged_twice, capsys):
    metrics = pytest.importorskip("sklearn.metrics")
    first, second = judged_twice
    assert main(["agreement", str(first), str(second), "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    s1, s2, u1, u2 = _pairs(first, second)
    # Every answer the judge gave verdicts on; abstentions and unjudged answers are not sentences.
    faithfulness = document["faithfulness"]
    assert faithfulness["misaligned_answers"] == 0
    assert faithfulness["sentences"] <= len(s1)
    utility = document["utility"]
    assert utility["answers"] == len(u1)
    assert utility["kappa"] == pytest.approx(metrics.cohen_kappa_score(u1, u2), abs=1e-4)
    assert utility["weighted_kappa"] == pytest.approx(metrics.cohen_kappa_score(u1, u2, weights="quadratic", labels=[1, 2, 3, 4, 5]), abs=1e-4)
    assert utility["agreement"] == pytest.approx(np.mean(np.array(u1) == np.array(u2)), abs=1e-4)
    # The sentences of judged answers (the faithfulness population) against scikit-learn.
    from ragtui.core.comparing.judge_agreement import _sentences
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.session import load_comparison

    comparison = load_comparison(Inputs(a=first, b=second, detail=False, cache=False), intervals=False)
    pairs, _ = _sentences(comparison.a.questions, comparison.b.questions)
    j1, j2 = pairs.get_column("judge").to_list(), pairs.get_column("judge_2").to_list()
    assert faithfulness["kappa"] == pytest.approx(metrics.cohen_kappa_score(j1, j2), abs=1e-4)
    for category, cell in faithfulness["by_category"].items():
        part = pairs.filter(pairs.get_column("category") == category)
        assert cell["kappa"] == pytest.approx(metrics.cohen_kappa_score(part.get_column("judge").to_list(), part.get_column("judge_2").to_list()), abs=1e-4)
    # The second judge moves scores up more than down: the difference says so, with its interval.
    difference = document["difference"]["utility"]
    assert difference["delta"] == pytest.approx(np.mean(u2) - np.mean(u1), abs=1e-4)
    assert difference["ci"][0] <= difference["delta"] <= difference["ci"][1]


def test_krippendorffs_alpha_equals_the_coincidence_matrix_computed_by_hand():
    # Nominal, 2 coders, 6 units: (1,1) (1,0) (0,0) (1,1) (0,1) (1,1) → values 1: 8, 0: 4, n = 12.
    # D_o = 2·2/12; D_e = (12² − 8² − 4²)/(12·11) = 64/132; α = 1 − (4/12)/(64/132) = 0.3125,
    # as the two-coder form 1 − (n − 1)(o₀₁ + o₁₀)/(2 n₀ n₁) = 1 − 11·4/(2·4·8) gives too.
    first, second = np.array([1, 1, 0, 1, 0, 1]), np.array([1, 0, 0, 1, 1, 1])
    assert krippendorff_alpha(first, second) == pytest.approx(0.3125)
    # Interval: scores (4,5) (3,3) (5,5) (2,3): D_o = 2·2/8 = 0.5; pooled Σv = 30, Σv² = 122,
    # D_e = 2·(8·122 − 30²)/(8·7) = 152/56; α = 1 − 0.5/(152/56) = 0.8158.
    assert krippendorff_alpha(np.array([4, 3, 5, 2]), np.array([5, 3, 5, 3]), interval=True) == pytest.approx(1 - 0.5 / (152 / 56))
    assert krippendorff_alpha(np.array([]), np.array([])) is None


def test_weighted_kappa_is_one_for_identical_scores_and_penalises_far_disagreements_more():
    scores = np.array([1, 2, 3, 4, 5, 4, 3])
    assert weighted_kappa(scores, scores) == pytest.approx(1.0)
    near = weighted_kappa(scores, np.minimum(scores + 1, 5))
    far = weighted_kappa(scores, np.where(scores < 3, 5, 1))
    assert far is not None and near is not None and far < near


def test_the_text_view_names_both_judges_and_says_the_difference(judged_twice, capsys):
    first, second = judged_twice
    assert main(["agreement", str(first), str(second), "--gold", str(SAMPLE / "gold.yaml")]) == 0
    out = capsys.readouterr().out
    assert "J1: candidate" in out and "Faithfulness," in out and "weighted κ" in out
    assert "Difference J2 − J1" in out and "Procedural:" in out
    assert all(len(line) <= 100 for line in out.splitlines())


def test_the_agreement_document_is_the_same_whatever_order_the_second_judges_file_holds(judged_twice, tmp_path, capsys):
    # The second judge's answers written backwards: every figure and the categories' order
    # follow the first judge's file, byte for byte.
    first, second = judged_twice
    lines = second.read_text(encoding="utf-8").splitlines()
    backwards = tmp_path / "backwards.jsonl"
    backwards.write_text("\n".join(lines[:1] + lines[1:][::-1]) + "\n", encoding="utf-8")
    assert main(["agreement", str(first), str(second), "--format", "json"]) == 0
    straight = json.loads(capsys.readouterr().out)
    assert main(["agreement", str(first), str(backwards), "--format", "json"]) == 0
    reversed_document = json.loads(capsys.readouterr().out)
    for document in (straight, reversed_document):
        document.pop("second", None), document.pop("runs", None)
    assert json.dumps(reversed_document["faithfulness"]) == json.dumps(straight["faithfulness"])
    assert json.dumps(reversed_document["difference"]) == json.dumps(straight["difference"])
    assert json.dumps(reversed_document["utility"]) == json.dumps(straight["utility"])
