"""A 500-question run against a real service, killed with SIGKILL at several points and resumed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.running.conftest import write_gold
from tests.running.fake_rag import FakeRag

REPO = Path(__file__).resolve().parents[2]


def _recorded(path: Path) -> list[str]:
    """Ids of the whole lines in the file (a line cut short by the kill is not a record)."""
    if not path.exists():
        return []
    text = path.read_text(encoding="utf-8")
    ids = []
    for line in text.split("\n")[:-1]:  # the part after the last newline is unfinished
        record = json.loads(line)
        if "id" in record:
            ids.append(record["id"])
    return ids


def _start(gold: Path, out: Path, url: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "ragtui", "run", str(gold), "--endpoint", url, "-o", str(out), "-j", "8", "-q"]
    return subprocess.Popen(command, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="SIGKILL is POSIX")
def test_a_run_killed_three_times_records_every_question_once_and_pays_for_none_twice(tmp_path):
    ids = [f"q{n:03d}" for n in range(500)]
    gold = write_gold(tmp_path / "gold.yaml", ids)
    out = tmp_path / "run.jsonl"
    kills: list[tuple[set[str], dict[str, int]]] = []  # after each kill: what the file held, what the server had seen
    with FakeRag(latency=0.01) as fake:
        for kill_at in (100, 250, 400):
            process = _start(gold, out, fake.url)
            deadline = time.monotonic() + 60
            while len(_recorded(out)) < kill_at and process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.002)
            assert process.poll() is None, f"the run ended before {kill_at} records: {process.stderr.read().decode() if process.stderr else ''}"
            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            kills.append((set(_recorded(out)), dict(fake.attempts)))
        final = _start(gold, out, fake.url)
        _, err = final.communicate(timeout=120)
        assert final.returncode == 0, err.decode()
        attempts = dict(fake.attempts)
        answered = dict(fake.answered)

    recorded = _recorded(out)
    assert sorted(recorded) == ids, "every question is recorded exactly once"
    lines = out.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]).keys() == {"run"} and len(lines) == 501
    for held, seen in kills:
        assert len(held) >= 100
        for question_id in held:
            assert attempts[question_id] == seen[question_id], f"{question_id} was recorded, then asked again"
    asked_twice = [i for i in ids if answered.get(i, 0) > 1]
    # Only a question in flight at a kill (at most -j 8 of them each time) is asked again.
    assert len(asked_twice) <= 3 * 8
    assert all(answered.get(i, 0) >= 1 for i in ids)


@pytest.mark.skipif(not hasattr(signal, "SIGINT"), reason="POSIX signals")
def test_ctrl_c_stops_with_130_keeps_what_was_answered_and_the_same_command_finishes(tmp_path):
    ids = [f"q{n:03d}" for n in range(120)]
    gold = write_gold(tmp_path / "gold.yaml", ids)
    out = tmp_path / "run.jsonl"
    with FakeRag(latency=0.02) as fake:
        process = _start(gold, out, fake.url)
        deadline = time.monotonic() + 60
        while len(_recorded(out)) < 30 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.002)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=30)
        assert process.returncode == 130
        assert "interrupted; the answers so far are in" in err.decode()
        held = set(_recorded(out))
        seen = dict(fake.attempts)
        final = _start(gold, out, fake.url)
        final.communicate(timeout=60)
        assert final.returncode == 0
        attempts = dict(fake.attempts)
    assert sorted(_recorded(out)) == ids
    assert all(attempts[i] == seen[i] for i in held), "nothing recorded before Ctrl-C is asked again"
