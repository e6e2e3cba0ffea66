"""The app's colour themes: the bundled ones and the user's, offered by the palette.

`RagtuiApp`'s base class: it registers ragtui's themes, picks the one asked for (or says
why not, in `startup_notes`), gives Textual's own themes ragtui's colour variables, and
keeps Textual's "Theme" command, which lists themes without them, off the palette.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from ragtui.ui.themes import DEFAULT_THEME, THEME_VARIABLE_DEFAULTS, builtin_themes, load_user_themes

if TYPE_CHECKING:
    from textual.driver import Driver


class ThemedApp(App[int]):
    """Registers ragtui's themes; the palette's "Theme: NAME" commands switch between them."""

    def __init__(self, theme_name: str | None = None, *, driver_class: type[Driver] | None = None) -> None:
        super().__init__(driver_class=driver_class)
        self._ragtui_themes: list[str] = []
        # What to tell the user once the screen is up: unusable theme files, an unknown name.
        self.startup_notes: list[str] = self._setup_themes(theme_name)

    def _setup_themes(self, requested: str | None) -> list[str]:
        """Register the bundled and user themes, then pick the requested one (or the default)."""
        bundled = builtin_themes()
        user = load_user_themes()
        for theme in [*bundled.values(), *user.loaded.values()]:
            self.register_theme(theme)  # a user theme may replace a bundled one of that name
        self._ragtui_themes = sorted(set(bundled) | set(user.loaded))
        notes = [f"Theme file not used: {failure}" for failure in user.failed]
        name = requested or DEFAULT_THEME
        if name not in self.available_themes:
            notes.append(f"Unknown theme {name!r}; using {DEFAULT_THEME!r}. Themes: {', '.join(self._ragtui_themes)}.")
            name = DEFAULT_THEME
        self.theme = name
        return notes

    def get_theme_variable_defaults(self) -> dict[str, str]:
        # Textual's own themes (also selectable) do not define ragtui's variables.
        return dict(THEME_VARIABLE_DEFAULTS)

    def ragtui_theme_names(self) -> list[str]:
        """Bundled and user themes: the ones the palette offers."""
        return list(self._ragtui_themes)

    def get_system_commands(self, screen):
        # Textual's "Theme" command lists its own themes beside ragtui's, which do not
        # define ragtui's colours; the palette's "Theme: NAME" commands list ragtui's only.
        for command in super().get_system_commands(screen):
            if command.title != "Theme":
                yield command

    def switch_theme(self, name: str) -> None:
        self.theme = name
