"""The report as data: the JSON shape of docs/cli.md, which the text and markdown views render.

`build_report` turns a Comparison into plain dicts, lists, numbers and None (never NaN),
so `json.dumps` gives the document other tools read and the renderers never re-compute.
"""

from __future__ import annotations

from typing import Any, cast

from ragtui.core.comparing.gold_suspects import likely_gold_problems
from ragtui.core.comparing.power import POWER
from ragtui.core.comparing.report_calibration import calibration_section, corrected_sections
from ragtui.core.comparing.report_fields import metric_fields, p_value, target_fields
from ragtui.core.comparing.report_model import Report
from ragtui.core.comparing.report_noise import add_noise_fields
from ragtui.core.comparing.result import Comparison
from ragtui.core.comparing.run_summary import RunSummary
from ragtui.core.comparing.stats import T_INTERVAL_FROM
from ragtui.core.comparing.tool_report import add_tool_fields
from ragtui.core.measuring.evaluate import Evaluation
from ragtui.core.measuring.metrics import CURVE_MAX_K
from ragtui.core.vocabulary import json_number as _num


def _run_header(evaluation: Evaluation, summary: RunSummary) -> dict[str, Any]:
    run = evaluation.run
    c = summary.counts
    return {
        "name": run.name,
        "path": str(run.path),
        "format": run.source_format,
        "created_at": run.meta.created_at,
        "system": run.meta.system,
        "generator_model": run.meta.generator_model,
        "judge_model": run.judge_model(),
        "questions": c.questions,
        "missing": c.missing,
        "extra_questions": c.extra,
        "judge_errors": c.judge_errors,
        "system_errors": c.system_errors,
        "judge_directed": evaluation.judge_directed,
        "abstained_excluded_from_faithfulness": c.abstained_excluded,
        "failing": c.failing,
        "failure_kinds": c.failure_kinds,
    }


def grid_section(comparison: Comparison) -> dict[str, Any]:
    """`multiple_testing`: how the grid's p-values were adjusted, over how many cells, and which
    survive (a category cell names its `category`, a tag cell its `tag`)."""
    config = comparison.config
    cells = [
        (kind, group, name, cell)
        for kind, groups in (("category", comparison.categories), ("tag", comparison.tags))
        for group, data in groups.items()
        for name, cell in data.metrics.items() if cell.p_adjusted is not None
    ]
    return {
        "method": config.multiple_testing,
        "family": "metrics × categories and metrics × tags (the headline metrics are a family of their own)",
        "cells": len(cells),
        "level": _num(1 - config.confidence),
        "surviving": [
            {kind: group, "metric": name, "verdict": cell.verdict, "p_value": p_value(cell.p_value), "p_adjusted": p_value(cell.p_adjusted)}
            for kind, group, name, cell in cells if cell.verdict in ("regressed", "improved")
        ],
    }


def clustering_section(comparison: Comparison) -> dict[str, Any] | None:
    """`clustering`: what named the questions' documents, and how many there are; None: independent."""
    by = comparison.a.clustered_by
    if not by:
        return None
    return {"by": list(by), "clusters": int(comparison.a.questions.get_column("cluster").drop_nulls().n_unique())}


def t_intervals_section(comparison: Comparison) -> dict[str, Any] | None:
    """`t_intervals`: which Δ intervals are the large-sample t interval, not the bootstrap (a
    mean of values different on nearly every question, from `stats.T_INTERVAL_FROM` questions
    on); None when none is, and the key is then left out."""
    metrics = [name for name, metric in comparison.metrics.items() if metric.t_interval]
    cells = [
        {kind: group, "metric": name}
        for kind, groups in (("category", comparison.categories), ("tag", comparison.tags))
        for group, data in groups.items()
        for name, cell in data.metrics.items() if cell.t_interval
    ]
    if not metrics and not cells:
        return None
    return {"from_questions": T_INTERVAL_FROM, "metrics": metrics, "cells": cells}


