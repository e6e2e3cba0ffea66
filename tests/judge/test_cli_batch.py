"""`ragtui judge --batch` end to end: the interactive OUT, at half the price, and no key anywhere."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from ragtui.cli import main
from tests.judge.fake_batch import FakeBatch
from tests.judge.helpers import REPO, SECRET, cli_env, record, write_run

SAMPLE = REPO / "sample_data"
MODELS = {"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5"}


def _read(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines[0]["run"], lines[1:]


def _judge(url: str, out: Path, *extra: str) -> int:
    args = ["judge", str(SAMPLE / "baseline.jsonl"), "--gold", str(SAMPLE / "gold.yaml"), "-o", str(out)]
    return main([*args, "--provider", "openai", "--model", "gpt-4o-mini", "--base-url", f"{url}/v1", "--backoff", "0.01", "-q", *extra])


def _without_costs(meta: dict, records: list[dict]) -> tuple[dict, list[dict]]:
    meta = {k: v for k, v in meta.items() if k != "judge_cost_usd"}
    records = [dict(r, judge={**r["judge"], "usage": {k: v for k, v in r["judge"]["usage"].items() if k != "cost_usd"}}) for r in records]
    return meta, records


def test_batch_on_the_sample_writes_the_interactive_verdict_file_at_half_the_price(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    with FakeBatch() as interactive_server, FakeBatch() as batch_server:
        assert _judge(interactive_server.url, tmp_path / "interactive.jsonl") == 0
        assert _judge(batch_server.url, tmp_path / "batch.jsonl", "--batch", "--poll-interval", "0.001") == 0
        assert interactive_server.submissions == 0 and batch_server.submissions == 1
        assert not any(path == "/v1/chat/completions" for _, path, _ in batch_server.requests)  # no interactive call
    meta_i, records_i = _read(tmp_path / "interactive.jsonl")
    meta_b, records_b = _read(tmp_path / "batch.jsonl")
    assert len(records_b) == 120 and sum(1 for r in records_b if r["judge"]["error"] is None) == 119  # one answer is null
    assert _without_costs(meta_b, records_b) == _without_costs(meta_i, records_i)
    assert meta_b["judge_cost_usd"] == pytest.approx(meta_i["judge_cost_usd"] / 2, abs=2e-6)  # gpt-4o-mini's batch price is half
    for batch, interactive in zip(records_b, records_i, strict=True):
        assert batch["judge"]["usage"]["cost_usd"] == pytest.approx(interactive["judge"]["usage"]["cost_usd"] / 2, abs=1e-8)
    err = capsys.readouterr().err
    assert "(batch)" in err and "answered by batch jobs collected now" in err


def test_no_wait_exits_without_out_and_the_same_command_later_collects(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "judged.jsonl"
    with FakeBatch() as server:
        server.hold = True
        assert _judge(server.url, out, "--batch", "--no-wait") == 0
        assert not out.exists() and (tmp_path / "judged.jsonl.batch.json").exists()
        assert "still running" in capsys.readouterr().err
        server.hold = False
        assert _judge(server.url, out, "--batch", "--no-wait") == 0
        assert out.exists() and server.submissions == 1


def test_batch_refuses_a_provider_without_a_batch_api(tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    assert main(["judge", str(run), "-o", str(tmp_path / "o.jsonl"), "--provider", "ollama", "--model", "qwen2.5:14b", "--batch"]) == 2
    assert "--batch works with --provider openai or anthropic" in capsys.readouterr().err


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_no_key_in_the_job_file_the_cache_out_or_a_verbose_log(tmp_path, provider):
    records = [record("q1"), record("q2", "[[count]]"), record("q3", "[[batcherror]]")]
    run = write_run(tmp_path / "run.jsonl", records, {"name": "base"})
    out = tmp_path / "judged.jsonl"
    base = "/v1" if provider == "openai" else ""
    env = {**cli_env(), "ANTHROPIC_API_KEY": SECRET}
    with FakeBatch(expire={1}) as server:
        command = [sys.executable, "-m", "ragtui", "judge", str(run), "-o", str(out), "--provider", provider, "--model", MODELS[provider],
                   "--base-url", f"{server.url}{base}", "--batch", "--batch-fallback", "--poll-interval", "0.001", "-v"]  # fmt: skip
        done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        sent = [headers for _, _, headers in server.requests]
    key_header = "authorization" if provider == "openai" else "x-api-key"
    assert all(SECRET in {k.lower(): v for k, v in h.items()}.get(key_header, "") for h in sent)  # the key was sent…
    assert "[REDACTED]" in done.stderr  # …requests were logged…
    assert SECRET not in done.stderr + done.stdout  # …without it
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name.endswith(".batch.json") for p in files) and any(p.suffix == ".json" and ".cache" in str(p) for p in files)
    assert all(SECRET not in p.read_text(encoding="utf-8", errors="replace") for p in files)


def test_batch_only_flags_without_batch_are_refused_not_ignored(tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    assert main(["judge", str(run), "-o", str(tmp_path / "o.jsonl"), "--provider", "lexical", "--no-wait"]) == 2
    assert "--no-wait only applies with --batch" in capsys.readouterr().err
    assert main(["judge", str(run), "-o", "-", "--provider", "openai", "--model", "gpt-4o-mini", "--batch", "--no-cache"]) == 2
    assert "give a file, not -" in capsys.readouterr().err


def test_batch_without_the_cache_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    assert main(["judge", str(run), "-o", str(tmp_path / "o.jsonl"), "--provider", "openai", "--model", "gpt-4o-mini", "--batch", "--no-cache"]) == 2
    assert "--batch keeps the answers in the cache" in capsys.readouterr().err


def test_the_progress_line_names_jobs_requests_elapsed_time_and_batch_cost():
    from ragtui.cli.judge_batch import BatchProgressLine
    from ragtui.core.judge.batch.poller import BatchSnapshot

    snapshot = BatchSnapshot(jobs=2, requests=3000, done=1200, failed=3, elapsed=760, estimated_cost=0.41, statuses={"in_progress": 2})
    assert BatchProgressLine.line(snapshot) == "batch  1200/3000   40%  failed 3  jobs 2 in_progress  elapsed 0:12:40  ≈$0.4100"
    assert len(BatchProgressLine.line(snapshot)) < 80
    mixed = BatchSnapshot(jobs=3, requests=10, done=4, statuses={"in_progress": 2, "completed": 1}, estimated_cost=None)
    assert "jobs 3 (1 completed, 2 in_progress)" in BatchProgressLine.line(mixed) and BatchProgressLine.line(mixed).endswith("  cost unknown")


class _Refusing(BaseHTTPRequestHandler):
    """Every request refused with 401: no batch job can be created."""

    def _refuse(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        body = b'{"error": {"message": "invalid api key"}}'
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _refuse

    def log_message(self, *args) -> None:
        pass


def test_a_batch_run_stopped_before_any_job_says_none_was_submitted(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run = write_run(tmp_path / "run.jsonl", [record("q1"), record("q2")], {"name": "base"})
        out = tmp_path / "judged.jsonl"
        args = ["judge", str(run), "-o", str(out), "--provider", "openai", "--model", "gpt-4o-mini", "--base-url",
                f"http://127.0.0.1:{server.server_address[1]}/v1", "--backoff", "0.01", "-q", "--batch"]
        assert main(args) == 2
    finally:
        server.shutdown()
        server.server_close()
    err = capsys.readouterr().err
    assert "judge stopped: HTTP 401" in err and "no batch job was submitted" in err
    assert "submitted jobs are listed" not in err and "keep running" not in err
