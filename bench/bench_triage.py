"""Triage benchmark: how fast the failure list and the question view answer a key at scale.

Prints figures; asserts nothing. Measured headless (Textual's test driver), from the
key press to the moment the screen's update has been composed and turned into terminal
output — everything a real terminal session does except the write itself.

    python bench/bench_triage.py [--size 100000] [--out bench/out] [--steps 40]

Goals (issue #4): stepping to the next failure (`n`) in under 50 ms at 100,000
questions; a page of the failure list as fast; memory bounded by the data, not the UI.
The runs come from bench/make_runs.py (20 passages a question), read from Parquet
(`--jsonl`: from JSONL, whose texts the question view reads back from each record's line),
opened with a JSONL gold set of the same questions; the same `n` on the bundled sample
is the floor.

Goal (issue #13): every key of the question view under 100 ms on a 5,000-sentence
answer (it was 2.6–6 s for `j`, 14.5 s for `v`), at 80×24 and 160×50. `--long-only`
runs just that part; the same keys on a 3-sentence answer of the same runs are the
floor, measured in alternate rounds with the long one so that a busy machine slows both
alike: what the long answer adds is the difference between the two columns. A third
column has B rewrite ten sentences in eleven of the long answer (`--rewritten`'s shape):
its `d` shows "computing the diff…" at once and the diff when a worker has made it.

The same rounds press `y`, `o` and `e` on the failure list, its cursor on each question
and the session's rows forgotten: a long question's rows are read in a worker first
("loading the question…" is the first paint), then the menu of its texts is drawn.

`n` onto the long question is then pressed in processes of their own, with and without
the start-up heap frozen (`core/heap.py`): its first paint, and the full garbage
collections that ran on the UI thread before it.

Then, on that rewritten answer: the diff's computing time at each level (word by word
with `WORD_MATCH_BUDGET` lifted, and as shipped: by sentence past it), and the
keys' response while a word diff of it runs in the worker (seconds of CPU in the same
process), each beside the 100 ms goal.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import resource
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT.parent))
from headlines import record  # noqa: E402
from make_runs import gold_file, write  # noqa: E402

from ragtui.core.session import Inputs, load_comparison  # noqa: E402


def rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> str:
    """The CPU, its count and the load when the run started: figures mean little without them."""
    import textual

    name = platform.processor() or "unknown CPU"
    try:
        name = next(r.split(":", 1)[1].strip() for r in Path("/proc/cpuinfo").read_text().splitlines() if r.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return f"{name}, {os.cpu_count()} CPUs{load} · Python {platform.python_version()} · Textual {textual.__version__}"


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
            from ragtui.core.heap import freeze_start_up_heap

            self.push_screen(make_screen())
            self.call_after_refresh(freeze_start_up_heap)  # as RagtuiApp does once its first comparison is on screen

    app = BenchHost()
    app.paints = []
    app.painted = []  # the screen of each paint
    original = app._display

    def display(screen, renderable):
        # Headless apps skip the terminal write; do the encoding it would do, then note the time.
        original(screen, renderable)
        if renderable is not None:
            renderable.render_segments(app.console)
            app.paints.append(time.perf_counter())
            app.painted.append(screen)

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
    app.painted.clear()
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


def rewritten(text: str, index: int) -> str:
    """B's wording of sentence `index` of an answer it rewrote throughout: all but each 11th."""
    return text if index % 11 == 0 else text.replace("de la réponse", "de la nouvelle réponse")


def long_answer_comparison(root: Path, sentences: int = 5_000, *, rewrite: bool = False):
    """Two runs of three questions; `long` has a `sentences`-sentence answer, judged sentence
    by sentence; B changes one sentence in 50 of it, or with `rewrite` ten in eleven."""
    from ragtui.core.loading.records import write_run_jsonl

    root.mkdir(parents=True, exist_ok=True)
    gold = [{"id": qid, "question": f"Question {qid} sur le congé ?", "gold_passages": [f"g_{qid}"], "expected_answer": "25 jours.", "category": "procedurale"} for qid in ("short", "long", "other")]
    import yaml

    (root / "gold.yaml").write_text(yaml.safe_dump(gold, allow_unicode=True), encoding="utf-8")

    def records(variant: int) -> list[dict]:
        out = []
        for qid in ("short", "long", "other"):
            n = sentences if qid == "long" else 3
            texts = [f"Phrase {i} de la réponse, sur l'article {i % 97} du règlement{' modifié' if variant and i % 50 == 0 else ''}." for i in range(n)]
            if rewrite and variant and qid == "long":
                texts = [rewritten(text, i) for i, text in enumerate(texts)]
            verdicts = [{"text": t, "attested": (i + variant) % 7 != 0, "evidence": [f"g_{qid}"], "reason": f"raison {i}"} for i, t in enumerate(texts)]
            retrieved = [{"id": f"g_{qid}" if r == (1 + variant) else f"p_{qid}_{r}", "text": f"Passage {r} " + "texte " * 60, "score": 1 - r / 40} for r in range(1, 21)]
            out.append({"id": qid, "retrieved": retrieved, "answer": " ".join(texts),
                        "judge": {"model": "bench", "faithfulness": {"sentences": verdicts}, "utility": {"score": 4 - variant, "reason": "ok"}}})
        return out

    write_run_jsonl(root / "a.jsonl", {"name": "A", "k": 5}, records(0))
    write_run_jsonl(root / "b.jsonl", {"name": "B", "k": 5}, records(1))
    return load_comparison(Inputs(a=root / "a.jsonl", b=root / "b.jsonl", gold=root / "gold.yaml"))


