"""Snapshots of the gold menus of the question view at 80×24, in colour and with NO_COLOR."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtui.core.gold.triage import GoldFixer
from ragtui.core.loading.gold import load_gold
from ragtui.core.loading.inputs import default_gold_edits_path
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.triage_data import host_app, triage_comparison


def _app(root: Path):
    comparison = triage_comparison(root)
    gold = load_gold(comparison.a.run.path.with_name("gold.yaml"))
    fixer = GoldFixer.open(gold, default_gold_edits_path(gold.path), None, ("sans_reponse",))
    return host_app(lambda: QuestionScreen(comparison, ["proc-01", "proc-02"], 0, gold=fixer))


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "no-color"])
def test_gold_passage_menu_snapshot(snap_compare, tmp_path, monkeypatch, no_color):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(_app(tmp_path / "triage"), press=["g"], terminal_size=(80, 24))


@pytest.mark.parametrize("no_color", [False, True], ids=["colour", "no-color"])
def test_gold_fix_menu_with_a_reason_snapshot(snap_compare, tmp_path, monkeypatch, no_color):
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(_app(tmp_path / "triage"), press=["G", "c", *"not a procedure"], terminal_size=(80, 24))
