"""Fixtures of the core tests: `sample_comparison`, the bundled sample compared (baseline → candidate)."""

from __future__ import annotations

import pytest

from ragtui.core.session import load_comparison


@pytest.fixture(scope="module")
def sample_comparison():
    from ragtui.cli.tui import sample_inputs
    from ragtui.core.loading.inputs import Inputs

    paths = sample_inputs()
    if not paths["a"].is_file():
        pytest.skip("the bundled sample (sample_data/) is not there")
    return load_comparison(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"]))
