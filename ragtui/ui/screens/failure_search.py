"""`/` in the failure list: the search field, and its index built ahead on large comparisons.

A mixin of `FailureListScreen` (which provides the attributes below). The index holds
every text of both runs, normalised; on a comparison of `BACKGROUND_INDEX_FROM`
questions or more it is built in a worker as soon as the field opens, the list stays
usable, the filter bar says the search waits for it, and the term typed meanwhile is
applied once it is built.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.widgets import Input

from ragtui.core.sanitize import neutralize

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.triage.search import SearchIndex
    from ragtui.ui.models.failure_rows import FailureRows
    from ragtui.ui.widgets.failure_table import FailureTable

# From this many questions, the search index is built in a worker: the list stays usable
# while every text of both runs is read and normalised (28 s at 100,000 accented ones).
BACKGROUND_INDEX_FROM = 20_000
INDEXING = "indexing the texts for the search…"  # what the list and the question view say meanwhile


def index_in_background(comparison: Comparison) -> bool:
    """Whether `comparison`'s search index is still to build and large enough to build in a worker."""
    from ragtui.core.triage.search import built_index

    return comparison.a.questions.height >= BACKGROUND_INDEX_FROM and built_index(comparison) is None


def build_index_then(node: DOMNode, comparison: Comparison, done: Callable[[SearchIndex], None]) -> None:
    """Build `comparison`'s search index in a worker of `node`, then call `done` with it on the UI thread."""

    def build() -> None:
        from ragtui.core.triage.search import search_index

        index = search_index(comparison)
        with contextlib.suppress(RuntimeError):  # the app quit while the index was built
            node.app.call_from_thread(done, index)

    node.run_worker(build, thread=True, exclusive=True, group="search-index")


class FailureSearch:
    """The search field of the failure list and its index."""

    comparison: Comparison
    rows: FailureRows
    table: FailureTable
    _told_unreadable: bool  # the "passages not searched" warning is given once
    _indexing: bool  # the index is being built in a worker

    def action_search(self) -> None:
        self.add_class("-searching")
        self.query_one("#failures-search", Input).focus()
        self._index_ahead()  # built while the term is typed

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if event.value.strip() and self._index_ahead():
            self._show_filters()  # says the search waits for its index; applied once built
            return
        self._set_filter(search=event.value)
        if event.value.strip():
            from ragtui.core.triage.search import search_index

            self._warn_unreadable(search_index(self.comparison).unreadable)

    def _index_ahead(self) -> bool:
        """Start building a large comparison's search index in a worker; True while it builds."""
        if not index_in_background(self.comparison):
            return False
        if not self._indexing:
            self._indexing = True
            build_index_then(self, self.comparison, self._index_built)
        return True

    def _index_built(self, index: SearchIndex) -> None:
        """Apply the term typed while the index was built (the field holds the latest)."""
        self._indexing = False
        if not self.is_attached:
            return
        self._set_filter(search=self.query_one("#failures-search", Input).value)
        self._warn_unreadable(index.unreadable)

    def _warn_unreadable(self, unreadable: str | None) -> None:
        if unreadable and not self._told_unreadable:
            self._told_unreadable = True
            self.notify(neutralize(unreadable), severity="warning", timeout=8, markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.remove_class("-searching")
        self.table.focus()
