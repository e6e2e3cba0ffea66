"""The report of more than two runs: each candidate against the reference, in today's shape.

`comparisons` holds one two-run report (`build_report`) per candidate, so a reader of the
two-run JSON reads each of them unchanged; `runs` lists every run once, the reference first.
`tradeoff` reads every run at its own k (`comparing.tradeoff`): the recall–faithfulness
trade-off the shared k of the comparisons hides.
"""

from __future__ import annotations

from typing import Any

from ragtui.core.comparing.compare import Comparison
from ragtui.core.comparing.report import build_report
from ragtui.core.comparing.report_model import LabelledRunFields, MultiReport
from ragtui.core.comparing.tradeoff import SHOWN, Tradeoff, build_tradeoff
from ragtui.core.vocabulary import run_label


def build_multi_report(comparisons: list[Comparison]) -> MultiReport:
    """The report document of docs/cli.md for more than two runs: `runs`, `k`, `comparisons`, `tradeoff`.

    Args:
        comparisons: each candidate against the same reference run A, in the order given.
    """
    pairs = [build_report(comparison) for comparison in comparisons]
    runs = [pairs[0]["runs"]["A"], *[pair["runs"]["B"] for pair in pairs]]
    return {
        "runs": [LabelledRunFields(label=run_label(position), **run) for position, run in enumerate(runs)],
        "k": pairs[0]["k"],
        "comparisons": pairs,
        "tradeoff": tradeoff_section(build_tradeoff(comparisons)),
    }


def tradeoff_section(tradeoff: Tradeoff) -> dict[str, Any]:
    """Every run at its own k: recall@k, faithfulness, utility (with n), the best on both, the front."""
    front = tradeoff.front()
    return {
        "targets": tradeoff.targets,
        "target_k": tradeoff.target_k,
        "best": tradeoff.best(),
        "front": [point.label for point in tradeoff.points if point.label in front],
        "points": [
            {
                "label": point.label,
                "name": point.name,
                "k": point.k,
                "k_from": point.k_source,
                **{name: point.values[name].value for name in SHOWN},
                "n": {name: point.values[name].n for name in SHOWN},
            }
            for point in tradeoff.points
        ],
    }

