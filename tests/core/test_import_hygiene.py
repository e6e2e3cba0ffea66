"""The core and the headless commands never load textual or rich (nor httpx for report)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import ragtui.core

REPO = Path(__file__).resolve().parents[2]


# `import httpx` also imports httpx's own command line (httpx._main) when click happens to
# be installed (import-linter brings it into the test environment), and that imports rich.
# It is httpx's import, not ragtui's, so it is cut here: the test speaks of ragtui's imports.
_WITHOUT_HTTPX_CLI = "import sys\nsys.modules['httpx._main'] = None\n"


def _loaded_after(code: str) -> set[str]:
    script = f"{_WITHOUT_HTTPX_CLI}{code}\nimport sys\nprint(' '.join(sorted(m.split('.')[0] for m, module in sys.modules.items() if module is not None)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    return set(result.stdout.split())


def test_importing_every_core_module_does_not_load_the_tui():
    names = [m.name for m in pkgutil.walk_packages(ragtui.core.__path__, "ragtui.core.")]
    loaded = _loaded_after("\n".join(f"import {name}" for name in names))
    assert "textual" not in loaded and "rich" not in loaded


def test_report_and_validate_do_not_load_textual_rich_or_httpx():
    sample = REPO / "sample_data"
    a, b, gold = sample / "baseline.jsonl", sample / "candidate.jsonl", sample / "gold.yaml"
    code = (
        "import contextlib, io\nfrom ragtui.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['report', r'{a}', r'{b}', '--gold', r'{gold}', '--format', 'json']) == 0\n"
        f"    assert main(['report', r'{a}', r'{b}', '--gold', r'{gold}']) == 0\n"
        f"    assert main(['validate', r'{gold}', r'{a}']) == 0"
    )
    loaded = _loaded_after(code)
    assert not {"textual", "rich", "httpx"} & loaded


def test_the_app_and_its_dashboard_import_neither_polars_nor_numpy():
    # A dashboard read back from the cache paints before the load imports them (issue 14).
    loaded = _loaded_after("import ragtui.ui.app, ragtui.ui.screens.dashboard, ragtui.ui.models.dashboard")
    assert "textual" in loaded
    assert not {"polars", "numpy"} & loaded


def test_the_samples_values_are_loaded_without_numpy_ma_or_msgspec():
    # polars imports numpy.ma to build a column from a numpy array; the values of a small
    # comparison are built without one (about 9 ms of the app's start, docs/decisions.md).
    # msgspec decodes only a lean frame's slices: a run held whole never imports it (7 ms).
    sample = REPO / "sample_data"
    files = {name: str(sample / file) for name, file in (("a", "baseline.jsonl"), ("b", "candidate.jsonl"), ("gold", "gold.yaml"), ("config", "ragtui.yaml"))}
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from ragtui.core.loading.inputs import Inputs\nfrom ragtui.core.session import load_comparison\n"
        f"paths = {{name: Path(path) for name, path in {files!r}.items()}}\n"
        "load_comparison(Inputs(**paths, cache=False), intervals=False)\n"
        "assert 'numpy.ma' not in sys.modules and 'msgspec' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
