"""The person's label keys, shared by the question view and the verdict inspector.

`+` / `-` mark the focused sentence attested / not attested by a person, `1`–`5` set the
person's utility, `0` clears the focused sentence's label (or, on an answer without a
labelled sentence there, the utility). Each key appends one event to the labels file at
once (`ragtui.ui.models.labelling`). A screen using these keys adds `LABEL_BINDINGS` to
its own and provides the `label_*` hooks below.
"""

from __future__ import annotations

from textual.binding import Binding

from ragtui.core.sanitize import neutralize
from ragtui.ui.models.labelling import Labelling, LabelsUnwritable, labelling_of

_PERSON = Binding.Group("person", compact=True)

LABEL_BINDINGS = [
    Binding("plus", "label_sentence(True)", "attested", key_display="+", group=_PERSON, id="label.attested",
            tooltip="Person: the focused sentence is attested by the passages"),
    Binding("minus", "label_sentence(False)", "not attested", key_display="-", group=_PERSON, id="label.not_attested",
            tooltip="Person: the focused sentence is not attested"),
    Binding("1", "label_utility(1)", "utility 1–5", key_display="1–5", group=_PERSON, id="label.utility_1",
            tooltip="Person: the answer's utility, 1 (useless) to 5"),
    *[Binding(str(n), f"label_utility({n})", f"utility {n}", show=False, id=f"label.utility_{n}") for n in range(2, 6)],
    Binding("0", "label_clear", "clear", key_display="0", group=_PERSON, id="label.clear",
            tooltip="Clear the person's label of the focused sentence (else of the utility)"),
]


class LabelKeys:
    """Actions of the label keys; the screen says what is focused and redraws after."""

    # -- hooks the screen provides ---------------------------------------------------------

    def label_target(self) -> tuple[str, str, int | None, int] | None:
        """(side, question id, focused sentence or None, sentence count), or None: nothing to label."""
        raise NotImplementedError

    def label_sampled(self) -> bool:
        """True when labels made here are drawn from the random queue."""
        return False

    def label_changed(self, *, sentence_labelled: bool) -> None:
        """Redraw after a label; `sentence_labelled` when a sentence just got a label."""

    # -- actions ---------------------------------------------------------------------------

    def _labelling(self) -> Labelling:
        return labelling_of(self.app, self.comparison)  # type: ignore[attr-defined]

    def _write(self, write) -> bool:
        try:
            write()
        except LabelsUnwritable as exc:
            self.notify(neutralize(str(exc)), title="Labels not saved", severity="error", timeout=10, markup=False)  # type: ignore[attr-defined]
            return False
        return True

    def action_label_sentence(self, attested: bool) -> None:
        target = self.label_target()
        if target is None:
            return
        side, question_id, sentence, count = target
        if sentence is None or count == 0:
            self.notify("no judged sentence to label here: set the utility (1–5)", timeout=3)  # type: ignore[attr-defined]
            return
        labelling = self._labelling()
        if self._write(lambda: labelling.sentence(side, question_id, sentence, attested, sampled=self.label_sampled())):
            self.label_changed(sentence_labelled=True)

    def action_label_utility(self, score: int) -> None:
        target = self.label_target()
        if target is None:
            return
        side, question_id, _, _ = target
        labelling = self._labelling()
        if self._write(lambda: labelling.utility(side, question_id, float(score), sampled=self.label_sampled())):
            self.label_changed(sentence_labelled=False)

    def action_label_clear(self) -> None:
        target = self.label_target()
        if target is None:
            return
        side, question_id, sentence, _ = target
        labelling = self._labelling()
        said = labelling.of(side, question_id)
        if sentence is not None and sentence in said.sentences:
            done = self._write(lambda: labelling.sentence(side, question_id, sentence, None, sampled=self.label_sampled()))
        elif said.utility is not None:
            done = self._write(lambda: labelling.utility(side, question_id, None, sampled=self.label_sampled()))
        else:
            self.notify("no person's label here to clear", timeout=2)  # type: ignore[attr-defined]
            return
        if done:
            self.label_changed(sentence_labelled=False)
