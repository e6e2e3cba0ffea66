"""Two judges on the same answers: how far they agree, and how far apart their values are.

`ragtui agreement J1 J2` reads the same answers judged twice (two models, or one model
twice) and measures, on the answers both judged:

- faithfulness, sentence by sentence: raw agreement, Cohen's κ (overall and per category)
  and Krippendorff's α (nominal);
- utility, answer by answer: exact agreement, agreement within one point, Cohen's κ,
  weighted κ (quadratic weights over the 1–5 scale) and Krippendorff's α (interval);
- the difference J2 − J1 of each metric's value, with its paired bootstrap interval over
  answers — "a judge of the generator's family overrates by up to 8 points", measured.

Formulas (docs/metrics.md): κ = (p_o − p_e)/(1 − p_e); weighted κ = 1 − Σ w_ij O_ij / Σ w_ij E_ij
with w_ij = (i − j)² and E the product of the margins; α = 1 − D_o/D_e, with
D_o = (2/n)·Σ_u δ(x_u1, x_u2) and D_e = Σ_{i≠j} δ(v_i, v_j)/(n(n − 1)) over the n = 2N pooled
values, δ = 1[≠] (nominal) or (x − y)² (interval).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ragtui.core.comparing.stats import paired_bootstrap_ci
from ragtui.core.measuring.calibration import cohen_kappa, sentence_units, utility_units

UTILITY_SCALE = (1, 2, 3, 4, 5)


@dataclass(frozen=True)
class CategoryAgreement:
    units: int
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class JudgeAgreement:
    """One metric judged twice: units compared, agreement and chance-corrected agreement."""

    units: int
    agreement: float | None
    kappa: float | None
    alpha: float | None
    by_category: dict[str, CategoryAgreement] = field(default_factory=dict)
    weighted_kappa: float | None = None  # utility only (quadratic weights)
    within_one: float | None = None  # utility only
    misaligned_answers: int = 0  # faithfulness: answers split into different sentence counts


@dataclass(frozen=True)
class ValueDifference:
    """A metric's value by each judge over the answers both judged, and J2 − J1 with its paired interval."""

    first: float | None
    second: float | None
    delta: float | None
    ci: tuple[float, float] | None
    answers: int


@dataclass(frozen=True)
class TwoJudges:
    faithfulness: JudgeAgreement
    utility: JudgeAgreement
    difference: dict[str, ValueDifference]
    confidence: float


def krippendorff_alpha(first: np.ndarray, second: np.ndarray, *, interval: bool = False) -> float | None:
    """Krippendorff's α for two coders who both coded every unit (nominal, or interval)."""
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if first.size == 0:
        return None
    pooled = np.concatenate([first, second])
    n = pooled.size
    if interval:
        observed = 2.0 * float(((first - second) ** 2).sum()) / n
        expected = 2.0 * (n * float((pooled**2).sum()) - float(pooled.sum()) ** 2) / (n * (n - 1))
    else:
        observed = 2.0 * float((first != second).sum()) / n
        _, counts = np.unique(pooled, return_counts=True)
        expected = (n * n - float((counts.astype(np.float64) ** 2).sum())) / (n * (n - 1))
    if expected <= 0:
        return None
    return 1.0 - observed / expected


def weighted_kappa(first: np.ndarray, second: np.ndarray, scale: tuple[int, ...] = UTILITY_SCALE) -> float | None:
    """Cohen's κ with quadratic weights (i − j)² over the scale's points."""
    first, second = np.asarray(first, dtype=np.float64), np.asarray(second, dtype=np.float64)
    if first.size == 0:
        return None
    points = np.asarray(scale, dtype=np.float64)
    at_first = np.searchsorted(points, first)
    at_second = np.searchsorted(points, second)
    size = points.size
    observed = np.zeros((size, size))
    np.add.at(observed, (at_first, at_second), 1.0)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / first.size
    weights = (np.arange(size)[:, None] - np.arange(size)[None, :]) ** 2
    denominator = float((weights * expected).sum())
    if denominator <= 0:
        return None
    return 1.0 - float((weights * observed).sum()) / denominator


def _mean(values: pl.Series) -> float | None:
    return float(values.cast(pl.Float64).mean()) if values.len() else None  # type: ignore[arg-type]


