"""`ragtui judge --retry-errors`: the judge errors the cache would replay are asked again, and only they.

A reply that cannot be used (no JSON, cut off) was paid for, so it is cached, and a rerun
replays the same judge error for free. The flag forgets those replies — and, with
--batch, the requests a job failed — so exactly the errored questions are asked again;
a good verdict is never paid twice. Counted on the fake servers on 127.0.0.1.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragtui.cli import main
from ragtui.core.judge import judge_record
from ragtui.core.judge.runner import judge_run
from tests.judge.fake_batch import FakeBatch
from tests.judge.helpers import SECRET, raw_run, record, settings_for, write_run


def _judge(url: str, run: Path, out: Path, *extra: str) -> int:
    args = ["--provider", "openai", "--model", "gpt-4o-mini", "--base-url", f"{url}/v1", "--backoff", "0.01", "-q"]
    return main(["judge", str(run), "-o", str(out), *args, *extra])


def _errors(out: Path) -> dict[str, str | None]:
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()][1:]
    return {r["id"]: r["judge"]["error"] for r in lines}


def _three_questions(tmp_path: Path) -> Path:
    return write_run(tmp_path / "run.jsonl", [record("q1"), record("q2", "[[nojsontwice]]"), record("q3", "[[count]]")], {"name": "b"})


def test_a_rerun_replays_a_cached_judge_error_for_free_and_says_retry_errors_would_ask_again(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run, out = _three_questions(tmp_path), tmp_path / "judged.jsonl"
    assert _judge(fake_llm.url, run, out) == 0
    assert fake_llm.attempts_for("q2 ?") == 2 and "holds no JSON object" in _errors(out)["q2"]  # unusable, and after the repair
    capsys.readouterr()
    paid = fake_llm.total_paid
    assert _judge(fake_llm.url, run, out) == 0
    assert fake_llm.total_paid == paid and "holds no JSON object" in _errors(out)["q2"]
    err = capsys.readouterr().err
    assert "1 judge error(s) come from replies kept in the cache, not asked again: rerun with --retry-errors" in err


def test_retry_errors_asks_again_only_the_question_whose_error_was_cached(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run, out = _three_questions(tmp_path), tmp_path / "judged.jsonl"
    assert _judge(fake_llm.url, run, out) == 0
    before = {qid: fake_llm.attempts_for(f"{qid} ?") for qid in ("q1", "q2", "q3")}
    assert before == {"q1": 1, "q2": 2, "q3": 2}  # q3: a wrong count, repaired
    capsys.readouterr()

    assert _judge(fake_llm.url, run, out, "--retry-errors") == 0
    after = {qid: fake_llm.attempts_for(f"{qid} ?") for qid in ("q1", "q2", "q3")}
    assert after == {"q1": 1, "q2": 3, "q3": 2}  # one request, for q2 alone: good verdicts are not paid again
    assert _errors(out) == {"q1": None, "q2": None, "q3": None}
    assert "asked again 1 question(s) whose judge error came from the cache (--retry-errors): 1 now with verdicts" in capsys.readouterr().err

    paid = fake_llm.total_paid
    assert _judge(fake_llm.url, run, out) == 0  # the new reply replaced the old one in the cache
    assert fake_llm.total_paid == paid and _errors(out)["q2"] is None


def test_retry_errors_does_not_ask_again_an_error_that_stays(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1"), record("q2", "[[nojson]]")])
    out = tmp_path / "judged.jsonl"
    assert _judge(fake_llm.url, run, out) == 0
    assert _judge(fake_llm.url, run, out, "--retry-errors") == 0
    assert fake_llm.attempts_for("q2 ?") == 4 and fake_llm.attempts_for("q1 ?") == 1  # asked once more (two calls), not in a loop
    assert "holds no JSON object" in _errors(out)["q2"]
    assert "asked again 1 question(s) whose judge error came from the cache (--retry-errors): 0 now with verdicts" in capsys.readouterr().err


def test_retry_errors_without_a_cache_is_a_usage_error(tmp_path, capsys):
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    assert main(["judge", str(run), "-o", str(tmp_path / "o.jsonl"), "--provider", "lexical", "--no-cache", "--retry-errors"]) == 2
    assert "--retry-errors asks again the errors kept in the cache: drop --no-cache" in capsys.readouterr().err


def _batch(url: str, run: Path, out: Path, *extra: str) -> int:
    return _judge(url, run, out, "--batch", "--poll-interval", "0.001", *extra)


def _submitted(server: FakeBatch) -> list[int]:
    """The number of requests in each job the server received, in order."""
    return [len(job["items"]) for _, job in sorted(server.jobs.items(), key=lambda item: item[1]["created_at"])]


def test_batch_retry_errors_clears_the_failed_requests_and_resubmits_only_them(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record(f"q{n}") for n in range(1, 7)])
    out = tmp_path / "judged.jsonl"
    job_file = tmp_path / "judged.jsonl.batch.json"
    with FakeBatch(expire={1}) as server:  # the first job expires with half its requests unrun
        assert _batch(server.url, run, out) == 0
        errored = sorted(qid for qid, error in _errors(out).items() if error)
        assert len(errored) == 3 and all("batch_expired" in _errors(out)[qid] or "expired" in _errors(out)[qid] for qid in errored)
        assert len(json.loads(job_file.read_text(encoding="utf-8"))["failed"]) == 3
        said = capsys.readouterr().err
        assert f"3 requests failed in their batch jobs (kept in {job_file}): their questions carry a judge error; --retry-errors" in said

        assert _batch(server.url, run, out) == 0  # without the flag: the failures stand, nothing is submitted
        assert _submitted(server) == [6]
        assert "3 requests failed in their batch jobs" in capsys.readouterr().err

        assert _batch(server.url, run, out, "--retry-errors") == 0
        assert _submitted(server) == [6, 3]  # the three failed requests alone
        assert "requests failed in their batch jobs" not in capsys.readouterr().err  # all answered now
        assert server.paid_twice() == []  # no good verdict paid again
        assert not any(path.endswith("/chat/completions") for _, path, _ in server.requests)  # all in batch
    assert _errors(out) == {f"q{n}": None for n in range(1, 7)}
    assert json.loads(job_file.read_text(encoding="utf-8"))["failed"] == {}


def test_batch_retry_errors_asks_again_an_unusable_reply_kept_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1"), record("q2", "[[nojsontwice]]")])
    out = tmp_path / "judged.jsonl"
    with FakeBatch() as server:
        assert _batch(server.url, run, out) == 0
        assert _submitted(server) == [2, 1] and "holds no JSON object" in _errors(out)["q2"]  # the repair went in a second job
        assert _batch(server.url, run, out, "--retry-errors") == 0
        assert _submitted(server) == [2, 1, 1]  # q2's first call alone, asked again: now fine
        assert sum(n for prompt, n in server.attempts.items() if "q1 ?" in prompt) == 1  # the good verdict, paid once
        assert len(server.paid_twice()) == 1  # q2's first call: the errored reply, asked again on purpose
    assert _errors(out) == {"q1": None, "q2": None}


async def test_re_judging_one_question_in_the_app_asks_again_a_judge_error_the_cache_holds(fake_llm, tmp_path):
    settings = settings_for(fake_llm.url, cache_dir=tmp_path / "cache")
    errored, good = record("q2", "[[nojsontwice]]"), record("q1")
    first = await judge_run(raw_run([good, errored]), settings)
    assert first.totals.error_ids == ["q2"]
    assert (await judge_record(good, settings))["error"] is None and fake_llm.attempts_for("q1 ?") == 1  # replayed, free
    assert (await judge_record(errored, settings))["error"] is None and fake_llm.attempts_for("q2 ?") == 3  # asked again
