"""Text stays readable in every bundled theme at every colour depth: WCAG ≥ 4.5:1.

The app is drawn on the bundled sample in each bundled theme and walked through its
screens (dashboard, failure list, question view, verdict inspector, help). Every cell of
text gives a pair (foreground, background) of the theme's colours as Textual computed
them — dimmed text included, as Textual blends it into its colour; each pair is then
seen as a terminal of each depth shows it:

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
from ragtui.ui.models.session import Session
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


def _text_pairs(app, strips, pairs: dict, where: str) -> dict:
    """Add each (foreground, background) pair that draws text in `strips`, with a sample of it."""
    theme = app.current_theme
    default_fg, default_bg = RichColor.parse(theme.foreground or "#ffffff"), RichColor.parse(theme.background or "#000000")
    for strip in strips:
        for segment in strip:
            style = segment.style
            text = "".join(ch for ch in segment.text if ch.strip() and ord(ch) not in NOT_TEXT)
            if text and style is not None:
                fg, bg = style.color or default_fg, style.bgcolor or default_bg
                pairs.setdefault((fg, bg) if not style.reverse else (bg, fg), f"{where}: {text[:24]}")
    return pairs


def _cursor_row_pairs(app) -> dict:
    rows = [strip for strip in screen_strips(app) if CURSOR_MARK in strip.text and "▼" in strip.text]
    assert len(rows) == 1, "the cursor row of the failure list is on screen"
    return _text_pairs(app, rows, {}, "cursor row")


def _below_wcag_aa(pairs: dict) -> list[str]:
    failures = []
    for depth in DEPTHS:
        for (fg, bg), text in pairs.items():
            ratio = contrast(seen_at(fg, depth), seen_at(bg, depth))
            if ratio < WCAG_AA:
                failures.append(f"{depth}: {ratio:.2f}:1 {fg.get_truecolor().hex} on {bg.get_truecolor().hex} ({text!r})")
    return failures


@pytest.mark.parametrize("theme", THEMES)
async def test_the_cursor_row_keeps_a_contrast_of_4_5_at_every_colour_depth(sample, theme):
    app = RagtuiApp(Session(sample), theme_name=theme)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        app.open_failures(status="regressed")
        for _ in range(3):
            await pilot.pause()
        assert isinstance(app.screen, FailureListScreen)
        pairs = _cursor_row_pairs(app)
    failures = _below_wcag_aa(pairs)
    assert not failures, "\n".join(failures)


async def _settle(pilot) -> None:
    for _ in range(4):
        await pilot.pause()


@pytest.mark.parametrize("theme", THEMES)
async def test_every_text_on_every_screen_keeps_a_contrast_of_4_5_at_every_colour_depth(sample, theme):
    app = RagtuiApp(Session(sample), theme_name=theme)
    pairs: dict = {}

    def look(where: str) -> None:
        _text_pairs(app, screen_strips(app), pairs, f"{where} ({type(app.screen).__name__})")

    # 120 columns: wide enough for the failure list's kind legend, narrow enough for the
    # dashboard to scroll through its panels, grid and curve.
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until_loaded(pilot)
        look("dashboard")
        for page in range(3):
            await pilot.press("pagedown")
            await _settle(pilot)
            look(f"dashboard, page {page + 2}")
        app.open_failures(status="all")
        await _settle(pilot)
        for row in range(12):  # the cursor over passing, fixed, regressed and still-failing rows
            look(f"failure list, row {row + 1}")
            await pilot.press("down")
            await _settle(pilot)
        app.open_failures(status="regressed")
        await _settle(pilot)
        await pilot.press("enter")
        await _settle(pilot)
        look("question view, side B")
        for key in ("j", "t", "v", "t"):
            await pilot.press(key)
            await _settle(pilot)
            look(f"question view after {key}")
        await pilot.press("question_mark")
        await _settle(pilot)
        look("help")
    assert len(pairs) > 15  # the walk saw the screens, not one blank frame
    failures = _below_wcag_aa(pairs)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("theme", THEMES)
async def test_the_calibration_screens_and_the_queue_banner_keep_a_contrast_of_4_5_at_every_colour_depth(sample, theme):
    app = RagtuiApp(Session(sample), theme_name=theme)
    pairs: dict = {}
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_until_loaded(pilot)
        for key in ("C", "L"):  # the calibration screen, then the queue over it (its banner)
            await pilot.press(key)
            await _settle(pilot)
            _text_pairs(app, screen_strips(app), pairs, type(app.screen).__name__)
        assert "Calibration queue" in str(app.screen.query_one("#queue-banner").render())
    failures = _below_wcag_aa(pairs)
    assert not failures, "\n".join(failures)
