"""Fixtures shared by every test folder."""

from __future__ import annotations

import gc
import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


def _use_this_checkouts_data_packages() -> None:
    """Read `ragtui.themes` and `ragtui.sample_data` from this checkout.

    `ragtui` itself comes from the checkout (pytest puts it first on the path), but the
    two data packages live outside the `ragtui/` folder: an editable install maps them to
    the folders of the checkout it was installed from. A test run in another checkout
    sharing that environment (a git worktree) would draw with the other checkout's
    themes and load its sample.
    """
    for name, folder in (("ragtui.themes", REPO / "themes"), ("ragtui.sample_data", REPO / "sample_data")):
        spec = importlib.util.spec_from_file_location(name, folder / "__init__.py", submodule_search_locations=[str(folder)])
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)


_use_this_checkouts_data_packages()


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep the collector off what every test shares, and let it run less often.

    A test process holds textual, rich, polars, hypothesis and ~110 collected test modules:
    every full collection walked them again, and with Python's default thresholds the UI
    tests ran ~30,000 collections that took 15 % of their time (66 of 434 s in one
    process). What is alive after collection lives to the end: `gc.freeze` moves it out of
    the collector's sight, and a larger first threshold makes the collections of the
    apps each test starts and drops fewer (measured: 5.4 → 1.4 s of collection over the
    first 25 UI tests). Cycles are still collected; only less often.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)


_CACHE_THRESHOLD: list[int] = []  # the run cache's own, kept by `every_run_cached`


@pytest.fixture(autouse=True, scope="session")
def every_run_cached():
    """The tests' runs are far smaller than the smallest file the run cache keeps: every one
    is cached, from the first fixture on (module ones too), so the cache's behaviour is
    tested on them. `cache_threshold` gives a test the cache's own threshold."""
    from ragtui.core.loading import run_cache

    _CACHE_THRESHOLD[:] = [run_cache.CACHED_FROM_BYTES]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_cache, "CACHED_FROM_BYTES", 0)
        yield


@pytest.fixture
def cache_threshold(monkeypatch) -> int:
    """The run cache's own smallest cached file size, in force for this test."""
    from ragtui.core.loading import run_cache

    monkeypatch.setattr(run_cache, "CACHED_FROM_BYTES", _CACHE_THRESHOLD[0])
    return run_cache.CACHED_FROM_BYTES


@pytest.fixture(autouse=True)
def private_run_cache(tmp_path_factory, monkeypatch) -> Path:
    """Every test gets its own empty run cache: none reads the user's, or another test's."""
    home = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("RAGTUI_CACHE_LIMIT", raising=False)
    return home / "ragtui" / "runs"


@pytest.fixture(autouse=True)
def private_data_home(tmp_path_factory, monkeypatch) -> Path:
    """Every test gets its own data folder: labels and marks made on the bundled sample go
    there (`$XDG_DATA_HOME/ragtui/sample`), never into the user's or another test's."""
    home = tmp_path_factory.mktemp("xdg-data")
    monkeypatch.setenv("XDG_DATA_HOME", str(home))
    return home / "ragtui"


@pytest.fixture
def shared_dir() -> Path:
    """`../shared` beside the checkout (spec examples, trec_eval oracle); skip where absent."""
    if not (SHARED / "spec").is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): the spec examples and oracles live there")
    return SHARED


@pytest.fixture
def write_jsonl():
    """Write a run as JSONL: write_jsonl(path, meta, records) -> path."""

    def write(path: Path, meta: dict | None, records: list[dict]) -> Path:
        lines = ([json.dumps({"run": meta}, ensure_ascii=False)] if meta is not None else []) + [
            json.dumps(r, ensure_ascii=False) for r in records
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return write
