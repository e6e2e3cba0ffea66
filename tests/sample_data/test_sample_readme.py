"""sample_data/README.md says what the app and the reports say, and names only files that exist."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import TARGET_SYMBOL, value_text

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
REPO = SAMPLE.parent
README = (SAMPLE / "README.md").read_text(encoding="utf-8")


def test_sample_readme_names_only_files_that_exist():
    # Every `name.ext` in code spans, and every bare NAME.md, is a file of the sample folder
    # or of the repository (a glob names at least one file).
    named = set(re.findall(r"`([\w./*-]+\.(?:py|yaml|jsonl|md))`", README)) | set(re.findall(r"\b([\w/]+\.md)\b", README))
    missing = [name for name in sorted(named) if not any(next(root.glob(name), None) for root in (SAMPLE, REPO, REPO / "tools" / "sample_data_gen"))]
    assert named and missing == []


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("story") / "report.json"
    args = [str(SAMPLE / "baseline.jsonl"), str(SAMPLE / "candidate.jsonl"), "--gold", str(SAMPLE / "gold.yaml"),
            "--config", str(SAMPLE / "ragtui.yaml"), "--format", "json", "-o", str(out)]
    assert main(["report", *args]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_sample_readme_story_table_marks_each_run_against_its_target_as_the_report_does(report):
    story = README.split("## The story it tells", 1)[1].split("\n\n")[2]
    rows = [line.split("|")[1:-1] for line in story.splitlines() if line.startswith("| ") and not line.startswith(("| metric", "|---"))]
    names = {"recall@5": "recall@5", "faithfulness (micro)": "faithfulness", "abstention": "abstention", "utility": "utility"}
    assert [cells[0].strip() for cells in rows] == list(names)
    for cells in rows:
        metric = report["metrics"][names[cells[0].strip()]]
        for side, cell in zip("AB", cells[2:4], strict=True):
            value, mark = cell.split()
            assert value == value_text(metric[side], metric_by_name(names[cells[0].strip()]))  # as the report prints it
            # B's recall@5 reads "?" in the app and the reports (78.1…92.2 % around 80 %), not ✓.
            assert mark == TARGET_SYMBOL[metric["meets_target"][side]], (cells[0], side)
