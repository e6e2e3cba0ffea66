"""`ragtui report --labels`: calibration and corrected metrics from the labels sidecar."""

from __future__ import annotations

import json

import pytest

from ragtui.cli import main


def _record(i: int, verdicts: tuple[bool, ...], score: int) -> dict:
    return {
        "id": f"q{i}", "category": "procedurale", "gold_passages": ["p"], "retrieved": ["p"], "answer": "S. " * len(verdicts),
        "judge": {"faithfulness": {"sentences": [{"text": f"S{j}.", "attested": v} for j, v in enumerate(verdicts)]},
                  "utility": {"score": score}},
    }


JUDGED = ((True, True), (True, True, True), (True,), (True, True))
PERSON = ((True, False), (True, True, False), (True,), (False, True))
SCORES = (5, 4, 4, 5)


def _labelled(tmp_path, write_jsonl, copies: int):
    """`copies` × four answers: a judge that says every sentence is attested; a person who disagrees on 3 of 8."""
    records = [_record(4 * c + i, JUDGED[i], SCORES[i]) for c in range(copies) for i in range(4)]
    a = write_jsonl(tmp_path / "a.jsonl", {"name": "base"}, records)
    b = write_jsonl(tmp_path / "b.jsonl", {"name": "cand"}, records)
    person = {f"q{4 * c + i}": PERSON[i] for c in range(copies) for i in range(4)}
    events = []
    for qid, verdicts in person.items():
        events += [{"id": qid, "run": "cand", "sentence": j, "human": v, "sampled": True, "at": "t"} for j, v in enumerate(verdicts)]
        events.append({"id": qid, "run": "cand", "utility": 4, "sampled": True, "at": "t"})
    labels = tmp_path / "labels.jsonl"
    labels.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    return a, b, labels


@pytest.fixture
def labelled(tmp_path, write_jsonl):
    """Twelve answers, every one labelled: past the minimum a correction needs."""
    return _labelled(tmp_path, write_jsonl, copies=3)


