"""Settings are taken as written (issue 9, item 8): no silent fallback to a default."""

from __future__ import annotations

import pytest

from ragtui.cli import main
from ragtui.core.loading.config import load_config
from tests.core.messy_runs import compare_files, record, write_run


def test_max_drop_zero_is_kept_not_replaced_by_the_default(tmp_path):
    path = tmp_path / "ragtui.yaml"
    path.write_text("regression:\n  max_drop: 0\n", encoding="utf-8")
    assert load_config(path).max_drop == 0.0


def test_max_drop_zero_flags_any_drop(tmp_path):
    config = tmp_path / "ragtui.yaml"
    config.write_text("regression:\n  max_drop: 0\n", encoding="utf-8")
    a = write_run(tmp_path / "a.jsonl", [record(f"q{i}", gold=[f"g-q{i}"]) for i in range(50)])
    b = write_run(tmp_path / "b.jsonl", [record(f"q{i}", gold=[f"g-q{i}"], hit=i != 0) for i in range(50)])  # −2 pts
    assert compare_files(a, b, config=config).metrics["recall@5"].drop_flagged


def _k10_run(tmp_path):
    # The gold passage sits at rank 7: recall@10 is 1.0, recall@5 is 0.0.
    retrieved = [f"p{i}" for i in range(6)] + ["g-q1", "p7", "p8", "p9"]
    return write_run(tmp_path / "run.jsonl", [record("q1", gold=["g-q1"], retrieved=retrieved)], k=10)


def test_a_config_without_k_in_the_current_folder_leaves_the_runs_own_k(tmp_path, monkeypatch):
    run = _k10_run(tmp_path)
    (tmp_path / "ragtui.yaml").write_text("targets:\n  faithfulness: {min: 0.9}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    comparison = compare_files(run)
    assert comparison.k == 10
    assert comparison.metrics["recall@10"].a.value == 1.0


def test_the_configs_k_when_written_wins_over_the_runs(tmp_path):
    run = _k10_run(tmp_path)
    config = tmp_path / "ragtui.yaml"
    config.write_text("k: 5\n", encoding="utf-8")
    assert compare_files(run, config=config).k == 5
    assert compare_files(run, config=config, k=3).k == 3  # -k wins over both


@pytest.mark.parametrize("command", ["report", "compare", "open", "judge"])
@pytest.mark.parametrize("k", ["0", "-3"])
def test_k_below_one_is_a_usage_error_in_every_command(tmp_path, capsys, command, k):
    run = _k10_run(tmp_path)
    extra = ["-o", str(tmp_path / "out.jsonl")] if command == "judge" else []
    assert main([command, str(run), "-k", k, *extra]) == 2
    assert "-k: must be at least 1" in capsys.readouterr().err
