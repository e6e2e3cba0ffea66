"""Importing peer files needs neither the TUI nor polars (polars only undoes Zstandard)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .builders import FIXTURES

REPO = Path(__file__).resolve().parents[2]


def test_importing_every_format_loads_neither_the_tui_nor_polars():
    calls = "\n".join(
        f"importers.import_run(r'{FIXTURES / name}')"
        for name in ("ragas_results.csv", "promptfoo_output.json", "inspect_log.json", "deepeval_test_run.json", "trec_run.txt")
    )
    script = (
        "import sys\nfrom ragtui.core import importers\n"
        f"{calls}\nimporters.import_gold(r'{FIXTURES / 'trec_qrels.txt'}')\n"
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    assert not {"textual", "rich", "polars", "httpx"} & set(result.stdout.split())
