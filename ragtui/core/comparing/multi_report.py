"""The report of more than two runs: each candidate against the reference, in today's shape.

`comparisons` holds one two-run report (`build_report`) per candidate, so a reader of the
two-run JSON reads each of them unchanged; `runs` lists every run once, the reference first.
Nothing is computed here that `build_report` does not already compute for its pair.
"""

from __future__ import annotations

from typing import Any

from ragtui.core.comparing.compare import Comparison
from ragtui.core.comparing.report import build_report, failed_checks
from ragtui.core.vocabulary import run_label


def build_multi_report(comparisons: list[Comparison]) -> dict[str, Any]:
    """The report document of docs/cli.md for more than two runs: `runs`, `k`, `comparisons`.

    Args:
        comparisons: each candidate against the same reference run A, in the order given.
    """
    pairs = [build_report(comparison) for comparison in comparisons]
    runs = [pairs[0]["runs"]["A"], *[pair["runs"]["B"] for pair in pairs]]
    return {
        "runs": [{"label": run_label(position), **run} for position, run in enumerate(runs)],
        "k": pairs[0]["k"],
        "comparisons": pairs,
    }


def failed_multi_checks(
    report: dict[str, Any], *, on_regression: bool, below_target: bool, strict_targets: bool = False
) -> list[tuple[str, str]]:
    """Every gate applied to every comparison: (the candidate's label, why it failed)."""
    return [
        (run_label(position), reason)
        for position, pair in enumerate(report["comparisons"], start=1)
        for reason in failed_checks(pair, on_regression=on_regression, below_target=below_target, strict_targets=strict_targets)
    ]
