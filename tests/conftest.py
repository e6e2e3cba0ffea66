"""Fixtures shared by every test folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True)
def private_run_cache(tmp_path_factory, monkeypatch) -> Path:
    """Every test gets its own empty run cache: none reads the user's, or another test's."""
    home = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    monkeypatch.delenv("RAGTUI_CACHE_LIMIT", raising=False)
    return home / "ragtui" / "runs"


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
