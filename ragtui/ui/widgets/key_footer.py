"""The footer of every screen, with `q` and `?` always in view.

Textual's footer lists the screen's keys, then the app's, from the left, and cuts what
does not fit: at 80×24 the dashboard lost Quit and Help, at 40×15 every screen did.
Here the two keys a lost user needs sit at the right edge beside the command palette's
key, in one group docked there, so the cut falls on the screen's own keys and never on
them.

What does not fit before that group is hidden a whole key at a time (`_fit_keys`), never
cut mid-word ("T Tra"), and shown again when the terminal widens.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import HorizontalGroup
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup

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

    _drawn: tuple | None = None  # what the last recompose drew (`_what_is_drawn`)

    def compose(self) -> ComposeResult:
        # Where each key ends, from the footer's left edge: measured once they are all shown.
        self._key_ends: dict[Widget, int] = {}
        pinned: list[FooterKey] = []
        for widget in super().compose():
            if isinstance(widget, FooterKey) and not widget.has_class("-command-palette"):
                # A key starts compact and the footer's binding sets it back: two restyles a
                # key on every recompose. Given the footer's value now, it starts as it stays.
                # (The palette's key is not bound, and stays compact as Textual draws it.)
                widget.set_reactive(FooterKey.compact, self.compact)
            if isinstance(widget, FooterKey) and (widget.action in ALWAYS_VISIBLE or widget.has_class("-command-palette")):
                pinned.append(widget)
            else:
                yield widget
        if pinned:
            with HorizontalGroup(id="pinned-keys"):
                yield from pinned

    async def recompose(self) -> None:
        # Textual recomposes the footer each time the screen's bindings may have changed
        # (every focus move, every screen shown), mostly to draw the same keys again: 202
        # recomposes drew 65 different footers in the dashboard and question tests.
        # Nothing to draw differently: nothing is rebuilt.
        drawn = self._what_is_drawn()
        if drawn == self._drawn and self.children:
            return
        self._drawn = drawn
        await super().recompose()
        self.call_after_refresh(self._fit_keys)

    def _what_is_drawn(self) -> tuple:
        """Everything `compose` reads: the screen's shown keys and the footer's settings."""
        if not self._bindings_ready or not self.is_attached:
            return (self._bindings_ready,)
        palette = self.app.COMMAND_PALETTE_BINDING
        keys = tuple(
            (binding.key, self.app.get_key_display(binding), binding.description, binding.action, binding.group,
             binding.tooltip, enabled, tooltip)
            for key, (_, binding, enabled, tooltip) in self.screen.active_bindings.items()
            if binding.show or key == palette  # the keys it lists (hidden ones change with focus, unseen)
        )
        return (True, keys, self.compact, self.show_command_palette, self.app.ENABLE_COMMAND_PALETTE)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_keys)

    def _fit_keys(self) -> None:
        """Hide the trailing keys that would run under the pinned group; show the rest."""
        keys = [child for child in self.children if child.id != "pinned-keys"]
        if not keys or not self.is_attached:
            return
        if not getattr(self, "_key_ends", None):  # just recomposed: every key is shown, so where it ends is where it would
            if any(key.region.width == 0 for key in keys):
                return  # not laid out yet (the screen is not the current one): fitted on its next resize
            self._key_ends = {key: key.region.right - self.region.x for key in keys}
        pinned = self.query_children("#pinned-keys")
        room = self.size.width - (pinned.first().outer_size.width if pinned else 0)
        shown = [self._key_ends.get(key, 0) <= room for key in keys]
        for index, key in enumerate(keys):
            # A group's label goes with its keys: "↑↓" without "move" would say nothing.
            if isinstance(key, KeyGroup) and index + 1 < len(keys) and isinstance(keys[index + 1], FooterLabel):
                shown[index] = shown[index] and shown[index + 1]
            key.display = shown[index]
