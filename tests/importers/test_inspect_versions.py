"""inspect_ai logs of every format: format 1 (≤ 0.3.17), errored and cancelled runs, chunked
samples (inspect_ai's large-sample layout), NaN scores and dict-valued scores.

Fixtures are written from inspect_ai's own models (log/_log.py: EvalSample, EvalResults,
their `migrate_deprecated` / `convert_scorer_to_scorers` validators) and from the chunked
layout its `log/_recorders/chunked/format.py` describes; the values are worked by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.core.errors import InputError
from ragtui.core.importers import import_run

from .builders import FIXTURES, inspect_entries, write_archive

FORMAT_1 = FIXTURES / "inspect_log_format1.json"
LOG = FIXTURES / "inspect_log.json"


def log() -> dict:
    return json.loads(LOG.read_text(encoding="utf-8"))


def report(capsys, *args: str) -> dict:
    assert main(["report", *args, "--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def write_json(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_format_1_log_opens_with_its_scorers_accuracy_as_inspects_reader_migrates_it(capsys):
    records = import_run(FORMAT_1, "inspect").records
    assert [record["scores"] for record in records] == [{"match": 1.0}, {"match": 1.0}, {"match": 0.0}]
    graded = report(capsys, str(FORMAT_1))["tool_metrics"]["inspect:match"]
    # C, C, I → 2/3, the accuracy the log's own results.metrics say
    assert graded["A"] == pytest.approx(0.6667, abs=5e-5) and graded["n"] == 3


def test_an_errored_sample_whose_output_is_empty_has_a_null_answer(tmp_path):
    data = log()
    data["samples"][2]["output"] = {"model": "openai/gpt-4o-mini", "choices": [], "completion": ""}
    third = import_run(write_json(tmp_path, data), "inspect").records[2]
    assert third["answer"] is None and third["generation_error"] == "RateLimitError('429 Too Many Requests')"


def test_an_errored_sample_that_carries_a_score_is_left_out_of_the_tool_metrics_mean(tmp_path, capsys):
    data = log()
    # q003 errored, yet a scorer graded what it left: C. inspect's mean leaves it out.
    data["samples"][2]["scores"] = {"model_graded_fact": {"value": "C", "explanation": "scored anyway"}}
    graded = report(capsys, str(write_json(tmp_path, data)))["tool_metrics"]["inspect:model_graded_fact"]
    # q001 C, q004 I → 0.5 over 2; q003 is an error, not a 1
    assert (graded["A"], graded["n"], graded["errors"]) == (0.5, 2, {"A": 1})


@pytest.mark.parametrize("status", ["cancelled", "error"])
def test_a_log_without_samples_names_its_status_rather_than_no_log_samples(tmp_path, status):
    data = log()
    del data["samples"]
    data["status"] = status
    data["error"] = {"message": "KeyboardInterrupt()", "traceback": "", "traceback_ansi": ""}
    with pytest.raises(InputError) as caught:
        import_run(write_json(tmp_path, data), "inspect")
    message = str(caught.value)
    assert f"the eval's status is '{status}' (\"KeyboardInterrupt()\")" in message and "--no-log-samples" not in message
    entries = [(name, body) for name, body in inspect_entries(data | {"samples": []}) if not name.startswith("samples/")]
    with pytest.raises(InputError, match=f"status is '{status}'"):
        import_run(write_archive(tmp_path / "log.eval", entries), "inspect")


def chunked_entries(data: dict) -> list[tuple[str, bytes]]:
    """The `.eval` entries with every sample in inspect's chunked shape: a shell, its metadata
    apart, and its long texts moved to `attachments/{start}.json` as `attachment://{index}`."""
    entries = []
    for name, body in inspect_entries(data):
        if not name.startswith("samples/"):
            entries.append((name, body))
            continue
        sample = json.loads(body)
        prefix = name.removesuffix(".json")
        question = sample["input"]
        attachments = ["(the system prompt)", question if isinstance(question, str) else json.dumps(question)]
        if isinstance(question, str):
            sample["input"] = "attachment://1"
        shell = {key: value for key, value in sample.items() if key not in ("messages", "events", "attachments", "metadata")}
        shell["message_refs"] = []
        entries.append((f"{prefix}/sample.json", json.dumps(shell).encode()))
        if sample.get("metadata"):
            entries.append((f"{prefix}/metadata.json", json.dumps(sample["metadata"]).encode()))
        entries.append((f"{prefix}/skeleton.json", b"{}"))
        entries.append((f"{prefix}/messages/0.json", b"[]"))
        entries.append((f"{prefix}/events/0.json", b"[]"))
        entries.append((f"{prefix}/attachments/0.json", json.dumps(attachments[:1]).encode()))
        entries.append((f"{prefix}/attachments/1.json", json.dumps(attachments[1:]).encode()))
    return entries


def test_chunked_samples_are_read_through_the_archives_own_entry_names(tmp_path):
    data = log()
    chunked = import_run(write_archive(tmp_path / "log.eval", chunked_entries(data)), "inspect")
    whole = import_run(LOG, "inspect")
    strip = lambda records: [{**r, "source": {k: v for k, v in r["source"].items() if k != "entry"}} for r in records]  # noqa: E731
    assert strip(chunked.records) == strip(whole.records)
    assert chunked.records[1]["question"] == "Combien de jours de teletravail par semaine ?"  # from attachment://1
    assert chunked.records[0]["category"] == "factuelle_courte"  # from metadata.json


def test_nan_scores_and_dict_valued_scores_read_as_such(tmp_path):
    data = log()
    data["samples"][0]["scores"] = {"rag": {"value": {"faithfulness": float("nan"), "recall": 0.5, "grade": "C"}}}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data), encoding="utf-8")  # json writes NaN, as inspect does
    first = import_run(path, "inspect").records[0]
    assert first["scores"]["rag.faithfulness"] is None and "NaN" in first["scores_notes"]["rag.faithfulness"]
    assert first["scores"]["rag.recall"] == 0.5 and first["scores"]["rag.grade"] == 1.0
    assert not any(isinstance(v, float) and math.isnan(v) for v in first["scores"].values())


def test_the_logs_own_metrics_are_kept_with_nan_as_null_and_grouped_values_by_group(tmp_path):
    assert import_run(FORMAT_1, "inspect").meta["imported_from"]["metrics"] == {"match": {"accuracy": 0.6666666666666666, "bootstrap_std": 0.27}}
    data = log()
    data["results"]["scores"][0]["metrics"] = {
        "accuracy": {"name": "accuracy", "value": 0.5, "params": {}},
        "stderr": {"name": "stderr", "value": float("nan"), "params": {}},
        "ci_low": {"name": "low", "group": "ci", "value": 0.1, "params": {}},
    }
    # a scorer whose metrics are declared per key of a dict-valued score
    data["eval"]["scorers"] = [{"name": "model_graded_fact", "metrics": {"*": [{"name": "inspect_ai/mean"}]}}]
    imported = import_run(write_json(tmp_path, data), "inspect").meta["imported_from"]
    assert imported["metrics"] == {"model_graded_fact": {"accuracy": 0.5, "stderr": None, "ci/low": 0.1}}
