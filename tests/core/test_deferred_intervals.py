"""`compare(..., intervals=False)` measures the values and leaves the slow half pending;
`with_intervals` then gives exactly what one `compare` gives (the app paints in between)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragtui.core.comparing.intervals import with_intervals
from ragtui.core.session import Inputs, load_comparison

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


@pytest.fixture(params=["two runs", "one run"])
def inputs(request) -> Inputs:
    b = SAMPLE / "candidate.jsonl" if request.param == "two runs" else None
    return Inputs(a=SAMPLE / "baseline.jsonl", b=b, gold=SAMPLE / "gold.yaml", config=SAMPLE / "ragtui.yaml")


def test_a_pending_comparison_has_the_values_and_no_interval_verdict_or_target_reading(inputs):
    full = load_comparison(inputs)
    pending = load_comparison(inputs, intervals=False)
    assert pending.intervals_pending and not full.intervals_pending
    assert pending.status_counts == full.status_counts and pending.warnings == full.warnings
    for name, metric in pending.metrics.items():
        done = full.metrics[name]
        assert (metric.a, metric.b, metric.delta, metric.n, metric.drop_flagged) == (done.a, done.b, done.delta, done.n, done.drop_flagged)
        assert metric.intervals_pending
        assert (metric.ci, metric.p_value, metric.verdict, metric.power, metric.targets) == (None, None, None, None, {})
    for category, data in pending.categories.items():
        for name, cell in data.metrics.items():
            assert cell.targets == {} and cell.value("A") == full.categories[category].metrics[name].value("A")


def test_filling_in_the_intervals_gives_what_one_compare_gives(inputs):
    full = load_comparison(inputs)
    filled = with_intervals(load_comparison(inputs, intervals=False))
    assert not filled.intervals_pending
    assert filled.metrics == full.metrics
    assert filled.categories == full.categories
    # Some verdict and some target reading were actually decided (the sample has targets).
    assert any(metric.target_reading("A").verdict is not None for metric in filled.metrics.values())
    if inputs.b is not None:
        assert all(metric.verdict is not None for metric in filled.metrics.values() if metric.delta is not None)


def test_a_complete_comparison_is_returned_as_it_is(inputs):
    full = load_comparison(inputs)
    assert with_intervals(full) is full


def test_questions_in_one_run_only_are_left_out_of_the_filled_in_target_readings_too(tmp_path):
    """The paired rule: B without 10 of A's questions reads its targets over the paired ones, before and after."""
    lines = (SAMPLE / "candidate.jsonl").read_text(encoding="utf-8").splitlines()
    short = tmp_path / "candidate_short.jsonl"
    short.write_text("\n".join(lines[:-10]) + "\n", encoding="utf-8")
    inputs = Inputs(a=SAMPLE / "baseline.jsonl", b=short, config=SAMPLE / "ragtui.yaml")
    full = load_comparison(inputs)
    assert full.unpaired["A"]
    filled = with_intervals(load_comparison(inputs, intervals=False))
    assert filled.metrics == full.metrics and filled.categories == full.categories


def test_the_grid_drawn_by_two_threads_at_once_has_the_numbers_one_thread_draws():
    """Whichever thread takes a category or a tag, its cells get the same intervals and p,
    and the adjustment over the grid the same p-values in the same order."""
    import threading

    from ragtui.core.comparing.intervals import GridChanges

    pending = load_comparison(Inputs(a=SAMPLE / "baseline.jsonl", b=SAMPLE / "candidate.jsonl", gold=SAMPLE / "gold.yaml", config=SAMPLE / "ragtui.yaml"), intervals=False)
    assert pending.paired is not None and len(pending.categories) + len(pending.tags) > 2
    specs = {name: metric.spec for name, metric in pending.metrics.items()}

    def grid() -> GridChanges:
        return GridChanges(pending.categories, pending.tags, pending.paired, None, specs, pending.config)

    alone = grid()
    alone.draw()
    together = grid()
    helper = threading.Thread(target=together.draw)
    helper.start()
    together.draw()
    helper.join()
    assert together.adjusted() == alone.adjusted()
    assert any(cell.p_adjusted is not None for data in alone.adjusted()[0].values() for cell in data.metrics.values())
