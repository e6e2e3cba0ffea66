"""Each tool's file is recognised by its content, whatever its name; ragtui's own files are not."""

from __future__ import annotations

import json
import shutil
import zipfile

import pytest

from ragtui.core.errors import InputError
from ragtui.core.importers import FORMATS, detect, detect_gold, import_gold, import_run

from .builders import FIXTURES, inspect_entries, write_archive

BY_CONTENT = {
    "ragas_results.csv": "ragas",
    "ragas_results.jsonl": "ragas",
    "promptfoo_output.json": "promptfoo",
    "inspect_log.json": "inspect",
    "deepeval_test_run.json": "deepeval",
    "trec_run.txt": "trec",
    "trec_qrels.txt": "trec",
}


@pytest.mark.parametrize("name,fmt", BY_CONTENT.items())
def test_each_fixture_is_detected_by_content_under_a_neutral_name(tmp_path, name, fmt):
    renamed = tmp_path / "results.dat"
    shutil.copy(FIXTURES / name, renamed)
    assert detect(renamed) == fmt


def test_an_eval_archive_is_detected_and_a_zip_of_something_else_is_not(tmp_path):
    log = json.loads((FIXTURES / "inspect_log.json").read_text(encoding="utf-8"))
    assert detect(write_archive(tmp_path / "x.zip", inspect_entries(log))) == "inspect"
    other = tmp_path / "other.eval"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert detect(other) is None


def test_ragtuis_own_files_are_not_taken_for_a_peer_format(shared_dir, tmp_path):
    examples = shared_dir / "spec" / "examples"
    assert detect(examples / "run_a.jsonl") is None
    assert detect(examples / "gold.yaml") is None
    records = [json.loads(line) for line in (examples / "run_a.jsonl").read_text(encoding="utf-8").splitlines()]
    as_json = tmp_path / "run.json"
    as_json.write_text(json.dumps({"run": records[0]["run"], "results": records[1:]}, indent=2), encoding="utf-8")
    assert detect(as_json) is None
    assert detect_gold(examples / "gold.yaml") is None


def test_only_qrels_are_detected_as_a_gold_set():
    assert detect_gold(FIXTURES / "trec_qrels.txt") == "trec"
    assert detect_gold(FIXTURES / "trec_run.txt") is None
    assert detect_gold(FIXTURES / "ragas_results.csv") is None


def test_a_pretty_printed_file_whose_keys_come_late_is_still_recognised(tmp_path):
    data = json.loads((FIXTURES / "promptfoo_output.json").read_text(encoding="utf-8"))
    late = {"config": {"padding": "x" * 100_000}, **data}  # evalId after the first 64 KiB
    path = tmp_path / "out.json"
    path.write_text(json.dumps(late, indent=2), encoding="utf-8")
    assert detect(path) == "promptfoo"


def test_a_missing_or_empty_file_is_left_to_the_reader(tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    assert detect(tmp_path / "absent.csv") is None and detect(empty) is None
    with pytest.raises(InputError, match="the file is empty"):
        import_run(empty, "ragas")


def test_an_unknown_file_asks_for_the_format_by_name(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n", encoding="utf-8")
    with pytest.raises(InputError, match="name the format with --from NAME"):
        import_run(path)


def test_an_unknown_format_name_lists_the_known_ones():
    with pytest.raises(InputError, match="unknown format 'langsmith': expected one of ragas, promptfoo, inspect, deepeval, trec"):
        import_run(FIXTURES / "ragas_results.csv", "langsmith")


def test_format_names_users_type_are_accepted():
    assert FORMATS == ("ragas", "promptfoo", "inspect", "deepeval", "trec")
    assert import_run(FIXTURES / "inspect_log.json", "inspect_ai").meta["imported_from"]["format"] == "inspect"
    assert import_gold(FIXTURES / "trec_qrels.txt", "qrels")[0][0]["id"] == "q1"


def test_a_run_file_given_as_a_gold_set_is_refused():
    with pytest.raises(InputError, match="only TREC qrels are read as gold"):
        import_gold(FIXTURES / "ragas_results.csv", "ragas")
