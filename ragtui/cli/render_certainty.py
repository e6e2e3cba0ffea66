"""How sure the report is: each run against its target, the power of the comparison, the
documents its questions come from, and the category cells that survive many tests.

Small tables and lines for the text and markdown reports, read from the report document
(they never re-compute): which runs meet, miss, or cannot yet tell against their targets
with the interval that decided it; for two runs, the smallest drop the comparison could
detect at 80 % power and the questions a drop of `max_drop` would need; "clustered by
document (7)"; and the grid's cells whose change survives the adjustment.
"""

from __future__ import annotations

from ragtui.core.comparing.report_model import MetricFields, Report
from ragtui.core.loading.config import Config
from ragtui.core.measuring.metric_specs import MetricSpec, metric_by_name
from ragtui.core.sanitize import neutralize
from ragtui.core.vocabulary import (
    MULTIPLE_TESTING_SHORT,
    TARGET_LEGEND,
    clustered_text,
    count_text,
    drop_text,
    interval_heading,
    interval_text,
    level_text,
    p_value_text,
    target_symbol,
    target_text,
)


def report_confidence(report: Report, confidence: float | None = None) -> float:
    """The confidence of the report's intervals: `confidence` when the caller knows it (the
    CLI passes the configuration's: a one-run report records none), else the one a two-run
    report records with its power, else the default's."""
    if confidence is not None:
        return confidence
    power = report.get("power")
    return power["confidence"] if power else Config().confidence


def delta_heading(report: Report, what: str = "Δ") -> str:
    """`Δ (95% CI)`: the heading of a column of differences and their intervals."""
    return f"{what} ({interval_heading(report_confidence(report))})"


def _spec(name: str) -> MetricSpec | None:
    try:
        return metric_by_name(name)
    except KeyError:  # a name the core does not define (a peer tool's metric)
        return None


def _targeted(report: Report) -> list[tuple[str, MetricSpec, MetricFields]]:
    rows = []
    for name, metric in report["metrics"].items():
        spec = _spec(name)
        if spec is not None and metric.get("target") is not None and metric.get("ci_by_run"):
            rows.append((name, spec, metric))
    return rows


def _reading(metric: MetricFields, run: str, spec: MetricSpec) -> str:
    verdict = (metric.get("meets_target") or {}).get(run)
    ci = (metric.get("ci_by_run") or {}).get(run)
    if verdict is None or ci is None:
        return "n/a"
    return f"{target_symbol(verdict)} {verdict} {interval_text(ci, spec)}"


def _target_rows(report: Report) -> list[list[str]]:
    runs = list(report["runs"])
    return [[name, target_text(metric["target"], spec), *[_reading(metric, run, spec) for run in runs]] for name, spec, metric in _targeted(report)]


def _drop(report: Report, spec: MetricSpec) -> float:
    """The drop `n_needed` is for: max_drop, at the same share of utility's 1–5 range."""
    return report["power"]["max_drop"] * spec.span


def _power_rows(report: Report) -> list[list[str]]:
    rows = []
    for name, metric in report["metrics"].items():
        spec = _spec(name)
        if spec is None or "n_needed" not in metric or spec.quantity:  # power is sized in points, not ms or $
            continue
        drop = _drop(report, spec)
        mde = drop_text(metric["mde"], spec) if metric["mde"] is not None else ("none" if metric["n_needed"] is not None else "n/a")
        needed = count_text(metric["n_needed"]) if metric["n_needed"] is not None else "n/a (A = B)"
        rows.append([name, str(metric["n"]), mde, needed + (f" (for {drop_text(drop, spec)})" if spec.scale == "score" else "")])
    return rows


def _power_title(report: Report) -> str:
    power = report["power"]
    return (
        f"Power ({level_text(power['level'])} power, {level_text(power['confidence'])} confidence): the smallest drop "
        f"this comparison detects, and the questions needed to detect a drop of {drop_text(power['max_drop'], metric_by_name('recall'))}"
    )


Table = tuple[str, list[str], list[list[str]]]  # (title, header, rows)


def target_table(report: Report) -> Table | None:
    """Verdicts against the targets with each run's interval (None when no metric has a target)."""
    rows = _target_rows(report)
    if not rows:
        return None
    return f"Against the target, decided by each run's own interval ({TARGET_LEGEND}):", ["metric", "target", *report["runs"]], rows


def power_table(report: Report) -> Table | None:
    """`mde` and `n_needed` per compared metric (None for a single run)."""
    if "power" not in report:
        return None
    return _power_title(report) + ":", ["metric", "n", "detects ≥", "n needed"], _power_rows(report)


def clustering_line(report: Report) -> str | None:
    """`clustered by document (7): intervals resample documents (named by: corpus)`; None when independent."""
    clustering = report.get("clustering")
    if not clustering:
        return None
    return f"{clustered_text(clustering['clusters'])}: intervals and tests resample documents (named by: {', '.join(clustering['by'])})"


def t_interval_line(report: Report) -> str | None:
    """`Δ intervals from 5,000 questions of values distinct on nearly every question are t intervals, not the bootstrap: cost_usd, 4 grid cells`."""
    large = report.get("t_intervals")
    if not large:
        return None
    cells = len(large["cells"])
    named = [*large["metrics"], *([f"{cells} grid cell{'s' if cells != 1 else ''}"] if cells else [])]
    return (
        f"Δ intervals of a mean over ≥ {large['from_questions']:,} questions with values distinct on nearly every question "
        f"are paired t intervals, not the bootstrap: {', '.join(named)}"
    )


def grid_lines(report: Report) -> list[str]:
    """A blank line, then the category and tag cells whose change survives the grid's adjustment,
    one per line; [] with one run (no grid)."""
    grid = report.get("multiple_testing")
    if not grid:
        return []
    method = MULTIPLE_TESTING_SHORT.get(grid["method"], grid["method"])
    groups = "Category and tag" if report.get("tags") else "Category"
    head = f"{groups} changes that survive {method} over {grid['cells']} cells (adjusted p < {grid['level']:g}):"
    if not grid["surviving"]:
        return ["", head, "  none: no {g} cell changed beyond what {n} tests give by chance".format(g=groups.lower(), n=grid["cells"])]
    names = {category: data.get("name", category) for category, data in report["categories"].items()}
    lines = ["", head]
    for cell in grid["surviving"]:
        group = f"tag {cell['tag']}" if "tag" in cell else names.get(cell["category"], cell["category"])
        name = neutralize(group, keep_newlines=False)
        lines.append(f"  {name} · {cell['metric']}: {cell['verdict']} (p {p_value_text(cell['p_value'])}, adjusted {p_value_text(cell['p_adjusted'])})")
    return lines
