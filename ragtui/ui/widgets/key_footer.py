"""The footer of every screen, with `q` and `?` always in view.

Textual's footer lists the screen's keys, then the app's, from the left, and cuts what
does not fit: at 80×24 the dashboard lost Quit and Help, at 40×15 every screen did.
Here the two keys a lost user needs sit at the right edge beside the command palette's
key, in one group docked there, so the cut falls on the screen's own keys and never on
them.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

# Actions whose keys stay visible at any width (the app's quit and help).
ALWAYS_VISIBLE = frozenset({"quit", "help", "app.quit", "app.help"})


class KeyFooter(Footer):
    """`Footer` whose quit, help and command-palette keys are pinned at its right edge."""

    DEFAULT_CSS = """
    KeyFooter {
        #pinned-keys {
            dock: right;
            width: auto;
            height: 1;
            background: $footer-background;
        }
        #pinned-keys FooterKey.-command-palette {
            dock: none;
        }
    }
    """

    def compose(self) -> ComposeResult:
        pinned: list[FooterKey] = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and (widget.action in ALWAYS_VISIBLE or widget.has_class("-command-palette")):
                pinned.append(widget)
            else:
                yield widget
        if pinned:
            with HorizontalGroup(id="pinned-keys"):
                yield from pinned
