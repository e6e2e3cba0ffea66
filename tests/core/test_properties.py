"""Properties that hold for any run: rates in [0, 1], monotone recall, self-comparison."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragtui.core.comparing.compare import compare
from ragtui.core.loading.config import Config
from ragtui.core.loading.runs import load_run
from ragtui.core.measuring.evaluate import evaluate
from ragtui.core.measuring.metrics import summarize

PASSAGES = [f"p{i}" for i in range(12)]
CATEGORIES = ["factuelle_courte", "procedurale", "sans_reponse", "contradiction_connue"]

sentence = st.fixed_dictionaries({"text": st.text(min_size=1, max_size=8), "attested": st.booleans()})
judge = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "faithfulness": st.fixed_dictionaries({"sentences": st.lists(sentence, max_size=4)}),
            "utility": st.fixed_dictionaries({"score": st.integers(1, 5)}),
            "error": st.one_of(st.none(), st.just("boom")),
        }
    ),
)
record = st.fixed_dictionaries(
    {
        "gold_passages": st.lists(st.sampled_from(PASSAGES), max_size=3),
        "category": st.sampled_from(CATEGORIES),
        "retrieved": st.lists(st.sampled_from(PASSAGES), max_size=15),
        "answer": st.one_of(st.none(), st.just("Je ne trouve pas cette information."), st.text(max_size=20)),
        "judge": judge,
    }
)


def _load(tmp_path, records):
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"q{i}", **r}) for i, r in enumerate(records)) + "\n")
    return load_run(path)


def _evaluate(tmp_path, records, k, run=None):
    return evaluate(run if run is not None else _load(tmp_path, records), None, Config(k=k), k=k)


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(records=st.lists(record, min_size=1, max_size=12), k=st.integers(1, 10))
def test_every_rate_is_between_0_and_1_and_utility_between_1_and_5(tmp_path, records, k):
    for name, value in summarize(_evaluate(tmp_path, records, k)).items():
        if value.value is None:
            assert value.n == 0 or name.startswith(("faithfulness", "utility"))
            continue
        low, high = (1.0, 5.0) if name == "utility" else (0.0, 1.0)
        assert low - 1e-9 <= value.value <= high + 1e-9, name


@SETTINGS
@given(records=st.lists(record, min_size=1, max_size=12), ks=st.lists(st.integers(1, 15), min_size=2, max_size=4, unique=True))
def test_recall_at_k_never_decreases_with_k(tmp_path, records, ks):
    run = _load(tmp_path, records)  # read once, measured at a few increasing k
    previous = -1.0
    for k in sorted(ks):
        value = summarize(_evaluate(tmp_path, records, k, run))[f"recall@{k}"].value
        if value is None:
            return
        assert value >= previous - 1e-12
        previous = value


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(records=st.lists(record, min_size=1, max_size=12))
def test_a_run_compared_with_itself_has_no_change(tmp_path, records):
    evaluation = _evaluate(tmp_path, records, 5)
    comparison = compare(evaluation, evaluation, Config())
    for metric in comparison.metrics.values():
        if metric.delta is None:
            continue
        assert metric.delta == 0
        assert metric.verdict == "no_clear_change"
        assert not metric.drop_flagged
    assert set(comparison.status.get_column("status").to_list()) <= {"passing", "still_failing"}
