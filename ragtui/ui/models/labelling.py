"""The people's labels while the app runs: what each key writes, and where (no Textual here).

One `Labelling` per app, over the labels the core loaded with the comparison
(`Comparison.labels`): each key appends one event to the run's labels file (flushed at
once, `ragtui.core.loading.label_writer.LabelWriter`) and updates the labels in memory, so the
calibration screen and the reports read the same thing. A file that cannot be written
raises `LabelsUnwritable`, whose message names `--labels`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ragtui.core.comparing.compare import Comparison
from ragtui.core.loading.inputs import default_labels_path
from ragtui.core.loading.label_writer import LabelsUnwritable, LabelWriter, writable_problem
from ragtui.core.loading.labels import RunLabels, judged_sentence_texts

__all__ = ["AnswerLabels", "Labelling", "LabelsUnwritable"]


@dataclass(frozen=True)
class AnswerLabels:
    """One answer's labels on one side: sentence index → (attested, sampled), and utility."""

    sentences: dict[int, tuple[bool, bool]]
    utility: tuple[float, bool] | None


class Labelling:
    """The labels of both sides and the writers that append to their files."""

    def __init__(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.labels: dict[str, RunLabels] = dict(comparison.labels)
        sides = {"A": comparison.a, **({"B": comparison.b} if comparison.b is not None else {})}
        for side, evaluation in sides.items():
            if side not in self.labels:
                self.labels[side] = RunLabels(evaluation.run.name, default_labels_path(evaluation.run.path))
        self._writers: dict[Path, LabelWriter] = {}
        self.version = 0  # bumped at each label: screens redraw what depends on it

    def path(self, side: str) -> Path | None:
        return self.labels[side].path

    def problem(self, side: str) -> str | None:
        """Why this side's labels cannot be written, before the first key is pressed."""
        path = self.path(side)
        return "no labels file for this run" if path is None else writable_problem(path)

    def of(self, side: str, question_id: str) -> AnswerLabels:
        sentences, utility = self.labels[side].of_answer(question_id)
        return AnswerLabels(sentences, utility)

    def _writer(self, side: str) -> LabelWriter:
        path = self.path(side)
        if path is None:
            raise LabelsUnwritable("no labels file for this run: start ragtui with --labels FILE")
        if path not in self._writers:
            self._writers[path] = LabelWriter(path)
        return self._writers[path]

    def sentence(self, side: str, question_id: str, index: int, human: bool | None, *, sampled: bool) -> None:
        """Mark sentence `index` attested (True) / not attested (False), or clear it (None).

        The event remembers the sentence's text (as a hash): a label made on it never pairs
        with another sentence after the run is judged again."""
        texts = judged_sentence_texts(self.comparison.evaluations[side], {question_id}).get(question_id, [])
        text = texts[index] if index < len(texts) else None
        self._writer(side).record(self.labels[side], question_id, sentence=index, human=human, sampled=sampled, text=text)
        self.version += 1

    def utility(self, side: str, question_id: str, score: float | None, *, sampled: bool) -> None:
        """Set the person's utility 1–5, or clear it (None)."""
        self._writer(side).record(self.labels[side], question_id, utility=score, sampled=sampled)
        self.version += 1

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()


def labelling_of(app: object, comparison: Comparison) -> Labelling:
    """The app's one `Labelling`, made at first use."""
    found = getattr(app, "labelling", None)
    if found is None or found.comparison is not comparison:
        found = Labelling(comparison)
        app.labelling = found  # type: ignore[attr-defined]
    return found
