"""The gold menu of the question view: pick a fix to the gold set, then give a reason.

One small modal for both gold keys: `g` lists the side's retrieved passages (picking one
toggles whether it is gold), `G` lists the fixes (mark unanswerable, change category, edit
the expected answer, add or remove a tag). A letter or ↑↓ Enter picks; the one-line
reason is optional and Enter records. Esc closes without recording anything. Passage ids
and texts come from files: they go through `safe`.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ragtui.ui.screens.menus import Choice

GOLD_FIXES: list[Choice[str]] = [
    Choice("u", "mark unanswerable (no gold passage, unanswerable category)", "unanswerable"),
    Choice("c", "change the category", "category"),
    Choice("e", "edit the expected answer in $EDITOR", "expected_answer"),
    Choice("t", "add or remove a tag", "tag"),
]


class GoldMenu(ModalScreen[tuple[str, str] | None]):
    """Pick one choice, then type an optional reason; returns (value, reason) or None."""

    DEFAULT_CSS = """
    GoldMenu { align: center middle; }
    GoldMenu > Vertical {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    GoldMenu .menu-title { text-style: bold; height: auto; }
    GoldMenu .menu-hint { color: $text-muted; height: auto; }
    GoldMenu OptionList, GoldMenu OptionList:focus { height: auto; max-height: 10; border: none; padding: 0; }
    GoldMenu Input { margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel", id="gold_menu.cancel")]

    def __init__(self, title: Content | str, choices: list[Choice[str]], *, highlighted: int = 0) -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.highlighted = highlighted
        self.chosen: str | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="menu-title")
            yield OptionList(
                *[Option(Content.assemble(Content(f"{c.letter} ").stylize("bold"), c.label), id=str(i)) for i, c in enumerate(self.choices)]
            )
            yield Input(placeholder="why (optional, one line) — Enter records", id="gold-why")
            yield Static("letter or ↑↓ Enter: pick · then a reason and Enter · Esc: cancel", classes="menu-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = min(self.highlighted, len(self.choices) - 1) if self.choices else None
        options.focus()

    def on_key(self, event: events.Key) -> None:
        if self.query_one(Input).has_focus or not event.character:
            return
        for index, choice in enumerate(self.choices):
            if event.character == choice.letter:
                event.stop()
                self._pick(index)
                return

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self._pick(int(event.option.id or 0))

    def _pick(self, index: int) -> None:
        self.chosen = self.choices[index].value
        self.query_one(OptionList).highlighted = index
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        chosen = self.chosen
        if chosen is None:  # Enter in the reason before picking: the highlighted choice
            highlighted = self.query_one(OptionList).highlighted
            if highlighted is None:
                self.dismiss(None)
                return
            chosen = self.choices[highlighted].value
        self.dismiss((chosen, event.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
