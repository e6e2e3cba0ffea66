"""What a user makes on the bundled sample goes to their data folder, never into the package.

The sample's folder is the repository in a clone and site-packages once installed: labels,
marks and exports made on it go to `$XDG_DATA_HOME/ragtui/sample`, and the report says where.
A run anywhere else keeps its sidecars beside it.
"""

from __future__ import annotations

import json
import shutil

from ragtui.cli import main
from ragtui.cli.tui import sample_inputs
from ragtui.core.loading.inputs import default_labels_path
from ragtui.core.loading.label_writer import LabelWriter, writable_problem
from ragtui.core.loading.labels import RunLabels
from ragtui.core.triage.notes import Notes, default_notes_path


def test_the_samples_labels_and_marks_go_to_the_users_data_folder(private_data_home):
    sample = sample_inputs()
    assert default_labels_path(sample["a"]) == private_data_home / "sample" / "baseline.labels.jsonl"
    assert default_notes_path(sample["b"]) == private_data_home / "sample" / "candidate.notes.jsonl"


def test_a_copy_of_the_sample_keeps_its_sidecars_beside_it(tmp_path):
    copy = tmp_path / "candidate.jsonl"
    shutil.copy(sample_inputs()["b"], copy)
    assert default_labels_path(copy) == tmp_path / "candidate.labels.jsonl"
    assert default_notes_path(copy) == tmp_path / "candidate.notes.jsonl"


def test_a_label_and_a_mark_on_the_sample_make_the_data_folder_and_leave_the_sample_untouched(private_data_home):
    sample = sample_inputs()
    before = sorted(path.name for path in sample["a"].parent.iterdir())
    labels_path = default_labels_path(sample["b"])
    assert not labels_path.parent.exists() and writable_problem(labels_path) is None
    writer = LabelWriter(labels_path)
    writer.record(RunLabels("candidate", labels_path), "q005", sentence=0, human=False)
    writer.close()
    Notes.load(default_notes_path(sample["b"])).set("q005", "bug", "invented step")
    assert [json.loads(line)["id"] for line in labels_path.read_text(encoding="utf-8").splitlines()] == ["q005"]
    assert Notes.load(private_data_home / "sample" / "candidate.notes.jsonl").get("q005").mark == "bug"
    assert sorted(path.name for path in sample["a"].parent.iterdir()) == before


def test_the_report_of_the_sample_says_where_its_labels_are_kept(private_data_home, capsys):
    sample = sample_inputs()
    args = [str(sample["a"]), str(sample["b"]), "--gold", str(sample["gold"]), "--config", str(sample["config"]), "--format", "json"]
    assert main(["report", *args]) == 0
    calibration = json.loads(capsys.readouterr().out)["calibration"]
    assert calibration["B"]["labels_file"] == str(private_data_home / "sample" / "candidate.labels.jsonl")
