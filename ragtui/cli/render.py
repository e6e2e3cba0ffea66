"""Text and markdown views of the report document (never re-computes a number).

Text is an aligned table for a person in a terminal, symbols carrying the meaning so it
reads without colour; markdown is for a PR comment. Every string that came from a file
goes through `neutralize`, so a run name cannot smuggle escape sequences to the terminal.
"""

from __future__ import annotations

import textwrap
from typing import Any

from ragtui.cli import render_system as system
from ragtui.cli.render_certainty import (
    clustering_line,
    delta_heading,
    grid_lines,
    power_table,
    report_confidence,
    t_interval_line,
    target_table,
)
from ragtui.cli.render_gold import group_tables
from ragtui.cli.render_tools import status_from_line, tool_counts_text, tool_text_lines
from ragtui.core.comparing.report_model import CellFields, MetricFields, Report, RunFields, groups
from ragtui.core.comparing.targets import metric_spec
from ragtui.core.measuring.metric_specs import HEADLINE, MetricSpec
from ragtui.core.sanitize import neutralize
from ragtui.core.vocabulary import (
    CAUSE_EXPLAINED,
    DISAGREE_MARK,
    JUDGE_DIRECTED_MARK,
    UNSTABLE_LABEL,
    UNSTABLE_MARK,
    VERDICT_LABEL,
    VERDICT_SYMBOL,
    delta_ci_text,
    interval_heading,
    percent_text,
    target_mark,
    target_symbol,
    target_text,
    value_text,
)

WIDTH = 80  # the text report reads in an 80-column terminal
LEGEND_TEXT = (
    f"(utility's Δ is in score units; ! a drop larger than max_drop; {DISAGREE_MARK} A and B judged by different "
    "models or prompts; n/a: not measured)"
)
# Regressions that are not the system getting worse, counted apart in the summary.
REGRESSED_APART = {"missing": "missing from B", "system_error": "system errors", "judge_error": "judge errors"}


def _safe(text: Any) -> str:
    return neutralize(text, keep_newlines=False)


def metric_cells(name: str, metric: MetricFields | CellFields) -> tuple[MetricSpec, str, str]:
    """A metric's spec and its A and B values as every table of the reports prints them."""
    spec = metric_spec(name, metric)
    return spec, value_text(metric["A"], spec), value_text(metric.get("B"), spec)


