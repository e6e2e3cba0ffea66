"""Batch judging against a fake of both providers' batch APIs: judged, resumed, never paid twice."""

from __future__ import annotations

import asyncio
import json

import pytest

from ragtui.core.judge.batch.api import Limits
from ragtui.core.judge.batch.jobfile import job_file_path
from ragtui.core.judge.batch.runner import BatchOptions, judge_run_batch
from tests.judge.fake_batch import FakeBatch
from tests.judge.helpers import raw_run, record, settings_for

PROVIDERS = ["openai", "anthropic"]


@pytest.fixture
def fake_batch():
    with FakeBatch() as server:
        yield server


def _options(tmp_path, **changes) -> BatchOptions:
    values = dict(job_path=job_file_path(tmp_path / "judged.jsonl"), poll_interval=0.001, poll_max_interval=0.01)
    values.update(changes)
    return BatchOptions(**values)


def _settings(server, provider, tmp_path, **changes):
    return settings_for(server.url, provider, cache_dir=tmp_path / "judged.jsonl.cache", **changes)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_every_answer_is_judged_or_carries_the_providers_reason(fake_batch, tmp_path, provider):
    records = [record("q1"), record("q2", "[[count]]"), record("q3", "[[trunc]]"), record("q4", "[[batcherror]]"), dict(record("q5"), answer=None)]
    outcome = await judge_run_batch(raw_run(records), _settings(fake_batch, provider, tmp_path), _options(tmp_path))
    judges = {r["id"]: r["judge"] for r in outcome.result.records}
    assert judges["q1"]["error"] is None and judges["q1"]["faithfulness"]["sentences"][0]["attested"] is True
    assert judges["q2"]["error"] is None and judges["q2"]["usage"]["calls"] == 2  # repaired in a second round
    assert judges["q3"]["error"] is None and judges["q3"]["usage"]["calls"] == 2  # asked again with twice the bound
    assert "batch request failed" in judges["q4"]["error"] and "scripted batch error" in judges["q4"]["error"]
    assert judges["q5"]["error"] and judges["q5"]["usage"]["calls"] == 0  # not sent at all, as interactively
    assert fake_batch.submissions == 2  # round 1: four requests; round 2: the repair and the longer retry
    assert fake_batch.paid_twice() == []
    assert outcome.result.meta["judge_errors"] == 2


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_expired_job_leaves_explained_errors_that_fallback_judges_interactively(tmp_path, provider):
    records = [record(f"q{i}") for i in range(6)]
    with FakeBatch(expire={1}) as server:
        settings = _settings(server, provider, tmp_path)
        first = await judge_run_batch(raw_run(records), settings, _options(tmp_path))
        errors = [r["judge"]["error"] for r in first.result.records if r["judge"]["error"]]
        assert len(errors) == 3 and all("expired" in e and "--batch-fallback" in e for e in errors)

        again = await judge_run_batch(raw_run(records), settings, _options(tmp_path, fallback=True))
        assert all(r["judge"]["error"] is None for r in again.result.records)
        assert again.fallback_calls == 3 and server.submissions == 1  # not resubmitted: asked interactively
        assert server.paid_twice() == []


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_interrupted_run_resumes_polling_without_a_second_submission(fake_batch, tmp_path, provider):
    records = [record(f"q{i}") for i in range(5)]
    settings = _settings(fake_batch, provider, tmp_path)
    fake_batch.hold = True
    task = asyncio.create_task(judge_run_batch(raw_run(records), settings, _options(tmp_path)))
    while not any(method == "GET" for method, _, _ in fake_batch.requests):
        await asyncio.sleep(0.01)
    task.cancel()  # Ctrl-C while waiting for the job
    with pytest.raises(asyncio.CancelledError):
        await task
    saved = json.loads(job_file_path(tmp_path / "judged.jsonl").read_text(encoding="utf-8"))
    assert [job["state"] for job in saved["jobs"]] == ["submitted"] and saved["jobs"][0]["id"]
    fake_batch.hold = False

    resumed = await judge_run_batch(raw_run(records), settings, _options(tmp_path))
    assert fake_batch.submissions == 1
    assert all(r["judge"]["error"] is None for r in resumed.result.records)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_submission_interrupted_before_its_id_was_saved_is_found_not_repeated(fake_batch, tmp_path, provider):
    records = [record(f"q{i}") for i in range(4)]
    settings = _settings(fake_batch, provider, tmp_path)
    await judge_run_batch(raw_run(records), settings, _options(tmp_path, wait=False))
    path = job_file_path(tmp_path / "judged.jsonl")
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["jobs"][0].update(id=None, state="submitting")  # killed between the creation and the save
    path.write_text(json.dumps(saved), encoding="utf-8")

    resumed = await judge_run_batch(raw_run(records), settings, _options(tmp_path))
    assert fake_batch.submissions == 1
    assert all(r["judge"]["error"] is None for r in resumed.result.records)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_completed_run_rerun_makes_zero_requests(fake_batch, tmp_path, provider):
    records = [record("q1"), record("q2", "[[count]]"), record("q3", "[[batcherror]]")]
    settings = _settings(fake_batch, provider, tmp_path)
    first = await judge_run_batch(raw_run(records), settings, _options(tmp_path))
    requests = len(fake_batch.requests)
    again = await judge_run_batch(raw_run(records), settings, _options(tmp_path))
    assert len(fake_batch.requests) == requests and again.http_requests == 0
    assert again.result.records == first.result.records and again.result.meta == first.result.meta


