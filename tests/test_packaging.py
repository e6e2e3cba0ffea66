"""The wheel carries every package, the themes and the sample, so `pipx install .` works anywhere."""

from __future__ import annotations

import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.wheel import build_wheel

REPO = Path(__file__).resolve().parents[1]


def _declared_packages() -> set[str]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(config["packages"])


def test_every_python_package_in_the_tree_is_declared_in_pyproject():
    found = {
        ".".join(p.parent.relative_to(REPO).parts)
        for p in (REPO / "ragtui").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found <= _declared_packages(), found - _declared_packages()


@pytest.mark.slow
def test_the_wheel_ships_themes_sample_data_and_prompts(tmp_path):
    wheel = build_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "ragtui/themes/dark.yaml",
        "ragtui/themes/light.yaml",
        "ragtui/themes/high-contrast.yaml",
        "ragtui/sample_data/gold.yaml",
        "ragtui/sample_data/baseline.jsonl",
        "ragtui/sample_data/candidate.jsonl",
        "ragtui/sample_data/candidate_k3.jsonl",
        "ragtui/sample_data/candidate_k10.jsonl",
        "ragtui/sample_data/candidate_k20.jsonl",
        "ragtui/sample_data/ragtui.yaml",
        "ragtui/core/measuring/metrics.py",
        "ragtui/ui/app.py",
        "ragtui/cli/templates/report.html.j2",
    ):
        assert expected in names, expected
    assert any(n.startswith("ragtui/core/judge/prompts/") for n in names)
    assert any(n.endswith(".tcss") for n in names)
