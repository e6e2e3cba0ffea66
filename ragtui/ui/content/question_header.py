"""The top of the question view: which question, its gold data, and what changed A→B.

First line: id · category · status (▼ regressed — cause: retrieval) · position in the
list. Then the question, the expected answer, the gold passage ids, and the changes
`describe_changes` found ("gold p_042 fell out of the top 5"), each with ▼ (B worse),
▲ (B better) or • (neutral).
"""

from __future__ import annotations

from collections.abc import Callable

from textual.content import Content

from ragtui.core.measuring.judge_noise import QuestionNoise
from ragtui.core.vocabulary import (
    CAUSE_LABELS,
    GOLD_MARK,
    JUDGE_DIRECTED_LABEL,
    JUDGE_DIRECTED_MARK,
    STATUS_SYMBOL,
    UNSTABLE_LABEL,
    UNSTABLE_MARK,
    status_label,
)
from ragtui.ui.content.safe_text import safe
from ragtui.ui.content.verdict_styles import STATUS_ROLES
from ragtui.ui.models.question import QuestionData

Colour = Callable[[str], str]
EXPECTED_LIMIT = 400  # an expected answer is a sentence or two; a page is cut


def _label(text: str) -> Content:
    return Content(f"{text:<9}").stylize("bold")


def header_content(data: QuestionData, position: int, total: int, colour: Colour) -> Content:
    """The header block for `data`, the `position`-th (0-based) of `total` questions."""
    row = data.any_row
    first: list[Content | str] = [
        safe(data.id, one_line=True, limit=40).stylize("bold"),
        " · ",
        safe(data.category_name, one_line=True, limit=40),
    ]
    status = (data.status or {}).get("status")
    if status:
        first += [
            " · ",
            Content(f"{STATUS_SYMBOL.get(status, '?')} {status_label(status, data.two_runs)}").stylize(
                f"bold {colour(STATUS_ROLES.get(status, 'muted'))}"
            ),
        ]
        cause = (data.status or {}).get("cause")
        if cause:
            first += [" — cause: ", Content(CAUSE_LABELS.get(cause, cause)).stylize(f"bold {colour('regression')}")]
    first.append(f" · {position + 1} of {total}")
    lines = [Content.assemble(*first)]
    lines.append(Content.assemble(_label("Question"), safe(row.get("question") or "(no question text)")))
    expected = row.get("expected_answer")
    if expected:
        lines.append(Content.assemble(_label("Expected"), safe(expected, limit=EXPECTED_LIMIT)))
    gold = list(row.get("gold_passages") or [])
    gold_text: Content = (
        Content.assemble(*[part for i, g in enumerate(gold) for part in ((", " if i else ""), safe(g, one_line=True, limit=40))]).stylize(
            colour("gold")
        )
        if gold
        else Content("none: no passage holds the answer (the system should abstain)").stylize("italic")
    )
    lines.append(Content.assemble(_label("Gold"), Content(f"{GOLD_MARK} ").stylize(colour("gold")) if gold else "", gold_text))
    for side, side_row in data.rows.items():
        if side_row and side_row.get("texts_error"):  # the cache entry went away, or the run file changed, under the app
            # The message names the run file: a path is untrusted text like any other.
            lines.append(Content.assemble(_label("Texts"), safe(f"{side}: {side_row['texts_error']}", one_line=True).stylize(f"bold {colour('regression')}")))
    flagged = {side: flags for side, flags in data.flags.items() if flags}
    if flagged:
        lines.append(directed_content(flagged, data.two_runs, colour))
    unstable = {side: noise for side, noise in data.noise.items() if noise.unstable}
    if unstable:
        lines.append(unstable_content(unstable, data.two_runs, colour))
    if data.two_runs and not data.loading:  # the changes need the texts still being read
        lines.append(changes_content(data, colour))
    return Content("\n").join(lines)


def directed_content(flagged: dict, two_runs: bool, colour: Colour) -> Content:
    """`⚠ addresses the judge — B: answer (speaks to the judge)`: the detector's flags."""
    where = "; ".join(f"{side}: {flags.describe()}" if two_runs else flags.describe() for side, flags in flagged.items())
    return Content.assemble(
        _label("Judge"),
        Content(f"{JUDGE_DIRECTED_MARK} {JUDGE_DIRECTED_LABEL}").stylize(f"bold {colour('regression')}"),
        " — ",
        safe(where, limit=300),  # passage ids come from the files: untrusted
    )


def unstable_content(unstable: dict[str, QuestionNoise], two_runs: bool, colour: Colour) -> Content:
    """`↕ unstable verdict — B: 1 of 2 sentences flip, utility 4 · 2 · 4 over 3 repetitions`."""
    where = []
    for side, noise in unstable.items():
        parts = []
        if noise.flipped_sentences:
            parts.append(f"{noise.flipped_sentences} of {len(noise.sentences)} sentences flip")
        if noise.utility_flipped:
            parts.append("utility " + " · ".join(f"{score:g}" for score in noise.scores))
        text = ", ".join(parts) + f" over {noise.repeats} repetitions"
        where.append(f"{side}: {text}" if two_runs else text)
    return Content.assemble(
        _label("Judge"),
        Content(f"{UNSTABLE_MARK} {UNSTABLE_LABEL}").stylize(f"bold {colour('regression')}"),
        " — ",
        "; ".join(where) + " (v: each sentence)",
    )


def changes_content(data: QuestionData, colour: Colour) -> Content:
    """What changed from A to B, one change per line."""
    if not data.changes:
        return Content.assemble(_label("A→B"), Content("no change in retrieval, verdicts or utility").stylize("dim"))
    lines = []
    for index, change in enumerate(data.changes):
        if change.worse is True:
            mark = Content("▼ ").stylize(f"bold {colour('regression')}")
        elif change.worse is False:
            mark = Content("▲ ").stylize(f"bold {colour('improvement')}")
        else:
            mark = Content("• ")
        # Change texts name passage ids from the files: untrusted.
        lines.append(Content.assemble(_label("A→B" if index == 0 else ""), mark, safe(change.text)))
    return Content("\n").join(lines)


def tabs_content(sides: tuple[str, ...], active: str, names: dict[str, str]) -> Content:
    """The tab line naming each side, the active one marked ▶ (a narrow terminal shows it alone)."""
    parts: list[Content | str] = []
    for side in sides:
        label = Content.assemble(f" {side} · ", safe(names[side], one_line=True, limit=30), " ")
        if side == active:
            parts.append(Content.assemble("▶", label.stylize("bold reverse")))
        else:
            parts.append(Content.assemble(" ", label.stylize("dim")))
    if len(sides) > 1:
        parts.append(Content("   t switches A/B").stylize("dim"))
    return Content.assemble(*parts)
