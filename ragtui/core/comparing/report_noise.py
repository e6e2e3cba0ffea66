"""The judge-noise parts of the report document (`ragtui judge --repeat N`, docs/cli.md).

Present only when at least one run was judged more than once, so a report of runs judged
once keeps its shape: `flip_rate` under faithfulness and utility in `metrics`,
`judge_noise` per run, `questions.unstable_verdict` (the ids whose verdicts flip in
either run) and `unstable_verdict` on each regression. Read from the comparison's run
summaries (`RunSummary.noise`), never recomputed here.
"""

from __future__ import annotations

from typing import Any

from ragtui.core.comparing.result import Comparison
from ragtui.core.measuring.judge_noise import FlipRate, RunNoise


def _rate(rate: FlipRate, repeats: int) -> dict[str, Any]:
    value = rate.value
    return {"value": None if value is None else round(value, 4), "flipped": rate.flipped, "units": rate.units, "repeats": repeats}


def _run(noise: RunNoise | None) -> dict[str, Any] | None:
    if noise is None:
        return None
    return {
        "repeats": noise.repeats,
        "answers": noise.answers,
        "unstable_questions": len(noise.unstable_ids),
        "left_out": noise.left_out,
    }


def add_noise_fields(report: dict[str, Any], comparison: Comparison) -> None:
    """Add the judge-noise fields to `report` in place (nothing when no run has repetitions)."""
    noises = {side: summary.noise for side, summary in comparison.runs.items()}
    if all(noise is None for noise in noises.values()):
        return
    for metric in ("faithfulness", "utility"):
        if metric in report["metrics"]:
            report["metrics"][metric]["flip_rate"] = {
                side: None if noise is None else _rate(getattr(noise, metric), noise.repeats) for side, noise in noises.items()
            }
    report["judge_noise"] = {side: _run(noise) for side, noise in noises.items()}
    unstable = comparison.unstable_ids
    order = comparison.a.questions.get_column("id").to_list()
    report["questions"]["unstable_verdict"] = [qid for qid in order if qid in unstable] + sorted(unstable.difference(order))
    for regression in report.get("regressions", []):
        regression["unstable_verdict"] = regression["id"] in unstable
