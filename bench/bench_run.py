"""`ragtui run` benchmark: throughput against a slow endpoint, and the callable path's overhead.

1. Endpoint: the tests' fake RAG service runs in its own process (so it does not share
   the GIL with the client) and answers each request after a fixed latency; `ragtui
   run --endpoint` asks N questions at concurrency J. Printed beside the ideal,
   J / latency (320 questions/s at 16 × 50 ms), goal ≥ 90 % of it, and beside two
   clients asking the same server in turn with it: bare httpx, and a minimal HTTP/1.1
   client on asyncio streams (the server's and the machine's own limit).
2. Python callables: the same `answer(question, k)` function called by a bare loop, then
   by `ragtui run --system` (-j 1: one question at a time, as the loop), each record
   written and flushed. Printed: both per-question times and the difference. Goal: the
   difference ≤ 1 ms per question.

Prints figures, the machine and its load average; asserts nothing. On a shared machine
the figures move by tens of percent from one run to the next: the endpoint is measured
`--repeat` times, the three clients in turn, and printed as median and range, with this
process's CPU seconds per question (which a shared machine moves far less).

Usage: python bench/bench_run.py [--questions 1000] [--concurrency 16] [--latency 0.05] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import yaml  # noqa: E402

from bench.bench_judge import transport_baseline  # noqa: E402
from bench.headlines import record  # noqa: E402
from ragtui.core.loading.config import Config  # noqa: E402
from ragtui.core.running.callables import CallableSystem, LoadedFunction  # noqa: E402
from ragtui.core.running.endpoint import EndpointSystem  # noqa: E402
from ragtui.core.running.start import run_gold_set  # noqa: E402

PASSAGES = [{"id": f"p{rank}", "text": "Article 42 — La période d'essai des cadres est de quatre mois.", "score": 1.0 - rank / 10} for rank in range(5)]


def answer(question: str, k: int) -> dict:
    """What a fast system returns: k passages and an answer (the work itself is not measured)."""
    return {"passages": PASSAGES[:k], "answer": "Quatre mois, renouvelable une fois."}


def write_gold(folder: Path, n: int) -> Path:
    path = folder / "gold.yaml"
    items = [{"id": f"q{i:05d}", "question": f"Quelle est la durée de la période d'essai, cas {i} ?", "gold_passages": ["p0"]} for i in range(n)]
    path.write_text(yaml.safe_dump(items, allow_unicode=True), encoding="utf-8")
    return path


class FirstAsked:
    """A progress sink noting when the first and the last question finished."""

    def __init__(self) -> None:
        self.first: float | None = None
        self.last = 0.0

    def begin(self, total: int) -> None:
        pass

    def update(self, **_: object) -> None:
        now = time.perf_counter()
        self.first = now if self.first is None else self.first
        self.last = now

    def close(self) -> None:
        pass


async def minimal_client(url: str, n: int, concurrency: int, attempt: int) -> float:
    """Seconds for `n` POSTs by the least an HTTP/1.1 client can do (asyncio streams, one
    keep-alive connection per worker, the reply's length read from its head): what the
    server and the machine allow, whatever the client."""
    parts = urlsplit(url)
    remaining = list(range(n))

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        try:
            while remaining:
                body = json.dumps({"id": f"m{attempt}.{remaining.pop()}", "question": "q", "k": 5}).encode()
                head = f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                writer.write(head.encode() + body)
                reply_head = await reader.readuntil(b"\r\n\r\n")
                length = next(int(line.split(b":")[1]) for line in reply_head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
                json.loads(await reader.readexactly(length))
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started


def endpoint_throughput(gold: Path, folder: Path, n: int, concurrency: int, latency: float, repeat: int) -> list[tuple[float, ...]]:
    """Per repetition, (questions/s of the whole `ragtui run`, of its asking alone, of bare
    httpx, of the minimal client; CPU seconds per question of the whole `ragtui run`, of
    bare httpx, of the minimal client) against one server: the three take turns, so a busy spell of the machine
    falls on all. CPU is this process's (the server runs in its own), which a shared
    machine moves far less than wall time."""
    server = subprocess.Popen([sys.executable, str(REPO / "tests" / "running" / "fake_rag.py"), "--latency", str(latency)], stdout=subprocess.PIPE, text=True)
    figures = []
    try:
        assert server.stdout is not None
        url = f"http://127.0.0.1:{server.stdout.readline().strip()}/ask"
        for attempt in range(repeat):
            system = EndpointSystem(url, timeout=30.0, concurrency=concurrency)
            marks = FirstAsked()
            started, cpu = time.perf_counter(), time.process_time()
            result = run_gold_set(gold, system, folder / f"endpoint{attempt}.jsonl", Config(), k=5, concurrency=concurrency, progress=marks)
            whole, ragtui_cpu = time.perf_counter() - started, time.process_time() - cpu
            assert result.totals.answered == n and marks.first is not None, result.totals
            # The first answer arrives one latency after asking began: count it back in.
            asking = marks.last - marks.first + latency
            cpu = time.process_time()
            baseline = n / asyncio.run(transport_baseline(url, n, concurrency, lambda i, attempt=attempt: {"id": f"t{attempt}.{i}", "question": "q", "k": 5}))
            bare_cpu = time.process_time() - cpu
            cpu = time.process_time()
            minimal = n / asyncio.run(minimal_client(url, n, concurrency, attempt))
            minimal_cpu = time.process_time() - cpu
            figures.append((n / whole, n / asking, baseline, minimal, ragtui_cpu / n, bare_cpu / n, minimal_cpu / n))
    finally:
        server.terminate()
        server.wait()
    return figures


def spread(values: list[float], ideal: float) -> str:
    """`284.5/s (88.9 %; 271.0…290.1/s)`: the median, its share of the ideal, the range."""
    middle = statistics.median(values)
    return f"{middle:6.1f}/s ({middle / ideal:.1%} of the ideal; range {min(values):.1f}…{max(values):.1f}/s)"


def cpu_spread(values: list[float]) -> str:
    """`0.612 ms (0.580…0.700)`: the median and the range, in milliseconds."""
    return f"{statistics.median(values) * 1000:.3f} ms ({min(values) * 1000:.3f}…{max(values) * 1000:.3f})"


def callable_overhead(gold: Path, folder: Path, n: int) -> tuple[float, float]:
    """(seconds per question in a bare loop, seconds per question through `ragtui run`)."""
    questions = [f"Quelle est la durée de la période d'essai, cas {i} ?" for i in range(n)]
    best_bare = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for question in questions:
            answer(question, 5)
        best_bare = min(best_bare, (time.perf_counter() - started) / n)
    best_run = float("inf")
    for attempt in range(3):
        system = CallableSystem(system=LoadedFunction(answer, "bench_run.py:answer", False, None))
        out = folder / f"callable{attempt}.jsonl"
        started = time.perf_counter()
        result = run_gold_set(gold, system, out, Config(), k=5, concurrency=1)
        best_run = min(best_run, (time.perf_counter() - started) / n)
        assert result.totals.answered == n
    return best_bare, best_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--repeat", type=int, default=5, help="endpoint runs, ragtui and bare httpx in turn (medians and ranges printed)")
    options = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}, Python {platform.python_version()}")
    print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        gold = write_gold(folder, options.questions)
        ideal = options.concurrency / options.latency
        figures = endpoint_throughput(gold, folder, options.questions, options.concurrency, options.latency, options.repeat)
        whole, asking, baseline, minimal, ragtui_cpu, bare_cpu, minimal_cpu = ([run[i] for run in figures] for i in range(7))
        print(f"endpoint: {options.questions} questions, -j {options.concurrency}, {options.latency * 1000:.0f} ms each; ideal {ideal:.1f} questions/s; median of {options.repeat} runs")
        print(f"  ragtui run, asking:        {spread(asking, ideal)}; goal ≥ 90 %")
        print(f"  ragtui run, whole command: {spread(whole, ideal)}; with loading the gold set and writing the file")
        print(f"  bare httpx, same server:   {spread(baseline, ideal)}; httpx's AsyncClient.post, one pool of {options.concurrency}")
        print(f"  minimal client, same:      {spread(minimal, ideal)}; what the server and the machine allow")
        by_run: dict[str, list[float]] = {}
        for name, reference in (("bare httpx", baseline), ("the minimal client", minimal)):
            ratios = by_run[name] = [ask / other for ask, other in zip(asking, reference)]
            print(f"  ragtui asking / {name}, run by run: median {statistics.median(ratios):.1%} (range {min(ratios):.1%}…{max(ratios):.1%})")
        print(f"  client CPU per question (this process): ragtui run, whole command {cpu_spread(ragtui_cpu)}; bare httpx {cpu_spread(bare_cpu)}; minimal client {cpu_spread(minimal_cpu)}")
        bare, through = callable_overhead(gold, folder, options.questions)
        print(
            f"callable: a bare loop {bare * 1000:.3f} ms/question, ragtui run --system -j 1 {through * 1000:.3f} ms/question: "
            f"+{(through - bare) * 1000:.3f} ms per question (goal ≤ 1 ms; gold set loading and metadata included)"
        )
        ratios = by_run["the minimal client"]
        record("run_endpoint", size=options.questions, figure=statistics.median(asking) / ideal,
               reference=statistics.median(minimal) / ideal, ratio=statistics.median(ratios),
               detail=f"runs {min(ratios):.2f}–{max(ratios):.2f}×; bare httpx {statistics.median(baseline) / ideal:.1%}; "
                      f"-j {options.concurrency}, {options.latency * 1000:.0f} ms a request")
        record("run_system", size=options.questions, figure=(through - bare) * 1000, reference=bare * 1000)
    print("load average (1, 5, 15 min) after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
