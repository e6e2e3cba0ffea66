"""Loading benchmark: the gold set, both runs, the run cache and the report, each figure
beside its reference measured in the same rounds.

    python bench/bench_load.py [--size 100000] [--out bench/out] [--repeat 3] [--no-report]

Two runs of N questions with texts (make_runs.py) and a JSONL gold set of the same N
questions, written once under OUT. Every figure is a fresh process (imports count), run
to completion; the rounds are interleaved (a busy machine slows all alike) and each
figure is the median of its rounds, with their range, and each ratio the median of the
rounds' own ratios, with their range. Beside the wall-clock figures, the CPU seconds
(user + system, the process and its children) and their ratio: on a machine others share,
wall times move by tens of percent, CPU seconds much less. The run cache lives in
OUT/cache, never in the user's. Asserts nothing: the table says each figure, its
reference, the ratio and the goal, and the machine's load average before and after.

Rows:
  - the gold set: `load_gold` against polars' `read_ndjson` of the same file;
  - both runs loaded side by side in two threads against each loaded alone: their sum is
    what one after the other would take; and the same with each run parsed in a process of
    its own (`loading/run_process.py`, what the session does for two large JSONL runs);
  - the comparison opened (`load_comparison` with --gold, without its bootstrap intervals:
    what the app's dashboard waits for) with no cache, against polars' bare read of both
    run files; and against the same open with both runs parsed in this process (two
    threads, `processes_from` out of reach), which says what the two processes bring;
  - the same opened a second time, from the run cache, against the first open (which
    writes the cache);
  - `ragtui report A B --gold G --format json --no-cache` against polars' bare read, and
    (unless --no-report) the report reopened from the cache against its first open.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from bench_scale import machine, timed_with_cpu  # noqa: E402 - beside this script
from headlines import record_rounds  # noqa: E402
from make_runs import gold_file, write  # noqa: E402


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def children(a: Path, b: Path, gold: Path) -> dict[str, list[str]]:
    """The command of every figure and reference."""
    open_code = (
        "from pathlib import Path\nfrom ragtui.core.session import Inputs, load_comparison\n"
        f"load_comparison(Inputs(a=Path({str(a)!r}), b=Path({str(b)!r}), gold=Path({str(gold)!r}), detail=False, cache={{cache}}), intervals=False{{processes}})\n"
    )
    def load_one(path: Path) -> list[str]:
        return python(f"from ragtui.core.loading.runs import load_run\nload_run({str(path)!r}, detail=False)\n")

    both_code = (
        "from concurrent.futures import ThreadPoolExecutor\nfrom ragtui.core.loading.runs import load_run\n"
        "with ThreadPoolExecutor(2) as pool:\n"
        f"    list(pool.map(lambda path: load_run(path, detail=False), {[str(a), str(b)]!r}))\n"
    )
    processes_code = (
        "from concurrent.futures import ThreadPoolExecutor\nfrom ragtui.core.loading.runs import load_run\n"
        "from ragtui.core.loading.run_process import ProcessParse\nprocesses = ProcessParse()\n"
        "with ThreadPoolExecutor(2) as pool:\n"
        f"    list(pool.map(lambda path: load_run(path, detail=False, parse=processes), {[str(a), str(b)]!r}))\n"
        "assert not processes.notes, processes.notes  # each parsed in its child, none here\n"
    )
    report = [sys.executable, "-m", "ragtui", "report", str(a), str(b), "--gold", str(gold), "--format", "json"]
    return {
        "polars_runs": python(f"import polars as pl\nfor path in {[str(a), str(b)]!r}:\n    pl.read_ndjson(path)\n"),
        "polars_gold": python(f"import polars as pl\npl.read_ndjson({str(gold)!r})\n"),
        "gold": python(f"from ragtui.core.loading.gold import load_gold\nload_gold({str(gold)!r})\n"),
        "run_a": load_one(a),
        "run_b": load_one(b),
        "both_runs": python(both_code),
        "both_processes": python(processes_code),
        "open_no_cache": python(open_code.replace("{cache}", "False").replace("{processes}", "")),
        "open_threads": python(open_code.replace("{cache}", "False").replace("{processes}", ", processes_from=2**62")),
        "open_cached": python(open_code.replace("{cache}", "True").replace("{processes}", "")),
        "report_no_cache": [*report, "--no-cache"],
        "report": report,
    }


def compiled(env: dict[str, str]) -> None:
    """Compile ragtui and the libraries every figure imports into the bench's bytecode cache
    before the first round, so that no round pays for it."""
    import subprocess

    code = (
        "import compileall, importlib.util, sys\n"
        "for name in ('ragtui', 'polars', 'numpy', 'msgspec', 'yaml'):\n"
        "    spec = importlib.util.find_spec(name)\n"
        "    for folder in (spec.submodule_search_locations or []) if spec else []:\n"
        "        compileall.compile_dir(folder, quiet=1, workers=0)\n"
    )
    subprocess.run(python(code), env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000, help="questions a run (1000000 for the large case)")
    parser.add_argument("--out", default=str(HERE / "out"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-report", action="store_true", help="leave out the report rows (their bootstrap takes minutes)")
    args = parser.parse_args()
    out = Path(args.out)
    cache = out / "cache" / "ragtui"
    # Bytecode caches as after an install (pip compiles them), kept in OUT, as bench_scale.py
    # keeps them: a child started with PYTHONDONTWRITEBYTECODE (the shared machine's sessions
    # set it) compiles every module it imports from source, 0.6 s of CPU in each figure.
    env = {**os.environ, "XDG_CACHE_HOME": str(out / "cache"), "PYTHONPATH": str(REPO), "PYTHONPYCACHEPREFIX": str(out / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    compiled(env)
    paths = write(args.size, out, parquet=False)
    a, b = paths["a_jsonl"], paths["b_jsonl"]
    gold = gold_file(a, out / f"gold_{args.size}.jsonl")
    commands = children(a, b, gold)
    load_before = os.getloadavg()
    print(machine(), flush=True)
    print(f"2 × {args.size:,} questions (JSONL, {a.stat().st_size / 1e9:.2f} GB each), gold set {gold.stat().st_size / 1e6:.0f} MB; "
          f"median of {args.repeat} interleaved rounds [range]", flush=True)

    times: dict[str, list[float]] = {}
    cpus: dict[str, list[float]] = {}
    peaks: dict[str, list[float]] = {}

    def measure(name: str, before: Callable[[], None] | None = None) -> None:
        if before is not None:
            before()
        seconds, megabytes, cpu = timed_with_cpu(commands[name], env)
        times.setdefault(name, []).append(seconds)
        cpus.setdefault(name, []).append(cpu)
        peaks.setdefault(name, []).append(megabytes)
        print(f"  {name:<16} {seconds:7.2f} s  CPU {cpu:7.2f} s  peak {megabytes:7,.0f} MB  load {os.getloadavg()[0]:.1f}", flush=True)

    def empty_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    def first(name: str, renamed: str) -> None:
        """The last figure measured under `name` is the first open's: filed as `renamed`."""
        for figures in (times, cpus):
            figures[renamed] = [*figures.get(renamed, []), figures[name].pop()]

    for _ in range(args.repeat):
        for name in ("polars_runs", "polars_gold", "gold", "run_a", "run_b", "both_runs", "both_processes", "open_no_cache", "open_threads"):
            measure(name)
        measure("open_cached", empty_cache)  # the first open: writes the cache
        first("open_cached", "open_first")
        measure("open_cached")  # the reopen
        if not args.no_report:
            measure("report_no_cache")
            measure("report", empty_cache)
            first("report", "report_first")
            measure("report")
    load_after = os.getloadavg()

    def spread(name: str, figures: dict[str, list[float]]) -> str:
        return f"{statistics.median(figures[name]):.2f} s [{min(figures[name]):.2f}–{max(figures[name]):.2f}]"

    for figures in (times, cpus):
        figures["one_after_other"] = [x + y for x, y in zip(figures["run_a"], figures["run_b"], strict=True)]
    rows = [
        ("gold set read (`load_gold`)", "gold", "polars' `read_ndjson` of the gold file", "polars_gold", "≤ 1.5×"),
        ("both runs loaded side by side (two threads)", "both_runs", "each run loaded alone, summed", "one_after_other", "≤ 0.7×"),
        ("both runs loaded in two processes (`run_process.py`)", "both_processes", "each run loaded alone, summed", "one_after_other", "≤ 0.7×"),
        ("comparison opened with --gold, no cache, no intervals", "open_no_cache", "polars' bare read of both runs", "polars_runs", "≤ 1.3×"),
        ("the same open, its runs as the size decides (`processes_from`)", "open_no_cache", "the same open, both runs in this process (two threads)", "open_threads", "< 1×"),
        ("the same reopened from the run cache", "open_cached", "its first open (writes the cache)", "open_first", "≤ 25 %"),
    ]
    if not args.no_report:
        rows += [
            ("`report --gold --no-cache`", "report_no_cache", "polars' bare read of both runs", "polars_runs", "≤ 1.3×"),
            ("`report --gold` reopened from the run cache", "report", "its first open (writes the cache)", "report_first", "≤ 25 %"),
        ]
    table = [
        f"| figure, 2 × {args.size:,} | measured | reference | ratio | CPU s: measured, reference | CPU ratio | goal |",
        "|---|---|---|---|---|---|---|",
    ]
    for what, name, reference, ref_name, goal in rows:
        def as_ratio(value: float, percent: bool = goal.endswith("%")) -> str:
            return f"{value:.0%}" if percent else f"{value:.2f}×"

        def ratio(figures: dict[str, list[float]], name: str = name, ref_name: str = ref_name) -> str:
            # The ratio of each round (figure and reference ran minutes apart at most), then their median and range.
            ratios = [x / y for x, y in zip(figures[name], figures[ref_name], strict=True)]
            return f"{as_ratio(statistics.median(ratios))} [{as_ratio(min(ratios))}–{as_ratio(max(ratios))}]"

        table.append(
            f"| {what} | {spread(name, times)} | {reference}: {spread(ref_name, times)} | {ratio(times)} "
            f"| {spread(name, cpus)}, {spread(ref_name, cpus)} | {ratio(cpus)} | {goal} |"
        )
    print()
    print("\n".join(table))
    handed: set[str] = set()
    for _, name, _, ref_name, _ in rows:
        if name in handed:
            continue  # a headline is its figure beside the first reference listed (the open: polars' read)
        handed.add(name)
        record_rounds(name, size=args.size, figures=times[name], references=times[ref_name],
                      cpu_figures=cpus[name], cpu_references=cpus[ref_name])
    print(f"\nload average (1, 5, 15 min) before {load_before[0]:.1f} {load_before[1]:.1f} {load_before[2]:.1f}, "
          f"after {load_after[0]:.1f} {load_after[1]:.1f} {load_after[2]:.1f} on {os.cpu_count()} cores")
    print("\npeak memory, median MB: " + ", ".join(f"{name} {statistics.median(values):,.0f}" for name, values in peaks.items()))


if __name__ == "__main__":
    main()
