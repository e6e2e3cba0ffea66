"""The text report's tables by group of questions: by category, by tag of the gold set, and
the questions whose failure looks like a gold problem.

`render.py` hands in its table layout and its row builder (as it does to `render_tools`),
so a category and a tag are drawn by one function and this module needs nothing of it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragtui.core.sanitize import neutralize
from ragtui.core.vocabulary import TARGET_LEGEND

Table = Callable[..., list[str]]
Rows = Callable[[dict[str, Any], bool, str], list[list[str]]]


def group_tables(report: dict[str, Any], two: bool, table: Table, rows: Rows, names: list[str]) -> list[str]:
    """By category, then by tag (when the gold set has tags), then the likely gold problems;
    `names`: the headline metrics, one column each."""
    lines = ["", f"By category (A → B; B vs target: {TARGET_LEGEND}):" if two else f"By category (vs target: {TARGET_LEGEND}):"]
    lines += table(rows(report, two, "categories"), ["category", "n", *names], gap=" ")
    if report.get("tags"):
        lines += ["", "By tag of the gold set (A → B; a question counts in each of its tags):" if two else "By tag of the gold set:"]
        lines += table(rows(report, two, "tags"), ["tag", "n", *names], gap=" ")
    suspects = report.get("likely_gold_problems") or []
    if suspects:
        lines += ["", f"Likely gold problems ({len(suspects)}): failing in both runs, both answers attested,",
                  "from the same first passage, which is not gold:"]
        lines += [f"  {neutralize(s['id'], keep_newlines=False)}  first passage {neutralize(s['passage'], keep_newlines=False)}" for s in suspects]
    return lines
