"""Batch judge benchmark: what ragtui itself adds around a provider's batch job.

A batch job takes minutes to hours at the provider; what ragtui spends on its side —
planning the calls, writing the job file, collecting the answers into the cache, the
final pass — must stay small beside it. Judges N answers through the tests' fake batch
server (in this process: answering every request is part of the timed collection), then
reruns the completed run (zero requests). The peer is the interactive runner's warm
rerun over the same cache, measured in the same run: the batch rerun is that plus a plan
pass. Prints figures; asserts nothing.

Usage: python bench/bench_batch.py [--answers 10000] [--provider openai|anthropic]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_judge import KEY, make_records  # noqa: E402
from ragtui.core.judge.batch.jobfile import job_file_path  # noqa: E402
from ragtui.core.judge.batch.runner import BatchOptions, judge_run_batch  # noqa: E402
from ragtui.core.judge.runner import judge_run  # noqa: E402
from ragtui.core.judge.settings import JudgeSettings  # noqa: E402
from ragtui.core.loading.records import RawRun  # noqa: E402
from tests.judge.fake_batch import FakeBatch  # noqa: E402


async def main(answers: int, provider: str) -> None:
    raw = RawRun(Path("bench.jsonl"), {"name": "bench"}, make_records(answers), list(range(answers)))
    with tempfile.TemporaryDirectory() as tmp, FakeBatch() as server:
        out = Path(tmp) / "judged.jsonl"
        base = f"{server.url}/v1" if provider == "openai" else server.url
        model = {"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5"}[provider]
        settings = JudgeSettings(provider=provider, model=model, base_url=base, api_key=KEY, cache_dir=Path(f"{out}.cache"), timeout=120.0)
        options = BatchOptions(job_file_path(out), poll_interval=0.01, poll_max_interval=0.05)

        started = time.perf_counter()
        cold = await judge_run_batch(raw, settings, options)
        cold_s = time.perf_counter() - started
        job_size_kib = job_file_path(out).stat().st_size / 1024
        started = time.perf_counter()
        warm = await judge_run_batch(raw, settings, options)
        warm_s = time.perf_counter() - started
        started = time.perf_counter()
        await judge_run(raw, settings)
        peer_s = time.perf_counter() - started

    assert cold.result is not None and warm.result is not None
    print(f"batch judge, {answers} answers, {provider} wire format, fake server in-process ({sys.platform}, Python {sys.version.split()[0]})")
    print(f"  cold batch run:  {cold_s:6.2f} s  ({cold.jobs_submitted} jobs, {cold.requests_submitted} requests, {cold.http_requests} HTTP calls; includes the fake answering)")
    print(f"  job file:        {job_size_kib:6.0f} KiB")
    print(f"  warm batch rerun:{warm_s:6.2f} s  ({warm.http_requests} HTTP calls)")
    print(f"  peer — interactive warm rerun over the same cache: {peer_s:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--provider", choices=("openai", "anthropic"), default="openai")
    args = parser.parse_args()
    asyncio.run(main(args.answers, args.provider))
