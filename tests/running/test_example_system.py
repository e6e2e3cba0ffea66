"""The shipped offline example system, run as a new user would, compared with the sample's baseline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.widgets.run_header import RunHeaderBox
from tests.ui.conftest import text_of, wait_until_loaded

REPO = Path(__file__).resolve().parents[2]


def _ragtui(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "ragtui", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_the_example_runs_on_the_sample_gold_set_offline_and_compares_with_the_baseline(tmp_path):
    mine = tmp_path / "my.jsonl"
    done = _ragtui("run", "sample_data/gold.yaml", "--system", "sample_data/example_system.py:answer", "-o", str(mine), "-q")
    assert done.returncode == 0, done.stderr
    assert "asked 120 of 120 questions: 120 answered, 0 system errors" in done.stderr
    report = _ragtui("report", "sample_data/baseline.jsonl", str(mine), "--gold", "sample_data/gold.yaml", "--format", "json")
    assert report.returncode == 0, report.stderr
    data = json.loads(report.stdout)
    recall = data["metrics"]["recall@5"]
    # The same BM25 over the same chunks as the baseline's retrieval: 71 of 90 answerable questions.
    assert recall["A"] == recall["B"] == round(71 / 90, 4)
    assert data["runs"]["B"]["questions"] == 120 and data["runs"]["B"]["system_errors"] == 0
    again = _ragtui("run", "sample_data/gold.yaml", "--system", "sample_data/example_system.py:answer", "-o", str(mine), "-q")
    assert again.returncode == 0 and "nothing asked" in again.stderr


async def test_the_app_opens_the_baseline_beside_the_example_run(tmp_path):
    from ragtui.api import evaluate

    mine = tmp_path / "my.jsonl"
    evaluate(REPO / "sample_data" / "gold.yaml", system=str(REPO / "sample_data" / "example_system.py") + ":answer", output=mine)
    app = RagtuiApp(Session(Inputs(REPO / "sample_data" / "baseline.jsonl", mine, gold=REPO / "sample_data" / "gold.yaml")))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(app.screen, DashboardScreen)
        shown = " ".join(text_of(box) for box in app.screen.query(RunHeaderBox))
        assert "my" in shown and "baseline" in shown


def test_the_python_api_runs_two_ks_and_the_tradeoff_shows_what_k_20_costs_in_tokens(tmp_path):
    import ragtui
    from ragtui.core.comparing.tradeoff import build_tradeoff
    from ragtui.sample_data import example_system

    gold = REPO / "sample_data" / "gold.yaml"
    k5 = ragtui.evaluate(gold, retriever=example_system.chercher, generator=example_system.repondre, k=5, output=tmp_path / "k5.jsonl")
    k20 = ragtui.evaluate(gold, retriever=example_system.chercher, generator=example_system.repondre, k=20, output=tmp_path / "k20.jsonl")
    assert (k5.meta.k, k20.meta.k) == (5, 20)
    result = ragtui.compare(k5, k20, gold=gold)
    # The first 5 of 20 passages are the 5 of k = 5: recall@5 cannot differ; the generator reads 4× the text.
    assert result.metrics["recall@5"].delta == 0.0
    tokens = result.metrics["tokens"]
    assert tokens.b.value > 3 * tokens.a.value and tokens.verdict == "regressed"
    points = {point.label: point for point in build_tradeoff([result]).points}
    assert points["B1"].k == 20 and points["B1"].values["recall"].value > points["A"].values["recall"].value
    assert points["B1"].values["tokens"].value == tokens.b.value
    assert points["A"].values["cost_usd"].value == 0.0, "the offline example pays nothing, and says so"
