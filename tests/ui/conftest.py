"""Fixtures for the UI tests: a small hand-written comparison, and helpers to wait for it.

The gold set has 12 questions in the four known categories; run A (baseline) and run B
(candidate) are written with the core's own writer. Between them they hold every
failure kind, and B breaks a procedural question that A answered (gold passage pushed
out of the top 5): the regressed question the dashboard must lead to.

    id  category               A                          B
    f1  factuelle_courte       unfaithful                 pass                  fixed
    f2  factuelle_courte       false_abstention           pass                  fixed
    f3  factuelle_courte       pass                       judge_error           regressed
    p1  procedurale            pass                       retrieval_miss, low   regressed
    p2  procedurale            unfaithful                 pass                  fixed
    p3  procedurale            unfaithful                 pass                  fixed
    u1  sans_reponse           abstains                   answered_unanswerable regressed
    u2  sans_reponse           abstains                   abstains              passing
    u3  sans_reponse           abstains                   abstains              passing
    c1  contradiction_connue   retrieval_miss, unfaithful retrieval_miss        still failing
    c2  contradiction_connue   low_utility, unfaithful    low_utility           still failing
    c3  contradiction_connue   pass                       missing from B        regressed

B's answers are all attested (faithfulness improved: ▲), its utility is one point lower
almost everywhere (regressed: ▼), and recall drops by noise-sized amounts (~ with !).
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
import yaml
from textual.screen import Screen

from ragtui.core.loading.records import write_run_jsonl
from ragtui.core.session import Inputs

ABSTAIN = "Je ne trouve pas cette information."
CATEGORIES = {
    "f": "factuelle_courte",
    "p": "procedurale",
    "u": "sans_reponse",
    "c": "contradiction_connue",
}
IDS = ["f1", "f2", "f3", "p1", "p2", "p3", "u1", "u2", "u3", "c1", "c2", "c3"]


def gold_records() -> list[dict]:
    records = []
    for qid in IDS:
        unanswerable = qid.startswith("u")
        records.append(
            {
                "id": qid,
                "question": f"Question {qid} sur le reglement ?",
                "passages_verite": [] if unanswerable else [f"gold_{qid}"],
                "reponse_attendue": "abstention" if unanswerable else f"Reponse attendue {qid}.",
                "categorie": CATEGORIES[qid[0]],
            }
        )
    return records


def _retrieved(qid: str, gold_rank: int | None) -> list[dict]:
    """Five passages with the gold one at `gold_rank` (None: not in the top 5)."""
    items = [{"id": f"noise_{qid}_{i}", "text": f"Passage sans rapport {i}.", "score": 0.9 - i / 20} for i in range(6)]
    if gold_rank is not None:
        items.insert(gold_rank - 1, {"id": f"gold_{qid}", "text": f"Le passage qui repond a {qid}.", "score": 0.95})
    else:
        items.insert(5, {"id": f"gold_{qid}", "text": f"Le passage qui repond a {qid}.", "score": 0.4})
    return items[:7]


def _judge(model: str, attested: list[bool], utility: int) -> dict:
    return {
        "model": model,
        "faithfulness": {
            "sentences": [
                {"text": f"Phrase {i + 1}.", "attested": ok, "evidence": ["gold"] if ok else [], "reason": "ok" if ok else "not in the passages"}
                for i, ok in enumerate(attested)
            ]
        },
        "utility": {"score": utility, "reason": "scored"},
        "error": None,
    }


def _record(qid: str, judge_model: str, *, gold_rank: int | None = 1, attested=(True, True), utility=5,
            abstain=False, judge_error=False) -> dict:
    record = {"id": qid, "retrieved": _retrieved(qid, gold_rank)}
    if abstain:
        record["answer"] = ABSTAIN
        record["judge"] = {"model": judge_model, "utility": {"score": 4, "reason": "abstained"}, "error": None}
    else:
        record["answer"] = f"Reponse a {qid}. Deuxieme phrase."
        record["judge"] = _judge(judge_model, list(attested), utility)
    if judge_error:
        record["judge"] = {"model": judge_model, "error": "timeout after 60 s"}
    return record


def run_a_records(judge: str = "claude-sonnet-4") -> list[dict]:
    half = (True, True, False)  # one sentence of three not supported by the passages
    return [
        _record("f1", judge, attested=half),
        _record("f2", judge, abstain=True),
        _record("f3", judge),
        _record("p1", judge),
        _record("p2", judge, gold_rank=2, attested=half),
        _record("p3", judge, attested=half),
        _record("u1", judge, gold_rank=None, abstain=True),
        _record("u2", judge, gold_rank=None, abstain=True),
        _record("u3", judge, gold_rank=None, abstain=True),
        _record("c1", judge, gold_rank=None, attested=half),
        _record("c2", judge, utility=3, attested=half),
        _record("c3", judge),
    ]


def run_b_records(judge: str = "llama-3.3-70b-instruct") -> list[dict]:
    return [
        _record("f1", judge, utility=4),
        _record("f2", judge, utility=4),
        _record("f3", judge, judge_error=True),
        _record("p1", judge, gold_rank=None, utility=2),
        _record("p2", judge, gold_rank=2, utility=4),
        _record("p3", judge, utility=4),
        _record("u1", judge, gold_rank=None, utility=2),
        _record("u2", judge, gold_rank=None, abstain=True),
        _record("u3", judge, gold_rank=None, abstain=True),
        _record("c1", judge, gold_rank=None, utility=4),
        _record("c2", judge, utility=3),
    ]


META_A = {
    "name": "baseline",
    "created_at": "2026-11-20T09:12:00Z",
    "system": "chunking v1 (512 tokens), BM25",
    "generator_model": "llama-3.1-70b-instruct",
    "judge_model": "claude-sonnet-4",
    "k": 5,
}
META_B = {
    "name": "candidate",
    "created_at": "2026-11-27T14:30:00Z",
    "system": "chunking v2 (256 tokens), hybrid",
    "generator_model": "llama-3.1-70b-instruct",
    "judge_model": "llama-3.3-70b-instruct",  # same family as the generator: a warning
    "k": 5,
}
CONFIG = {
    "k": 5,
    "targets": {"recall@5": {"min": 0.8}, "faithfulness": {"min": 0.85}, "abstention": {"min": 0.9}, "utility": {"min": 4.0}},
    "regression": {"max_drop": 0.03, "confidence": 0.95},
}


def write_fixture(root: Path, *, meta_a: dict | None = None, meta_b: dict | None = None, gold: list[dict] | None = None) -> dict[str, Path]:
    """Write gold.yaml, config.yaml, a.jsonl and b.jsonl under `root`; returns their paths."""
    root.mkdir(parents=True, exist_ok=True)
    paths = {name: root / file for name, file in (("gold", "gold.yaml"), ("config", "ragtui.yaml"), ("a", "a.jsonl"), ("b", "b.jsonl"))}
    paths["gold"].write_text(yaml.safe_dump(gold or gold_records(), allow_unicode=True, sort_keys=False), encoding="utf-8")
    paths["config"].write_text(yaml.safe_dump(CONFIG, sort_keys=False), encoding="utf-8")
    write_run_jsonl(paths["a"], meta_a or META_A, run_a_records())
    write_run_jsonl(paths["b"], meta_b or META_B, run_b_records())
    return paths


@pytest.fixture(autouse=True)
def isolated_config_home(tmp_path_factory, monkeypatch) -> Path:
    """Every UI test gets an empty XDG config folder: no one's real themes or keys leak in."""
    home = tmp_path_factory.mktemp("xdg")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def steady_text_cursors(request, monkeypatch) -> None:
    """In a snapshot, a text field's cursor stands still.

    It blinks every half second: on a busy machine the screenshot came more than half a
    second after the last key and caught the cursor off (a mismatch that passed when run
    again). Only snapshot tests are changed; the others see the cursor as users do.
    """
    if "snap_compare" not in request.fixturenames:
        return
    from textual.widgets import Input

    created = Input.__init__

    def without_blink(self, *args, **kwargs) -> None:
        created(self, *args, **kwargs)
        self.set_reactive(Input.cursor_blink, False)

    monkeypatch.setattr(Input, "__init__", without_blink)


