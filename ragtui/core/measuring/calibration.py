"""Judge trust: agreement between the judge and human labels where both exist.

Sentences are paired by position when the judge and the human judged the same number
of sentences (answers where the counts differ are counted, not guessed at). A good
judge reaches about 85 % raw agreement; Cohen's κ corrects for chance agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl


@dataclass(frozen=True)
class Calibration:
    """Judge–human agreement for one run; None values mean no overlap to measure."""

    answers: int  # answers with both judge and human labels
    sentences: int  # sentence pairs compared
    sentence_agreement: float | None
    sentence_kappa: float | None
    misaligned_answers: int  # judge and human judged different sentence counts
    utility_pairs: int
    utility_exact: float | None
    utility_within_one: float | None
    utility_mean_abs_diff: float | None


def cohen_kappa(judge: list[bool] | pl.Series, human: list[bool] | pl.Series) -> float | None:
    """Cohen's κ for two binary raters; None when undefined (no pairs, or chance = 1)."""
    j = pl.Series(judge, dtype=pl.Boolean)
    h = pl.Series(human, dtype=pl.Boolean)
    n = len(j)
    if n == 0:
        return None
    observed = (j == h).mean()
    pj, ph = j.mean(), h.mean()
    expected = pj * ph + (1 - pj) * (1 - ph)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def calibrate(questions: pl.DataFrame) -> Calibration | None:
    """Agreement on a per-question frame (needs judge_* and human_* columns), or None without human labels."""
    both = questions.filter(pl.col("human_present").fill_null(False) & pl.col("judge_present").fill_null(False) & pl.col("judge_error").is_null())
    if both.height == 0:
        return None
    with_sentences = both.filter(pl.col("judge_sentences").is_not_null() & pl.col("human_sentences").is_not_null())
    aligned = with_sentences.filter(pl.col("judge_sentences").list.len() == pl.col("human_sentences").list.len())
    pairs = (
        aligned.select(
            pl.col("judge_sentences").list.eval(pl.element().struct.field("attested")).alias("j"),
            pl.col("human_sentences").list.eval(pl.element().struct.field("attested")).alias("h"),
        )
        .explode("j", "h")
        .drop_nulls()
    )
    utility = both.select("judge_utility", "human_utility").drop_nulls()
    diff = (utility.get_column("judge_utility") - utility.get_column("human_utility")).abs()
    return Calibration(
        answers=both.height,
        sentences=pairs.height,
        sentence_agreement=(pairs.get_column("j") == pairs.get_column("h")).mean() if pairs.height else None,
        sentence_kappa=cohen_kappa(pairs.get_column("j"), pairs.get_column("h")) if pairs.height else None,
        misaligned_answers=with_sentences.height - aligned.height,
        utility_pairs=utility.height,
        utility_exact=(diff == 0).mean() if utility.height else None,
        utility_within_one=(diff <= 1).mean() if utility.height else None,
        utility_mean_abs_diff=diff.mean() if utility.height else None,
    )
