"""`ragtui judge RUN -o OUT` end to end: what it writes, warns and refuses."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.cli.judge_progress import Progress
from tests.judge.helpers import SECRET, record, write_run


def _read(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines[0]["run"], lines[1:]


def _fake_args(url: str, *extra: str) -> list[str]:
    return ["--provider", "openai", "--model", "gpt-4o-mini", "--base-url", f"{url}/v1", "--backoff", "0.01", *extra]


def test_the_lexical_judge_fills_the_spec_example_offline(shared_dir, tmp_path, capsys):
    examples = shared_dir / "spec" / "examples"
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(examples / "run_a.jsonl"), "-o", str(out), "--provider", "lexical", "--gold", str(examples / "gold.yaml")]) == 0
    meta, records = _read(out)
    assert meta["judge_model"] == "lexical-overlap (approximate)" and meta["name"] == "baseline"
    assert [r["id"] for r in records] == ["q001", "q002", "q003", "q004"]
    assert all(r["judge"]["error"] is None for r in records)
    assert records[0]["latency_ms"] == 1840  # other fields untouched
    assert "approximate" in capsys.readouterr().err
    assert not (tmp_path / "judged.jsonl.cache").exists()  # nothing to cache offline
    assert main(["validate", str(out)]) == 0  # the judged run is a valid run


def test_unknown_fields_of_records_and_metadata_survive(fake_llm, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    custom = dict(record("q1"), pipeline={"chunker": "v2", "notes": ["é", 1]}, judge={"model": "old", "error": "stale"})
    run = write_run(tmp_path / "run.jsonl", [custom], {"name": "base", "system": "bm25", "my_meta": [1, 2]})
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), "-q", *_fake_args(fake_llm.url)]) == 0
    meta, (judged,) = _read(out)
    assert judged["pipeline"] == {"chunker": "v2", "notes": ["é", 1]}
    assert judged["judge"]["model"] == "gpt-4o-mini" and judged["judge"]["error"] is None
    assert meta["my_meta"] == [1, 2] and meta["system"] == "bm25"


def test_run_metadata_gets_the_judge_totals(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1"), record("q2", "[[count]]"), record("q3", "[[nojson]]")], {"name": "b"})
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), *_fake_args(fake_llm.url)]) == 0
    meta, records = _read(out)
    tokens_in = sum(r["judge"]["usage"]["tokens_in"] for r in records)
    assert meta["judge_provider"] == "openai" and meta["judge_model"] == "gpt-4o-mini"
    assert meta["judge_prompt_version"].startswith("ragtui-fr@") and meta["judge_errors"] == 1
    assert meta["judge_tokens_in"] == tokens_in > 0 and meta["judge_tokens_out"] > 0
    assert meta["judge_cost_usd"] == pytest.approx(sum(r["judge"]["usage"]["cost_usd"] for r in records), abs=1e-6)
    err = capsys.readouterr().err
    assert "3 answers" in err and "1 judge errors" in err and "judge error on q3" in err and "5 calls (5 paid now, 0 from the cache)" in err


def test_a_judge_of_the_generators_family_is_warned_about_with_a_suggestion(fake_llm, tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [record("q1")], {"generator_model": "llama-3.1-70b-instruct"})
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), "-q", "--provider", "ollama", "--model", "llama3.1:70b", "--base-url", fake_llm.url]) == 0
    err = capsys.readouterr().err
    assert "warning: judge and generator are both from the Llama family" in err
    assert "for instance --provider anthropic" in err


def test_a_missing_api_key_is_a_usage_error_before_any_call(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    assert main(["judge", str(run), "-o", str(tmp_path / "o.jsonl"), "--model", "gpt-4o-mini"]) == 2
    assert "OPENAI_API_KEY is not set" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda p: p.write_text('{"id": "q1", "answer": "x"}\n{"id": \n', encoding="utf-8"), "run.jsonl:2"),
        (lambda p: None, "file not found"),
    ],
)
def test_an_unreadable_run_exits_2_naming_the_place(tmp_path, capsys, setup, message):
    run = tmp_path / "run.jsonl"
    setup(run)
    assert main(["judge", str(run), "-o", str(tmp_path / "o.jsonl"), "--provider", "lexical"]) == 2
    assert message in capsys.readouterr().err


def test_out_must_be_jsonl(tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    assert main(["judge", str(run), "-o", str(tmp_path / "o.json"), "--provider", "lexical"]) == 2
    assert "name it OUT.jsonl" in capsys.readouterr().err


def test_custom_prompts_and_no_cache_are_honoured(fake_llm, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "fr.system.txt").write_text("Juge strict. Réponds en JSON.", encoding="utf-8")
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), "-q", "--prompts", str(prompts), "--no-cache", *_fake_args(fake_llm.url)]) == 0
    meta, _ = _read(out)
    assert meta["judge_prompt_version"].startswith("custom-fr@")
    assert fake_llm.bodies()[0]["messages"][0]["content"] == "Juge strict. Réponds en JSON."
    assert not (tmp_path / "judged.jsonl.cache").exists()


def test_the_help_says_where_the_key_comes_from(capsys):
    assert main(["judge", "--help"]) == 0
    assert "OPENAI_API_KEY" in capsys.readouterr().out


def test_progress_redraws_one_line_on_a_terminal():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(4, stream, tty=True, clock=lambda: now[0])
    for _ in range(2):
        now[0] += 1.0
        progress.update(cost=0.01)
    now[0] += 1.0
    progress.update(error=True, cost=0.01)
    text = stream.getvalue()
    assert text.startswith("\r") and "\n" not in text
    assert "3/4" in text and "errors 1" in text and "$0.0300" in text and "ETA 0:00:01" in text


def test_progress_prints_plain_lines_when_not_a_terminal():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(100, stream, tty=False, interval=10, clock=lambda: now[0])
    for _ in range(100):
        now[0] += 0.5
        progress.update(cost=None)
    progress.close()
    lines = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue() and 5 <= len(lines) <= 7
    assert lines[-1].startswith("judge  100/100") and "  cost unknown  " in lines[-1] and "$" not in lines[-1]  # unknown price: unknown cost


def test_an_unknown_cost_reads_cost_unknown_in_the_summary_never_a_dollar_guess(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    args = ["--provider", "openai", "--model", "my-unpriced-judge", "--base-url", f"{fake_llm.url}/v1"]
    assert main(["judge", str(run), "-o", str(tmp_path / "judged.jsonl"), "-q", *args]) == 0
    err = capsys.readouterr().err
    calls = next(line for line in err.splitlines() if " calls (" in line)
    assert calls.endswith(", cost unknown") and "$" not in err
