"""`ragtui judge --repeat N`: N verdicts per answer, none paid twice, the flips reported.

Against the fake server on 127.0.0.1: `[[flip]]` in a question makes the judge's second
answer to it reverse the last sentence and score 2 instead of 4 (tests/judge/fake_llm.py).
Every record of `helpers.record` has two sentences, both attested by a steady judge.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from ragtui.cli import main
from ragtui.core.judge.runner import judge_run
from tests.judge.helpers import SECRET, raw_run, record, settings_for, write_run


def _read(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines[0]["run"], lines[1:]


def _attested(verdicts: dict) -> list[bool]:
    return [s["attested"] for s in verdicts["faithfulness"]["sentences"]]


def _fake_args(url: str, *extra: str) -> list[str]:
    return ["--provider", "openai", "--model", "gpt-4o-mini", "--base-url", f"{url}/v1", "--backoff", "0.01", *extra]


async def test_every_answer_is_judged_n_times_and_the_first_repetition_stays_the_verdict(fake_llm, tmp_path):
    records = [record("q1"), record("q2", "[[flip]]")]
    result = await judge_run(raw_run(records), settings_for(fake_llm.url, cache_dir=tmp_path / "cache"), repeat=3)
    steady, flipping = result.records
    assert fake_llm.total_paid == 6  # 2 answers × 3 repetitions
    assert _attested(flipping["judge"]) == [True, True] and flipping["judge"]["utility"]["score"] == 4
    assert [_attested(r) for r in flipping["judge"]["repeats"]] == [[True, False], [True, True]]
    assert [r["utility"]["score"] for r in flipping["judge"]["repeats"]] == [2, 4]
    assert [_attested(r) for r in steady["judge"]["repeats"]] == [[True, True], [True, True]]
    assert "text" not in steady["judge"]["repeats"][0]["faithfulness"]["sentences"][0]  # repetitions are kept slim
    assert result.meta["judge_repeats"] == 3 and result.meta["judge_repeat_errors"] == 0
    assert result.totals.judged == 2 and result.totals.calls == 6


async def test_a_run_judged_once_pays_only_for_the_repetitions_it_lacks(fake_llm, tmp_path):
    settings = settings_for(fake_llm.url, cache_dir=tmp_path / "cache")
    once = await judge_run(raw_run([record("q1"), record("q2")]), settings)
    assert fake_llm.total_paid == 2 and "repeats" not in once.records[0]["judge"]
    thrice = await judge_run(raw_run([record("q1"), record("q2")]), settings, repeat=3)
    assert fake_llm.total_paid == 6
    assert thrice.totals.cached_calls == 2  # the first repetition is the plain run's call
    again = await judge_run(raw_run([record("q1"), record("q2")]), settings, repeat=3)
    assert fake_llm.total_paid == 6 and again.totals.cached_calls == 6
    assert [r["judge"] for r in again.records] == [r["judge"] for r in thrice.records]


async def test_an_interrupted_repeat_run_resumes_without_paying_any_repetition_twice(make_fake, tmp_path):
    server = make_fake(hold_after=7)
    # A timeout far above any answer's time: on a busy machine the helpers' 1 s let a slow
    # answer be given up and asked again, paid twice by the fake for a reason not under test.
    settings = settings_for(server.url, cache_dir=tmp_path / "cache", concurrency=2, timeout=30.0)
    questions = [record(f"q{i}") for i in range(6)]
    task = asyncio.create_task(judge_run(raw_run(questions), settings, repeat=3))
    deadline = time.monotonic() + 15
    while not (server.settled and sum(1 for _ in (tmp_path / "cache").glob("??/*.json")) == server.total_paid):
        assert time.monotonic() < deadline, "the run never reached the hold"
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert server.total_paid == 7
    server.release()
    result = await judge_run(raw_run(questions), settings, repeat=3)
    assert server.total_paid == 18  # 6 answers × 3 repetitions, each paid exactly once
    assert result.totals.cached_calls == 7
    assert all(len(r["judge"]["repeats"]) == 2 for r in result.records)


async def test_a_repetition_that_fails_is_recorded_as_an_error_and_counted(make_fake, tmp_path):
    server = make_fake()
    # "[[count]]" gives a wrong verdict count once, repaired; "[[countalways]]" never validates.
    result = await judge_run(raw_run([record("q1", "[[countalways]]")]), settings_for(server.url, cache_dir=tmp_path / "c"), repeat=2)
    (judged,) = result.records
    assert judged["judge"]["error"] and judged["judge"]["repeats"][0]["error"]
    assert judged["judge"]["repeats"][0]["faithfulness"] is None
    assert result.meta["judge_repeat_errors"] == 1 and result.meta["judge_errors"] == 1


def test_judge_repeat_prints_the_flip_rate_and_the_report_shows_it(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1"), record("q2", "[[flip]]"), record("q3")], {"name": "cand"})
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), "-q", "--repeat", "3", *_fake_args(fake_llm.url)]) == 0
    err = capsys.readouterr().err
    # 6 sentences judged 3 times, one flips; 3 scores, one flips; q2 is the unstable verdict.
    assert "3 repetitions of 3 answers: faithfulness 16.7% flip (1 of 6 sentences); utility 33.3% flip (1 of 3 scores); 1 unstable verdict" in err
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["metrics"]["faithfulness"]["flip_rate"] == {"A": {"value": 0.1667, "flipped": 1, "units": 6, "repeats": 3}}
    assert report["metrics"]["utility"]["flip_rate"] == {"A": {"value": 0.3333, "flipped": 1, "units": 3, "repeats": 3}}
    assert report["judge_noise"] == {"A": {"repeats": 3, "answers": 3, "unstable_questions": 1, "left_out": 0}}
    assert report["questions"]["unstable_verdict"] == ["q2"]
    assert main(["report", str(out)]) == 0
    text = capsys.readouterr().out
    assert "Judge noise (verdicts that change when the judge is asked again):" in text
    assert "A: 3 repetitions of 3 answers: faithfulness 16.7% flip (1 of 6 sentences);" in text


def test_a_report_of_runs_judged_once_has_no_judge_noise_fields(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1")], {"name": "once"})
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), "-q", *_fake_args(fake_llm.url)]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert "flip_rate" not in report["metrics"]["faithfulness"] and "judge_noise" not in report
    assert "unstable_verdict" not in report["questions"]


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--batch"], "--repeat judges through interactive calls"),
        (["--provider", "lexical"], "the lexical judge gives the same verdicts every time"),
    ],
)
def test_repeat_is_refused_where_it_would_measure_nothing_or_not_run(fake_llm, tmp_path, monkeypatch, capsys, extra, says):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1")], {"name": "r"})
    args = ["judge", str(run), "-o", str(tmp_path / "out.jsonl"), "-q", "--repeat", "2"]
    args += extra if extra[0] == "--provider" else [*_fake_args(fake_llm.url), *extra]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert says in err and "--repeat" in err and "Traceback" not in err
    assert fake_llm.total_paid == 0 and not (tmp_path / "out.jsonl").exists()


def test_repeat_must_be_a_whole_number_of_at_least_one(tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [record("q1")], {"name": "r"})
    assert main(["judge", str(run), "-o", str(tmp_path / "out.jsonl"), "--repeat", "0"]) == 2
    assert "argument --repeat: must be at least 1, found 0" in capsys.readouterr().err
