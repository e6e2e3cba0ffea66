"""Interrupted runs resume with no verdict lost and no call paid twice; reruns are free."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from ragtui.core.judge.runner import judge_run
from tests.judge.helpers import cli_command as _cli
from tests.judge.helpers import cli_env as _env
from tests.judge.helpers import raw_run, record, settings_for, write_run


def _cached(cache_dir: Path) -> int:
    return sum(1 for _ in cache_dir.glob("??/*.json"))


async def _wait_until(condition, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


def _mixed_records(n: int) -> list[dict]:
    """Mostly plain questions, some needing a repair or a bigger token bound (two paid calls)."""
    directives = ["", "", "[[count]]", "", "[[trunc]]", "[[500]]"]
    return [record(f"q{i:03d}", directives[i % len(directives)]) for i in range(n)]


def _verdicts(records: list[dict]) -> dict[str, dict]:
    return {r["id"]: r["judge"] for r in records}


async def test_a_warm_rerun_makes_no_request_and_writes_the_same_verdicts(fake_llm, tmp_path):
    settings = settings_for(fake_llm.url, cache_dir=tmp_path / "cache")
    first = await judge_run(raw_run(_mixed_records(12)), settings)
    requests = len(fake_llm.requests)
    second = await judge_run(raw_run(_mixed_records(12)), settings)
    assert len(fake_llm.requests) == requests
    assert _verdicts(second.records) == _verdicts(first.records)
    assert second.meta == first.meta  # cost and tokens are what the verdicts cost, cached or not
    assert second.totals.cached_calls == second.totals.calls > 12


async def test_a_cancelled_run_resumed_loses_nothing_and_pays_no_call_twice(make_fake, tmp_path):
    server = make_fake(hold_after=8)
    settings = settings_for(server.url, cache_dir=tmp_path / "cache", concurrency=4, timeout=30.0)  # no slow answer asked twice
    task = asyncio.create_task(judge_run(raw_run(_mixed_records(24)), settings))
    await _wait_until(lambda: server.settled and _cached(tmp_path / "cache") == server.total_paid)
    task.cancel()  # what Ctrl-C does to the run
    with pytest.raises(asyncio.CancelledError):
        await task
    paid_before = server.total_paid
    assert 8 <= paid_before < 24
    server.release()

    result = await judge_run(raw_run(_mixed_records(24)), settings)
    assert all(r["judge"]["error"] is None for r in result.records)
    assert server.paid_twice() == []
    assert result.totals.cached_calls >= paid_before


async def test_identical_questions_share_one_paid_call(fake_llm, tmp_path):
    original = record("q1")
    duplicate = dict(original, id="q1-bis")
    result = await judge_run(raw_run([original, duplicate]), settings_for(fake_llm.url, cache_dir=tmp_path / "c"))
    assert fake_llm.total_paid == 1
    assert result.records[0]["judge"]["faithfulness"] == result.records[1]["judge"]["faithfulness"]


@pytest.mark.parametrize("how", ["kill -9", "Ctrl-C"])
async def test_an_interrupted_cli_run_resumes_with_no_verdict_lost_and_no_call_paid_twice(make_fake, tmp_path, how):
    server = make_fake(hold_after=10)
    run = write_run(tmp_path / "run.jsonl", _mixed_records(30), {"name": "base", "generator_model": "llama-3.1-70b"})
    out = tmp_path / "judged.jsonl"
    cache = tmp_path / "judged.jsonl.cache"
    process = subprocess.Popen(_cli(run, out, server.url, "-q"), cwd=tmp_path, env=_env(), stderr=subprocess.PIPE, text=True)
    try:
        await _wait_until(lambda: server.settled and _cached(cache) == server.total_paid, timeout=30)
        process.send_signal(signal.SIGKILL if how == "kill -9" else signal.SIGINT)
        if how == "Ctrl-C":
            server.drop_held()  # the held requests fail; the run stops on the signal
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    if how == "Ctrl-C":
        assert process.returncode == 130 and "rerun the same command to resume" in stderr
    else:
        assert process.returncode == -signal.SIGKILL
    assert not out.exists()  # never a half-written OUT
    paid_before = server.total_paid
    server.release()

    rerun = subprocess.run(_cli(run, out, server.url), cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=60)
    assert rerun.returncode == 0, rerun.stderr
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    meta, records = lines[0]["run"], lines[1:]
    assert [r["id"] for r in records] == [f"q{i:03d}" for i in range(30)]
    assert all(r["judge"]["error"] is None and r["judge"]["faithfulness"]["sentences"] for r in records)
    assert server.paid_twice() == []
    assert f"{paid_before} from the cache" in rerun.stderr  # every call paid before the interruption is reused
    assert meta["judge_errors"] == 0 and meta["judge_model"] == "gpt-4o-mini"
