"""Each question's answer diff, made once per session (no Textual here).

`d` in the question view and the copy / pager / editor text "answer diff" read the
same diff: the first asks for it in a worker and keeps it here; pressing `d` again,
stepping back to the question or copying it costs nothing. An entry is for the two
answers it was made from: a comparison recomputed with other answers (a gold fix does
not change them) misses and makes it again. The last `KEPT` diffs are kept — one of a
5,000-sentence answer holds a few MB.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragtui.core.triage.diffs import AnswerDiff

KEPT = 32
# Answers this short (both together) are diffed at once, on the UI thread: the worst
# word match of 2,000 characters takes about 25 ms, and a "computing…" line that
# flashes for it would only be noise.
AT_ONCE_CHARS = 2_000


def answer_diff(a: str | None, b: str | None, *, stop: Callable[[], bool] | None = None) -> AnswerDiff:
    """`ragtui.core.triage.diffs.answer_diff`, imported at its first use: every session
    holds an `AnswerDiffs` from the app's start, and the differ is not needed to paint."""
    from ragtui.core.triage.diffs import answer_diff as diff_of

    return diff_of(a, b, stop=stop)


def made_at_once(a: str, b: str) -> bool:
    """Whether the diff of `a` into `b` is cheap enough to make without a worker."""
    return len(a) + len(b) <= AT_ONCE_CHARS


class AnswerDiffs:
    """The answer diffs made so far, by question id; safe to use from a worker thread."""

    def __init__(self) -> None:
        self._kept: OrderedDict[str, tuple[str | None, str | None, AnswerDiff]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, question_id: str, a: str | None, b: str | None) -> AnswerDiff | None:
        """The diff of A's answer `a` into B's `b`, if it was made already."""
        with self._lock:
            kept = self._kept.get(question_id)
            if kept is None or kept[0] != a or kept[1] != b:
                return None
            self._kept.move_to_end(question_id)
            return kept[2]

    def make(self, question_id: str, a: str | None, b: str | None, *, stop: Callable[[], bool] | None = None) -> AnswerDiff:
        """The diff, made now (outside the lock: it may take a second) unless kept.

        Raises:
            DiffStopped: `stop()` turned true while it was made.
        """
        diff = self.get(question_id, a, b)
        if diff is not None:
            return diff
        diff = answer_diff(a, b, stop=stop)
        with self._lock:
            self._kept[question_id] = (a, b, diff)
            self._kept.move_to_end(question_id)
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return diff
