"""`ragtui judge --jury M1,M2`: the run judged by both models, both verdicts written.

Against the fake server on 127.0.0.1 (tests/judge/fake_llm.py); `[[flip]]` makes a repeated
question's answer differ, which two models asking the same question do not here: the
point is where each model's verdicts land and that none is paid twice.
"""

from __future__ import annotations

import json
from pathlib import Path

from ragtui.cli import main
from ragtui.core.judge.jury import juror_path, jurors_of
from tests.judge.helpers import SECRET, record, write_run


def _lines(path: Path) -> tuple[dict, list[dict]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return lines[0]["run"], lines[1:]


def _args(url: str) -> list[str]:
    return ["--provider", "openai", "--base-url", f"{url}/v1", "--backoff", "0.01", "-q"]


def test_a_jury_writes_the_first_models_verdicts_as_the_judge_and_every_jurors_beside_them(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1"), record("q2")])
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), "--jury", "model-one,model-two", *_args(fake_llm.url)]) == 0
    meta, records = _lines(out)
    assert meta["judge_model"] == "model-one"
    assert all(r["judge"]["model"] == "model-one" for r in records)
    assert [[juror["model"] for juror in r["jury"]] for r in records] == [["model-two"], ["model-two"]]
    second_meta, second = _lines(juror_path(out, 2))
    assert second_meta["judge_model"] == "model-two" and [r["judge"] for r in second] == [r["jury"][0] for r in records]
    assert fake_llm.total_paid == 4  # 2 answers × 2 models
    assert "ragtui agreement" in capsys.readouterr().err
    # Again: every call comes from the cache.
    assert main(["judge", str(run), "-o", str(out), "--jury", "model-one,model-two", *_args(fake_llm.url)]) == 0
    assert fake_llm.total_paid == 4
    # The inspector reads the jurors from the record's unknown fields.
    extra = json.dumps({"jury": records[0]["jury"]})
    (juror,) = jurors_of(extra)
    assert juror.model == "model-two" and juror.attested == (True, True)
    # And the two files compare.
    capsys.readouterr()
    assert main(["agreement", str(out), str(juror_path(out, 2)), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["faithfulness"]["agreement"] == 1.0


def test_a_jury_of_one_model_or_with_model_is_refused_with_the_reason(fake_llm, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    run = write_run(tmp_path / "run.jsonl", [record("q1")])
    out = tmp_path / "judged.jsonl"
    assert main(["judge", str(run), "-o", str(out), "--jury", "model-one", *_args(fake_llm.url)]) == 2
    assert "--jury: expected two or more distinct models" in capsys.readouterr().err
    assert main(["judge", str(run), "-o", str(out), "--jury", "a,b", "--model", "c", *_args(fake_llm.url)]) == 2
    assert "drop --model" in capsys.readouterr().err
    assert not out.exists() and fake_llm.total_paid == 0
