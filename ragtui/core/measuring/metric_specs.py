"""What each metric is — its name, label, direction, scale — and the plain values it gives.

Plain values: the dashboard draws from these types. How each metric is computed from
the per-question columns is `metrics.py`'s.
"""

from __future__ import annotations

from dataclasses import dataclass

# Utility is on a 1–5 scale: a drop is flagged at the same share of its range as a rate.
UTILITY_RANGE = 4.0
QUANTITY_SCALES = ("ms", "usd", "tokens")


@dataclass(frozen=True)
class MetricSpec:
    """One metric, as the views and the comparison read it (its formula: `metrics.FORMULAS`)."""

    key: str  # base name; the reported name adds @k for retrieval metrics
    label: str
    higher_is_better: bool = True
    binary: bool = False  # per-question 0/1 outcome: McNemar applies
    scale: str = "rate"  # "rate" (0–1, Δ in points), "score" (1–5), or a quantity: "ms", "usd", "tokens"
    failure_kind: str | None = None
    at_k: bool = False
    judged: bool = False  # computed from the judge's verdicts (a change of judge moves it)
    # The q-quantile of the per-question values (latency p50, p95) instead of Σnum/Σden.
    quantile: float | None = None

    @property
    def json_digits(self) -> int:
        """Decimals the JSON report keeps: a cost per question is a few millionths of a dollar."""
        return 8 if self.scale == "usd" else 4

    @property
    def quantity(self) -> bool:
        """What answering took (latency, cost, tokens), not whether the answer was right:
        it never makes a question pass or fail, and max_drop reads as a share of A's value."""
        return self.scale in QUANTITY_SCALES

    @property
    def span(self) -> float:
        """The widest move of the metric, in its unit: 1 for a rate, 4 for utility's 1–5
        score. max_drop is a share of it (`0.03`: 3 points, or 0.12 of utility)."""
        return UTILITY_RANGE if self.scale == "score" else 1.0

    def name(self, k: int) -> str:
        return f"{self.key}@{k}" if self.at_k else self.key


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("recall", "Recall", binary=True, failure_kind="retrieval_miss", at_k=True),
    MetricSpec("faithfulness", "Faithfulness", failure_kind="unfaithful", judged=True),
    MetricSpec("abstention", "Abstention", binary=True, failure_kind="answered_unanswerable"),
    MetricSpec("utility", "Utility", scale="score", failure_kind="low_utility", judged=True),
    MetricSpec("context_precision", "Context precision", failure_kind="retrieval_miss", at_k=True),
    MetricSpec("mrr", "MRR", failure_kind="retrieval_miss", at_k=True),
    MetricSpec("false_abstention", "False abstention", higher_is_better=False, binary=True, failure_kind="false_abstention"),
    MetricSpec("context_recall", "Context recall", failure_kind="retrieval_miss", at_k=True),
    MetricSpec("precision", "Precision", failure_kind="retrieval_miss", at_k=True),
    MetricSpec("ndcg", "nDCG", failure_kind="retrieval_miss", at_k=True),
    MetricSpec("faithfulness_macro", "Faithfulness (macro)", failure_kind="unfaithful", judged=True),
    # What a question costs: from the run's `latency_ms`, `cost_usd`, `tokens_in` + `tokens_out`.
    MetricSpec("latency_p50_ms", "Latency p50", higher_is_better=False, scale="ms", quantile=0.5),
    MetricSpec("latency_p95_ms", "Latency p95", higher_is_better=False, scale="ms", quantile=0.95),
    MetricSpec("cost_usd", "Cost per question", higher_is_better=False, scale="usd"),
    MetricSpec("tokens", "Tokens per question", higher_is_better=False, scale="tokens"),
)
HEADLINE = ("recall", "faithfulness", "abstention", "utility")


def metric_by_name(name: str) -> MetricSpec:
    """The spec of `recall@5`, `faithfulness`, …"""
    base = name.split("@", 1)[0]
    for spec in METRICS:
        if spec.key == base:
            return spec
    raise KeyError(name)


@dataclass(frozen=True)
class MetricValue:
    """A metric's value (None when its population is empty: "not available") and n."""

    value: float | None
    n: int


@dataclass(frozen=True)
class Counts:
    """What the panels count rather than average: nothing is averaged away."""

    questions: int
    present: int
    missing: int
    extra: int
    judge_errors: int
    abstained_excluded: int
    judged: int
    failing: int
    failure_kinds: dict[str, int]
    system_errors: int = 0  # questions the system under test failed on (the record's `error`)
