"""The triage keys the question view and the failure list share: mark, copy, pager, jump, export.

A screen that mixes in `TriageKeys` says which question the keys act on
(`triage_target`), what to do after a mark or a jump, and what `X` exports; the keys'
menus, the notes sidecar and the messages are here, once. The marks live in one
`Notes` per app (`notes_of`), so every screen sees the same ones.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.binding import Binding
from textual.content import Content

from ragtui.core.sanitize import neutralize
from ragtui.core.triage.notes import MARK_LABELS, Notes, default_notes_path
from ragtui.ui.safe_text import safe

if TYPE_CHECKING:
    from textual.app import App

    from ragtui.core.comparing.compare import Comparison

# Footer-less keys (the `?` screen lists them): 80 columns hold only the most used.
TRIAGE_BINDINGS = [
    Binding("m", "mark", "mark", tooltip="Mark this question: ok, bug, gold wrong, flaky, with a note", id="triage.mark"),
    Binding("y", "copy", "copy", show=False, tooltip="Copy the id, question, answer, passages, record or a reopen command", id="triage.copy"),
    Binding("o", "pager", "pager", show=False, tooltip="Read a text of this question in $PAGER", id="triage.pager"),
    Binding("e", "editor", "editor", show=False, tooltip="Open a read-only copy of a text in $EDITOR", id="triage.editor"),
    Binding("colon", "jump", "jump", key_display=":", show=False, tooltip="Jump to any question by id, passing ones too", id="triage.jump"),
    Binding("X", "export", "export", key_display="X", show=False, tooltip="Export the marked (else the listed) questions as markdown or JSONL", id="triage.export"),
]


def notes_of(app: App, comparison: Comparison) -> Notes:
    """The app's notes (`--notes FILE`, else the sidecar beside run B, or A alone)."""
    notes = getattr(app, "notes", None)
    if notes is None:
        run = comparison.b.run if comparison.b is not None else comparison.a.run
        notes = Notes.load(default_notes_path(Path(run.path)))
        app.notes = notes  # type: ignore[attr-defined]
    return notes


def mark_text(notes: Notes, question_id: str) -> Content | None:
    """`[bug] the note` for a marked question, None for an unmarked one."""
    mark = notes.get(question_id)
    if mark is None or mark.mark is None:
        return None
    parts: list[Content | str] = [Content(f"[{MARK_LABELS[mark.mark]}]").stylize("bold reverse")]
    if mark.note:
        parts += [" ", safe(mark.note, one_line=True, limit=120)]
    return Content.assemble(*parts)


