"""Each question's rows with their texts, read once per session (no Textual here).

A JSONL run opened lean keeps its texts in the run file (`line_texts.LineTexts`): the
question view reads a question's line back when it shows it, about a second a side for
a 5,000-sentence answer. A row whose line is longer than `AT_ONCE_BYTES` is read in a
worker (the view says "loading the question…" meanwhile); shorter ones, the usual case,
at once, as they always were. What was read is kept here, for the rows the evaluation
it came from holds: a return to the question, `v` and the copy menu cost nothing. The
last `KEPT` rows are kept, of which `KEPT_HEAVY` heavy ones at most: a 5,000-sentence
row holds a few MB and 10,000 containers, which every full garbage collection walks.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the session imports this module before the load has imported polars
    from ragtui.core.measuring.evaluate import Evaluation

KEPT = 32
# A row judged in more sentences than this is heavy (a dict and a list a sentence), and
# at most `KEPT_HEAVY` heavy rows are kept (four questions of two runs): with 32 questions
# of 5,000 sentences kept, each full collection took 208 ms of CPU; with four, 9 ms.
HEAVY_SENTENCES = 500
KEPT_HEAVY = 8
# A row whose line in the run file is longer than this is read in a worker: about 500
# judged sentences, read back in 10–100 ms (8 MB/s idle, much less on a busy machine).
AT_ONCE_BYTES = 100_000


def line_bytes(evaluation: Evaluation, question_id: str) -> int:
    """The length of `question_id`'s line in a lean JSONL run (0: its texts are in memory
    or in the run cache, or it is not in the run)."""
    from ragtui.core.loading.line_texts import LineTexts

    run = evaluation.run
    if not isinstance(run.texts, LineTexts):
        return 0
    found = (run.frame.get_column("id") == question_id).arg_true()
    if not len(found):
        return 0
    start, stop = run.texts.span(int(found[0]))
    return stop - start


def heavy(row: dict[str, Any] | None) -> bool:
    """Whether a row is judged in more than `HEAVY_SENTENCES` sentences."""
    return row is not None and len(row.get("judge_sentences") or ()) > HEAVY_SENTENCES


class QuestionRows:
    """The rows read so far, by (evaluation, question id); safe to use from a worker thread."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[int, str], tuple[Evaluation, dict[str, Any] | None]] = OrderedDict()
        self._lock = threading.Lock()

    def kept(self, evaluation: Evaluation, question_id: str) -> bool:
        with self._lock:
            found = self._kept.get((id(evaluation), question_id))
            return found is not None and found[0] is evaluation

    def at_once(self, evaluation: Evaluation, question_id: str) -> bool:
        """Whether the row is cheap to have now: kept already, or a short line to read."""
        return self.kept(evaluation, question_id) or line_bytes(evaluation, question_id) <= AT_ONCE_BYTES

    def row(self, evaluation: Evaluation, question_id: str) -> dict[str, Any] | None:
        """`evaluation.question(question_id)`, read now (outside the lock) unless kept."""
        key = (id(evaluation), question_id)
        with self._lock:
            found = self._kept.get(key)
            if found is not None and found[0] is evaluation:
                self._kept.move_to_end(key)
                return found[1]
        row = evaluation.question(question_id)
        with self._lock:
            self._kept[key] = (evaluation, row)
            self._kept.move_to_end(key)
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
            heavy_keys = [kept for kept, (_, found) in self._kept.items() if heavy(found)]  # oldest first
            for kept in heavy_keys[: max(0, len(heavy_keys) - KEPT_HEAVY)]:
                del self._kept[kept]
        return row
