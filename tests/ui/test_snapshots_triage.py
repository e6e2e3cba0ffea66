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
