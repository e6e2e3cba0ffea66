"""Triage benchmark: how fast the failure list and the question view answer a key at scale.

Prints figures; asserts nothing. Measured headless (Textual's test driver), from the
key press to the moment the screen's update has been composed and turned into terminal
output — everything a real terminal session does except the write itself.

    python bench/bench_triage.py [--size 100000] [--out bench/out] [--steps 40]

Goals (issue #4): stepping to the next failure (`n`) in under 50 ms at 100,000
questions; a page of the failure list as fast; memory bounded by the data, not the UI.
The runs come from bench/make_runs.py (20 passages a question), read from Parquet.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))
from make_runs import write  # noqa: E402

from ragtui.core.session import Inputs, load_comparison  # noqa: E402


def rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def summary(label: str, pairs: list[tuple[float, float]]) -> None:
    for which, samples in (("first paint", [p[0] for p in pairs]), ("settled", [p[1] for p in pairs])):
        samples = sorted(samples)
        p95 = samples[min(len(samples) - 1, int(len(samples) * 0.95))]
        print(
            f"  {label + ', ' + which:<44} median {ms(statistics.median(samples))}   p95 {ms(p95)}"
            f"   max {ms(samples[-1])}   (n={len(samples)})"
        )


def host(make_screen):
    from textual.app import App

    from ragtui.ui.themes import THEME_VARIABLE_DEFAULTS

    class BenchHost(App):
        def get_theme_variable_defaults(self) -> dict[str, str]:
            return dict(THEME_VARIABLE_DEFAULTS)

        def on_mount(self) -> None:
            self.push_screen(make_screen())

    app = BenchHost()
    app.paints = []
    original = app._display

    def display(screen, renderable):
        # Headless apps skip the terminal write; do the encoding it would do, then note the time.
        original(screen, renderable)
        if renderable is not None:
            renderable.render_segments(app.console)
            app.paints.append(time.perf_counter())

    app._display = display
    return app


async def key_to_paint(pilot, key: str) -> tuple[float, float]:
    """(first, last) seconds from a key press to the screen updates it causes.

    The key goes straight to the driver's queue, as a terminal's would: `Pilot.press`
    waits for the process to go idle (20 ms sleeps) and would measure itself.
    "last" waits until no update has come for 100 ms (a scroll after a redraw counts).
    """
    from textual import events

    app = pilot.app
    await pilot.pause()
    app.paints.clear()
    start = time.perf_counter()
    event = events.Key(key, key if len(key) == 1 else None)
    event.set_sender(app)
    app._driver.send_message(event)
    deadline = start + 5
    while time.perf_counter() < deadline:
        await asyncio.sleep(0.0005)
        now = time.perf_counter()
        if app.paints and now - app.paints[-1] > 0.1:
            break
    if not app.paints:
        return float("nan"), float("nan")
    return app.paints[0] - start, app.paints[-1] - start


async def bench_question_steps(comparison, ids: list[str], size: tuple[int, int], steps: int) -> list[float]:
    from ragtui.ui.screens.question import QuestionScreen

    app = host(lambda: QuestionScreen(comparison, ids, 0))
    samples = []
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await key_to_paint(pilot, "n")  # warm-up: first layout of every widget
        for _ in range(steps):
            samples.append(await key_to_paint(pilot, "n"))
        assert app.screen.question_id == ids[steps + 1]
    return samples


async def bench_failure_list(comparison, size: tuple[int, int], steps: int) -> dict[str, list[float]]:
    from ragtui.ui.screens.failures import FailureListScreen
    from ragtui.ui.widgets.failure_table import FailureTable

    app = host(lambda: FailureListScreen(comparison, status="all"))
    out: dict[str, list[tuple[float, float]]] = {"pagedown": [], "down": [], "end": [], "s (status filter)": []}
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        for _ in range(steps):
            out["pagedown"].append(await key_to_paint(pilot, "pagedown"))
        for _ in range(steps):
            out["down"].append(await key_to_paint(pilot, "down"))
        out["end"].append(await key_to_paint(pilot, "end"))
        for _ in range(5):
            out["s (status filter)"].append(await key_to_paint(pilot, "s"))
        table = app.screen.query_one(FailureTable)
        print(f"  lines drawn in all: {table.lines_rendered:,}; strips cached: {table.cache_size} (of {table.rows.base.height:,} questions)")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=ROOT / "out")
    parser.add_argument("--steps", type=int, default=40)
    args = parser.parse_args()

    print(f"ragtui triage benchmark — {args.size:,} questions (bench/make_runs.py, Parquet)")
    paths = write(args.size, args.out)
    start = time.perf_counter()
    comparison = load_comparison(Inputs(a=paths["a_parquet"], b=paths["b_parquet"]))
    print(f"  load + compare (the core, for scale)          {time.perf_counter() - start:7.2f} s    peak RSS {rss_mb():,.0f} MB")
    gc.collect()

    from ragtui.ui.widgets.failure_rows import FailureFilter, FailureRows

    start = time.perf_counter()
    rows = FailureRows(comparison)
    print(f"  failure list frame (join, sort, group)        {ms(time.perf_counter() - start)}")
    for label, filt in (
        ("filter: regressed", FailureFilter(status="regressed")),
        ("filter: kind unfaithful", FailureFilter(kind="unfaithful")),
        ("filter: search 'teletravail'", FailureFilter(status="all", search="teletravail")),
    ):
        start = time.perf_counter()
        rows.apply(filt)
        print(f"  {label:<44} {ms(time.perf_counter() - start)}   → {rows.row_count:,} rows")
    rows.apply(FailureFilter())
    failing = rows.ids()
    print(f"  failing in A or B: {len(failing):,}")

    for size in ((80, 24), (160, 50)):
        print(f"\nQuestion view, `n` to the next failure, {size[0]}×{size[1]}:")
        summary("key → repaint", asyncio.run(bench_question_steps(comparison, failing, size, args.steps)))
        print(f"Failure list, {size[0]}×{size[1]}, all {args.size:,} questions:")
        for key, samples in asyncio.run(bench_failure_list(comparison, size, args.steps)).items():
            summary(f"{key} → repaint", samples)
    print(f"\npeak RSS of the whole run: {rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
