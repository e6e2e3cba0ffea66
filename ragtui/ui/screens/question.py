"""The question view: one question, A and B side by side, and why it broke.

On a wide terminal (≥ 120 columns) both sides are shown and `t` / Tab picks the active
one (accent border, ▶); on a narrow one only the active side is shown, with a tab line
naming it. B, the candidate under review, is active first. `n` / `p` step through the
list the screen was opened with by redrawing in place (no screen pushed per step: fast
at 100,000 questions); a question whose rows are long is read in a worker ("loading the
question…" meanwhile, `QuestionRows`). `j` / `k` move the focused sentence of the active side, its
reason and evidence in view; `v` / Enter opens the verdict inspector. `/` searches
every text of the comparison (`n` / `N` then step the matches), `J` judges the answer
again, `d` shows what changed from A to B (the answer diff made in a worker, once a
question: the keys answer meanwhile), `a` and space show more of the passages, `g`,
`G` and `u` fix the gold set (its edits log, with a reason; the app recomputes); the
keys every triage screen shares (mark, copy, pager, editor, jump, export, the person's
labels) are `TriageScreen`'s.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static
from textual.worker import get_current_worker

from ragtui.core.comparing.compare import Comparison
from ragtui.core.gold.edits import GoldEdit
from ragtui.core.gold.triage import GoldFixer
from ragtui.core.measuring.tool_scores import tool_of
from ragtui.core.sanitize import neutralize
from ragtui.core.triage.diffs import DiffStopped
from ragtui.core.triage.search import Matches, SearchIndex, fields_holding, match_pattern
from ragtui.ui.content.answer_view import sentences
from ragtui.ui.content.diff_view import answer_diff_content, answers_of, rank_diff_content
from ragtui.ui.content.question_header import header_content, tabs_content
from ragtui.ui.content.question_rejudge import JudgeUnavailable, Rejudged, judge_settings, rejudge
from ragtui.ui.content.safe_text import safe
from ragtui.ui.content.verdict_styles import role_colour
from ragtui.ui.messages import GoldEdited
from ragtui.ui.models.answer_diffs import made_at_once
from ragtui.ui.models.question import QuestionData, load_question, loading_question, retrieved
from ragtui.ui.models.session import Session
from ragtui.ui.screens.gold_menu import GOLD_FIXES, GoldMenu
from ragtui.ui.screens.menus import Choice, ChoiceMenu, Prompt
from ragtui.ui.screens.triage import INDEXING, LABEL_BINDINGS, READING, SEARCHING, TRIAGE_BINDINGS, TriageScreen, mark_text
from ragtui.ui.widgets.key_footer import KeyFooter
from ragtui.ui.widgets.label_bar import LabelBar, label_bar_content
from ragtui.ui.widgets.question_side import SEARCH_MATCH, QuestionSide

if TYPE_CHECKING:
    from ragtui.ui.models.question_texts import QuestionText

NARROW = 120  # below this width, one side at a time
# A question whose texts hold more than this many characters has its search line's
# "in B's answer, …" found in a worker (about 100 ms at 5,000 judged sentences, more with
# their passages); under it, at once.
FIELDS_AT_ONCE_CHARS = 50_000
# In place of the sides while a long question's texts are read in a worker (`QuestionRows`).
LOADING = f"{READING} (the keys still answer: n / p move on, Esc goes back)"
GOLD_BINDINGS = [  # the gold keys: listed under ?, not in the 80-column footer
        Binding("g", "gold_passage", "gold?", show=False, tooltip="Toggle whether a retrieved passage is gold (in GOLD.edits.jsonl, with a reason)", id="question.gold_passage"),
        Binding("G", "gold_menu", "fix gold", key_display="G", show=False, tooltip="Fix the gold: unanswerable, category, expected answer, tag", id="question.gold_menu"),
        Binding("u", "gold_undo", "undo gold", show=False, tooltip="Undo the last fix to the gold set", id="question.gold_undo"),
]

_STEP = Binding.Group("step", compact=True)  # "np step": 80 columns hold it with q and ?
_SENTENCE = Binding.Group("sentence", compact=True)


class QuestionScreen(TriageScreen):
    """One question of `question_ids` at a time; dismisses with the id last shown."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", show=False, id="question.back"),
        Binding("n", "step(1)", "next", group=_STEP, tooltip="Next question of the list", id="question.next"),
        Binding("p", "step(-1)", "prev", group=_STEP, tooltip="Previous question of the list", id="question.previous"),
        Binding("t", "switch_side", "A/B", show=False, tooltip="Switch between A and B", id="question.switch_side"),
        Binding("tab", "switch_side", "A/B", show=False, tooltip="Switch between A and B", id="question.switch_side_tab"),
        Binding("j", "sentence(1)", "next sentence", group=_SENTENCE, tooltip="Focus the next sentence of the answer", id="question.next_sentence"),
        Binding("k", "sentence(-1)", "previous sentence", group=_SENTENCE, tooltip="Focus the previous sentence", id="question.previous_sentence"),
        Binding("d", "diff", "diff", tooltip="What changed from A to B: passage ranks and the answer word by word", id="question.diff"),
        Binding("a", "all_passages", "passages", show=False, tooltip="Show every retrieved passage, or only the top k and the gold ones", id="question.all_passages"),
        Binding("space", "full_passages", "full text", show=False, tooltip="Show the passages' full text in place, or one line each", id="question.full_passages"),
        Binding("v", "verdicts", "verdicts", tooltip="Everything the judge said", id="question.verdicts"),
        Binding("enter", "verdicts", "verdicts", show=False, tooltip="Everything the judge said", id="question.verdicts_enter"),
        Binding("J", "rejudge", "re-judge", key_display="J", show=False, tooltip="Judge this answer again with the configured judge", id="question.rejudge"),
        Binding("slash", "search", "search", key_display="/", show=False, tooltip="Search ids, questions, answers, passages and reasons; n / N step the matches", id="question.search"),
        Binding("N", "step(-1)", "previous match", key_display="N", show=False, tooltip="Previous match of the search (n: next)", id="question.previous_match"),
        *GOLD_BINDINGS,
        *TRIAGE_BINDINGS,
        *LABEL_BINDINGS,
    ]
    DEFAULT_CSS = """
    QuestionScreen {
        layout: vertical;
    }
    QuestionScreen #question-top {
        height: auto;
        max-height: 45%;
        padding: 0 1;
        background: $panel;
    }
    QuestionScreen #question-tabs {
        display: none;
        height: 1;
        padding: 0 1;
    }
    QuestionScreen.-narrow #question-tabs {
        display: block;
    }
    QuestionScreen #question-sides {
        height: 1fr;
    }
    QuestionScreen #question-diff {
        display: none;
        height: 1fr;
        padding: 0 1;
        border: round $accent;
        border-title-style: bold;
    }
    QuestionScreen.-diff #question-diff {
        display: block;
    }
    QuestionScreen.-diff #question-sides {
        display: none;
    }
    QuestionScreen.-narrow QuestionSide {
        display: none;
    }
    QuestionScreen.-narrow QuestionSide.-active {
        display: block;
    }
    QuestionScreen #question-loading {
        display: none;
        height: 1fr;
        padding: 1 2;
        text-style: italic;
    }
    QuestionScreen.-loading #question-loading {
        display: block;
    }
    QuestionScreen.-loading #question-sides {
        display: none;
    }
    QuestionScreen.-loading.-diff #question-loading {
        display: none;
    }
    """

    side: reactive[str] = reactive("A", init=False)

    def __init__(
        self, comparison: Comparison, question_ids: list[str], index: int, *, session: Session | None = None, gold: GoldFixer | None = None
    ) -> None:
        """`gold`: the gold set's fixes (for a view opened on its own; the app's session holds them)."""
        super().__init__(comparison, session=session)
        if gold is not None:
            self.session.gold = gold
        if not question_ids:
            raise ValueError("the question view needs at least one question id")
        self.question_ids = question_ids
        self.index = max(0, min(index, len(question_ids) - 1))
        self.sides = ("A", "B") if comparison.b is not None else ("A",)
        # The peer tool each run came from: its own verdicts are shown beside ragtui's.
        self.tools = {side: tool_of(ev) for side, ev in zip(self.sides, (comparison.a, comparison.b), strict=False) if ev is not None}
        # The candidate is what is under review: start on B when there is one.
        self.set_reactive(QuestionScreen.side, self.sides[-1])
        self.data: QuestionData = self._data_now(question_ids[self.index])
        self.sentence_at: dict[str, int] = self._first_focus()
        self._rejudged: dict[tuple[str, str], Rejudged] = {}
        self.show_all_passages = False
        self.full_passages = False
        self.matches: Matches | None = None  # the search being stepped with n / N
        self._pending_term: str | None = None  # while a large comparison's search index builds
        self._searching: str | None = None  # the term a worker looks for now (`_search_for`)
        self._list_before_search: tuple[list[str], int] | None = None  # (ids, index) the search stepped away from
        self._diff_making: str | None = None  # the question whose answer diff a worker makes now
        self._fields_found: dict[tuple[str, str], list[str]] = {}  # (question, term) → the texts holding it
        self._fields_finding: tuple[str, str] | None = None  # what a worker looks for now

    @property
    def question_id(self) -> str:
        return self.question_ids[self.index]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="question-top", can_focus=False):
            yield Static(id="question-header")
        yield Static(id="question-tabs")
        with Horizontal(id="question-sides"):
            for side in self.sides:
                yield QuestionSide(side, id=f"side-{side}")
        yield Static(LOADING, id="question-loading")
        with VerticalScroll(id="question-diff"):
            yield Static(id="question-diff-body")
        yield LabelBar(id="label-bar")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._layout_for(self.app.size.width)
        self.redraw(reset_scroll=True)
        self._side(self.side).focus_body()
        self.call_after_refresh(self._show_the_cause)
        # After the loading state is painted: the worker's parsing holds the GIL.
        self.call_after_refresh(self._read_if_loading)

    def on_resize(self) -> None:
        self._layout_for(self.size.width)

    def _layout_for(self, width: int) -> None:
        self.set_class(width < NARROW, "-narrow")

    def _colour(self, role: str) -> str:
        return role_colour(self.app, role)

    def _side(self, side: str) -> QuestionSide:
        return self.query_one(f"#side-{side}", QuestionSide)

    # -- drawing --------------------------------------------------------------------------

    def redraw(self, *, reset_scroll: bool = False) -> None:
        """Draw the current question in place (header, tab line, both sides)."""
        data = self.data
        found = self._draw_header()
        self.query_one("#question-tabs", Static).update(tabs_content(self.sides, self.side, self.data.names))
        self.set_class(data.loading, "-loading")
        for side in self.sides if not data.loading else ():
            self._side(side).show(
                self.with_unretrieved_gold(data.rows.get(side)),
                data.names[side],
                data.k,
                self.sentence_at[side],
                active=side == self.side,
                rejudged=self._rejudged.get((data.id, side)),
                reset_scroll=reset_scroll,
                show_all=self.show_all_passages,
                tool=self.tools[side],
                full=self.full_passages,
                found=found,
            )
        if self.has_class("-diff"):
            self._draw_diff()
        if reset_scroll:
            self.query_one("#question-top", VerticalScroll).scroll_home(animate=False, immediate=True)
        self._draw_labels()

    def _draw_header(self) -> re.Pattern[str] | None:
        """Draw the header and its mark and search lines; what the search finds, or None."""
        header = header_content(self.data, self.index, len(self.question_ids), self._colour)
        found = match_pattern(self.matches.term) if self.matches is not None else None
        if found is not None:
            header = header.highlight_regex(found, style=SEARCH_MATCH)
        extra = [line for line in (self._mark_line(), self._search_line()) if line is not None]
        self.query_one("#question-header", Static).update(Content("\n").join([header, *extra]))
        return found

    # -- the person's labels (keys: TriageScreen) ---------------------------------------------

    def _draw_labels(self) -> None:
        labelling = self.labelling
        count = len(sentences(self.data.rows.get(self.side)))
        content = label_bar_content(
            labelling.of(self.side, self.question_id), count, self.sentence_at[self.side] if count else None,
            sampled=self.label_sampled(), path=labelling.path(self.side),
        )
        self.query_one("#label-bar", LabelBar).update(content)

    def label_target(self) -> tuple[str, str, int | None, int] | None:
        if self._still_loading():
            return None
        row = self.data.rows.get(self.side)
        if row is None or not row.get("present", True):
            self.say(f"{self.question_id} is not in run {self.side}: nothing to label", severity="warning", timeout=3)
            return None
        count = len(sentences(row))
        return self.side, self.question_id, self.sentence_at[self.side] if count else None, count

    def label_changed(self, *, sentence_labelled: bool) -> None:
        count = len(sentences(self.data.rows.get(self.side)))
        if sentence_labelled and self.sentence_at[self.side] < count - 1:
            self.action_sentence(1)  # on to the next sentence: a whole answer is + + - …
        else:
            self._draw_labels()

    def _mark_line(self) -> Content | None:
        mark = mark_text(self.notes, self.question_id)
        return Content.assemble(Content(f"{'Mark':<9}").stylize("bold"), mark) if mark is not None else None

    # -- actions --------------------------------------------------------------------------

    def action_step(self, delta: int) -> None:
        if self.matches is not None:
            self._step_match(delta)
            return
        target = self.index + delta
        if not 0 <= target < len(self.question_ids):
            self.say("first question of the list" if target < 0 else "last question of the list", timeout=2)
            return
        self._show_index(target)

    def _show_index(self, target: int) -> None:
        self.index = target
        self.data = self._data_now(self.question_id)
        self.sentence_at = self._first_focus()
        self.redraw(reset_scroll=True)
        self.call_after_refresh(self._show_the_cause)
        # After the loading state is painted: the worker's parsing holds the GIL.
        self.call_after_refresh(self._read_if_loading)

    # -- a question's rows: at once when short, else read in a worker (`QuestionRows`) --------

    def _data_now(self, question_id: str) -> QuestionData:
        """The question with its texts when they are cheap to have now (kept, or short
        lines), else as the frames hold it, `loading` (`_read_if_loading` then reads them)."""
        if self.rows_at_once(question_id):
            return load_question(self.comparison, question_id, self.session.rows)
        return loading_question(self.comparison, question_id)

    def _read_if_loading(self) -> None:
        """Read the question's long rows in a worker (`TriageScreen.read_rows_then`), then
        draw them if the view still shows it."""
        if self.is_attached and self.data.loading:
            self.read_rows_then(self.question_id, self._rows_read)

    def _rows_read(self, comparison: Comparison, question_id: str) -> None:
        if not (self.is_attached and self.data.loading and question_id == self.question_id and comparison is self.comparison):
            return  # the view moved on: the rows are kept for a return
        self.data = load_question(comparison, question_id, self.session.rows)
        self.sentence_at = self._first_focus()
        self.redraw(reset_scroll=True)
        self.call_after_refresh(self._show_the_cause)

    def _still_loading(self) -> bool:
        """True, and says so, while the question's texts are read: a key that needs them waits."""
        if self.data.loading:
            self.say(READING, timeout=2)
        return self.data.loading

    def _first_focus(self) -> dict[str, int]:
        """Focus each side's first unsupported sentence: its reason is what one reads first."""
        focus = {}
        for side in self.sides:
            said = sentences(self.data.rows.get(side))
            focus[side] = next((i for i, s in enumerate(said) if s.get("attested") is False), 0)
        return focus

    def _show_the_cause(self) -> None:
        """On a short terminal, scroll each side to where this question went wrong: a
        regression of the answer (same passages, new verdicts) is read in the answer."""
        cause = (self.data.status or {}).get("cause") or ""
        if cause.startswith("generation"):
            for side in self.sides:
                self._side(side).reveal_answer()

    def action_switch_side(self) -> None:
        if len(self.sides) > 1:
            self.side = "B" if self.side == "A" else "A"

    def watch_side(self) -> None:
        self.redraw()
        self._side(self.side).focus_body()

    def action_sentence(self, delta: int) -> None:
        count = len(sentences(self.data.rows.get(self.side)))
        if not count:
            return
        self.sentence_at[self.side] = max(0, min(self.sentence_at[self.side] + delta, count - 1))
        self.redraw()
        self.call_after_refresh(self._side(self.side).reveal_answer)  # once the new focus is laid out

    def action_verdicts(self) -> None:
        from ragtui.ui.screens.verdicts import VerdictScreen

        if self._still_loading():
            return

        self.app.push_screen(VerdictScreen(self.comparison, self.question_id, self.side, sentence=self.sentence_at[self.side], session=self.session,
                                           rows=dict(self.data.rows), sampled_side=self.sampled_side()))

    def sampled_side(self) -> str | None:
        """The run whose labels made from this view are sampled (a calibration queue's), or None."""
        return None

    def action_back(self) -> None:
        if self._searching is not None:
            self._stop_searching()
        elif self.has_class("-diff"):
            self.action_diff()
        elif self.matches is not None:
            self._end_search()
        else:
            self.dismiss(self.question_id)

    # -- `/` search and `:` jump (the view's `action_step` hands over to `_step_match`
    #    while a search is on) ------------------------------------------------------------

    def _search_line(self) -> Content | None:
        """`Search “congé” · match 2 of 5 · in B's answer, A's passages · n / N step · Esc ends`;
        while a worker looks for a term, `Search “congé” · searching… (…, Esc stops)`."""
        if self._searching is not None:
            return Content.assemble(Content(f"{'Search':<9}").stylize("bold"), "“", safe(self._searching, one_line=True, limit=40), f"” · {SEARCHING} (the keys still answer, Esc stops)")
        if self.matches is None:
            return None
        m = self.matches
        where = f"match {m.at + 1} of {len(m.ids)}" if m.at is not None and self.question_id in m.ids else f"{len(m.ids)} match(es)"
        fields = self._fields_holding(m.term)
        found = " · finding where…" if fields is None else f" · in {', '.join(fields)}" if fields else ""
        return Content.assemble(
            Content(f"{'Search':<9}").stylize("bold"), "“", safe(m.term, one_line=True, limit=40), f"” · {where}{found} · n / N step · Esc ends"
        )

    def _fields_holding(self, term: str) -> list[str] | None:
        """The names of this question's texts holding `term`; None while a worker finds
        them. Normalising a 5,000-sentence question's texts takes about 100 ms: it is
        done once a question and term, in a worker past `FIELDS_AT_ONCE_CHARS`."""
        key = (self.question_id, term)
        if key in self._fields_found:
            return self._fields_found[key]
        if self.data.loading:  # found once the texts are read
            return None
        fields = self._search_fields()
        if sum(len(text) for text in fields.values()) <= FIELDS_AT_ONCE_CHARS:
            self._fields_found[key] = fields_holding(term, fields)
            return self._fields_found[key]
        if self._fields_finding != key:
            self._fields_finding = key

            def find() -> None:
                names = fields_holding(term, fields)
                with contextlib.suppress(RuntimeError):  # the app quit meanwhile
                    self.app.call_from_thread(self._fields_made, key, names)

            self.run_worker(find, thread=True, exclusive=True, group="search-fields")
        return None

    def _fields_made(self, key: tuple[str, str], names: list[str]) -> None:
        self._fields_found[key] = names
        if self._fields_finding == key:
            self._fields_finding = None
        if self.is_attached and self.matches is not None and key == (self.question_id, self.matches.term):
            self.redraw()

    def _search_fields(self) -> dict[str, str]:
        """The texts of the question on screen the search looks in, by the name the search line gives them."""
        data = self.data
        row = data.any_row
        fields = {"the id": data.id, "the question": row.get("question") or ""}
        for side in self.sides:
            mine = data.rows.get(side) or {}
            said = sentences(mine)
            reasons = [s.get("reason") or "" for s in said] + [mine.get("judge_utility_reason") or "", mine.get("judge_error") or ""]
            fields[f"{side}'s answer"] = mine.get("answer") or ""
            fields[f"{side}'s passages"] = "\n".join(mine.get("retrieved_texts") or [])
            fields[f"{side}'s judge reasons"] = "\n".join(reasons)
        return fields

    def jump_to(self, question_id: str) -> None:
        """Show any question of the comparison; one outside the list joins it after this one."""
        if question_id not in self.question_ids:
            self.question_ids = [*self.question_ids[: self.index + 1], question_id, *self.question_ids[self.index + 1 :]]
        self._show_index(self.question_ids.index(question_id))

    def _step_match(self, delta: int) -> None:
        assert self.matches is not None
        target = self.matches.step(self.question_id, delta)
        if target is None:
            self.say(f"nothing matches “{self.matches.term}”", timeout=3)
        else:
            self.jump_to(target)

    def action_search(self) -> None:
        from ragtui.ui.screens.menus import Prompt

        # A large comparison's index is built in a worker while the term is typed; a term
        # given before it is ready waits for it (`_pending_term`), the view stays usable.
        if self.index_in_background() and self._pending_term is None:
            self._pending_term = ""
            self.build_index_then(self._search_index_built)

        def search(term: str | None) -> None:
            if not term or not term.strip():
                return
            if self._pending_term is not None:
                self._pending_term = term
                self.say(f"{INDEXING} (the first search of a large comparison)", timeout=5)
                return
            self._search_for(term)

        hint = "search ids, questions, answers, passages and reasons (accents and case ignored); Enter, Esc cancels"
        self.app.push_screen(Prompt("/", hint, self.matches.term if self.matches else ""), callback=search)

    def _search_index_built(self, _index: SearchIndex) -> None:
        term, self._pending_term = self._pending_term, None
        if term and self.is_attached:
            self._search_for(term)

    def _search_for(self, term: str) -> None:
        """Find `term`: at once on a small comparison; on a large one in a worker (the match
        is a scan of every text: 25-55 ms of CPU at 100,000 questions, ten times that at a
        million), the keys answering meanwhile, a newer search replacing it, Esc stopping it."""
        if not self.match_in_background(term):
            index = self.search_index()
            self._searched(term, index.ids(term), index.unreadable)
            return
        self._searching = term
        self._draw_header()

        def find() -> None:
            index = self.search_index()
            ids = index.ids(term)
            if get_current_worker().is_cancelled:  # a newer search, or Esc, replaced it
                return
            with contextlib.suppress(RuntimeError):  # the app quit meanwhile
                self.app.call_from_thread(self._search_found, term, ids, index.unreadable)

        self.run_worker(find, thread=True, exclusive=True, group="search")

    def _search_found(self, term: str, ids: list[str], unreadable: str | None) -> None:
        if self._searching != term or not self.is_attached:  # stopped or replaced meanwhile
            return
        self._searching = None
        self._searched(term, ids, unreadable)
        self._draw_header()  # the search line without "searching…" (nothing matched: without it)

    def _stop_searching(self) -> None:
        self._searching = None
        self.workers.cancel_group(self, "search")
        self._draw_header()

    def _searched(self, term: str, ids: list[str], unreadable: str | None) -> None:
        """Step through the matches of `term` (`ids`, in the comparison's order)."""
        if unreadable:
            self.say(unreadable, severity="warning", timeout=8)
        self.matches = Matches(term, ids)
        if not self.matches.ids:
            self.say(f"nothing matches “{term}” (ids, questions, answers, passages, reasons)", severity="warning", timeout=4)
            self.matches = None
            return
        # While the search is on, the view steps through its matches (the counter is the
        # match's place among them); Esc gives the list back (`_end_search`).
        if self._list_before_search is None:
            self._list_before_search = (self.question_ids, self.index)
        current = self.question_id  # before the list changes: the view stays on it if it matches
        self.question_ids = list(self.matches.ids)
        target = self.matches.first(current)
        if target is not None:
            self._show_index(self.question_ids.index(target))

    def _end_search(self) -> None:
        """The list the view was opened with again, on the question shown now."""
        self.matches = None
        if self._list_before_search is not None:
            ids, index = self._list_before_search
            self._list_before_search = None
            current = self.question_id
            if current not in ids:
                ids = [*ids[: index + 1], current, *ids[index + 1 :]]
            self.question_ids, self.index = ids, ids.index(current)
        self.redraw()

    # -- `J`: judge the answer on screen again, off the UI thread -----------------------------

    def action_rejudge(self) -> None:
        if self._still_loading():
            return
        row = self.data.rows.get(self.side)
        if row is None or not row.get("present", True):
            self.say(f"{self.question_id} is not in run {self.side}: nothing to judge", severity="warning")
            return
        try:
            settings = judge_settings(self.comparison)
        except JudgeUnavailable as exc:
            self.say(str(exc), title="Re-judge", severity="warning", timeout=8)
            return
        self.say(f"re-judging {self.question_id} ({self.side}) with {settings.provider}…", timeout=3)
        self._run_rejudge(self.question_id, self.side, row, settings)

    @work(exclusive=True, group="rejudge", exit_on_error=False)
    async def _run_rejudge(self, question_id: str, side: str, row: dict, settings: object) -> None:
        try:
            result = await rejudge(row, settings)
        except JudgeUnavailable as exc:
            self.say(str(exc), title="Re-judge", severity="error", timeout=8)
            return
        except Exception as exc:  # a judge bug must not take the app down with it
            self.say(f"the judge failed: {type(exc).__name__}", title="Re-judge", severity="error", timeout=8)
            return
        self._rejudged[(question_id, side)] = result
        if question_id == self.question_id:
            self.redraw()
            # The new verdict sits below the answer: bring it into view once it is laid out.
            self.call_after_refresh(self._side(side).reveal_rejudge)
        self.say(f"{question_id} ({side}) re-judged — shown below the answer" + (" (judge error)" if result.error else ""), timeout=3)

    # -- `d` what changed from A to B, `a` every retrieved passage, space their full text ------

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
        self.query_one("#question-diff").border_title = "A → B · d: back to the answers"
        if data.loading:
            self.query_one("#question-diff-body", Static).update(Content(LOADING).stylize("italic"))
            return
        row_a, row_b = data.rows.get("A"), data.rows.get("B")
        a, b = answers_of(row_a, row_b)
        diff = None
        if a is not None and b is not None:
            diffs = self.session.diffs
            diff = diffs.make(data.id, a, b) if made_at_once(a, b) else diffs.get(data.id, a, b)
            if diff is None:
                self._make_diff(data.id, a, b)
        body = Content("\n\n").join([
            rank_diff_content(row_a, row_b, data.k, self._colour),
            answer_diff_content(row_a, row_b, diff, self._colour),
        ])
        self.query_one("#question-diff-body", Static).update(body)

    def _make_diff(self, question_id: str, a: str, b: str) -> None:
        """Make the answer diff of `question_id` in a worker, then draw it if it is still
        wanted. A diff already being made for it is waited for, not started again; one
        being made for another question is stopped (its result is no longer wanted)."""
        if self._diff_making == question_id:
            return
        self._diff_making = question_id
        diffs = self.session.diffs

        def make() -> None:
            worker = get_current_worker()
            try:
                diffs.make(question_id, a, b, stop=lambda: worker.is_cancelled)
            except DiffStopped:
                return
            with contextlib.suppress(RuntimeError):  # the app quit while the diff was made
                self.app.call_from_thread(self._diff_made, question_id)

        self.run_worker(make, thread=True, exclusive=True, group="answer-diff")

    def _diff_made(self, question_id: str) -> None:
        if self._diff_making == question_id:
            self._diff_making = None
        if self.is_attached and question_id == self.question_id and self.has_class("-diff"):
            self._draw_diff()

    def action_full_passages(self) -> None:
        self.full_passages = not self.full_passages
        self.redraw()

    def action_all_passages(self) -> None:
        self.show_all_passages = not self.show_all_passages
        self.redraw()

    # -- `g`, `G`, `u`: fix the gold set from triage (`core.gold.triage.GoldFixer`, in the
    #    session): each fix is on disk, with its reason, before the view moves on; the view
    #    then posts `GoldEdited`, and the app recomputes the comparison with the edits -------------

    def use_comparison(self, comparison: Comparison) -> None:
        """The comparison recomputed (with the gold fixed): the same question, drawn again."""
        self.comparison = comparison
        self.data = self._data_now(self.question_id)
        self._fields_found.clear()
        self.redraw()
        self.call_after_refresh(self._read_if_loading)

    def with_unretrieved_gold(self, row: dict[str, Any] | None) -> dict[str, Any] | None:
        """The row with the corpus text of each gold passage it did not retrieve (`--corpus`)."""
        if row is None or self.session.gold is None or self.session.gold.corpus is None:
            return row
        found = {passage for _, passage, _, _ in retrieved(row)}
        missed = [p for p in row.get("gold_passages") or [] if p not in found]
        return row | {"gold_not_retrieved": [(p, self.session.gold.corpus_text(p)) for p in missed]} if missed else row

    def _gold_fixer(self) -> GoldFixer | None:
        if self.session.gold is None:
            self.say("no gold set to fix: open the runs with --gold GOLD.yaml", severity="warning", timeout=4)
        return self.session.gold

    def _gold_recorded(self, made: list[GoldEdit], what: str) -> None:
        """Say what was saved and where; the app recomputes the comparison with it."""
        if self.session.gold is None or not made:
            self.say(f"{self.question_id}: nothing changed", timeout=3)
            return
        self.say(f"{self.question_id}: {what} — saved in {self.session.gold.edits.path}", timeout=4)
        self.post_message(GoldEdited())

    def _gold_write(self, edit: Callable[[], list[GoldEdit]], what: str) -> None:
        try:
            made = edit()
        except OSError as exc:
            path = self.session.gold.edits.path if self.session.gold is not None else ""
            self.say(f"could not write {path}: {exc.strerror or exc}: nothing changed", severity="error", timeout=10)
            return
        self._gold_recorded(made, what)

    def action_gold_passage(self) -> None:
        """g: pick a retrieved passage of the active side (the one the focused sentence cites first)."""
        fixer = self._gold_fixer()
        row = self.data.rows.get(self.side)
        if fixer is None or self._still_loading():
            return
        items = retrieved(row) if row else []
        if not items:
            self.say(f"{self.question_id}: run {self.side} retrieved nothing", timeout=3)
            return
        gold = set(fixer.value(self.question_id, "gold_passages") or [])
        said = sentences(row)
        cited = (said[self.sentence_at[self.side]].get("evidence") or []) if said else []
        shown = items[:9]
        choices = [
            Choice(str(index + 1), Content.assemble("★ " if passage in gold else "  ", safe(passage, one_line=True, limit=30),
                                                    " ", safe(text or "", one_line=True, limit=30).stylize("dim")), passage)
            for index, (_, passage, text, _) in enumerate(shown)
        ]
        focus = next((i for i, (_, passage, _, _) in enumerate(shown) if passage in cited), 0)
        title = Content.assemble("Gold passages of ", safe(self.question_id, one_line=True, limit=30), f" (run {self.side}): ★ is gold, picking toggles")

        def done(result: tuple[str, str] | None) -> None:
            if result is not None:
                passage, why = result
                verb = "no longer gold" if passage in gold else "now gold"
                self._gold_write(lambda: fixer.toggle_gold_passage(self.question_id, passage, why), f"{passage} {verb}")

        self.app.push_screen(GoldMenu(title, choices, highlighted=focus), callback=done)

    def action_gold_menu(self) -> None:
        """G: the other fixes, each with a reason."""
        fixer = self._gold_fixer()
        if fixer is None:
            return
        question = self.question_id

        def done(result: tuple[str, str] | None) -> None:
            if result is None:
                return
            fix, why = result
            if fix == "unanswerable":
                self._gold_write(lambda: fixer.mark_unanswerable(question, why), "marked unanswerable")
            elif fix == "category":
                self._choose_category(fixer, question, why)
            elif fix == "expected_answer":
                self._edit_expected_answer(fixer, question, why)
            elif fix == "tag":
                self._choose_tag(fixer, question, why)

        title = Content.assemble("Fix the gold of ", safe(question, one_line=True, limit=40))
        self.app.push_screen(GoldMenu(title, GOLD_FIXES), callback=done)

    def _choose_category(self, fixer: GoldFixer, question: str, why: str) -> None:
        current = fixer.value(question, "category")
        letters = "abcdefghijklmnoprstuvwxyz"  # not q: q closes every menu
        choices = [
            Choice(letters[i], safe(self.comparison.config.category_name(c), one_line=True, limit=50), c)
            for i, c in enumerate(c for c in fixer.categories() if c != current) if i < len(letters)
        ]

        def done(category: str | None) -> None:
            if category is not None:
                self._gold_write(lambda: fixer.set_category(question, category, why), f"category {category}")

        self.app.push_screen(ChoiceMenu(Content.assemble("New category of ", safe(question, one_line=True, limit=40)), choices), callback=done)

    def _choose_tag(self, fixer: GoldFixer, question: str, why: str) -> None:
        has = fixer.value(question, "tags") or []
        hint = f"a tag to add, or one of {', '.join(has)} to remove (Tab completes, Enter records, Esc cancels)" if has else "a tag to add (Tab completes, Enter records, Esc cancels)"

        def done(value: str | None) -> None:
            tag = (value or "").strip()
            if tag:
                verb = "removed" if tag in has else "added"
                self._gold_write(lambda: fixer.toggle_tag(question, tag, why), f"tag {tag} {verb}")

        self.app.push_screen(Prompt("tag", neutralize(hint), suggestions=fixer.tags()), callback=done)

    def _edit_expected_answer(self, fixer: GoldFixer, question: str, why: str) -> None:
        from ragtui.ui.external import edit_outside

        before = fixer.value(question, "expected_answer") or ""
        edited, message = edit_outside(self.app, before, name=neutralize(f"{question}-expected.txt", keep_newlines=False).replace("/", "_"))
        if edited is None:
            self.say(message, severity="warning", timeout=5)
            return
        self._gold_write(lambda: fixer.set_expected_answer(question, edited or None, why), "expected answer edited")

    def action_gold_undo(self) -> None:
        """u: take back the last fix to the gold set (whatever question it was on)."""
        fixer = self._gold_fixer()
        if fixer is None:
            return
        try:
            undone = fixer.undo()
        except OSError as exc:
            self.say(f"could not write {fixer.edits.path}: {exc.strerror or exc}: nothing undone", severity="error", timeout=10)
            return
        if not undone:
            self.say("no fix to the gold set to undo", timeout=3)
            return
        first = undone[0]
        self.say(f"undone: {first.question} {first.field} — saved in {fixer.edits.path}", timeout=4)
        self.post_message(GoldEdited())

    # -- TriageScreen -----------------------------------------------------------------------

    def triage_target(self) -> tuple[str | None, str]:
        return self.question_id, self.side

    def loaded_rows(self) -> dict[str, dict | None]:
        return {} if self.data.loading else dict(self.data.rows)

    def _texts_at_once(self) -> bool:
        return True  # the view reads its question's rows itself: `_texts` says when they are not read yet

    def _texts(self) -> list[QuestionText] | None:
        return None if self._still_loading() else super()._texts()

    def after_mark(self, question_id: str) -> None:
        self.redraw()

    def export_ids(self) -> tuple[list[str], str]:
        return list(self.question_ids), "listed"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("switch_side", "diff") and len(self.sides) < 2:
            return False
        return True
