"""The answer of one side, sentence by sentence with the judge's verdict, as Content.

Each judged sentence carries ✓ (attested), ✗ (not attested) or ? (not judged) and the
matching colour; the focused sentence carries › and its reason and evidence are spelled
out by `sentence_detail`. An answer the judge did not split (no verdict, a judge
error) is shown whole with ?, never as attested.

Only a window of sentences around the focused one is drawn (`WINDOW_BEFORE` above,
`WINDOW_AFTER` below, the rest summarised in one line each side): a 5,000-sentence
answer costs what a 50-sentence one does, whatever the key. Each sentence is wrapped
to the panel with a hanging indent, so its number and verdict stand out at the left.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.content import Content

from ragtui.core.vocabulary import CURSOR_MARK, GOLD_MARK, VERDICT_UNKNOWN
from ragtui.ui.content.safe_text import safe
from ragtui.ui.content.verdict_styles import verdict_mark
from ragtui.ui.models.question import passage_rank

Colour = Callable[[str], str]
WINDOW_BEFORE, WINDOW_AFTER = 8, 40  # sentences drawn around the focused one


def hang(lead: Content, body: Content, width: int | None) -> Content:
    """`lead` then `body`, wrapped to `width` with every further line under the body's start."""
    indent = lead.cell_length
    if width is None or width - indent < 12:
        return Content.assemble(lead, body)
    lines = body.wrap(width - indent) or [Content("")]
    pad = " " * indent
    return Content("\n").join([Content.assemble(lead, lines[0]), *[Content.assemble(pad, line) for line in lines[1:]]])


def sentence_window(count: int, focused: int | None) -> range:
    """The sentences drawn for a focus: a few before it, more after."""
    start = max(0, min((focused or 0) - WINDOW_BEFORE, count - WINDOW_BEFORE - WINDOW_AFTER))
    return range(start, min(count, start + WINDOW_BEFORE + WINDOW_AFTER))


