"""A peer tool's own per-question scores and verdicts, and whose verdicts make a question fail.

Files from DeepEval, RAGAS, promptfoo and inspect_ai carry scores the tool computed; the
importers keep them in each record's `scores` / `score_details` / `scores_notes` and the
tool's verdict on the whole question in `tool_verdict` (they reach the frame in `extra`).
This module turns them into columns of `Evaluation.questions`:

- `tool_scores`: one entry per tool metric (`TOOL:METRIC`): value, threshold, pass, the
  tool's reason, and the error that kept it from scoring;
- `tool_pass`: the tool's verdict on the question (DeepEval's and promptfoo's `success`;
  otherwise every metric with a pass/fail passes), null when the tool gave none;
- `tool_error`: why the tool could not judge the question (a metric error, a failed
  provider call), null otherwise. An errored question is never passing.

The status source decides which verdicts make a question fail: ragtui's failure kinds,
the tool's (`tool_fail`, `tool_error`), or both.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from typing import Any

import polars as pl

from ragtui.core.errors import InputError, problem
from ragtui.core.loading.config import Config, ToolTarget
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.vocabulary import TOOL_LABELS

STATUS_SOURCES = ("ragtui", "tool", "both")
TOOL_KINDS = ("tool_fail", "tool_error")
NO_VERDICT = "the tool gave no verdict on this question"

TOOL_SCORE = pl.Struct(
    {
        "metric": pl.String,
        "value": pl.Float64,
        "threshold": pl.Float64,
        "passed": pl.Boolean,
        "reason": pl.String,
        "error": pl.String,
    }
)


def tool_of(evaluation: Evaluation) -> str | None:
    """The peer tool a run was imported from (`deepeval`, …), None for ragtui's own runs."""
    imported = evaluation.run.meta.extra.get("imported_from")
    fmt = imported.get("format") if isinstance(imported, dict) else None
    return fmt if fmt in TOOL_LABELS else None


def with_tool_scores(evaluation: Evaluation, config: Config) -> Evaluation:
    """The evaluation with `tool_scores`, `tool_pass` and `tool_error` (empty for native runs)."""
    tool = tool_of(evaluation)
    frame = evaluation.questions
    if tool is None or "extra" not in frame.columns:
        frame = frame.with_columns(
            pl.lit([], dtype=pl.List(TOOL_SCORE)).alias("tool_scores"),
            pl.lit(None, dtype=pl.Boolean).alias("tool_pass"),
            pl.lit(None, dtype=pl.String).alias("tool_error"),
        )
        return replace(evaluation, questions=frame)
    parsed = [_question(text, tool, config.tool_targets) for text in frame.get_column("extra").to_list()]
    frame = frame.with_columns(
        pl.Series("tool_scores", [scores for scores, _, _ in parsed], dtype=pl.List(TOOL_SCORE)),
        pl.Series("tool_pass", [passed for _, passed, _ in parsed], dtype=pl.Boolean),
        pl.Series("tool_error", [error for _, _, error in parsed], dtype=pl.String),
    )
    # What the importer said about reading the tool's file (how DeepEval's spans are read, …).
    said = tuple(f"{evaluation.run.name}: {note.message}" for note in evaluation.run.warnings)
    return replace(evaluation, questions=frame, warnings=evaluation.warnings + said)


def _question(extra: str | None, tool: str, targets: dict[str, ToolTarget]) -> tuple[list[dict[str, Any]], bool | None, str | None]:
    """(tool metric entries, the tool's verdict, the tool's error) of one question."""
    data = json.loads(extra) if extra else {}
    if not isinstance(data, dict):
        return [], None, None
    scores = _mapping(data.get("scores"))
    details = _mapping(data.get("score_details"))
    notes = _mapping(data.get("scores_notes"))
    entries: list[dict[str, Any]] = []
    for name, raw_value in scores.items():
        full = f"{tool}:{name}"
        detail = _mapping(details.get(name))
        value = _number(raw_value)
        target = targets.get(full)
        threshold = _number(detail.get("threshold"))
        if threshold is None and target is not None:
            threshold = target.value
        error = _text(detail.get("error")) or (_text(notes.get(name)) or "no score in the file" if value is None else None)
        passed = detail.get("pass") if isinstance(detail.get("pass"), bool) else None
        if passed is None and value is not None and threshold is not None:
            higher = target.higher_is_better if target is not None else True
            passed = value >= threshold if higher else value <= threshold
        entries.append(
            {
                "metric": full,
                "value": value,
                "threshold": threshold,
                "passed": None if error else passed,
                "reason": _text(detail.get("reason") or detail.get("explanation")),
                "error": error,
            }
        )
    verdict = _mapping(data.get("tool_verdict"))
    errors = [f"{entry['metric'].split(':', 1)[1]}: {entry['error']}" for entry in entries if entry["error"]]
    error = _text(verdict.get("error")) or ("; ".join(errors) if errors else None)
    passed = verdict.get("pass") if isinstance(verdict.get("pass"), bool) else None
    if passed is None:
        known = [entry["passed"] for entry in entries if entry["passed"] is not None]
        passed = all(known) if known else None
    return entries, passed, error


