"""Snapshots of the failure list and the question view at 80×24 and 160×50."""

from __future__ import annotations

import pytest

from ragtui.ui.screens.failures import FailureListScreen
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.triage_data import host_app

SIZES = {"80x24": (80, 24), "160x50": (160, 50)}


@pytest.mark.parametrize("size", SIZES)
def test_failure_list_snapshot(snap_compare, triage, size):
    app = host_app(lambda: FailureListScreen(triage))
    assert snap_compare(app, press=["down", "down"], terminal_size=SIZES[size])


@pytest.mark.parametrize("size", SIZES)
def test_question_view_of_a_retrieval_regression_snapshot(snap_compare, triage, size):
    app = host_app(lambda: QuestionScreen(triage, ["proc-01", "proc-02"], 0))
    assert snap_compare(app, terminal_size=SIZES[size])


@pytest.mark.parametrize("size", SIZES)
def test_question_view_side_a_snapshot(snap_compare, triage, size):
    app = host_app(lambda: QuestionScreen(triage, ["proc-01", "proc-02"], 0))
    assert snap_compare(app, press=["t"], terminal_size=SIZES[size])


@pytest.mark.parametrize("size", SIZES)
def test_question_view_of_a_generation_regression_on_side_b_snapshot(snap_compare, triage, size):
    app = host_app(lambda: QuestionScreen(triage, ["proc-01", "proc-02"], 0))
    assert snap_compare(app, press=["n"], terminal_size=SIZES[size])


# ---- triage keys at 80×24: the A→B diff, marks in the list and in the question view ------


def _marked(comparison) -> None:
    from ragtui.core.triage.notes import Notes

    notes = Notes.load(comparison.b.run.path.with_name("b.notes.jsonl"))
    notes.set("proc-01", "gold_wrong", "p_teletravail_042 is outdated")
    notes.set("proc-02", "bug")


def test_question_view_rank_and_answer_diff_snapshot(snap_compare, triage):
    app = host_app(lambda: QuestionScreen(triage, ["proc-01", "none-01"], 0))
    assert snap_compare(app, press=["d"], terminal_size=(80, 24))


def test_question_view_answer_diff_snapshot(snap_compare, triage):
    app = host_app(lambda: QuestionScreen(triage, ["proc-01", "none-01"], 1))
    assert snap_compare(app, press=["d", "pagedown"], terminal_size=(80, 24))


def test_failure_list_with_marks_snapshot(snap_compare, triage):
    _marked(triage)
    app = host_app(lambda: FailureListScreen(triage))
    assert snap_compare(app, press=["down", "down"], terminal_size=(80, 24))


def test_question_view_marked_snapshot(snap_compare, triage):
    _marked(triage)
    app = host_app(lambda: QuestionScreen(triage, ["proc-01", "proc-02"], 0))
    assert snap_compare(app, terminal_size=(80, 24))


def test_mark_menu_snapshot(snap_compare, triage):
    app = host_app(lambda: QuestionScreen(triage, ["proc-01", "proc-02"], 0))
    assert snap_compare(app, press=["m", "b", *"rank 7"], terminal_size=(80, 24))
