"""What the verdict inspector shows, as Content blocks (no widgets here).

Per sentence: the judge's verdict and reason, each repetition's verdict when the run was
judged more than once (↕ marks a flip), the human label beside it when the run has
one (≠ marks a disagreement), and the evidence passages' text resolved from the
retrieved list by id. Then utility (judge and human), the judge error, and the raw
judge JSON pretty-printed — all of it literal text through `safe`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from textual.content import Content

from ragtui.core.measuring.judge_noise import score_repeats, sentence_repeats
from ragtui.core.vocabulary import DISAGREE_MARK, UNSTABLE_MARK
from ragtui.ui.models.question import passage_text
from ragtui.ui.safe_text import safe
from ragtui.ui.widgets.answer_view import evidence_content
from ragtui.ui.widgets.verdict_styles import verdict_mark

Colour = Callable[[str], str]
EVIDENCE_LIMIT = 2_000  # a passage is shown whole up to this; a whole document is cut


def summary_content(row: dict[str, Any], side: str, name: str, colour: Colour) -> Content:
    """Who judged, and the answer as the generator wrote it."""
    model = row.get("judge_model")
    lines = [
        Content.assemble(
            Content(f"Side {side} · ").stylize("bold"),
            safe(name, one_line=True, limit=40),
            " · judge ",
            safe(model, one_line=True, limit=60).stylize("bold") if model else Content("not named").stylize("italic"),
        ),
        Content.assemble(Content("Question ").stylize("bold"), safe(row.get("question") or "")),
    ]
    if row.get("abstained"):
        lines.append(Content("⊘ the system abstained").stylize(f"bold {colour('not_judged')}"))
    answer = row.get("answer")
    lines.append(Content.assemble(Content("Answer   ").stylize("bold"), safe(answer) if answer is not None else Content("none (generation failed)").stylize("italic")))
    return Content("\n").join(lines)


def _human_for(row: dict[str, Any], index: int, text: str | None) -> dict[str, Any] | None:
    """The human label of the same sentence: by text, else by position when the splits agree."""
    human = row.get("human_sentences") or []
    for item in human:
        if text is not None and item.get("text") == text:
            return item
    judge = row.get("judge_sentences") or []
    if len(human) == len(judge) and index < len(human):
        return human[index]
    return None


def sentence_content(row: dict[str, Any], index: int, k: int, colour: Colour) -> Content:
    """One judged sentence: verdicts (judge, human), reason, evidence passages with their text."""
    sentence = (row.get("judge_sentences") or [])[index]
    judged = None if row.get("judge_error") else sentence.get("attested")
    symbol, role, label = verdict_mark(judged)
    lines = [
        Content.assemble(Content(f"{symbol} {index + 1}. ").stylize(f"bold {colour(role)}"), safe(sentence.get("text")).stylize("bold")),
        Content.assemble(
            Content(f"   judge  {symbol} {label}").stylize(colour(role)),
            " — ",
            safe(sentence.get("reason")) if sentence.get("reason") else Content("no reason given").stylize("italic"),
        ),
    ]
    repeated = sentence_repeats(row, index)
    if repeated is not None:
        lines.append(_repeats_line(repeated, colour))
    human = _human_for(row, index, sentence.get("text"))
    if human is not None:
        h_symbol, h_role, h_label = verdict_mark(human.get("attested"))
        disagree = judged is not None and human.get("attested") is not None and human.get("attested") != judged
        lines.append(
            Content.assemble(
                Content(f"   human  {h_symbol} {h_label}").stylize(colour(h_role)),
                " — ",
                safe(human.get("reason")) if human.get("reason") else Content("no reason given").stylize("italic"),
                Content(f"  {DISAGREE_MARK} judge and human disagree").stylize(f"bold {colour('regression')}") if disagree else "",
            )
        )
    elif row.get("human_present"):
        lines.append(Content("   human  no label for this sentence").stylize("dim"))
    evidence = list(sentence.get("evidence") or [])
    lines.append(Content.assemble("   evidence: ", evidence_content(row, evidence, k, colour)))
    for passage in evidence:
        text = passage_text(row, passage)
        body = safe(text, limit=EVIDENCE_LIMIT) if text else Content("(no text for this passage in the run)").stylize("italic")
        lines.append(Content.assemble("     ", safe(passage, one_line=True, limit=40).stylize("bold"), ": ", body))
    return Content("\n").join(lines)


def _repeats_line(verdicts: list[bool | None], colour: Colour) -> Content:
    """`   repeats ✓ ✗ ✓ — ↕ flipped: attested in 2 of 3`, or the same verdict every time."""
    marks = " ".join(verdict_mark(v)[0] for v in verdicts)
    given = [v for v in verdicts if v is not None]
    missing = f", {len(verdicts) - len(given)} without a verdict" if len(given) < len(verdicts) else ""
    if 0 < sum(given) < len(given):
        said = f"{UNSTABLE_MARK} flipped: attested in {sum(given)} of {len(given)} repetitions{missing}"
        return Content.assemble(f"   repeats {marks} — ", Content(said).stylize(f"bold {colour('regression')}"))
    return Content(f"   repeats {marks} — the same in {len(given)} repetitions{missing}").stylize("dim")


def utility_content(row: dict[str, Any], colour: Colour) -> Content:
    """Utility and its reason (judge, and human when labelled), then the judge error."""
    lines = [Content("Utility").stylize("bold")]
    for who in ("judge", "human"):
        score, reason = row.get(f"{who}_utility"), row.get(f"{who}_utility_reason")
        if who == "human" and score is None and not reason:
            continue
        lines.append(
            Content.assemble(
                f"   {who}  ",
                Content(f"{score:g}/5" if score is not None else "–").stylize("bold"),
                " — " if reason else "",
                safe(reason or ""),
            )
        )
    scores = score_repeats(row)
    if scores is not None:
        given = [score for score in scores if score is not None]
        shown = " · ".join("–" if score is None else f"{score:g}" for score in scores)
        if len(set(given)) > 1:
            lines.append(Content.assemble(f"   repeats {shown} — ", Content(f"{UNSTABLE_MARK} the score changed").stylize(f"bold {colour('regression')}")))
        else:
            lines.append(Content(f"   repeats {shown} — the same in {len(given)} repetitions").stylize("dim"))
    judge_u, human_u = row.get("judge_utility"), row.get("human_utility")
    if judge_u is not None and human_u is not None and judge_u != human_u:
        lines.append(Content(f"   {DISAGREE_MARK} judge and human differ by {abs(judge_u - human_u):g}").stylize(colour("regression")))
    if row.get("judge_error"):
        lines.append(Content.assemble(Content("⚠ judge error: ").stylize(f"bold {colour('fail')}"), safe(row["judge_error"])))
    elif not row.get("judge_present"):
        lines.append(Content("⚠ no judge verdict in this run for this question").stylize(colour("not_judged")))
    return Content("\n").join(lines)


def raw_json_content(text: str | None, title: str) -> Content:
    """A verdict's original JSON, pretty-printed, as literal text."""
    if not text:
        return Content(f"{title}: none").stylize("dim")
    try:
        pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, TypeError):
        pretty = text
    return Content.assemble(Content(title).stylize("bold"), "\n", safe(pretty))
