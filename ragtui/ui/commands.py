"""The command palette (Ctrl+P): every action of the app, found by typing.

Category and theme names come from files, and Textual's own highlighter reads markup
in what it displays, so each command's display is built from `safe` text and the
matched letters are styled on that inert Content.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Protocol, cast

from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content

from ragtui.core.vocabulary import STATUS_LABEL
from ragtui.ui.content.safe_text import join, safe

if TYPE_CHECKING:
    from ragtui.core.comparing.compare import Comparison


class PaletteHost(Protocol):
    """What the palette offers of the app it opens in (`RagtuiApp`)."""

    comparison: Comparison | None

    def open_failures(self, *, category: str | None = None, failure_kind: str | None = None, status: str | None = None) -> None: ...
    def action_toggle_side(self) -> None: ...
    def ragtui_theme_names(self) -> list[str]: ...
    def switch_theme(self, name: str) -> None: ...
    def action_help(self) -> None: ...
    def exit(self) -> None: ...


@dataclass(frozen=True)
class Command:
    text: str  # plain text, matched against what the user types
    display: Content
    action: Callable[[], object]
    help: str  # ragtui's own words only (the palette parses markup in help)


def _highlight(matcher: Matcher, command: Command) -> Content:
    _score, offsets = matcher.fuzzy_search.match(matcher.query, command.text)
    display = command.display
    for offset in offsets:
        if offset < len(display.plain) and not command.text[offset].isspace():
            display = display.stylize(matcher.match_style, offset, offset + 1)
    return display


def _plain(text: str) -> Content:
    return Content(text)


class RagtuiCommands(Provider):
    """Open lists, switch theme, toggle A/B, help, quit."""

    def commands(self) -> list[Command]:
        app = cast("PaletteHost", self.app)
        out: list[Command] = []
        comparison = app.comparison
        if comparison is not None:
            two_runs = comparison.b is not None
            out.append(Command("Open failures", _plain("Open failures"), app.open_failures, "Every failing question"))
            statuses = ("regressed", "fixed", "still_failing") if two_runs else ("still_failing",)
            for status in statuses:
                text = f"Open {STATUS_LABEL[status]} questions"
                out.append(Command(text, _plain(text), partial(app.open_failures, status=status), f"Failure list filtered to {STATUS_LABEL[status]}"))

            for category in comparison.categories:
                name = safe(comparison.config.category_name(category), one_line=True)
                text = f"Open failures in {name.plain}"
                out.append(Command(text, join("Open failures in ", name), partial(app.open_failures, category=category), "Failure list filtered to this category"))
            if two_runs:
                out.append(Command("Toggle A/B in the category grid", _plain("Toggle A/B in the category grid"), app.action_toggle_side, "Show the reference's or the candidate's values"))
        for theme in app.ragtui_theme_names():
            text = f"Theme: {theme}"
            out.append(Command(text, safe(text, one_line=True), partial(app.switch_theme, theme), "Switch the colour theme"))
        out.append(Command("Help: keys and symbols", _plain("Help: keys and symbols"), app.action_help, "Every key of every screen"))
        out.append(Command("Quit", _plain("Quit"), app.exit, "Leave ragtui"))
        return out

    async def discover(self) -> Hits:
        for command in self.commands():
            yield DiscoveryHit(command.display, command.action, text=command.text, help=command.help)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self.commands():
            score = matcher.match(command.text)
            if score > 0:
                yield Hit(score, _highlight(matcher, command), command.action, text=command.text, help=command.help)
