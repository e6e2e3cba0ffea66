"""API keys never reach OUT, the cache, the logs or an error message."""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

from ragtui.core.judge import judge_record
from ragtui.core.judge.redaction import redact, redact_headers
from tests.judge.helpers import REPO, SECRET, record, settings_for, write_run
from tests.judge.helpers import cli_command as _cli
from tests.judge.helpers import cli_env as _env


def _every_file_text(folder: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file())


def test_redaction_masks_keys_and_credential_headers():
    assert redact(f"invalid key Bearer {SECRET}", [SECRET]) == "invalid key Bearer [REDACTED]"
    assert redact_headers({"Authorization": f"Bearer {SECRET}", "x-api-key": SECRET, "anthropic-version": "1"}) == {
        "Authorization": "[REDACTED]",
        "x-api-key": "[REDACTED]",
        "anthropic-version": "1",
    }


async def test_logged_requests_show_headers_with_the_key_redacted(fake_llm, caplog):
    caplog.set_level(logging.DEBUG, logger="ragtui.judge")
    await judge_record(record("q1", "[[500]]"), settings_for(fake_llm.url, "anthropic"))
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "'x-api-key': '[REDACTED]'" in logged and "retry 1" in logged
    assert SECRET not in logged


async def test_a_server_echoing_the_key_in_an_error_does_not_leak_it(fake_llm):
    judge = await judge_record(record("q1", "[[401echo]]"), settings_for(fake_llm.url))
    assert "HTTP 401" in judge["error"] and "[REDACTED]" in judge["error"]
    assert SECRET not in str(judge)


def test_no_key_in_out_the_cache_or_stderr_of_a_verbose_cli_run(fake_llm, tmp_path):
    records = [record("q1"), record("q2", "[[500]]"), record("q3", "[[nojson]]"), record("q4", "[[400]]")]
    run = write_run(tmp_path / "run.jsonl", records, {"name": "base"})
    out = tmp_path / "judged.jsonl"
    done = subprocess.run(_cli(run, out, fake_llm.url, "-v"), cwd=REPO, env=_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "[REDACTED]" in done.stderr  # requests were logged…
    assert SECRET not in done.stderr + done.stdout  # …without the key
    assert SECRET not in out.read_text(encoding="utf-8")
    assert any((tmp_path / "judged.jsonl.cache").rglob("*.json"))
    assert SECRET not in _every_file_text(tmp_path)


def test_a_fatal_auth_error_stops_the_cli_with_a_redacted_message(fake_llm, tmp_path):
    run = write_run(tmp_path / "run.jsonl", [record("q1", "[[401echo]]"), record("q2")])
    out = tmp_path / "judged.jsonl"
    done = subprocess.run(_cli(run, out, fake_llm.url, "--concurrency", "1"), cwd=REPO, env=_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "judge stopped: HTTP 401 authentication failed" in done.stderr
    assert SECRET not in done.stderr and not out.exists()
