"""The README says what the code does: its target rule and its walk-through's examples."""

from __future__ import annotations

import re
from pathlib import Path

from ragtui.core.comparing.targets import MEETS, target_verdict

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def test_readme_target_table_reads_at_least_as_the_rule_does():
    # An interval that touches the target from the good side meets it: utility [4, 4] meets 4.
    assert target_verdict((4.0, 4.0), 4.0, higher_is_better=True) == MEETS
    table = README.split("## What it measures", 1)[1].split("\n\n")[2]
    targets = [row.split("|")[-2].strip() for row in table.splitlines()[2:]]
    assert len(targets) == 4 and all(target.startswith("≥ ") for target in targets), targets


def test_readme_copy_example_reopens_the_question_the_walk_through_shows():
    (copied,) = re.findall(r"--question (q\d+)", README)
    shown = {re.search(r"q\d{3}", (REPO / "docs" / "screenshots" / name).read_text(encoding="utf-8")).group(0)
             for name in ("walk-2-question.svg", "walk-6-copy.svg", "walk-7-copied.svg")}
    assert shown == {copied}
