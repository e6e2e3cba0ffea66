"""ragtui: compare two runs of a RAG system, in the terminal or headless for CI.

`ragtui.evaluate(gold, retriever=…, generator=…)` runs a system on a gold set and
`ragtui.compare(a, b, gold=…)` compares two runs, on the command line's code
(`ragtui.api`); both load on first use, so `import ragtui` stays light.
"""

from __future__ import annotations

from typing import Any

from ragtui.version import __version__

__all__ = ["__version__", "compare", "evaluate"]


def __getattr__(name: str) -> Any:
    """`ragtui.evaluate` and `ragtui.compare`, imported when first used."""
    if name in ("evaluate", "compare"):
        from ragtui import api

        return getattr(api, name)
    raise AttributeError(f"module 'ragtui' has no attribute {name!r}")
