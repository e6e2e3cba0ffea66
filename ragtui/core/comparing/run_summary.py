"""Per run, what its header and report section show: counts, recall curve, judge trust.

Computed once by `compare` (and `corrected_metrics` on the first read of
`Comparison.corrected`), so the report and the dashboard read the same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from ragtui.core.loading.config import Config
from ragtui.core.loading.labels import RunLabels, from_run
from ragtui.core.measuring.calibration import calibrate
from ragtui.core.measuring.correction import correct, corrected_delta
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.judge_noise import RunNoise, run_noise
from ragtui.core.measuring.label_values import CORRECTED_METRICS, Calibration, CorrectedMetric
from ragtui.core.measuring.metric_specs import Counts
from ragtui.core.measuring.metrics import counts, recall_curve, unavailable_metrics
from ragtui.core.measuring.tool_scores import tool_of


@dataclass(frozen=True)
class ToolCounts:
    """A peer tool's verdicts on one run's present questions."""

    tool: str | None
    verdicts: int  # questions the tool judged
    failing: int  # of which it failed
    errors: int  # questions it could not judge


@dataclass(frozen=True)
class RunSummary:
    """What one run's header and its report section show."""

    counts: Counts
    recall_curve: list[float | None]  # recall@j for j = 1…CURVE_MAX_K
    unavailable: frozenset[str]  # metrics that measured nothing although they had questions
    calibration: Calibration | None  # the judge against people's labels; None: no label
    tool: ToolCounts | None = None  # None: the run was measured without tool columns
    noise: RunNoise | None = None  # the judge against itself (judge --repeat N); None: judged once


@dataclass(frozen=True)
class CorrectedComparison:
    """Faithfulness or utility corrected by the sampled labels, per run, and its Δ."""

    runs: dict[str, CorrectedMetric]
    delta: float | None = None
    delta_ci: tuple[float, float] | None = None


def run_labels(evaluations: dict[str, Evaluation], labels: dict[str, RunLabels] | None) -> dict[str, RunLabels]:
    """Each run's labels: those given, else the run's own `human` labels."""
    given = labels or {}
    return {
        side: given[side] if given.get(side) is not None else from_run(evaluation.run.name, evaluation.questions)
        for side, evaluation in evaluations.items()
    }


def tool_counts(evaluation: Evaluation) -> ToolCounts | None:
    """The peer tool's verdicts on the run's present questions (None without tool columns)."""
    if "tool_pass" not in evaluation.questions.columns:
        return None
    present = evaluation.questions.filter(pl.col("present"))
    error = pl.col("tool_error")
    return ToolCounts(
        tool=tool_of(evaluation),
        verdicts=present.filter(pl.col("tool_pass").is_not_null() & error.is_null()).height,
        failing=present.filter((pl.col("tool_pass") == False) & error.is_null()).height,  # noqa: E712
        errors=present.filter(error.is_not_null()).height,
    )


def summarize_run(evaluation: Evaluation, labels: RunLabels, config: Config) -> RunSummary:
    """One run's header: its counts, recall curve, unavailable metrics, tool and judge trust."""
    return RunSummary(
        counts=counts(evaluation),
        recall_curve=recall_curve(evaluation),
        unavailable=frozenset(unavailable_metrics(evaluation)),
        calibration=calibrate(evaluation.questions, labels, confidence=config.confidence),
        tool=tool_counts(evaluation),
        noise=run_noise(evaluation.questions),
    )


def corrected_metrics(
    evaluations: dict[str, Evaluation], labels: dict[str, RunLabels], config: Config
) -> dict[str, CorrectedComparison]:
    """Faithfulness and utility corrected by each run's sampled labels, with Δ B − A."""
    labels = run_labels(evaluations, labels)
    per_run = {
        side: correct(evaluation.questions, labels[side], confidence=config.confidence, max_drop=config.max_drop)
        for side, evaluation in evaluations.items()
    }
    out = {}
    for name in CORRECTED_METRICS:
        runs = {side: found[name] for side, found in per_run.items()}
        delta, ci = (None, None)
        if "B" in runs:
            delta, ci = corrected_delta(runs["A"].corrected, runs["B"].corrected, config.confidence)
        out[name] = CorrectedComparison(runs, delta, ci)
    return out
