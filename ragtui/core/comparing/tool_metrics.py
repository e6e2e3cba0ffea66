"""A peer tool's own metrics, compared like ragtui's: A, B, paired Δ, interval, McNemar, verdict.

Each `TOOL:METRIC` (`deepeval:Answer Relevancy`, `ragas:faithfulness`, …) becomes a
`MetricComparison` built with the same pieces as ragtui's metrics — `paired_bootstrap_ci`,
`mcnemar_exact_p` and the verdict rule of `compare` — so a tool metric reads and gates
exactly like `recall@5`. The rules particular to a tool's scores:

- A, B and Δ are means over the same questions: those both runs scored. A question the
  tool could not score (an error, NaN) in either run is counted in `errors` and left out
  of the means, never averaged as a 0.
- McNemar uses the tool's own pass/fail (or the 0/1 values of a 0/1 metric).
- The target is the `tool_targets:` entry of ragtui.yaml, else the tool's threshold when
  one threshold holds for every question; the direction (higher or lower is better)
  comes from the same entry, else from the tool's own pass/fail against its threshold.
- A metric whose values all lie in 0…1 is a rate (shown in %, Δ in points); any other
  scale is shown in its own units, and only a rate's drop is flagged against max_drop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from ragtui.core.comparing.intervals import change_verdict
from ragtui.core.comparing.power import metric_power
from ragtui.core.comparing.result import CategoryCell, MetricComparison
from ragtui.core.comparing.stats import mcnemar_exact_p, paired_bootstrap_ci
from ragtui.core.comparing.targets import readings_of_values
from ragtui.core.loading.config import Config
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metric_specs import MetricSpec, MetricValue
from ragtui.core.measuring.tool_scores import tool_of


@dataclass(frozen=True)
class ToolMetric:
    """One tool metric compared, with what the comparison itself cannot hold."""

    tool: str
    comparison: MetricComparison
    threshold: float | None  # the tool's per-question threshold, when one holds for all
    errors: dict[str, int]  # per run: questions present whose score is an error
    pass_rate: dict[str, float | None]  # per run, over the compared questions
    unpaired: int = 0  # questions scored in one run only, left out of A, B and Δ
    categories: dict[str, CategoryCell] = field(default_factory=dict)  # category → A, B, Δ (n: A's n)

    @property
    def name(self) -> str:
        return self.comparison.name


def _long(evaluation: Evaluation) -> pl.DataFrame:
    """One row per (question, tool metric) of the questions the run holds."""
    frame = evaluation.questions.filter(pl.col("present")).select("id", "category", "tool_scores")
    return frame.explode("tool_scores").drop_nulls("tool_scores").unnest("tool_scores")


def _errored(evaluation: Evaluation) -> pl.DataFrame:
    """The questions the tool could not judge at all (a failed generation, no verdict)."""
    return evaluation.questions.filter(pl.col("present") & pl.col("tool_error").is_not_null()).select("id")


def _error_count(rows: pl.DataFrame, errored: pl.DataFrame) -> int:
    """Questions whose score of this metric is an error, or missing because the tool failed."""
    bad = rows.filter(pl.col("value").is_null() | pl.col("error").is_not_null()).height
    return bad + errored.join(rows.select("id"), on="id", how="anti").height


def compare_tool_metrics(a: Evaluation, b: Evaluation | None, config: Config) -> dict[str, ToolMetric]:
    """Every tool metric of A (and B), in order of first appearance."""
    long_a = _long(a)
    long_b = _long(b) if b is not None else None
    errored = {"A": _errored(a), **({"B": _errored(b)} if b is not None else {})}
    names = list(dict.fromkeys(long_a.get_column("metric").to_list() + (long_b.get_column("metric").to_list() if long_b is not None else [])))
    out = {}
    keys: set[str] = set()
    for name in names:
        rows_a = long_a.filter(pl.col("metric") == name)
        rows_b = long_b.filter(pl.col("metric") == name) if long_b is not None else None
        metric = _tool_metric(name, rows_a, rows_b, a, b, config)
        counts = {label: _error_count(rows, errored[label]) for label, rows in (("A", rows_a), ("B", rows_b)) if rows is not None}
        metric = replace(metric, errors={label: counts[label] for label in metric.errors})
        out[name] = _with_unique_key(metric, keys)
    return out


def _with_unique_key(metric: ToolMetric, keys: set[str]) -> ToolMetric:
    """Two names may reduce to one key ("a b", "a-b"): the dashboard needs distinct ids."""
    spec = metric.comparison.spec
    key, n = spec.key, 2
    while key in keys:
        key, n = f"{spec.key}-{n}", n + 1
    keys.add(key)
    if key == spec.key:
        return metric
    return replace(metric, comparison=replace(metric.comparison, spec=replace(spec, key=key)))


def _tool_metric(
    name: str, rows_a: pl.DataFrame, rows_b: pl.DataFrame | None, a: Evaluation, b: Evaluation | None, config: Config
) -> ToolMetric:
    both = rows_a if rows_b is None else pl.concat([rows_a, rows_b])
    spec = _spec(name, both, config)
    threshold = _single(both.get_column("threshold"))
    target = config.tool_targets[name].value if name in config.tool_targets else threshold
    scored = pl.col("value").is_not_null() & pl.col("error").is_null()
    errors = {"A": 0}  # counted by the caller, which knows the questions the tool failed on
    tool = tool_of(a) or (tool_of(b) if b is not None else None) or name.split(":", 1)[0]
    if rows_b is None or b is None:
        kept = rows_a.filter(scored)
        values = kept.get_column("value")
        value = MetricValue(float(values.mean()) if len(values) else None, len(values))  # type: ignore[arg-type]
        comparison = MetricComparison(
            name=name, spec=spec, a=value, n=value.n, target=target,
            targets=readings_of_values(spec, {"A": values.to_numpy().astype(np.float64)}, target, config.confidence),
        )
        categories = {
            row["category"]: CategoryCell(MetricValue(row["A"], row["n"]))
            for row in kept.group_by("category", maintain_order=True).agg(pl.col("value").mean().alias("A"), pl.len().alias("n")).iter_rows(named=True)
        }
        return ToolMetric(tool, comparison, threshold, errors, {"A": _rate(kept.get_column("passed"))}, 0, categories)
    errors["B"] = 0
    right = rows_b.filter(scored).select("id", pl.col("value").alias("value_b"), pl.col("passed").alias("passed_b"))
    paired = rows_a.filter(scored).join(right, on="id", how="inner", maintain_order="left")
    unpaired = rows_a.filter(scored).height + right.height - 2 * paired.height
    comparison = _paired_comparison(name, spec, paired, target, config)
    if paired.height == 0:
        # No question scored in both runs (a metric only one tool has, a ragtui run against
        # a tool's file): each run's own mean, unpaired, and no Δ.
        own = {label: _mean(rows.filter(scored).get_column("value")) for label, rows in (("A", rows_a), ("B", rows_b))}
        comparison = replace(comparison, a=own["A"], b=own["B"])
    pass_rate = {"A": _rate(paired.get_column("passed")), "B": _rate(paired.get_column("passed_b"))}
    return ToolMetric(tool, comparison, threshold, errors, pass_rate, unpaired, _categories(paired))


def _paired_comparison(name: str, spec: MetricSpec, paired: pl.DataFrame, target: float | None, config: Config) -> MetricComparison:
    value_a = paired.get_column("value").to_numpy().astype(np.float64)
    value_b = paired.get_column("value_b").to_numpy().astype(np.float64)
    n = len(value_a)
    point_a = float(value_a.mean()) if n else None
    point_b = float(value_b.mean()) if n else None
    delta = point_b - point_a if point_a is not None and point_b is not None else None
    ones = np.ones(n)
    ci = paired_bootstrap_ci(value_a, ones, value_b, ones, confidence=config.confidence) if delta is not None else None
    p_value = _mcnemar(paired, spec) if delta is not None else None
    bad_move = None if delta is None else (-delta if spec.higher_is_better else delta)
    return MetricComparison(
        name=name,
        spec=spec,
        a=MetricValue(point_a, n),
        b=MetricValue(point_b, n),
        delta=delta,
        ci=ci,
        p_value=p_value,
        verdict=change_verdict(spec, ci, p_value, config.confidence) if delta is not None else None,
        n=n,
        target=target,
        drop_flagged=bool(spec.scale == "rate" and bad_move is not None and bad_move > config.max_drop + 1e-12),
        targets=readings_of_values(spec, {"A": value_a, "B": value_b}, target, config.confidence),
        # A drop of max_drop means something on a 0–1 rate only (a tool's own scale may be anything).
        power=metric_power(spec.binary, value_a, ones, value_b, ones, drop=config.max_drop, span=1.0, confidence=config.confidence)
        if spec.scale == "rate" and delta is not None
        else None,
    )


def _mcnemar(paired: pl.DataFrame, spec: MetricSpec) -> float | None:
    """Exact McNemar on the tool's pass/fail (else on 0/1 values) where both runs have one."""
    outcomes = paired.select(pl.col("passed"), pl.col("passed_b"))
    if spec.binary and outcomes.null_count().sum_horizontal().item() == 2 * paired.height:
        outcomes = paired.select((pl.col("value") == 1).alias("passed"), (pl.col("value_b") == 1).alias("passed_b"))
    known = outcomes.drop_nulls()
    if known.height == 0:
        return None
    worse = known.filter(pl.col("passed") & ~pl.col("passed_b")).height
    better = known.filter(~pl.col("passed") & pl.col("passed_b")).height
    return mcnemar_exact_p(worse, better)


