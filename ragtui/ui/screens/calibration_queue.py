"""`L`: the calibration queue — a run's unlabelled answers in a seeded random order.

The question view, opened on the queue's answers (`ragtui.core.measuring.calibration_queue`)
for one run (B when there are two): the person labels each answer's sentences (`+` / `-`,
the focus moving on by itself) and its utility (`1`–`5`); once an answer carries every
label, the queue moves to the next. Labels made here, on the queue's run, carry
`"sampled": true` — only they correct the metrics. A banner says where one is in the queue.
Once the correction is stratified, the label plan's next category comes first (read from the
labels as they are when the queue opens), and the queue says so as it opens.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.content import Content
from textual.widgets import Static

from ragtui.core.calibration_words import queue_plan_text
from ragtui.core.comparing.compare import Comparison, relabelled
from ragtui.core.measuring.calibration_queue import QUEUE_SEED, answer_done, pending, plan_category
from ragtui.ui.content.answer_view import sentences
from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.models.session import Session
from ragtui.ui.screens.question import QuestionScreen


def queue_side(comparison: Comparison) -> str:
    """The run under review: B when there are two runs, else A."""
    return "B" if comparison.b is not None else "A"


class CalibrationQueueScreen(QuestionScreen):
    """The question view on the queue of one run; its labels are `sampled`."""

    # Room in an 80-column footer for the label keys: the passage and re-judge keys still
    # work, listed in `?` only.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "all_passages", "passages", show=False, id="queue.all_passages"),
        Binding("J", "rejudge", "re-judge", show=False, id="queue.rejudge"),
    ]
    DEFAULT_CSS = """
    CalibrationQueueScreen #queue-banner {
        height: 1;
        padding: 0 1;
        background: $accent 20%;  /* ≥ 4.5:1 under its text at every colour depth (test_contrast.py) */
        text-style: bold;
    }
    """

    def __init__(
        self, comparison: Comparison, question_ids: list[str], side: str, *, session: Session | None = None, planned: str | None = None
    ) -> None:
        self.queue_side = side
        self.labelled_here = 0
        self.planned = planned  # the label plan's category, offered first; None: the proportional order
        super().__init__(comparison, question_ids, 0, session=session)
        self.set_reactive(QuestionScreen.side, side)
        self.sentence_at = self._first_focus()

    @classmethod
    def for_comparison(cls, comparison: Comparison, session: Session) -> CalibrationQueueScreen | None:
        """The queue of the run under review, or None when every answer of it is labelled."""
        side = queue_side(comparison)
        evaluation = comparison.a if side == "A" else comparison.b
        assert evaluation is not None
        labels = session.labelling_of(comparison).labels
        # The plan of the labels as they are now, not as they were at the load.
        planned = plan_category([corrected.runs[side] for corrected in relabelled(comparison, labels).corrected.values()])
        ids = pending(evaluation.questions, labels[side], QUEUE_SEED, first=planned)
        return cls(comparison, ids, side, session=session, planned=planned) if ids else None

    def on_mount(self) -> None:
        super().on_mount()
        if self.planned is not None:
            self.say(queue_plan_text(self.comparison.config.category_name(self.planned)), timeout=4)

    def compose(self) -> ComposeResult:
        yield Static(id="queue-banner")
        yield from super().compose()

    def _first_focus(self) -> dict[str, int]:
        """The first sentence without a person's label: where the labelling goes on."""
        if not hasattr(self, "queue_side"):
            return super()._first_focus()
        labelling = self.labelling
        focus = {}
        for side in self.sides:
            said = sentences(self.data.rows.get(side))
            done = labelling.of(side, self.data.id).sentences
            focus[side] = next((i for i in range(len(said)) if i not in done), 0)
        return focus

    def _show_the_cause(self) -> None:
        """The answer is what one labels: bring it into view, whatever the cause."""
        for side in self.sides:
            self._side(side).reveal_answer()

    def redraw(self, *, reset_scroll: bool = False) -> None:
        super().redraw(reset_scroll=reset_scroll)
        side_name = self.data.names.get(self.queue_side, "")
        banner = join(
            f"Calibration queue · run {self.queue_side} ",
            safe(side_name, one_line=True, limit=20),
            f" · {self.index + 1} of {len(self.question_ids)} · {self.labelled_here} labelled now · seed {QUEUE_SEED}",
        )
        if self.side != self.queue_side:
            banner = join(banner, Content.styled(f" · run {self.side}: labels not sampled", "$warning"))
        self.query_one("#queue-banner", Static).update(banner)

    def label_sampled(self) -> bool:
        return self.side == self.queue_side

    def label_changed(self, *, sentence_labelled: bool) -> None:
        if self.side == self.queue_side and self._answer_done():
            self.labelled_here += 1
            if self.index + 1 < len(self.question_ids):
                self.say(f"{self.question_id} labelled · on to the next answer", timeout=2)
                self.action_step(1)
                return
            self.say("last answer of the queue labelled", timeout=4)
            self.redraw()
            return
        super().label_changed(sentence_labelled=sentence_labelled)

    def _answer_done(self) -> bool:
        row = self.data.rows.get(self.queue_side)
        if row is None:
            return False
        return answer_done(row, self.labelling.labels[self.queue_side])

    def sampled_side(self) -> str | None:
        return self.queue_side
