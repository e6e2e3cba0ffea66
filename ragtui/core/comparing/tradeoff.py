"""The recall–faithfulness trade-off of several runs: one point per run, at the run's own k.

Raising k raises recall and dilutes the context, so faithfulness falls. A team checks it by
running one gold set at several k; each run is then read at the k it sent to the
generator (its metadata's `k`, else a `k10`-like token in its name, else the comparison's
k), not at the comparison's single k, where every run of one retriever would show the same
recall. Faithfulness and utility are the run's own (they do not depend on a cut-off).

Two readings mark the runs: the Pareto front (no other run is at least as good on both
recall and faithfulness and better on one) and the best run on both — the one whose
smaller margin over the two targets is largest (with no target, the value itself). Both
are computed overall and per category, from the evaluations only: nothing is paired here;
the paired Δ of each run against the reference stays in its `Comparison`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import polars as pl

from ragtui.core.comparing.compare import Comparison
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metric_specs import MetricValue
from ragtui.core.measuring.metrics import summarize, summarize_by_category
from ragtui.core.vocabulary import run_label

AXES = ("recall", "faithfulness")  # x, y
# Beside the two axes: what a run costs (k = 20 sends more tokens than k = 5).
SHOWN = ("recall", "faithfulness", "utility", "tokens", "cost_usd")
ALL_QUESTIONS = None  # the category key of the overall reading

# `k10`, `k=10`, `k-10`, `k_10`, `top10`, `top-10` as a whole token of a run's name or file stem.
_K_IN_NAME = re.compile(r"(?:^|[^a-z0-9])(?:k|top)[=_-]?(\d{1,3})(?![0-9])", re.IGNORECASE)


@dataclass(frozen=True)
class TradeoffPoint:
    """One run: its own k, and recall (at that k), faithfulness, utility, tokens and cost, overall and per category."""

    label: str  # run_label: "A" (the reference), "B1", "B2", …
    name: str
    k: int
    k_source: str  # "metadata", "name" or "comparison": where k was read
    values: dict[str, MetricValue]
    by_category: dict[str, dict[str, MetricValue]]

    def reading(self, category: str | None) -> dict[str, MetricValue]:
        """The values overall (`category` None) or in one category (n = 0 where it has none)."""
        if category is None:
            return self.values
        return self.by_category.get(category, {name: MetricValue(None, 0) for name in SHOWN})


@dataclass(frozen=True)
class Tradeoff:
    """Every run as a point, the targets to draw as lines, and the categories to segment by."""

    points: tuple[TradeoffPoint, ...]
    targets: dict[str, float | None]  # "recall", "faithfulness", "utility"
    target_k: int  # the k the recall target is written for (the comparison's k)
    categories: tuple[str, ...]

    def best(self, category: str | None = ALL_QUESTIONS) -> str | None:
        """The label of the best run on both axes (largest smaller margin over the targets)."""
        return best_on_both([(p.label, p.reading(category)) for p in self.points], self.targets)

    def front(self, category: str | None = ALL_QUESTIONS) -> frozenset[str]:
        """The labels of the runs no other run dominates on recall and faithfulness."""
        return pareto_front([(p.label, p.reading(category)) for p in self.points])


def own_k(evaluation: Evaluation, fallback: int) -> tuple[int, str]:
    """The k the run sent to its generator, and where it was read."""
    run = evaluation.run
    if run.meta.k:
        return run.meta.k, "metadata"
    for text in (run.name, run.path.stem):
        found = _K_IN_NAME.search(text or "")
        if found and int(found.group(1)) >= 1:
            return int(found.group(1)), "name"
    return fallback, "comparison"


def recall_at(questions: pl.DataFrame, k: int) -> tuple[MetricValue, dict[str, MetricValue]]:
    """recall@k (docs/metrics.md: a gold passage in the first k) overall and per category.

    From the first gold rank, as the recall curve is: a missing question, or one without a
    gold passage in its list, is a miss.
    """
    population = questions.lazy().filter(pl.col("answerable") & pl.col("gold_known")).select("category", "first_gold_rank").collect()
    hit = (pl.col("first_gold_rank") <= k).fill_null(False).cast(pl.Float64)
    overall = MetricValue(population.select(hit.mean()).item() if population.height else None, population.height)
    grouped = population.group_by("category", maintain_order=True).agg(hit.mean().alias("value"), pl.len().alias("n"))
    return overall, {row["category"]: MetricValue(row["value"], row["n"]) for row in grouped.iter_rows(named=True)}


def _point(position: int, evaluation: Evaluation, comparison_k: int) -> TradeoffPoint:
    k, source = own_k(evaluation, comparison_k)
    summary = summarize(evaluation)
    by_category = {category: values for category, (_, values) in summarize_by_category(evaluation).items()}
    recall_name = f"recall@{evaluation.k}"
    recall, recall_by_category = recall_at(evaluation.questions, k)
    if summary[recall_name].value is None:  # retrieval not available in this file: no recall at any k
        recall, recall_by_category = MetricValue(None, 0), {}
    values = {"recall": recall, **{name: summary[name] for name in SHOWN if name != "recall"}}
    categories = {
        category: {"recall": recall_by_category.get(category, MetricValue(None, 0)), **{name: found[name] for name in SHOWN if name != "recall"}}
        for category, found in by_category.items()
    }
    return TradeoffPoint(run_label(position), evaluation.run.name, k, source, values, categories)


def build_tradeoff(comparisons: list[Comparison]) -> Tradeoff:
    """One point per run from the comparisons of each candidate with the same reference.

    Args:
        comparisons: reference → candidate, one per candidate, in the order given (as
            `session.load_comparisons` returns them).
    """
    first = comparisons[0]
    evaluations = [first.a, *[c.b for c in comparisons if c.b is not None]]
    points = tuple(_point(position, evaluation, first.k) for position, evaluation in enumerate(evaluations))
    config = first.config
    categories = tuple(dict.fromkeys(category for point in points for category in point.by_category))
    return Tradeoff(
        points=points,
        targets={name: config.target(f"{name}@{first.k}" if name == "recall" else name) for name in SHOWN},
        target_k=first.k,
        categories=categories,
    )


def _both(values: dict[str, MetricValue]) -> tuple[float, float] | None:
    x, y = (values[name].value for name in AXES)
    return None if x is None or y is None else (x, y)


def best_on_both(points: list[tuple[str, dict[str, MetricValue]]], targets: dict[str, float | None]) -> str | None:
    """The run whose smaller margin over the two targets is largest; the first on a tie.

    A run meeting both targets with room beats one that meets one by far and misses the
    other; with no target on an axis, the value itself is the margin. Runs without both
    values take no part.
    """
    best, best_margin = None, None
    for label, values in points:
        both = _both(values)
        if both is None:
            continue
        margin = min(value - (targets.get(name) or 0.0) for name, value in zip(AXES, both, strict=True))
        if best_margin is None or margin > best_margin + 1e-12:
            best, best_margin = label, margin
    return best


def pareto_front(points: list[tuple[str, dict[str, MetricValue]]]) -> frozenset[str]:
    """The runs that no other run beats on one axis without losing on the other."""
    measured = [(label, both) for label, values in points if (both := _both(values)) is not None]
    return frozenset(
        label
        for label, (x, y) in measured
        if not any(ox >= x and oy >= y and (ox > x or oy > y) for _, (ox, oy) in measured)
    )
