"""The report as GitHub-flavoured markdown, for a PR comment (never re-computes a number).

Every string that came from a file — run names, ids, categories, warnings that quote
them, the peer tools' metric names — is set in an inline code span (`md_code`, in
ragtui.core.sanitize): inside one, markdown makes no link,
image, HTML tag or emphasis, and GitHub pings no `@mention`. Control characters are
neutralised first and pipes escaped, so a name cannot break out of a table cell either.
"""

from __future__ import annotations

from ragtui.cli import render_certainty as certainty
from ragtui.cli.render import (
    LEGEND_TEXT,
    calibration_text,
    directed_text,
    drop_note,
    headline_names,
    metric_cells,
    status_summary,
)
from ragtui.cli.render_system import system_errors_text
from ragtui.cli.render_tools import status_from_line, tool_markdown_lines
from ragtui.core.comparing.report_model import Report, groups
from ragtui.core.sanitize import md_code
from ragtui.core.vocabulary import (
    CAUSE_EXPLAINED,
    KIND_LABELS,
    TARGET_LEGEND,
    UNSTABLE_LABEL,
    UNSTABLE_MARK,
    VERDICT_LABEL,
    VERDICT_SYMBOL,
    delta_ci_text,
    interval_heading,
    target_mark,
    target_symbol,
    target_text,
)


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return [_row(header), "|" + "---|" * len(header), *[_row(r) for r in rows]]


def _runs(report: Report) -> list[str]:
    lines = []
    for label, run in report["runs"].items():
        lines.append(
            f"- **{label}** {md_code(run['name'])}: {run['questions']} questions · {run['missing']} missing · "
            f"{run['extra_questions']} not in gold · {run['judge_errors']} judge errors{system_errors_text(run)} · judge {md_code(run['judge_model'] or 'n/a')}"
        )
    return lines


def _metrics(report: Report, two: bool) -> list[str]:
    header = ["metric", "target", "A"] + (["B", certainty.delta_heading(report), "verdict"] if two else ["n"])
    rows = []
    for name, m in report["metrics"].items():
        spec, a, b = metric_cells(name, m)
        row = [f"`{name}`", target_text(m["target"], spec, missing=""), f"{a} {target_mark(m['meets_target']['A'])}".strip()]
        if two:
            verdict = m.get("verdict") or ""
            flags = ("!" if m.get("drop_flagged") else "") + ("≠" if m.get("judge_changed") else "")
            row += [
                f"{b} {target_mark(m['meets_target']['B'])}".strip(),
                delta_ci_text(m.get("delta"), m.get("ci"), spec) + (f" {flags}" if flags else ""),
                f"{VERDICT_SYMBOL.get(verdict, '')} {VERDICT_LABEL.get(verdict, 'n/a')}".strip(),
            ]
        else:
            row.append(str(m["n"]))
        rows.append(row)
    lines = _table(header, rows)
    if two:
        lines += ["", f"<sub>{LEGEND_TEXT.strip('()')}; against the target: {TARGET_LEGEND}</sub>"]
    notes = [n for n in (drop_note(name, m) for name, m in report["metrics"].items()) if n]
    return lines + (["", *[f"- ⚠ {note}" for note in notes]] if notes else [])


def _categories(report: Report, two: bool, section: str = "categories") -> list[str]:
    """The category table (or, `section="tags"`, the table per tag of the gold set)."""
    names = headline_names(report)
    latest = "B" if two else "A"
    rows = []
    for data in groups(report, section).values():
        cells = []
        for name in names:
            cell = data["metrics"][name]
            # The latest run's verdict against the target, as in the text report.
            symbol = target_symbol((cell.get("meets_target") or {}).get(latest)) if cell.get(latest) is not None else ""
            _, a, b = metric_cells(name, cell)
            cells.append(a + (f" → {b}" if two else "") + symbol)
        rows.append([md_code(data["name"]), str(data["n"]), *cells])
    if section == "tags":
        title = "**By tag of the gold set** (A → B; a question counts in each of its tags)" if two else "**By tag of the gold set**"
        return [title, "", *_table(["tag", "n", *[f"`{n}`" for n in names]], rows)]
    title = f"**By category** (A → B; B vs target: {TARGET_LEGEND})" if two else f"**By category** (vs target: {TARGET_LEGEND})"
    return [title, "", *_table(["category", "n", *[f"`{n}`" for n in names]], rows)]


def _certainty(report: Report) -> list[str]:
    """Each run's verdict against its target with its interval, and what the comparison could detect."""
    out = []
    for table in (certainty.target_table(report), certainty.power_table(report)):
        if table is not None:
            title, header, rows = table
            out += ["", title, "", *_table(header, [[f"`{row[0]}`", *row[1:]] for row in rows])]
    return out


def _failure_kinds(report: Report) -> list[str]:
    runs = report["runs"]
    kinds = list(next(iter(runs.values()))["failure_kinds"])
    rows = [[KIND_LABELS.get(kind, kind), *[str(run["failure_kinds"][kind]) for run in runs.values()]] for kind in kinds]
    return ["**Failure kinds** (questions)", "", *_table(["failure kind", *runs.keys()], rows)]