def _categories(comparison: Comparison, two_runs: bool, by_tag: bool = False) -> dict[str, Any]:
    """`categories` (or, `by_tag`, `tags`: the same shape per tag of the gold set)."""
    out = {}
    groups = comparison.tags if by_tag else comparison.categories
    for category, data in groups.items():
        metrics = {}
        for name, cell in data.metrics.items():
            digits = comparison.metrics[name].spec.json_digits
            entry: dict[str, Any] = {"A": _num(cell.a.value, digits), "n": cell.a.n}
            if two_runs:
                entry["B"] = _num(cell.b.value, digits) if cell.b else None
                entry["delta"] = _num(cell.delta, digits)
                entry["n_by_run"] = {"A": cell.a.n, "B": cell.b.n if cell.b else 0}
                # The grid's tests, over categories and tags alike.
                entry["ci"] = [_num(cell.ci[0]), _num(cell.ci[1])] if cell.ci else None
                entry["p_value"] = p_value(cell.p_value)
                entry["p_adjusted"] = p_value(cell.p_adjusted)
                entry["verdict"] = cell.verdict
                entry["clusters"], entry["design_effect"] = cell.clusters, _num(cell.design_effect)
            if comparison.metrics[name].target is not None and not by_tag:  # targets are read per category only
                entry.update(target_fields(cell.targets, ("A", "B") if two_runs else ("A",), digits))
            metrics[name] = entry
        out[category] = {"name": category if by_tag else comparison.config.category_name(category), "n": data.n, "metrics": metrics}
    return out


def build_report(comparison: Comparison) -> Report:
    """The report document (docs/cli.md): runs, k, metrics, categories, questions, warnings."""
    two_runs = comparison.b is not None
    runs = {side: _run_header(evaluation, comparison.runs[side]) for side, evaluation in comparison.evaluations.items()}
    unavailable = {side: summary.unavailable for side, summary in comparison.runs.items()}
    report: dict[str, Any] = {
        "runs": runs,
        "k": comparison.k,
        "metrics": {name: metric_fields(m, two_runs, unavailable) for name, m in comparison.metrics.items()},
        "categories": _categories(comparison, two_runs),
        "tags": _categories(comparison, two_runs, by_tag=True),
    }
    for name, corrected in corrected_sections(comparison).items():
        report["metrics"][name]["corrected"] = corrected
    add_tool_fields(report, comparison)
    if two_runs:
        report["questions"] = {
            status: comparison.question_ids(status) for status in ("regressed", "fixed", "still_failing")
        }
        regressed = comparison.status.filter(comparison.status.get_column("status") == "regressed")
        # The most frequent first; equal counts by name (value_counts leaves ties in any order).
        causes = regressed.get_column("cause").value_counts().sort(["count", "cause"], descending=[True, False], nulls_last=True)
        report["regressed_by_cause"] = {row["cause"]: row["count"] for row in causes.iter_rows(named=True)}
        report["unpaired"] = comparison.unpaired
        # The four fields' columns, zipped into records: rows read as tuples took 0.8 s of
        # the 1.3 s these 175,435 regressions cost at 1,000,000 questions.
        columns = (regressed.get_column(name).to_list() for name in ("id", "category", "cause", "kinds_added"))
        report["regressions"] = [
            {"id": qid, "category": category, "cause": cause, "kinds_added": kinds} for qid, category, cause, kinds in zip(*columns, strict=True)
        ]
        report["likely_gold_problems"] = likely_gold_problems(comparison)
    else:
        report["questions"] = {"still_failing": comparison.question_ids("still_failing")}
    not_measured = comparison.question_ids("not_measured")
    if not_measured:  # present only when some question was not measured: never "passing"
        report["questions"]["not_measured"] = not_measured
    curve: dict[str, list] = {"k": list(range(1, CURVE_MAX_K + 1))}
    curve.update({side: [_num(v) for v in summary.recall_curve] for side, summary in comparison.runs.items()})
    report["recall_curve"] = curve
    report["calibration"] = {side: calibration_section(comparison, side) for side in runs}
    add_noise_fields(report, comparison)
    report["clustering"] = clustering_section(comparison)
    t_intervals = t_intervals_section(comparison)
    if t_intervals is not None:  # present only at such sizes: a report of a gold set keeps its shape
        report["t_intervals"] = t_intervals
    if two_runs:
        report["multiple_testing"] = grid_section(comparison)
        config = comparison.config
        report["power"] = {"level": POWER, "confidence": config.confidence, "max_drop": config.max_drop}
    report["warnings"] = list(dict.fromkeys(comparison.warnings))
    return cast("Report", report)  # the shape `report_model` names (tests/cli/golden pins its bytes)

