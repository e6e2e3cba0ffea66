"""Scale benchmark (issue 14): large runs, the run cache, texts on demand, first paint.

Prints figures beside their peers, measured in the same run; asserts nothing. Every
figure is a fresh process (imports count) with its own peak RSS; the run cache lives in
OUT/cache (emptied before each cold measurement), never in the user's.

    python bench/bench_scale.py [--sizes 100000,1000000] [--out bench/out] [--repeat 5]

Rows, for each size N (two runs of N questions, 20 passages each, from make_runs.py, and a
JSONL gold set of the same questions that every report and app open is given with --gold):
  - polars' bare read of both JSONL files (`pl.read_ndjson`): the peer;
  - `ragtui report A B --gold G --format json` with `--no-cache`, cold (cache written) and warm;
  - the app's first dashboard paint, cold (up to --full-up-to) and warm, and its peak
    memory (texts on demand).
And on the bundled sample, opened for the first time (nothing cached): the dashboard with
its values, and its intervals, against the import floor (polars, textual, yaml and numpy
imported in a fresh process, in the same rounds), in wall time and in CPU seconds, and the
CPU seconds of each step of that start done in turn by one process. The children keep
bytecode caches in OUT/pycache, as after an install. The headline figures also go to
`make bench`'s table (headlines.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))  # this checkout's ragtui, not an installed one (children: PYTHONPATH in main)

from headlines import machine, record, record_rounds  # noqa: E402 - beside this script

_FLOOR = "import polars, textual, yaml, numpy"
# `import textual` is the package alone; any Textual app needs `textual.app` before it draws.
_APP_FLOOR = "import polars, textual.app, yaml, numpy"
# The least a Textual app draws: the same imports, a header, a line of text and a footer,
# painted once (headless, 80×24); it prints the time from its start to that first paint,
# as the app's own child does. What ragtui adds is the rest: the load and compare of the
# sample, and the dashboard's widgets.
_HELLO_PAINT = (
    "import os, time\n"
    "import polars, yaml, numpy\n"
    "from textual.app import App\n"
    "from textual.widgets import Footer, Header, Static\n"
    "class Hello(App):\n"
    "    def compose(self):\n"
    "        yield Header(); yield Static('hello'); yield Footer()\n"
    "    def on_mount(self):\n"
    "        self.call_after_refresh(self.painted)\n"
    "    def painted(self):\n"
    "        self.exit(time.time() - float(os.environ['RAGTUI_BENCH_T0']))\n"
    "print(Hello().run(headless=True, size=(80, 24)))\n"
)


def hello_paint(env: dict[str, str]) -> float:
    """Seconds from process start to a bare Textual app's first paint."""
    env = {**env, "RAGTUI_BENCH_T0": repr(time.time())}
    done = subprocess.run([sys.executable, "-c", _HELLO_PAINT], env=env, cwd=REPO, capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of a child process run to completion."""
    elapsed, megabytes, _ = timed_with_cpu(argv, env)
    return elapsed, megabytes


def timed_with_cpu(argv: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds: user and system) of a child process run to completion."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, env=env, cwd=REPO)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"failed: {' '.join(argv)} (status {status})")
    return elapsed, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def first_paint(files: dict[str, Path | None] | None, env: dict[str, str], mode: str = "--child") -> dict[str, float]:
    """The app's first dashboard paint, from process start (bench_ui.py's child); with
    `mode="--phases"`, the CPU seconds of each step of that start, done in turn. `files`
    None: `ragtui` alone, the bundled sample as a new user first opens it."""
    from bench_ui import run_child

    saved = dict(os.environ)
    os.environ.update(env)
    try:
        return run_child(files, mode=mode)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def scale(n: int, out: Path, env: dict[str, str], cache: Path, full: bool) -> None:
    """The figures for 2 × n questions, opened with a gold set of the same questions; without
    `full`, the app's cold open is left out (at 1,000,000 it costs many minutes on a 2-core
    machine)."""
    from make_runs import gold_file, write

    subprocess.run([sys.executable, str(HERE / "make_runs.py"), str(n), str(out), "--no-parquet"], check=True)
    paths = write(n, out, parquet=False)
    a, b = str(paths["a_jsonl"]), str(paths["b_jsonl"])
    gold = gold_file(paths["a_jsonl"], out / f"gold_{n}.jsonl")
    python = sys.executable
    # The whole file, metadata line included (one extra row): polars' plainest read.
    read_both = f"import polars as pl\nfor path in {[a, b]!r}:\n    pl.read_ndjson(path)\n"
    report = [python, "-m", "ragtui", "report", a, b, "--gold", str(gold), "--format", "json"]
    files = {"a": paths["a_jsonl"], "b": paths["b_jsonl"], "gold": gold, "config": None}
    print(f"2 × {n:,} questions (JSONL, {paths['a_jsonl'].stat().st_size / 1e9:.2f} GB each), with --gold:", flush=True)
    peer_s, peer_mb = timed([python, "-c", read_both], env)
    line("polars' bare read of both files", peer_s, peer_mb, "(the peer)")
    plain_s, plain_mb = timed([*report, "--no-cache"], env)
    line("report --no-cache", plain_s, plain_mb, f"= {plain_s / peer_s:.2f}× polars' time, {plain_mb / peer_mb:.2f}× its memory")
    record("report_no_cache", size=n, figure=plain_s, reference=peer_s)
    record("report_memory", size=n, figure=plain_mb, reference=peer_mb)
    shutil.rmtree(cache, ignore_errors=True)
    cold_s, cold_mb = timed(report, env)
    line("report, empty cache (writes it)", cold_s, cold_mb, f"= {cold_s / peer_s:.2f}× polars' time, {cold_mb / peer_mb:.2f}× its memory")
    warm_s, warm_mb = timed(report, env)
    line("report again, from the cache", warm_s, warm_mb, f"= {warm_s / cold_s:.0%} of the first")
    record("report", size=n, figure=warm_s, reference=cold_s)
    if full:
        shutil.rmtree(cache, ignore_errors=True)
        app_cold = first_paint(files, env)
        line("app first paint, empty cache", app_cold["first_paint_s"], app_cold["peak_mb"],
             f"= {app_cold['peak_mb'] / cold_mb:.2f}× the report's memory")
        record("app_memory", size=n, figure=app_cold["peak_mb"], reference=cold_mb)
    app_warm = first_paint(files, env)  # the runs from the run cache
    line("app reopen, dashboard with values", app_warm["first_paint_s"], app_warm["peak_mb"],
         f"= {app_warm['peak_mb'] / warm_mb:.2f}× the reopened report's memory")
    record("app_reopen_memory", size=n, figure=app_warm["peak_mb"], reference=warm_mb,
           detail=f"its dashboard with values in {app_warm['first_paint_s']:.2f} s")


def line(what: str, seconds: float, megabytes: float, note: str) -> None:
    print(f"  {what:<34} {seconds:7.1f} s   peak {megabytes:7,.0f} MB   {note}", flush=True)


def sample_paint(env: dict[str, str], cache: Path, repeat: int) -> None:
    """The bundled sample opened for the first time (nothing cached) as `ragtui` alone opens
    it (its corpus and k sweep included): the dashboard with its values, then its intervals,
    against the import floor measured in the same rounds."""
    sample = None  # `ragtui` alone
    first_paint(sample, env)  # the interpreter's own bytecode caches warm, as after an install
    values, intervals, floors, app_floors, hellos = [], [], [], [], []
    values_cpu, intervals_cpu, floors_cpu = [], [], []
    steps: list[dict[str, float]] = []
    for _ in range(repeat):  # interleaved: a busy machine slows all alike
        floor_s, _, floor_cpu = timed_with_cpu([sys.executable, "-c", _FLOOR], env)
        floors.append(floor_s)
        floors_cpu.append(floor_cpu)
        app_floors.append(timed([sys.executable, "-c", _APP_FLOOR], env)[0])
        hellos.append(hello_paint(env))
        shutil.rmtree(cache, ignore_errors=True)  # a first open: nothing cached
        opened = first_paint(sample, env)
        if opened.get("ragtui_from") != str(REPO):  # the figures must be this checkout's
            raise SystemExit(f"the app measured ragtui from {opened.get('ragtui_from')}, not {REPO}")
        values.append(opened["first_paint_s"])
        intervals.append(opened["intervals_s"])
        values_cpu.append(opened["first_paint_cpu_s"])
        intervals_cpu.append(opened["intervals_cpu_s"])
        shutil.rmtree(cache, ignore_errors=True)
        steps.append(first_paint(sample, env, mode="--phases"))
    value, interval, floor, app_floor, hello = (
        statistics.median(times) for times in (values, intervals, floors, app_floors, hellos)
    )
    print(f"bundled sample, first open (nothing cached), median of {repeat}:", flush=True)
    print(f"  import floor ({_FLOOR})      {floor:5.2f} s")
    print(f"  with Textual's app ({_APP_FLOOR})  {app_floor:5.2f} s")
    print(f"  a Textual app's first paint (header, one line, footer)  {hello:5.2f} s   = {hello / floor:.2f}× the floor")
    print(f"  dashboard with its values  {value:5.2f} s   = {value / floor:.2f}× the floor   (goal ≤ 1.5×){spread(values, floors)}")
    print(f"  intervals filled in        {interval:5.2f} s   = {interval / floor:.2f}× the floor   (goal ≤ 2.5×){spread(intervals, floors)}")
    # CPU seconds (every thread) move far less than wall time on a shared machine: where the
    # two cores are taken by others, read these ratios beside the wall-time ones.
    floor_cpu, value_cpu, interval_cpu = (statistics.median(times) for times in (floors_cpu, values_cpu, intervals_cpu))
    print(f"  CPU seconds: floor {floor_cpu:.2f} s; to the values {value_cpu:.2f} s = {value_cpu / floor_cpu:.2f}×"
          f"{spread(values_cpu, floors_cpu)}; to the intervals {interval_cpu:.2f} s = {interval_cpu / floor_cpu:.2f}×"
          f"{spread(intervals_cpu, floors_cpu)}")
    # Where the CPU goes: one process doing each step of the start in turn (bench_ui.py's phases).
    from bench_ui import PHASES

    print(f"  CPU seconds of each step, done in turn by one process (median of {repeat}):")
    for phase, what in PHASES:
        print(f"    {statistics.median(step[phase] for step in steps):5.2f} s  {what}")
    print(f"  load average at the end    {os.getloadavg()[0]:.1f}")
    record_rounds("sample_values", size=None, figures=values, references=floors, cpu_figures=values_cpu, cpu_references=floors_cpu,
                  detail=f"a bare Textual app paints at {hello / floor:.2f}×")
    record_rounds("sample_intervals", size=None, figures=intervals, references=floors, cpu_figures=intervals_cpu,
                  cpu_references=floors_cpu)


def spread(times: list[float], floors: list[float]) -> str:
    """The range of a figure's ratios to the floor of its own round."""
    ratios = [time / floor for time, floor in zip(times, floors, strict=True)]
    return f"   rounds {min(ratios):.2f}–{max(ratios):.2f}×"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100000,1000000")
    parser.add_argument("--out", default=str(HERE / "out"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--full-up-to", type=int, default=100_000, help="larger sizes skip the app's cold open")
    args = parser.parse_args()
    out = Path(args.out)
    cache = out / "cache" / "ragtui"
    # PYTHONPATH: a script's children import this checkout's ragtui, not an installed one.
    # Bytecode caches as after an install (pip compiles them), kept in OUT: a child started with
    # PYTHONDONTWRITEBYTECODE would compile every module from source, the floor's included.
    env = {**os.environ, "XDG_CACHE_HOME": str(out / "cache"), "PYTHONPATH": str(REPO), "PYTHONPYCACHEPREFIX": str(out / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    print(machine(), flush=True)
    sample_paint(env, cache, args.repeat)
    for n in (int(s) for s in args.sizes.split(",") if s):
        scale(n, out, env, cache, full=n <= args.full_up_to)


if __name__ == "__main__":
    main()
