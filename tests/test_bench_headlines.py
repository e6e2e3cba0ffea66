"""`make bench`'s table (bench/headlines.py): the code, not a reader, says whether each goal is
met, and a figure no script measured in the run says so instead of a number."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from bench.headlines import (
    HEADLINES,
    MET,
    NO_GOAL,
    NO_VALUE,
    NOT_MEASURED,
    NOT_MET,
    VARIABLE,
    Measured,
    lines,
    read,
    record,
    record_rounds,
    start,
    status,
    table,
)

BENCH = Path(__file__).resolve().parents[1] / "bench"
BY_KEY = {headline.key: headline for headline in HEADLINES}
COLUMNS = ["script", "what", "measured", "reference", "ratio", "goal", "goal met"]


@pytest.fixture(autouse=True)
def no_collecting_run(monkeypatch):
    """Whatever the shell exports, a test hands nothing over to a real `make bench` file."""
    monkeypatch.delenv(VARIABLE, raising=False)


def measured(key: str, figure: float | None, reference: float | None, ratio: float | None = None, size: int | None = None) -> Measured:
    return record(key, size=size, figure=figure, reference=reference, ratio=ratio, script="bench_x.py", path=None)


def cells(rows: list[list[str]], key_text: str) -> list[dict[str, str]]:
    return [dict(zip(COLUMNS, row, strict=True)) for row in rows if key_text in row[1]]


def test_a_ratio_at_its_bound_meets_an_at_most_goal_and_above_it_does_not():
    open_no_cache = BY_KEY["open_no_cache"]  # ≤ 1.3× polars' read
    assert status(open_no_cache, measured("open_no_cache", 6.5, 5.0, size=100_000)) == MET  # 1.30×
    assert status(open_no_cache, measured("open_no_cache", 6.6, 5.0, size=100_000)) == NOT_MET  # 1.32×


def test_a_strict_goal_is_not_met_at_its_bound():
    next_failure = BY_KEY["next_failure"]  # < 50 ms, on the figure
    assert status(next_failure, measured("next_failure", 49.9, 10.0, size=100_000)) == MET
    assert status(next_failure, measured("next_failure", 50.0, 10.0, size=100_000)) == NOT_MET


def test_a_goal_on_the_figure_reads_the_figure_not_the_ratio():
    judge = BY_KEY["judge"]  # ≥ 90 % of the ideal rate, whatever bare httpx reached
    assert status(judge, measured("judge", 0.91, 0.99, size=1000)) == MET
    assert status(judge, measured("judge", 0.89, 0.80, size=1000)) == NOT_MET


def test_the_ratio_given_by_a_script_is_the_one_checked():
    # The median of each round's ratio (1.2×) is what the goal reads, not figure ÷ reference (1.4×).
    row = measured("open_no_cache", 7.0, 5.0, ratio=1.2, size=100_000)
    assert status(BY_KEY["open_no_cache"], row) == MET


def test_the_report_at_a_million_questions_is_held_to_its_own_goal():
    report = BY_KEY["report_no_cache"]  # ≤ 1.3× at 100,000; ≤ 1.0× from 1,000,000 on
    assert status(report, measured("report_no_cache", 12.0, 10.0, size=100_000)) == MET
    assert status(report, measured("report_no_cache", 12.0, 10.0, size=1_000_000)) == NOT_MET
    rows = cells(lines([measured("report_no_cache", 12.0, 10.0, size=1_000_000)]), "`report --gold --no-cache`, 2 ×")
    assert [(row["what"], row["goal"]) for row in rows] == [
        ("`report --gold --no-cache`, 2 × 100,000", "≤ 1.3×"),
        ("`report --gold --no-cache`, 2 × 1,000,000", "≤ 1.0×"),
    ]


def test_a_missing_reference_never_meets_a_goal_on_the_ratio():
    row = measured("retrieval", 0.07, None, size=100_000)  # pytrec_eval not installed
    assert row.ratio is None
    assert status(BY_KEY["retrieval"], row) == NOT_MEASURED
    (shown,) = cells(lines([row]), "retrieval metrics")
    assert shown["reference"] == "pytrec_eval's `evaluate()`: not measured" and shown["ratio"] == "—"


def test_a_figure_with_no_value_is_neither_met_nor_a_number():
    row = measured("long_j", math.nan, 60.0)
    assert status(BY_KEY["long_j"], row) == NO_VALUE
    (shown,) = cells(lines([row]), "`j` on a 5,000-sentence answer")
    assert shown["measured"] == "no value" and shown["goal met"] == NO_VALUE


def test_a_figure_without_a_goal_says_so():
    assert status(BY_KEY["detector"], measured("detector", 0.77, 0.20, size=100_000)) == NO_GOAL


def test_every_figure_no_script_handed_over_says_not_measured():
    rows = lines([measured("gold", 0.33, 0.27, size=100_000)])
    gold = cells(rows, "gold set read")
    assert [(row["measured"], row["ratio"], row["goal met"]) for row in gold] == [("0.33 s", "1.22×", MET)]
    others = [dict(zip(COLUMNS, row, strict=True)) for row in rows if "gold set read" not in row[1]]
    expected = sum(len(headline.sizes) for headline in HEADLINES) - 1
    assert len(others) == expected
    assert all(row["measured"] == NOT_MEASURED and row["goal met"] == NOT_MEASURED and row["script"] == "" for row in others)


def test_a_size_outside_the_runs_sizes_is_its_own_line_and_the_expected_size_stays_unmeasured():
    rows = cells(lines([measured("both_runs", 0.9, 1.0, size=2_000)]), "both runs loaded side by side")
    assert [(row["what"], row["measured"]) for row in rows] == [
        ("both runs loaded side by side (two threads), 2 × 2,000", "0.90 s"),
        ("both runs loaded side by side (two threads), 2 × 100,000", NOT_MEASURED),
    ]


def test_a_figure_measured_twice_in_the_run_shows_both():
    rows = cells(lines([measured("report", 1.0, 4.0, size=100_000), measured("report", 1.2, 4.0, size=100_000)]),
                 "`report --gold` reopened")
    assert [row["measured"] for row in rows] == ["1.00 s", "1.20 s", NOT_MEASURED]  # the last: 2 × 1,000,000


def test_a_difference_gets_no_ratio():
    row = measured("run_system", 0.17, 0.0003, size=1000)
    assert row.ratio is None and status(BY_KEY["run_system"], row) == MET
    (shown,) = cells(lines([row]), "`ragtui run --system`")
    assert shown["measured"] == "0.17 ms" and shown["ratio"] == "—" and shown["goal"] == "≤ 1 ms"


def test_rounds_give_the_median_of_each_rounds_ratio_with_their_range_and_the_cpu_ratio():
    row = record_rounds("open_cached", size=100_000, figures=[2.0, 1.0, 3.0], references=[8.0, 8.0, 6.0],
                        cpu_figures=[1.0, 1.0, 1.0], cpu_references=[4.0, 5.0, 4.0], script="bench_load.py", path=None)
    assert (row.figure, row.reference, row.ratio) == (2.0, 8.0, 0.25)
    assert row.detail == "rounds 12%–50%; CPU 25%"
    assert status(BY_KEY["open_cached"], row) == MET  # ≤ 25 %


def test_a_key_not_in_the_table_is_refused():
    with pytest.raises(KeyError, match="not a headline figure"):
        record("warp_speed", figure=1.0, path=None)


def test_a_script_run_by_itself_writes_nothing(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    record("gold", size=10, figure=1.0, reference=1.0)
    assert list(tmp_path.iterdir()) == []


def test_the_run_collects_what_each_script_hands_over_after_its_start(monkeypatch, tmp_path):
    collected = tmp_path / "out" / "headlines.jsonl"
    collected.parent.mkdir()
    collected.write_text('{"measured": "from an earlier run"}\n', encoding="utf-8")
    monkeypatch.setenv(VARIABLE, str(collected))
    start(collected)
    record("gold", size=2_000, figure=0.4, reference=0.3, script="bench_load.py")
    record("power_binary", figure=0.816, reference=0.8, script="bench_power.py")
    begun, figures = read(collected)
    assert "cores" in str(begun["machine"]) and len(begun["load"]) == 3
    assert [(figure.key, figure.script, figure.size) for figure in figures] == [
        ("gold", "bench_load.py", 2_000), ("power_binary", "bench_power.py", None)]
    assert all(json.loads(line) for line in collected.read_text(encoding="utf-8").splitlines())


def test_the_table_is_markdown_with_the_machine_and_the_load_at_both_ends():
    figures = [measured("sample_values", 0.9, 0.3), measured("keys_during_diff", 83.0, None)]
    text = table({"machine": "a CPU | 2 cores", "load": [0.5, 0.6, 0.7]}, figures, [1.5, 1.0, 0.8])
    head, _, body = text.partition("\n\n")
    assert head == ("Machine: a CPU | 2 cores.\n"
                    "Load average (1, 5, 15 min): 0.5 0.6 0.7 at the start, 1.5 1.0 0.8 at the end.")
    rows = body.splitlines()
    assert rows[0] == "| " + " | ".join(COLUMNS) + " |"
    assert all(len(re.findall(r"(?<!\\)\|", row)) == len(COLUMNS) + 1 for row in rows)
    assert ("| `bench_x.py` | the sample's dashboard with its values, first open, nothing cached | 0.90 s "
            "| the import floor (polars, textual, yaml, numpy): 0.30 s | 3.00× | ≤ 1.5× | **not met** |") in rows
    assert "| `bench_x.py` | `Esc`, `j`, `k` while a word diff runs in the worker, 80×24 | 83.0 ms | none measured | — | < 100 ms | met |" in rows


def test_a_pipe_in_a_cell_stays_inside_it():
    figures = [record("detector", size=10_000, figure=0.5, reference=0.25, detail="a | b", script="bench_x.py", path=None)]
    (row,) = [line for line in table({}, figures, [0, 0, 0]).splitlines() if "a \\| b" in line]
    assert len(re.findall(r"(?<!\\)\|", row)) == len(COLUMNS) + 1


def test_every_headline_is_handed_over_by_a_bench_script():
    scripts = "\n".join(path.read_text(encoding="utf-8") for path in BENCH.glob("bench_*.py"))
    handed = set(re.findall(r"""["']([a-z_0-9]+)["']""", scripts))
    assert {headline.key for headline in HEADLINES} - handed == set()


def test_every_figure_a_bench_script_hands_over_by_name_is_a_headline():
    scripts = "\n".join(path.read_text(encoding="utf-8") for path in BENCH.glob("bench_*.py"))
    named = set(re.findall(r"""\brecord(?:_rounds)?\(\s*["']([a-z_0-9]+)["']""", scripts))
    named |= set(re.findall(r"""\(\s*["']([a-z_0-9]+)["'], \d, """, scripts))  # bench_triage's (key, column, label)
    assert named and named - set(BY_KEY) == set()
