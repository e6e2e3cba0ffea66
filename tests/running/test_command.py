"""`ragtui run --command`: JSON lines with a program, including one that crashes halfway."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from ragtui.cli import main
from tests.running.conftest import write_gold

SCRIPT = Path(__file__).with_name("line_system.py")


def _records(path: Path) -> dict[str, dict]:
    found = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:]]
    ids = [r["id"] for r in found]
    assert len(ids) == len(set(ids)), "every question is recorded once"
    return {r["id"]: r for r in found}


def _command(*extra: str) -> str:
    return shlex.join([sys.executable, str(SCRIPT), *extra])


def test_a_command_that_crashes_halfway_stops_the_run_and_the_rest_resumes_after_a_restart(tmp_path, capsys):
    ids = [f"q{n:02d}" for n in range(1, 21)]
    gold = write_gold(tmp_path / "gold.yaml", ids)
    out = tmp_path / "run.jsonl"
    command = _command("--crash-at", "10", "--marker", str(tmp_path / "crashed"))
    assert main(["run", str(gold), "--command", command, "-o", str(out), "-j", "1", "-q"]) == 2
    err = capsys.readouterr().err
    assert "run stopped: the command exited with code 3 (stderr: fatal: out of memory while loading the index)" in err
    first = _records(out)
    assert sorted(first) == ids[:10], "nine answers and the question it died on; the others are not recorded"
    assert first["q10"]["error"] == "the command exited with code 3 (stderr: fatal: out of memory while loading the index)"
    assert all(first[i].get("error") is None for i in ids[:9])

    assert main(["run", str(gold), "--command", command, "-o", str(out), "-j", "1", "-q"]) == 0
    second = _records(out)
    assert sorted(second) == ids
    assert second["q10"]["error"] is not None, "a recorded system error is asked again only with --rerun-errors"
    assert all(second[i]["answer"] == f"answer to Question about {i}?" for i in ids if i != "q10")

    assert main(["run", str(gold), "--command", command, "-o", str(out), "--rerun-errors", "-q"]) == 0
    assert all(r.get("error") is None for r in _records(out).values())


def test_the_command_can_report_an_error_or_write_a_broken_line_for_one_question(tmp_path):
    gold = tmp_path / "gold.yaml"
    gold.write_text(
        "- {id: a, question: 'fine', gold_passages: [p_a_0]}\n"
        "- {id: b, question: 'ERR please', gold_passages: [p_b_0]}\n"
        "- {id: c, question: 'BAD line', gold_passages: [p_c_0]}\n"
        "- {id: d, question: 'fine too', gold_passages: [p_d_0]}\n",
        encoding="utf-8",
    )
    out = tmp_path / "run.jsonl"
    assert main(["run", str(gold), "--command", _command(), "-o", str(out), "-j", "4", "-q"]) == 0
    got = _records(out)
    assert got["a"]["answer"] == "answer to fine" and got["d"]["answer"] == "answer to fine too"
    assert got["b"]["error"] == "the command reported: no index for this question"
    assert got["c"]["error"].startswith("malformed JSON on the command's stdout")


def test_a_command_that_cannot_start_is_one_message_and_exit_2(tmp_path, capsys):
    gold = write_gold(tmp_path / "gold.yaml", ["a"])
    code = main(["run", str(gold), "--command", "/nonexistent/program --flag", "-o", str(tmp_path / "run.jsonl"), "-q"])
    assert code == 2
    assert "--command: /nonexistent/program: cannot start" in capsys.readouterr().err


def test_answers_carrying_their_id_may_come_in_any_order(tmp_path):
    # A program that reads two requests, then answers them last first.
    program = tmp_path / "reversing.py"
    program.write_text(
        "import json, sys\n"
        "pending = []\n"
        "for line in sys.stdin:\n"
        "    pending.append(json.loads(line))\n"
        "    if len(pending) == 2:\n"
        "        for request in reversed(pending):\n"
        "            print(json.dumps({'id': request['id'], 'passages': [], 'answer': 'for ' + request['id']}), flush=True)\n"
        "        pending = []\n"
        "for request in pending:\n"
        "    print(json.dumps({'id': request['id'], 'passages': [], 'answer': 'for ' + request['id']}), flush=True)\n",
        encoding="utf-8",
    )
    ids = ["a", "b", "c", "d"]
    gold = write_gold(tmp_path / "gold.yaml", ids)
    out = tmp_path / "run.jsonl"
    assert main(["run", str(gold), "--command", shlex.join([sys.executable, str(program)]), "-o", str(out), "-j", "2", "-q"]) == 0
    assert {i: r["answer"] for i, r in _records(out).items()} == {i: f"for {i}" for i in ids}
