"""Regenerate docs/screenshots/*.svg from the bundled sample, with real key presses.

`python tools/make_screenshots.py` runs the app headless: the dashboard at 160×48, then,
at 80×24, the README's walk-through: dashboard → category grid → Procedural × Faithfulness → the first
regressed question → the verdict inspector; then its second path: mark the question,
copy a command that reopens it, export the marks for a PR. Each step is saved as an SVG.
The marks go to a temporary folder, never beside the bundled sample.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from pathlib import Path

from ragtui.cli.tui import sample_inputs
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


if __name__ == "__main__":
    asyncio.run(main())