def has_tool_verdicts(evaluation: Evaluation) -> bool:
    """Whether the tool passed or failed at least one question of this run.

    Errors alone are no verdicts: a RAGAS file without thresholds has a NaN score here and
    there and no pass/fail anywhere, and its questions are not all tool errors.
    """
    return bool(evaluation.questions.select(pl.col("tool_pass").is_not_null().any()).item())


def has_ragtui_verdicts(evaluation: Evaluation) -> bool:
    """Whether any question of this run carries a verdict of ragtui's judge."""
    return bool(evaluation.questions.select(pl.col("judge_present").fill_null(False).any()).item())


def resolve_status_source(requested: str | None, evaluations: list[Evaluation]) -> str:
    """The status source: as requested, else the tool's when no run has ragtui verdicts
    and every run has the tool's.

    Raises:
        InputError: "tool" or "both" asked for a run whose tool gave no verdicts.
    """
    if requested is None:
        tool_only = all(has_tool_verdicts(e) and not has_ragtui_verdicts(e) for e in evaluations)
        return "tool" if tool_only else "ragtui"
    if requested not in STATUS_SOURCES:
        raise InputError(problem(evaluations[0].run.path, None, None, f"--status-from {requested}: expected one of {', '.join(STATUS_SOURCES)}"))
    if requested != "ragtui":
        for evaluation in evaluations:
            if not has_tool_verdicts(evaluation):
                why = "set thresholds under tool_targets: in ragtui.yaml" if tool_of(evaluation) == "ragas" else "it is not a tool's file with verdicts"
                raise InputError(
                    problem(evaluation.run.path, None, None, f"--status-from {requested}: the run has no per-question verdicts of its tool ({why})")
                )
    return requested


def apply_status_source(evaluation: Evaluation, source: str) -> Evaluation:
    """`failures` and `failed` as the status source says (missing questions always fail).

    A tool's run without a verdict of its tool says so among its warnings: its status is ragtui's.
    """
    if source == "ragtui":
        tool = tool_of(evaluation)
        if tool is None or has_tool_verdicts(evaluation):
            return evaluation
        return replace(evaluation, warnings=(*evaluation.warnings, no_tool_verdict_note(evaluation.run.name, tool)))
    present = pl.col("present")
    errored = present & (pl.col("tool_error").is_not_null() | pl.col("tool_pass").is_null())
    tool_kinds = pl.concat_list(
        pl.when(errored).then(pl.lit("tool_error")),
        pl.when(present & ~errored & ~pl.col("tool_pass").fill_null(True)).then(pl.lit("tool_fail")),
    )
    if source == "tool":
        kinds = pl.concat_list(pl.when(~present).then(pl.lit("missing")), tool_kinds)
    else:
        kinds = pl.concat_list(pl.col("failures"), tool_kinds)
    frame = evaluation.questions.with_columns(
        failures=kinds.list.drop_nulls(),
        tool_error=pl.when(errored).then(pl.col("tool_error").fill_null(pl.lit(NO_VERDICT))),
    ).with_columns(failed=pl.col("failures").list.len() > 0)
    return replace(evaluation, questions=frame)


def no_tool_verdict_note(run_name: str, tool: str) -> str:
    """Why a tool's run is judged by ragtui's metrics alone."""
    label = TOOL_LABELS.get(tool, tool)
    why = (
        "none of its metrics has a threshold (set them under tool_targets: in ragtui.yaml)"
        if tool in ("ragas", "inspect")
        else "the file carries no per-question pass or fail"
    )
    return f"{run_name}: no {label} verdict on any question — {why}; question status comes from ragtui's own metrics"


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