def _question_list(title: str, rows: list[list[str]], header: list[str]) -> list[str]:
    if not rows:
        return []
    return ["", f"<details><summary>{title}</summary>", "", *_table(header, rows), "", "</details>"]


def _questions(report: Report) -> list[str]:
    display = {category: data["name"] for category, data in report["categories"].items()}
    out = ["", f"**Questions:** {status_summary(report)}"]
    status_line = status_from_line(report)
    out += [f"_{status_line}_"] if status_line else []
    regressed = [
        [md_code(r["id"]), md_code(display.get(r["category"], r["category"])),
         CAUSE_EXPLAINED.get(r["cause"], r["cause"] or "") + (f" · {UNSTABLE_MARK} {UNSTABLE_LABEL}" if r.get("unstable_verdict") else ""),
         ", ".join(KIND_LABELS.get(k, k) for k in r["kinds_added"])]
        for r in report.get("regressions", [])
    ]
    out += _question_list("Regressed questions", regressed, ["id", "category", "cause", "new failure kinds"])
    fixed = [[md_code(qid)] for qid in report["questions"].get("fixed", [])]
    out += _question_list("Fixed questions", fixed, ["id"])
    suspects = [[md_code(s["id"]), md_code(s["passage"])] for s in report.get("likely_gold_problems", [])]
    out += _question_list(
        f"Likely gold problems ({len(suspects)}): failing in both runs, both answers attested, from the same non-gold first passage",
        suspects, ["id", "first passage"],
    )
    return out


def _calibration(report: Report, confidence: float) -> list[str]:
    found = {label: c for label, c in report.get("calibration", {}).items() if c}
    if not found:
        return []
    from ragtui.cli.render_calibration import calibration_detail_lines, corrected_lines

    out = ["", "Judge vs human labels: " + " · ".join(f"**{label}** {calibration_text(c)}" for label, c in found.items())]
    for label, c in found.items():
        out += ["", f"<details><summary>Calibration of {label}</summary>", ""]
        names = {category: data["name"] for category, data in report["categories"].items()}
        out += [f"- {md_code(line)}" for line in calibration_detail_lines(c, names)] + ["", "</details>"]
    corrected = corrected_lines(report)
    if corrected:
        out += ["", f"**Corrected by the sampled labels** (PPI++, {interval_heading(confidence)}):", ""]
        out += [f"- {md_code(prefix.strip())} {md_code(text)}" for prefix, text in corrected]
    return out


def _marks(report: Report) -> list[str]:
    """`--notes`: each marked question with its category, mark and note, folded away."""
    from ragtui.core.triage.notes import MARK_LABELS

    marks = report["marks"]
    if not marks:
        return ["Triage marks: none in the notes file."]
    display = {category: data["name"] for category, data in report["categories"].items()}
    rows = [[md_code(m["id"]), md_code(display.get(m["category"], m["category"] or "")), MARK_LABELS.get(m["mark"], m["mark"]), md_code(m["note"])] for m in marks]
    return _question_list(f"Triage marks ({len(marks)})", rows, ["id", "category", "mark", "note"])[1:]


def _noise(report: Report) -> list[str]:
    if not report.get("judge_noise"):
        return []
    from ragtui.cli.render_calibration import NOISE_TITLE, noise_lines

    title, _, rest = NOISE_TITLE.partition(" (")
    return ["", f"**{title}** ({rest}", "", *[f"- **{prefix.strip().rstrip(':')}** {text}" for prefix, text in noise_lines(report)]]


def render_markdown(report: Report, *, confidence: float | None = None) -> str:
    """The report as GitHub-flavoured markdown, for a PR comment; `confidence`: of its
    intervals (`report_confidence`)."""
    two = "B" in report["runs"]
    runs = report["runs"]
    title = f"{md_code(runs['A']['name'])} → {md_code(runs['B']['name'])}" if two else md_code(runs["A"]["name"])
    out = [f"### ragtui report: {title} (k = {report['k']})", "", *_runs(report), "", *_metrics(report, two)]
    out += tool_markdown_lines(report)
    clustering = certainty.clustering_line(report)
    out += ["", md_code(clustering)] if clustering else []
    large = certainty.t_interval_line(report)
    out += ["", md_code(large)] if large else []
    out += ["", *_categories(report, two)]
    grid = certainty.grid_lines(report)[1:]
    out += ["", f"- {md_code(grid[0])}", *[f"  - {md_code(line.strip())}" for line in grid[1:]]] if grid else []
    if report.get("tags"):
        out += ["", *_categories(report, two, "tags")]
    out += _certainty(report)
    out += ["", *_failure_kinds(report)]
    if two:
        out += _questions(report)
    out += _calibration(report, certainty.report_confidence(report, confidence))
    out += _noise(report)
    if any((run.get("judge_directed") or {}).get("questions") for run in runs.values()):
        out += ["", "Questions whose answer or passages address the judge: " + " · ".join(f"**{label}** {directed_text(run)}" for label, run in runs.items())]
    if "marks" in report:
        out += ["", *_marks(report)]
    if report["warnings"]:
        out += ["", *[f"> ⚠ {md_code(w)}" for w in report["warnings"]]]
    return "\n".join(out) + "\n"
