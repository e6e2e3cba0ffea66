"""The failure list screen: which questions broke, grouped by category, with filters.

The dashboard pushes it with a starting filter (a category, a failure kind, a status).
`s` cycles the status filter, `k` the failure kind, `c` the category, `T` the gold set's tag, `M` the mark,
`[` / `]` the sort; `/` searches every text of a question (ids, questions, answers,
passages, judge reasons; accents and case ignored); on a large comparison the index is
built in a worker while the term is typed, the list stays usable meanwhile. Enter opens the question view on
the highlighted question with the filtered list, so `n` / `p` there step through
exactly what is listed here. The keys of `TriageScreen` (mark, copy, pager, editor, jump,
export) act on the highlighted question; `X` exports the marked, else the listed ones.
`y`, `o` and `e` on a question whose rows are long read them in a worker first ("loading
the question…"; Esc stops it, the list answers meanwhile), then offer its texts.
"""

from __future__ import annotations

import contextlib
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Input, Static

from ragtui.core.comparing.compare import Comparison
from ragtui.core.gold.triage import GoldFixer
from ragtui.core.triage.search import SearchIndex
from ragtui.core.vocabulary import (
    CAUSE_LABELS,
    KIND_LABELS,
    KIND_LEGEND,
    STATUS_SYMBOL,
    TOOL_KIND_LEGEND,
    UNSTABLE_LABEL,
    UNSTABLE_MARK,
    kind_words,
    status_label,
)
from ragtui.ui.content.safe_text import safe
from ragtui.ui.content.verdict_styles import STATUS_ROLES, role_colour
from ragtui.ui.models.failure_rows import (
    MARK_FILTER_LABELS,
    MARK_FILTERS,
    SORT_LABELS,
    SORTS,
    STATUS_FILTER_LABELS,
    FailureFilter,
    FailureRows,
)
from ragtui.ui.models.session import Session
from ragtui.ui.screens.triage import INDEXING, READING, SEARCHING, TRIAGE_BINDINGS, TriageScreen, mark_text
from ragtui.ui.widgets.failure_table import FailureTable
from ragtui.ui.widgets.key_footer import KeyFooter


def _cycle(options: list, current: object) -> object:
    return options[(options.index(current) + 1) % len(options)] if current in options else options[0]


