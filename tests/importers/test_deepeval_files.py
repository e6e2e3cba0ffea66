"""DeepEval's `.latest_test_run.json` (a test run wrapped in `testRunData`) and its span metrics.

The fixture is written from DeepEval's TestRun and TraceApi models (test_run.py,
tracing/api.py): one test case whose own Faithfulness is 0.45 (fail) and whose two LLM
spans scored 0.9 and 0.89 (pass). DeepEval's `metricsScores` pools the three: mean
(0.45 + 0.9 + 0.89) / 3 = 0.7467, 2 of 3 pass.
"""

from __future__ import annotations

import json

import pytest

from ragtui.cli import main
from ragtui.core.errors import InputError
from ragtui.core.importers import detect, import_run
from ragtui.core.loading.runs import check_run

from .builders import FIXTURES

LATEST = FIXTURES / "deepeval_latest_test_run.json"


def test_the_latest_test_run_file_wrapped_in_test_run_data_is_recognised_and_read(tmp_path):
    copy = tmp_path / ".latest_test_run.json"
    copy.write_text(json.dumps(json.loads(LATEST.read_text(encoding="utf-8"))), encoding="utf-8")  # one line
    assert detect(LATEST) == "deepeval" and detect(copy) == "deepeval"
    run = import_run(copy)
    assert [record["id"] for record in run.records] == ["q001"]
    assert run.meta["name"] == "test_rag.py"


def test_span_metrics_are_separate_tool_metrics_beside_the_test_cases_own():
    record = import_run(LATEST, "deepeval").records[0]
    assert record["scores"] == {"Faithfulness": 0.45, "span:draft:Faithfulness": 0.9, "span:rewrite:Faithfulness": 0.89}
    assert record["score_details"]["span:draft:Faithfulness"]["pass"] is True
    assert record["tool_verdict"] == {"pass": False}


def test_deepevals_own_pooled_summary_is_kept_and_the_run_warns_how_spans_are_read():
    run, problems = check_run(LATEST)
    assert run is not None
    pooled = run.meta.extra["imported_from"]["metrics_scores"]["Faithfulness"]
    assert pooled["mean"] == pytest.approx(0.7467, abs=5e-5)
    assert (pooled["scores"], pooled["passes"], pooled["fails"], pooled["errors"]) == (3, 2, 1, 0)
    [note] = [p.message for p in problems if not p.is_error]
    assert "span:SPAN:METRIC" in note and "Faithfulness 0.7467 over 3 scores (2 pass)" in note


def test_the_report_shows_each_span_metric_and_the_pooling_warning(capsys):
    assert main(["report", str(LATEST), "--format", "json"]) == 0, capsys.readouterr().err
    data = json.loads(capsys.readouterr().out)
    metrics = data["tool_metrics"]
    assert metrics["deepeval:Faithfulness"]["A"] == 0.45
    assert metrics["deepeval:span:draft:Faithfulness"]["A"] == 0.9
    assert metrics["deepeval:span:rewrite:Faithfulness"]["A"] == 0.89
    assert any("0.7467" in warning for warning in data["warnings"])


def test_a_run_of_conversational_test_cases_only_says_what_is_read_instead(tmp_path):
    path = tmp_path / "test_run_chat.json"
    turns = [{"role": "user", "content": "Bonjour"}, {"role": "assistant", "content": "Bonjour !"}]
    path.write_text(json.dumps({"testCases": [], "conversationalTestCases": [{"name": "chat_0", "turns": turns, "success": True}]}), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_run(path, "deepeval")
    assert "conversationalTestCases: only 1 conversational test cases" in str(caught.value)
    assert "single-turn test cases (LLMTestCase)" in str(caught.value)


def test_the_files_own_metrics_scores_win_over_the_recomputed_pool(tmp_path):
    data = json.loads(LATEST.read_text(encoding="utf-8"))
    data["testRunData"]["metricsScores"] = [{"metric": "Faithfulness", "scores": [0.45, 0.9, 0.89, 1.0], "passes": 3, "fails": 1, "errors": 0}]
    path = tmp_path / ".latest_test_run.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    pooled = import_run(path, "deepeval").meta["imported_from"]["metrics_scores"]["Faithfulness"]
    assert (round(pooled["mean"], 4), pooled["scores"], pooled["passes"]) == (0.81, 4, 3)
