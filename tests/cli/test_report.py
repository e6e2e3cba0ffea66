"""`ragtui report`: the text table, markdown, the JSON shape of docs/cli.md, and exit codes."""

from __future__ import annotations

import json

import pytest
import yaml

from ragtui.cli import main

GOLD = [{"id": f"q{i:02d}", "question": f"Question {i} ?", "gold_passages": [f"p{i}"], "category": "procedurale" if i % 2 else "factuelle_courte"} for i in range(40)]


def _record(i: int, *, hit: bool, attested: bool = True) -> dict:
    retrieved = [f"p{i}", "x1", "x2"] if hit else ["x1", "x2", "x3", "x4", "x5", f"p{i}"]
    return {
        "id": f"q{i:02d}",
        "retrieved": retrieved,
        "answer": "Réponse.",
        "judge": {"faithfulness": {"sentences": [{"text": "Réponse.", "attested": attested}]}, "utility": {"score": 5}},
    }


@pytest.fixture
def runs(tmp_path, write_jsonl):
    gold = tmp_path / "gold.yaml"
    gold.write_text(yaml.safe_dump(GOLD), encoding="utf-8")
    # A finds every gold passage; B loses it on 12 of 40 questions (a clear regression).
    a = write_jsonl(tmp_path / "a.jsonl", {"name": "baseline", "generator_model": "llama-3.1-70b", "judge_model": "claude-sonnet-4"},
                    [_record(i, hit=True) for i in range(40)])
    b = write_jsonl(tmp_path / "b.jsonl", {"name": "candidate", "generator_model": "llama-3.1-70b", "judge_model": "llama-3.3-70b"},
                    [_record(i, hit=i >= 12) for i in range(40)])
    return a, b, gold


def test_json_report_follows_the_cli_contract(runs, capsys):
    a, b, gold = runs
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["runs"]["A"]["name"] == "baseline" and report["runs"]["B"]["name"] == "candidate"
    assert report["runs"]["A"]["questions"] == 40 and report["runs"]["B"]["missing"] == 0
    assert report["k"] == 5
    recall = report["metrics"]["recall@5"]
    assert recall["A"] == 1.0 and recall["B"] == pytest.approx(28 / 40)
    assert recall["delta"] == pytest.approx(-0.3)
    assert recall["ci"][0] <= -0.3 <= recall["ci"][1] and recall["ci"][1] < 0
    assert recall["p_value"] == pytest.approx(2 / 2**12, rel=1e-3)  # McNemar: 12 discordant pairs, all one way
    assert recall["verdict"] == "regressed" and recall["target"] == 0.8
    # A: 40/40, Wilson 95 % 0.912…1 meets 0.80; B: 28/40, Wilson 0.546…0.819 straddles it.
    assert recall["meets_target"] == {"A": "meets", "B": "inconclusive"} and recall["n"] == 40
    assert recall["ci_by_run"]["A"] == pytest.approx([0.9124, 1.0], abs=1e-4)
    assert recall["ci_by_run"]["B"] == pytest.approx([0.5457, 0.8193], abs=1e-4)
    assert recall["mde"] > 0 and recall["n_needed"] > 40
    assert report["categories"]["procedurale"]["n"] == 20
    assert set(report["categories"]["procedurale"]["metrics"]["recall@5"]) >= {"A", "B", "delta"}
    assert sorted(report["questions"]["regressed"]) == [f"q{i:02d}" for i in range(12)]
    assert report["questions"]["fixed"] == [] and report["questions"]["still_failing"] == []
    assert any("Llama family" in w for w in report["warnings"])


def test_single_run_report_has_no_b_delta_ci_p_value_or_verdict(runs, capsys):
    a, _, gold = runs
    assert main(["report", str(a), "--gold", str(gold), "--format", "json"]) == 0
    metric = json.loads(capsys.readouterr().out)["metrics"]["recall@5"]
    assert metric["A"] == 1.0
    assert not {"B", "delta", "ci", "p_value", "verdict"} & set(metric)


def test_text_report_is_an_aligned_table_with_the_regressed_questions(runs, capsys):
    a, b, gold = runs
    assert main(["report", str(a), str(b), "--gold", str(gold)]) == 0
    out = capsys.readouterr().out
    line = next(row for row in out.splitlines() if row.startswith("recall@5 "))
    # A: 40/40 = 100.0%; B: 28/40 = 70.0%, inconclusive against 80%; Δ −30.0 points.
    assert "100.0%✓" in line and "70.0%?" in line and "−30.0 (" in line and "▼ regressed" in line
    assert "Δ pts (95% CI)" in out
    assert "Regressed questions" in out and "retrieval (gold left the top k)" in out
    assert "Procedural" in out and "Short factual" in out


def test_markdown_report_is_a_table_for_a_pr_comment(runs, capsys):
    a, b, gold = runs
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("### ragtui report: `baseline` → `candidate`")
    assert "| `recall@5` | ≥ 80% | 100.0% ✓ | 70.0% ? | −30.0 pts (" in out and "**Questions:** 12 regressed" in out


def test_fail_on_regression_exits_1_only_when_a_metric_regressed(runs, capsys):
    a, b, gold = runs
    assert main(["report", str(a), str(b), "--gold", str(gold), "--fail-on-regression"]) == 1
    assert "recall@5 regressed" in capsys.readouterr().err
    assert main(["report", str(a), str(a), "--gold", str(gold), "--fail-on-regression"]) == 0