# (label, keys pressed before the measured one, measured key, keys that undo it)
LONG_KEYS = [
    ("j next sentence", [], "j", []),
    ("k previous sentence", [], "k", []),
    ("t other side", [], "t", []),
    ("space full passages", [], "space", ["space"]),
    ("a all passages", [], "a", ["a"]),
    ("d diff", [], "d", ["d"]),
    ("v verdict inspector", [], "v", ["escape"]),
    ("j in the inspector", ["v"], "j", ["escape"]),
    ("m mark menu", [], "m", ["escape"]),
    ("y copy menu", [], "y", ["escape"]),
    ("o pager menu", [], "o", ["escape"]),
    ("e editor menu", [], "e", ["escape"]),
    ("/ search prompt", [], "slash", ["escape"]),
    ("j while a search is on", ["slash", *"phrase", "enter"], "j", ["escape"]),
    ("p previous question, then n back", [], "p", ["n"]),
    ("n onto this question (from the previous)", ["p"], "n", []),
]
COLD_STEP = LONG_KEYS[-1][0]  # measured with the session's rows forgotten: a first visit
READ = "  its texts drawn (read in a worker)"  # the same press, until the rows are on screen


async def until_read(pilot) -> None:
    """Until the question view shows its question's texts (a long row is read in a worker)."""
    while pilot.app.screen.has_class("-loading"):
        await asyncio.sleep(0.002)


async def bench_long_answer(comparison, size: tuple[int, int], rounds: int, question: str) -> dict[str, list[tuple[float, float]]]:
    from ragtui.ui.screens.question import QuestionScreen

    ids = ["other", "short", "long"]  # both measured ones have a 3-sentence question before them (`p`)
    index = ids.index(question)
    app = host(lambda: QuestionScreen(comparison, ids, index))
    from ragtui.ui.models.question_rows import QuestionRows

    out: dict[str, list[tuple[float, float]]] = {label: [] for label, *_ in LONG_KEYS} | {READ: []}
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await until_read(pilot)
        assert app.screen.question_id == ids[index]
        for _ in range(rounds):
            for label, before, key, undo in LONG_KEYS:
                for k in before:
                    await pilot.press(k)
                if label == COLD_STEP:
                    app.screen.session.rows = QuestionRows()
                start = time.perf_counter()
                out[label].append(await key_to_paint(pilot, key))
                if label == COLD_STEP:
                    await until_read(pilot)
                    read = time.perf_counter() - start
                    out[READ].append((read, read))
                for k in undo:
                    await pilot.press(k)
                await pilot.pause()
    return out


LIST_KEYS = [("y copy", "y"), ("o pager", "o"), ("e editor", "e")]
MENU = "  its menu drawn (rows read in a worker)"


async def until_menu(app, start: float) -> float:
    """Seconds from `start` to the first paint of a menu (5 s at most)."""
    from ragtui.ui.screens.menus import ChoiceMenu

    deadline = start + 5
    while time.perf_counter() < deadline:
        painted = [when for when, screen in zip(app.paints, app.painted, strict=True) if when >= start and isinstance(screen, ChoiceMenu)]
        if painted:
            return painted[0] - start
        await asyncio.sleep(0.0005)
    return float("nan")