def sentences(row: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The judge's sentences of a row ([] when there is no verdict)."""
    return list((row or {}).get("judge_sentences") or [])


def _attested(row: dict[str, Any], sentence: dict[str, Any]) -> bool | None:
    # A judge that reported an error judged nothing, whatever else it wrote.
    return None if row.get("judge_error") else sentence.get("attested")


def answer_content(row: dict[str, Any] | None, focused: int | None, colour: Colour, width: int | None = None) -> tuple[Content, tuple[int, int]]:
    """The answer block (header, abstention, sentences with verdicts, utility, judge error),
    and the focused sentence's (first line, line count) in it, wrapped at `width`; (0, 1) if none."""
    if row is None or not row.get("present", True):
        return Content("missing from this run: no answer, counted as a failure").stylize(f"bold {colour('fail')}"), (0, 1)
    said = sentences(row)
    # The core counted them (n_attested); counting 5,000 sentences again on each key is not free.
    n_ok = row["n_attested"] if row.get("n_attested") is not None else sum(1 for s in said if _attested(row, s))
    header: list[Content | str] = [Content("Answer").stylize("bold")]
    if said and not row.get("judge_error"):
        header.append(f" · {n_ok} of {len(said)} sentences attested")
    lines: list[Content] = [Content.assemble(*header)]
    focus = (0, 1)
    if row.get("abstained"):
        lines.append(Content("⊘ abstained (said it cannot find the information)").stylize(f"bold {colour('not_judged')}"))
    if row.get("answer") is None:
        lines.append(Content("no answer: generation failed").stylize(f"italic {colour('fail')}"))
    elif said:
        window = sentence_window(len(said), focused)
        if window.start:
            lines.append(Content(f"  ⋮ sentences 1–{window.start} above (k goes back)").stylize("dim"))
        digits = len(str(len(said)))
        for index in window:
            sentence = said[index]
            symbol, role, _ = verdict_mark(_attested(row, sentence))
            is_focused = index == focused
            lead = Content(f"{CURSOR_MARK if is_focused else ' '} {symbol} {index + 1:>{digits}}. ").stylize(f"bold {colour(role)}")
            text = safe(sentence.get("text")).stylize(colour(role))
            line = hang(lead, text.stylize("bold underline") if is_focused else text, width)
            if is_focused:
                focus = (sum(drawn.plain.count("\n") + 1 for drawn in lines), line.plain.count("\n") + 1)
            lines.append(line)
        if window.stop < len(said):
            lines.append(Content(f"  ⋮ sentences {window.stop + 1}–{len(said)} below (j goes on)").stylize("dim"))
    else:
        lead = Content(f"  {VERDICT_UNKNOWN} ").stylize(f"bold {colour('not_judged')}")
        lines.append(Content.assemble(hang(lead, safe(row.get("answer")), width), Content("  (not judged)").stylize("italic")))
    lines += _utility_lines(row, colour)
    return Content("\n").join(lines), focus


def _utility_lines(row: dict[str, Any], colour: Colour) -> list[Content]:
    lines = []
    if row.get("system_error"):  # the system under test failed on this question (`ragtui run`)
        lines.append(Content.assemble(Content("⚠ system error: ").stylize(f"bold {colour('fail')}"), safe(row["system_error"])))
    score = row.get("judge_utility")
    if score is not None:
        reason = row.get("judge_utility_reason")
        parts: list[Content | str] = [Content(f"Utility {score:g}/5").stylize("bold")]
        if reason:
            parts += [" — ", safe(reason)]
        lines.append(Content.assemble(*parts))
    if row.get("judge_error"):
        lines.append(Content.assemble(Content("⚠ judge error: ").stylize(f"bold {colour('fail')}"), safe(row["judge_error"])))
    elif row.get("judge_failed"):
        lines.append(Content("⚠ no usable verdict from the judge (counted as a judge error)").stylize(colour("fail")))
    model = row.get("judge_model")
    if model:
        lines.append(Content.assemble(Content("judge ").stylize("dim"), safe(model, one_line=True, limit=60).stylize("dim")))
    return lines


def evidence_content(row: dict[str, Any], evidence: list[str] | None, k: int, colour: Colour) -> Content:
    """'p_042 (rank 1, ★ gold), p_099 (not in the retrieved list)'."""
    if not evidence:
        return Content("none cited")
    gold = set(row.get("gold_passages") or [])
    parts: list[Content | str] = []
    for index, passage in enumerate(evidence):
        if index:
            parts.append(", ")
        rank = passage_rank(row, passage)
        where = "not in the retrieved list" if rank is None else f"rank {rank}" + (f", beyond the top {k}" if rank > k else "")
        pid = safe(passage, one_line=True, limit=40)
        if passage in gold:
            parts += [pid.stylize(f"bold {colour('gold')}"), f" ({where}, {GOLD_MARK} gold)"]
        else:
            parts += [pid, f" ({where})"]
    return Content.assemble(*parts)


def sentence_detail(row: dict[str, Any] | None, focused: int | None, k: int, colour: Colour) -> Content:
    """The focused sentence's verdict, the judge's reason and the evidence ids."""
    said = sentences(row)
    if row is None or not said or focused is None:
        return Content("no judged sentence to inspect (v opens the verdict inspector)").stylize("dim")
    focused = max(0, min(focused, len(said) - 1))
    sentence = said[focused]
    symbol, role, label = verdict_mark(_attested(row, sentence))
    reason = sentence.get("reason")
    return Content.assemble(
        Content(f"sentence {focused + 1} of {len(said)} {symbol} {label}").stylize(f"bold {colour(role)}"),
        " — reason: ",
        safe(reason) if reason else Content("none given").stylize("italic"),
        "\nevidence: ",
        evidence_content(row, sentence.get("evidence"), k, colour),
    )
