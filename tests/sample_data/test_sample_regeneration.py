"""The committed sample is exactly what `tools/make_sample_data.py` writes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"
GENERATOR = REPO / "tools" / "make_sample_data.py"
# Sorted by name, as the folder lists them: the two main runs, the k sweep, gold, config.
GENERATED = (
    "baseline.jsonl",
    "candidate.jsonl",
    "candidate_k10.jsonl",
    "candidate_k20.jsonl",
    "candidate_k3.jsonl",
    "gold.yaml",
    "ragtui.yaml",
)


def test_regenerating_the_sample_gives_the_committed_files_byte_for_byte(tmp_path: Path) -> None:
    # A subprocess, as a maintainer runs it: its hash seed differs from this one's, so a
    # dependence on set or dict order would show up as a difference here.
    done = subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(tmp_path)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == list(GENERATED)
    for name in GENERATED:
        fresh, committed = (tmp_path / name).read_bytes(), (SAMPLE / name).read_bytes()
        assert fresh == committed, f"sample_data/{name} is stale: run `python {GENERATOR.relative_to(REPO)}` and commit"
