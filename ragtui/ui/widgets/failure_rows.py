"""The failure list as data: one polars frame, filtered by expressions, laid out in groups.

This module knows nothing of Textual. `FailureRows` holds the questions of a comparison
(status, cause, failure kinds in A and B, question text) sorted by category and status,
applies a `FailureFilter` as one polars expression, and maps display lines to rows:
each category is a header line followed by its rows. The mapping is kept per group
(a handful of offsets), never per line, so 100,000 questions cost no Python objects
until a line is actually drawn.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from ragtui.core.comparing.compare import Comparison
from ragtui.core.measuring.evaluate import FAILURE_KINDS
from ragtui.core.measuring.tool_scores import TOOL_KINDS

# Order of the status filter as `s` cycles it; "failing" = failed in A or in B.
STATUS_FILTERS = ("failing", "regressed", "fixed", "still_failing", "all")
SINGLE_RUN_STATUS_FILTERS = ("failing", "all")
STATUS_FILTER_LABELS = {
    "failing": "failing in A or B",
    "regressed": "regressed",
    "fixed": "fixed",
    "still_failing": "still failing",
    "all": "all questions",
}
# Within a category the worst news comes first.
_STATUS_ORDER = {"regressed": 0, "still_failing": 1, "fixed": 2, "passing": 3, "not_measured": 4}


@dataclass(frozen=True)
class FailureFilter:
    """What the list shows: a status, optionally one failure kind, a category, a search."""

    status: str = "failing"
    kind: str | None = None
    category: str | None = None
    search: str = ""

    def expression(self) -> pl.Expr:
        """This filter as one boolean polars expression over the triage frame."""
        keep = pl.lit(True)
        if self.status == "failing":
            keep = keep & ~pl.col("status").is_in(["passing", "not_measured"])
        elif self.status != "all":
            keep = keep & (pl.col("status") == self.status)
        if self.kind is not None:
            in_a = pl.col("kinds_a").list.contains(pl.lit(self.kind)).fill_null(False)
            in_b = pl.col("kinds_b").list.contains(pl.lit(self.kind)).fill_null(False)
            keep = keep & (in_a | in_b)
        if self.category is not None:
            keep = keep & (pl.col("category") == self.category)
        term = self.search.strip().lower()
        if term:
            # literal=True: a search for "p_04[2" or "(" is text, not a regex.
            keep = keep & pl.col("haystack").str.contains(term, literal=True)
        return keep

    def with_(self, **changes: Any) -> FailureFilter:
        return replace(self, **changes)


@dataclass(frozen=True)
class Group:
    """One category in the filtered list: its header line and its rows."""

    category: str
    count: int
    first_row: int  # index of its first row in the filtered frame
    header_line: int  # display line of its header
    by_status: dict[str, int]


def triage_frame(comparison: Comparison) -> pl.DataFrame:
    """Every question of the comparison with what the list shows, sorted for display.

    Columns: id, category, status, cause, kinds_a, kinds_b, question, unstable (its
    verdicts flip between the judge's repetitions), haystack (the lower-cased id and
    question the search runs over), pos (original order).
    """
    status = comparison.status
    if "cause" not in status.columns:
        status = status.with_columns(cause=pl.lit(None, dtype=pl.String))
    frame = status.select("id", "category", "status", "cause").join(
        comparison.a.questions.select("id", "question", pl.col("failures").alias("kinds_a")),
        on="id",
        how="left",
        maintain_order="left",
    )
    if comparison.b is not None:
        frame = frame.join(
            comparison.b.questions.select("id", pl.col("failures").alias("kinds_b")), on="id", how="left", maintain_order="left"
        )
    else:
        frame = frame.with_columns(kinds_b=pl.lit(None, dtype=pl.List(pl.String)))
    unstable = comparison.unstable_ids  # verdicts that flip between the judge's repetitions
    frame = frame.with_columns(unstable=pl.col("id").is_in(sorted(unstable)) if unstable else pl.lit(False))
    categories = frame.get_column("category").unique(maintain_order=True).to_list()
    category_rank = {name: rank for rank, name in enumerate(categories)}
    return (
        frame.with_row_index("pos")
        .with_columns(
            haystack=pl.concat_str([pl.col("id"), pl.col("question").fill_null("")], separator=" ").str.to_lowercase(),
            _cat=pl.col("category").replace_strict(category_rank, return_dtype=pl.UInt32),
            _st=pl.col("status").replace_strict(_STATUS_ORDER, default=9, return_dtype=pl.UInt8),
        )
        .sort("_cat", "_st", "pos")
        .drop("_cat", "_st")
    )


class FailureRows:
    """The filtered, grouped failure list and the mapping from display lines to rows."""

    def __init__(self, comparison: Comparison, filter: FailureFilter | None = None) -> None:
        self.two_runs = comparison.b is not None
        self.category_name = comparison.config.category_name
        self.base = triage_frame(comparison)
        self.categories: list[str] = self.base.get_column("category").unique(maintain_order=True).to_list()
        # The tool's own failure kinds count only when its verdicts make the status.
        self.kinds: tuple[str, ...] = FAILURE_KINDS + (TOOL_KINDS if comparison.status_from != "ragtui" else ())
        self.filter = FailureFilter()
        self.frame = self.base
        self.groups: list[Group] = []
        self._header_lines: list[int] = []
        self._first_rows: list[int] = []
        self.line_count = 0
        self.apply(filter or FailureFilter())

    @property
    def status_filters(self) -> tuple[str, ...]:
        return STATUS_FILTERS if self.two_runs else SINGLE_RUN_STATUS_FILTERS

    def apply(self, filter: FailureFilter) -> None:
        """Filter the base frame and recompute the groups (one pass over the frame)."""
        self.filter = filter
        self.frame = self.base.filter(filter.expression())
        counts = (
            self.frame.group_by("category", "status", maintain_order=True)
            .len()
            .group_by("category", maintain_order=True)
            .agg(pl.col("status"), pl.col("len"))
        )
        groups, first_row, line = [], 0, 0
        for category, statuses, lens in counts.iter_rows():
            count = int(sum(lens))
            groups.append(Group(category, count, first_row, line, dict(zip(statuses, lens))))
            first_row += count
            line += count + 1
        self.groups = groups
        self._header_lines = [g.header_line for g in groups]
        self._first_rows = [g.first_row for g in groups]
        self.line_count = line

    @property
    def row_count(self) -> int:
        return self.frame.height

    def locate(self, line: int) -> tuple[Group, int | None]:
        """(group, row index) at a display line; the row index is None on a header."""
        group = self.groups[bisect_right(self._header_lines, line) - 1]
        offset = line - group.header_line
        return group, (group.first_row + offset - 1 if offset else None)

    def line_of_row(self, row: int) -> int:
        """The display line of a row (its index in the filtered frame)."""
        group = self.groups[bisect_right(self._first_rows, row) - 1]
        return group.header_line + 1 + row - group.first_row

    def row(self, index: int) -> dict[str, Any]:
        return self.frame.row(index, named=True)

    def ids(self) -> list[str]:
        """The ids of the filtered list, in display order (what `n` / `p` step through)."""
        return self.frame.get_column("id").to_list()

    def index_of(self, question_id: str) -> int | None:
        """The row index of an id in the filtered list, or None."""
        hits = self.frame.select(pl.arg_where(pl.col("id") == question_id)).to_series()
        return int(hits[0]) if len(hits) else None

    def widths(self) -> tuple[int, int, int]:
        """(longest id, most kinds in A, most kinds in B) over the whole list: stable columns."""
        row = self.base.select(
            pl.col("id").str.len_chars().max().alias("id"),
            pl.col("kinds_a").list.len().max().alias("a"),
            pl.col("kinds_b").list.len().max().alias("b"),
        ).row(0)
        return int(row[0] or 2), int(row[1] or 0), int(row[2] or 0)

    def status_counts(self) -> dict[str, int]:
        """How many questions of each status the whole comparison has (for the filter bar)."""
        return dict(self.base.group_by("status").len().iter_rows())