@pytest.fixture
def held_index_build(monkeypatch):
    """The search index of any comparison is built in a worker, and its build waits until
    the test sets the returned event: what a 100,000-question build looks like to the UI."""
    import threading

    from ragtui.core.triage import search
    from ragtui.ui.screens import triage

    monkeypatch.setattr(triage, "BACKGROUND_INDEX_FROM", 0)  # every comparison counts as large
    release = threading.Event()
    build = search.SearchIndex.__init__

    def held_build(self, comparison):
        release.wait(10)
        build(self, comparison)

    monkeypatch.setattr(search.SearchIndex, "__init__", held_build)
    return release


@pytest.fixture
def fixture_paths(tmp_path) -> dict[str, Path]:
    return write_fixture(tmp_path / "runs")


@pytest.fixture
def two_runs(fixture_paths) -> Inputs:
    """Inputs for A (baseline) against B (candidate)."""
    p = fixture_paths
    return Inputs(a=p["a"], b=p["b"], gold=p["gold"], config=p["config"])


@pytest.fixture
def one_run(fixture_paths) -> Inputs:
    """Inputs for run A alone (`ragtui open`)."""
    p = fixture_paths
    return Inputs(a=p["a"], gold=p["gold"], config=p["config"])


def held_until(release) -> bool:
    """In a worker's thread: wait for the Event `release`; False when the worker was
    cancelled meanwhile (the app quit with the work held)."""
    from textual.worker import get_current_worker

    while not release.wait(0.02):
        if get_current_worker().is_cancelled:
            return False
    return True


