"""Hostile inputs through the command line: one message naming the file, exit 2, no
traceback; and nothing a terminal would act on in what the commands print."""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path

import pytest

from ragtui.cli import main

GOOD = {"id": "q1", "question": "Q ?", "gold_passages": ["p1"], "retrieved": ["p1"], "answer": "Oui."}
# What a terminal acts on: ESC, C0 but tab and newline, DEL, C1, bidi and invisible characters.
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write_run(path: Path, records: list[dict], meta: dict | None = None) -> Path:
    lines = ([json.dumps({"run": meta})] if meta else []) + [json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("questions: &x [*x]\n", "a recursive alias"),
        ("questions:\n  - id: q1\n    question: Q ?\n    on: 2024-02-30\n", "an impossible date"),
        ("questions:\n  - id: " + "9" * 5000 + "\n", "an integer of more than 100 digits"),
    ],
)
def test_a_hostile_gold_set_ends_in_one_message_and_exit_2(tmp_path, capsys, text, said):
    run = write_run(tmp_path / "run.jsonl", [GOOD])
    gold = tmp_path / "gold.yaml"
    gold.write_text(text, encoding="utf-8")
    code, _, err = run_cli(capsys, "report", run, "--gold", gold)
    assert code == 2 and "Traceback" not in err
    assert str(gold) in err and said in err


def test_a_hostile_yaml_config_ends_in_one_message_and_exit_2(tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [GOOD])
    config = tmp_path / "ragtui.yaml"
    config.write_text("k: 2024-13-45\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "report", run, "--config", config)
    assert code == 2 and f"{config}:1: -: malformed YAML: an impossible date '2024-13-45'" in err


@pytest.mark.parametrize("where", ["run", "gold", "config", "labels"])
def test_dev_zero_anywhere_is_named_as_a_device(tmp_path, capsys, where):
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    run = write_run(tmp_path / "run.jsonl", [GOOD])
    options = {"run": ["/dev/zero"], "gold": [run, "--gold", "/dev/zero"], "config": [run, "--config", "/dev/zero"], "labels": [run, "--labels", "/dev/zero"]}
    code, _, err = run_cli(capsys, "report", *options[where])
    assert code == 2, err
    assert "/dev/zero: -: is a character device (like /dev/zero), not a file" in err


def test_a_huge_k_is_refused_wherever_it_is_read(tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [GOOD], {"name": "r", "k": 1_000_000_000})
    code, _, err = run_cli(capsys, "report", run)
    assert code == 2 and f"{run}:1: run.k: expected a whole number from 1 to 1000, found 1000000000" in err
    assert main(["report", str(write_run(tmp_path / "ok.jsonl", [GOOD])), "-k", "1000000000"]) == 2
    assert "argument -k: expected a whole number from 1 to 1000, found 1000000000" in capsys.readouterr().err


def test_validate_names_a_fifo_and_a_device_for_what_they_are(tmp_path, capsys):
    fifo = tmp_path / "run.jsonl"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(GOOD) + "\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    code, out, err = run_cli(capsys, "validate", fifo, "/dev/zero")
    writer.join(5)
    assert "no such file" not in err
    assert f"{fifo}: ok (run)" in err
    assert "/dev/zero: -: is a character device (like /dev/zero), not a file" in out
    assert code == 1


def test_json_report_escapes_c1_del_and_bidi_for_the_terminal(tmp_path, capsys):
    hostile = "\x9b31m\x7f\u202egnp.exe\u2066"
    run = write_run(tmp_path / "run.jsonl", [{**GOOD, "id": "q" + hostile, "answer": hostile}], {"name": "run" + hostile})
    code, out, _ = run_cli(capsys, "report", run, "--format", "json")
    assert code == 0
    assert not RAW_CONTROL.search(out)
    assert "\\u009b31m\\u007f\\u202egnp.exe\\u2066" in out
    assert hostile in json.dumps(json.loads(out), ensure_ascii=False)  # the same values to a JSON reader


def test_the_triage_export_leaves_no_bare_address_github_would_link():
    from ragtui.core.triage.export import to_markdown

    note = "see https://evil.example/x, WWW.evil.com, (www.a.b) and ftp://files.example"
    row = {"id": "q1", "category": "c", "status": "regression", "cause": None, "mark": "bug", "note": note, "question": "http://x.y ?"}
    text = to_markdown([row], ("a", "b"), "marked")
    assert not re.search(r"(?i)(?<![a-z0-9])(https?|ftp)://|(?<![a-z0-9])www\.", text)
    assert "https\u200b://evil.example/x" in text and "WWW\u200b.evil.com" in text  # readable, not a link


FIXTURES = Path(__file__).resolve().parents[1] / "importers" / "fixtures"


@pytest.mark.parametrize(
    ("fixture", "name", "old", "new", "said"),
    [
        ("deepeval_test_run.json", "deepeval.json", '"input": "', '"input": "\\ud800', "malformed JSON: a lone surrogate escape"),
        ("inspect_log.json", "inspect.json", '"input": "', '"input": "\\ud800', "malformed JSON: a lone surrogate escape"),
        ("ragas_results.csv", "ragas.csv", '""Article 42', '""\\ud800Article 42', "a lone surrogate (\\ud800–\\udfff) in a text"),
        ("deepeval_test_run.json", "deep.json", '"input": "', '"input": ' + "[" * 5000 + "]" * 5000 + ', "x": "', "nested more than 64 levels deep"),
    ],
)
def test_a_hostile_peer_tool_file_ends_in_one_message_and_exit_2(tmp_path, capsys, fixture, name, old, new, said):
    text = (FIXTURES / fixture).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    code, _, err = run_cli(capsys, "report", path)
    assert code == 2 and "Traceback" not in err
    assert str(path) in err and said in err


def test_a_qrels_grade_of_thousands_of_digits_is_located(tmp_path, capsys):
    lines = [f"q{i} 0 d{i} 1" for i in range(30)]
    lines[25] = "q25 0 d25 " + "9" * 5000
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "report", FIXTURES / "trec_run.txt", "--gold", qrels)
    assert code == 2 and f"{qrels}:26: rel: expected a whole number in column 4, found \"999" in err
    assert len(err) < 1000


def test_convert_reads_a_fifo_once_and_refuses_a_device(tmp_path, capsys):
    fifo = tmp_path / "test_run.json"
    os.mkfifo(fifo)
    data = (FIXTURES / "deepeval_test_run.json").read_bytes()

    def write() -> None:
        with open(fifo, "wb") as handle:
            handle.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    out = tmp_path / "out.jsonl"
    code, _, err = run_cli(capsys, "convert", fifo, "-o", out)
    writer.join(5)
    assert code == 0, err
    meta = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["run"]
    assert meta["imported_from"]["path"] == str(fifo)
    code, _, err = run_cli(capsys, "convert", "/dev/zero", "-o", tmp_path / "zero.jsonl")
    assert code == 2 and "/dev/zero: -: is a character device (like /dev/zero), not a file" in err
