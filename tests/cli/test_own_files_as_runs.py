"""ragtui's own files (labels, notes, batch jobs, gold edits) are never read as runs.

Named as A or B they are refused by name (exit 2); a glob that picks them up among more
runs skips them with a note, and the runs around them load as usual.
"""

from __future__ import annotations

import glob
import json
import shutil

import pytest

from ragtui.cli import main
from ragtui.cli.tui import sample_inputs

SIDECARS = {
    "candidate.labels.jsonl": {"id": "q001", "run": "candidate", "sentence": 0, "human": True, "sampled": False, "at": "2026-11-30T10:00:00Z"},
    "candidate.notes.jsonl": {"id": "q001", "mark": "bug", "note": "", "at": "2026-11-30T10:00:00Z"},
    "gold.edits.jsonl": {"question": "q001", "field": "category", "before": "procedurale", "after": "factuelle_courte"},
}


@pytest.fixture
def folder(tmp_path):
    """The sample's runs with a labels file, a notes file, a gold edits file and a batch job file beside them."""
    root = sample_inputs()["a"].parent
    for name in ("baseline.jsonl", "candidate.jsonl", "candidate_k3.jsonl", "gold.yaml"):
        shutil.copy(root / name, tmp_path / name)
    for name, line in SIDECARS.items():
        (tmp_path / name).write_text(json.dumps(line) + "\n", encoding="utf-8")
    (tmp_path / "judged.jsonl.batch.json").write_text('{"format": "ragtui-judge-batch/1", "jobs": []}\n', encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("candidate.labels.jsonl", "candidate.labels.jsonl is ragtui's labels file for run candidate, not a run"),
        ("candidate.notes.jsonl", "candidate.notes.jsonl is ragtui's notes file for run candidate, not a run"),
        ("judged.jsonl.batch.json", "judged.jsonl.batch.json is ragtui's batch job file for judge output judged.jsonl, not a run"),
        ("gold.edits.jsonl", "gold.edits.jsonl is ragtui's gold edits file for gold set gold, not a run"),
    ],
)
def test_own_file_named_as_run_b_is_refused_by_name_with_exit_2(folder, name, said, capsys):
    assert main(["report", str(folder / "candidate.jsonl"), str(folder / name)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"ragtui: {folder / name}: -: {said}" in err
    assert "Traceback" not in err


def test_own_file_named_as_the_only_run_is_refused_by_name(folder, capsys):
    assert main(["report", str(folder / "candidate.labels.jsonl")]) == 2
    assert "is ragtui's labels file for run candidate, not a run" in capsys.readouterr().err


def test_a_glob_that_picks_up_own_files_skips_them_with_a_note(folder, capsys):
    runs = sorted(glob.glob(str(folder / "candidate*.jsonl")))  # what the shell gives for candidate*.jsonl
    assert [p.rsplit("/", 1)[1] for p in runs] == ["candidate.jsonl", "candidate.labels.jsonl", "candidate.notes.jsonl", "candidate_k3.jsonl"]
    assert main(["report", str(folder / "baseline.jsonl"), *runs, "--gold", str(folder / "gold.yaml"), "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert [run["name"] for run in json.loads(out)["runs"]] == ["baseline", "candidate", "candidate_k3"]
    assert f"ragtui: skipped {folder / 'candidate.labels.jsonl'}: ragtui's labels file for run candidate, not a run" in err
    assert f"ragtui: skipped {folder / 'candidate.notes.jsonl'}: ragtui's notes file for run candidate, not a run" in err


def test_the_app_on_a_glob_opens_the_runs_and_skips_own_files(folder, capsys, monkeypatch):
    import ragtui.cli.terminal
    import ragtui.ui.launch

    launched = []
    monkeypatch.setattr(ragtui.cli.terminal, "terminal_problem", lambda: None)
    monkeypatch.setattr(ragtui.ui.launch, "launch", lambda inputs, **options: launched.append(inputs) or 0)
    assert main(sorted(glob.glob(str(folder / "candidate*.jsonl")))) == 0
    (inputs,) = launched
    assert inputs.runs == (folder / "candidate.jsonl", folder / "candidate_k3.jsonl")
    assert "skipped" in capsys.readouterr().err


def test_the_app_refuses_a_notes_file_named_as_run_b(folder, capsys):
    assert main([str(folder / "candidate.jsonl"), str(folder / "candidate.notes.jsonl")]) == 2
    assert "candidate.notes.jsonl is ragtui's notes file for run candidate, not a run" in capsys.readouterr().err


def test_a_run_whose_name_only_contains_a_sidecar_word_is_still_a_run():
    from ragtui.core.loading.own_files import own_file  # (new with this test: the others run on older code too)

    assert own_file("runs/labels.jsonl") is None and own_file("notes.jsonl") is None and own_file("candidate.jsonl") is None
    assert own_file(".labels.jsonl") is None
