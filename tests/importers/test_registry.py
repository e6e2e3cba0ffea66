"""Each format is one row of the importer table: its names, its reader and its recognisers."""

from __future__ import annotations

import json

import pytest

from ragtui.cli import main
from ragtui.core.importers import detect, import_run, registry
from ragtui.core.importers.registry import Importer
from ragtui.core.loading.records import RawRun
from ragtui.core.loading.runs import file_format, load_run


def read_evalkit(path, gold_questions=None, variant=None):
    """A made-up tool's reader: one question per line of `{"evalkit": ..., "q": ...}`."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    records = [{"id": row["q"], "retrieved": row["hits"], "gold_passages": row["gold"], "answer": f"v{variant}"} for row in rows]
    return RawRun(path, {"name": "evalkit run"}, records, list(range(1, len(rows) + 1)))


@pytest.fixture
def evalkit(monkeypatch):
    row = Importer(
        "evalkit", "tests.importers.test_registry:read_evalkit", aliases=("ek",), options=("variant",),
        keys=lambda obj: "evalkit" in obj,
    )
    monkeypatch.setattr(registry, "IMPORTERS", (*registry.IMPORTERS, row))


def test_a_format_added_as_one_row_is_detected_named_and_read(tmp_path, evalkit):
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"evalkit": 1, "q": "q1", "hits": ["p1", "p2"], "gold": ["p2"]}) + "\n", encoding="utf-8")
    assert detect(path) == "evalkit"
    assert file_format(path, "EK") == "evalkit"  # an alias, in any case
    raw = import_run(path, "evalkit", variant=2)
    assert raw.records == [{"id": "q1", "retrieved": ["p1", "p2"], "gold_passages": ["p2"], "answer": "v2"}]
    run = load_run(path)
    assert run.source_format == "evalkit" and run.frame.height == 1


def test_from_names_are_read_in_any_case_and_by_alias(tmp_path):
    path = tmp_path / "x.csv"
    assert [file_format(path, name) for name in ("RAGAS", "Inspect_AI", "trec_eval", "QRELS", "ragtui")] == [
        "ragas", "inspect", "trec", "trec", "ragtui"
    ]


def test_a_reader_gets_only_the_options_its_format_takes(tmp_path, evalkit):
    path = tmp_path / "out.jsonl"
    path.write_text(json.dumps({"evalkit": 1, "q": "q1", "hits": [], "gold": []}) + "\n", encoding="utf-8")
    # gold_categories is DeepEval's: the made-up reader does not take it and is not handed it.
    raw = import_run(path, None, variant=3, gold_categories=frozenset({"x"}))
    assert raw.records[0]["answer"] == "v3"


@pytest.mark.parametrize("command", ["report", "tui", "convert"])
def test_the_help_of_from_names_every_format_of_the_table(capsys, command):
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(" + ", ".join(registry.FORMATS) + ")" in text
