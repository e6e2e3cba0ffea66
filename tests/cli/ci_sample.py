"""The bundled sample's comparison in each CI format, written once per test module.

`--no-cache`: a module-wide fixture outlives each test's private run cache, and must not
read or fill the user's.
"""

from __future__ import annotations

from pathlib import Path

from ragtui.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"
SAMPLE_ARGS = [
    str(SAMPLE / "baseline.jsonl"), str(SAMPLE / "candidate.jsonl"),
    "--gold", str(SAMPLE / "gold.yaml"), "--config", str(SAMPLE / "ragtui.yaml"), "--no-cache",
]
# The sample's regressions, read from its text report: 26 questions, of which 4 are missing from B.
MISSING_FROM_B = {"q031", "q044", "q068", "q120"}
REGRESSED = {
    "q001", "q005", "q013", "q020", "q028", "q041", "q043", "q046", "q053", "q055", "q056", "q062", "q065",
    "q067", "q080", "q082", "q083", "q099", "q100", "q111", "q112", "q116",
} | MISSING_FROM_B


def report_file(folder: Path, fmt: str, *extra: str, runs: list[str] | None = None) -> tuple[int, Path]:
    """(exit code, path) of `ragtui report` on the sample (or `runs`) in format `fmt`."""
    path = folder / f"report.{fmt}"
    code = main(["report", *(runs if runs is not None else SAMPLE_ARGS), "--format", fmt, "-o", str(path), *extra])
    return code, path
