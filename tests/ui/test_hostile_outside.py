"""What leaves the screen is as inert as what is on it: the pager's and the editor's copy,
the mark dialog's pre-filled note; and a temporary file's name survives any id."""

from __future__ import annotations

import re
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

from textual.widgets import Input

from ragtui.core.triage.notes import Notes
from ragtui.ui.external import file_name, show_outside
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.triage_data import host_app

NARROW = (80, 24)
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
OSC_TITLE = "\x1b]0;pwned\x07"


def _open(comparison, ids):
    return host_app(lambda: QuestionScreen(comparison, ids, 0))


class _Headless:
    """The two things `show_outside` asks of an App."""

    def suspend(self):
        return nullcontext()

    def refresh(self, **_):
        pass


def test_a_temporary_name_from_a_long_hostile_id_is_short_safe_and_distinct():
    long_id = "é\x1b]0;x\x07/../" + "a" * 1000
    name = file_name(f"{long_id}-b-answer", ".txt")
    other = file_name(f"{long_id}x-b-answer", ".txt")
    assert re.fullmatch(r"[A-Za-z0-9._-]+", name) and len(name.encode()) <= 100
    assert name != other and name.endswith(".txt")
    assert file_name("q1-b-answer", ".txt") == "q1-b-answer.txt"


def test_the_pager_gets_an_inert_copy_and_a_long_id_leaves_no_folder_behind(tmp_path, monkeypatch):
    seen = tmp_path / "seen.txt"
    pager = tmp_path / "pager.py"
    pager.write_text(f"import shutil, sys\nshutil.copy(sys.argv[1], {str(seen)!r})\n", encoding="utf-8")
    monkeypatch.setenv("PAGER", f"{sys.executable} {pager}")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    text = f"link \x1b]8;;https://evil.example\x07here\x1b]8;;\x07 \x1b[8mhidden\x1b[0m \x9b31m \u202eabc {OSC_TITLE}"
    message = show_outside(_Headless(), text, variable="PAGER", name="q" * 300 + "-b-answer")  # type: ignore[arg-type]
    assert message.startswith("back from $PAGER")
    shown = seen.read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(shown)
    assert "␛]8;;https://evil.example␇here" in shown and "<U+202E>abc" in shown
    assert list((tmp_path / "tmp").iterdir()) == []  # the private folder went with the file


async def test_the_pager_receives_the_hostile_question_neutralised(hostile_triage, tmp_path, monkeypatch):
    seen = tmp_path / "seen.txt"
    pager = tmp_path / "pager.py"
    pager.write_text(f"import shutil, sys\nshutil.copy(sys.argv[1], {str(seen)!r})\n", encoding="utf-8")
    monkeypatch.setenv("PAGER", f"{sys.executable} {pager}")
    ids = list(hostile_triage.b.run.frame["id"])[:1]
    async with _open(hostile_triage, ids).run_test(size=NARROW) as pilot:
        monkeypatch.setattr(type(pilot.app), "suspend", lambda self: nullcontext())
        await pilot.press("o", "q")
        await pilot.pause()
    assert seen.exists() and not RAW_CONTROL.search(seen.read_text(encoding="utf-8"))


async def test_the_mark_dialog_prefills_a_stored_note_inert_and_keeps_it_when_unedited(triage):
    notes_path = triage.b.run.path.with_name("b.notes.jsonl")
    Notes.load(notes_path).set("proc-01", "flaky", f"title {OSC_TITLE} \u202eend")
    async with _open(triage, ["proc-01"]).run_test(size=NARROW) as pilot:
        await pilot.press("m")
        await pilot.pause()
        value = pilot.app.screen.query_one("#mark-note", Input).value
        assert not RAW_CONTROL.search(value) and "␛]0;pwned␇" in value
        await pilot.press("f")  # the same mark; the note left as it is
        await pilot.press("enter")
        await pilot.pause()
    mark = Notes.load(notes_path).get("proc-01")
    assert mark is not None and mark.note == f"title {OSC_TITLE} \u202eend"


def test_nothing_of_the_pager_run_is_left_when_the_name_is_too_long(tmp_path, monkeypatch):
    monkeypatch.setenv("PAGER", "true")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    show_outside(_Headless(), "x", variable="PAGER", name="é" * 400)  # type: ignore[arg-type]
    assert list(Path(tmp_path).iterdir()) == []
