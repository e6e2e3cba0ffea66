"""Latency, cost and tokens on the dashboard: one "Latency & cost" panel and four grid columns.

The sample's runs record `latency_ms`, `cost_usd`, `tokens_in` and `tokens_out`; the
expected figures were checked by hand with numpy on the run files (medians of the
answered questions' `latency_ms`: A 1562.5, B 1813; short factual questions: A 1611.5,
B 1877). The test fixture's runs record none of them: its dashboard has no trace of them.
"""

from __future__ import annotations

import dataclasses

import yaml

from ragtui.core.vocabulary import INTERVALS_FAILED, INTERVALS_PENDING
from ragtui.ui import loader
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.widgets.category_grid import CategoryGrid
from ragtui.ui.widgets.quantity_panel import QuantityPanel

from . import test_deferred_intervals
from .conftest import poll_until, wait_until_loaded

held_intervals = test_deferred_intervals.held_intervals  # the fixture: the intervals wait until the test releases them


def _panel_text(app) -> str:
    return str(app.screen.query_one("#quantities", QuantityPanel).render())


async def test_latency_and_cost_panel_compares_the_sample_runs_lower_is_better(sample):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        lines = _panel_text(app).splitlines()
        assert lines[0] == "per question · lower is better"
        # p50 rose by 250.5 ms, its paired interval wholly above 0: a regression (▼), and
        # more than max_drop (3 %) of A's 1562.5 ms: flagged.
        assert lines[1:3] == ["▼ p50(ms) 1562 → 1813", "  Δ +250 (+122…+405) !"]
        assert lines[3:5] == ["~ p95(ms) 2810 → 2997", "  Δ +187 (−254…+575) !"]
        assert lines[5:9] == ["~ Cost($) 0.000824 → 0.000827", "  Δ +0.000002 (−0.000005…+0.000009)", "~ Tokens  937 → 939", "  Δ +3 (−5…+11)"]
        assert lines[9] == "! Δ > 3% of A's value"
        assert app.screen.query_one("#quantities").has_class("-regressed")  # the border follows the worst verdict


async def test_the_category_grid_shows_latency_cost_and_tokens_with_their_change(sample):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        grid = app.screen.query_one(CategoryGrid)
        headings = [column.label.plain for column in grid.ordered_columns]
        assert headings[-4:] == ["p50(ms)", "p95(ms)", "Cost($)", "Tokens"]
        # Short factual: B's median 1877 ms, 265.5 ms above A's 1611.5.
        assert str(grid.get_cell("factuelle_courte", "latency_p50_ms")) == "1877 +266"
        # The biggest rise of p50 is the known contradictions' (+562.5 ms): marked worst.
        assert str(grid.get_cell("contradiction_connue", "latency_p50_ms")) == "2018 +562 ◆"
        await pilot.press("b")  # A's values, without Δ: the slowest category is marked
        await pilot.pause()
        assert str(grid.get_cell("factuelle_courte", "latency_p50_ms")) == "1612"
        assert str(grid.get_cell("procedurale", "latency_p50_ms")) == "2271 ◆"


async def test_a_latency_target_is_read_in_the_panel_and_the_grid(sample, tmp_path):
    config = yaml.safe_load(sample.config.read_text(encoding="utf-8"))
    config["targets"]["latency_p95_ms"] = {"max": 2000}
    path = tmp_path / "ragtui.yaml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    app = RagtuiApp(Session(dataclasses.replace(sample, config=path)))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        lines = _panel_text(app).splitlines()
        # p95 of 120 answers near 2.8 s: each run's own interval lies wholly above 2 s.
        assert lines[3:6] == ["~ p95(ms) 2810 ✗ → 2997 ✗", "  Δ +187 (−254…+575) !", "  target ≤ 2000 ms"]
        assert "✗" not in lines[1]  # no target for p50: no mark
        grid = app.screen.query_one(CategoryGrid)
        assert str(grid.get_cell("procedurale", "latency_p95_ms")).endswith("✗")  # B's p95 there: 3904 ms


async def test_runs_without_latency_show_neither_the_panel_nor_the_columns(two_runs):
    app = RagtuiApp(Session(two_runs))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert not app.screen.query(QuantityPanel)
        grid = app.screen.query_one(CategoryGrid)
        headings = [column.label.plain for column in grid.ordered_columns]
        assert not {"p50(ms)", "p95(ms)", "Cost($)", "Tokens"} & set(headings)


async def test_the_panel_shows_no_verdict_while_the_intervals_are_pending_then_fills_in(sample, held_intervals):
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        panel = app.screen.query_one("#quantities", QuantityPanel)
        lines = str(panel.render()).splitlines()
        assert lines[0] == f"… {INTERVALS_PENDING}"
        assert lines[1:3] == ["  p50(ms) 1562 → 1813", "  Δ +250 !"]  # the values and Δ; no ▼, no interval yet
        assert not panel.has_class("-regressed")
        held_intervals.set()
        await wait_until_loaded(pilot)
        await poll_until(pilot, lambda: not panel.metrics[0].intervals_pending)
        assert str(panel.render()).splitlines()[1] == "▼ p50(ms) 1562 → 1813"
        assert panel.has_class("-regressed")


def _resampling_fails(data):
    raise RuntimeError("resampling failed")


async def test_the_panel_says_when_the_intervals_could_not_be_computed(sample, monkeypatch):
    monkeypatch.setattr(loader, "fill_intervals", _resampling_fails)
    app = RagtuiApp(Session(sample))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot, intervals=False)
        panel = app.screen.query_one("#quantities", QuantityPanel)
        await poll_until(pilot, lambda: str(panel.render()).startswith(f"… {INTERVALS_FAILED}"))
        text = str(panel.render())
        assert text.startswith(f"… {INTERVALS_FAILED}") and "▼" not in text and "✗" not in text


async def _scrolled_to_the_panel(pilot) -> None:
    await wait_until_loaded(pilot)
    pilot.app.screen.query_one("#quantities").scroll_visible(animate=False, top=True)
    await pilot.pause()


def test_latency_and_cost_panel_at_80x24_with_no_color(snap_compare, sample, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert snap_compare(RagtuiApp(Session(sample)), terminal_size=(80, 24), run_before=_scrolled_to_the_panel)
