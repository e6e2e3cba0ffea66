"""Colour themes: YAML files turned into Textual `Theme` objects.

The bundled themes (`themes/*.yaml`, shipped as the package `ragtui.themes`) and the
user's own (`$XDG_CONFIG_HOME/ragtui/themes/*.yaml`) have one format, so a user theme
starts as a copy of a bundled one. Every colour is checked with `Color.parse` here:
a typo becomes one clear message instead of a crash when the stylesheet is parsed.
Meaning never rests on colour alone (symbols carry it), so a theme is only taste.
"""

from __future__ import annotations

import re
from importlib.resources import files
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from textual.color import Color, ColorParseError
from textual.theme import Theme

from ragtui.core.loading.yaml_safe import safe_load
from ragtui.ui.user_config import user_themes_dir

DEFAULT_THEME = "dark"

# ragtui's own CSS variables. Textual refuses a stylesheet that names a variable no
# theme defines, so each needs a literal default (returned by
# `RagtuiApp.get_theme_variable_defaults`); a theme file may override any of them.
THEME_VARIABLE_DEFAULTS: dict[str, str] = {
    "verdict-pass": "#4EBF71",  # meets its target / judge attested
    "verdict-fail": "#FF7A7E",  # misses its target / judge did not attest
    "regression": "#FF7A7E",  # B worse than A
    "improvement": "#4EBF71",  # B better than A
    "no-change": "#9DA5B4",  # no clear change
    "not-judged": "#8A8F98",  # no verdict (abstained, judge error, missing)
    "gold-passage": "#E5C07B",  # a passage of the gold set
    "run-a": "#61AFEF",  # the reference run
    "run-b": "#C678DD",  # the candidate run
}

_COLOURS = ("primary", "secondary", "warning", "error", "success", "accent", "foreground", "background", "surface", "panel", "boost")
_OTHER_FIELDS = {"name", "dark", "variables", "luminosity_spread", "text_alpha", "author", "description"}
# A theme name is typed after --theme and shown in the command palette, which reads
# markup in what it displays: keep names to plain identifier characters.
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


class ThemeFileError(Exception):
    """A theme file that cannot be used; the message says where and why."""


class ThemeSet(NamedTuple):
    """(loaded, failed): the themes found, and one line per file that could not be used."""

    loaded: dict[str, Theme]
    failed: list[str]


def _colour(source: str, field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ThemeFileError(f"{source}: {field}: expected a colour such as \"#1e1e2e\", found {value!r}")
    try:
        Color.parse(value)
    except ColorParseError:
        raise ThemeFileError(f"{source}: {field}: {value!r} is not a colour (use #rrggbb, rgb(…) or a colour name)") from None
    return value


def theme_from_mapping(data: Any, source: str) -> Theme:
    """Validate one theme's mapping and build the Theme.

    Raises:
        ThemeFileError: naming the field and what was expected.
    """
    if not isinstance(data, dict):
        raise ThemeFileError(f"{source}: expected a mapping with at least `name` and `primary`")
    unknown = sorted(str(k) for k in data if k not in _COLOURS and k not in _OTHER_FIELDS)
    if unknown:
        raise ThemeFileError(f"{source}: unknown field(s) {', '.join(unknown)}; known: {', '.join(_COLOURS)}, dark, variables")
    name = data.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        raise ThemeFileError(f"{source}: name: expected letters, digits, '-', '_' or '.', found {name!r}")
    if "primary" not in data:
        raise ThemeFileError(f"{source}: primary: required")
    colours: dict[str, Any] = {field: _colour(source, field, data[field]) for field in _COLOURS if data.get(field) is not None}
    dark = data.get("dark", True)
    if not isinstance(dark, bool):
        raise ThemeFileError(f"{source}: dark: expected true or false, found {dark!r}")
    variables = data.get("variables") or {}
    if not isinstance(variables, dict):
        raise ThemeFileError(f"{source}: variables: expected a mapping of name: colour")
    checked: dict[str, str] = {}
    for key, value in variables.items():
        # Textual's own `*-text-style` variables take style words ("bold"), not colours.
        if str(key).endswith("text-style") and isinstance(value, str):
            checked[str(key)] = value
        else:
            checked[str(key)] = _colour(source, f"variables.{key}", value)
    extra: dict[str, Any] = {}
    for field in ("luminosity_spread", "text_alpha"):
        if field in data:
            value = data[field]
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
                raise ThemeFileError(f"{source}: {field}: expected a number from 0 to 1, found {value!r}")
            extra[field] = float(value)
    return Theme(name=name, dark=dark, variables=checked, **colours, **extra)


def theme_from_text(text: str, source: str) -> Theme:
    """Parse a theme file's text (YAML, read with safe_load)."""
    try:
        data = safe_load(text)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else "?"
        raise ThemeFileError(f"{source}:{line}: malformed YAML: {exc.problem}") from None
    except yaml.YAMLError as exc:
        raise ThemeFileError(f"{source}: malformed YAML: {exc}") from None
    return theme_from_mapping(data, source)


def builtin_themes() -> dict[str, Theme]:
    """The themes shipped with ragtui, read through importlib.resources (works from a wheel)."""
    found: dict[str, Theme] = {}
    for entry in sorted(files("ragtui.themes").iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".yaml", ".yml")):
            theme = theme_from_text(entry.read_text(encoding="utf-8"), entry.name)
            found[theme.name] = theme
    return found


def load_user_themes(directory: Path | None = None) -> ThemeSet:
    """The user's theme files; a broken file is reported in `failed`, never raised."""
    directory = user_themes_dir() if directory is None else directory
    themes: dict[str, Theme] = {}
    failed: list[str] = []
    if not directory.is_dir():
        return ThemeSet(themes, failed)
    for path in sorted(directory.iterdir()):
        if path.suffix.lower() not in (".yaml", ".yml") or not path.is_file():
            continue
        try:
            theme = theme_from_text(path.read_text(encoding="utf-8"), str(path))
        except ThemeFileError as exc:
            failed.append(str(exc))
            continue
        except (OSError, UnicodeDecodeError) as exc:
            failed.append(f"{path}: cannot read: {exc}")
            continue
        themes[theme.name] = theme
    return ThemeSet(themes, failed)
