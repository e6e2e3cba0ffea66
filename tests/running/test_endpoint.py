"""`ragtui run --endpoint`: a real HTTP service on 127.0.0.1, started by each test."""

from __future__ import annotations

import json
from pathlib import Path

from ragtui.cli import main
from tests.running.fake_rag import FakeRag

FAST_RETRIES = ["--max-retries", "2", "--backoff", "0.01", "--timeout", "0.5", "-q"]


def records(path: Path) -> dict[str, dict]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert "run" in lines[0], "the first line is the run's metadata"
    found = [line for line in lines[1:]]
    ids = [r["id"] for r in found]
    assert len(ids) == len(set(ids)), "every question is recorded once"
    return {r["id"]: r for r in found}


SCRIPT = {
    "transient": ["500", "ok"],
    "permanent": ["500"],
    "malformed": ["malformed"],
    "hang": ["hang"],
    "unknown": ["404"],
}


def test_each_failure_is_a_system_error_with_its_reason_and_the_others_are_answered(tmp_path, gold_of, capsys):
    gold = gold_of(["ok1", "transient", "permanent", "malformed", "hang", "unknown", "ok2"])
    out = tmp_path / "run.jsonl"
    with FakeRag(script=SCRIPT, hang_seconds=3.0) as fake:
        code = main(["run", str(gold), "--endpoint", fake.url, "-o", str(out), "-j", "4", *FAST_RETRIES])
    assert code == 0
    got = records(out)
    assert set(got) == {"ok1", "transient", "permanent", "malformed", "hang", "unknown", "ok2"}
    for answered in ("ok1", "ok2", "transient"):
        assert got[answered].get("error") is None
        assert got[answered]["answer"] == f"answer to Question about {answered}?"
        assert [p["id"] for p in got[answered]["retrieved"]][:2] == [f"p_{answered}_0", f"p_{answered}_1"]
        assert got[answered]["tokens_in"] == 500 and got[answered]["cost_usd"] == 0.001
    assert fake.attempts["transient"] == 2, "a transient 500 is retried once, then answered"
    assert got["permanent"]["error"] == "HTTP 500: the index is rebuilding (gave up after 3 attempts)"
    assert fake.attempts["permanent"] == 3
    assert got["malformed"]["error"].startswith("malformed JSON in the reply")
    assert fake.attempts["malformed"] == 1, "a 2xx with a body that is not JSON is not retried"
    assert got["hang"]["error"] == "timed out after 0.5 s (gave up after 3 attempts)"
    assert got["unknown"]["error"] == "HTTP 404: unknown question"
    assert fake.attempts["unknown"] == 1, "a 4xx is not retried"
    for failed in ("permanent", "malformed", "hang", "unknown"):
        assert got[failed]["answer"] is None and "retrieved" not in got[failed]
    err = capsys.readouterr().err
    assert "asked 7 of 7 questions: 3 answered, 4 system errors" in err