class TriageKeys:
    """Mixed into a Screen with a `comparison`; see the module docstring for what it asks."""

    comparison: Comparison

    # -- what the screen provides -------------------------------------------------------

    def triage_target(self) -> tuple[str | None, str]:
        """(the question the keys act on, or None; the side, "A" or "B")."""
        raise NotImplementedError

    def after_mark(self, question_id: str) -> None:
        """Redraw what shows the mark."""

    def jump_to(self, question_id: str) -> None:
        """Show `question_id` (an id of the comparison)."""
        raise NotImplementedError

    def export_ids(self) -> tuple[list[str], str]:
        """The ids `X` exports when nothing is marked, and what they are ("listed")."""
        question_id, _ = self.triage_target()
        return ([question_id] if question_id else []), "shown"

    # -- helpers --------------------------------------------------------------------------

    @property
    def notes(self) -> Notes:
        return notes_of(self.app, self.comparison)  # type: ignore[attr-defined]

    def say(self, message: str, **kwargs) -> None:
        """A toast; its text names ids and paths from the files: neutralised, never markup."""
        self.notify(neutralize(message), markup=False, **kwargs)  # type: ignore[attr-defined]

    def _texts(self):
        from ragtui.ui.models.question_texts import question_texts

        question_id, side = self.triage_target()
        if question_id is None:
            self.say("no question here", timeout=2)
            return None
        return question_texts(self.comparison, question_id, side, getattr(self.app, "inputs", None))  # type: ignore[attr-defined]

    def _choose_text(self, verb: str, then) -> None:
        from ragtui.ui.screens.menus import Choice, ChoiceMenu

        texts = self._texts()
        if not texts:
            return
        letters = "iqapr" + "vc"
        by_key = {"id": "i", "question": "q", "answer": "a", "diff": "d", "passages": "p", "record": "r", "verdict": "v", "command": "c"}
        choices = [Choice(by_key.get(t.key, letters[i % len(letters)]), t.label, t) for i, t in enumerate(texts)]
        question_id, _ = self.triage_target()
        title = Content.assemble(f"{verb} · ", safe(question_id, one_line=True, limit=40).stylize("bold"))
        self.app.push_screen(ChoiceMenu(title, choices), callback=lambda t: t is not None and then(t))  # type: ignore[attr-defined]

    # -- actions --------------------------------------------------------------------------

    def action_mark(self) -> None:
        from ragtui.ui.screens.menus import MarkMenu

        question_id, _ = self.triage_target()
        if question_id is None:
            self.say("no question to mark here", timeout=2)
            return

        def done(result: tuple[str | None, str] | None) -> None:
            if result is None:
                return
            mark, note = result
            try:
                self.notes.set(question_id, mark, note)
            except OSError as exc:
                self.say(f"could not write {self.notes.path}: {exc.strerror or exc}", severity="error", timeout=10)
                return
            what = f"marked {MARK_LABELS[mark]}" if mark else "mark removed"
            self.say(f"{question_id}: {what} — saved in {self.notes.path}", timeout=4)
            self.after_mark(question_id)

        self.app.push_screen(MarkMenu(question_id, self.notes.get(question_id)), callback=done)  # type: ignore[attr-defined]

    def action_copy(self) -> None:
        def copy(text) -> None:
            self.app.copy_to_clipboard(text.text)  # type: ignore[attr-defined]
            self.say(
                f"copied the {text.label} ({len(text.text):,} characters) to the clipboard with OSC 52: "
                "the terminal holds it (in tmux: set-clipboard on)",
                timeout=5,
            )

        self._choose_text("Copy", copy)

    def _outside(self, variable: str) -> None:
        from ragtui.ui.external import show_outside

        question_id, side = self.triage_target()

        def show(text) -> None:
            suffix = ".json" if text.key in ("record", "verdict") else ".txt"
            message = show_outside(self.app, text.text, variable=variable, name=f"{question_id}-{side}-{text.key}", suffix=suffix)  # type: ignore[attr-defined]
            self.say(message, timeout=3)

        self._choose_text("Read in $" + variable if variable == "PAGER" else "Open a copy in $" + variable, show)

    def action_pager(self) -> None:
        self._outside("PAGER")

    def action_editor(self) -> None:
        self._outside("EDITOR")

    def action_jump(self) -> None:
        from ragtui.ui.screens.menus import Prompt

        ids = self.comparison.status.get_column("id").to_list()

        def go(value: str | None) -> None:
            wanted = (value or "").strip()
            if not wanted:
                return
            if self.comparison.a.question(wanted) is None and wanted not in ids:
                self.say(f"no question {wanted!r} in this comparison", severity="warning", timeout=4)
                return
            self.jump_to(wanted)

        self.app.push_screen(Prompt(":", "jump to a question id (Tab completes, Enter goes, Esc cancels)", suggestions=ids), callback=go)  # type: ignore[attr-defined]

    def action_export(self) -> None:
        from ragtui.core.triage.export import EXTENSIONS, FORMATS
        from ragtui.ui.screens.menus import Choice, ChoiceMenu

        marked = [qid for qid in self.notes.ids()]
        ids, what = (marked, "marked") if marked else self.export_ids()
        if not ids:
            self.say("nothing to export: no marked or listed question", timeout=3)
            return
        base = self.notes.path.with_name(self.notes.path.name.removesuffix(".notes.jsonl") + ".triage")
        choices = [
            Choice("m", f"markdown, for a PR comment → {base.name}{EXTENSIONS['markdown']}", "markdown"),
            Choice("j", f"JSONL, one question a line → {base.name}{EXTENSIONS['jsonl']}", "jsonl"),
        ]
        assert set(FORMATS) == {c.value for c in choices}

        def write(fmt: str | None) -> None:
            if fmt is None:
                return
            from ragtui.core.atomic import atomic_write_text
            from ragtui.core.triage.export import render_export

            path = base.with_name(base.name + EXTENSIONS[fmt])
            try:
                atomic_write_text(path, render_export(self.comparison, ids, self.notes, fmt, what))
            except OSError as exc:
                self.say(f"could not write {path}: {exc.strerror or exc}", severity="error", timeout=10)
                return
            self.say(f"exported {len(ids)} {what} question(s) to {path}", timeout=6)

        title = f"Export {len(ids)} {what} question{'s' if len(ids) != 1 else ''}"
        self.app.push_screen(ChoiceMenu(title, choices), callback=write)  # type: ignore[attr-defined]
