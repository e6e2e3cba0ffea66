"""One line under an answer: the person's labels of it, and where they are written.

`person  1✓ 2✗ ›3· 4·  utility 4  · from the queue → candidate.labels.jsonl` — a
sentence without a person's label shows `·`; the focused one carries ›. Labels drawn
from the random queue are marked as such, since only those correct the metrics.
A long answer shows the `LABEL_WINDOW` sentences around the focused one, with `…` on
the side where more are: the bar is one line, and building 5,000 entries took longer
than a key may.
"""

from __future__ import annotations

from pathlib import Path

from textual.content import Content
from textual.widgets import Static

from ragtui.core.vocabulary import CURSOR_MARK, VERDICT_FAIL, VERDICT_PASS
from ragtui.ui.content.safe_text import join, safe
from ragtui.ui.content.verdict_styles import role_style
from ragtui.ui.models.labelling import AnswerLabels

UNLABELLED = "·"
LABEL_WINDOW = 20  # sentences shown in the bar; an answer this short shows them all


def label_bar_content(labels: AnswerLabels, count: int, focused: int | None, *, sampled: bool, path: Path | None) -> Content:
    parts: list[Content | str] = [Content.styled("person ", "bold")]
    start = max(0, min((focused or 0) - LABEL_WINDOW // 4, count - LABEL_WINDOW))
    shown = range(start, min(count, start + LABEL_WINDOW))
    if shown.start:
        parts.append(Content.styled("…", "dim"))
    for index in shown:
        label = labels.sentences.get(index)
        mark = UNLABELLED if label is None else (VERDICT_PASS if label[0] else VERDICT_FAIL)
        style = "dim" if label is None else f"{role_style('pass' if label[0] else 'fail')} bold"
        lead = CURSOR_MARK if index == focused else " "
        parts += [lead, Content.styled(f"{index + 1}{mark}", style)]
    if shown.stop < count:
        parts.append(Content.styled(f" …{count}", "dim"))
    score = labels.utility[0] if labels.utility is not None else None
    parts += ["  utility ", Content.styled(f"{score:g}" if score is not None else UNLABELLED, "bold" if score is not None else "dim")]
    where = "from the queue" if sampled else "not from the queue"
    parts.append(Content.styled(f"  · {where}", "$accent" if sampled else "dim"))
    if path is not None:
        parts += [Content.styled(" → ", "dim"), safe(path.name, one_line=True, limit=24).stylize("dim")]
    parts.append(Content.styled("  keys + - 1–5 0", "dim"))
    return join(*parts)


class LabelBar(Static):
    """The person's labels of the shown answer; one line."""

    DEFAULT_CSS = """
    LabelBar {
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    """
