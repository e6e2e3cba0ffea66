"""The report document's types: the JSON shape of docs/cli.md, as the renderers and the
gates read it.

`build_report` returns a `Report`; `json.dumps` of it is the JSON report, and the text,
markdown, CI renderers and the gates read the same keys, checked by mypy rather than
found missing at run time. Optional keys are those a report has only sometimes (with two
runs, with a target, with labels, with judge repetitions, with a peer tool's metrics).
Sections whose inner shape is one module's business (the calibration, the judge noise,
the tool metrics) stay mappings here; their builders document them.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

Number = float | None  # a value the JSON writes as a number or null (never NaN)
Interval = list[Number] | None  # [low, high], or null


class RunFields(TypedDict):
    """One run's header: identity, counts, the judge-directed detector, its tool's counts."""

    name: str
    path: str
    format: str
    created_at: str | None
    system: str | None
    generator_model: str | None
    judge_model: str | None
    questions: int
    missing: int
    extra_questions: int
    judge_errors: int
    system_errors: int
    judge_directed: dict[str, Any]
    abstained_excluded_from_faithfulness: int
    failing: int
    failure_kinds: dict[str, int]
    tool: NotRequired[str | None]
    tool_verdicts: NotRequired[int]
    tool_failing: NotRequired[int]
    tool_errors: NotRequired[int]


class MetricFields(TypedDict):
    """One metric: each run's value, Δ and its interval, targets, verdict, power, n."""

    A: Number
    B: NotRequired[Number]
    delta: NotRequired[Number]
    ci: NotRequired[Interval]
    p_value: NotRequired[float | None]
    target: float | None
    meets_target: dict[str, str | None]
    ci_by_run: dict[str, Interval]
    verdict: NotRequired[str | None]
    drop_flagged: NotRequired[bool]
    judge_changed: NotRequired[bool]
    mde: NotRequired[Number]
    n_needed: NotRequired[int | None]
    n: int
    n_by_run: dict[str, int]
    higher_is_better: bool
    not_available: list[str]
    corrected: NotRequired[dict[str, Any]]
    clusters: NotRequired[int | None]
    design_effect: NotRequired[Number]
    flip_rate: NotRequired[dict[str, Any]]
    # A peer tool's metric (`tool_metrics`) has these besides.
    tool: NotRequired[str]
    threshold: NotRequired[float | None]
    scale: NotRequired[str]
    errors: NotRequired[dict[str, int]]
    pass_rate: NotRequired[dict[str, Number]]
    unpaired: NotRequired[Any]
    categories: NotRequired[dict[str, dict[str, Any]]]


class CellFields(TypedDict):
    """One metric in one category."""

    A: Number
    n: int
    B: NotRequired[Number]
    delta: NotRequired[Number]
    n_by_run: NotRequired[dict[str, int]]
    meets_target: NotRequired[dict[str, str | None]]
    ci_by_run: NotRequired[dict[str, Interval]]
    ci: NotRequired[Interval]  # Δ's interval in this category, its p-value adjusted over the grid
    p_value: NotRequired[float | None]
    p_adjusted: NotRequired[float | None]
    verdict: NotRequired[str | None]
    clusters: NotRequired[int | None]
    design_effect: NotRequired[Number]


class CategoryFields(TypedDict):
    """One category: its display name, its questions, its metrics."""

    name: str
    n: int
    metrics: dict[str, CellFields]


class Report(TypedDict):
    """The whole document of one comparison (A alone, or A against B)."""

    runs: dict[str, RunFields]
    k: int
    metrics: dict[str, MetricFields]
    categories: dict[str, CategoryFields]
    tags: dict[str, CategoryFields]  # the same per tag of the gold set (empty without tags)
    likely_gold_problems: NotRequired[list[dict[str, Any]]]
    status_from: NotRequired[str]
    tool_metrics: NotRequired[dict[str, MetricFields]]
    questions: dict[str, list[str]]
    regressed_by_cause: NotRequired[dict[str, int]]
    unpaired: NotRequired[dict[str, Any]]
    regressions: NotRequired[list[dict[str, Any]]]
    recall_curve: dict[str, list[Any]]
    calibration: dict[str, Any]
    judge_noise: NotRequired[dict[str, Any]]
    clustering: NotRequired[dict[str, Any] | None]  # questions resampled by document, when documents are known
    t_intervals: NotRequired[dict[str, Any]]  # the Δ intervals that are large-sample t intervals, when any is
    multiple_testing: NotRequired[dict[str, Any]]  # how the category grid's p-values were adjusted
    power: NotRequired[dict[str, float]]
    warnings: list[str]
    marks: NotRequired[list[dict[str, Any]]]  # `report --notes FILE`: the triage marks


class LabelledRunFields(RunFields):
    """A run of a report on several runs: its header and its label (A, B1, B2, …)."""

    label: str


class MultiReport(TypedDict):
    """The document of more than two runs: every run once, each candidate's two-run report
    against A (`comparisons`), and the trade-off of every run at its own k."""

    runs: list[LabelledRunFields]
    k: int
    comparisons: list[Report]
    tradeoff: dict[str, Any]


def groups(report: Report, section: str) -> dict[str, CategoryFields]:
    """`report["categories"]`, or `report["tags"]` for `section="tags"`."""
    return report["tags"] if section == "tags" else report["categories"]
