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

from ragtui.core.judge.jury import JurorVerdict
from ragtui.core.measuring.judge_noise import score_repeats, sentence_repeats
from ragtui.core.vocabulary import DISAGREE_MARK, UNSTABLE_MARK
from ragtui.ui.models.question import passage_text
from ragtui.ui.safe_text import safe
from ragtui.ui.widgets.answer_view import evidence_content
from ragtui.ui.widgets.verdict_styles import verdict_mark

Colour = Callable[[str], str]
EVIDENCE_LIMIT = 2_000  # a passage is shown whole up to this; a whole document is cut
# The inspector draws at most this much of an answer and of a raw JSON: wrapping text costs
# time in proportion to its length (a 5,000-sentence answer is ~300,000 characters, seconds
# to lay out), and the sentences below show the answer piece by piece anyway.
ANSWER_LIMIT = 2_000
RAW_LIMIT = 4_000


def cut(text: str, limit: int | None, pager_letter: str, *, whole: bool = True) -> tuple[str, Content | None]:
    """`text` up to `limit` characters, and the line that says what was left out and where it is.

    `whole`: `text` is all of it, so the line can count what is left; else it only says
    where the text was cut (`_pretty` stops encoding past the limit).
    """
    if limit is None or len(text) <= limit:
        return text, None
    left = f"{len(text) - limit:,} more characters" if whole else f"cut after {limit:,} characters"
    return text[:limit], Content(f"\n⋮ {left} — o, then {pager_letter}: all of it in $PAGER").stylize("dim")


def summary_content(row: dict[str, Any], side: str, name: str, colour: Colour, *, answer_limit: int | None = ANSWER_LIMIT) -> Content:
    """Who judged, and the answer as the generator wrote it (its first `answer_limit` characters)."""
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
    if answer is None:
        lines.append(Content.assemble(Content("Answer   ").stylize("bold"), Content("none (generation failed)").stylize("italic")))
    else:
        shown, rest = cut(str(answer), answer_limit, "a")
        lines.append(Content.assemble(Content("Answer   ").stylize("bold"), safe(shown), rest or ""))
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


def raw_json_content(text: str | None, title: str, *, limit: int | None = RAW_LIMIT) -> Content:
    """A verdict's original JSON, pretty-printed, as literal text (its first `limit` characters)."""
    if not text:
        return Content(f"{title}: none").stylize("dim")
    try:
        pretty, whole = _pretty(json.loads(text), limit), False
    except (ValueError, TypeError):
        pretty, whole = text, True
    shown, rest = cut(pretty, limit, "v", whole=whole)
    return Content.assemble(Content(title).stylize("bold"), "\n", safe(shown), rest or "")


def _pretty(value: Any, limit: int | None) -> str:
    """`value` as indented JSON, encoded only as far as `limit` needs (plus one character).

    The indented encoder is a generator: stopping early keeps a 5,000-sentence verdict's
    cost to the part drawn. The line past the cut then says "more characters" without
    a count, since the rest was never encoded.
    """
    chunks: list[str] = []
    size = 0
    for chunk in json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(value):
        chunks.append(chunk)
        size += len(chunk)
        if limit is not None and size > limit:
            break
    return "".join(chunks)


def jury_content(row: dict[str, Any], jurors: list[JurorVerdict], colour: Colour) -> Content:
    """`ragtui judge --jury`: every juror's verdict on each sentence and the utility, side by side
    (≠ where they differ), the first column being the run's own judge."""
    first = [s.get("attested") for s in row.get("judge_sentences") or []]
    models = [str(row.get("judge_model") or "judge"), *(juror.model for juror in jurors)]
    width = max(8, *(min(len(model), 20) for model in models))
    header = Content.assemble("   #  ", *(safe(model, one_line=True, limit=20).pad_right(width - min(len(model), 20) + 2) for model in models))
    lines = [Content("Jury · side by side").stylize("bold"), header.stylize("dim")]
    for index in range(max([len(first), *(len(juror.attested) for juror in jurors)], default=0)):
        said = [first[index] if index < len(first) else None, *(j.attested[index] if index < len(j.attested) else None for j in jurors)]
        cells = []
        for attested in said:
            symbol, role, _ = verdict_mark(attested)
            cells.append(Content(symbol.ljust(width + 2)).stylize(colour(role)))
        differ = len({value for value in said if value is not None}) > 1
        lines.append(Content.assemble(f"   {index + 1:<3}", *cells, Content(DISAGREE_MARK).stylize(colour("regression")) if differ else ""))
    scores = [row.get("judge_utility"), *(juror.utility for juror in jurors)]
    shown = [("–" if score is None else f"{score:g}").ljust(width + 2) for score in scores]
    differ = len({score for score in scores if score is not None}) > 1
    lines.append(Content.assemble("   u  ", *shown, Content(DISAGREE_MARK).stylize(colour("regression")) if differ else ""))
    for juror in jurors:
        if juror.error:
            lines.append(Content.assemble("   ", safe(juror.model, one_line=True, limit=20), ": ", safe(juror.error, one_line=True, limit=120)).stylize("italic"))
    return Content("\n").join(lines)
