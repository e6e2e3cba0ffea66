"""Re-judge one question with the configured judge, and show the new verdict beside the old.

The judge lives in `ragtui.core.judge` (`judge_record`, async, never raises for a
failed call). Its settings come from the `judge:` section of ragtui.yaml, exactly as
`ragtui judge --config` reads them; with no such section the key explains how to set
one up (`provider: lexical` judges offline, with no model and no network). The new
`judge` object is normalised by the core's own record normaliser, so the view reads
the same columns for the old and the new verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.content import Content

from ragtui.core.comparing.compare import Comparison
from ragtui.core.errors import InputError
from ragtui.ui.content.safe_text import safe
from ragtui.ui.content.verdict_styles import verdict_mark
from ragtui.ui.models.question import judge_record_input

NOT_CONFIGURED = (
    "No judge configured: add a `judge:` section to ragtui.yaml "
    "(e.g. `judge: {provider: lexical}` to judge offline) and reopen."
)


class JudgeUnavailable(Exception):
    """Re-judging cannot start; the message says why, for a notification."""


@dataclass(frozen=True)
class Rejudged:
    """A new verdict for one question and side, in the canonical judge_* columns."""

    model: str | None
    sentences: list[dict[str, Any]]
    utility: float | None
    utility_reason: str | None
    error: str | None


def judge_settings(comparison: Comparison) -> Any:
    """The JudgeSettings of this comparison's config; raises JudgeUnavailable."""
    section = comparison.config.extra.get("judge")
    if not section:
        raise JudgeUnavailable(NOT_CONFIGURED)
    from ragtui.core.judge import JudgeSettings

    mapping = {"judge": section, "k": comparison.k, "fallback_phrases": list(comparison.config.fallback_phrases)}
    try:
        return JudgeSettings.from_config(mapping).validated()
    except InputError as exc:
        raise JudgeUnavailable(f"Judge settings: {exc}") from None


async def rejudge(row: dict[str, Any], settings: Any) -> Rejudged:
    """Judge one row again (call from an async worker)."""
    from ragtui.core.judge import judge_record
    from ragtui.core.loading.normalize import normalize_run_record

    record, gold = judge_record_input(row)
    try:
        judge = await judge_record(record, settings, gold=gold)
    except InputError as exc:
        raise JudgeUnavailable(f"Judge settings: {exc}") from None
    problems: list = []
    canonical = normalize_run_record(Path("re-judge"), 0, {"id": row["id"], "judge": judge}, problems) or {}
    return Rejudged(
        model=canonical.get("judge_model"),
        sentences=list(canonical.get("judge_sentences") or []),
        utility=canonical.get("judge_utility"),
        utility_reason=canonical.get("judge_utility_reason"),
        error=canonical.get("judge_error") or ("; ".join(p.message for p in problems if p.is_error) or None),
    )


def rejudged_content(row: dict[str, Any] | None, new: Rejudged, colour: Callable[[str], str]) -> Content:
    """The new verdict beside the old one: 'old ✓ → new ✗  2. sentence'."""
    title = Content.assemble(Content("Re-judged").stylize("bold"), " by ", safe(new.model or "the judge", one_line=True, limit=50))
    lines = [title]
    if new.error:
        lines.append(Content.assemble(Content("⚠ judge error: ").stylize(f"bold {colour('fail')}"), safe(new.error)))
        return Content("\n").join(lines)
    old = {s.get("text"): s.get("attested") for s in (row or {}).get("judge_sentences") or []}
    old_error = bool((row or {}).get("judge_error"))
    for index, sentence in enumerate(new.sentences, start=1):
        before = None if old_error else old.get(sentence.get("text"))
        old_symbol, old_role, _ = verdict_mark(before)
        new_symbol, new_role, _ = verdict_mark(sentence.get("attested"))
        changed = " (changed)" if before is not None and before != sentence.get("attested") else ""
        lines.append(
            Content.assemble(
                Content(f"  old {old_symbol}").stylize(colour(old_role)),
                " → ",
                Content(f"new {new_symbol}").stylize(f"bold {colour(new_role)}"),
                f" {index}. ",
                safe(sentence.get("text")),
                Content(changed).stylize("italic"),
            )
        )
        if sentence.get("reason"):
            lines.append(Content.assemble("      reason: ", safe(sentence["reason"])))
    if new.utility is not None:
        old_utility = (row or {}).get("judge_utility")
        before = f"{old_utility:g}" if old_utility is not None else "–"
        lines.append(Content.assemble(f"Utility {before} → {new.utility:g}", " — " if new.utility_reason else "", safe(new.utility_reason or "")))
    return Content("\n").join(lines)
