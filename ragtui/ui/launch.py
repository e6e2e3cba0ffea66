"""Start the app; kept apart so `ragtui.cli.tui` imports Textual only when it runs."""

from __future__ import annotations

from ragtui.core.session import Inputs


def launch(inputs: Inputs, *, theme: str | None = None, mouse: bool = True) -> int:
    """Run the app until it exits; returns the process exit code."""
    from ragtui.ui.app import RagtuiApp

    app = RagtuiApp(inputs, theme_name=theme)
    app.run(mouse=mouse)
    return app.return_code or 0
