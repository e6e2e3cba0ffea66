"""Targets and settings (docs/formats.md): `ragtui.yaml`, or the shipped defaults."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from ragtui.core.errors import InputError, Problem, problem, shown
from ragtui.core.loading.inputs import default_config_path
from ragtui.core.loading.schema import UNCATEGORIZED
from ragtui.core.measuring.metric_specs import metric_by_name

DEFAULT_FALLBACK_PHRASES = ("Je ne trouve pas cette information",)
DEFAULT_TARGETS = {"recall@5": 0.80, "faithfulness": 0.85, "abstention": 0.90, "utility": 4.0}
# The course's four categories, shown by these names unless ragtui.yaml's `categories:` says
# otherwise; a question of an `unanswerable_categories` category (or with no gold passage)
# is one the corpus cannot answer, where the system must abstain.
DEFAULT_CATEGORY_NAMES = {
    "factuelle_courte": "Short factual",
    "procedurale": "Procedural",
    "sans_reponse": "No answer in corpus",
    "contradiction_connue": "Known contradiction",
    UNCATEGORIZED: "Uncategorized",
}
DEFAULT_UNANSWERABLE_CATEGORIES = ("sans_reponse",)
DEFAULT_K = 5  # when neither -k, nor the config, nor the run says
# How the category grid's p-values are adjusted for testing many cells at once.
MULTIPLE_TESTING = {"holm": "Holm (family-wise error)", "bh": "Benjamini–Hochberg (false discovery rate)"}
# The most passages a k may count, wherever k is read (-k, a config, a run): arrays are sized by it.
MAX_K = 1000


@dataclass(frozen=True)
class ToolTarget:
    """A peer tool's metric as ragtui should judge it (`tool_targets:` in ragtui.yaml).

    `value` is both the per-question threshold, where the tool gives none (RAGAS), and the
    target of the metric's mean; `min` means higher is better, `max` lower.
    """

    value: float
    higher_is_better: bool = True


@dataclass(frozen=True)
class Config:
    """Everything a comparison depends on besides the files themselves."""

    k: int | None = None  # None: the config does not set k (the run's own k then applies)
    targets: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_TARGETS))
    max_drop: float = 0.03
    confidence: float = 0.95
    fallback_phrases: tuple[str, ...] = DEFAULT_FALLBACK_PHRASES
    categories: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_CATEGORY_NAMES))
    unanswerable_categories: tuple[str, ...] = DEFAULT_UNANSWERABLE_CATEGORIES
    path: Path | None = None
    # `TOOL:METRIC` → threshold and target of a peer tool's metric.
    tool_targets: dict[str, ToolTarget] = field(default_factory=dict)
    # `regression: {multiple_testing: holm | bh}`: the category grid's adjustment.
    multiple_testing: str = "holm"
    # `clusters: {passage_pattern: REGEX}`: a question's document is the pattern's first group
    # over its first gold passage id, when neither the gold set nor a corpus names it.
    cluster_pattern: str | None = None
    # Sections other commands own (e.g. `judge:`), kept as read.
    extra: dict[str, Any] = field(default_factory=dict)

    def target(self, metric: str) -> float | None:
        """The target of a metric. `recall@5` in the file also serves `recall@K` for another K."""
        if metric in self.targets:
            return self.targets[metric]
        base = metric.split("@", 1)[0]
        for name, value in self.targets.items():
            if "@" in name and name.split("@", 1)[0] == base:
                return value
        return None

    def category_name(self, category: str) -> str:
        """The display name of a category; one the config does not name is shown as written."""
        return self.categories.get(category, category)

    @property
    def utility_target(self) -> float:
        return self.targets.get("utility", DEFAULT_TARGETS["utility"])


def _number(path: Path, line: int | None, field_name: str, value: Any, problems: list[Problem], *, low: float, high: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append(problem(path, line, field_name, f"expected a number, found {value!r}"))
        return None
    if not low <= value <= high:
        problems.append(problem(path, line, field_name, f"{value} is outside {low:g}…{high:g}"))
        return None
    return float(value)


def _target_bound(path: Path, line: int | None, name: str, spec: Any, problems: list[Problem]) -> tuple[str | None, Any, float]:
    """(`min` or `max`, its value, the highest value allowed) of `targets.NAME`.

    A higher-is-better metric takes `{min: …}`; a lower-is-better one (false abstention,
    latency, cost, tokens) `{max: …}` — or `{min: …}` as earlier configs wrote it, read the
    same way: the metric's direction decides. A 1–5 score is bounded by 5, a rate by 1, a
    quantity (ms, $, tokens) not at all.
    """
    try:
        metric = metric_by_name(name)
    except KeyError:
        metric = None
    scale = metric.scale if metric is not None else "rate"
    high = float("inf") if metric is not None and metric.quantity else 5.0 if scale == "score" else 1.0
    if not isinstance(spec, dict):
        return "min", spec, high
    if "max" in spec:
        if metric is None or metric.higher_is_better:
            problems.append(problem(path, line, f"targets.{name}", "{max: …} is for a metric where lower is better: write {min: …}"))
            return None, None, high
        return "max", spec["max"], high
    return "min", spec.get("min"), high


def config_problems_and_value(path: Path) -> tuple[Config | None, list[Problem]]:
    """Parse a config file; returns (config or None, every problem found)."""
    from ragtui.core.loading.records import read_bytes_utf8
    from ragtui.core.loading.yaml_safe import safe_load_with_node, yaml_problem

    text = read_bytes_utf8(path)
    try:
        node, data = safe_load_with_node(text)
    except yaml.YAMLError as exc:
        return None, [yaml_problem(path, exc)]
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        lines = {key.value: key.start_mark.line + 1 for key, _ in node.value}
    if not isinstance(data, dict):
        return None, [problem(path, None, None, "expected a mapping of settings (k, targets, regression, fallback_phrases)")]
    problems: list[Problem] = []
    config = Config(path=path)
    k = data.get("k")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K):
        problems.append(problem(path, lines.get("k"), "k", f"expected a whole number from 1 to {MAX_K}, found {shown(k)}"))
        k = None
    targets = dict(DEFAULT_TARGETS)
    raw_targets = data.get("targets", {}) or {}
    if not isinstance(raw_targets, dict):
        problems.append(problem(path, lines.get("targets"), "targets", "expected a mapping of metric: {min: value}"))
        raw_targets = {}
    for name, spec in raw_targets.items():
        bound, value, high = _target_bound(path, lines.get("targets"), str(name), spec, problems)
        if bound is None:
            continue
        number = _number(path, lines.get("targets"), f"targets.{name}.{bound}", value, problems, low=0.0, high=high)
        if number is not None:
            targets[str(name)] = number
    regression = data.get("regression", {}) or {}
    max_drop, confidence, multiple_testing = 0.03, 0.95, "holm"
    if not isinstance(regression, dict):
        problems.append(problem(path, lines.get("regression"), "regression", "expected a mapping with max_drop and confidence"))
    else:
        if "max_drop" in regression:
            # `is None`, not `or`: max_drop 0 (flag any drop) is a setting, not a missing one.
            number = _number(path, lines.get("regression"), "regression.max_drop", regression["max_drop"], problems, low=0.0, high=1.0)
            max_drop = max_drop if number is None else number
        if "confidence" in regression:
            number = _number(path, lines.get("regression"), "regression.confidence", regression["confidence"], problems, low=0.5, high=0.999)
            confidence = confidence if number is None else number
        if "multiple_testing" in regression:
            chosen = regression["multiple_testing"]
            if chosen in MULTIPLE_TESTING:
                multiple_testing = chosen
            else:
                problems.append(problem(
                    path, lines.get("regression"), "regression.multiple_testing", f"expected one of {', '.join(MULTIPLE_TESTING)}, found {chosen!r}"
                ))
    cluster_pattern = _cluster_pattern(path, lines.get("clusters"), data.get("clusters"), problems)
    phrases = data.get("fallback_phrases", list(DEFAULT_FALLBACK_PHRASES))
    if not isinstance(phrases, list) or not all(isinstance(p, str) and p.strip() for p in phrases):
        problems.append(problem(path, lines.get("fallback_phrases"), "fallback_phrases", "expected a list of non-empty strings"))
        phrases = list(DEFAULT_FALLBACK_PHRASES)
    categories, unanswerable = _categories(path, lines, data, problems)
    tool_targets = _tool_targets(path, lines.get("tool_targets"), data.get("tool_targets"), problems)
    known = {"k", "targets", "regression", "fallback_phrases", "categories", "unanswerable_categories", "tool_targets", "clusters"}
    config = replace(
        config,
        k=k,
        targets=targets,
        max_drop=max_drop,
        confidence=confidence,
        fallback_phrases=tuple(phrases),
        categories=categories,
        unanswerable_categories=unanswerable,
        tool_targets=tool_targets,
        multiple_testing=multiple_testing,
        cluster_pattern=cluster_pattern,
        extra={key: value for key, value in data.items() if key not in known},
    )
    return config, problems


def _categories(path: Path, lines: dict[str, int], data: dict, problems: list[Problem]) -> tuple[dict[str, str], tuple[str, ...]]:
    """`categories:` (display names, over the shipped ones) and `unanswerable_categories:`."""
    names = dict(DEFAULT_CATEGORY_NAMES)
    raw_names = data.get("categories", {}) or {}
    if not isinstance(raw_names, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw_names.items()):
        problems.append(problem(path, lines.get("categories"), "categories", "expected a mapping of category: display name"))
    else:
        names.update(raw_names)
    unanswerable = data.get("unanswerable_categories", list(DEFAULT_UNANSWERABLE_CATEGORIES))
    if not isinstance(unanswerable, list) or not all(isinstance(c, str) and c for c in unanswerable):
        problems.append(problem(path, lines.get("unanswerable_categories"), "unanswerable_categories", "expected a list of category names"))
        unanswerable = list(DEFAULT_UNANSWERABLE_CATEGORIES)
    return names, tuple(unanswerable)


def _cluster_pattern(path: Path, line: int | None, raw: Any, problems: list[Problem]) -> str | None:
    """`clusters: {passage_pattern: "^p_(.+)_\\d+$"}`: a regular expression with one group."""
    if raw is None:
        return None
    pattern = raw.get("passage_pattern") if isinstance(raw, dict) else None
    if not isinstance(pattern, str) or not pattern:
        problems.append(problem(path, line, "clusters.passage_pattern", "expected a regular expression whose first group is the document"))
        return None
    import re

    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        problems.append(problem(path, line, "clusters.passage_pattern", f"not a regular expression: {exc}"))
        return None
    if compiled.groups < 1:
        problems.append(problem(path, line, "clusters.passage_pattern", "needs a group, (…), that captures the document"))
        return None
    return pattern


def _tool_targets(path: Path, line: int | None, raw: Any, problems: list[Problem]) -> dict[str, ToolTarget]:
    """`tool_targets: {"ragas:faithfulness": {min: 0.8}, "deepeval:Bias": {max: 0.3}}`."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        problems.append(problem(path, line, "tool_targets", "expected a mapping of TOOL:METRIC: {min: value} or {max: value}"))
        return {}
    out = {}
    for name, spec in raw.items():
        where = f"tool_targets.{name}"
        if ":" not in str(name):
            problems.append(problem(path, line, where, "expected a name TOOL:METRIC (e.g. ragas:faithfulness)"))
            continue
        if isinstance(spec, dict) and len(spec) == 1 and next(iter(spec)) in ("min", "max"):
            bound, value = next(iter(spec.items()))
        else:
            problems.append(problem(path, line, where, f"expected {{min: value}} or {{max: value}}, found {spec!r}"))
            continue
        number = _number(path, line, f"{where}.{bound}", value, problems, low=-1e12, high=1e12)
        if number is not None:
            out[str(name)] = ToolTarget(number, higher_is_better=bound == "min")
    return out


def load_config(path: str | Path | None = None, *, search_dir: Path | None = None) -> Config:
    """The config at `path`, else `./ragtui.yaml` when present, else the shipped defaults."""
    if path is None:
        candidate = default_config_path(search_dir)
        if not candidate.is_file():
            return Config()
        path = candidate
    config, problems = config_problems_and_value(Path(path))
    if problems or config is None:
        raise InputError(problems)
    return config
