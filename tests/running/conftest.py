"""Fixtures of the `ragtui run` tests: small gold sets written by hand, a fake service."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml


def write_gold(path: Path, ids: list[str], *, unanswerable: tuple[str, ...] = ()) -> Path:
    """A gold set asking `Question about {id}?` for each id (gold passage `p_{id}_0`)."""
    items = [
        {"id": i, "question": f"Question about {i}?", "gold_passages": [] if i in unanswerable else [f"p_{i}_0"], "category": "sans_reponse" if i in unanswerable else "factuelle_courte"}
        for i in ids
    ]
    path.write_text(yaml.safe_dump(items, allow_unicode=True), encoding="utf-8")
    return path


@pytest.fixture
def gold_of(tmp_path):
    def make(ids: list[str], name: str = "gold.yaml") -> Path:
        return write_gold(tmp_path / name, ids)

    return make
