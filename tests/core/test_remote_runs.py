"""Runs on other machines' storage (loading/remote.py): a Parquet run at an http(s):// or
s3:// address opens like a local one. Against a server on 127.0.0.1 started here."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from ragtui.cli import main
from ragtui.core.loading.inputs import Inputs
from ragtui.core.loading.remote import RemoteLocation, is_remote, run_location
from ragtui.core.session import load_comparison

from ..file_server import serving


@pytest.fixture
def server(tmp_path):
    """(base URL, served folder, requested paths) of a file server on 127.0.0.1."""
    with serving(tmp_path / "served") as served:
        yield served


def _record(i: int, hit: bool) -> dict:
    return {
        "id": f"q{i:02d}",
        "question": f"Question {i} ?",
        "category": "procedurale",
        "gold_passages": [f"p{i}"],
        "retrieved": [{"id": f"p{i}" if hit else "x", "text": f"Passage {i}.", "score": 0.5}],
        "answer": "Réponse.",
        "judge": {"faithfulness": {"sentences": [{"text": "Réponse.", "attested": True}]}, "utility": {"score": 4}},
    }


def _write_parquet(path: Path, name: str, hits: int) -> Path:
    frame = pl.DataFrame([_record(i, i < hits) for i in range(30)])
    frame.write_parquet(path, metadata={"ragtui.run": json.dumps({"name": name, "k": 5})})
    return path


def test_addresses_are_told_from_local_paths():
    assert is_remote("https://example.org/runs/a.parquet") and is_remote("s3://bucket/a.parquet")
    assert not is_remote("runs/a.parquet") and not is_remote("C:/runs/a.parquet") and not is_remote("ftp://host/a.parquet")
    location = run_location("https://example.org/runs/a.parquet?version=2")
    assert isinstance(location, RemoteLocation)
    assert (str(location), location.name, location.stem, location.suffix) == (
        "https://example.org/runs/a.parquet?version=2", "a.parquet", "a", ".parquet")


def test_report_on_runs_at_http_addresses_equals_the_report_on_the_same_local_files(server, capsys):
    base, folder, requests = server
    for name, hits in (("a", 30), ("b", 18)):
        _write_parquet(folder / f"{name}.parquet", f"run-{name}", hits)
    assert main(["report", str(folder / "a.parquet"), str(folder / "b.parquet"), "--format", "json", "--no-cache"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(["report", f"{base}/bucket/a.parquet", f"{base}/bucket/b.parquet", "--format", "json"]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert requests  # really fetched from the server
    assert remote["runs"]["B"]["path"] == f"{base}/bucket/b.parquet"
    for report in (local, remote):
        for run in report["runs"].values():
            run.pop("path")
    assert remote == local
    assert remote["metrics"]["recall@5"]["A"] == 1.0 and remote["metrics"]["recall@5"]["B"] == 0.6


def test_s3_address_takes_endpoint_and_credentials_from_the_environment(server, monkeypatch):
    base, folder, requests = server
    _write_parquet(folder / "a.parquet", "from-s3", 30)
    for name, value in {"AWS_ENDPOINT_URL": base, "AWS_ALLOW_HTTP": "true", "AWS_ACCESS_KEY_ID": "test",
                        "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    comparison = load_comparison(Inputs(a=RemoteLocation("s3://bucket/a.parquet")))
    assert comparison.a.run.name == "from-s3"
    assert comparison.a.questions.height == 30
    assert comparison.a.question("q03")["retrieved_texts"] == ["Passage 3."]  # the app's texts come along
    assert any(path.startswith("/bucket/a.parquet") for path in requests)


def test_missing_remote_run_names_the_address_and_exits_2(server, capsys):
    base, _, _ = server
    assert main(["report", f"{base}/bucket/absent.parquet"]) == 2
    message = capsys.readouterr().err
    assert message.startswith(f"ragtui: {base}/bucket/absent.parquet: -: cannot fetch: ")
    assert "Traceback" not in message


def test_remote_run_that_is_not_parquet_is_refused_with_a_reason(server, capsys):
    base, folder, _ = server
    (folder / "a.jsonl").write_text(json.dumps(_record(1, True)) + "\n", encoding="utf-8")
    assert main(["report", f"{base}/bucket/a.jsonl"]) == 2
    assert capsys.readouterr().err == (
        f"ragtui: {base}/bucket/a.jsonl: -: a run at an address must be a Parquet file (.parquet); download other formats first\n"
    )
