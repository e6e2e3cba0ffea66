"""The judge-noise parts of the report document (`ragtui judge --repeat N`, docs/cli.md).

Present only when at least one run was judged more than once, so a report of runs judged
once keeps its shape: `flip_rate` under faithfulness and utility in `metrics`,
`judge_noise` per run, `questions.unstable_verdict` (the ids whose verdicts flip in
either run) and `unstable_verdict` on each regression.
"""

from __future__ import annotations

from typing import Any

from ragtui.core.comparing.compare import Comparison
from ragtui.core.measuring.judge_noise import FlipRate, RunNoise, run_noise


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


def unstable_ids(comparison: Comparison) -> set[str]:
    """The questions whose verdicts flip between repetitions, in either run."""
    sides = [comparison.a, *([comparison.b] if comparison.b is not None else [])]
    return {qid for evaluation in sides if (noise := run_noise(evaluation.questions)) is not None for qid in noise.unstable_ids}


def add_noise_fields(report: dict[str, Any], comparison: Comparison) -> None:
    """Add the judge-noise fields to `report` in place (nothing when no run has repetitions)."""
    sides = {"A": comparison.a, **({"B": comparison.b} if comparison.b is not None else {})}
    noises = {side: run_noise(evaluation.questions) for side, evaluation in sides.items()}
    if all(noise is None for noise in noises.values()):
        return
    for metric in ("faithfulness", "utility"):
        if metric in report["metrics"]:
            report["metrics"][metric]["flip_rate"] = {
                side: None if noise is None else _rate(getattr(noise, metric), noise.repeats) for side, noise in noises.items()
            }
    report["judge_noise"] = {side: _run(noise) for side, noise in noises.items()}
    unstable = {qid for noise in noises.values() if noise is not None for qid in noise.unstable_ids}
    order = comparison.a.questions.get_column("id").to_list()
    report["questions"]["unstable_verdict"] = [qid for qid in order if qid in unstable] + sorted(unstable.difference(order))
    for regression in report.get("regressions", []):
        regression["unstable_verdict"] = regression["id"] in unstable