class FailureListScreen(TriageScreen):
    """Failing questions of a comparison, filterable, one Enter from the question view."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", show=False, tooltip="Close the search, else go back", id="failures.back"),
        Binding("slash", "search", "search", key_display="/", tooltip="Search ids, questions, answers, passages and judge reasons", id="failures.search"),
        Binding("s", "cycle_status", "status", tooltip="Cycle: failing, regressed, fixed, still failing, all", id="failures.status"),
        Binding("k", "cycle_kind", "kind", tooltip="Cycle the failure kind filter", id="failures.kind"),
        Binding("c", "cycle_category", "category", show=False, tooltip="Cycle the category filter", id="failures.category"),
        Binding("T", "cycle_tag", "tag", key_display="T", show=False, tooltip="Cycle the tag filter (the gold set's tags: acronyme, tableau, …)", id="failures.tag"),
        Binding("M", "cycle_mark", "mark filter", key_display="M", show=False, tooltip="Cycle: any mark, marked, ok, bug, gold wrong, flaky, unmarked", id="failures.mark_filter"),
        Binding("right_square_bracket", "sort(1)", "sort", key_display="]", show=False, tooltip="Sort by the next column: category, id, cause, Δ utility, gold rank change", id="failures.sort_next"),
        Binding("left_square_bracket", "sort(-1)", "sort back", key_display="[", show=False, tooltip="Sort by the previous column", id="failures.sort_previous"),
        Binding("x", "clear_filters", "clear", show=False, tooltip="Show every failing question again (filters, search, sort)", id="failures.clear"),
        *TRIAGE_BINDINGS,
    ]
    DEFAULT_CSS = """
    FailureListScreen {
        layout: vertical;
    }
    FailureListScreen #failures-title {
        height: 1;
        background: $panel;
        color: $text;
        padding: 0 1;
    }
    FailureListScreen #failures-filters {
        height: auto;
        max-height: 2;
        padding: 0 1;
        color: $text-muted;
    }
    FailureListScreen #failures-search {
        display: none;
        height: 3;
    }
    FailureListScreen.-searching #failures-search {
        display: block;
    }
    FailureListScreen #failures-detail {
        /* A fixed height: a detail line that grew and shrank would re-lay out the
           screen (and repaint it twice) on every cursor move. */
        height: 2;
        padding: 0 1;
        background: $panel;
    }
    """

    def __init__(
        self,
        comparison: Comparison,
        *,
        category: str | None = None,
        failure_kind: str | None = None,
        status: str | None = None,
        session: Session | None = None,
        gold: GoldFixer | None = None,
    ) -> None:
        """`gold`: the gold set's fixes (for a list opened on its own; the app's session holds them)."""
        super().__init__(comparison, session=session)
        if gold is not None:
            self.session.gold = gold
        start = FailureFilter(status=status or "failing", kind=failure_kind, category=category)
        self.rows = FailureRows(comparison, start, search=self.session.search)
        self._told_unreadable = False  # the search's "passages not searched" warning, once
        self._indexing = False  # the search index is being built in a worker
        self._matching: str | None = None  # the term a worker finds the matches of (`_match_ahead`)

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="failures-title")
        yield Static(id="failures-filters")
        yield Input(placeholder="search ids, questions, answers, passages, reasons (Enter: keep, Esc: clear)", id="failures-search")
        self.rows.notes = self.notes  # the app is running now: its notes can be read
        yield FailureTable(self.rows, id="failures-table")
        yield Static(id="failures-detail")
        yield KeyFooter()

    def on_resize(self) -> None:
        self._show_filters()  # the kind legend shows on wide terminals only

    def on_mount(self) -> None:
        self._show_filters()
        table = self.query_one(FailureTable)
        self.watch(table, "cursor", self._cursor_moved)
        table.focus()
        table.cursor = 0

    @property
    def table(self) -> FailureTable:
        return self.query_one(FailureTable)

    # -- filters ------------------------------------------------------------------------

    def _title(self) -> Content:
        a = self.comparison.a.run.name
        if self.comparison.b is None:
            return Content.assemble("Failures · ", safe(a, one_line=True, limit=40))
        b = self.comparison.b.run.name
        return Content.assemble(
            "Failures · A ", safe(a, one_line=True, limit=30), " → B ", safe(b, one_line=True, limit=30)
        )

    def _set_filter(self, **changes: object) -> None:
        self.table.set_filter(self.rows.filter.with_(**changes))
        self._show_filters()

    def _show_filters(self) -> None:
        f = self.rows.filter
        category = safe(self.comparison.config.category_name(f.category), one_line=True, limit=30) if f.category else "all"
        status_text = "failing" if f.status == "failing" and not self.rows.two_runs else STATUS_FILTER_LABELS.get(f.status, f.status)
        parts: list[Content | str] = [
            Content(f"{self.rows.row_count:,}").stylize("bold"),
            f" of {self.rows.base.height:,} · ",
            Content("s").stylize("bold"), f" {status_text} · ",
            Content("k").stylize("bold"), f" {KIND_LABELS.get(f.kind, 'any kind') if f.kind else 'any kind'} · ",
            Content("c").stylize("bold"), " ", category,
        ]
        if f.tag is not None:
            parts += [" · ", Content("T").stylize("bold"), " ", safe(f.tag, one_line=True, limit=24)]
        if f.mark is not None:
            parts += [" · ", Content("M").stylize("bold"), f" {MARK_FILTER_LABELS[f.mark]}"]
        if f.sort != "category":
            parts += [" · ", Content("[]").stylize("bold"), f" by {SORT_LABELS[f.sort].split(' (')[0]}"]
        if f.search.strip():
            parts += [" · ", Content("/").stylize("bold"), " “", safe(f.search, one_line=True, limit=30), "”"]
        if self._indexing:
            parts += [" · ", Content(INDEXING).stylize("italic")]
        elif self._matching is not None:
            parts += [" · ", Content(SEARCHING).stylize("italic")]
        if self.app.size.width >= 120:
            legend = KIND_LEGEND + (f" {TOOL_KIND_LEGEND}" if self.comparison.status_from != "ragtui" else "")
            parts += ["\n", legend]
        self.query_one("#failures-filters", Static).update(Content.assemble(*parts))

    def action_cycle_status(self) -> None:
        self._set_filter(status=_cycle(list(self.rows.status_filters), self.rows.filter.status))

    def action_cycle_kind(self) -> None:
        self._set_filter(kind=_cycle([None, *self.rows.kinds], self.rows.filter.kind))

    def action_cycle_category(self) -> None:
        self._set_filter(category=_cycle([None, *self.rows.categories], self.rows.filter.category))

    def action_cycle_tag(self) -> None:
        if not self.rows.tags:
            self.notify("No question of the gold set has a tag (`tags:` in the gold set).", timeout=4)
            return
        self._set_filter(tag=_cycle([None, *self.rows.tags], self.rows.filter.tag))

    def action_cycle_mark(self) -> None:
        self._set_filter(mark=_cycle(list(MARK_FILTERS), self.rows.filter.mark))

    def action_sort(self, delta: int) -> None:
        at = SORTS.index(self.rows.filter.sort)
        self._set_filter(sort=SORTS[(at + delta) % len(SORTS)])

    def action_clear_filters(self) -> None:
        self.query_one("#failures-search", Input).value = ""
        self._set_filter(status="failing", kind=None, category=None, search="", mark=None, sort="category", tag=None)

    def action_back(self) -> None:
        search = self.query_one("#failures-search", Input)
        if self.stop_reading_rows():  # a long question read for `y`, `o` or `e`: not wanted now
            self.show_reading(None)
            self.say("stopped loading the question", timeout=2)
            return
        if self.has_class("-searching"):
            search.value = ""
            self.remove_class("-searching")
            self.table.focus()
            return
        self.dismiss()

    # -- the highlighted question ---------------------------------------------------------

    def _cursor_moved(self) -> None:
        self.query_one("#failures-detail", Static).update(self._detail(self.table.current_row))

    def show_reading(self, question_id: str | None) -> None:
        detail = self._detail(self.table.current_row)
        if question_id is not None:
            detail = Content.assemble(detail, " · ", Content(f"{READING} (Esc stops)").stylize("italic"))
        self.query_one("#failures-detail", Static).update(detail)

    def _detail(self, row: dict | None) -> Content:
        if row is None:
            return Content("no question matches these filters (x clears them)")
        status = row["status"]
        parts: list[Content | str] = [
            safe(row["id"], one_line=True, limit=30),
            " ",
            Content(f"{STATUS_SYMBOL.get(status, '?')} {status_label(status, self.rows.two_runs)}").stylize(
                role_colour(self.app, STATUS_ROLES.get(status, "muted"))
            ),
        ]
        if row.get("unstable"):
            parts += [" · ", Content(f"{UNSTABLE_MARK} {UNSTABLE_LABEL}").stylize(f"bold {role_colour(self.app, 'regression')}")]
        if row.get("cause"):
            parts += [" · cause: ", Content(CAUSE_LABELS.get(row["cause"], row["cause"])).stylize("bold")]
        if self.rows.two_runs:
            parts += [f" · A: {kind_words(row['kinds_a'])} · B: {kind_words(row['kinds_b'])}"]
        else:
            parts += [f" · {kind_words(row['kinds_a'])}"]
        mark = mark_text(self.notes, row["id"])
        if mark is not None:
            parts += [" · ", mark]
        return Content.assemble(*parts)

    def on_failure_table_selected(self, event: FailureTable.Selected) -> None:
        from ragtui.ui.screens.question import QuestionScreen

        self.app.push_screen(
            QuestionScreen(self.comparison, self.rows.ids(), event.index, session=self.session), callback=self._returned_from_question
        )

    # -- `/`: the search field; on a large comparison its index is built in a worker as
    #    soon as the field opens, and the term typed meanwhile applies once it is built --------

    def action_search(self) -> None:
        self.add_class("-searching")
        self.query_one("#failures-search", Input).focus()
        self._index_ahead()  # built while the term is typed

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._search_changed(event.value)

    def _search_changed(self, term: str) -> None:
        """Filter by `term`: at once when its matches are known (or the comparison is small),
        else once a worker has found them (`_match_ahead`)."""
        if term.strip() and (self._index_ahead() or self._match_ahead(term)):
            self._show_filters()  # says the search waits for its index or its match; applied once done
            return
        self._set_filter(search=term)
        if term.strip():
            self._warn_unreadable(self.search_index().unreadable)

    def _match_ahead(self, term: str) -> bool:
        """On a large comparison, find the matches of `term` in a worker (a scan of every
        text: 25-55 ms of CPU at 100,000 questions, ten times that at a million, on each key typed);
        True while a worker matches. One match at a time: the term typed meanwhile is
        matched when it ends (`_matched`)."""
        if not self.match_in_background(term):
            return False
        if self._matching is None:
            self._matching = term

            def match() -> None:
                self.search_index().matching(term)  # remembered by the index: the filter then applies at once
                with contextlib.suppress(RuntimeError):  # the app quit meanwhile
                    self.app.call_from_thread(self._matched)

            self.run_worker(match, thread=True, group="search-match")  # one at a time: `_matching`
        return True

    def _matched(self) -> None:
        """Apply the term the field holds now (the one matched, or one typed meanwhile)."""
        self._matching = None
        if self.is_attached:
            self._search_changed(self.query_one("#failures-search", Input).value)

    def _index_ahead(self) -> bool:
        """Start building a large comparison's search index in a worker; True while it builds."""
        if not self.index_in_background():
            return False
        if not self._indexing:
            self._indexing = True
            self.build_index_then(self._index_built)
        return True

    def _index_built(self, index: SearchIndex) -> None:
        """Apply the term typed while the index was built (the field holds the latest)."""
        self._indexing = False
        if not self.is_attached:
            return
        self._search_changed(self.query_one("#failures-search", Input).value)
        self._warn_unreadable(index.unreadable)

    def _warn_unreadable(self, unreadable: str | None) -> None:
        if unreadable and not self._told_unreadable:
            self._told_unreadable = True
            self.say(unreadable, severity="warning", timeout=8)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.remove_class("-searching")
        self.table.focus()

    # -- TriageScreen -----------------------------------------------------------------------

    def triage_target(self) -> tuple[str | None, str]:
        return self.table.current_id, "B" if self.rows.two_runs else "A"

    def after_mark(self, question_id: str) -> None:
        self._refresh_marks()

    def _refresh_marks(self) -> None:
        if self.rows.filter.mark is not None:
            self.table.set_filter(self.rows.filter)  # a new mark may enter or leave the list
            self._show_filters()
        self.table.refresh_marks()
        self._cursor_moved()

    def jump_to(self, question_id: str) -> None:
        """Open the question view there: within the listed questions when it is one of them."""
        from ragtui.ui.screens.question import QuestionScreen

        index = self.rows.index_of(question_id)
        if index is not None:
            self.table.cursor = index
            ids, at = self.rows.ids(), index
        else:
            ids, at = [question_id], 0
        self.app.push_screen(QuestionScreen(self.comparison, ids, at, session=self.session), callback=self._returned_from_question)

    def export_ids(self) -> tuple[list[str], str]:
        return self.rows.ids(), "listed"

    def _returned_from_question(self, question_id: str | None) -> None:
        """Put the cursor on the question the user stepped to with n / p; show marks made there."""
        self._refresh_marks()
        if question_id is not None:
            index = self.rows.index_of(question_id)
            if index is not None:
                self.table.cursor = index
