"""The texts of one question a person may want outside ragtui (no Textual here).

`y` copies one of them, `o` shows it in $PAGER, `e` in $EDITOR: the id, the question,
the active side's answer, its retrieved passages in full, the record as JSON (what the
run file holds for this question, judge verdict included), the raw judge JSON, and a
command that reopens ragtui on this question.

Each text is made when it is picked, not when the menu opens (and then in a worker,
`TriageScreen`): the record as JSON and the answer diff of a 5,000-sentence answer take
most of a second to build, and the menu shows only labels. The answer diff is the one
`d` made, when it did (`AnswerDiffs`).
"""

from __future__ import annotations

import functools
import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragtui.core.comparing.compare import Comparison
from ragtui.core.triage.diffs import plain_diff
from ragtui.ui.models.answer_diffs import AnswerDiffs, made_at_once
from ragtui.ui.models.question import judge_record_input, retrieved
from ragtui.ui.models.question_rows import QuestionRows


@dataclass(frozen=True)
class QuestionText:
    """One text of a question: a key for tests and keymaps, a label for the menu, how to
    make the text, and whether that may be slow (then it is made in a worker)."""

    key: str
    label: str
    make: Callable[[], str]
    slow: bool = False

    @functools.cached_property
    def text(self) -> str:
        """The text, made on first use."""
        return self.make()


# A record or passages text of a row holding more than this many characters is made in a
# worker: its JSON takes most of a second at 5,000 judged sentences, and milliseconds here.
MADE_AT_ONCE_CHARS = 20_000


def _large(row: dict[str, Any]) -> bool:
    texts = [row.get("answer") or "", row.get("judge_json") or "", *(row.get("retrieved_texts") or [])]
    return sum(len(text or "") for text in texts) > MADE_AT_ONCE_CHARS


def _given(text: str) -> Callable[[], str]:
    return lambda: text


def passages_text(row: dict[str, Any]) -> str:
    """Every retrieved passage in full, best first: `#1 p_042 (0.93)` then its text."""
    blocks = []
    for rank, passage, text, score in retrieved(row):
        score_text = f" ({score:.2f})" if score is not None else ""
        blocks.append(f"#{rank} {passage}{score_text}\n{text or '(no text)'}")
    return "\n\n".join(blocks)


def record_json(row: dict[str, Any]) -> str:
    """The question's record as the run file would hold it, judge verdict included."""
    record, _gold = judge_record_input(row)
    if row.get("judge_json"):
        try:
            record["judge"] = json.loads(row["judge_json"])
        except (TypeError, ValueError):
            record["judge"] = row["judge_json"]
    return json.dumps(record, ensure_ascii=False, indent=2)


def answer_diff_text(question_id: str, a: str, b: str, diffs: AnswerDiffs) -> str:
    """A's answer `a` turned into B's `b`, in git's word-diff notation (`diffs`: made once a question)."""
    return plain_diff(diffs.make(question_id, a, b).pieces)


def reopen_command(comparison: Comparison, question_id: str, inputs: Any = None) -> str:
    """`ragtui A B --question q046` with the files this session was opened on."""
    parts = ["ragtui"]
    if comparison.b is None:
        parts += ["open", str(comparison.a.run.path)]
    else:
        parts += [str(comparison.a.run.path), str(comparison.b.run.path)]
    gold = getattr(inputs, "gold", None)
    config = getattr(inputs, "config", None) or comparison.config.path
    if gold:
        parts += ["--gold", str(gold)]
    if config:
        parts += ["--config", str(Path(config))]
    parts += ["--question", question_id]
    return shlex.join(parts)


def question_texts(
    comparison: Comparison, question_id: str, side: str, inputs: Any = None, diffs: AnswerDiffs | None = None,
    rows: dict[str, dict[str, Any] | None] | None = None, read: QuestionRows | None = None,
) -> list[QuestionText]:
    """What `y`, `o` and `e` offer for `question_id`, seen from `side` (`diffs`: the
    session's answer diffs, None for a fresh set; `rows`: the question's rows by side the
    screen holds already, each read otherwise — through `read`, the session's rows read
    so far, when given)."""
    kept = diffs if diffs is not None else AnswerDiffs()
    reader = read if read is not None else QuestionRows()
    given = rows or {}

    def row_of(which: str) -> dict[str, Any] | None:
        if which in given:
            return given[which]
        evaluation = comparison.a if which == "A" else comparison.b
        return reader.row(evaluation, question_id) if evaluation is not None else None

    row = row_of("A" if side == "A" or comparison.b is None else "B") or {"id": question_id}
    present = row.get("present", True) and "retrieved_ids" in row
    texts = [
        QuestionText("id", "id", _given(question_id)),
        QuestionText("question", "question", _given(row.get("question") or "")),
    ]
    if present:
        texts += [
            QuestionText("answer", f"answer ({side})", _given(row.get("answer") or "")),
            QuestionText("passages", f"retrieved passages ({side}, full text)", lambda: passages_text(row), slow=_large(row)),
            QuestionText("record", f"record as JSON ({side})", lambda: record_json(row), slow=_large(row)),
        ]
        if comparison.b is not None:
            texts.append(_diff_text(question_id, given, row_of, kept))
        if row.get("judge_json"):
            texts.append(QuestionText("verdict", f"raw judge JSON ({side})", _given(row["judge_json"])))
    texts.append(QuestionText("command", "command that reopens this question", lambda: reopen_command(comparison, question_id, inputs)))
    return texts


def _diff_text(question_id: str, given: dict[str, Any], row_of: Callable[[str], dict[str, Any] | None], diffs: AnswerDiffs) -> QuestionText:
    """The answer diff: made at once from short answers the screen holds; otherwise (long
    answers, or a side still to read) in a worker."""

    def answer(which: str) -> str:
        return (row_of(which) or {}).get("answer") or ""

    def make() -> str:
        return answer_diff_text(question_id, answer("A"), answer("B"), diffs)

    slow = not ("A" in given and "B" in given and made_at_once(answer("A"), answer("B")))
    return QuestionText("diff", "answer diff, A → B ([-removed-] {+added+})", make, slow=slow)