def test_system_errors_are_counted_in_the_report_json_and_never_averaged(tmp_path, gold_of, capsys):
    gold = gold_of(["ok1", "ok2", "ok3", "unknown"])
    out = tmp_path / "run.jsonl"
    with FakeRag(script={"unknown": ["404"]}) as fake:
        assert main(["run", str(gold), "--endpoint", fake.url, "-o", str(out), *FAST_RETRIES]) == 0
    capsys.readouterr()
    assert main(["report", str(out), str(out), "--gold", str(gold), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    run = report["runs"]["B"]
    assert run["system_errors"] == 1
    assert run["failure_kinds"]["system_error"] == 1
    assert run["judge_errors"] == 3, "the errored question is not also a judge error"
    # recall@5 over the three answered questions only: each holds its gold passage first.
    assert report["metrics"]["recall@5"]["B"] == 1.0
    assert report["metrics"]["recall@5"]["n_by_run"]["B"] == 3


def test_a_finished_run_reruns_with_zero_calls_and_rerun_errors_asks_only_the_errored(tmp_path, gold_of, capsys):
    gold = gold_of(["a", "b", "flaky"])
    out = tmp_path / "run.jsonl"
    with FakeRag(script={"flaky": ["404", "ok"]}) as fake:
        assert main(["run", str(gold), "--endpoint", fake.url, "-o", str(out), *FAST_RETRIES]) == 0
        assert sum(fake.attempts.values()) == 3
        assert main(["run", str(gold), "--endpoint", fake.url, "-o", str(out), *FAST_RETRIES]) == 0
        assert sum(fake.attempts.values()) == 3, "a finished run asks nothing again"
        assert "nothing asked" in capsys.readouterr().err
        assert main(["run", str(gold), "--endpoint", fake.url, "-o", str(out), "--rerun-errors", *FAST_RETRIES]) == 0
        assert dict(fake.attempts) == {"a": 1, "b": 1, "flaky": 2}
    got = records(out)
    assert got["flaky"].get("error") is None and got["flaky"]["answer"] == "answer to Question about flaky?"


def test_header_values_come_from_the_environment_and_are_written_nowhere(tmp_path, gold_of, monkeypatch, capsys):
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("RAG_TOKEN", secret)
    gold = gold_of(["a", "unknown"])
    out = tmp_path / "run.jsonl"
    with FakeRag(script={"unknown": ["404"]}) as fake:
        code = main(["run", str(gold), "--endpoint", fake.url + "?key=" + secret, "-o", str(out), "--header", "Authorization: Bearer env:RAG_TOKEN", *FAST_RETRIES])
    assert code == 0
    assert fake.headers["Authorization"] == f"Bearer {secret}"
    assert secret not in out.read_text(encoding="utf-8")
    assert secret not in capsys.readouterr().err
    meta = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["run"]
    assert meta["system"] == f"endpoint {fake.url}", "the address is kept without its query string"


def test_field_names_of_the_service_are_mapped_from_the_config(tmp_path, gold_of):
    gold = gold_of(["a"])
    config = tmp_path / "ragtui.yaml"
    config.write_text("run:\n  endpoint: {question: query, passages: docs, passage_id: doc_id}\n", encoding="utf-8")
    out = tmp_path / "run.jsonl"
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen = {}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            seen.update(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            body = json.dumps({"docs": [{"doc_id": "p_a_0", "text": "t"}], "answer": "yes"}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        assert main(["run", str(gold), "--endpoint", url, "-o", str(out), "--config", str(config), *FAST_RETRIES]) == 0
    finally:
        server.shutdown()
        server.server_close()
    assert seen == {"id": "a", "query": "Question about a?", "k": 5}
    assert records(out)["a"]["retrieved"] == [{"id": "p_a_0", "text": "t"}]


def test_a_server_refusing_connections_stops_the_run_and_keeps_nothing_false(tmp_path, gold_of, capsys):
    gold = gold_of(["a", "b"])
    out = tmp_path / "run.jsonl"
    with FakeRag() as fake:
        url = fake.url
    code = main(["run", str(gold), "--endpoint", url, "-o", str(out), "--max-retries", "1", "--backoff", "0.01", "-q"])
    assert code == 2
    assert "run stopped: connection failed" in capsys.readouterr().err
    assert records(out) == {}, "no question is recorded as failed for a server that was never reached"


def test_a_server_dripping_its_reply_a_huge_reply_and_a_bomb_of_nesting_are_each_a_system_error(tmp_path, gold_of):
    # --timeout bounds the whole exchange, not each read; replies are read up to a size and
    # decoded with the bounded reader, so none of these reaches a traceback or the memory.
    gold = gold_of(["drip", "huge", "deep", "ok1"])
    out = tmp_path / "run.jsonl"
    script = {"drip": ["drip"], "huge": ["huge"], "deep": ["deep"]}
    with FakeRag(script=script) as fake:
        code = main(["run", str(gold), "--endpoint", fake.url, "-o", str(out), "--max-retries", "0", "--timeout", "1", "-q"])
    assert code == 0
    got = records(out)
    assert got["drip"]["error"] == "timed out after 1 s (gave up after 1 attempts)"
    assert got["huge"]["error"] == "the server's reply is larger than 16 MB: refused"
    assert fake.attempts["huge"] == 1, "a reply over the bound is refused, not retried"
    assert got["deep"]["error"].startswith("malformed JSON in the reply")
    assert got["ok1"].get("error") is None


def test_the_garbage_collector_is_given_back_its_objects_after_the_run(tmp_path, gold_of, monkeypatch):
    """While asking, the objects from before are left out of full collections (gc.freeze);
    after, nothing stays frozen, and a freeze made by someone else is left as it was."""
    import gc

    from ragtui.core.running.endpoint import EndpointSystem

    frozen_while_asking = []
    real_ask = EndpointSystem.ask

    async def ask(self, question_id, question, k):
        frozen_while_asking.append(gc.get_freeze_count())
        return await real_ask(self, question_id, question, k)

    monkeypatch.setattr(EndpointSystem, "ask", ask)
    gold = gold_of(["q1", "q2"])
    gc.unfreeze()  # the suite's own freeze (tests/conftest.py), put back below
    try:
        with FakeRag() as fake:
            assert main(["run", str(gold), "--endpoint", fake.url, "-o", str(tmp_path / "a.jsonl"), "-q"]) == 0
            assert gc.get_freeze_count() == 0
            assert len(frozen_while_asking) == 2 and min(frozen_while_asking) > 10_000
            gc.freeze()  # someone else's
            theirs = gc.get_freeze_count()
            assert main(["run", str(gold), "--endpoint", fake.url, "-o", str(tmp_path / "b.jsonl"), "-q"]) == 0
            # still frozen: only objects freed by reference counting meanwhile have left
            assert theirs - 1_000 < gc.get_freeze_count() <= theirs
    finally:
        gc.freeze()
