"""UI benchmark: time from process start to the first painted dashboard, and peak memory.

Prints figures; asserts nothing. Each measurement is a fresh process (imports count):
the child runs the app headless, notes the dashboard's first refresh (drawn with its
values), exits once the intervals are filled in, and reports those times since its
parent started it and its peak RSS. Beside it, the same
files through `ragtui report A B --format json` (no screen): the UI's goal is to cost
at most 1.5× the report on two 100,000-question runs, and < 1 s on the bundled sample.

Usage: python bench/bench_ui.py [--sizes 100000] [--out bench/out] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragtui.core.loading.inputs import Inputs

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO))  # this checkout's ragtui (the child runs this file too), not an installed one


def child(args: argparse.Namespace) -> None:
    """Run the app headless on the given files; print one JSON line once the dashboard has
    painted with its values (`first_paint_s`) and its intervals are filled in (`intervals_s`),
    and the CPU seconds of every thread of the process by then (`first_paint_cpu_s`, `intervals_cpu_s`)."""
    started = float(os.environ["RAGTUI_BENCH_T0"])
    # The order of `ragtui A B`: the CLI parses its arguments (importing the `compare`
    # command's module) and builds Inputs, then `launch` starts the load (`preload`: a
    # small one is finished first) and imports Textual.
    from ragtui.cli import parse_arguments

    parsed = parse_arguments(command_line(args))
    from ragtui.ui.launch import one_blas_thread, preload

    one_blas_thread()
    from ragtui.ui import loader
    from ragtui.ui.models.session import Session

    result: dict[str, float] = {"imports_s": time.time() - started}
    real_prepare = loader._prepare

    def timed_prepare(inputs):  # the core's own share (and the dashboard's numbers), to tell it from the UI's
        begin = time.perf_counter()
        try:
            return real_prepare(inputs)
        finally:
            result["load_comparison_s"] = time.perf_counter() - begin

    loader._prepare = timed_prepare
    session = Session(inputs_of(args, parsed))
    preloaded = preload(session)
    from ragtui.ui.app import RagtuiApp
    from ragtui.ui.screens import dashboard

    # The first refresh is noted before the dashboard's own on_mount asks for anything
    # after it (the focus, docs/performance.md): what follows the paint is not timed.
    # The dashboard is only ever drawn with its values.
    own_on_mount = dashboard.DashboardScreen.on_mount

    def on_mount(self) -> None:
        def painted() -> None:
            result.setdefault("first_paint_s", time.time() - started)
            result.setdefault("first_paint_cpu_s", time.process_time())

        self.call_after_refresh(painted)
        own_on_mount(self)

    own_show_intervals = dashboard.DashboardScreen.show_intervals

    def show_intervals(self, data) -> None:
        own_show_intervals(self, data)

        def painted() -> None:
            result.setdefault("intervals_s", time.time() - started)
            result.setdefault("intervals_cpu_s", time.process_time())
            self.app.exit()

        self.call_after_refresh(painted)

    dashboard.DashboardScreen.on_mount = on_mount  # type: ignore[method-assign]
    dashboard.DashboardScreen.show_intervals = show_intervals  # type: ignore[method-assign]
    app = RagtuiApp(session, preloaded=preloaded)
    app.run(headless=True, size=(args.width, args.height))
    result["total_s"] = time.time() - started
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["return_code"] = app.return_code or 0
    modules = sys.modules
    result["loaded_httpx"] = float("httpx" in modules)
    result["ragtui_from"] = str(Path(modules["ragtui"].__file__).resolve().parents[1])  # type: ignore[arg-type]
    print(json.dumps(result))


def inputs_of(args: argparse.Namespace, parsed: argparse.Namespace) -> Inputs:
    """The child's inputs, as the CLI builds them: with no run given, what `ragtui` alone
    opens (the bundled sample with its corpus and its k sweep, `tui.inputs_of`)."""
    from ragtui.core.loading.inputs import Inputs

    if args.a is None:
        from ragtui.cli.tui import inputs_of as ragtui_inputs

        return ragtui_inputs(parsed)
    return Inputs(
        a=Path(args.a),
        b=Path(args.b) if args.b else None,
        gold=Path(args.gold) if args.gold else None,
        config=Path(args.config) if args.config else None,
    )


def command_line(args: argparse.Namespace) -> list[str]:
    """The child's inputs as `ragtui compare` takes them: A and B, then --gold and --config;
    no run at all is `ragtui` alone (`compare` with no argument)."""
    if args.a is None:
        return ["compare"]
    words = ["compare", args.a, *([args.b] if args.b else [])]
    for name in ("gold", "config"):
        if getattr(args, name):
            words += [f"--{name}", getattr(args, name)]
    return words


# The steps of a start, each done in turn by one process (`phases_child`): what each costs in
# CPU seconds (every thread), apart from the others.
PHASES = (
    ("floor", "import polars, textual, yaml, numpy"),
    ("command_line", "the command line: its parser, the `compare` command's module"),
    ("textual_app", "the rest of Textual's app (textual.app, its widgets)"),
    ("core_modules", "ragtui's core modules and the session"),
    ("values", "the load of the values (read, validate, measure, compare)"),
    ("dashboard_modules", "the app's and the dashboard's modules"),
    ("first_paint", "the app's start to the dashboard's first paint"),
    ("intervals", "the intervals (two threads)"),
)


def phases_child(args: argparse.Namespace) -> None:
    """Each step of the app's start in turn, in this process; one JSON line: CPU seconds per step."""
    spent: dict[str, float] = {"interpreter": time.process_time()}

    def done(phase: str) -> None:
        spent[phase] = time.process_time() - sum(spent.values())

    from ragtui.ui.launch import one_blas_thread

    one_blas_thread()
    import numpy  # noqa: F401
    import polars  # noqa: F401
    import textual  # noqa: F401
    import yaml  # noqa: F401

    done("floor")
    from ragtui.cli import parse_arguments

    parsed = parse_arguments(command_line(args))
    done("command_line")
    import textual.app  # noqa: F401
    import textual.widgets  # noqa: F401

    done("textual_app")
    from concurrent.futures import Future

    from ragtui.ui import loader
    from ragtui.ui.models.session import Session

    session = Session(inputs_of(args, parsed))
    import ragtui.core.session  # noqa: F401 (what `start_loading` imports before its thread)
    import ragtui.ui.models.dashboard  # noqa: F401

    done("core_modules")
    data = session.load_values()
    done("values")
    from ragtui.ui.app import RagtuiApp
    from ragtui.ui.screens import dashboard

    done("dashboard_modules")
    own_on_mount = dashboard.DashboardScreen.on_mount

    def on_mount(self) -> None:
        def painted() -> None:
            done("first_paint")
            self.app.exit()

        self.call_after_refresh(painted)
        own_on_mount(self)

    dashboard.DashboardScreen.on_mount = on_mount  # type: ignore[method-assign]
    RagtuiApp.compute_intervals = lambda self, data: None  # type: ignore[method-assign,assignment]  # timed on its own below
    preloaded: Future = Future()
    preloaded.set_result(data)
    RagtuiApp(session, preloaded=preloaded).run(headless=True, size=(args.width, args.height))
    leaving = time.process_time()
    loader.fill_intervals(data)
    spent["intervals"] = time.process_time() - leaving
    print(json.dumps(spent))


