"""Each bad input gives a message naming file, line and field, and the documented exit code."""

from __future__ import annotations

import json

import pytest

from ragtui.cli import main

GOOD = {"id": "q1", "question": "Q ?", "gold_passages": ["p1"], "retrieved": ["p1"], "answer": "Oui."}


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def write_lines(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_malformed_json_line_is_named_by_line(tmp_path, capsys):
    path = write_lines(tmp_path / "run.jsonl", [json.dumps(GOOD), '{"id": "q2", "answer": }'])
    code, out, err = run_cli(capsys, "report", path)
    assert code == 2
    assert f"{path}:2: -: malformed JSON" in err
    assert "Traceback" not in err
    code, out, _ = run_cli(capsys, "validate", path)
    assert code == 1 and f"{path}:2: -: malformed JSON" in out


# A run with a problem on every line but the first.
MANY_PROBLEMS = [
    json.dumps({**GOOD, "id": "q1"}),
    json.dumps({**GOOD, "id": "q1"}),
    json.dumps({**GOOD, "id": "q3", "retrieved": "p1"}),
    json.dumps({**GOOD, "id": "q4", "judge": {"utility": {"score": 6}}}),
    json.dumps({**GOOD, "id": "q5", "judge": {"utility": {"score": 0}}}),
    json.dumps({**GOOD, "id": 7}),
    json.dumps({**GOOD, "id": "q8", "latency_ms": "fast"}),
]


def test_validate_lists_every_problem_at_once(tmp_path, capsys):
    path = write_lines(tmp_path / "run.jsonl", MANY_PROBLEMS)
    code, out, _ = run_cli(capsys, "validate", path)
    assert code == 1
    assert f"{path}:2: id: duplicate id 'q1' (first on line 1)" in out
    assert f"{path}:3: retrieved: expected a ranked list, found a string" in out
    assert f"{path}:4: judge.utility.score: 6 is outside 1–5" in out
    assert f"{path}:5: judge.utility.score: 0 is outside 1–5" in out
    assert f"{path}:6: id: expected a string, found a number 7" in out
    assert f"{path}:7: latency_ms: expected a number" in out


def test_malformed_yaml_names_its_line(tmp_path, capsys):
    path = tmp_path / "gold.yaml"
    path.write_text('- id: "q1"\n  question: "Q ?"\n  passages_verite: [p1\n- id: q2\n', encoding="utf-8")
    code, _, err = run_cli(capsys, "report", tmp_path / "x.jsonl", "--gold", path)
    assert code == 2
    assert f"{path}:" in err and "malformed YAML" in err


def test_a_gold_set_with_wrong_types_lists_each_field(tmp_path, capsys):
    path = tmp_path / "gold.yaml"
    path.write_text('- id: "q1"\n  question: 12\n  passages_verite: "p1"\n- id: "q2"\n  question: "Q ?"\n', encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", path)
    assert code == 1
    assert f"{path}:1: question: expected a string, found a number 12" in out
    assert f"{path}:1: gold_passages: expected a list of strings, found a string" in out
    assert f"{path}:4: gold_passages: required, missing" in out


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.jsonl", b"", "the file is empty"),
        ("blank.jsonl", b"\n\n  \n", "the file is empty"),
        ("run.csv2", b"id,answer\n", "unknown extension '.csv2'"),
        ("latin1.jsonl", '{"id": "q1", "answer": "réponse"}\n'.encode("latin-1"), "not UTF-8: byte 0xe9"),
    ],
)
def test_unreadable_files_exit_2_with_a_message(tmp_path, capsys, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    code, _, err = run_cli(capsys, "report", path)
    assert code == 2
    assert str(path) in err and message in err
    assert "Traceback" not in err


def test_a_missing_file_exits_2(tmp_path, capsys):
    code, _, err = run_cli(capsys, "report", tmp_path / "nope.jsonl")
    assert code == 2 and "file not found" in err


def test_a_run_with_no_question_in_common_with_the_gold_set_exits_2(tmp_path, capsys):
    gold = tmp_path / "gold.yaml"
    gold.write_text('- {id: g1, question: "Q ?", gold_passages: [p1]}\n', encoding="utf-8")
    run = write_lines(tmp_path / "run.jsonl", [json.dumps(GOOD)])
    code, _, err = run_cli(capsys, "report", run, "--gold", gold)
    assert code == 2
    assert "no question in common with the gold set" in err


def test_a_one_megabyte_passage_loads_with_a_warning(tmp_path, capsys):
    big = {**GOOD, "retrieved": [{"id": "p1", "text": "x" * 1_048_576, "score": 1.0}]}
    path = write_lines(tmp_path / "run.jsonl", [json.dumps(big)])
    code, out, _ = run_cli(capsys, "report", path, "--format", "json")
    assert code == 0
    assert json.loads(out)["metrics"]["recall@5"]["A"] == 1.0
    code, out, _ = run_cli(capsys, "validate", path)
    assert code == 0
    assert "warning: passage is 1,048,576 characters" in out


def test_a_fifty_thousand_line_run_loads_and_reports(tmp_path, capsys):
    lines = [json.dumps({**GOOD, "id": f"q{i:05d}", "retrieved": ["p2", "p1"] if i % 2 else ["p1"]}) for i in range(50_000)]
    path = write_lines(tmp_path / "run.jsonl", lines)
    code, out, _ = run_cli(capsys, "report", path, "-k", "1", "--format", "json")
    assert code == 0
    report = json.loads(out)
    assert report["runs"]["A"]["questions"] == 50_000
    assert report["metrics"]["recall@1"]["A"] == 0.5


def test_usage_errors_exit_2(capsys):
    assert main(["report"]) == 2
    assert main(["report", "a.jsonl", "--format", "pdf"]) == 2


def test_problems_of_both_runs_are_listed_together(tmp_path, capsys):
    a = write_lines(tmp_path / "a.jsonl", ['{"id": "q1", "answer": }'])
    b = write_lines(tmp_path / "b.jsonl", [json.dumps({**GOOD, "judge": {"utility": {"score": 9}}})])
    code, _, err = run_cli(capsys, "report", a, b)
    assert code == 2
    assert f"{a}:1: -: malformed JSON" in err
    assert f"{b}:1: judge.utility.score: 9 is outside 1–5" in err


def test_validate_exits_2_when_a_file_does_not_exist(tmp_path, capsys):
    code, _, err = run_cli(capsys, "validate", tmp_path / "nope.yaml")
    assert code == 2 and "no such file" in err


def test_validate_lists_problems_in_line_order(tmp_path, capsys):
    # The duplicate id (line 2) is found by a check that runs after the per-line ones.
    path = write_lines(tmp_path / "run.jsonl", MANY_PROBLEMS)
    code, out, _ = run_cli(capsys, "validate", path)
    assert code == 1
    lines = [int(line.split(":")[1]) for line in out.splitlines() if line.startswith(f"{path}:")]
    assert lines == [2, 3, 4, 5, 6, 7]
