"""Questions that share a document, and a grid of many tests: clustered Δ, design effect, Holm / BH.

The oracles are scipy (the t distribution) and statsmodels (`multipletests`); the coverage
simulations are seeded and small enough to run in seconds (bench/bench_clusters.py runs
the fuller ones and prints them side by side).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from ragtui.core.comparing.clustered import (
    clustered_change,
    clustered_paired_p,
    design_effect,
    satterthwaite_df,
)
from ragtui.core.comparing.multiplicity import adjust_p_values
from ragtui.core.comparing.stats import paired_bootstrap_ci
from ragtui.core.comparing.targets import clustered_wilson_interval, wilson_interval
from ragtui.core.loading.inputs import Inputs
from ragtui.core.measuring.clusters import Clusters
from ragtui.core.measuring.distributions import t_quantile, t_two_sided_p
from ragtui.core.session import load_comparison


def test_t_quantiles_and_p_values_equal_scipys():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 4, 7, 9, 29, 199):
        for confidence in (0.9, 0.95, 0.99):
            assert t_quantile(confidence, df) == pytest.approx(stats.t.ppf(1 - (1 - confidence) / 2, df), abs=1e-9)
        for t in (0.1, 1.0, 2.5, 8.0):
            assert t_two_sided_p(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-9, abs=1e-14)


def _write_one_document_drop(folder: Path, *, with_document: bool = True) -> Inputs:
    """Eight documents of ten questions; B loses the gold passage on every question of one."""
    gold, run_a, run_b = [], [], []
    for doc in range(8):
        for i in range(10):
            qid = f"d{doc}q{i}"
            passage = f"p_doc{doc}_{i:03d}"
            entry = {"id": qid, "question": f"Q {qid}?", "category": "factuelle_courte", "gold_passages": [passage]}
            if with_document:
                entry["document"] = f"doc{doc}"
            gold.append(entry)
            hit = [{"id": passage, "text": "t"}, {"id": "other", "text": "t"}]
            miss = [{"id": "other", "text": "t"}, {"id": "else", "text": "t"}]
            run_a.append({"id": qid, "retrieved": hit, "answer": "a"})
            run_b.append({"id": qid, "retrieved": miss if doc == 0 else hit, "answer": "a"})
    (folder / "gold.yaml").write_text(yaml.safe_dump(gold), encoding="utf-8")
    for name, records in (("a.jsonl", run_a), ("b.jsonl", run_b)):
        (folder / name).write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    config = folder / "ragtui.yaml"
    config.write_text("k: 2\n", encoding="utf-8")
    return Inputs(a=folder / "a.jsonl", b=folder / "b.jsonl", gold=folder / "gold.yaml", config=config, cache=False)


def test_one_document_of_eight_carrying_the_whole_drop_is_not_regressed_while_the_independent_test_would_say_so(tmp_path):
    clustered = load_comparison(_write_one_document_drop(tmp_path))
    recall = clustered.metrics["recall@2"]
    assert recall.delta == pytest.approx(-10 / 80)
    assert recall.clusters == 8
    assert recall.verdict == "no_clear_change"
    # Obuchowski's statistic by hand: d = (−10, 0 × 7), m = 10 each, Δ = −0.125; residuals
    # −8.75 and 1.25 × 7, Σr² = 87.5; CR2 with h = 1/8: Var = 8/7 · 87.5 / 80² = 0.015625,
    # se = 0.125, t = −1. Degrees of freedom: the spreads s_g = Σ(d − Δ)² are 10·0.875² and
    # 10·0.125² (49 : 1); B·7/8 has 37.625 (doc 0) and 1.625 on the diagonal, −5.375 against
    # doc 0 and 0.625 elsewhere: tr = 49, Σ entries² = 1855, ν = 49² / 1855 = 1.294.
    assert recall.p_value == pytest.approx(t_two_sided_p(1.0, 49**2 / 1855), abs=1e-9)
    assert recall.p_value > 0.4
    assert recall.ci is not None and recall.ci[1] >= 0
    assert recall.design_effect is not None and recall.design_effect > 3

    (tmp_path / "plain").mkdir()
    independent = load_comparison(_write_one_document_drop(tmp_path / "plain", with_document=False))
    plain = independent.metrics["recall@2"]
    assert plain.clusters is None and plain.design_effect is None
    assert plain.verdict == "regressed"  # exact McNemar: 10 against 0, p = 0.002
    assert plain.p_value == pytest.approx(2 * 0.5**10)


def test_a_question_s_document_comes_from_the_gold_set_then_the_corpus_then_the_passage_pattern(tmp_path):
    import polars as pl

    from ragtui.core.loading.config import Config
    from ragtui.core.measuring.clusters import BY_CORPUS, BY_DOCUMENT, BY_PATTERN, with_clusters

    frame = pl.DataFrame({
        "id": ["q1", "q2", "q3", "q4"],
        "document": ["handbook", None, None, None],
        "gold_passages": [["p_x_1"], ["p_rules_002"], ["p_other_7"], []],
    })
    out, used = with_clusters(frame, {"p_rules_002": "rules"}, r"^p_(.+)_\d+$")
    assert out.get_column("cluster").to_list() == ["handbook", "rules", "other", None]
    assert used == (BY_DOCUMENT, BY_CORPUS, BY_PATTERN)
    # No source at all: no clusters, and nothing downstream is clustered.
    plain, none = with_clusters(frame.drop("document"), None, Config().cluster_pattern)
    assert none == () and plain.get_column("cluster").null_count() == 4


def test_the_sample_read_with_its_corpus_is_clustered_by_its_seven_documents():
    from ragtui.cli.tui import sample_inputs

    paths = sample_inputs()
    corpus = paths["a"].parent / "corpus"
    if not corpus.is_dir():
        pytest.skip("the bundled sample (sample_data/) is not there")
    comparison = load_comparison(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=paths["config"], corpus=corpus))
    assert comparison.a.clustered_by == ("corpus",)
    assert comparison.metrics["recall@5"].clusters == 7


def _grid_cells(comparison):
    """Every tested cell of the grid: metrics × categories, then metrics × tags."""
    groups = [*comparison.categories.values(), *comparison.tags.values()]
    return [cell for data in groups for cell in data.metrics.values() if cell.p_value is not None]


def test_on_the_sample_the_grid_s_adjusted_p_values_equal_holm_recomputed_from_its_raw_ones_over_categories_and_tags(sample_comparison):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    cells = _grid_cells(sample_comparison)
    tag_cells = [cell for data in sample_comparison.tags.values() for cell in data.metrics.values() if cell.p_value is not None]
    # The sample's three tags (acronyme, section_recente, tableau) are in the family beside its four categories.
    assert set(sample_comparison.tags) == {"acronyme", "section_recente", "tableau"}
    assert len(tag_cells) == 43 and len(cells) == 93
    raw = np.array([cell.p_value for cell in cells])
    expected = multitest.multipletests(raw, method="holm")[1]
    assert [cell.p_adjusted for cell in cells] == pytest.approx(list(expected))
    # A cell regressed or improved only where its adjusted p is below 1 − confidence.
    for cell in cells:
        moved = cell.verdict in ("regressed", "improved")
        assert moved == (cell.p_adjusted < 0.05)


def test_a_tag_cell_is_tested_on_the_questions_of_that_tag_and_survives_holm_over_the_whole_grid(sample_comparison):
    # "section_recente" (9 questions): B spends more tokens on them; one bootstrap resample of
    # 10,000 has Δ ≤ 0, so p = 2·(1 + 1)/10,001 = 0.0004. Four cells of the 93 have 0.0002 before
    # it, so Holm gives (93 − 4)·0.0004 = 0.0356 < 0.05: regressed.
    cell = sample_comparison.tags["section_recente"].metrics["tokens"]
    assert sample_comparison.tags["section_recente"].n == 9
    assert cell.delta is not None and cell.delta > 0 and cell.ci is not None and cell.ci[0] > 0
    assert cell.p_value == pytest.approx(4 / 10_001)
    assert cell.p_adjusted == pytest.approx(89 * 4 / 10_001)
    assert cell.verdict == "regressed"
    # A tag cell that moves less is not: its raw p is under 0.05, Holm lifts it.
    acronyms = sample_comparison.tags["acronyme"].metrics["mrr@5"]
    assert acronyms.p_value < 0.05 and acronyms.p_adjusted > 0.05 and acronyms.verdict == "no_clear_change"


def test_benjamini_hochberg_and_holm_equal_statsmodels_on_random_p_values():
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    rng = np.random.default_rng(34)
    for _ in range(100):
        p = rng.random(int(rng.integers(1, 45))) ** 3
        p[rng.random(p.size) < 0.2] = p[0]  # ties
        assert adjust_p_values(list(p), "holm") == pytest.approx(list(multitest.multipletests(p, method="holm")[1]))
        assert adjust_p_values(list(p), "bh") == pytest.approx(list(multitest.multipletests(p, method="fdr_bh")[1]))


def test_a_cell_that_is_significant_alone_is_not_regressed_once_the_grid_is_adjusted(sample_comparison):
    # "No answer in corpus" utility: raw p 0.03 (its interval excludes 0) but Holm over 93 cells lifts it.
    cell = sample_comparison.categories["sans_reponse"].metrics["utility"]
    assert cell.p_value < 0.05 and cell.ci is not None and cell.ci[1] < 0
    assert cell.p_adjusted > 0.05 and cell.verdict == "no_clear_change"


def _clustered_binary(rng: np.random.Generator, documents: int, questions: int) -> tuple[np.ndarray, np.ndarray, Clusters]:
    """Paired 0/1 outcomes whose level and change both vary by document (a probit model)."""
    sizes = rng.multinomial(questions - documents, np.ones(documents) / documents) + 1
    index = np.repeat(np.arange(documents), sizes)
    level = rng.normal(1.0, 1.0, documents)[index]
    shift = rng.normal(-0.3, 0.5, documents)[index]
    noise_a = rng.normal(0, 0.7, questions)
    noise_b = 0.5 * noise_a + rng.normal(0, 0.6, questions)
    a = (level + noise_a > 0).astype(np.float64)
    b = (level + shift + noise_b > 0).astype(np.float64)
    return a, b, Clusters(index, documents)


def _true_delta(documents: int, questions: int) -> float:
    rng = np.random.default_rng(1)
    return float(np.mean([b.mean() - a.mean() for a, b, _ in (_clustered_binary(rng, documents, questions) for _ in range(3000))]))


@pytest.mark.parametrize("questions", [50, 120])
def test_at_8_documents_the_clustered_t_interval_covers_at_least_93_percent_of_95_where_the_independent_one_covers_under_85(questions):
    documents, runs = 8, 400
    truth = _true_delta(documents, questions)
    rng = np.random.default_rng(20261201 + questions)
    clustered = independent = 0
    ones = np.ones(questions)
    for run in range(runs):
        a, b, clusters = _clustered_binary(rng, documents, questions)
        change = clustered_change(a, ones, b, ones, clusters)
        assert change is not None
        low, high = change.interval(0.95)
        clustered += low <= truth <= high
        low, high = paired_bootstrap_ci(a, ones, b, ones, resamples=500, seed=run)
        independent += low <= truth <= high
    # bench/bench_clusters.py: 95–97 % at 8 documents with 1,000 runs; 400 here, ±1.1 points.
    assert clustered / runs >= 0.93
    assert independent / runs <= 0.85


def test_the_cr2_variance_equals_bell_and_mccaffreys_matrix_formula_on_documents_of_unequal_size():
    # The closed form (U_g² / (1 − h_g)) against A_g = (I − H_gg)^(−1/2) built as a matrix, for the mean of d.
    rng = np.random.default_rng(4)
    sizes = [2, 3, 7, 12]
    index = np.repeat(np.arange(4), sizes)
    n = index.size
    a = (rng.random(n) < 0.6).astype(float)
    b = (rng.random(n) < 0.4).astype(float)
    d = b - a
    residual = d - d.mean()
    variance = 0.0
    for g, size in enumerate(sizes):
        hat = np.full((size, size), 1.0 / n)
        values, vectors = np.linalg.eigh(np.eye(size) - hat)
        adjust = vectors @ np.diag(values**-0.5) @ vectors.T
        variance += float(np.ones(size) @ adjust @ residual[index == g]) ** 2
    variance /= n**2
    change = clustered_change(a, np.ones(n), b, np.ones(n), Clusters(index, 4))
    assert change is not None
    assert change.delta == pytest.approx(d.mean())
    assert change.variance == pytest.approx(variance, rel=1e-12)


def test_the_degrees_of_freedom_are_g_minus_1_for_documents_alike_and_fewer_when_one_carries_the_noise():
    assert satterthwaite_df(np.full(8, 1 / 8), np.ones(8)) == pytest.approx(7.0)
    assert satterthwaite_df(np.full(15, 1 / 15), np.full(15, 0.3)) == pytest.approx(14.0)
    assert satterthwaite_df(np.full(8, 1 / 8), np.array([49.0, 1, 1, 1, 1, 1, 1, 1])) < 2


def test_a_clustered_interval_of_a_share_stays_within_plus_or_minus_one():
    # Two documents, one of which loses everything: t on about one degree of freedom is wide.
    from ragtui.core.comparing.intervals import paired_change
    from ragtui.core.measuring.metric_specs import METRICS

    spec = next(s for s in METRICS if s.key == "recall")
    a = np.ones(20)
    b = np.r_[np.zeros(10), np.ones(10)]
    change = paired_change(spec, (a, np.ones(20), b, np.ones(20)), Clusters(np.repeat(np.arange(2), 10), 2), 0.95)
    assert change.ci is not None and change.ci[0] == -1.0 and change.ci[1] > 0
    assert change.clusters == 2


def test_the_clustered_paired_test_holds_its_level_when_nothing_changed_on_average():
    rng = np.random.default_rng(7)
    rejected = 0
    runs = 400
    for _ in range(runs):
        index = np.repeat(np.arange(10), 12)
        shift = rng.normal(0.0, 0.6, 10)[index]  # documents move, the mean does not
        level = rng.normal(0.8, 1.0, 10)[index]
        a = (level + rng.normal(0, 0.7, index.size) > 0).astype(float)
        b = (level + shift + rng.normal(0, 0.7, index.size) > 0).astype(float)
        rejected += clustered_paired_p(b - a, Clusters(index, 10)) < 0.05
    assert rejected / runs <= 0.07


def test_the_clustered_wilson_interval_covers_a_share_at_nominal():
    rng = np.random.default_rng(11)
    covered = plain = 0
    runs = 400
    for _ in range(runs):
        index = np.repeat(np.arange(12), 10)
        level = rng.normal(1.0, 0.8, 12)[index]
        outcomes = (level + rng.normal(0, 0.8, index.size) > 0).astype(np.float64)
        truth = 0.813  # P(N(1, √(0.8² + 0.8²)) > 0), Φ(1/1.1314)
        low, high = clustered_wilson_interval(outcomes, Clusters(index, 12))
        covered += low <= truth <= high
        low, high = wilson_interval(outcomes.sum(), outcomes.size)
        plain += low <= truth <= high
    assert covered / runs >= 0.93
    assert plain / runs < covered / runs


def test_the_design_effect_is_one_for_independent_questions_and_large_for_a_shared_drop():
    rng = np.random.default_rng(3)
    n = 4000
    a = (rng.random(n) < 0.7).astype(float)
    b = (rng.random(n) < 0.7).astype(float)
    ones = np.ones(n)
    alone = Clusters(np.arange(n) % 400, 400)  # documents that do not matter
    assert design_effect(a, ones, b, ones, alone) == pytest.approx(1.0, abs=0.2)
    index = np.repeat(np.arange(8), 10)
    b2 = np.ones(80)
    b2[:10] = 0
    assert design_effect(np.ones(80), np.ones(80), b2, np.ones(80), Clusters(index, 8)) > 3


def test_benjamini_hochberg_by_config_adjusts_the_sample_grid_as_statsmodels_does(tmp_path):
    multitest = pytest.importorskip("statsmodels.stats.multitest")
    from ragtui.cli.tui import sample_inputs

    paths = sample_inputs()
    if not paths["a"].is_file():
        pytest.skip("the bundled sample (sample_data/) is not there")
    config = tmp_path / "ragtui.yaml"
    text = paths["config"].read_text(encoding="utf-8")
    assert "  confidence: 0.95" in text
    config.write_text(text.replace("  confidence: 0.95", "  confidence: 0.95\n  multiple_testing: bh"), encoding="utf-8")
    comparison = load_comparison(Inputs(a=paths["a"], b=paths["b"], gold=paths["gold"], config=config))
    assert comparison.config.multiple_testing == "bh"
    cells = _grid_cells(comparison)
    expected = multitest.multipletests([cell.p_value for cell in cells], method="fdr_bh")[1]
    assert [cell.p_adjusted for cell in cells] == pytest.approx(list(expected))


def test_a_bad_adjustment_or_a_pattern_without_a_group_is_named_in_the_config(tmp_path):
    from ragtui.core.loading.config import config_problems_and_value

    path = tmp_path / "ragtui.yaml"
    path.write_text("regression:\n  multiple_testing: bonferroni\nclusters:\n  passage_pattern: \"^p_.+$\"\n", encoding="utf-8")
    _, problems = config_problems_and_value(path)
    messages = [str(p) for p in problems]
    assert any("regression.multiple_testing: expected one of holm, bh, found 'bonferroni'" in m for m in messages)
    assert any("clusters.passage_pattern: needs a group" in m for m in messages)


def test_the_grids_fast_multinomial_counts_have_the_multinomials_mean_and_covariance():
    from ragtui.core.comparing.stats import multinomial_counts

    shares = np.array([0.5, 0.3, 0.15, 0.05])
    counts = multinomial_counts(np.random.default_rng(2), 40, shares, 200_000)
    assert (counts.sum(axis=1) == 40).all() and (counts >= 0).all()
    assert counts.mean(axis=0) == pytest.approx(40 * shares, rel=0.01)
    expected = 40 * (np.diag(shares) - np.outer(shares, shares))
    assert np.cov(counts.T) == pytest.approx(expected, abs=0.08)


def test_the_grids_bootstrap_p_value_holds_its_level_on_a_category_of_sixty_questions():
    from ragtui.core.comparing.stats import bootstrap_p, paired_bootstrap_deltas

    rng = np.random.default_rng(21)
    runs, rejected = 400, 0
    for run in range(runs):
        a = rng.integers(1, 6, size=60).astype(float)  # utility scores, no change on average
        b = np.clip(a + rng.integers(-1, 2, size=60), 1, 5)
        b = np.where(rng.random(60) < 0.5, b, a + (a - b))  # a symmetric change
        ones = np.ones(60)
        p = bootstrap_p(paired_bootstrap_deltas(a, ones, np.clip(b, 1, 5), ones, resamples=1000, seed=run, fast_counts=True))
        rejected += p is not None and p < 0.05
    assert rejected / runs <= 0.075


def test_a_runs_clustered_ratio_interval_covers_a_pooled_faithfulness_at_nominal():
    from ragtui.core.comparing.targets import run_interval
    from ragtui.core.measuring.metric_specs import METRICS

    spec = next(s for s in METRICS if s.key == "faithfulness")
    rng = np.random.default_rng(5)
    runs, covered = 300, 0
    index = np.repeat(np.arange(15), 8)
    for _ in range(runs):
        level = rng.beta(6, 2, size=15)[index]  # documents differ in how faithful their answers are
        sentences = rng.integers(1, 5, size=index.size).astype(float)
        attested = rng.binomial(sentences.astype(int), level).astype(float)
        truth = 6 / 8
        low, high = run_interval(spec, attested, sentences, 0.95, Clusters(index, 15))
        covered += low <= truth <= high
    assert covered / runs >= 0.93


def test_cells_sharing_their_resampled_counts_get_the_very_intervals_they_get_drawn_alone():
    from ragtui.core.comparing.intervals import paired_change
    from ragtui.core.comparing.stats import RESAMPLES, SEED, CountDraws
    from ragtui.core.measuring.metric_specs import METRICS

    rng = np.random.default_rng(4)
    spec = next(spec for spec in METRICS if not spec.binary)
    ones = np.ones(30)
    # Every question distinct in each: the same counts (30 ones) in all three cells, as a
    # category's latency, cost and tokens have.
    cells = [(rng.random(30), ones, rng.random(30), ones) for _ in range(3)]
    draws = CountDraws()
    shared = [paired_change(spec, cell, None, 0.95, bootstrap_p_value=True, draws=draws) for cell in cells]
    alone = [paired_change(spec, cell, None, 0.95, bootstrap_p_value=True) for cell in cells]
    assert shared == alone
    counts = np.ones(30, dtype=np.int64)
    assert draws.counts(30, counts, RESAMPLES, SEED, fast_counts=True) is draws.counts(30, counts, RESAMPLES, SEED, fast_counts=True)
