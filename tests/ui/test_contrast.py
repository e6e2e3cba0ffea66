"""Text on the failure list's cursor bar stays readable at every colour depth: WCAG ≥ 4.5:1.

The app is drawn on the bundled sample at 80×24 in each bundled theme, with the
failure list's cursor on a regressed row (▼ and its cause used to be red on the blue
bar). Every cell of text of that row gives a pair (foreground, background) of the
theme's colours as Textual computed them; each pair is then seen as a terminal of each
depth shows it:

- 24-bit: as is;
- 256 colours: as Rich reduces it (the nearest of the xterm 256-colour palette);
- 16 colours: as Rich reduces it, shown with Rich's standard 16-colour palette (what
  SSH users of Alacritty, Ghostty, foot or WezTerm get, as `COLORTERM` is not forwarded);
- `NO_COLOR`: as Textual's monochrome filter turns it to grey.

Box-drawing and block characters (borders, scrollbars, bars) are not text and are left out.
"""

from __future__ import annotations

import pytest
from rich._palettes import EIGHT_BIT_PALETTE, STANDARD_PALETTE
from rich.color import Color as RichColor
from rich.color import ColorSystem, ColorType
from textual.color import Color

from ragtui.core.vocabulary import CURSOR_MARK
from ragtui.ui.app import RagtuiApp
from ragtui.ui.screens.failures import FailureListScreen
from tests.ui.conftest import wait_until_loaded
from tests.ui.triage_data import screen_strips

THEMES = ["dark", "light", "high-contrast"]
DEPTHS = ["24-bit", "256", "16", "NO_COLOR"]
WCAG_AA = 4.5
NOT_TEXT = set(range(0x2500, 0x25A0)) | {0x2581, 0x2582, 0x2583, 0x2584, 0x2585, 0x2586, 0x2587, 0x2588}

RGB = tuple[int, int, int]


def seen_at(colour: RichColor, depth: str) -> RGB:
    """The colour a terminal of `depth` shows for `colour`."""
    if depth == "256":
        reduced = colour.downgrade(ColorSystem.EIGHT_BIT)
        if reduced.type != ColorType.TRUECOLOR and reduced.number is not None:
            return tuple(EIGHT_BIT_PALETTE[reduced.number])
        return tuple(reduced.get_truecolor())
    if depth == "16":
        reduced = colour.downgrade(ColorSystem.STANDARD)
        return tuple(STANDARD_PALETTE[reduced.number])
    r, g, b = colour.get_truecolor()
    if depth == "NO_COLOR":
        grey = Color(r, g, b).monochrome
        return grey.r, grey.g, grey.b
    return r, g, b


def relative_luminance(rgb: RGB) -> float:
    """WCAG 2 relative luminance of an sRGB colour."""

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    """WCAG 2 contrast ratio, from 1 (none) to 21 (black on white)."""
    high, low = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_formula_matches_wcag_reference_values():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    assert contrast((119, 119, 119), (255, 255, 255)) == pytest.approx(4.48, abs=0.01)  # #777 on white: just fails AA
    assert contrast((224, 85, 90), (91, 155, 213)) == pytest.approx(1.26, abs=0.01)  # the red on the blue cursor


def _cursor_row_pairs(app) -> dict:
    theme = app.current_theme
    default_fg, default_bg = RichColor.parse(theme.foreground or "#ffffff"), RichColor.parse(theme.background or "#000000")
    pairs: dict = {}
    rows = [strip for strip in screen_strips(app) if CURSOR_MARK in strip.text and "▼" in strip.text]
    assert len(rows) == 1, "the cursor row of the failure list is on screen"
    for segment in rows[0]:
        style = segment.style
        text = "".join(ch for ch in segment.text if ch.strip() and ord(ch) not in NOT_TEXT)
        if text and style is not None:
            pairs.setdefault((style.color or default_fg, style.bgcolor or default_bg), text[:24])
    return pairs


LIGHT_16_COLOURS = pytest.mark.xfail(
    strict=True,
    reason="light's primary #1F5FA8 (the cursor bar) becomes cyan in 16 colours: 2.86:1 under white text; "
    "the theme change (#1B4F8F) is not in yet",
)


@pytest.mark.parametrize("theme", [t if t != "light" else pytest.param(t, marks=LIGHT_16_COLOURS) for t in THEMES])
async def test_the_cursor_row_keeps_a_contrast_of_4_5_at_every_colour_depth(sample, theme):
    app = RagtuiApp(sample, theme_name=theme)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        app.open_failures(status="regressed")
        for _ in range(3):
            await pilot.pause()
        assert isinstance(app.screen, FailureListScreen)
        pairs = _cursor_row_pairs(app)
    failures = []
    for depth in DEPTHS:
        for (fg, bg), text in pairs.items():
            ratio = contrast(seen_at(fg, depth), seen_at(bg, depth))
            if ratio < WCAG_AA:
                failures.append(f"{depth}: {ratio:.2f}:1 {fg.get_truecolor().hex} on {bg.get_truecolor().hex} ({text!r})")
    assert not failures, "\n".join(failures)
