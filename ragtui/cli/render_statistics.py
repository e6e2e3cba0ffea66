"""Text and markdown lines of the statistics every view shares: the clusters, and the grid's
cells that survive the adjustment for many tests. Reads the report document only."""

from __future__ import annotations

from typing import Any

from ragtui.core.sanitize import neutralize
from ragtui.core.vocabulary import MULTIPLE_TESTING_SHORT, clustered_text


def clustering_line(report: dict[str, Any]) -> str | None:
    """`clustered by document (7): intervals resample documents (named by: corpus)`; None when independent."""
    clustering = report.get("clustering")
    if not clustering:
        return None
    return f"{clustered_text(clustering['clusters'])}: intervals and tests resample documents (named by: {', '.join(clustering['by'])})"


def grid_lines(report: dict[str, Any]) -> list[str]:
    """The category cells whose change survives the grid's adjustment, one per line (or none)."""
    grid = report.get("multiple_testing")
    if not grid:
        return []
    method = MULTIPLE_TESTING_SHORT.get(grid["method"], grid["method"])
    head = f"Category changes that survive {method} over {grid['cells']} cells (adjusted p < {grid['level']:g}):"
    if not grid["surviving"]:
        return [head, "  none: no category cell changed beyond what {n} tests give by chance".format(n=grid["cells"])]
    names = {category: data.get("name", category) for category, data in report["categories"].items()}
    lines = [head]
    for cell in grid["surviving"]:
        name = neutralize(names.get(cell["category"], cell["category"]), keep_newlines=False)
        lines.append(f"  {name} · {cell['metric']}: {cell['verdict']} (p {cell['p_value']:.2g}, adjusted {cell['p_adjusted']:.2g})")
    return lines
