"""The JSON report's text (cli/report_json.py) is what `json.dumps(indent=2)` writes, byte for byte."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from ragtui.cli.report_json import report_json

_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)  # quotes, controls, accents
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), _TEXT)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.lists(_TEXT, max_size=5),  # the joined fast path
        st.tuples(inner, inner),
        st.dictionaries(_TEXT, inner, max_size=5),
        st.dictionaries(st.integers(), inner, max_size=3),  # keys json.dumps turns into text
    ),
    max_leaves=40,
)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_any_report_shaped_value_is_written_as_json_dumps_writes_it(value):
    assert report_json(value) == json.dumps(value, ensure_ascii=False, indent=2)


def test_a_whole_report_of_the_sample_is_written_as_json_dumps_writes_it(private_run_cache):
    from ragtui.cli.tui import sample_inputs
    from ragtui.core.comparing.report import build_report
    from ragtui.core.loading.inputs import Inputs
    from ragtui.core.session import load_comparison

    report = build_report(load_comparison(Inputs(**sample_inputs())))
    assert report["regressions"] and report["questions"]["regressed"]  # the long lists are there
    assert report_json(report) == json.dumps(report, ensure_ascii=False, indent=2)


def test_not_a_number_and_infinities_are_written_as_the_standard_library_writes_them():
    value = {"a": [math.nan, math.inf, -math.inf, 0.1, 1e16, -0.0]}
    assert report_json(value) == json.dumps(value, ensure_ascii=False, indent=2)


def test_the_json_report_of_the_sample_is_byte_identical_to_the_one_kept(capsys, monkeypatch):
    """tests/cli/golden/sample_report.json is the report of the bundled sample as the
    command prints it; a change that moves a byte of it is a change of the report, made
    on purpose and written there again. The sample's labels file is named in the user's
    data folder, here `/xdg-data` (only named: nothing is written there)."""
    from pathlib import Path

    from ragtui.cli import main

    repo = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(repo)
    monkeypatch.setenv("XDG_DATA_HOME", "/xdg-data")
    argv = ["report", "sample_data/baseline.jsonl", "sample_data/candidate.jsonl", "--gold", "sample_data/gold.yaml", "--format", "json"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert printed == (repo / "tests/cli/golden/sample_report.json").read_text(encoding="utf-8")
