"""The question view: one question, A and B side by side, and why it broke.

On a wide terminal (≥ 120 columns) both sides are shown and `t` / Tab picks the active
one (accent border, ▶); on a narrow one only the active side is shown, with a tab line
naming it. B, the candidate under review, is active first. `n` / `p` step through the
list the screen was opened with by redrawing in place (no screen pushed per step: fast
at 100,000 questions). `j` / `k` move the focused sentence of the active side, its
reason and evidence in view; `v` / Enter opens the verdict inspector. The other keys
are mixed in: `question_keys.py` (`/` search, `:` jump, `J` re-judge, `d` diff, `a` and
space for the passages), `question_gold.py` (`g`, `G`, `u`: fix the gold set), `TriageKeys`
(mark, copy, pager, editor, export), `LabelKeys`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Static

from ragtui.core.comparing.compare import Comparison
from ragtui.core.gold.triage import GoldFixer
from ragtui.core.measuring.tool_scores import tool_of
from ragtui.core.sanitize import neutralize
from ragtui.core.triage.search import Matches
from ragtui.ui.models.question import QuestionData, load_question
from ragtui.ui.screens.label_keys import LABEL_BINDINGS, LabelKeys
from ragtui.ui.screens.question_gold import GOLD_BINDINGS, QuestionGoldKeys
from ragtui.ui.screens.question_keys import QuestionDisplay, QuestionRejudge, QuestionSearch
from ragtui.ui.triage_keys import TRIAGE_BINDINGS, TriageKeys, mark_text
from ragtui.ui.widgets.answer_view import sentences
from ragtui.ui.widgets.key_footer import KeyFooter
from ragtui.ui.widgets.label_bar import LabelBar, label_bar_content
from ragtui.ui.widgets.question_header import header_content, tabs_content
from ragtui.ui.widgets.question_rejudge import Rejudged
from ragtui.ui.widgets.question_side import QuestionSide
from ragtui.ui.widgets.verdict_styles import role_colour

NARROW = 120  # below this width, one side at a time
_STEP = Binding.Group("step", compact=True)  # "np step": 80 columns hold it with q and ?
_SENTENCE = Binding.Group("sentence", compact=True)


class QuestionScreen(QuestionSearch, QuestionRejudge, QuestionDisplay, QuestionGoldKeys, TriageKeys, LabelKeys, Screen[str | None]):
    """One question of `question_ids` at a time; dismisses with the id last shown."""

    BINDINGS: list[BindingType] = [
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
    """

    side: reactive[str] = reactive("A", init=False)

    def __init__(self, comparison: Comparison, question_ids: list[str], index: int, *, gold: GoldFixer | None = None) -> None:
        super().__init__()
        self.gold = gold
        if not question_ids:
            raise ValueError("the question view needs at least one question id")
        self.comparison = comparison
        self.question_ids = question_ids
        self.index = max(0, min(index, len(question_ids) - 1))
        self.sides = ("A", "B") if comparison.b is not None else ("A",)
        # The peer tool each run came from: its own verdicts are shown beside ragtui's.
        self.tools = {side: tool_of(ev) for side, ev in zip(self.sides, (comparison.a, comparison.b), strict=False) if ev is not None}
        # The candidate is what is under review: start on B when there is one.
        self.set_reactive(QuestionScreen.side, self.sides[-1])
        self.data: QuestionData = load_question(comparison, question_ids[self.index])
        self.sentence_at: dict[str, int] = self._first_focus()
        self._rejudged: dict[tuple[str, str], Rejudged] = {}
        self.show_all_passages = False
        self.full_passages = False
        self.matches: Matches | None = None  # the search being stepped with n / N
        self._pending_term: str | None = None  # while a large comparison's search index builds

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
        with VerticalScroll(id="question-diff"):
            yield Static(id="question-diff-body")
        yield LabelBar(id="label-bar")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._layout_for(self.app.size.width)
        self.redraw(reset_scroll=True)
        self._side(self.side).focus_body()
        self.call_after_refresh(self._show_the_cause)

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
        header = header_content(data, self.index, len(self.question_ids), self._colour)
        extra = [line for line in (self._mark_line(), self._search_line()) if line is not None]
        self.query_one("#question-header", Static).update(Content("\n").join([header, *extra]))
        self.query_one("#question-tabs", Static).update(tabs_content(self.sides, self.side, self.data.names))
        for side in self.sides:
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
            )
        if self.has_class("-diff"):
            self._draw_diff()
        if reset_scroll:
            self.query_one("#question-top", VerticalScroll).scroll_home(animate=False, immediate=True)
        self._draw_labels()

    # -- the person's labels (keys: ragtui.ui.screens.label_keys) ----------------------------

    def _draw_labels(self) -> None:
        from ragtui.ui.models.labelling import labelling_of

        labelling = labelling_of(self.app, self.comparison)
        count = len(sentences(self.data.rows.get(self.side)))
        content = label_bar_content(
            labelling.of(self.side, self.question_id), count, self.sentence_at[self.side] if count else None,
            sampled=self.label_sampled(), path=labelling.path(self.side),
        )
        self.query_one("#label-bar", LabelBar).update(content)

    def label_target(self) -> tuple[str, str, int | None, int] | None:
        row = self.data.rows.get(self.side)
        if row is None or not row.get("present", True):
            self._say(f"{self.question_id} is not in run {self.side}: nothing to label", severity="warning", timeout=3)
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
            self._say("first question of the list" if target < 0 else "last question of the list", timeout=2)
            return
        self._show_index(target)

    def _show_index(self, target: int) -> None:
        self.index = target
        self.data = load_question(self.comparison, self.question_id)
        self.sentence_at = self._first_focus()
        self.redraw(reset_scroll=True)
        self.call_after_refresh(self._show_the_cause)

    def _first_focus(self) -> dict[str, int]:
        """Focus each side's first unsupported sentence: its reason is what one reads first."""
        focus = {}
        for side in self.sides:
            said = sentences(self.data.rows.get(side))
            focus[side] = next((i for i, s in enumerate(said) if s.get("attested") is False), 0)
        return focus

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

        self.app.push_screen(VerdictScreen(self.comparison, self.question_id, self.side, sentence=self.sentence_at[self.side]))

    def action_back(self) -> None:
        if self.has_class("-diff"):
            self.action_diff()
        elif self.matches is not None:
            self.matches = None
            self.redraw()
        else:
            self.dismiss(self.question_id)

    # -- TriageKeys -------------------------------------------------------------------------

    def triage_target(self) -> tuple[str | None, str]:
        return self.question_id, self.side

    def after_mark(self, question_id: str) -> None:
        self.redraw()

    def export_ids(self) -> tuple[list[str], str]:
        return list(self.question_ids), "listed"

    def _say(self, message: str, **kwargs) -> None:
        """A toast; its text names ids from the files, so it is neutralised and never markup."""
        self.notify(neutralize(message), markup=False, **kwargs)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("switch_side", "diff") and len(self.sides) < 2:
            return False
        return True
