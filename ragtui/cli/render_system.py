"""The system under test in the reports: its errors, and what answering took.

`system_errors_text` adds ` · 3 system errors` to a run's counts (text and markdown).
Latency, cost and tokens get a table of their own in the text report: with their units (`1562 ms`, `$0.000824`) these rows would push the main metric table past
80 columns: they get their own table, their values bare (the metric's name carries the
unit: `latency_p50_ms`, `cost_usd`) and their verdicts as symbols with a legend.
"""

from __future__ import annotations

from collections.abc import Callable

from ragtui.cli.render_certainty import delta_heading
from ragtui.core.comparing.report_model import MetricFields, Report, RunFields
from ragtui.core.measuring.metric_specs import metric_by_name
from ragtui.core.vocabulary import VERDICT_LABEL, VERDICT_SYMBOL, delta_ci_text, target_symbol, value_text

QUANTITY_LEGEND = "(lower is better; " + ", ".join(f"{VERDICT_SYMBOL[v]} {VERDICT_LABEL[v]}" for v in VERDICT_SYMBOL) + ")"


def system_errors_text(run: RunFields) -> str:
    """` · 3 system errors` for a run that has some (the system under test failed), else nothing."""
    count = run.get("system_errors") or 0
    return f" · {count} system error{'' if count == 1 else 's'}" if count else ""


def quantity_scale(name: str) -> str | None:
    """`ms`, `usd` or `tokens` for a latency, cost or token metric; None for a rate, a score or a peer tool's metric."""
    try:
        spec = metric_by_name(name)
    except KeyError:
        return None
    return spec.scale if spec.quantity else None


def quality_metrics(report: Report) -> list[tuple[str, MetricFields]]:
    """The report's metrics other than latency, cost and tokens: the main table's rows."""
    return [(name, m) for name, m in report["metrics"].items() if quantity_scale(name) is None]


def _row(name: str, m: MetricFields, two: bool) -> list[str]:
    """name, target, A (with its target mark), and with two runs B, Δ with its interval and the verdict's symbol."""
    spec = metric_by_name(name)
    target = "" if m.get("target") is None else "≤" + value_text(m["target"], spec, unit=False)
    row = [name, target, f"{value_text(m['A'], spec, unit=False)} {target_symbol(m['meets_target']['A'])}".rstrip()]
    if two:
        delta = delta_ci_text(m.get("delta"), m.get("ci"), spec, unit=False)
        b = value_text(m.get("B"), spec, unit=False)
        row += [f"{b} {target_symbol(m['meets_target']['B'])}".rstrip(), delta + ("!" if m.get("drop_flagged") else ""), VERDICT_SYMBOL.get(m.get("verdict") or "", " ")]
    else:
        row.append(str(m["n"]))
    return row


def quantity_lines(report: Report, two: bool, table: Callable[..., list[str]]) -> list[str]:
    """The table of latency, cost and tokens, or one line saying the runs record none of them."""
    rows = [_row(name, m, two) for name, m in report["metrics"].items() if quantity_scale(name) is not None]
    if not rows:
        return []
    if all(m[side] is None for name, m in report["metrics"].items() if quantity_scale(name) is not None for side in ("A", "B") if side in m):
        return ["", "latency, cost, tokens: n/a (not recorded in these runs)"]
    header = ["per question", "target", "A"] + (["B", delta_heading(report), ""] if two else ["n"])
    if not any(row[1] for row in rows):  # no target: the column would stay empty
        header, rows = header[:1] + header[2:], [row[:1] + row[2:] for row in rows]
    return ["", *table(rows, header, gap=" "), *([QUANTITY_LEGEND] if two else [])]
