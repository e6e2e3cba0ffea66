"""`ragtui run --system / --retriever --generator`: Python functions, sync and async, checked first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragtui.cli import main
from tests.running.conftest import write_gold

SYSTEMS = '''
import asyncio

CALLS = []

def chercher(question, k):
    CALLS.append(question)
    qid = question.split()[-1].rstrip("?")
    return [{"id": f"p_{qid}_{rank}", "text": f"text {rank}", "score": 1.0 - rank / 10} for rank in range(k)]

def repondre(question, passages):
    if "boom" in question:
        raise KeyError("missing index entry")
    if "abstain" in question:
        return "Je ne trouve pas cette information."
    return {"answer": "yes: " + passages[0]["id"], "tokens_in": 120, "tokens_out": 8, "cost_usd": 0.0002}

async def answer(question, k):
    await asyncio.sleep(0)
    return {"retrieved": chercher(question, k), "answer": "async " + question}

def two_args_only(question):
    return []

def bad_shape(question, k):
    return {"passages": [{"text": "no id"}], "answer": "x"}

def bad_later(question, k):
    if "boom" in question:
        return {"passages": "not a list", "answer": "x"}
    return {"passages": [], "answer": "fine"}

NOT_A_FUNCTION = 3
'''


@pytest.fixture
def systems(tmp_path) -> Path:
    path = tmp_path / "my_rag.py"
    path.write_text(SYSTEMS, encoding="utf-8")
    return path


def _records(path: Path) -> dict[str, dict]:
    return {r["id"]: r for r in (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[1:])}


def test_a_retriever_and_a_generator_make_records_with_stages_usage_and_abstention(tmp_path, systems):
    gold = write_gold(tmp_path / "gold.yaml", ["one", "abstain", "boom"])
    out = tmp_path / "run.jsonl"
    code = main(["run", str(gold), "--retriever", f"{systems}:chercher", "--generator", f"{systems}:repondre", "-o", str(out), "-k", "3", "-q"])
    assert code == 0
    got = _records(out)
    one = got["one"]
    assert [p["id"] for p in one["retrieved"]] == ["p_one_0", "p_one_1", "p_one_2"]
    assert one["answer"] == "yes: p_one_0" and one["abstained"] is False
    assert (one["tokens_in"], one["tokens_out"], one["cost_usd"]) == (120, 8, 0.0002)
    assert set(one["latency_stages_ms"]) == {"retrieve", "generate"}
    assert one["latency_ms"] >= one["latency_stages_ms"]["retrieve"] + one["latency_stages_ms"]["generate"] - 1e-3
    assert got["abstain"]["abstained"] is True
    assert got["boom"]["error"] == f"{systems}:repondre raised KeyError: 'missing index entry'"
    assert got["boom"]["answer"] is None
    meta = json.loads(out.read_text(encoding="utf-8").splitlines()[0])["run"]
    assert meta["k"] == 3 and meta["name"] == "run" and meta["gold_set"] == str(gold)
    assert meta["system"] == f"python {systems}:chercher + {systems}:repondre"
    assert len(meta["gold_set_sha1"]) == 40 and meta["ragtui_version"]
    assert "system_commit" not in meta, "the system's file is not in a git work tree"


def test_an_async_system_function_is_awaited(tmp_path, systems):
    gold = write_gold(tmp_path / "gold.yaml", ["x", "y"])
    out = tmp_path / "run.jsonl"
    assert main(["run", str(gold), "--system", f"{systems}:answer", "-o", str(out), "--name", "mine", "-q"]) == 0
    got = _records(out)
    assert got["x"]["answer"] == "async Question about x?"
    assert len(got["x"]["retrieved"]) == 5
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["run"]["name"] == "mine"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{file}:two_args_only", "{file}:two_args_only: wrong signature: it is called as two_args_only(question, k)"),
        ("{file}:nowhere", "{file}:nowhere: no function 'nowhere' in {file}"),
        ("{file}:NOT_A_FUNCTION", "'NOT_A_FUNCTION' is a int, not a function"),
        ("{folder}/absent.py:answer", "file not found: {folder}/absent.py"),
        ("no_such_module_xyz:answer", "does not import: ModuleNotFoundError: No module named 'no_such_module_xyz'"),
        ("{file}", "expected FILE.py:function or package.module:function"),
    ],
)
def test_a_system_that_cannot_be_loaded_is_one_message_naming_the_function_and_exit_2(tmp_path, systems, capsys, spec, message):
    gold = write_gold(tmp_path / "gold.yaml", ["x"])
    out = tmp_path / "run.jsonl"
    spec = spec.format(file=systems, folder=tmp_path)
    assert main(["run", str(gold), "--system", spec, "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert message.format(file=systems, folder=tmp_path) in err
    assert "Traceback" not in err
    assert not out.exists(), "nothing is written before the system loads"


def test_a_first_reply_of_the_wrong_shape_stops_before_anything_else_is_asked(tmp_path, systems, capsys):
    gold = write_gold(tmp_path / "gold.yaml", ["x", "y", "z"])
    out = tmp_path / "run.jsonl"
    assert main(["run", str(gold), "--system", f"{systems}:bad_shape", "-o", str(out), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"the first call (question x) failed, nothing was recorded: {systems}:bad_shape returned.passages[0].id: expected a passage id (string), found null" in err
    assert [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()][1:] == []


def test_a_wrong_shape_after_the_first_question_is_that_questions_system_error(tmp_path, systems):
    gold = write_gold(tmp_path / "gold.yaml", ["fine", "boom"])
    out = tmp_path / "run.jsonl"
    assert main(["run", str(gold), "--system", f"{systems}:bad_later", "-o", str(out), "-q", "-j", "1"]) == 0
    got = _records(out)
    assert got["fine"]["answer"] == "fine"
    assert got["boom"]["error"] == f"{systems}:bad_later returned.passages: expected a list of passages, found str"


def test_a_module_path_names_the_function_as_well(tmp_path, capsys):
    gold = write_gold(tmp_path / "gold.yaml", ["x"])
    out = tmp_path / "run.jsonl"
    assert main(["run", str(gold), "--system", "ragtui.sample_data.example_system:answer", "-o", str(out), "-q"]) == 0
    assert _records(out)["x"]["answer"]


def test_the_system_is_named_one_way(tmp_path, systems, capsys):
    gold = write_gold(tmp_path / "gold.yaml", ["x"])
    out = tmp_path / "run.jsonl"
    assert main(["run", str(gold), "--retriever", f"{systems}:chercher", "-o", str(out)]) == 2
    assert "--generator is needed too (or one --system)" in capsys.readouterr().err
    assert main(["run", str(gold), "--system", f"{systems}:answer", "--endpoint", "http://127.0.0.1:9/", "-o", str(out)]) == 2
    assert "name the system one way" in capsys.readouterr().err


def test_judge_after_the_run_gives_one_judged_file_with_the_configs_judge(tmp_path, capsys):
    gold = write_gold(tmp_path / "gold.yaml", ["a", "b"])
    config = tmp_path / "ragtui.yaml"
    config.write_text("judge:\n  provider: lexical\n", encoding="utf-8")
    out = tmp_path / "run.jsonl"
    code = main(["run", str(gold), "--system", "ragtui.sample_data.example_system:answer", "-o", str(out), "--config", str(config), "--judge", "-q"])
    assert code == 0
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0]["run"]["judge_provider"] == "lexical" and lines[0]["run"]["k"] == 5
    assert all(record["judge"]["model"] for record in lines[1:]) and {r["id"] for r in lines[1:]} == {"a", "b"}
    assert "judged 2 answers" in capsys.readouterr().err