def _categories(paired: pl.DataFrame) -> dict[str, CategoryCell]:
    grouped = paired.group_by("category", maintain_order=True).agg(
        pl.col("value").mean().alias("A"), pl.col("value_b").mean().alias("B"), pl.len().alias("n")
    )
    return {
        row["category"]: CategoryCell(MetricValue(row["A"], row["n"]), MetricValue(row["B"], row["n"]), row["B"] - row["A"])
        for row in grouped.iter_rows(named=True)
    }


def _spec(name: str, rows: pl.DataFrame, config: Config) -> MetricSpec:
    """A MetricSpec describing the tool metric (its key is safe for a widget id)."""
    values = rows.get_column("value").drop_nulls()
    rate = bool(len(values) == 0 or ((values >= 0) & (values <= 1)).all())
    binary = bool(len(values) > 0 and values.is_in([0.0, 1.0]).all())
    target = config.tool_targets.get(name)
    higher = target.higher_is_better if target is not None else _higher_is_better(rows)
    key = "tool-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return MetricSpec(key, name.split(":", 1)[1], higher_is_better=higher, binary=binary, scale="rate" if rate else "score")


def _higher_is_better(rows: pl.DataFrame) -> bool:
    """Read from the tool's own verdicts: passing above the threshold, or below it (Bias)."""
    known = rows.filter(pl.col("value").is_not_null() & pl.col("threshold").is_not_null() & pl.col("passed").is_not_null())
    known = known.filter(pl.col("value") != pl.col("threshold"))
    above = pl.col("value") > pl.col("threshold")
    agree_higher = known.filter(above == pl.col("passed")).height
    return agree_higher >= known.height - agree_higher


def _single(column: pl.Series) -> float | None:
    distinct = column.drop_nulls().unique()
    return float(distinct.item()) if len(distinct) == 1 else None


def _mean(values: pl.Series) -> MetricValue:
    return MetricValue(float(values.mean()) if len(values) else None, len(values))  # type: ignore[arg-type]


def _rate(passed: pl.Series) -> float | None:
    known = passed.drop_nulls()
    return float(known.cast(pl.Float64).mean()) if len(known) else None  # type: ignore[arg-type]