class HeldWork:
    """A worker's work held until a test sets `release`: what each call was about (`calls`),
    and `started` once one is held. Each claim of a test is then about order, not time."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.calls: list = []

    def hold(self) -> bool:
        """In the worker's thread: say a call is held, wait for `release`; False when the
        worker was cancelled meanwhile (the app quit with the work held)."""
        self.started.set()
        return held_until(self.release)


@pytest.fixture
def held_rows(monkeypatch):
    """Each question's rows read in a worker's thread wait for `release`; `calls` holds
    (run name, question id) of each read. Rows read on the UI thread are not held."""
    from ragtui.core.measuring.evaluate import Evaluation

    held = HeldWork()
    question = Evaluation.question

    def held_question(self, question_id, *, texts=True):
        if texts and threading.current_thread() is not threading.main_thread():
            held.calls.append((self.run.name, question_id))
            if not held.hold():  # the app quit with the read held
                return None
        return question(self, question_id, texts=texts)

    monkeypatch.setattr(Evaluation, "question", held_question)
    yield held
    held.release.set()


async def poll_until(pilot, condition, seconds: float = 20.0) -> None:
    """Pause in steps of 50 ms until `condition()` holds, for at most `seconds` (a busy
    machine): for what a worker's thread brings, which no message-loop turn waits for."""
    for _ in range(round(seconds / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)


async def wait_until_loaded(pilot, *, intervals: bool = True) -> None:
    """Wait for the loading worker, then for the screen it leads to (no sleeps); with
    `intervals`, also for the intervals the dashboard fills in after its first paint."""
    from textual.worker import WorkerFailed

    from ragtui.ui.screens.dashboard import DashboardScreen
    from ragtui.ui.screens.error import ErrorScreen

    def settled() -> bool:
        if any(isinstance(screen, ErrorScreen) for screen in pilot.app.screen_stack):
            return True
        if not any(isinstance(screen, DashboardScreen) for screen in pilot.app.screen_stack):
            return False
        if not intervals or pilot.app.comparison is None:
            return True
        shown = [screen.data.comparison for screen in pilot.app.screen_stack if isinstance(screen, DashboardScreen)]
        return not pilot.app.comparison.intervals_pending and all(comparison is pilot.app.comparison for comparison in shown)

    for _ in range(50):  # a few message-loop turns: the result message, the screen switch, the intervals
        # Without `intervals`, never wait on their worker: a test may be holding it.
        workers = [worker for worker in pilot.app.workers if intervals or worker.group != "intervals"]
        try:
            if workers:  # (an empty list would mean every worker to Textual)
                await pilot.app.workers.wait_for_complete(workers)
        except WorkerFailed:  # a crashing load: the app shows it as an error screen
            pass
        await pilot.pause()
        if settled():
            break
    # The category grid measures its new cells when its own message queue next runs dry:
    # snapshots taken two idle turns later (a busy machine) still caught the widths of
    # the values without the intervals, which cut the ✓ ✗ ? and ◆ off.
    for _ in range(50):
        await pilot.pause()
        if _grids_measured(pilot.app.screen):
            break


def _grids_measured(screen: Screen) -> bool:
    """Whether every category grid on `screen` has a column as wide as each of its cells."""
    from rich.text import Text

    from ragtui.ui.widgets.category_grid import CategoryGrid

    def width(cell) -> int:
        return cell.cell_len if isinstance(cell, Text) else Text(str(cell)).cell_len

    grids = list(screen.query(CategoryGrid).results(CategoryGrid))
    # DataTable measures new rows and cells on its next idle: until then (its own pending
    # sets, Textual's private state) the widths read below may still be the old ones.
    if any(grid._require_update_dimensions or grid._new_rows or grid._updated_cells for grid in grids):
        return False
    return all(
        width(cell) <= column.content_width
        for grid in grids
        for row_key in grid.rows
        for column, cell in zip(grid.ordered_columns, grid.get_row(row_key), strict=False)
    )


def text_of(node) -> str:
    """The plain text a widget and its children show (Static contents, button labels)."""
    from textual.widgets import Button, Static

    parts = []
    for widget in [node, *node.query("*")]:
        if isinstance(widget, Button):
            parts.append(str(widget.label))
        elif isinstance(widget, Static):
            parts.append(str(widget.render()))
        elif hasattr(widget, "render") and type(widget).__name__ == "RecallCurve":
            parts.append(str(widget.render()))
    return "\n".join(parts)


@pytest.fixture(scope="session")
def _sample_loads() -> dict:
    """The bundled sample's loads made in this test process, by what was asked."""
    return {}


@pytest.fixture
def sample(_sample_loads, monkeypatch) -> Inputs:
    """The bundled sample (120 French HR questions), as `ragtui` with no argument opens it.

    The sample's files are only read, so the loads of its runs are made once per test
    process and handed to every app started on them: the loader's future (as `launch`
    hands the app a load it started before importing Textual), the intervals computed
    after the first paint, and the trade-off's comparisons with the other candidates. The app still goes through its loading screen,
    its workers and their messages; only the reading, measuring and comparing of the same
    files is not done again. Tests that write beside the runs (labels) copy the sample.
    """
    from ragtui.cli.tui import sample_inputs
    from ragtui.core import session
    from ragtui.ui import app as app_module
    from ragtui.ui import loader
    from ragtui.ui.models.session import Session

    paths = sample_inputs()
    if not paths["a"].is_file():
        pytest.skip("the bundled sample (sample_data/) is not there")
    folder = paths["a"].parent

    def only_the_sample(inputs: Inputs, *more) -> bool:
        files = [*inputs.runs, *more, inputs.gold, inputs.config]
        return inputs.labels is None and all(isinstance(f, Path) and f.parent == folder for f in files if f is not None)

    def shared(function):
        def once(given: Inputs | Session, *more):
            inputs = given.inputs if isinstance(given, Session) else given
            assert inputs is not None
            # A test that holds or breaks the core's load (patching it) gets its own.
            patched = getattr(session.load_comparison, "__module__", "") != session.__name__
            if patched or not only_the_sample(inputs, *(more[0] if more else ())):
                return function(given, *more)
            key = (function.__name__, inputs, *(tuple(m) for m in more))
            if key not in _sample_loads:
                _sample_loads[key] = function(given, *more)
            found = _sample_loads[key]
            return list(found) if isinstance(found, list) else found  # a list each caller may extend

        return once

    def shared_intervals(function):
        def once(data):
            # A test that holds or breaks the intervals (patching the loader) gets its own.
            patched = getattr(loader.fill_intervals, "__qualname__", "") != "fill_intervals"
            loaded = [f.result() for key, f in _sample_loads.items() if key[0] == "start_loading" and f.done() and not f.exception()]
            if patched or not any(data is found for found in loaded):
                return function(data)
            key = ("start_intervals", id(data))
            if key not in _sample_loads:
                _sample_loads[key] = function(data)
            return _sample_loads[key]

        return once

    monkeypatch.setattr(app_module, "start_loading", shared(app_module.start_loading))
    monkeypatch.setattr(app_module, "start_intervals", shared_intervals(app_module.start_intervals))
    monkeypatch.setattr(session, "load_comparisons", shared(session.load_comparisons))
    return Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"])


@pytest.fixture
def sample_single(sample) -> Inputs:
    """The sample's baseline alone (`ragtui open sample_data/baseline.jsonl`)."""
    return Inputs(a=sample.a, gold=sample.gold, config=sample.config)


class RecordingFailures(Screen):
    """Stands in for the failure list: records the filters it was opened with."""

    opened: list[dict] = []

    def __init__(self, comparison, *, category=None, failure_kind=None, status=None, gold=None, session=None):
        super().__init__()
        RecordingFailures.opened.append({"category": category, "failure_kind": failure_kind, "status": status})


@pytest.fixture
def recorded_failures(monkeypatch):
    """Replace FailureListScreen (looked up when opened) by a recorder; returns its log."""
    from ragtui.ui.screens import failures

    RecordingFailures.opened = []
    monkeypatch.setattr(failures, "FailureListScreen", RecordingFailures)
    return RecordingFailures.opened

# ---- triage screens (failure list, question view, verdict inspector) -------------------------
# Data and helpers live in triage_data.py; these fixtures only build them.


@pytest.fixture
def toasts(monkeypatch) -> list[str]:
    """Every notification the app shows, in order (recorded on the way to Textual's own
    `notify`, so tests need not read the app's private list of notifications)."""
    from textual.app import App

    shown: list[str] = []
    original = App.notify

    def notify(self, message, *args, **kwargs):
        shown.append(str(message))
        return original(self, message, *args, **kwargs)

    monkeypatch.setattr(App, "notify", notify)
    return shown


@pytest.fixture
def triage(tmp_path):
    """The hand-written triage comparison (see triage_data.py for its table)."""
    from tests.ui.triage_data import triage_comparison

    return triage_comparison(tmp_path / "triage")


@pytest.fixture
def hostile_triage(tmp_path):
    """The triage comparison with escapes, markup and bidi overrides in every text."""
    from tests.ui.triage_data import triage_comparison

    return triage_comparison(tmp_path / "hostile", hostile=True)


@pytest.fixture(scope="session")
def big_comparison():
    """100,000 synthetic questions, A against B (built once per session, ~4 s)."""
    from tests.ui.triage_data import synthetic_comparison

    return synthetic_comparison(100_000)