async def bench_list_keys(comparison, size: tuple[int, int], rounds: int, question: str) -> dict[str, list[tuple[float, float]]]:
    """`y`, `o`, `e` on the failure list, its cursor on `question`, the session's rows
    forgotten before each press (a first visit): the key's first paint ("loading the
    question…" for a long one), and the menu of its texts drawn."""
    from ragtui.ui.models.question_rows import QuestionRows
    from ragtui.ui.screens.failures import FailureListScreen

    app = host(lambda: FailureListScreen(comparison, status="all"))
    out: dict[str, list[tuple[float, float]]] = {}
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        index = screen.rows.index_of(question)
        assert index is not None
        screen.table.cursor = index
        await pilot.pause()
        for _ in range(rounds):
            for label, key in LIST_KEYS:
                screen.session.rows = QuestionRows()
                start = time.perf_counter()
                out.setdefault(label, []).append(await key_to_paint(pilot, key))
                menu = await until_menu(app, start)
                out.setdefault(f"{label}{MENU[1:]}", []).append((menu, menu))
                await pilot.press("escape")
                await pilot.pause()
    return out


def print_columns(title: str, columns, samples: dict[int, dict[str, list[tuple[float, float]]]]) -> None:
    """One row a key: median / p95 of its first paint and of its settled paint in each column."""
    print(title)
    heads = [f"{which}: {name}" if index == 0 else name for which in ("first paint", "settled") for index, (name, _, _) in enumerate(columns)]
    print(f"  {'key':<34} " + " ".join(f"{head:>20}" for head in heads))
    for label in samples[0]:
        cells = []
        for which in (0, 1):
            for index in range(len(columns)):
                values = sorted(p[which] for p in samples[index][label])
                p95 = values[min(len(values) - 1, int(len(values) * 0.95))]
                cells.append(f"{statistics.median(values) * 1000:6.1f} / {p95 * 1000:6.1f}")
        print(f"  {label:<34} " + " ".join(f"{cell:>20}" for cell in cells))


async def gc_pauses(comparison, rounds: int) -> list[tuple[float, list[float]]]:
    """`n` onto the long question, its rows forgotten, `rounds` times: (first paint, the
    full collections that ran on the UI thread between the key and that paint, seconds)."""
    import threading

    from ragtui.ui.models.question_rows import QuestionRows
    from ragtui.ui.screens.question import QuestionScreen

    started: list[float] = []
    full: list[tuple[float, float]] = []  # (start, duration) of each generation-2 collection on the UI thread

    def noted(phase: str, info: dict) -> None:
        if info["generation"] == 2 and threading.current_thread() is threading.main_thread():
            if phase == "start":
                started.append(time.perf_counter())
            elif started:
                full.append((started[-1], time.perf_counter() - started[-1]))

    gc.callbacks.append(noted)
    app = host(lambda: QuestionScreen(comparison, ["short", "long"], 1))
    out = []
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await until_read(pilot)
            for _ in range(rounds):
                await pilot.press("p")
                app.screen.session.rows = QuestionRows()
                await pilot.pause()
                full.clear()
                start = time.perf_counter()
                first, _ = await key_to_paint(pilot, "n")
                await until_read(pilot)
                out.append((first, [took for when, took in full if when - start < first]))
    finally:
        gc.callbacks.remove(noted)
    return out


def gc_probe(freeze: bool, rounds: int) -> None:
    """In a process of its own (the start-up heap is frozen once a process): print one JSON line."""
    import json
    import tempfile

    if not freeze:
        import ragtui.core.heap

        ragtui.core.heap.freeze_start_up_heap = lambda: None
    comparison = long_answer_comparison(Path(tempfile.mkdtemp(prefix="ragtui-bench-")) / "gc")
    print(json.dumps(asyncio.run(gc_pauses(comparison, rounds))))


def bench_gc(rounds: int) -> None:
    """`n` onto a long question with and without the start-up heap frozen (`core/heap.py`),
    in alternate processes: the first paint, and the full collections before it."""
    import json
    import subprocess

    results: dict[bool, list] = {False: [], True: []}
    for _ in range(3):
        for freeze in (False, True):
            command = [sys.executable, __file__, "--gc-probe", "freeze" if freeze else "no-freeze", "--rounds", str(rounds)]
            line = subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]
            results[freeze] += json.loads(line)
    print(f"\n`n` onto the 5,000-sentence question, 80×24, {len(results[True])} presses each, alternate processes (load average now {os.getloadavg()[0]:.1f}):")
    for freeze, presses in results.items():
        firsts = sorted(first for first, _ in presses)
        pauses = sorted(took for _, took_list in presses for took in took_list)
        p95 = firsts[min(len(firsts) - 1, int(len(firsts) * 0.95))]
        shown = f"{len(pauses)} in {len(presses)} presses, median {statistics.median(pauses) * 1000:.0f} ms, max {pauses[-1] * 1000:.0f} ms" if pauses else "none"
        print(f"  {'start-up heap frozen' if freeze else 'nothing frozen':<22} first paint median {ms(statistics.median(firsts))}   p95 {ms(p95)}"
              f"   full collections before it: {shown}")


