"""Regenerate docs/screenshots/*.svg from the bundled sample, with real key presses.

`python tools/make_screenshots.py` runs the app headless: the dashboard at 160×48, then,
at 80×24, the README's walk-through: dashboard → category grid → Procedural × Faithfulness → the first
regressed question → the verdict inspector; then its second path: mark the question,
copy a command that reopens it, export the marks for a PR. Each step is saved as an SVG.
The marks go to a temporary folder, never beside the bundled sample. Last, the
calibration workflow on a copy of the sample (so no labels file lands in sample_data/):
`L`, 30 answers labelled by key presses — a scripted person who agrees with the judge
except on the last sentence of every third answer — then `C`. And the trade-off view of
the sample's five runs (baseline, candidate and its k sweep): `T` at 80×24.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path

from ragtui.cli.tui import sample_inputs, sample_sweep
from ragtui.core.loading.inputs import Inputs
from ragtui.ui.app import RagtuiApp

OUT = Path(__file__).resolve().parents[1] / "docs" / "screenshots"
WALK = (
    ("dashboard-80x24", []),
    ("walk-1-failures", ["c", "down", "right", "right", "right", "enter"]),
    ("walk-2-question", ["enter"]),
    ("walk-3-verdicts", ["v"]),
    # The second path: mark, yank, export.
    ("walk-4-mark", ["escape", "m", "b", *"le passage ne dit pas 48 h"]),
    ("walk-5-marked", ["enter"]),
    ("walk-6-copy", ["y"]),
    ("walk-7-copied", ["c"]),
    ("walk-8-export", ["escape", "X"]),
    ("walk-9-exported", ["m"]),
)


async def _until(pilot, predicate, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError("the app did not reach the expected screen")
        await pilot.pause(0.05)


async def main() -> None:
    sample = sample_inputs()
    inputs = Inputs(a=sample["a"], b=sample["b"], gold=sample["gold"], config=sample["config"])
    wide = RagtuiApp(inputs)
    async with wide.run_test(size=(160, 48)) as pilot:
        await _until(pilot, lambda: type(wide.screen).__name__ == "DashboardScreen")
        await pilot.pause(0.3)
        wide.save_screenshot(filename="dashboard.svg", path=str(OUT))
        print(f"{OUT / 'dashboard.svg'}  (160×48)")
    # Relative paths from a scratch folder: the notes and the export land there, and the
    # messages on screen name them as a user would see them.
    os.chdir(tempfile.mkdtemp(prefix="ragtui-shots-"))
    app = RagtuiApp(inputs, notes_path=Path("candidate.notes.jsonl"))
    async with app.run_test(size=(80, 24)) as pilot:
        await _until(pilot, lambda: type(app.screen).__name__ == "DashboardScreen")
        for name, keys in WALK:
            for key in keys:
                await pilot.press(key)
                await pilot.pause()
            await pilot.pause(0.3)
            app.save_screenshot(filename=f"{name}.svg", path=str(OUT))
            print(f"{OUT / name}.svg  ({type(app.screen).__name__})")


async def label_thirty(pilot, app) -> None:
    """The scripted person: 30 answers of the queue, sentence by sentence, then the utility
    (the judge's, one point lower on every fourth answer)."""
    queue = app.screen
    while queue.labelled_here < 30:
        row = queue.data.rows["B"]
        said = (row["judge_sentences"] or []) if row["judged"] else []
        for index, sentence in enumerate(said):
            attested = sentence["attested"] and not (index == len(said) - 1 and queue.index % 3 == 0)
            await pilot.press("plus" if attested else "minus")
        judged = row["utility_q"]
        score = 4 if judged is None else max(1, int(judged) - (1 if queue.index % 4 == 0 else 0))
        await pilot.press(str(score))
        await pilot.pause()


async def calibration() -> None:
    sample = sample_inputs()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name in ("a", "b", "gold", "config"):
            shutil.copy(sample[name], root / sample[name].name)
        inputs = Inputs(
            a=root / sample["a"].name, b=root / sample["b"].name, gold=root / sample["gold"].name,
            config=root / sample["config"].name, labels=root / "labels.jsonl",
        )
        app = RagtuiApp(inputs)
        here = Path.cwd()
        os.chdir(root)  # the screen then names the labels file as one would type it
        try:
            await _calibration_walk(app)
        finally:
            os.chdir(here)


async def _calibration_walk(app) -> None:
    async with app.run_test(size=(80, 24)) as pilot:
        await _until(pilot, lambda: type(app.screen).__name__ == "DashboardScreen")
        await pilot.press("L")
        await _until(pilot, lambda: type(app.screen).__name__ == "CalibrationQueueScreen")
        await label_thirty(pilot, app)
        await pilot.press("plus")  # the 31st answer, one sentence in: what labelling looks like
        await pilot.pause(0.3)
        app.save_screenshot(filename="calibration-1-queue.svg", path=str(OUT))
        await pilot.press("escape", "C")
        await _until(pilot, lambda: type(app.screen).__name__ == "CalibrationScreen")
        await pilot.pause(0.3)
        app.save_screenshot(filename="calibration-2-screen.svg", path=str(OUT))
        print(f"{OUT / 'calibration-1-queue.svg'}, {OUT / 'calibration-2-screen.svg'}")


async def tradeoff() -> None:
    """`ragtui` with no argument, then T: every run at its own k, once the others are compared."""
    sample = sample_inputs()
    inputs = Inputs(a=sample["a"], b=sample["b"], gold=sample["gold"], config=sample["config"], others=sample_sweep())
    app = RagtuiApp(inputs)
    async with app.run_test(size=(80, 24)) as pilot:
        await _until(pilot, lambda: type(app.screen).__name__ == "DashboardScreen")
        await pilot.press("T")
        await _until(pilot, lambda: getattr(app.screen, "tradeoff", None) is not None and app.screen.query("TradeoffChart"), timeout=300)
        await pilot.pause(0.3)
        app.save_screenshot(filename="tradeoff-80x24.svg", path=str(OUT))
        print(f"{OUT / 'tradeoff-80x24.svg'}  (80×24)")


if __name__ == "__main__":
    asyncio.run(main())
    asyncio.run(calibration())
    asyncio.run(tradeoff())
