"""A run's identity card (name, date, models, k, counts) and the comparison's warnings.

Names, dates, system descriptions and model names come from the run files: each goes
through `safe` so markup such as `[@click=…]` and terminal escapes show as text.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from ragtui.core.vocabulary import count_text, date_text, percent_text
from ragtui.ui.content.safe_text import join, safe, styled
from ragtui.ui.models.dashboard import RunHeader

ROLE = {"A": "reference", "B": "candidate"}


def _plural(n: int, word: str) -> str:
    return f"{count_text(n)} {word}{'' if n == 1 else 's'}"


def _counts_line(header: RunHeader) -> Content:
    """`k=5 · 0 missing · ⚠ 2 judge errors`: what changes how to read the numbers.

    A run whose file says another k than the comparison's (one run of a sweep) shows its
    own, and the k its retrieval is measured at: `k=20 (measured @5)`."""
    counts = header.counts
    items = [(counts.missing, f"{count_text(counts.missing)} missing"), (counts.judge_errors, _plural(counts.judge_errors, "judge error"))]
    if counts.system_errors:  # a run ragtui made itself (`ragtui run`) may hold some
        items.append((counts.system_errors, _plural(counts.system_errors, "system error")))
    if counts.extra:
        items.append((counts.extra, f"{count_text(counts.extra)} not in gold"))
    k = f"k={header.k}" if header.own_k in (None, header.k) else f"k={header.own_k} (measured @{header.k})"
    parts: list[Content | str] = [k]
    # Flagged with a symbol as well as a colour, so they read in monochrome too.
    for number, text in items:
        parts += [" · ", Content.styled(f"⚠ {text}", "$warning bold") if number else text]
    return join(*parts)


def _calibration_line(header: RunHeader) -> Content | None:
    """`vs human  91% agree · κ 0.70 · 84 sentences`: how far to trust this run's judge."""
    calibration = header.calibration
    if calibration is None or calibration.sentence_agreement is None:
        return None
    kappa = f" · κ {calibration.sentence_kappa:.2f}" if calibration.sentence_kappa is not None else ""
    # About 85 % is what a good judge reaches (docs/metrics.md); below that, say so with a symbol.
    low = calibration.sentence_agreement < 0.85
    agreement = Content.styled(f"{'⚠ ' if low else ''}{percent_text(calibration.sentence_agreement, digits=0)} agree", "$warning bold" if low else "")
    return join("vs human  ", agreement, f"{kappa} · {_plural(calibration.sentences, 'sentence')}")


class RunHeaderBox(Vertical):
    """One run: `A baseline — system`, date and k, generator, judge, counts."""

    DEFAULT_CSS = """
    RunHeaderBox {
        height: auto;
        width: 1fr;
        padding: 0 0 0 1;
        border-left: thick $run-a;
        & > Static { text-wrap: nowrap; text-overflow: ellipsis; }
        & > .counts { text-wrap: wrap; }
        &.-run-b { border-left: thick $run-b; }
    }
    """

    def __init__(self, header: RunHeader) -> None:
        super().__init__(classes=f"-run-{header.label.lower()}")
        self.header = header

    def compose(self) -> ComposeResult:
        header = self.header
        colour = "$run-a" if header.label == "A" else "$run-b"
        name_parts: list[Content | str] = [
            Content.styled(f"{header.label} ", f"bold {colour}"),
            styled(header.name, "bold", one_line=True),
            Content.styled(f" ({ROLE[header.label]})", "dim"),
        ]
        if header.system:
            name_parts += [" — ", safe(header.system, one_line=True)]
        # One widget for the four one-line facts (each cut with an ellipsis on its own):
        # four Statics drew the same and cost the first paint a widget each.
        lines = [
            join(*name_parts),
            join(safe(date_text(header.created_at), one_line=True), f" · {_plural(header.counts.questions, 'question')}"),
            join("generator ", safe(header.generator_model or "unknown", one_line=True)),
            join("judge     ", safe(header.judge_model or "none", one_line=True)),
        ]
        yield Static(Content("\n").join(lines), classes="identity")
        yield Static(_counts_line(header), classes="counts")
        calibration = _calibration_line(header)
        if calibration is not None:
            yield Static(calibration, classes="calibration")


class WarningsPanel(Static):
    """The comparison's warnings, one per line with ⚠ (hidden when there are none)."""

    DEFAULT_CSS = """
    WarningsPanel {
        height: auto;
        padding: 0 1;
        color: $warning;
        &.-empty { display: none; }
    }
    """

    def __init__(self, warnings: tuple[str, ...]) -> None:
        lines = [join(Content.styled("⚠ ", "bold"), safe(text, one_line=True)) for text in warnings]
        super().__init__(Content("\n").join(lines), classes="-empty" if not warnings else "")
        self.warnings = warnings
