"""Utility's population on the sample: every answer the judge scored, abstentions included.

An abstention is a reply the user reads: the judge scores a right one high and a false one
low, so it counts in utility (it makes no claim, so it stays out of faithfulness). The
values are recomputed from the files by hand and compared with ragtui's report, and
docs/metrics.md must say the same.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.cli import main
from tests.sample_data.test_sample_story import GOLD, RUNS, SAMPLE, abstained

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _scores(run: str, category: str | None = None) -> list[float]:
    """The judge's utility score of every answer it scored without an error, abstentions included."""
    meta, records = RUNS[run]
    out = []
    for qid, record in records.items():
        judge = record.get("judge") or {}
        score = (judge.get("utility") or {}).get("score")
        if record.get("answer") is None or judge.get("error") or score is None:
            continue
        if not abstained(meta, record) and not (judge.get("faithfulness") or {}).get("sentences"):
            continue  # no sentence verdicts on an answer: a judge error
        if category is None or GOLD[qid]["categorie"] == category:
            out.append(score)
    return out


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    sample = [str(SAMPLE / name) for name in ("baseline.jsonl", "candidate.jsonl")]
    args = [*sample, "--gold", str(SAMPLE / "gold.yaml"), "--config", str(SAMPLE / "ragtui.yaml"), "--format", "json"]
    out = tmp_path_factory.mktemp("utility") / "report.json"
    assert main(["report", *args, "-o", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_utility_on_the_sample_counts_every_answer_the_judge_scored_abstentions_included(report):
    # Hand-checked: A holds 116 usable scores, 29 of them in "No answer in corpus", where
    # 26 answers abstained and the judge scored them 5 (20), 4 (5) and 3 (1): they count.
    a_all, a_none = _scores("A"), _scores("A", "sans_reponse")
    assert len(a_all) == report["metrics"]["utility"]["n_by_run"]["A"] == 116
    assert report["metrics"]["utility"]["A"] == pytest.approx(sum(a_all) / len(a_all), abs=1e-4)
    cell = report["categories"]["sans_reponse"]["metrics"]["utility"]
    assert len(a_none) == cell["n_by_run"]["A"] == 29
    assert cell["A"] == pytest.approx(sum(a_none) / 29, abs=1e-4) == pytest.approx(4.3448, abs=1e-4)
    b_all = _scores("B")
    assert report["metrics"]["utility"]["B"] == pytest.approx(sum(b_all) / len(b_all), abs=1e-4)


def test_docs_say_utility_counts_abstentions_the_judge_scored():
    row = next(line for line in (DOCS / "metrics.md").read_text(encoding="utf-8").splitlines() if line.startswith("| `utility` |"))
    assert "abstentions included" in row
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    assert "abstentions included" in next(line for line in readme.splitlines() if line.startswith("| usefulness |"))