def test_under_ten_labelled_answers_the_report_says_too_few_to_correct_instead_of_a_value(tmp_path, write_jsonl, capsys):
    a, b, labels = _labelled(tmp_path, write_jsonl, copies=1)
    assert main(["report", str(a), str(b), "--labels", str(labels), "--format", "json"]) == 0
    corrected = json.loads(capsys.readouterr().out)["metrics"]["utility"]["corrected"]["B"]
    assert corrected["value"] is None and corrected["ci"] is None
    assert corrected["too_few_to_correct"] is True and corrected["labels"] == 4 and corrected["minimum_answers"] == 10
    assert main(["report", str(a), str(b), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "utility B: 4.50 · 4 labels — too few to correct" in out
    assert "corrected 4.00" not in out


def test_with_every_answer_labelled_the_corrected_value_is_the_peoples_mean(labelled, capsys):
    a, b, labels = labelled
    assert main(["report", str(a), str(b), "--labels", str(labels), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    corrected = report["metrics"]["faithfulness"]["corrected"]
    assert corrected["A"] is None and corrected["delta"] is None and corrected["delta_ci"] is None
    assert corrected["B"]["value"] == pytest.approx(5 / 8, abs=1e-4)  # 5 of 8 sentences attested by the person
    assert (corrected["B"]["labels"], corrected["B"]["lambda"]) == (24, 0.0)
    assert report["metrics"]["utility"]["corrected"]["B"]["value"] == pytest.approx(4.0)
    calibration = report["calibration"]["B"]
    assert calibration["faithfulness_bias"]["value"] == pytest.approx(3 / 8, abs=1e-4)  # judge − person
    assert calibration["utility_bias"]["value"] == pytest.approx(0.5)
    assert calibration["confusion"]["judge_yes_person_no"] == 9
    assert calibration["labels_sampled"] == 36 and report["calibration"]["A"] is None


def test_text_report_shows_bias_and_the_corrected_value_beside_the_raw_one(labelled, capsys):
    a, b, labels = labelled
    assert main(["report", str(a), str(b), "--labels", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "faithfulness +37.5 pts" in out
    assert "faithfulness B: 100.0% · corrected 62.5% (" in out
    assert all(len(line) <= 80 for line in out.splitlines())


def test_labels_default_to_the_sidecar_beside_each_run(labelled, capsys):
    a, b, labels = labelled
    labels.rename(b.with_name("b.labels.jsonl"))
    assert main(["report", str(a), str(b), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["metrics"]["faithfulness"]["corrected"]["B"]["labels"] == 24


def test_a_bad_labels_file_exits_2_naming_line_and_field(labelled, capsys):
    a, b, labels = labelled
    labels.write_text('{"id": "q0", "run": "cand", "sentence": -1, "human": true}\n', encoding="utf-8")
    assert main(["report", str(a), str(b), "--labels", str(labels)]) == 2
    assert f"{labels}:1: sentence: expected a sentence index ≥ 0, found -1" in capsys.readouterr().err


def test_corrected_delta_uses_both_runs_and_both_uncertainties(labelled, capsys):
    a, b, labels = labelled
    text = labels.read_text(encoding="utf-8")
    labels.write_text(text + text.replace('"cand"', '"base"').replace('"human": false', '"human": true'), encoding="utf-8")
    assert main(["report", str(a), str(b), "--labels", str(labels), "--format", "json"]) == 0
    corrected = json.loads(capsys.readouterr().out)["metrics"]["faithfulness"]["corrected"]
    assert corrected["A"]["value"] == pytest.approx(1.0) and corrected["delta"] == pytest.approx(-3 / 8, abs=1e-4)
    low, high = corrected["delta_ci"]
    b_low, b_high = corrected["B"]["ci"]
    assert low < -3 / 8 < high and high - low >= b_high - b_low - 1e-9


def test_a_judge_that_attests_everything_is_reported_too_weak_to_help_with_a_label_plan(labelled, capsys):
    a, b, labels = labelled
    assert main(["report", str(a), str(b), "--labels", str(labels), "--format", "json"]) == 0
    corrected = json.loads(capsys.readouterr().out)["metrics"]["faithfulness"]["corrected"]
    run = corrected["B"]
    # The judge's values never vary: λ = 0, and its 12 labelled answers are worth 12, no more.
    assert run["lambda"] == 0.0 and run["effective_labels"] == pytest.approx(12.0)
    assert run["weak_judge"] is True and run["stratified"] is False
    plan = corrected["label_plan"]["B"]
    assert plan["target_half_width"] == pytest.approx(0.03)
    assert plan["by_category"]["procedurale"]["have"] == 12
    assert main(["report", str(a), str(b), "--labels", str(labels)]) == 0
    assert "the judge is too weak to help: 12 labelled answers are worth 12.0" in " ".join(capsys.readouterr().out.split())


def test_every_interval_heading_names_the_configured_confidence_not_95(labelled, tmp_path, capsys):
    a, b, labels = labelled
    config = tmp_path / "ragtui.yaml"
    config.write_text("regression:\n  max_drop: 0.03\n  confidence: 0.9\n", encoding="utf-8")
    assert main(["report", str(a), str(b), "--labels", str(labels), "--config", str(config)]) == 0
    text = capsys.readouterr().out
    assert "Δ pts (90% CI)" in text and "(PPI++, 90% CI)" in text
    assert main(["report", str(b), "--labels", str(labels), "--config", str(config)]) == 0  # one run: no power section to read it from
    assert "(PPI++, 90% CI)" in capsys.readouterr().out
    assert main(["report", str(a), str(b), "--labels", str(labels), "--config", str(config), "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "| Δ (90% CI) |" in markdown and "(PPI++, 90% CI)" in markdown
    page = tmp_path / "report.html"
    assert main(["report", str(a), str(b), "--config", str(config), "--format", "html", "--output", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert "<th>Δ (90% CI)</th>" in html
    assert "95% CI" not in text + markdown + html and "95 %" not in text + markdown + html
