"""The judge against people, as plain values: agreement, bias, corrected metrics.

`calibration.py`, `correction.py` and `ppi.py` compute them; the dashboard and the
reports read them. Kept free of polars and numpy, like `metric_specs.py`, so a dashboard
read back from the cache paints before either is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CORRECTED_METRICS = ("faithfulness", "utility")
# Below this many labelled answers no corrected value is given (ppi.py; bench/bench_ppi.py:
# with fewer, the interval covers under 93 % of the time where 95 % is asked).
MIN_CORRECTED_ANSWERS = 10


@dataclass(frozen=True)
class GroupSpread:
    """Per-group (answer) variances behind an estimate: what the label budget projects from.

    `people` and `judge` are the spreads of the labelled groups' linearised values of Y and
    f, `covariance` theirs together, `unlabelled` the spread of f̃ over unlabelled groups.
    """

    people: float
    judge: float
    covariance: float
    unlabelled: float
    labelled_groups: int
    unlabelled_groups: int


@dataclass(frozen=True)
class Corrected:
    """A corrected mean: value, interval (None under 2 labelled groups), labels, λ."""

    value: float
    ci: tuple[float, float] | None
    labels: int  # labelled units (sentences or answers)
    groups: int  # labelled groups (answers)
    lam: float
    variance: float | None  # of θ̂
    spread: GroupSpread | None = None
    quantile: float | None = None  # of the interval: t's, on the labelled answers' degrees of freedom

    @property
    def too_few(self) -> bool:
        """Fewer labelled answers than a trustworthy correction needs: no value is shown."""
        return self.groups < MIN_CORRECTED_ANSWERS


@dataclass(frozen=True)
class MeanWithInterval:
    value: float
    ci: tuple[float, float] | None
    n: int


@dataclass(frozen=True)
class Agreement:
    """Sentence agreement of one group of labels."""

    sentences: int
    agreement: float | None
    kappa: float | None


@dataclass(frozen=True)
class Calibration:
    """Judge–person agreement and bias for one run; None values mean nothing to measure."""

    answers: int  # answers with a person's label (sentence or utility) and a judge verdict
    sentences: int  # sentence pairs compared
    sentence_agreement: float | None
    sentence_kappa: float | None
    misaligned_answers: int  # the run's human labels cover another sentence count than the judge's
    utility_pairs: int
    utility_exact: float | None
    utility_within_one: float | None
    utility_mean_abs_diff: float | None
    labels: int = 0  # every label (sentences and utility scores)
    labels_sampled: int = 0  # of which drawn from the random queue
    unmatched_labels: int = 0  # labels on a sentence or answer the judge did not score
    by_category: dict[str, Agreement] = field(default_factory=dict)
    confusion: dict[str, int] = field(default_factory=dict)
    faithfulness_bias: MeanWithInterval | None = None  # mean(judge − person) on sampled sentences
    utility_bias: MeanWithInterval | None = None  # on sampled utility scores


@dataclass(frozen=True)
class PlannedCategory:
    """One category in the label plan: labelled answers, the Neyman share of the total, and the gap."""

    have: int
    needed: int
    more: int


@dataclass(frozen=True)
class LabelPlan:
    """Where to label next for the narrowest corrected interval (Neyman allocation, n_k ∝ w_k·σ_k).

    `total` is None when even labelling every answer would not reach the target.
    """

    target_half_width: float
    total: int | None
    by_category: dict[str, PlannedCategory]
    next_category: str | None  # the category with the largest gap; None once the plan is met

    @property
    def next_more(self) -> int:
        return self.by_category[self.next_category].more if self.next_category is not None else 0


# Under this gain the judge is too weak to help: its labels count as fewer than 10 % more.
WEAK_JUDGE_GAIN = 1.1


@dataclass(frozen=True)
class CorrectedMetric:
    """One run's corrected metric, with what it would take to make it tight enough."""

    metric: str
    raw: float | None
    corrected: Corrected | None  # None: no sampled label yet
    budget: int | None  # more sampled answers to bring the interval under ±target
    target_half_width: float
    floor_half_width: float | None = None  # the half-width with every answer labelled
    partly_labelled: int = 0  # sampled answers with some sentences still unlabelled
    by_category: dict[str, Corrected | None] = field(default_factory=dict)
    # The value is the weighted sum of the categories' own PPI++ values (λ per category)
    # when each category holds enough labelled answers; else the pooled PPI++ value.
    stratified: bool = False
    plan: LabelPlan | None = None
    # How many labels alone would give the same interval (labelled answers × Var(labels alone) / Var(θ̂)).
    effective_labels: float | None = None

    @property
    def weak_judge(self) -> bool:
        """The correction's labels count for less than 10 % more with the judge than without it."""
        c = self.corrected
        if c is None or c.too_few or self.effective_labels is None:
            return False
        return self.effective_labels < WEAK_JUDGE_GAIN * c.groups
