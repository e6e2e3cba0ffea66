"""Judge benchmark: throughput against a slow local server, and the cost of a warm rerun.

Starts the tests' fake LLM server in its own process (so it does not share the GIL with
the client) with a fixed latency per request, judges N answers at a given concurrency,
then judges them again from the warm cache. Prints figures, with this process's CPU
seconds per request beside the throughputs (a shared machine moves CPU time far less
than wall time); asserts nothing.

Usage: python bench/bench_judge.py [--answers 1000] [--concurrency 16] [--latency 0.1]
Goals (issue #5): throughput ≥ 90 % of the ideal concurrency / latency (160 answers/s
at 16 × 100 ms); a warm rerun makes zero requests and ends in under 2 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from headlines import record  # noqa: E402 - beside this script

from ragtui.core.judge.judging import JudgeSession  # noqa: E402
from ragtui.core.judge.runner import judge_run  # noqa: E402
from ragtui.core.judge.settings import JudgeSettings  # noqa: E402
from ragtui.core.loading.records import RawRun, write_run_jsonl  # noqa: E402

KEY = "sk-bench-not-a-real-key-000000"


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "judge" / "fake_llm.py"), "--latency", str(latency)],
        stdout=subprocess.PIPE,
        text=True,
    )
    url = process.stdout.readline().strip()
    return process, url


def server_stats(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/stats") as response:
        return json.loads(response.read())


def make_records(n: int) -> list[dict]:
    records = []
    for i in range(n):
        qid = f"q{i:05d}"
        records.append(
            {
                "id": qid,
                "question": f"Quelle est la durée de la période d'essai, cas {qid} ?",
                "retrieved": [
                    {"id": f"p_{qid}_a", "text": "Article 42 — La période d'essai des cadres est de quatre mois. Elle peut être renouvelée une fois.", "score": 0.9},
                    {"id": f"p_{qid}_b", "text": "Charte informatique — Le matériel reste la propriété de l'entreprise.", "score": 0.7},
                ],
                "cited": [f"p_{qid}_a"],
                "answer": "La période d'essai d'un cadre dure quatre mois. Elle est renouvelable une fois, par écrit. M. Dupont valide la demande.",
                "expected_answer": "Quatre mois, renouvelable une fois par écrit.",
            }
        )
    return records


async def transport_baseline(url: str, n: int, concurrency: int, body: Callable[[int], dict] | None = None) -> float:
    """Bare httpx POSTs of `body(i)` to `url` (default: a judge call to the fake LLM), in seconds:
    the ceiling any httpx-based client can reach against that server."""
    import httpx

    from ragtui.core import http_clients  # noqa: F401  (the same sniffio guard as ragtui's clients)

    def judge_call(i: int) -> dict:  # distinct calls: the server counts repeats as paid twice
        return {"model": "m", "temperature": 0, "max_tokens": 100, "messages": [{"role": "user", "content": f'<phrase n="1">x</phrase> {i}'}]}

    make = body or judge_call
    target = url if body is not None else f"{url}/v1/chat/completions"
    remaining = list(range(n))
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(limits=limits) as client:

        async def worker() -> None:
            while remaining:
                i = remaining.pop()
                (await client.post(target, json=make(i))).json()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


async def judge_once(raw: RawRun, settings: JudgeSettings) -> tuple[float, object, int]:
    session = JudgeSession(settings)
    started = time.perf_counter()
    async with session:
        result = await judge_run(raw, settings, session=session)
    elapsed = time.perf_counter() - started
    return elapsed, result, session.client.stats.requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()

    process, url = start_server(args.latency)
    work = Path(tempfile.mkdtemp(prefix="ragtui-bench-judge-"))
    try:
        records = make_records(args.answers)
        raw = RawRun(work / "run.jsonl", {"name": "bench", "generator_model": "llama-3.1-70b-instruct"}, records, list(range(len(records))))
        write_run_jsonl(raw.path, raw.meta, records)
        settings = JudgeSettings(
            provider="openai", model="gpt-4o-mini", base_url=f"{url}/v1", api_key=KEY,
            concurrency=args.concurrency, cache_dir=work / "judged.jsonl.cache",
        )  # fmt: skip

        ideal = args.concurrency / args.latency
        print(f"answers {args.answers}, concurrency {args.concurrency}, server latency {args.latency * 1000:.0f} ms, "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")  # fmt: skip
        cpu = time.process_time()
        bare = asyncio.run(transport_baseline(url, args.answers, args.concurrency))
        bare_cpu = (time.process_time() - cpu) / args.answers
        print(f"bare httpx: {bare:5.2f} s  {args.answers / bare:7.1f} requests/s -> {args.answers / bare / ideal:6.1%} of ideal (the transport's ceiling here); "
              f"client CPU {bare_cpu * 1000:.3f} ms/request")  # fmt: skip
        cpu = time.process_time()
        cold, result, requests_cold = asyncio.run(judge_once(raw, settings))
        cold_cpu = (time.process_time() - cpu) / args.answers
        rate = args.answers / cold
        errors = result.totals.errors
        print(f"cold run:  {cold:6.2f} s  {rate:7.1f} answers/s  ideal {ideal:.0f}/s  -> {rate / ideal:6.1%} of ideal  "
              f"({requests_cold} requests, {errors} judge errors); client CPU {cold_cpu * 1000:.3f} ms/answer (prompts, parsing and the cache included)")  # fmt: skip

        before = server_stats(url)["requests"]  # after the bare-httpx requests too
        warm, result, requests = asyncio.run(judge_once(raw, settings))
        after = server_stats(url)
        print(f"warm run:  {warm:6.2f} s  {args.answers / warm:7.0f} answers/s  requests to the server: {after['requests'] - before} "
              f"(client counted {requests}), cached calls {result.totals.cached_calls}")  # fmt: skip

        out = work / "judged.jsonl"
        env = {**os.environ, "OPENAI_API_KEY": KEY, "PYTHONPATH": str(REPO)}
        command = [sys.executable, "-m", "ragtui", "judge", str(raw.path), "-o", str(out), "-q",
                   "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", f"{url}/v1",
                   "--concurrency", str(args.concurrency)]  # fmt: skip
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        cli = time.perf_counter() - started
        final = server_stats(url)
        print(f"warm CLI:  {cli:6.2f} s  end to end (`python -m ragtui judge`, start-up and writing OUT included), "
              f"exit {done.returncode}, requests to the server: {final['requests'] - after['requests']}")  # fmt: skip
        print(f"calls answered twice by the server over all runs: {final['paid_twice']}")
        setting = f"-j {args.concurrency}, {args.latency * 1000:.0f} ms a request"
        record("judge", size=args.answers, figure=rate / ideal, reference=args.answers / bare / ideal,
               detail=f"{setting}; {errors} judge errors")
        record("judge_warm_requests", size=args.answers, figure=after["requests"] - before, reference=requests_cold)
        record("judge_warm_time", size=args.answers, figure=warm, reference=cold)
    finally:
        process.terminate()
        process.wait()


if __name__ == "__main__":
    main()