async def test_no_wait_submits_and_returns_and_a_later_run_collects(fake_batch, tmp_path):
    records = [record(f"q{i}") for i in range(3)]
    settings = _settings(fake_batch, "openai", tmp_path)
    left = await judge_run_batch(raw_run(records), settings, _options(tmp_path, wait=False))
    assert left.result is None and left.open_jobs == 1 and left.requests_submitted == 3
    collected = await judge_run_batch(raw_run(records), settings, _options(tmp_path, wait=False))
    assert collected.result is not None and collected.answers_collected == 3  # the fake finished meanwhile
    assert fake_batch.submissions == 1


async def test_jobs_are_split_within_the_providers_request_and_byte_limits(fake_batch, tmp_path):
    records = [record(f"q{i}") for i in range(7)]
    settings = _settings(fake_batch, "anthropic", tmp_path)
    outcome = await judge_run_batch(raw_run(records), settings, _options(tmp_path, limits=Limits(max_requests=3, max_bytes=10**9)))
    assert outcome.jobs_submitted == 3 and [len(j["items"]) for j in fake_batch.jobs.values()] == [3, 3, 1]
    assert all(r["judge"]["error"] is None for r in outcome.result.records)


async def test_a_request_too_big_for_any_job_is_a_judge_error_saying_so(fake_batch, tmp_path):
    settings = _settings(fake_batch, "openai", tmp_path)
    outcome = await judge_run_batch(raw_run([record("q1")]), settings, _options(tmp_path, limits=Limits(max_requests=10, max_bytes=200)))
    assert "more than a batch job takes (200)" in outcome.result.records[0]["judge"]["error"]
    assert fake_batch.submissions == 0


async def test_a_refused_prefill_steps_down_and_resubmits_the_refused_requests(tmp_path):
    with FakeBatch(reject_prefill=True) as server:
        settings = _settings(server, "anthropic", tmp_path)
        outcome = await judge_run_batch(raw_run([record("q1"), record("q2")]), settings, _options(tmp_path))
        assert all(r["judge"]["error"] is None for r in outcome.result.records)
        assert server.submissions == 2
        saved = json.loads(job_file_path(tmp_path / "judged.jsonl").read_text(encoding="utf-8"))
        assert saved["failed"] == {} and "prefill" in saved["adaptations"][0]


async def test_batch_answers_cost_the_batch_price(fake_batch, tmp_path):
    settings = _settings(fake_batch, "openai", tmp_path)
    outcome = await judge_run_batch(raw_run([record("q1")]), settings, _options(tmp_path))
    usage = outcome.result.records[0]["judge"]["usage"]
    expected = (usage["tokens_in"] * 0.075 + usage["tokens_out"] * 0.30) / 1e6  # gpt-4o-mini's batch price
    # usage.cost_usd is rounded to 8 decimals (judging.Usage.to_json)
    assert usage["cost_usd"] == pytest.approx(expected, abs=5e-9) and outcome.result.meta["judge_cost_usd"] == pytest.approx(expected, abs=1e-6)


