"""`ragtui cache`, `ragtui cache clear` and `--no-cache` (docs/cli.md, the run cache)."""

from __future__ import annotations

import pytest

from ragtui.cli import main
from ragtui.cli.tui import sample_inputs
from ragtui.core.loading import run_cache


@pytest.fixture
def sample() -> list[str]:
    paths = sample_inputs()
    return [str(paths["a"]), str(paths["b"]), "--gold", str(paths["gold"]), "--config", str(paths["config"])]


def test_second_report_reads_the_cache_and_prints_the_same_report(sample, capsys, private_run_cache):
    assert main(["report", *sample, "--format", "json"]) == 0
    first = capsys.readouterr().out
    assert len(list(private_run_cache.iterdir())) == 2  # one entry per run
    assert main(["report", *sample, "--format", "json"]) == 0
    assert capsys.readouterr().out == first


def test_report_with_no_cache_neither_reads_nor_writes_the_cache(sample, capsys, private_run_cache):
    assert main(["report", *sample, "--no-cache"]) == 0
    assert not private_run_cache.exists()


def test_cache_command_says_where_the_cache_lives_and_what_it_holds(sample, capsys, private_run_cache, monkeypatch):
    main(["report", *sample])
    capsys.readouterr()
    monkeypatch.setattr(run_cache, "CACHED_FROM_BYTES", 1_000_000)  # the sample's runs were cached under none (conftest.py)
    assert main(["cache"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"run cache: {private_run_cache}"
    assert lines[1].startswith("2 run(s), 0.") and lines[1].endswith("MB of 5.00 GB (limit: RAGTUI_CACHE_LIMIT, e.g. 2GB)")
    assert lines[2] == "files under 1.0 MB (runs, gold sets) are read at each open, never cached: writing an entry costs them more than it saves"
    assert sorted(line.split()[-1] for line in lines[3:5]) == sorted(str(sample_inputs()[side].resolve()) for side in "ab")
    assert lines[5:] == []  # the run cache is all ragtui keeps


def test_cache_clear_empties_the_cache_and_names_the_folder(sample, capsys, private_run_cache):
    main(["report", *sample])
    capsys.readouterr()
    assert main(["cache", "clear"]) == 0
    (runs,) = capsys.readouterr().err.splitlines()
    assert runs.startswith("ragtui: removed 2 cached run(s), 0.") and runs.endswith(f"MB, from {private_run_cache}")
    assert list(private_run_cache.iterdir()) == []


def test_clear_on_a_cache_never_made_removes_nothing(capsys, private_run_cache):
    assert main(["cache", "clear"]) == 0
    assert capsys.readouterr().err == (
        f"ragtui: removed 0 cached run(s), 0.0 MB, from {private_run_cache}\n"
    )