def run_child(files: dict[str, Path | None] | None, width: int = 80, height: int = 24, mode: str = "--child") -> dict[str, float]:
    """The child's figures on `files`; None: `ragtui` alone (the bundled sample as it opens)."""
    argv = [sys.executable, str(Path(__file__).resolve()), mode]
    for name in ("a", "b", "gold", "config"):
        if files and files.get(name):
            argv += [f"--{name}", str(files[name])]
    argv += ["--width", str(width), "--height", str(height)]
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAGTUI_BENCH_T0": repr(time.time())}
    out = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=REPO, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


_REPORT_CHILD = """
import contextlib, io, json, os, resource, sys, time
from ragtui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
started = float(os.environ["RAGTUI_BENCH_T0"])
print(json.dumps({"total_s": time.time() - started, "code": code,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run_report(files: dict[str, Path | None]) -> dict[str, float]:
    """`ragtui report A B --format json` in a fresh process: time since start, peak RSS."""
    argv = ["report", str(files["a"])]
    if files.get("b"):
        argv.append(str(files["b"]))
    for name in ("gold", "config"):
        if files.get(name):
            argv += [f"--{name}", str(files[name])]
    argv += ["--format", "json"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAGTUI_BENCH_T0": repr(time.time())}
    out = subprocess.run([sys.executable, "-c", _REPORT_CHILD, *argv], capture_output=True, text=True, env=env, cwd=REPO, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(label: str, files: dict[str, Path | None], repeat: int, goal: str) -> None:
    # Interleaved, so a busy machine slows both sides alike; medians reported.
    ui, report = [], []
    for _ in range(repeat):
        ui.append(run_child(files))
        report.append(run_report(files))
    paint = statistics.median(r["first_paint_s"] for r in ui)
    core = statistics.median(r.get("load_comparison_s", float("nan")) for r in ui)
    report_s = statistics.median(r["total_s"] for r in report)
    print(label)
    print(f"  first dashboard paint : {paint:6.2f} s  (median of {repeat}, from process start; the core's load: {core:.2f} s)")
    print(f"  ragtui report (json)  : {report_s:6.2f} s  → UI / report = {paint / report_s:4.2f}×   goal: {goal}")
    print(f"  peak memory           : UI {max(r['peak_mb'] for r in ui):6.0f} MB · report {max(r['peak_mb'] for r in report):6.0f} MB")
    if any(r["loaded_httpx"] for r in ui):
        print("  note: httpx was imported on the way to the dashboard")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--phases", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--a"), parser.add_argument("--b"), parser.add_argument("--gold"), parser.add_argument("--config")
    parser.add_argument("--width", type=int, default=80), parser.add_argument("--height", type=int, default=24)
    parser.add_argument("--sizes", default="100000", help="comma-separated question counts for the synthetic runs")
    parser.add_argument("--out", default=str(HERE / "out"), help="where make_runs.py writes (and reuses) its files")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    if args.phases:
        phases_child(args)
        return
    from ragtui.cli.tui import sample_inputs

    sample = sample_inputs()
    measure("bundled sample (120 questions, A vs B)", sample, args.repeat, "< 1 s")
    from make_runs import write

    for n in (int(s) for s in args.sizes.split(",") if s):
        paths = write(n, Path(args.out))
        files = {"a": paths["a_jsonl"], "b": paths["b_jsonl"], "gold": None, "config": None}
        measure(f"synthetic JSONL, {n:,} questions each (A vs B)", files, args.repeat, "≤ 1.5×")


if __name__ == "__main__":
    main()
