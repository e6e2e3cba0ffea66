"""Fixing the gold set from the question view: the edits log, the recomputed dashboard, `gold apply`.

The comparison is the UI tests' hand-made one (tests/ui/conftest.py) over the gold set of
`gold_fixtures/gold.yaml`; `gold_fixtures/gold.edited.yaml` is that file edited by hand
as the keys below edit it: p1 gets noise_p1_0 as a second gold passage (B ranks it
first, so B's recall of p1 goes from a miss to a hit) and moves from procedurale to
factuelle_courte.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from textual.pilot import Pilot

from ragtui.cli import main
from ragtui.core.comparing.compare import Comparison
from ragtui.core.session import Inputs
from ragtui.ui.app import RagtuiApp
from ragtui.ui.screens.dashboard import DashboardScreen
from ragtui.ui.screens.gold_menu import GoldMenu
from ragtui.ui.screens.question import QuestionScreen
from tests.ui.conftest import poll_until, wait_until_loaded, write_fixture

FIXTURES = Path(__file__).parent / "gold_fixtures"
REPO = Path(__file__).resolve().parents[2]


def _paths(root: Path) -> dict[str, Path]:
    paths = write_fixture(root)
    shutil.copy(FIXTURES / "gold.yaml", paths["gold"])
    corpus = root / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "gold_p1", "text": "Le passage qui repond a p1, du corpus.", "document": "reglement"}) + "\n", encoding="utf-8")
    return paths | {"corpus": corpus}


def _inputs(paths: dict[str, Path]) -> Inputs:
    return Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"], corpus=paths["corpus"], cache=False)


def _edits(paths: dict[str, Path]) -> list[dict]:
    log = paths["gold"].with_name("gold.edits.jsonl")
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


async def _question_view_open(pilot: Pilot[int], app: RagtuiApp) -> Comparison:
    """Wait for the load and the question view of `--question`; the comparison it shows."""
    await wait_until_loaded(pilot)
    await poll_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
    assert app.comparison is not None
    return app.comparison


async def _recomputed(pilot: Pilot[int], app: RagtuiApp, before: Comparison) -> Comparison:
    """Wait for the comparison recomputed after a gold edit, with its intervals."""
    await poll_until(pilot, lambda: app.comparison is not before and app.comparison is not None and not app.comparison.intervals_pending)
    assert app.comparison is not None and app.comparison is not before
    return app.comparison


async def test_a_gold_passage_and_a_category_edited_in_the_question_view_change_the_dashboard_and_apply_to_the_hand_edited_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths = _paths(tmp_path / "r")
    app = RagtuiApp(_inputs(paths), question="p1")
    async with app.run_test(size=(80, 24)) as pilot:
        first = await _question_view_open(pilot, app)
        assert first is not None
        assert (first.categories["procedurale"].n, first.categories["factuelle_courte"].n) == (3, 3)
        recall_b = first.metrics["recall@5"].b
        assert recall_b is not None and recall_b.value == pytest.approx(6 / 9)  # B misses p1, c1 and c3 (missing) of 9 answerable

        await pilot.press("g")
        assert isinstance(app.screen, GoldMenu)
        await pilot.press("1", *"B answers from it", "enter")
        second = await _recomputed(pilot, app, first)
        recall_b = second.metrics["recall@5"].b
        assert recall_b is not None and recall_b.value == pytest.approx(7 / 9)  # p1 is now a hit for B

        await pilot.press("G", "c", *"a fact, not a procedure", "enter", "a")
        third = await _recomputed(pilot, app, second)
        assert (third.categories["procedurale"].n, third.categories["factuelle_courte"].n) == (2, 4)
        dashboard = next(s for s in app.screen_stack if isinstance(s, DashboardScreen))
        assert dashboard.data.comparison is third
        assert "gold: 2 edit(s) of gold.edits.jsonl not yet in gold.yaml, applied (write them with `ragtui gold apply`)" in dashboard.data.warnings

    edits = _edits(paths)
    assert [(e["question"], e["field"], e["before"], e["after"], e["why"]) for e in edits] == [
        ("p1", "gold_passages", ["gold_p1"], ["gold_p1", "noise_p1_0"], "B answers from it"),
        ("p1", "category", "procedurale", "factuelle_courte", "a fact, not a procedure"),
    ]
    assert all(e["who"] == os.environ.get("USER", e["who"]) and e["at"].endswith("Z") for e in edits)
    out = tmp_path / "edited.yaml"
    assert main(["gold", "apply", str(paths["gold"]), "-o", str(out)]) == 0
    capsys.readouterr()
    assert out.read_text(encoding="utf-8") == (FIXTURES / "gold.edited.yaml").read_text(encoding="utf-8")


async def test_u_undoes_the_last_gold_fix_and_the_dashboard_follows(tmp_path: Path) -> None:
    paths = _paths(tmp_path / "r")
    app = RagtuiApp(_inputs(paths), question="p1")
    async with app.run_test(size=(80, 24)) as pilot:
        first = await _question_view_open(pilot, app)
        await pilot.press("G", "u", "enter")  # unanswerable, no reason
        second = await _recomputed(pilot, app, first)
        assert second.categories["sans_reponse"].n == 4
        await pilot.press("u")
        assert (await _recomputed(pilot, app, second)).categories["sans_reponse"].n == 3
    assert [(e.get("field"), e.get("undo", False)) for e in _edits(paths)] == [("gold_passages", False), ("category", False), ("gold_passages", True)]


async def test_a_tag_is_added_from_the_fix_menu_and_shows_in_the_report_by_tag(tmp_path: Path) -> None:
    paths = _paths(tmp_path / "r")
    app = RagtuiApp(_inputs(paths), question="p1")
    async with app.run_test(size=(80, 24)) as pilot:
        first = await _question_view_open(pilot, app)
        assert first.tags == {}
        await pilot.press("G", "t", *"a table", "enter", *"tableau", "enter")
        second = await _recomputed(pilot, app, first)
        assert list(second.tags) == ["tableau"] and second.tags["tableau"].n == 1
    assert [(e["field"], e["before"], e["after"], e["why"]) for e in _edits(paths)] == [("tags", [], ["tableau"], "a table")]


async def test_a_gold_passage_not_retrieved_is_shown_with_its_corpus_text(tmp_path: Path) -> None:
    from tests.ui.conftest import text_of

    paths = _paths(tmp_path / "r")
    gold = paths["gold"].read_text(encoding="utf-8")
    paths["gold"].write_text(gold.replace("passages_verite: [gold_f1]", "passages_verite: [gold_f1, gold_p1]"), encoding="utf-8")
    app = RagtuiApp(_inputs(paths), question="f1")  # neither run retrieves gold_p1 for f1
    async with app.run_test(size=(160, 50)) as pilot:
        await wait_until_loaded(pilot)
        await poll_until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        await pilot.pause()
        text = text_of(app.screen)
        assert "gold, not retrieved (text from the corpus)" in text
        assert "gold_p1 Le passage qui repond a p1, du corpus." in text


def test_killing_the_app_right_after_an_edit_key_loses_no_edit(tmp_path: Path) -> None:
    import fcntl
    import select
    import struct
    import termios

    paths = _paths(tmp_path / "r")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    env = {**os.environ, "TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path)}
    argv = [sys.executable, "-m", "ragtui", "compare", str(paths["a"]), str(paths["b"]), "--gold", str(paths["gold"]),
            "--config", str(paths["config"]), "--question", "p1", "--no-cache"]
    process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=REPO, env=env, start_new_session=True)
    os.close(slave)
    output = b""

    def read_until(needle: bytes) -> None:
        nonlocal output
        deadline = time.monotonic() + 60
        start = len(output)
        while needle not in output[start:]:
            assert time.monotonic() < deadline, f"{needle!r} never came; last output: {output[-300:]!r}"
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:
                output += os.read(master, 65536)

    try:
        read_until(b"Question p1")
        os.write(master, b"G")
        read_until(b"unanswerable")
        os.write(master, b"u")
        read_until(b"Enter records")
        os.write(master, b"\r")
        read_until(b"saved")  # said once the line is on disk: killed now, nothing may be lost
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(master)
    assert [(e["question"], e["field"], e["after"]) for e in _edits(paths)] == [
        ("p1", "gold_passages", []), ("p1", "category", "sans_reponse"),
    ]


async def test_t_in_the_failure_list_cycles_the_gold_sets_tags() -> None:
    from ragtui.core.session import load_comparison
    from ragtui.ui.screens.failures import FailureListScreen
    from ragtui.ui.widgets.failure_table import FailureTable
    from tests.ui.triage_data import host_app

    sample = REPO / "sample_data"
    comparison = load_comparison(Inputs(a=sample / "baseline.jsonl", b=sample / "candidate.jsonl", gold=sample / "gold.yaml", cache=False))
    app = host_app(lambda: FailureListScreen(comparison, status="all"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        table = app.screen.query_one(FailureTable)
        assert table.rows.tags == ["acronyme", "tableau", "section_recente"]  # first appearance in the list
        await pilot.press("T")
        assert table.rows.filter.tag == "acronyme" and len(table.rows.ids()) == 23  # gold check counts 23
        await pilot.press("T")
        assert sorted(table.rows.ids()) == ["q068", "q069", "q070"]
        assert "T tableau" in str(app.screen.query_one("#failures-filters").render())
        await pilot.press("T", "T")
        assert table.rows.filter.tag is None and len(table.rows.ids()) == 120
