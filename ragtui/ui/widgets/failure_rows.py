"""The failure list as data: one polars frame, filtered by expressions, laid out in groups.

This module knows nothing of Textual. `FailureRows` holds the questions of a comparison
(status, cause, failure kinds in A and B, question text) sorted by category and status,
applies a `FailureFilter` as one polars expression, and maps display lines to rows:
each category is a header line followed by its rows. The mapping is kept per group
(a handful of offsets), never per line, so 100,000 questions cost no Python objects
until a line is actually drawn.

Sorted by anything but category (`[` / `]`: id, cause, Δ utility, gold rank change),
the list is one group over every category, so the worst Δ comes first whatever its
category. The mark filter reads the app's `Notes`; the search is the core's
(`ragtui.core.triage.search`), over every text of a question.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Any

import polars as pl

from ragtui.core.comparing.compare import Comparison
from ragtui.core.measuring.evaluate import FAILURE_KINDS
from ragtui.core.measuring.tool_scores import TOOL_KINDS
from ragtui.core.triage.notes import MARK_LABELS, MARKS, Notes
from ragtui.core.vocabulary import CAUSE_LABELS

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
# `M` cycles these: every question, the marked ones, each mark, the unmarked ones.
MARK_FILTERS = (None, "marked", *MARKS, "unmarked")
MARK_FILTER_LABELS = {None: "any mark", "marked": "marked", "unmarked": "unmarked", **MARK_LABELS}
# `[` / `]` cycle these; each sorts worst first where there is a worst.
SORTS = ("category", "id", "cause", "utility", "gold")
SORT_LABELS = {
    "category": "category",
    "id": "id",
    "cause": "cause",
    "utility": "Δ utility (largest drop first)",
    "gold": "gold rank change (largest fall first)",
}
_NOT_RETRIEVED = 1_000_000  # a gold passage not retrieved sorts as ranked far down
# Within a category the worst news comes first.
_STATUS_ORDER = {"regressed": 0, "still_failing": 1, "fixed": 2, "passing": 3, "not_measured": 4}


@dataclass(frozen=True)
class FailureFilter:
    """What the list shows: a status, optionally one failure kind, a category, a search."""

    status: str = "failing"
    kind: str | None = None
    category: str | None = None
    search: str = ""
    mark: str | None = None  # one of MARK_FILTERS
    sort: str = "category"  # one of SORTS
    tag: str | None = None  # a tag of the gold set (`tags: [acronyme, …]`)

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
        if self.tag is not None:
            keep = keep & pl.col("tags").list.contains(pl.lit(self.tag)).fill_null(False)
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
    label: str | None = None  # instead of the category name: the one group of a sorted list


def triage_frame(comparison: Comparison) -> pl.DataFrame:
    """Every question of the comparison with what the list shows, sorted for display.

    Columns: id, category, status, cause, kinds_a, kinds_b, question, tags, unstable (its
    verdicts flip between the judge's repetitions), pos (original order), d_utility
    (B − A) and gold_fall (B's first gold rank − A's) for the sorts.
    """
    status = comparison.status
    if "cause" not in status.columns:
        status = status.with_columns(cause=pl.lit(None, dtype=pl.String))
    tags = pl.col("tags") if "tags" in comparison.a.questions.columns else pl.lit([], dtype=pl.List(pl.String)).alias("tags")
    frame = status.select("id", "category", "status", "cause").join(
        comparison.a.questions.select("id", "question", pl.col("failures").alias("kinds_a"), pl.col("utility_q").alias("_ua"), tags),
        on="id",
        how="left",
        maintain_order="left",
    )
    if comparison.b is not None:
        frame = frame.join(
            comparison.b.questions.select("id", pl.col("failures").alias("kinds_b"), pl.col("utility_q").alias("_ub")),
            on="id",
            how="left",
            maintain_order="left",
        )
        ranks = status.select("id", "first_gold_rank_a", "first_gold_rank_b") if "first_gold_rank_b" in status.columns else None
        if ranks is not None:
            frame = frame.join(ranks, on="id", how="left", maintain_order="left")
            fall = pl.col("first_gold_rank_b").fill_null(_NOT_RETRIEVED) - pl.col("first_gold_rank_a").fill_null(_NOT_RETRIEVED)
            has_gold = pl.col("first_gold_rank_a").is_not_null() | pl.col("first_gold_rank_b").is_not_null()
            frame = frame.with_columns(gold_fall=pl.when(has_gold).then(fall)).drop("first_gold_rank_a", "first_gold_rank_b")
        else:
            frame = frame.with_columns(gold_fall=pl.lit(None, dtype=pl.Int64))
        frame = frame.with_columns(d_utility=pl.col("_ub") - pl.col("_ua")).drop("_ub")
    else:
        frame = frame.with_columns(
            kinds_b=pl.lit(None, dtype=pl.List(pl.String)), d_utility=pl.lit(None, dtype=pl.Float64), gold_fall=pl.lit(None, dtype=pl.Int64)
        )
    frame = frame.drop("_ua")
    unstable = comparison.unstable_ids  # verdicts that flip between the judge's repetitions
    frame = frame.with_columns(unstable=pl.col("id").is_in(sorted(unstable)) if unstable else pl.lit(False))
    categories = frame.get_column("category").unique(maintain_order=True).to_list()
    category_rank = {name: rank for rank, name in enumerate(categories)}
    return (
        frame.with_row_index("pos")
        .with_columns(
            _cat=pl.col("category").replace_strict(category_rank, return_dtype=pl.UInt32),
            _st=pl.col("status").replace_strict(_STATUS_ORDER, default=9, return_dtype=pl.UInt8),
        )
        .sort("_cat", "_st", "pos")
        .drop("_cat", "_st")
    )


class FailureRows:
    """The filtered, grouped failure list and the mapping from display lines to rows."""

    def __init__(self, comparison: Comparison, filter: FailureFilter | None = None, notes: Notes | None = None) -> None:
        self.comparison = comparison
        self.notes = notes
        self.two_runs = comparison.b is not None
        self.category_name = comparison.config.category_name
        self.base = triage_frame(comparison)
        self.categories: list[str] = self.base.get_column("category").unique(maintain_order=True).to_list()
        self.tags: list[str] = self.base.get_column("tags").explode().drop_nulls().unique(maintain_order=True).to_list()
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
        keep = filter.expression() & self._mark_expression(filter.mark)
        if filter.search.strip():
            from ragtui.core.triage.search import search_index

            keep = keep & pl.col("id").is_in(search_index(self.comparison).matching(filter.search).implode())
        self.frame = self.base.filter(keep)
        if filter.sort != "category":
            self._one_group(filter.sort)
            return
        counts = (
            self.frame.group_by("category", "status", maintain_order=True)
            .len()
            .group_by("category", maintain_order=True)
            .agg(pl.col("status"), pl.col("len"))
        )
        groups, first_row, line = [], 0, 0
        for category, statuses, lens in counts.iter_rows():
            count = int(sum(lens))
            groups.append(Group(category, count, first_row, line, dict(zip(statuses, lens, strict=True))))
            first_row += count
            line += count + 1
        self.groups = groups
        self._header_lines = [g.header_line for g in groups]
        self._first_rows = [g.first_row for g in groups]
        self.line_count = line

    def _mark_expression(self, mark: str | None) -> pl.Expr:
        if mark is None:
            return pl.lit(True)
        notes = self.notes.marks if self.notes is not None else {}
        if mark in ("marked", "unmarked"):
            marked = pl.col("id").is_in(pl.Series(list(notes), dtype=pl.String).implode())
            return marked if mark == "marked" else ~marked
        ids = [qid for qid, m in notes.items() if m.mark == mark]
        return pl.col("id").is_in(pl.Series(ids, dtype=pl.String).implode())

    def _one_group(self, sort: str) -> None:
        """Sort the filtered rows over every category, under one header line."""
        if sort == "id":
            self.frame = self.frame.sort("id")
        elif sort == "cause":
            order = {cause: rank for rank, cause in enumerate(CAUSE_LABELS)}  # retrieval first, as the reports list them
            rank = pl.col("cause").replace_strict(order, default=len(order), return_dtype=pl.UInt8)
            self.frame = self.frame.sort(rank, "pos")
        elif sort == "utility":
            self.frame = self.frame.sort("d_utility", "pos", nulls_last=True)
        elif sort == "gold":
            self.frame = self.frame.sort("gold_fall", "pos", descending=[True, False], nulls_last=True)
        if not self.frame.height:
            self.groups, self._header_lines, self._first_rows, self.line_count = [], [], [], 0
            return
        by_status = dict(self.frame.group_by("status").len().iter_rows())
        label = f"all categories · sorted by {SORT_LABELS[sort]}"
        self.groups = [Group("", self.frame.height, 0, 0, by_status, label)]
        self._header_lines = [0]
        self._first_rows = [0]
        self.line_count = self.frame.height + 1

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