async def test_a_job_file_of_another_model_is_refused_not_mixed(fake_batch, tmp_path):
    from ragtui.core.errors import InputError

    await judge_run_batch(raw_run([record("q1")]), _settings(fake_batch, "openai", tmp_path), _options(tmp_path, wait=False))
    with pytest.raises(InputError, match="submitted with model 'gpt-4o-mini'"):
        await judge_run_batch(raw_run([record("q1")]), _settings(fake_batch, "openai", tmp_path, model="gpt-4.1-mini"), _options(tmp_path))


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_job_creation_that_times_out_is_looked_up_before_creating_another(tmp_path, provider):
    with FakeBatch(slow_create=1.5) as server:  # the client gives up after 1 s; the job exists
        settings = _settings(server, provider, tmp_path, timeout=1.0)
        outcome = await judge_run_batch(raw_run([record("q1"), record("q2")]), settings, _options(tmp_path))
        assert server.submissions == 1
        assert all(r["judge"]["error"] is None for r in outcome.result.records)


async def test_the_progress_sink_sees_jobs_requests_and_the_estimated_batch_cost(fake_batch, tmp_path):
    seen = []

    class Sink:
        def update(self, snapshot):
            seen.append(snapshot)

        def close(self):
            seen.append("closed")

    records = [record(f"q{i}") for i in range(4)]
    await judge_run_batch(raw_run(records), _settings(fake_batch, "openai", tmp_path), _options(tmp_path), progress=Sink())
    first, last = seen[0], seen[-2]
    assert first.jobs == 1 and first.requests == 4 and first.done == 0 and first.statuses == {"in_progress": 1}
    assert last.done == 4 and last.failed == 0 and last.statuses == {"completed": 1}
    assert 0 < first.estimated_cost < 0.001 and seen[-1] == "closed"


async def test_a_job_that_fails_validation_gives_each_request_the_providers_reason(tmp_path):
    with FakeBatch(invalid={1}) as server:
        outcome = await judge_run_batch(raw_run([record("q1"), record("q2")]), _settings(server, "openai", tmp_path), _options(tmp_path))
    errors = [r["judge"]["error"] for r in outcome.result.records]
    assert all(e and "scripted: the model is not available for batch" in e for e in errors)


async def test_an_interrupted_anthropic_submission_matching_several_jobs_stops_instead_of_guessing(fake_batch, tmp_path):
    from ragtui.core.judge.client import CallError

    settings = _settings(fake_batch, "anthropic", tmp_path)
    records = [record("q1"), record("q2")]
    await judge_run_batch(raw_run(records), settings, _options(tmp_path, wait=False))
    other = tmp_path / "other"
    await judge_run_batch(raw_run([record("x1"), record("x2")]), _settings(fake_batch, "anthropic", other), _options(other, wait=False))
    path = job_file_path(tmp_path / "judged.jsonl")
    saved = json.loads(path.read_text(encoding="utf-8"))
    saved["jobs"][0].update(id=None, state="submitting")
    path.write_text(json.dumps(saved), encoding="utf-8")
    with pytest.raises(CallError, match="may have created any of the jobs msgbatch_2, msgbatch_1"):
        await judge_run_batch(raw_run(records), settings, _options(tmp_path))
    assert fake_batch.submissions == 2


def test_the_anthropic_key_is_never_sent_to_a_results_url_on_another_host():
    from ragtui.core.judge.batch.anthropic import AnthropicBatchAPI
    from ragtui.core.judge.batch.api import JobStatus
    from ragtui.core.judge.providers import make_provider

    settings = settings_for("http://127.0.0.1:9", "anthropic")
    api = AnthropicBatchAPI(settings, make_provider(settings), http=None)
    ours = JobStatus("ended", True, result_refs={"results_url": "http://127.0.0.1:9/v1/messages/batches/b1/results?x=1"})
    elsewhere = JobStatus("ended", True, result_refs={"results_url": "https://collector.example/steal"})
    assert api._results_url("b1", ours) == "http://127.0.0.1:9/v1/messages/batches/b1/results?x=1"
    assert api._results_url("b1", elsewhere) == "http://127.0.0.1:9/v1/messages/batches/b1/results"