def bench_diff_levels(rewritten_long, edited_long) -> None:
    """The answer diff's computing time at each level, beside the 100 ms a key may take."""
    from ragtui.core.triage import diffs

    print("\nAnswer diff of the 5,000-sentence answer, computing time (in the worker; a key's goal is 100 ms):")
    for name, comparison in (("rewritten throughout", rewritten_long), ("one sentence in 50", edited_long)):
        a, b = (comparison.a.question("long") or {})["answer"], (comparison.b.question("long") or {})["answer"]
        for lifted in (False, True):
            budget = diffs.WORD_MATCH_BUDGET
            if lifted:
                diffs.WORD_MATCH_BUDGET = 1 << 62
            try:
                start = time.perf_counter()
                made = diffs.answer_diff(a, b)
                took = time.perf_counter() - start
            finally:
                diffs.WORD_MATCH_BUDGET = budget
            how = "budget lifted" if lifted else "as shipped   "
            print(f"  {name:<22} {how}  {ms(took)}   level: {made.level:<8}  {len(made.pieces):,} pieces")


async def bench_keys_during_diff(comparison, size: tuple[int, int], rounds: int) -> dict[str, list[tuple[float, float]]]:
    """`d` then Esc, j, k, j… while the worker makes a word diff lasting seconds: how the
    UI thread fares beside a CPU-bound thread of the same process (the GIL)."""
    from ragtui.core.triage import diffs
    from ragtui.ui.screens.question import QuestionScreen

    out: dict[str, list[tuple[float, float]]] = {"d (computing… shown)": [], "escape, j, k during the diff": []}
    budget = diffs.WORD_MATCH_BUDGET
    diffs.WORD_MATCH_BUDGET = 1 << 62
    try:
        for _ in range(max(1, rounds // 5)):
            app = host(lambda: QuestionScreen(comparison, ["other", "long"], 1))
            async with app.run_test(size=size) as pilot:
                await pilot.pause()
                out["d (computing… shown)"].append(await key_to_paint(pilot, "d"))
                for key in ("escape", *["j", "k"] * 5):
                    if not app.workers:
                        print("  note: the diff finished before the keys were all measured")
                        break
                    out["escape, j, k during the diff"].append(await key_to_paint(pilot, key))
                app.workers.cancel_all()
    finally:
        diffs.WORD_MATCH_BUDGET = budget
    return out


def first_paints(pairs: list[tuple[float, float]]) -> float:
    """The median first paint of a key's presses."""
    return statistics.median(first for first, _ in pairs)


def p95_note(pairs: list[tuple[float, float]]) -> str:
    """The 95th percentile of a key's first paints, and the number of presses."""
    firsts = sorted(first for first, _ in pairs)
    return f"p95 {firsts[min(len(firsts) - 1, int(len(firsts) * 0.95))] * 1000:.0f} ms over {len(firsts)} presses"


def hand_over_long_keys(samples, listed, during_diff: dict[str, list[tuple[float, float]]]) -> None:
    """The long-answer keys at 80×24 for `make bench`'s table, each beside its floor (column 0:
    a 3-sentence answer; 1: the 5,000-sentence one; 2: the same rewritten throughout)."""
    for key, column, label in (("long_j", 1, "j next sentence"), ("long_d", 2, "d diff"), ("long_n", 1, COLD_STEP)):
        record(key, figure=first_paints(samples[column][label]) * 1000, reference=first_paints(samples[0][label]) * 1000)
    slowest = {column: max(first_paints(listed[column][label]) for label, _ in LIST_KEYS) for column in (0, 1)}
    record("list_keys", figure=slowest[1] * 1000, reference=slowest[0] * 1000)
    keys = during_diff["escape, j, k during the diff"]
    if keys:  # none when the diff ended before the first key
        record("keys_during_diff", figure=first_paints(keys) * 1000, detail=p95_note(keys))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--out", type=Path, default=ROOT / "out")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=15, help="presses of each key on the long answer")
    parser.add_argument("--long-only", action="store_true", help="only the 5,000-sentence answer")
    parser.add_argument("--jsonl", action="store_true", help="read the runs as JSONL (their texts read back from each line) instead of Parquet")
    parser.add_argument("--gc-probe", choices=("freeze", "no-freeze"), help=argparse.SUPPRESS)  # bench_gc's own processes
    args = parser.parse_args()
    if args.gc_probe:
        gc_probe(args.gc_probe == "freeze", args.rounds)
        return

    import tempfile

    print(f"machine: {machine()}")
    start = time.perf_counter()
    root = Path(tempfile.mkdtemp(prefix="ragtui-bench-"))
    long = long_answer_comparison(root / "edited")
    rewritten_long = long_answer_comparison(root / "rewritten", rewrite=True)
    print(f"5,000-sentence answers (one edited in 50, one rewritten throughout): runs written and loaded in {time.perf_counter() - start:5.2f} s")
    columns = (("floor", long, "short"), ("5,000 sentences", long, "long"), ("rewritten", rewritten_long, "long"))
    at_80_24: tuple[dict, dict] = ({}, {})
    for size in ((80, 24), (160, 50)):
        samples: dict[int, dict[str, list[tuple[float, float]]]] = {index: {} for index in range(len(columns))}
        listed: dict[int, dict[str, list[tuple[float, float]]]] = {index: {} for index in range(len(columns))}
        for _ in range(args.rounds):  # alternate rounds: floor, long, rewritten, floor…
            for index, (_, comparison, question) in enumerate(columns):
                for label, pairs in asyncio.run(bench_long_answer(comparison, size, 1, question)).items():
                    samples[index].setdefault(label, []).extend(pairs)
                for label, pairs in asyncio.run(bench_list_keys(comparison, size, 1, question)).items():
                    listed[index].setdefault(label, []).extend(pairs)
        print_columns(f"\nQuestion view at {size[0]}×{size[1]}, key → paint, median / p95 over {args.rounds} presses "
                      f"(floor: the same key on a 3-sentence answer; goal: under 100 ms; load average now {os.getloadavg()[0]:.1f})", columns, samples)
        print_columns(f"\nFailure list at {size[0]}×{size[1]}, the cursor on the question, its rows not read yet, key → paint, median / p95 over "
                      f"{args.rounds} presses (floor: a 3-sentence question; goal: under 100 ms or progress; load average now {os.getloadavg()[0]:.1f})",
                      columns, listed)
        if size == (80, 24):
            at_80_24 = (samples, listed)
    bench_gc(args.rounds)
    bench_diff_levels(rewritten_long, long)
    print("\nKeys while a word diff of the rewritten answer runs in the worker (budget lifted), 80×24:")
    during_diff = asyncio.run(bench_keys_during_diff(rewritten_long, (80, 24), args.rounds))
    for label, pairs in during_diff.items():
        summary(f"{label} (goal: under 100 ms)", pairs)
    hand_over_long_keys(*at_80_24, during_diff)
    if args.long_only:
        return

    kind = "jsonl" if args.jsonl else "parquet"
    print(f"ragtui triage benchmark — {args.size:,} questions (bench/make_runs.py, {kind})")
    paths = write(args.size, args.out)
    gold = gold_file(paths["a_jsonl"], args.out / f"gold_{args.size}.jsonl")
    start = time.perf_counter()
    comparison = load_comparison(Inputs(a=paths[f"a_{kind}"], b=paths[f"b_{kind}"], gold=gold))
    print(f"  load + compare with --gold (the core, for scale) {time.perf_counter() - start:7.2f} s    peak RSS {rss_mb():,.0f} MB")
    gc.collect()

    from ragtui.ui.models.failure_rows import FailureFilter, FailureRows

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

    from ragtui.cli.tui import sample_inputs

    bundled = sample_inputs()
    sample = load_comparison(Inputs(a=bundled["a"], b=bundled["b"], gold=bundled["gold"], config=bundled["config"]))
    sample_failing = FailureRows(sample).ids()
    for size in ((80, 24), (160, 50)):
        print(f"\nQuestion view, `n` to the next failure, {size[0]}×{size[1]}:")
        steps = asyncio.run(bench_question_steps(comparison, failing, size, args.steps))
        summary("key → repaint", steps)
        floor = asyncio.run(bench_question_steps(sample, sample_failing, size, min(args.steps, len(sample_failing) - 2)))
        summary("the same on the bundled sample (the floor)", floor)
        if size == (80, 24):
            record("next_failure", size=args.size, figure=first_paints(steps) * 1000, reference=first_paints(floor) * 1000,
                   detail=p95_note(steps))
        print(f"Failure list, {size[0]}×{size[1]}, all {args.size:,} questions:")
        for key, samples in asyncio.run(bench_failure_list(comparison, size, args.steps)).items():
            summary(f"{key} → repaint", samples)
    print(f"\npeak RSS of the whole run: {rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
