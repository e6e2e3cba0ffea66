"""Small modal menus of the triage keys: a choice list, the mark menu, a one-line prompt.

Each is keyboard first: a letter picks a choice at once (shown before its label), the
arrows and Enter work too, Esc closes without doing anything. Labels that come from
files go through `safe`; the menus' own words are plain text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from ragtui.core.sanitize import neutralize
from ragtui.core.triage.notes import MARK_LABELS, MARK_LETTERS, MARK_MEANINGS, MARKS, Mark
from ragtui.ui.safe_text import safe

T = TypeVar("T")

_MENU_CSS = """
    {name} {{
        align: center middle;
    }}
    {name} > Vertical {{
        width: 64; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }}
    {name} .menu-title {{ text-style: bold; height: auto; }}
    {name} .menu-hint {{ color: $text-muted; height: auto; }}
    {name} OptionList, {name} OptionList:focus {{ height: auto; max-height: 12; border: none; padding: 0; }}
    {name} Input {{ margin-top: 1; }}
"""


@dataclass(frozen=True)
class Choice(Generic[T]):
    """One line of a menu: the letter that picks it, its label, what it returns."""

    letter: str
    label: Content | str
    value: T


class ChoiceMenu(ModalScreen[T | None], Generic[T]):
    """A titled list of choices; returns the chosen value, or None on Esc."""

    DEFAULT_CSS = _MENU_CSS.format(name="ChoiceMenu")
    BINDINGS = [Binding("escape", "cancel", "cancel", id="menu.cancel")]

    def __init__(self, title: Content | str, choices: list[Choice[T]], hint: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.choices = choices
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.title_text, classes="menu-title")
            yield OptionList(
                *[Option(Content.assemble(Content(f"{c.letter} ").stylize("bold"), c.label), id=str(i)) for i, c in enumerate(self.choices)]
            )
            yield Static(self.hint or "letter or ↑↓ Enter: choose · Esc: cancel", classes="menu-hint")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_key(self, event: events.Key) -> None:
        for choice in self.choices:
            if event.character and event.character == choice.letter:
                event.stop()
                self.dismiss(choice.value)
                return

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[int(event.option.id or 0)].value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class MarkMenu(ModalScreen[tuple[str | None, str] | None]):
    """Pick a mark (or remove it), then type an optional note; returns (mark, note) or None."""

    DEFAULT_CSS = _MENU_CSS.format(name="MarkMenu")
    BINDINGS = [Binding("escape", "cancel", "cancel", id="mark.cancel")]

    def __init__(self, question_id: str, current: Mark | None) -> None:
        super().__init__()
        self.question_id = question_id
        self.current = current
        self.chosen: str | None = None
        # The stored note is data: pre-filled as the screen shows text (an OSC in a notes file
        # would otherwise reach the terminal), and kept as stored when saved unedited.
        self._shown_note = neutralize(current.note, keep_newlines=False) if current else ""

    def compose(self) -> ComposeResult:
        options = [
            Option(Content.assemble(Content(f"{MARK_LETTERS[m]} {MARK_LABELS[m]:<11}").stylize("bold"), f"{MARK_MEANINGS[m]}"), id=m)
            for m in MARKS
        ]
        if self.current is not None:
            options.append(Option(Content.assemble(Content("x remove the mark").stylize("bold")), id="remove"))
        with Vertical():
            yield Static(Content.assemble("Mark ", safe(self.question_id, one_line=True, limit=40).stylize("bold")), classes="menu-title")
            yield OptionList(*options)
            yield Input(value=self._shown_note, placeholder="note (optional, one line) — Enter saves", id="mark-note")
            yield Static("letter: pick · then a note and Enter · Esc: cancel", classes="menu-hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        if self.current is not None and self.current.mark in MARKS:
            options.highlighted = MARKS.index(self.current.mark)
        options.focus()

    def on_key(self, event: events.Key) -> None:
        if self.query_one(Input).has_focus or not event.character:
            return
        letters = {letter: mark for mark, letter in MARK_LETTERS.items()}
        if event.character in letters:
            event.stop()
            self._pick(letters[event.character])
        elif event.character == "x" and self.current is not None:
            event.stop()
            self.dismiss((None, ""))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id == "remove":
            self.dismiss((None, ""))
        else:
            self._pick(str(event.option.id))

    def _pick(self, mark: str) -> None:
        self.chosen = mark
        options = self.query_one(OptionList)
        options.highlighted = MARKS.index(mark)
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        mark = self.chosen
        if mark is None:  # Enter in the note before picking: the highlighted mark
            highlighted = self.query_one(OptionList).highlighted
            mark = MARKS[highlighted] if highlighted is not None and highlighted < len(MARKS) else MARKS[0]
        unedited = self.current is not None and event.value == self._shown_note
        self.dismiss((mark, self.current.note if unedited and self.current is not None else event.value))

    def action_cancel(self) -> None:
        self.dismiss(None)


class Prompt(ModalScreen[str | None]):
    """One line of input at the bottom of the screen (`:` jump, `/` search); None on Esc."""

    DEFAULT_CSS = """
    Prompt {
        align: left bottom;
        background: $background 0%;
    }
    Prompt > Vertical {
        width: 100%; height: auto; background: $panel; padding: 0 1;
    }
    Prompt .menu-hint { color: $text-muted; height: 1; }
    Prompt Input { border: none; height: 1; padding: 0; background: $panel; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel", id="prompt.cancel")]

    def __init__(self, prefix: str, hint: str, value: str = "", suggestions: list[str] | None = None) -> None:
        super().__init__()
        self.prefix = prefix
        self.hint = hint
        self.value = value
        self.suggestions = suggestions or []

    def compose(self) -> ComposeResult:
        from textual.suggester import SuggestFromList

        with Vertical():
            yield Static(self.hint, classes="menu-hint")
            suggester = SuggestFromList(self.suggestions, case_sensitive=False) if self.suggestions else None
            yield Input(value=self.value, placeholder=self.prefix, suggester=suggester)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)
