"""Three groups of the question view's keys, kept apart from its layout and drawing.

`QuestionSearch`: `/` searches every text of the comparison, `n` / `N` step the matches
(the view's `action_step` hands over to `_step_match` while a search is on), `:` and
the search show any question with `jump_to`. `QuestionRejudge`: `J` judges the answer on
screen again, off the UI thread, and brings the new verdict into view. `QuestionDisplay`:
`d` shows what changed from A to B, `a` every retrieved passage, space their full text;
a generation regression opens on the answer (`_show_the_cause`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ragtui.core.triage.search import Matches
from ragtui.ui.safe_text import safe
from ragtui.ui.screens.failure_search import INDEXING, build_index_then, index_in_background
from ragtui.ui.widgets.diff_view import answer_diff_content, rank_diff_content
from ragtui.ui.widgets.question_rejudge import JudgeUnavailable, Rejudged, judge_settings, rejudge

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison
    from ragtui.core.triage.search import SearchIndex
    from ragtui.ui.models.question import QuestionData


class QuestionSearch:
    """Search and jump, mixed into the question view (which provides the attributes below)."""

    comparison: Comparison
    question_ids: list[str]
    index: int
    matches: Matches | None
    _pending_term: str | None  # None, or while the index builds: "" then the term given meanwhile


    def _search_line(self) -> Content | None:
        if self.matches is None:
            return None
        m = self.matches
        where = f"match {m.at + 1} of {len(m.ids)}" if m.at is not None and self.question_id in m.ids else f"{len(m.ids)} match(es)"
        return Content.assemble(
            Content(f"{'Search':<9}").stylize("bold"), "“", safe(m.term, one_line=True, limit=40), f"” · {where} · n / N step · Esc ends"
        )

    def jump_to(self, question_id: str) -> None:
        """Show any question of the comparison; one outside the list joins it after this one."""
        if question_id not in self.question_ids:
            self.question_ids = [*self.question_ids[: self.index + 1], question_id, *self.question_ids[self.index + 1 :]]
        self._show_index(self.question_ids.index(question_id))

    def _step_match(self, delta: int) -> None:
        assert self.matches is not None
        target = self.matches.step(self.question_id, delta)
        if target is None:
            self._say(f"nothing matches “{self.matches.term}”", timeout=3)
        else:
            self.jump_to(target)

    def action_search(self) -> None:
        from ragtui.ui.screens.menus import Prompt

        # A large comparison's index is built in a worker while the term is typed; a term
        # given before it is ready waits for it (`_pending_term`), the view stays usable.
        if index_in_background(self.comparison) and self._pending_term is None:
            self._pending_term = ""
            build_index_then(self, self.comparison, self._search_index_built)

        def search(term: str | None) -> None:
            if not term or not term.strip():
                return
            if self._pending_term is not None:
                self._pending_term = term
                self._say(f"{INDEXING} (the first search of a large comparison)", timeout=5)
                return
            self._search_for(term)

        hint = "search ids, questions, answers, passages and reasons (accents and case ignored); Enter, Esc cancels"
        self.app.push_screen(Prompt("/", hint, self.matches.term if self.matches else ""), callback=search)

    def _search_index_built(self, _index: SearchIndex) -> None:
        term, self._pending_term = self._pending_term, None
        if term and self.is_attached:
            self._search_for(term)

    def _search_for(self, term: str) -> None:
        from ragtui.core.triage.search import search_index

        index = search_index(self.comparison)
        if index.unreadable:
            self._say(index.unreadable, severity="warning", timeout=8)
        self.matches = Matches(term, index.ids(term))
        if not self.matches.ids:
            self._say(f"nothing matches “{term}” (ids, questions, answers, passages, reasons)", severity="warning", timeout=4)
            self.matches = None
            return
        target = self.matches.first(self.question_id)
        if target is not None:
            self.jump_to(target)


class QuestionRejudge:
    """`J`, mixed into the question view (which provides the attributes below)."""

    comparison: Comparison
    data: QuestionData
    side: str
    _rejudged: dict[tuple[str, str], Rejudged]

    def action_rejudge(self) -> None:
        row = self.data.rows.get(self.side)
        if row is None or not row.get("present", True):
            self._say(f"{self.question_id} is not in run {self.side}: nothing to judge", severity="warning")
            return
        try:
            settings = judge_settings(self.comparison)
        except JudgeUnavailable as exc:
            self._say(str(exc), title="Re-judge", severity="warning", timeout=8)
            return
        self._say(f"re-judging {self.question_id} ({self.side}) with {settings.provider}…", timeout=3)
        self._run_rejudge(self.question_id, self.side, row, settings)

    @work(exclusive=True, group="rejudge", exit_on_error=False)
    async def _run_rejudge(self, question_id: str, side: str, row: dict, settings: object) -> None:
        try:
            result = await rejudge(row, settings)
        except JudgeUnavailable as exc:
            self._say(str(exc), title="Re-judge", severity="error", timeout=8)
            return
        except Exception as exc:  # a judge bug must not take the app down with it
            self._say(f"the judge failed: {type(exc).__name__}", title="Re-judge", severity="error", timeout=8)
            return
        self._rejudged[(question_id, side)] = result
        if question_id == self.question_id:
            self.redraw()
            # The new verdict sits below the answer: bring it into view once it is laid out.
            self.call_after_refresh(self._side(side).reveal_rejudge)
        self._say(f"{question_id} ({side}) re-judged — shown below the answer" + (" (judge error)" if result.error else ""), timeout=3)


class QuestionDisplay:
    """`d`, `a` and space, and where a question opens, mixed into the question view (which provides the attributes below)."""

    data: QuestionData
    sides: tuple[str, ...]
    side: str
    full_passages: bool
    show_all_passages: bool

    def _show_the_cause(self) -> None:
        """On a short terminal, scroll each side to where this question went wrong.

        A regression of the answer (same passages, new verdicts) is read in the answer,
        not in the retrieved list, which would otherwise fill a 24-line screen.
        """
        cause = (self.data.status or {}).get("cause") or ""
        if cause.startswith("generation"):
            for side in self.sides:
                self._side(side).reveal_answer()

    def action_diff(self) -> None:
        self.toggle_class("-diff")
        if self.has_class("-diff"):
            self._draw_diff()
            self.query_one("#question-diff", VerticalScroll).scroll_home(animate=False)
            self.query_one("#question-diff", VerticalScroll).focus()
        else:
            self._side(self.side).focus_body()

    def _draw_diff(self) -> None:
        data = self.data
        body = Content("\n\n").join([
            rank_diff_content(data.rows.get("A"), data.rows.get("B"), data.k, self._colour),
            answer_diff_content(data.rows.get("A"), data.rows.get("B"), self._colour),
        ])
        self.query_one("#question-diff-body", Static).update(body)
        self.query_one("#question-diff").border_title = "A → B · d: back to the answers"

    def action_full_passages(self) -> None:
        self.full_passages = not self.full_passages
        self.redraw()

    def action_all_passages(self) -> None:
        self.show_all_passages = not self.show_all_passages
        self.redraw()
