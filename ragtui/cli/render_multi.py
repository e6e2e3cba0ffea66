"""Text and markdown views of a report on more than two runs (never re-computes a number).

A summary first — every run's headline metrics, each candidate's Δ against A with its
verdict symbol — then each comparison exactly as the two-run report renders it, so a
reader who knows `ragtui report A B` reads every section without learning anything new.
"""

from __future__ import annotations

from typing import Any

from ragtui.cli.render import (
    WIDTH,
    _safe,
    _table,
    _wrapped,
    headline_names,
    metric_cells,
    render_text,
)
from ragtui.cli.render_markdown import render_markdown
from ragtui.core.comparing.report_model import MetricFields, MultiReport
from ragtui.core.comparing.targets import metric_spec
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.sanitize import md_code
from ragtui.core.vocabulary import (
    TRADEOFF_BEST,
    TRADEOFF_DOMINATED,
    TRADEOFF_FRONT,
    VERDICT_LABEL,
    VERDICT_SYMBOL,
    delta_text,
    target_mark,
    target_text,
    value_text,
)

LEGEND = "Δ against A, in points (utility's in score units): " + " · ".join(
    f"{VERDICT_SYMBOL[v]} {VERDICT_LABEL[v]}" for v in ("improved", "regressed", "no_clear_change")
)


def _cell(name: str, metric: MetricFields, side: str) -> str:
    """`86.7% ✓ ▲+7.8`: the run's value, its target mark and (for a candidate) Δ with its verdict."""
    spec, a, b = metric_cells(name, metric)
    value = a if side == "A" else b
    if value == "n/a":
        return value
    text = f"{value} {target_mark(metric['meets_target'][side])}".rstrip()
    if side == "B" and metric.get("delta") is not None:
        symbol = VERDICT_SYMBOL.get(metric.get("verdict") or "", " ")
        text += f" {symbol}{delta_text(metric['delta'], spec, unit=False)}"
    return text


def _summary_rows(report: MultiReport, names: list[str], *, safe=_safe) -> list[list[str]]:
    first = report["comparisons"][0]
    rows = [["", "target", *[target_text(first["metrics"][n]["target"], metric_spec(n, first["metrics"][n]), missing="") for n in names]]]
    rows.append(["A", safe(report["runs"][0]["name"]), *[_cell(n, first["metrics"][n], "A") for n in names]])
    for run, pair in zip(report["runs"][1:], report["comparisons"], strict=True):
        rows.append([run["label"], safe(run["name"]), *[_cell(n, pair["metrics"][n], "B") for n in names]])
    return rows


TRADEOFF_LEGEND = (
    f"each run at its own k · {TRADEOFF_BEST} best on both (largest smaller margin over the targets) · "
    f"{TRADEOFF_FRONT} Pareto front · {TRADEOFF_DOMINATED} dominated"
)


def _tradeoff_rows(section: dict[str, Any], *, safe=_safe) -> list[list[str]]:
    """One row per run: shape and label, name, its own k, recall@k, faithfulness, utility."""
    rows = []
    for point in section["points"]:
        label = point["label"]
        shape = TRADEOFF_BEST if label == section["best"] else (TRADEOFF_FRONT if label in section["front"] else TRADEOFF_DOMINATED)
        k = f"{point['k']}{'' if point['k_from'] == 'metadata' else '*'}"
        values = [value_text(point[name], metric_by_name(name)) for name in ("recall", "faithfulness", "utility")]
        rows.append([f"{shape} {label}", safe(point["name"]), k, *values])
    return rows


def _tradeoff_note(section: dict[str, Any]) -> str:
    targets = section["targets"]
    marks = [f"{name} target {target_text(targets[key], metric_by_name(key))}" for key, name in (("recall", "recall@k"), ("faithfulness", "faithfulness")) if targets[key] is not None]
    starred = any(point["k_from"] != "metadata" for point in section["points"])
    return " · ".join(part for part in [*marks, "* k read from the run's name or the comparison" if starred else ""] if part)


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def render_multi_text(report: MultiReport) -> str:
    """Every run's headline against A, then each comparison as `render_text` shows a pair."""
    runs = report["runs"]
    lines = [f"ragtui report: {len(runs)} runs, each compared with A (k = {report['k']})"]
    label_width = max(len(run["label"]) for run in runs) + 2
    for run in runs:
        lines += _wrapped(f"{run['label']}: ".ljust(label_width), f"{_safe(run['name'])}  ({_safe(run['path'])})")
    names = headline_names(report["comparisons"][0])
    rows = _summary_rows(report, names)
    for row in rows:  # the table fits 80 columns: long run names are cut here, shown whole above
        row[1] = _shorten(row[1], 14)
    lines += ["", *_table(rows, ["run", "name", *names], gap=" "), *_wrapped("", LEGEND)]
    section = report["tradeoff"]
    trade = _tradeoff_rows(section)
    for row in trade:
        row[1] = _shorten(row[1], 14)
    lines += ["", "Trade-off: recall at each run's own k against faithfulness"]
    lines += [*_table(trade, ["run", "name", "k", "recall@k", "faithfulness", "utility"], gap="  ")]
    lines += [*_wrapped("", TRADEOFF_LEGEND), *_wrapped("", _tradeoff_note(section))]
    for position, (run, pair) in enumerate(zip(runs[1:], report["comparisons"], strict=True), start=1):
        title = f" Comparison {position} of {len(runs) - 1}: A → {run['label']} "
        lines += ["", "", "═" * 3 + title + "═" * max(3, WIDTH - 3 - len(title))]
        lines += render_text(pair).rstrip("\n").split("\n")
    return "\n".join(lines) + "\n"


def render_multi_markdown(report: MultiReport) -> str:
    """A summary table for a PR comment, then each comparison as `render_markdown` shows a pair."""
    runs = report["runs"]
    names = headline_names(report["comparisons"][0])
    out = [f"### ragtui report: {len(runs)} runs against {md_code(runs[0]['name'])} (k = {report['k']})", ""]
    out += ["| run | name | " + " | ".join(f"`{n}`" for n in names) + " |", "|" + "---|" * (2 + len(names))]
    for row in _summary_rows(report, names, safe=md_code):
        out.append("| " + " | ".join(cell.strip() for cell in row) + " |")
    out += ["", f"_{LEGEND}_"]
    section = report["tradeoff"]
    out += ["", "**Trade-off**: recall at each run's own k against faithfulness", ""]
    out += ["| run | name | k | recall@k | faithfulness | utility |", "|---|---|---|---|---|---|"]
    for row in _tradeoff_rows(section, safe=md_code):
        out.append("| " + " | ".join(row) + " |")
    out += ["", f"_{TRADEOFF_LEGEND}. {_tradeoff_note(section)}_"]
    for position, (run, pair) in enumerate(zip(runs[1:], report["comparisons"], strict=True), start=1):
        out += ["", "---", "", f"#### Comparison {position} of {len(runs) - 1}: A → {run['label']}", ""]
        out += render_markdown(pair).rstrip("\n").split("\n")
    return "\n".join(out) + "\n"
