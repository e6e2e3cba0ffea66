"""The one way untrusted text reaches the screen: neutralised, then wrapped as Content.

Passages, questions, answers and judge output are data, and so are the ids and paths a
notification names (`toast`). `Content(...)` never parses markup, so
`[@click=app.quit]` or `[/]` shows literally; `neutralize` first turns ESC,
C0/C1 controls and bidi overrides into visible stand-ins, because Textual passes escape
sequences in displayed text straight to the terminal. Styling untrusted text goes
through `styled` (a whole-span style on literal text), never through markup.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.content import Content

from ragtui.core.sanitize import neutralize

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.widget import Widget


def safe(text: object, *, one_line: bool = False, limit: int | None = None) -> Content:
    """Untrusted text as inert Content (markup never parsed, controls made visible)."""
    value = neutralize(text, keep_newlines=not one_line)
    if limit is not None and len(value) > limit:
        value = value[: max(limit - 1, 0)] + "…"
    return Content(value)


def styled(text: object, style: str, *, one_line: bool = False, limit: int | None = None) -> Content:
    """Untrusted text with one style over all of it (e.g. a gold passage id in bold)."""
    return safe(text, one_line=one_line, limit=limit).stylize(style)


def join(*parts: Content | str) -> Content:
    """Concatenate Content pieces; plain `str` parts must be ragtui's own text, not data."""
    return Content.assemble(*parts)


def rich_text(text: object, style: str = "", *, one_line: bool = True, limit: int | None = None) -> Text:
    """Untrusted text as a Rich `Text`, for widgets that measure Rich renderables (DataTable cells).

    `Text(...)` never parses markup either; the style must be a Rich style (no $variables).
    """
    return Text(safe(text, one_line=one_line, limit=limit).plain, style=style)


def toast(on: App[Any] | Widget, message: object, *, title: str = "", severity: SeverityLevel = "information", timeout: float | None = None) -> None:
    """A notification whose text may name ids, paths, run names or model output: neutralised,
    its markup never parsed (`[b]` in a file name shows as written)."""
    on.notify(neutralize(message), title=title, severity=severity, timeout=timeout, markup=False)