def test_fail_below_target_fails_on_inconclusive_only_with_strict_targets(runs, capsys):
    a, b, gold = runs
    assert main(["report", str(a), "--gold", str(gold), "--fail-below-target"]) == 0
    # B's recall is 0.70 from 40 questions: its interval (0.546…0.819) straddles 0.80.
    assert main(["report", str(a), str(b), "--gold", str(gold), "--fail-below-target"]) == 0
    capsys.readouterr()
    assert main(["report", str(a), str(b), "--gold", str(gold), "--fail-below-target", "--strict-targets"]) == 1
    assert "recall@5 of B is inconclusive against its target ≥ 80% (70.0%, CI 54.6…81.9%; --strict-targets)" in capsys.readouterr().err


def test_fail_below_target_fails_when_the_latest_run_misses(runs, tmp_path, capsys):
    a, b, gold = runs
    config = tmp_path / "ragtui.yaml"
    config.write_text("targets:\n  recall@5: {min: 0.90}\n", encoding="utf-8")
    # 0.819, the top of B's interval, lies below 0.90: B misses.
    assert main(["report", str(a), str(b), "--gold", str(gold), "--config", str(config), "--fail-below-target"]) == 1
    assert "recall@5 of B misses its target ≥ 90% (70.0%, CI 54.6…81.9%)" in capsys.readouterr().err


def test_report_output_file_is_written(runs, tmp_path, capsys):
    a, b, gold = runs
    out = tmp_path / "report.json"
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "json", "-o", str(out)]) == 0
    assert json.loads(out.read_text())["metrics"]["recall@5"]["verdict"] == "regressed"


def test_a_config_file_sets_targets_and_k(runs, tmp_path, capsys):
    a, _, gold = runs
    config = tmp_path / "ragtui.yaml"
    config.write_text("k: 1\ntargets:\n  recall@5: {min: 0.99}\n", encoding="utf-8")
    assert main(["report", str(a), "--gold", str(gold), "--config", str(config), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["k"] == 1 and report["metrics"]["recall@1"]["target"] == 0.99


def test_a_bad_config_exits_2_naming_the_field(runs, tmp_path, capsys):
    a, _, gold = runs
    config = tmp_path / "ragtui.yaml"
    config.write_text("targets:\n  faithfulness: {min: 1.5}\n", encoding="utf-8")
    assert main(["report", str(a), "--config", str(config)]) == 2
    assert "targets.faithfulness.min: 1.5 is outside 0…1" in capsys.readouterr().err


def test_judge_human_agreement_is_reported_where_human_labels_exist(tmp_path, write_jsonl, capsys):
    def labels(*verdicts, score):
        return {"faithfulness": {"sentences": [{"text": f"S{i}.", "attested": v} for i, v in enumerate(verdicts)]}, "utility": {"score": score}}

    records = [
        {"id": "h1", "gold_passages": ["p"], "retrieved": ["p"], "answer": "S0. S1.",
         "judge": labels(True, False, score=4), "human": labels(True, True, score=3)},
        {"id": "h2", "gold_passages": ["p"], "retrieved": ["p"], "answer": "S0. S1.",
         "judge": labels(True, True, score=5), "human": labels(True, True, score=5)},
    ]
    path = write_jsonl(tmp_path / "h.jsonl", None, records)
    assert main(["report", str(path), "--format", "json"]) == 0
    calibration = json.loads(capsys.readouterr().out)["calibration"]["A"]
    # 4 sentence pairs, 3 agree; utility 1 of 2 exact, both within ±1, mean |Δ| 0.5.
    assert (calibration["answers"], calibration["sentences"], calibration["sentence_agreement"]) == (2, 4, 0.75)
    assert (calibration["utility_exact"], calibration["utility_within_one"], calibration["utility_mean_abs_diff"]) == (0.5, 1.0, 0.5)
    assert main(["report", str(path)]) == 0
    assert "A: 2 answers, 4 sentence pairs: 75.0% agree" in capsys.readouterr().out


def test_the_text_report_of_the_sample_fits_an_80_column_terminal(capsys):
    from ragtui.cli.tui import sample_inputs

    sample = sample_inputs()
    args = ["report", str(sample["a"]), str(sample["b"]), "--gold", str(sample["gold"]), "--config", str(sample["config"])]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert any(line.startswith("recall@5 ") for line in lines)


def test_causes_with_equal_counts_are_listed_by_name_after_the_larger_ones(tmp_path, write_jsonl, capsys):
    gold = tmp_path / "gold.yaml"
    gold.write_text(yaml.safe_dump(GOLD), encoding="utf-8")
    a = write_jsonl(tmp_path / "a.jsonl", {"name": "a"}, [_record(i, hit=True) for i in range(40)])
    # B: 3 questions lose their gold passage (retrieval), 3 others an attested answer
    # (generation, the same passages), 6 more go missing: 6, then 3 and 3 ordered by name.
    b_records = [_record(i, hit=not 0 <= i < 3, attested=not 3 <= i < 6) for i in range(34)]
    b = write_jsonl(tmp_path / "b.jsonl", {"name": "b"}, b_records)
    assert main(["report", str(a), str(b), "--gold", str(gold), "--format", "json"]) == 0
    causes = json.loads(capsys.readouterr().out)["regressed_by_cause"]
    assert list(causes.items()) == [("missing", 6), ("generation_same_passages", 3), ("retrieval", 3)]
