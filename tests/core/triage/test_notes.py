"""The notes sidecar: appended and on disk at each mark, the last line wins, bad lines reported."""

from __future__ import annotations

import json
import os
import stat

from ragtui.core.triage.notes import Notes, default_notes_path


def test_the_sidecar_sits_beside_the_run_it_is_about(tmp_path):
    assert default_notes_path(tmp_path / "candidate.jsonl") == tmp_path / "candidate.notes.jsonl"
    assert default_notes_path(tmp_path / "run.parquet") == tmp_path / "run.notes.jsonl"


def test_each_mark_is_one_line_on_disk_before_set_returns(tmp_path):
    path = tmp_path / "b.notes.jsonl"
    notes = Notes.load(path)
    notes.set("q046", "bug", "the date is wrong")
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0])["id"] == "q046" and json.loads(lines[0])["mark"] == "bug"
    notes.set("q002", "ok")
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2


def test_reloading_shows_the_last_mark_of_each_question_and_a_removed_one_is_gone(tmp_path):
    path = tmp_path / "b.notes.jsonl"
    notes = Notes.load(path)
    notes.set("q1", "bug", "first thought")
    notes.set("q1", "gold_wrong", "the gold passage is outdated")
    notes.set("q2", "flaky")
    notes.set("q2", None)
    again = Notes.load(path)
    assert again.get("q1").mark == "gold_wrong" and again.get("q1").note == "the gold passage is outdated"
    assert again.get("q2") is None
    assert again.counts() == {"ok": 0, "bug": 0, "gold_wrong": 1, "flaky": 0}


def test_a_note_is_kept_on_one_line(tmp_path):
    notes = Notes.load(tmp_path / "n.jsonl")
    assert notes.set("q1", "ok", "line one\nline two\tend").note == "line one line two end"


def test_a_bad_line_is_reported_with_its_line_and_the_others_still_load(tmp_path):
    path = tmp_path / "n.jsonl"
    path.write_text('{"id": "q1", "mark": "bug"}\nnot json\n{"id": "q2", "mark": "great"}\n{"id": "q3", "mark": "ok"}\n', encoding="utf-8")
    notes = Notes.load(path)
    assert set(notes.marks) == {"q1", "q3"}
    assert [(p.line, p.field) for p in notes.problems] == [(2, None), (3, "mark")]


def test_the_sidecar_is_created_with_the_users_umask(tmp_path):
    old = os.umask(0o077)
    try:
        Notes.load(tmp_path / "n.jsonl").set("q1", "ok")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "n.jsonl").stat().st_mode) == 0o600
