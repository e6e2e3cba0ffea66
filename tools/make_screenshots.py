"""Regenerate docs/screenshots/*.svg from the bundled sample, with real key presses.

`python tools/make_screenshots.py` runs the app headless: the dashboard at 160×48, then,
at 80×24, the README's walk-through: dashboard → category grid → Procedural × Faithfulness → the first
regressed question → the verdict inspector. Each step is saved as an SVG.
"""

from __future__ import annotations

import asyncio
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
    app = RagtuiApp(inputs)
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