def _table(rows: list[list[str]], header: list[str], gap: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        return gap.join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()

    return [fmt(header), fmt(["─" * w for w in widths]), *[fmt(r) for r in rows]]


def _wrapped(prefix: str, text: str, width: int = WIDTH) -> list[str]:
    """`text` wrapped to the report's width, continuation lines indented under it."""
    return textwrap.wrap(text, width, initial_indent=prefix, subsequent_indent=" " * len(prefix)) or [prefix.rstrip()]


def _runs_lines(report: Report) -> list[str]:
    lines = []
    for label, run in report["runs"].items():
        models = f"generator {_safe(run['generator_model'] or 'n/a')} · judge {_safe(run['judge_model'] or 'n/a')}"
        lines += _wrapped(f"{label}: ", f"{_safe(run['name'])}  ({_safe(run['path'])})")
        lines += _wrapped(
            "   ",
            f"{run['questions']} questions · {run['missing']} missing · {run['extra_questions']} not in gold · "
            f"{run['judge_errors']} judge errors" + system.system_errors_text(run),
        )
        lines += _wrapped("   ", directed_text(run))
        lines += _wrapped("   ", models)
        if run.get("tool"):
            lines += _wrapped("   ", tool_counts_text(run))
    return lines


def directed_text(run: RunFields) -> str:
    """`⚠ 2 questions address the judge (1 answer, 1 passage)`: the detector's count for one run."""
    directed = run.get("judge_directed") or {}
    count = directed.get("questions", 0)
    if not count:
        return "no answer or passage addresses the judge"
    return (
        f"{JUDGE_DIRECTED_MARK} {count} question(s) address the judge "
        f"({directed.get('answers', 0)} answer(s), {directed.get('passages', 0)} passage(s))"
    )


def drop_note(name: str, metric: MetricFields) -> str | None:
    if not metric.get("drop_flagged") or metric.get("verdict") == "regressed":
        return None
    delta = delta_ci_text(metric.get("delta"), metric.get("ci"), metric_spec(name, metric))
    return f"{name}: {delta}: a drop larger than max_drop, could be noise at n = {metric['n']}"


def _main_rows(report: Report, two: bool) -> list[list[str]]:
    rows = []
    for name, m in system.quality_metrics(report):  # latency, cost, tokens have their own table (render_system)
        spec, a, b = metric_cells(name, m)
        # The target mark attached to the value, as in the category table: `100.0%✓` keeps the
        # table within 80 columns when both runs reach 100%.
        row = [name, target_text(m["target"], spec, missing=""), f"{a}{target_mark(m['meets_target']['A'])}"]
        if two:
            verdict = m.get("verdict") or ""
            flag = "!" if m.get("drop_flagged") else ""
            # The judge mark goes on the name: the Δ column is the table's widest at 80 columns.
            row[0] += DISAGREE_MARK if m.get("judge_changed") else ""
            row += [
                f"{b}{target_mark(m['meets_target']['B'])}",
                delta_ci_text(m.get("delta"), m.get("ci"), spec, unit=False) + flag,
                f"{VERDICT_SYMBOL.get(verdict, ' ')} {VERDICT_LABEL.get(verdict, 'n/a')}",
            ]
        else:
            row.append(str(m["n"]))
        rows.append(row)
    return rows


def render_text(report: Report, *, confidence: float | None = None) -> str:
    """The report as aligned plain text; `confidence`: of its intervals (`report_confidence`)."""
    two = "B" in report["runs"]
    status_line = status_from_line(report)
    lines = ["ragtui report", *_runs_lines(report), f"k = {report['k']}", *([status_line] if status_line else []), *[line for text in filter(None, [clustering_line(report), t_interval_line(report)]) for line in _wrapped("", text)], ""]
    header = ["metric", "target", "A"] + (["B", delta_heading(report, "Δ pts"), "verdict"] if two else ["n"])
    # Single spaces between columns: the table fits 80 columns.
    lines += _table(_main_rows(report, two), header, gap=" ")
    lines += (_wrapped("", LEGEND_TEXT) if two else []) + system.quantity_lines(report, two, _table)  # latency, cost, tokens apart
    notes = [n for n in (drop_note(name, m) for name, m in report["metrics"].items()) if n]
    lines += ["", *[line for note in notes for line in _wrapped("! ", note)]] if notes else []
    for certainty in (target_table(report), power_table(report)):
        if certainty is not None:
            title, header, rows = certainty
            lines += ["", *_wrapped("", title), *_table(rows, header, gap=" ")]
    lines += tool_text_lines(report, _table)
    lines += group_tables(report, two, _table, _category_rows, headline_names(report)) + [line for text in grid_lines(report) for line in _wrapped("", text)]
    lines += ["", *_failure_lines(report)]
    lines += _calibration_lines(report, report_confidence(report, confidence))
    lines += _noise_lines(report)
    if two:
        lines += ["", *regression_lines(report)]
    if "marks" in report:
        lines += ["", *_marks_lines(report["marks"])]
    if report["warnings"]:
        lines += ["", "Warnings:", *[line for w in report["warnings"] for line in _wrapped("! ", _safe(w))]]
    return "\n".join(lines) + "\n"


def _marks_lines(marks: list[dict[str, Any]]) -> list[str]:
    """`--notes`: each marked question, its mark and note (the triage, as the app saved it)."""
    from ragtui.core.triage.notes import MARK_LABELS

    if not marks:
        return ["Triage marks: none in the notes file."]
    lines = [f"Triage marks ({len(marks)}):"]
    width = min(max(len(_safe(m["id"])) for m in marks), 20)
    for m in marks:
        head = f"{_safe(m['id']):<{width}}  {MARK_LABELS.get(m['mark'], m['mark']):<10}  "
        lines += _wrapped(head, _safe(m["note"]) or "(no note)") if m["note"] else [head.rstrip()]
    return lines


def headline_names(report: Report) -> list[str]:
    return [name for name in report["metrics"] if name.split("@")[0] in HEADLINE]


def _category_rows(report: Report, two: bool, section: str = "categories") -> list[list[str]]:
    rows = []
    for data in groups(report, section).values():
        cells = []
        for name in headline_names(report):
            cell = data["metrics"][name]
            # The latest run's verdict against the target, attached so the table fits 80 columns.
            latest = "B" if two else "A"
            symbol = target_symbol((cell.get("meets_target") or {}).get(latest)) if cell.get(latest) is not None else ""
            _, a, b = metric_cells(name, cell)
            text = a + (f" → {b}" if two else "")
            cells.append(text + symbol)
        rows.append([_safe(data["name"]), str(data["n"]), *cells])
    return rows


def calibration_text(calibration: dict[str, Any]) -> str:
    """`30 answers, 84 sentence pairs: 91.2% agree, κ 0.70; utility: 63% exact, 93% within ±1`."""
    parts = [f"{calibration['answers']} answers, {calibration['sentences']} sentence pairs"]
    if calibration["sentence_agreement"] is not None:
        kappa = calibration["sentence_kappa"]
        parts[0] += f": {percent_text(calibration['sentence_agreement'])} agree" + (f", κ {kappa:.2f}" if kappa is not None else "")
    if calibration["misaligned_answers"]:
        parts.append(f"{calibration['misaligned_answers']} answers judged on a different sentence count, not compared")
    if calibration["utility_exact"] is not None:
        parts.append(
            f"utility: {percent_text(calibration['utility_exact'], digits=0)} exact, {percent_text(calibration['utility_within_one'], digits=0)} within ±1 "
            f"(mean |Δ| {calibration['utility_mean_abs_diff']:.2f})"
        )
    return "; ".join(parts)


def _category_names(report: Report) -> dict[str, str]:
    return {category: cell.get("name", category) for category, cell in report.get("categories", {}).items()}


def _calibration_lines(report: Report, confidence: float) -> list[str]:
    found = {label: c for label, c in report.get("calibration", {}).items() if c}
    if not found:
        return []
    from ragtui.cli.render_calibration import calibration_detail_lines, corrected_lines

    lines = ["", "Judge vs human labels (a good judge agrees on about 85 % of sentences):"]
    for label, c in found.items():
        lines += _wrapped(f"  {label}: ", calibration_text(c))
        lines += [line for detail in calibration_detail_lines(c, _category_names(report)) for line in _wrapped("     ", detail)]
    corrected = corrected_lines(report)
    if corrected:
        lines += ["", f"Corrected by the sampled labels (PPI++, {interval_heading(confidence)}):"]
        lines += [line for prefix, text in corrected for line in _wrapped(prefix, text)]
    return lines


def _noise_lines(report: Report) -> list[str]:
    if not report.get("judge_noise"):
        return []
    from ragtui.cli.render_calibration import NOISE_TITLE, noise_lines

    return ["", *_wrapped("", NOISE_TITLE), *[line for prefix, text in noise_lines(report) for line in _wrapped(prefix, text)]]


def _failure_lines(report: Report) -> list[str]:
    kinds = list(next(iter(report["runs"].values()))["failure_kinds"])
    header = ["failure kind", *report["runs"].keys()]
    rows = [[kind, *[str(run["failure_kinds"][kind]) for run in report["runs"].values()]] for kind in kinds]
    return ["Failure kinds (questions):", *_table(rows, header)]


def status_summary(report: Report) -> str:
    """`26 regressed (of which 4 missing from B, 3 judge errors) · 16 fixed · 26 still failing`."""
    counts = {status: len(ids) for status, ids in report["questions"].items()}
    by_cause = report.get("regressed_by_cause", {})
    apart = [f"{by_cause[cause]} {label}" for cause, label in REGRESSED_APART.items() if by_cause.get(cause)]
    text = f"{counts.get('regressed', 0)} regressed" + (f" (of which {', '.join(apart)})" if apart else "")
    text += f" · {counts.get('fixed', 0)} fixed · {counts.get('still_failing', 0)} still failing"
    if counts.get("not_measured"):
        text += f" · {counts['not_measured']} not measured"
    return text


def regression_lines(report: Report) -> list[str]:
    regressions = report.get("regressions", [])
    head_lines = _wrapped("Questions: ", status_summary(report))
    if not regressions:
        return head_lines
    display = {category: data["name"] for category, data in report["categories"].items()}
    regressions = [r | {"category": display.get(r["category"], r["category"])} for r in regressions]
    id_width = max(len(_safe(r["id"])) for r in regressions)
    category_width = max(len(_safe(r["category"])) for r in regressions)
    lines = [*head_lines, "", "Regressed questions (cause; new failure kinds below):"]
    for r in regressions:
        unstable = f"  {UNSTABLE_MARK} {UNSTABLE_LABEL}" if r.get("unstable_verdict") else ""
        lines.append(f"{_safe(r['id']):<{id_width}}  {_safe(r['category']):<{category_width}}  {CAUSE_EXPLAINED.get(r['cause'], r['cause'] or '')}{unstable}")
        if r["kinds_added"]:
            lines += _wrapped(" " * (id_width + 2) + "+ ", ", ".join(r["kinds_added"]))
    return lines
