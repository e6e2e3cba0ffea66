"""Labelling by keyboard: the label keys, the calibration queue (L) and the calibration screen (C)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from textual import events
from textual.widgets import Static

from ragtui.cli import main
from ragtui.core.loading.inputs import default_labels_path
from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.models.session import Session
from ragtui.ui.screens.calibration import CalibrationScreen
from ragtui.ui.screens.calibration_queue import CalibrationQueueScreen
from ragtui.ui.screens.question import QuestionScreen
from ragtui.ui.screens.verdicts import VerdictScreen
from ragtui.ui.widgets.label_bar import LabelBar
from tests.ui.conftest import text_of, wait_until_loaded

REPO = Path(__file__).resolve().parents[2]


def _events(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def _bar(app) -> str:
    return str(app.screen.query_one(LabelBar).render())


async def test_L_opens_the_queue_of_B_and_plus_minus_label_the_focused_sentence_as_sampled(two_runs):
    async with RagtuiApp(Session(two_runs)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("L")
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, CalibrationQueueScreen) and screen.side == "B"
        first = screen.question_id
        assert screen.sentence_at["B"] == 0
        await pilot.press("plus")
        await pilot.pause()
        assert screen.sentence_at["B"] == 1  # the focus moved on to the next sentence
        await pilot.press("minus")
        await pilot.pause()
    events = _events(default_labels_path(two_runs.b))
    assert [(e["id"], e["run"], e["sentence"], e["human"], e["sampled"]) for e in events] == [
        (first, "candidate", 0, True, True),
        (first, "candidate", 1, False, True),
    ]


async def test_an_answer_labelled_in_full_moves_the_queue_to_the_next(two_runs):
    async with RagtuiApp(Session(two_runs)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("L")
        await pilot.pause()
        screen = pilot.app.screen
        first, second = screen.question_ids[:2]
        row = screen.data.rows["B"]
        presses = ["plus"] * len(row["judge_sentences"] or []) if row["judged"] else []
        for key in [*presses, "4"]:
            await pilot.press(key)
            await pilot.pause()
        assert screen.question_id == second and screen.labelled_here == 1
        assert "2 of" in str(screen.query_one("#queue-banner", Static).render())
    assert [e for e in _events(default_labels_path(two_runs.b)) if "utility" in e][0] | {"at": None} == {
        "id": first, "run": "candidate", "utility": 4, "sampled": True, "at": None,
    }


async def test_labels_made_in_the_question_view_are_not_sampled_and_0_clears_them(two_runs):
    from ragtui.ui.screens.dashboard import DashboardScreen

    async with RagtuiApp(Session(two_runs)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        assert isinstance(pilot.app.screen, DashboardScreen)
        pilot.app.push_screen(QuestionScreen(pilot.app.comparison, ["p2"], 0))
        await pilot.pause()
        await pilot.press("minus")
        await pilot.press("3")
        await pilot.pause()
        assert "not from the queue" in _bar(pilot.app) and "utility 3" in _bar(pilot.app)
        await pilot.press("k", "0")  # back to the labelled sentence, clear it
        await pilot.pause()
        await pilot.press("0")  # no sentence label left there: clears the utility
        await pilot.pause()
        assert "utility ·" in _bar(pilot.app)
    events = _events(default_labels_path(two_runs.b))
    assert [(e.get("sentence"), e.get("human"), e.get("utility"), e["sampled"]) for e in events] == [
        (0, False, None, False), (None, None, 3, False), (0, None, None, False), (None, None, None, False),
    ]


async def test_the_verdict_inspector_labels_its_focused_sentence_with_j_and_k(two_runs):
    async with RagtuiApp(Session(two_runs)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        pilot.app.push_screen(VerdictScreen(pilot.app.comparison, "p2", "A", sentence=0))
        await pilot.pause()
        await pilot.press("j", "j", "minus")
        await pilot.pause()
        assert "3✗" in _bar(pilot.app)
    assert [(e["run"], e["sentence"], e["human"], e["sampled"]) for e in _events(default_labels_path(two_runs.a))] == [
        ("baseline", 2, False, False),
    ]


async def test_a_labels_file_that_cannot_be_written_is_a_message_naming_labels(fixture_paths, tmp_path, toasts):
    blocked = tmp_path / "a_file"
    blocked.write_text("x")
    p = fixture_paths
    inputs = Inputs(a=p["a"], b=p["b"], gold=p["gold"], config=p["config"], labels=blocked / "labels.jsonl")
    async with RagtuiApp(Session(inputs)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("L")
        await pilot.pause()
        await pilot.press("4")
        await pilot.pause()
        assert any("--labels FILE" in m and "cannot write labels" in m for m in toasts)
        assert "utility ·" in _bar(pilot.app)  # nothing recorded


async def test_help_lists_the_label_keys_and_the_calibration_keys(two_runs):
    async with RagtuiApp(Session(two_runs)).run_test(size=(80, 24)) as pilot:
        await wait_until_loaded(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        shown = text_of(pilot.app.screen)
        assert "Person: the focused sentence is attested by the passages" in shown
        assert "The calibration queue: label a random sample of answers by keyboard" in shown
        assert "The judge against people" in shown


def _sample_copy(tmp_path: Path) -> Inputs:
    root = tmp_path / "sample"
    root.mkdir()
    for name in ("baseline.jsonl", "candidate.jsonl", "gold.yaml", "ragtui.yaml"):
        shutil.copy(REPO / "sample_data" / name, root / name)
    return Inputs(a=root / "baseline.jsonl", b=root / "candidate.jsonl", gold=root / "gold.yaml", config=root / "ragtui.yaml")


async def _type_quickly(pilot, keys: list[str]) -> None:
    """Type `keys` as a quick typist does: all in the app's queue at once, then wait for idle.

    `pilot.press` waits for the screen to settle after every key, so the app redraws and
    lays out the question view once per key; here it handles the keys one after the other
    (each through its binding, as from a terminal) and draws once. One answer's keys at a
    time: the next answer's keys depend on what the queue shows after the `4`.
    """
    characters = {"plus": "+", "minus": "-"}
    for key in keys:
        pilot.app.post_message(events.Key(key, characters.get(key, key)))
    await pilot.pause()


async def _open_the_queue(pilot) -> CalibrationQueueScreen:
    """Wait for the load, press L: the calibration queue."""
    await wait_until_loaded(pilot)
    await pilot.press("L")
    await pilot.pause()
    assert isinstance(pilot.app.screen, CalibrationQueueScreen)
    return pilot.app.screen


async def test_thirty_answers_labelled_from_the_queue_give_bias_and_corrected_faithfulness_for_B(tmp_path, capsys):
    inputs = _sample_copy(tmp_path)
    async with RagtuiApp(Session(inputs)).run_test(size=(80, 24)) as pilot:
        queue = await _open_the_queue(pilot)
        while queue.labelled_here < 30:
            row = queue.data.rows["B"]
            # The person agrees with the judge, except on the last sentence of every third
            # answer, which the judge called attested and the person does not.
            said = (row["judge_sentences"] or []) if row["judged"] else []
            keys = [
                "plus" if sentence["attested"] and not (index == len(said) - 1 and queue.index % 3 == 0) else "minus"
                for index, sentence in enumerate(said)
            ]
            await _type_quickly(pilot, [*keys, "4"])
        await pilot.press("escape", "C")
        await pilot.pause()
        assert isinstance(pilot.app.screen, CalibrationScreen)
        shown = str(pilot.app.screen.query_one("#calibration-B", Static).render())
        assert "bias (judge − person) faithfulness +" in shown
        assert "faithfulness 84.4% · corrected " in shown
    assert main(["report", str(inputs.a), str(inputs.b), "--format", "json"]) == 0
    corrected = json.loads(capsys.readouterr().out)["metrics"]["faithfulness"]["corrected"]["B"]
    assert corrected["answers"] >= 20 and corrected["value"] < 0.844


def test_calibration_screen_at_80x24_shows_agreement_bias_and_corrected_values(snap_compare, fixture_paths, monkeypatch):
    monkeypatch.chdir(fixture_paths["b"].parent)  # the labels file is then shown as `b.labels.jsonl`
    events = [
        {"id": "p2", "run": "candidate", "sentence": 0, "human": True, "sampled": True},
        {"id": "p2", "run": "candidate", "sentence": 1, "human": False, "sampled": True},
        {"id": "p3", "run": "candidate", "sentence": 0, "human": True, "sampled": True},
        {"id": "p3", "run": "candidate", "sentence": 1, "human": True, "sampled": True},
        {"id": "f1", "run": "candidate", "sentence": 0, "human": True, "sampled": True},
        {"id": "f1", "run": "candidate", "sentence": 1, "human": False, "sampled": True},
        {"id": "f1", "run": "candidate", "utility": 3, "sampled": True},
        {"id": "p3", "run": "candidate", "utility": 4, "sampled": True},
        {"id": "c1", "run": "candidate", "sentence": 0, "human": False, "sampled": False},
    ]
    default_labels_path(fixture_paths["b"]).write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    p = fixture_paths
    app = RagtuiApp(Session(Inputs(a=p["a"], b=p["b"], gold=p["gold"], config=p["config"])))

    async def open_calibration(pilot):
        await wait_until_loaded(pilot)
        await pilot.press("C")
        await pilot.pause()
        shown = str(pilot.app.screen.query_one("#calibration-B", Static).render())
        assert "labels 9 (8 from the queue)" in shown and "bias (judge − person)" in shown

    assert snap_compare(app, terminal_size=(80, 24), run_before=open_calibration)


def _label_six_answers_per_category(inputs: Inputs) -> None:
    """Sampled labels on the first six answers of each category in B's queue: the person
    agrees with the judge except on the last sentence of every third answer; utility 4 or 3 in turn."""
    from ragtui.core.measuring.calibration_queue import queue_order
    from ragtui.core.session import load_comparison

    questions = load_comparison(inputs).b.questions
    rows = {row["id"]: row for row in questions.iter_rows(named=True)}
    taken: dict[str, int] = {}
    events = []
    for qid in queue_order(questions):
        row = rows[qid]
        if taken.get(row["category"], 0) >= 6:
            continue
        taken[row["category"]] = taken.get(row["category"], 0) + 1
        said = (row["judge_sentences"] or []) if row["judged"] else []
        for index, sentence in enumerate(said):
            agree = not (index == len(said) - 1 and len(events) % 3 == 0)
            events.append({"id": qid, "run": "candidate", "sentence": index, "human": bool(sentence["attested"]) == agree, "sampled": True})
        if row["utility_q"] is not None:
            events.append({"id": qid, "run": "candidate", "utility": 4 - sum(taken.values()) % 2, "sampled": True})
    default_labels_path(inputs.b).write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")


async def test_once_every_category_has_five_labelled_answers_the_queue_offers_the_label_plans_category_first(tmp_path, capsys):
    inputs = _sample_copy(tmp_path)
    async with RagtuiApp(Session(inputs)).run_test(size=(80, 24)) as pilot:
        queue = await _open_the_queue(pilot)
        proportional = list(queue.question_ids)
        assert queue.planned is None  # no labels yet: the proportional order
    _label_six_answers_per_category(inputs)
    # The plan as the JSON report gives it: the next category with the largest gap of the two metrics.
    assert main(["report", str(inputs.a), str(inputs.b), "--gold", str(inputs.gold), "--config", str(inputs.config), "--format", "json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    plans = [(metrics[m]["corrected"]["label_plan"]["B"], metrics[m]["corrected"]["B"]) for m in ("faithfulness", "utility")]
    # Utility is stratified (every category holds 6 labelled answers); faithfulness is not:
    # "No answer in corpus" has a single answer with sentences, so its plan does not lead.
    assert [run["stratified"] for _, run in plans] == [False, True]
    nexts = [plan["next"] for plan, run in plans if run["stratified"] and plan["next"] is not None]
    wanted = max(nexts, key=lambda n: n["more"])["category"]  # max keeps the first of a tie: faithfulness
    async with RagtuiApp(Session(inputs)).run_test(size=(80, 24)) as pilot:
        queue = await _open_the_queue(pilot)
        assert queue.planned == wanted
        categories = {row["id"]: row["category"] for row in _categories_of(inputs)}
        ids = list(queue.question_ids)
        count = sum(categories[qid] == wanted for qid in ids)
        assert count > 0 and all(categories[qid] == wanted for qid in ids[:count])
        # The rest keeps the queue's order: the proportional queue without the labelled answers.
        left = [qid for qid in proportional if qid in set(ids)]
        assert ids == [qid for qid in left if categories[qid] == wanted] + [qid for qid in left if categories[qid] != wanted]
        assert categories[queue.question_id] == wanted


def _categories_of(inputs: Inputs) -> list[dict]:
    from ragtui.core.session import load_comparison

    return load_comparison(inputs).b.questions.select("id", "category").to_dicts()
