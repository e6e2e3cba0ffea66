"""One side (A or B) of the question view: answer, verdicts, re-judge, retrieved list.

A bordered panel whose title names the side and the run. The body scrolls: first what
is being triaged — the answer with its sentence verdicts, utility and judge error, the
peer tool's verdicts, a re-judged verdict when there is one — then the retrieved list
the answer was written from. The focused sentence's reason and evidence stay visible
in a strip at the bottom, whatever the scroll position.
Stepping to another question updates the Statics in place: no widget is mounted.
"""

from __future__ import annotations

import re
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.geometry import Region
from textual.widgets import Static

from ragtui.ui.content.answer_view import answer_content, sentence_detail
from ragtui.ui.content.passage_list import passages_content
from ragtui.ui.content.question_rejudge import Rejudged, rejudged_content
from ragtui.ui.content.safe_text import safe
from ragtui.ui.content.tool_verdicts import tool_content
from ragtui.ui.content.verdict_styles import role_colour

SEARCH_MATCH = "reverse"  # how a search's matches stand out (no colour needed)


class QuestionSide(Vertical):
    """The A or B half of the question view."""

    DEFAULT_CSS = """
    QuestionSide {
        width: 1fr;
        height: 1fr;
        border: round $panel-lighten-2;
        border-title-color: $text-muted;
    }
    QuestionSide.-active {
        border: round $accent;
        border-title-color: $text;
        border-title-style: bold;
    }
    QuestionSide .side-body {
        height: 1fr;
        padding: 0 1;
        /* The passage lines are cut to the width: keep it the same with or without a scrollbar. */
        scrollbar-gutter: stable;
    }
    QuestionSide .side-passages, QuestionSide .side-rejudge, QuestionSide .side-tool {
        margin-top: 1;
    }
    QuestionSide .side-rejudge, QuestionSide .side-tool {
        display: none;
    }
    QuestionSide .side-rejudge.-shown, QuestionSide .side-tool.-shown {
        display: block;
    }
    QuestionSide .side-detail {
        height: auto;
        max-height: 6;
        padding: 0 1;
        background: $boost;
    }
    """

    def __init__(self, side: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.side = side
        self._last: tuple | None = None
        self._drawn_width = 0  # the width the retrieved list was cut to
        self._focus_span = (0, 1)  # the focused sentence's (first line, line count) in the answer
        # Set once the focused sentence was brought into view: a resize (which rewraps
        # everything above it) brings it back, so the reason below never names a
        # sentence that scrolled away.
        self._follow_sentence = False

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="side-body"):
            yield Static(classes="side-answer")
            yield Static(classes="side-tool")
            yield Static(classes="side-rejudge")
            yield Static(classes="side-passages")
        yield Static(classes="side-detail")

    def _colour(self, role: str) -> str:
        return role_colour(self.app, role)

    def _width(self) -> int:
        width = self.query_one(".side-passages", Static).size.width
        if width:
            return width
        # Before the first layout: estimate from the screen (two panels when wide).
        screen = self.app.size.width
        return max((screen // 2 if screen >= 120 else screen) - 6, 20)

    def show(
        self,
        row: dict[str, Any] | None,
        name: str,
        k: int,
        focused: int | None,
        *,
        active: bool,
        rejudged: Rejudged | None = None,
        reset_scroll: bool = False,
        show_all: bool = False,
        tool: str | None = None,
        full: bool = False,
        found: re.Pattern[str] | None = None,
    ) -> None:
        """Draw `row` (a row of Evaluation.questions, or None when absent); `tool` names
        the peer tool whose own verdicts the row carries, if any; `full` shows the passages'
        whole text; `found` is what a search looks for, shown reversed where it is."""
        self._last = (row, name, k, focused, active, rejudged, show_all, tool, full, found)
        self.set_class(active, "-active")
        marker = "▶ " if active else "  "
        self.border_title = Content.assemble(marker, Content(f"{self.side} · ").stylize("bold"), safe(name, one_line=True, limit=40))
        passages = self.query_one(".side-passages", Static)
        if row is None or not row.get("present", True):
            passages.update(Content(f"not in run {self.side}").stylize("italic"))
        else:
            self._drawn_width = self._width()
            listed = passages_content(row, k, self._drawn_width, self._colour, show_all=show_all, full=full)
            passages.update(listed.highlight_regex(found, style=SEARCH_MATCH) if found is not None else listed)
        answer, self._focus_span = answer_content(row, focused, self._colour, self._width())
        if found is not None:
            answer = answer.highlight_regex(found, style=SEARCH_MATCH)
        self.query_one(".side-answer", Static).update(answer)
        self.query_one(".side-detail", Static).update(sentence_detail(row, focused, k, self._colour))
        verdicts = tool_content(row, tool, self._colour)
        tool_panel = self.query_one(".side-tool", Static)
        tool_panel.set_class(verdicts is not None, "-shown")
        tool_panel.update(verdicts or "")
        panel = self.query_one(".side-rejudge", Static)
        panel.set_class(rejudged is not None, "-shown")
        if rejudged is not None:
            panel.update(rejudged_content(row, rejudged, self._colour))
        if reset_scroll:
            self._follow_sentence = False
            self.query_one(".side-body", VerticalScroll).scroll_home(animate=False, immediate=True)

    def reveal_answer(self) -> None:
        """Scroll so the focused sentence is in view: with the answer's start when both fit.

        Scrolling to the answer's first line was not enough on a short terminal (60×20):
        the focused ✗ sentence stayed below the visible part while its reason showed.
        """
        self._follow_sentence = True
        body = self.query_one(".side-body", VerticalScroll)
        answer = self.query_one(".side-answer", Static)
        region = answer.virtual_region
        start, count = self._focus_span  # the answer is wrapped to the side's width when drawn
        visible = max(body.scrollable_content_region.height, 1)
        if start + count <= visible:
            target = Region(region.x, region.y, region.width, start + count)
        else:
            target = Region(region.x, region.y + start, region.width, min(count, visible))
        body.scroll_to_region(target, animate=False, top=True, immediate=True)

    def reveal_rejudge(self) -> None:
        """Bring a new re-judged verdict into view (it sits below the answer)."""
        panel = self.query_one(".side-rejudge", Static)
        self.query_one(".side-body", VerticalScroll).scroll_to_widget(panel, animate=False, top=True)

    def focus_body(self) -> None:
        self.query_one(".side-body", VerticalScroll).focus()

    def on_resize(self) -> None:
        # The retrieved list is cut to the panel width: redraw once the new width is laid
        # out; then, everything above the answer having rewrapped, find the sentence again.
        self.call_after_refresh(self._redraw)

    def _redraw(self) -> None:
        if self._last is not None and self._width() != self._drawn_width:
            row, name, k, focused, active, rejudged, show_all, tool, full, found = self._last
            self.show(row, name, k, focused, active=active, rejudged=rejudged, show_all=show_all, tool=tool, full=full, found=found)
        if self._follow_sentence:
            self.call_after_refresh(self.reveal_answer)
