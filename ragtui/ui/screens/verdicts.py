"""The verdict inspector: everything the judge said about one answer, on one side.

Model, every sentence with its verdict, reason and evidence text, the human label beside
it where the run has one (disagreements marked ≠), utility and its reason, the judge
error, the jury's verdicts side by side (`ragtui judge --jury`), and the raw judge JSON — the inspector hides nothing the file holds. `t`
switches between A and B; `j` / `k` move the focused sentence, which the person's label
keys (`+ - 1–5 0`, `TriageScreen`'s) act on; Esc goes back.

A long answer is shown a window of `WINDOW` sentences at a time around the focused one
(`j` / `k` move the focus, the window follows), and a long raw JSON is cut with a line
saying so: `o` shows all of it in $PAGER. A 5,000-sentence answer opens as fast as a
five-sentence one.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ragtui.core.comparing.compare import Comparison
from ragtui.core.judge.jury import jurors_of
from ragtui.core.vocabulary import JUDGE_DIRECTED_MARK, JUDGE_INJECTION_LABEL
from ragtui.ui.content.question_header import directed_content
from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.content.verdict_sections import jury_content, raw_json_content, sentence_content, summary_content, utility_content
from ragtui.ui.content.verdict_styles import role_colour
from ragtui.ui.models.question import judge_reported_injection, side_flags
from ragtui.ui.models.session import Session
from ragtui.ui.screens.triage import LABEL_BINDINGS, TRIAGE_BINDINGS, TriageScreen
from ragtui.ui.widgets.key_footer import KeyFooter
from ragtui.ui.widgets.label_bar import LabelBar, label_bar_content

WINDOW = 12  # sentences mounted at a time


class VerdictScreen(TriageScreen):
    """All of one side's verdicts for one question."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "back", id="verdicts.back"),
        Binding("t", "switch_side", "A/B", tooltip="Show the other run's verdicts", id="verdicts.switch_side"),
        Binding("j", "focus_sentence(1)", "next sentence", show=False, tooltip="Focus the next sentence (for the label keys)", id="verdicts.next_sentence"),
        Binding("k", "focus_sentence(-1)", "previous sentence", show=False, tooltip="Focus the previous sentence", id="verdicts.previous_sentence"),
        *[b for b in TRIAGE_BINDINGS if b.action not in ("jump", "export")],
        *LABEL_BINDINGS,
    ]
    DEFAULT_CSS = """
    VerdictScreen #verdict-title {
        height: 1;
        padding: 0 1;
        background: $panel;
    }
    VerdictScreen #verdict-body {
        height: 1fr;
        padding: 0 1;
    }
    VerdictScreen #verdict-body > Static {
        margin-bottom: 1;
    }
    VerdictScreen #verdict-body > .verdict-sentence.-focused {
        border-left: thick $accent;
        padding-left: 1;
    }
    VerdictScreen #verdict-body > .verdict-raw {
        background: $boost;
        padding: 0 1;
    }
    """

    def __init__(self, comparison: Comparison, question_id: str, side: str, *, sentence: int | None = None,
                 sampled_side: str | None = None, session: Session | None = None, rows: dict[str, dict | None] | None = None) -> None:
        """`sampled_side`: the run whose calibration queue opened this answer (its labels are
        sampled); `rows`: this question's rows by side, when the opener has them already."""
        super().__init__(comparison, session=session)
        self.question_id = question_id
        self.sides = ("A", "B") if comparison.b is not None else ("A",)
        self.side = side if side in self.sides else "A"
        self.sentence = sentence
        self.sampled_side = sampled_side
        self.window = range(0)  # the sentences mounted
        self._rows: dict[str, dict | None] = dict(rows or {})

    def compose(self) -> ComposeResult:
        yield Static(id="verdict-title")
        yield VerticalScroll(id="verdict-body")
        yield LabelBar(id="label-bar")
        yield KeyFooter()

    async def on_mount(self) -> None:
        await self._show()
        body = self.query_one("#verdict-body", VerticalScroll)
        body.focus()
        if self.sentence is not None:
            self.call_after_refresh(self._reveal_sentence, self.sentence)

    def _colour(self, role: str) -> str:
        return role_colour(self.app, role)

    def loaded_rows(self) -> dict[str, dict | None]:
        return self._rows

    def _evaluation(self):
        return self.comparison.a if self.side == "A" else self.comparison.b

    def _row(self) -> dict | None:
        """This side's row, looked up once (given by the question view, or kept by the session): a
        5,000-sentence row read back from a JSONL run takes most of a second to build, and
        `j`, the labels and the focus each need it."""
        if self.side not in self._rows:
            evaluation = self._evaluation()
            self._rows[self.side] = self.session.rows.row(evaluation, self.question_id) if evaluation is not None else None
        return self._rows[self.side]

    async def _show(self) -> None:
        evaluation = self._evaluation()
        row = self._row()
        title = Content.assemble(
            Content("Verdicts · ").stylize("bold"), safe(self.question_id, one_line=True, limit=40), f" · side {self.side}"
        )
        if len(self.sides) > 1:
            title = Content.assemble(title, Content("   t: the other side").stylize("dim"))
        self.query_one("#verdict-title", Static).update(title)
        body = self.query_one("#verdict-body", VerticalScroll)
        await body.remove_children()
        if row is None or not row.get("present", True):
            message = join(safe(self.question_id, one_line=True, limit=40), f" is not in run {self.side}: nothing was judged")
            await body.mount(Static(message.stylize("italic")))
            self._draw_labels()
            return
        k = self.comparison.k
        widgets = [Static(summary_content(row, self.side, evaluation.run.name, self._colour), classes="verdict-summary")]
        widgets += self._directed(row)
        said = row.get("judge_sentences") or []
        if not said:
            widgets.append(Static(Content("The judge gave no sentence verdicts for this answer.").stylize("italic")))
        focus = self.sentence or 0
        start = max(0, min(focus - 3, len(said) - WINDOW))
        self.window = range(start, min(len(said), start + WINDOW))
        if self.window.start:
            widgets.append(Static(Content(f"⋮ sentences 1–{self.window.start} above (k goes back)").stylize("dim")))
        for index in self.window:
            widgets.append(Static(sentence_content(row, index, k, self._colour), classes="verdict-sentence", id=f"verdict-sentence-{index}"))
        if self.window and self.window.stop < len(said):
            widgets.append(Static(Content(f"⋮ sentences {self.window.stop + 1}–{len(said)} below (j goes on)").stylize("dim")))
        widgets.append(Static(utility_content(row, self._colour), classes="verdict-utility"))
        jurors = jurors_of(row.get("extra"))
        if jurors:  # `ragtui judge --jury`: the other models' verdicts beside this judge's
            widgets.append(Static(jury_content(row, jurors, self._colour), classes="verdict-jury"))
        widgets.append(Static(raw_json_content(row.get("judge_json"), "Raw judge JSON"), classes="verdict-raw"))
        if row.get("human_json"):
            widgets.append(Static(raw_json_content(row.get("human_json"), "Raw human label JSON"), classes="verdict-raw"))
        await body.mount_all(widgets)
        self._mark_focus()

    def _directed(self, row: dict) -> list[Static]:
        """The detector's flags and the judge's own injection report, when there are any."""
        lines = []
        flags = side_flags(row, self._evaluation())
        if flags:
            lines.append(directed_content({self.side: flags}, False, self._colour))
        if judge_reported_injection(row):
            lines.append(Content(f"{JUDGE_DIRECTED_MARK} {JUDGE_INJECTION_LABEL} (verdicts kept as given)").stylize(f"bold {self._colour('regression')}"))
        return [Static(Content("\n").join(lines), classes="verdict-directed")] if lines else []

    def _reveal_sentence(self, index: int) -> None:
        found = self.query(f"#verdict-sentence-{index}")
        if found:
            self.query_one("#verdict-body", VerticalScroll).scroll_to_widget(found.first(), animate=False, top=True)

    # -- the person's labels (keys: TriageScreen) ---------------------------------------------

    def _count(self) -> int:
        row = self._row()
        return len((row or {}).get("judge_sentences") or []) if row and row.get("present", True) else 0

    def _mark_focus(self) -> None:
        count = self._count()
        if count and (self.sentence is None or self.sentence >= count):
            self.sentence = 0
        for index in self.window:  # only these are mounted
            for found in self.query(f"#verdict-sentence-{index}"):
                found.set_class(index == self.sentence, "-focused")
        self._draw_labels()

    def _draw_labels(self) -> None:
        labelling = self.labelling
        count = self._count()
        content = label_bar_content(
            labelling.of(self.side, self.question_id), count, self.sentence if count else None,
            sampled=self.label_sampled(), path=labelling.path(self.side),
        )
        self.query_one("#label-bar", LabelBar).update(content)

    def action_focus_sentence(self, delta: int) -> None:
        count = self._count()
        if not count:
            return
        self.sentence = max(0, min((self.sentence or 0) + delta, count - 1))
        if self.sentence in self.window:
            self._mark_focus()
            self._reveal_sentence(self.sentence)
        else:
            self.call_later(self._move_window)

    async def _move_window(self) -> None:
        """Mount the window around the focused sentence (it was outside the one mounted)."""
        await self._show()
        self.call_after_refresh(self._reveal_sentence, self.sentence)

    # -- TriageScreen -------------------------------------------------------------------------

    def triage_target(self) -> tuple[str | None, str]:
        return self.question_id, self.side

    def label_target(self) -> tuple[str, str, int | None, int] | None:
        row = self._row()
        if row is None or not row.get("present", True):
            self.notify(f"not in run {self.side}: nothing to label", severity="warning", timeout=3)
            return None
        count = self._count()
        return self.side, self.question_id, self.sentence if count else None, count

    def label_sampled(self) -> bool:
        return self.sampled_side is not None and self.side == self.sampled_side

    def label_changed(self, *, sentence_labelled: bool) -> None:
        if sentence_labelled and self.sentence is not None and self.sentence < self._count() - 1:
            self.action_focus_sentence(1)
        else:
            self._draw_labels()

    async def action_switch_side(self) -> None:
        if len(self.sides) > 1:
            self.side = "B" if self.side == "A" else "A"
            await self._show()
            self.query_one("#verdict-body", VerticalScroll).scroll_home(animate=False)

    def action_back(self) -> None:
        self.dismiss()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "switch_side" and len(self.sides) < 2:
            return False
        return True

