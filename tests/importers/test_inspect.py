"""inspect_ai logs (`.json` EvalLogs and `.eval` archives) become ragtui runs, without inspect_ai."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers import import_run

from .builders import FIXTURES, gold_index, inspect_entries, write_archive

LOG = FIXTURES / "inspect_log.json"


def log() -> dict:
    return json.loads(LOG.read_text(encoding="utf-8"))


def without_entry(records: list[dict]) -> list[dict]:
    """Records minus where they were found (a list index in .json, an entry name in .eval)."""
    return [{**r, "source": {k: v for k, v in r["source"].items() if k != "entry"}} for r in records]


def test_a_sample_maps_input_output_scores_and_rag_metadata():
    first = import_run(LOG, "inspect").records[0]
    assert first == {
        "id": "q001",
        "question": "Quelle est la duree de la periode d'essai pour un cadre ?",
        "category": "factuelle_courte",
        "gold_passages": ["p_reglement_intx_042"],
        "expected_answer": "Quatre mois, renouvelable une fois par ecrit.",
        "retrieved": [
            {"id": "p_reglement_intx_042", "text": "Article 42 — La periode d'essai des cadres est de quatre mois. Elle peut etre renouvelee une fois, par ecrit."},
            {"id": "p_charte_info_007", "text": "Charte informatique — Le materiel fourni reste la propriete de l'entreprise."},
        ],
        # the text part only: the reasoning part is not the answer
        "answer": "La periode d'essai d'un cadre dure quatre mois. Elle est renouvelable une fois par ecrit.",
        "tokens_in": 512,
        "tokens_out": 31,
        "latency_ms": 1250.0,
        "scores": {"model_graded_fact": 1.0, "rag_checks.faithfulness": 1.0, "rag_checks.context_recall": 1.0},
        "score_details": {
            "model_graded_fact": {
                "answer": "La periode d'essai d'un cadre dure quatre mois. Elle est renouvelable une fois par ecrit.",
                "explanation": "The answer matches the target.\n\nGRADE: C",
                "value": "C",
                "mapped": "as inspect's value_to_float does",
                "pass": True,
            },
            "rag_checks.faithfulness": {"explanation": "2/2 claims supported"},
            "rag_checks.context_recall": {"explanation": "2/2 claims supported"},
        },
        "tool_fields": {"metadata": {"source_document": "reglement_interieur.pdf"}},
        "source": {"id": "q001", "epoch": 1, "entry": "samples[0]"},
    }


def test_a_string_input_a_list_target_and_an_incorrect_grade():
    second = import_run(LOG, "inspect").records[1]
    assert second["id"] == "4" and second["question"] == "Combien de jours de teletravail par semaine ?"
    assert second["expected_answer"] == "Deux jours par semaine.\n2 jours"
    assert second["answer"] == "Trois jours par semaine."
    assert second["scores"] == {"model_graded_fact": 0.0, "rag_checks.faithfulness": None, "rag_checks.context_recall": 0.0}
    assert "NaN" in second["scores_notes"]["rag_checks.faithfulness"]
    assert "retrieved" not in second and "gold_passages" not in second


def test_a_sample_that_errored_has_a_null_answer_and_its_error():
    third = import_run(LOG, "inspect").records[2]
    assert third["question"] == "Comment poser un jour de RTT ?"  # from content parts
    assert third["answer"] is None
    assert third["generation_error"] == "RateLimitError('429 Too Many Requests')"
    assert "category" not in third and "scores" not in third


def test_the_run_metadata_comes_from_the_eval_spec():
    meta = import_run(LOG, "inspect").meta
    assert {k: meta[k] for k in ("name", "created_at", "generator_model", "judge_model")} == {
        "name": "hr_rag",
        "created_at": "2026-11-22T14:05:31+00:00",
        "generator_model": "openai/gpt-4o-mini",
        "judge_model": "anthropic/claude-sonnet-4-0",
    }
    assert meta["imported_from"]["status"] == "success"
    assert meta["imported_from"]["not_available"] == ["judge", "cost_usd"]


def test_samples_join_the_gold_set_when_their_ids_are_not_gold_ids():
    gold = [{"id": "q004", "question": "Combien de jours de teletravail par semaine ?"}, {"id": "q001", "question": "Quelle est la duree de la periode d'essai pour un cadre ?"}]
    assert [r["id"] for r in import_run(LOG, "inspect", gold_index(gold)).records] == ["q001", "q004", "q003"]


@pytest.mark.parametrize("method", ["stored", "deflate"])
def test_an_eval_archive_holds_the_same_run_as_the_json_log(tmp_path, method):
    archive = write_archive(tmp_path / "log.eval", inspect_entries(log()), method)
    run = import_run(archive, "inspect")
    expected = import_run(LOG, "inspect")
    assert without_entry(run.records) == without_entry(expected.records)
    assert run.records[1]["source"]["entry"] == "samples/4_epoch_1.json"
    assert {k: v for k, v in run.meta.items() if k != "imported_from"} == {k: v for k, v in expected.meta.items() if k != "imported_from"}


def test_a_zstandard_archive_is_read_with_polars_alone(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "zstandard", None)  # as if the package were not installed
    archive = write_archive(tmp_path / "log.eval", inspect_entries(log()), "zstd")
    assert without_entry(import_run(archive, "inspect").records) == without_entry(import_run(LOG, "inspect").records)


def test_a_zstandard_archive_is_read_with_the_zstandard_package_when_installed(tmp_path):
    pytest.importorskip("zstandard", reason="the optional zstandard package is not installed")
    archive = write_archive(tmp_path / "log.eval", inspect_entries(log()), "zstd")
    assert without_entry(import_run(archive, "inspect").records) == without_entry(import_run(LOG, "inspect").records)


def test_a_log_still_being_written_is_read_from_its_journal(tmp_path):
    entries = [(name, data) for name, data in inspect_entries(log()) if name != "header.json"]
    run = import_run(write_archive(tmp_path / "log.eval", entries), "inspect")
    assert len(run.records) == 3 and run.meta["generator_model"] == "openai/gpt-4o-mini"


def test_an_archive_without_header_is_refused_by_name(tmp_path):
    entries = [(name, data) for name, data in inspect_entries(log()) if name.startswith("samples/")]
    path = write_archive(tmp_path / "log.eval", entries)
    with pytest.raises(InputError) as caught:
        import_run(path, "inspect")
    assert str(caught.value) == f"{path}: header.json: missing: not an inspect_ai log (no header.json nor _journal/start.json)"


def test_an_archive_without_samples_says_so(tmp_path):
    entries = [(name, data) for name, data in inspect_entries(log()) if not name.startswith("samples/")]
    with pytest.raises(InputError, match="samples: no samples/\\*.json in the log"):
        import_run(write_archive(tmp_path / "log.eval", entries), "inspect")


def test_a_malformed_sample_entry_is_named(tmp_path):
    entries = [(n, b"{\n  \"id\": 4,\n  oops" if n == "samples/4_epoch_1.json" else d) for n, d in inspect_entries(log())]
    path = write_archive(tmp_path / "log.eval", entries)
    with pytest.raises(InputError) as caught:
        import_run(path, "inspect")
    (problem,) = caught.value.problems
    assert problem.field == "samples/4_epoch_1.json" and problem.message.startswith("malformed JSON at line 3")


def test_a_json_log_without_samples_says_so(tmp_path):
    data = log()
    del data["samples"]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match="no samples in the log"):
        import_run(path, "inspect")


def test_a_sample_without_a_user_message_is_named(tmp_path):
    data = log()
    data["samples"][1]["input"] = [{"role": "system", "content": "only a system prompt"}]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_run(path, "inspect")
    assert (caught.value.problems[0].line, caught.value.problems[0].field) == (2, "input")


def two_epochs(tmp_path: Path) -> Path:
    data = log()
    second = [{**sample, "epoch": 2, "output": {"choices": [{"message": {"role": "assistant", "content": "Epoch 2."}}]}} for sample in data["samples"]]
    data["samples"] += second
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_several_epochs_ask_which_one(tmp_path):
    with pytest.raises(InputError, match="2 epochs in the log \\(1, 2\\)"):
        import_run(two_epochs(tmp_path), "inspect")


def test_variant_picks_the_epoch(tmp_path):
    run = import_run(two_epochs(tmp_path), "inspect", variant=2)
    assert [r["answer"] for r in run.records] == ["Epoch 2."] * 3
    assert run.meta["imported_from"]["epoch"] == 2


def test_the_importer_does_not_need_inspect_ai():
    import ragtui.core.importers.inspect_log as module

    source = Path(module.__file__).read_text(encoding="utf-8")
    assert "import inspect_ai" not in source and "from inspect_ai" not in source
