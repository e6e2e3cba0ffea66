"""A and B side by side: each question's measures (num, den) and the frame of the questions
both runs hold, on which every Δ, interval and status is computed (`compare`, `intervals`)."""

from __future__ import annotations

import polars as pl

from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metric_specs import METRICS
from ragtui.core.measuring.metrics import num_den


def measure_columns(evaluation: Evaluation) -> pl.DataFrame:
    """Per question: each metric's (num, den) and whether anything was measured at all."""
    specs = []
    for spec in METRICS:
        num, den = num_den(spec)
        specs += [num.alias(f"{spec.key}:num"), den.alias(f"{spec.key}:den")]
    frame = evaluation.questions.with_columns(specs)
    # Passing is a claim about the answer: a latency or a cost alone measures nothing of it.
    measures = [pl.col(f"{spec.key}:den") > 0 for spec in METRICS if not spec.quantity]
    if "tool_pass" in frame.columns:  # a peer tool's own pass/fail verdict measures the question too
        measures.append(pl.col("tool_pass").is_not_null())
    measured = pl.any_horizontal(measures)
    return frame.with_columns(measured.alias("measured"))


def paired_frame(a: Evaluation, b: Evaluation) -> pl.DataFrame:
    """A and B side by side on the questions both hold (all gold questions with a gold set)."""
    # Only what `_status` reads besides the metrics' own columns: list columns are costly to join.
    keep = ["id", "category", "present", "failed", "failures", "measured", "hit_at_k", "first_gold_rank", "retrieved_ids"]
    keep += [f"{spec.key}:{part}" for spec in METRICS for part in ("num", "den")]
    # A question's document is the gold set's (or the corpus's): read from A's side, as its tags.
    own: list[str] = [column for column in ("tags", "cluster") if column in a.questions.columns]
    left = measure_columns(a).select(keep + own)
    right = measure_columns(b).select(keep)
    return left.join(right.drop("category"), on="id", how="inner", suffix="_b", maintain_order="left")
