"""The pytest plugin, as a team's suite meets it: from ragtui's wheel, installed, in a plain pytest."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from tests.cli.ci_sample import SAMPLE
from tests.wheel import build_wheel

SUITE = f'''
from pathlib import Path

import ragtui

SAMPLE = Path({str(SAMPLE)!r})


def _compare(ragtui_compare):
    return ragtui_compare(SAMPLE / "baseline.jsonl", SAMPLE / "candidate.jsonl",
                          gold=SAMPLE / "gold.yaml", config=SAMPLE / "ragtui.yaml")


def test_ragtui_is_the_installed_wheel():
    print("RAGTUI FROM", ragtui.__file__)
    assert "site" in ragtui.__file__


def test_no_metric_regressed(ragtui_compare):
    assert _compare(ragtui_compare).gates(fail_on_regression=True).passed


def test_every_target_is_met_for_sure(ragtui_compare):
    assert _compare(ragtui_compare).gates(fail_below_target=True, strict_targets=True).passed
'''


@pytest.fixture(scope="module")
def installed_ragtui(tmp_path_factory) -> Path:
    """ragtui's wheel, built from this checkout and installed (without its dependencies) in a folder of its own."""
    folder = tmp_path_factory.mktemp("wheel")
    wheel = build_wheel(folder)
    entry_points = next(name for name in zipfile.ZipFile(wheel).namelist() if name.endswith("entry_points.txt"))
    assert "[pytest11]\nragtui = ragtui.pytest_plugin" in zipfile.ZipFile(wheel).read(entry_points).decode()
    site = folder / "site"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile", "--target", str(site), str(wheel)],
        capture_output=True, text=True,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    return site


def _pytest(folder: Path, site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", "-q", "-s", *args],
        cwd=folder, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.slow
def test_an_installed_ragtui_gives_any_suite_the_fixture_and_a_failure_lists_the_regressed_questions(installed_ragtui, tmp_path):
    (tmp_path / "test_team_suite.py").write_text(textwrap.dedent(SUITE), encoding="utf-8")
    result = _pytest(tmp_path, installed_ragtui, "test_team_suite.py")
    out = result.stdout
    assert result.returncode == 1, out[-3000:]
    assert f"RAGTUI FROM {installed_ragtui}" in out
    assert "2 passed" in out and "1 failed" in out
    failure = out.split("test_every_target_is_met_for_sure", 1)[1]
    assert "- ragtui gates -" in failure
    assert "ragtui: gate --fail-below-target: FAILED: " in failure
    # The regressed questions, as the text report lists them: the summary, then id, category and cause.
    assert "Questions: 26 regressed (of which 4 missing from B, 3 judge errors) · 16 fixed ·" in failure
    assert "Regressed questions (cause; new failure kinds below):" in failure
    assert any(line.startswith("q001") and "generation (retrieval not worse)" in line for line in failure.splitlines())
    assert any(line.startswith("q031") and "missing from B" in line for line in failure.splitlines())
    # The comparison behind the gates is named in a line, not dumped into the assertion.
    assert "where gates = <ragtui comparison baseline → candidate>.gates" in failure


@pytest.mark.slow
def test_pytest_lists_the_fixture_of_an_installed_ragtui(installed_ragtui, tmp_path):
    result = _pytest(tmp_path, installed_ragtui, "--fixtures")
    assert "ragtui_compare" in result.stdout, result.stdout[-2000:]
    assert "site/ragtui/pytest_plugin.py" in result.stdout  # the wheel's copy, not this checkout's


def test_gates_refuse_to_check_nothing():
    from ragtui.pytest_plugin import GatedComparison

    with pytest.raises(ValueError, match="at least one gate"):
        GatedComparison(comparison=None, report={"runs": {}}).gates()  # type: ignore[arg-type]