def _sentences(first: pl.DataFrame, second: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """Sentence pairs of the answers both judged into the same number of sentences; and how many did not."""
    one, two = sentence_units(first), sentence_units(second)
    sizes = one.group_by("id").len("n1").join(two.group_by("id").len("n2"), on="id")
    aligned = sizes.filter(pl.col("n1") == pl.col("n2")).select("id")
    # In the first judge's order: the categories, then the answers' sums, follow it.
    pairs = one.join(aligned, on="id", how="semi", maintain_order="left").join(
        two.select("id", "sentence", pl.col("judge").alias("judge_2")), on=["id", "sentence"], maintain_order="left"
    )
    return pairs, sizes.height - aligned.height


def _faithfulness(pairs: pl.DataFrame, misaligned: int) -> JudgeAgreement:
    first, second = pairs.get_column("judge"), pairs.get_column("judge_2")
    by_category = {
        str(category): CategoryAgreement(group.height, _mean(group.get_column("judge") == group.get_column("judge_2")),
                                         cohen_kappa(group.get_column("judge"), group.get_column("judge_2")))
        for (category,), group in pairs.group_by("category", maintain_order=True)
    }
    return JudgeAgreement(
        units=pairs.height,
        agreement=_mean(first == second),
        kappa=cohen_kappa(first, second),
        alpha=krippendorff_alpha(first.cast(pl.Float64).to_numpy(), second.cast(pl.Float64).to_numpy()),
        by_category=dict(sorted(by_category.items())),
        misaligned_answers=misaligned,
    )


def _nominal_kappa(first: np.ndarray, second: np.ndarray) -> float | None:
    """Cohen's κ over any set of categories (utility's scores taken as labels)."""
    if first.size == 0:
        return None
    observed = float((first == second).mean())
    labels = np.union1d(first, second)
    expected = float(sum((first == label).mean() * (second == label).mean() for label in labels))
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def _utility(pairs: pl.DataFrame) -> JudgeAgreement:
    first = pairs.get_column("judge").to_numpy()
    second = pairs.get_column("judge_2").to_numpy()
    by_category = {
        str(category): CategoryAgreement(
            group.height, _mean(group.get_column("judge") == group.get_column("judge_2")),
            _nominal_kappa(group.get_column("judge").to_numpy(), group.get_column("judge_2").to_numpy()),
        )
        for (category,), group in pairs.group_by("category", maintain_order=True)
    }
    return JudgeAgreement(
        units=pairs.height,
        agreement=float((first == second).mean()) if first.size else None,
        kappa=_nominal_kappa(first, second),
        alpha=krippendorff_alpha(first, second, interval=True),
        by_category=dict(sorted(by_category.items())),
        weighted_kappa=weighted_kappa(first, second),
        within_one=float((np.abs(first - second) <= 1).mean()) if first.size else None,
    )


def _difference(num_1: np.ndarray, den_1: np.ndarray, num_2: np.ndarray, den_2: np.ndarray, confidence: float) -> ValueDifference:
    if num_1.size == 0 or den_1.sum() <= 0 or den_2.sum() <= 0:
        return ValueDifference(None, None, None, None, int(num_1.size))
    first, second = float(num_1.sum() / den_1.sum()), float(num_2.sum() / den_2.sum())
    ci = paired_bootstrap_ci(num_1, den_1, num_2, den_2, confidence=confidence)
    return ValueDifference(first, second, second - first, ci, int(num_1.size))


def compare_judges(first: pl.DataFrame, second: pl.DataFrame, *, confidence: float = 0.95) -> TwoJudges:
    """Agreement and difference of two judges over the answers both judged (Evaluation frames)."""
    sentences, misaligned = _sentences(first, second)
    utility = utility_units(first).join(utility_units(second).select("id", pl.col("judge").alias("judge_2")), on="id", maintain_order="left")
    per_answer = sentences.group_by("id", maintain_order=True).agg(
        pl.col("judge").cast(pl.Float64).sum().alias("n1"), pl.col("judge_2").cast(pl.Float64).sum().alias("n2"), pl.len().cast(pl.Float64).alias("d")
    )
    d = per_answer.get_column("d").to_numpy()
    ones = np.ones(utility.height)
    return TwoJudges(
        faithfulness=_faithfulness(sentences, misaligned),
        utility=_utility(utility),
        difference={
            "faithfulness": _difference(per_answer.get_column("n1").to_numpy(), d, per_answer.get_column("n2").to_numpy(), d, confidence),
            "utility": _difference(utility.get_column("judge").to_numpy(), ones, utility.get_column("judge_2").to_numpy(), ones, confidence),
        },
        confidence=confidence,
    )
