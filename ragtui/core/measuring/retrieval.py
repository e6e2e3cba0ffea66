"""Per-question retrieval outcomes at k, computed over whole columns (docs/metrics.md, "Retrieval").

Duplicated ids in a retrieved list count once, at their first rank. Every retrieved id
is checked against its own question's gold list in one polars pass (an explode of the
lists, a row-wise `list.contains`). Only the gold hits are kept — one or two per
question — with their question and rank, so each measure at each k is a `bincount` over
a small array, never a Python loop over questions. Definitions match trec_eval:
success_k, recall_k, P_k, ndcg_cut_k, recip_rank (tests check them against trec_eval's
own output and pytrec_eval).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl


def sorted_ids(ids: pl.Expr) -> pl.Expr:
    """Each list of ids sorted, so that two lists holding the same ids in another order compare equal.

    Sorted inside `list.eval`: polars' own `list.sort` took 15 s on 1,000,000 lists of
    ten string ids, against 0.85 s here for the same lists (docs/performance.md).
    """
    return ids.list.eval(pl.element().sort())


def same_top_k(ids: pl.Expr, other: pl.Expr, k: int) -> pl.Expr:
    """Whether two lists of ids hold the same first k distinct ids, in any order (a
    repeated id counts at its first rank; a missing list is empty).

    Compared as sets: on 1,000,000 pairs of lists of 20 ids, 1.2 s, against 2.4 s sorted
    then compared and 32 s with `list.sort` (docs/performance.md).
    """
    first_a, first_b = (side.fill_null([]).list.unique(maintain_order=True).list.head(k) for side in (ids, other))
    return first_a.list.set_symmetric_difference(first_b).list.len() == 0


RETRIEVAL_COLUMNS = (
    "first_gold_rank",
    "hits_at_k",
    "n_gold",
    "hit_at_k",
    "context_recall_at_k",
    "precision_at_k",
    "context_precision_at_k",
    "rr_at_k",
    "ndcg_at_k",
)


@dataclass(frozen=True)
class RankedRelevance:
    """Where the gold passages sit in each ranked list: computed once, reused for each k."""

    n_questions: int
    n_gold: np.ndarray  # distinct gold passages per question (0 = none or unknown)
    question: np.ndarray  # for each gold hit: its question's row
    rank: np.ndarray  # for each gold hit: its 1-based rank (duplicates counted once)
    hits_so_far: np.ndarray  # for each gold hit: gold hits at or above its rank
    first_rank: np.ndarray  # per question: rank of the first gold hit, 0 when none


def _gold_hits(gold: pl.Series, retrieved: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """(question row, 1-based rank) of every retrieved id found in its own gold list."""
    lengths = retrieved.list.len().to_numpy().astype(np.int64)
    relevant = (
        pl.DataFrame({"gold": gold, "item": retrieved})
        .lazy()
        .explode("item", empty_as_null=False, keep_nulls=False)
        .select(pl.col("gold").list.contains(pl.col("item")).fill_null(False))
        .collect()
        .to_series()
        .to_numpy()
    )
    ends = np.cumsum(lengths)
    hits = np.flatnonzero(relevant)
    question = np.searchsorted(ends, hits, side="right")
    return question, hits - (ends[question] - lengths[question]) + 1


def ranked_relevance(frame: pl.DataFrame) -> RankedRelevance:
    """Locate every gold hit in `retrieved_ids` (ids are never null: the loaders check)."""
    gold = frame.get_column("gold_passages").list.unique()
    retrieved = frame.get_column("retrieved_ids").fill_null(pl.lit([], dtype=pl.List(pl.String)))
    question, rank = _gold_hits(gold, retrieved)
    # A repeated id counts once, at its first rank, which shifts the ranks after it. Lists
    # with repeats are rare: only those are de-duplicated and located again.
    repeated = (retrieved.list.n_unique() != retrieved.list.len()).arg_true().to_numpy()
    if repeated.size:
        again_question, again_rank = _gold_hits(
            gold.gather(repeated), retrieved.gather(repeated).list.unique(maintain_order=True)
        )
        keep = ~np.isin(question, repeated)
        question = np.concatenate([question[keep], repeated[again_question]])
        rank = np.concatenate([rank[keep], again_rank])
        order = np.lexsort((rank, question))
        question, rank = question[order], rank[order]
    # Hits are in list order, so a hit's count so far is its place among its question's hits.
    first_of_question = np.searchsorted(question, question, side="left")
    hits_so_far = np.arange(question.size) - first_of_question + 1
    first_rank = np.zeros(frame.height, dtype=np.int64)
    first_rank[question[::-1]] = rank[::-1]  # the last write wins: the first hit's rank
    n_gold = gold.list.len().fill_null(0).to_numpy().astype(np.int64)
    return RankedRelevance(frame.height, n_gold, question, rank, hits_so_far, first_rank)


def _per_question(ranked: RankedRelevance, selected: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    return np.bincount(ranked.question[selected], weights=None if weights is None else weights[selected], minlength=ranked.n_questions)


def _graded_dcg(frame: pl.DataFrame, ranked: RankedRelevance, k: int, grades: dict[str, dict[str, int]]) -> tuple[np.ndarray, np.ndarray]:
    """(DCG at k, ideal DCG at k) per question with graded gains, as trec_eval's ndcg_cut.

    The gain of a relevant passage is its qrels grade (1 where none is given); the ideal
    ranking puts the highest grades first. Only graded gold sets (TREC qrels with rel 2, 3,
    …) come here, so a loop over the gold hits is cheap enough.
    """
    ids = frame.get_column("id").to_list()
    retrieved = frame.get_column("retrieved_ids").fill_null(pl.lit([], dtype=pl.List(pl.String))).list.unique(maintain_order=True).to_list()
    in_k = ranked.rank <= k
    gains = np.array(
        [grades.get(ids[q], {}).get(retrieved[q][r - 1], 1) for q, r in zip(ranked.question[in_k], ranked.rank[in_k], strict=True)],
        dtype=np.float64,
    )
    dcg = np.bincount(ranked.question[in_k], weights=gains / np.log2(ranked.rank[in_k] + 1.0), minlength=ranked.n_questions)
    discounts = 1.0 / np.log2(np.arange(2, k + 2))
    ideal = np.zeros(ranked.n_questions)
    for row, (qid, n_gold) in enumerate(zip(ids, ranked.n_gold, strict=True)):
        best = sorted(grades.get(qid, {}).values(), reverse=True)[:k] if qid in grades else [1] * min(int(n_gold), k)
        ideal[row] = float(np.dot(best, discounts[: len(best)]))
    return dcg, ideal


def retrieval_outcomes(
    frame: pl.DataFrame,
    k: int,
    ranked: RankedRelevance | None = None,
    grades: dict[str, dict[str, int]] | None = None,
    *,
    empty_gold_scores_zero: bool = False,
) -> pl.DataFrame:
    """Add the per-question retrieval columns for cut-off k to `frame`.

    `frame` needs `gold_passages` (list, null = unknown) and `retrieved_ids` (list).
    Rows whose gold list is null or empty get null retrieval values; with
    `empty_gold_scores_zero`, an empty list scores 0, as trec_eval scores a topic judged
    with no relevant document. Pass `ranked` (from `ranked_relevance(frame)`) to compute
    several k without locating the hits again, and `grades` (a graded gold set's) for
    nDCG with graded gains.
    """
    ranked = ranked or ranked_relevance(frame)
    in_k = ranked.rank <= k
    hits = _per_question(ranked, in_k).astype(np.float64)
    precision_sum = _per_question(ranked, in_k, ranked.hits_so_far / ranked.rank)
    dcg = _per_question(ranked, in_k, 1.0 / np.log2(ranked.rank + 1.0))
    n_gold = ranked.n_gold
    first = ranked.first_rank
    ideal = np.concatenate([[0.0], np.cumsum(1.0 / np.log2(np.arange(2, k + 2)))])
    known = n_gold > 0
    ideal_dcg = np.where(known, ideal[np.minimum(n_gold, k)], 1.0)
    if grades:
        dcg, graded_ideal = _graded_dcg(frame, ranked, k, grades)
        ideal_dcg = np.where(known, graded_ideal, 1.0)
    scored = frame.get_column("gold_passages").is_not_null().to_numpy() if empty_gold_scores_zero else known
    unknown = np.where(scored, 0.0, np.nan)  # adding it turns a value into null where gold is unknown
    with np.errstate(divide="ignore", invalid="ignore"):
        values = {
            "first_gold_rank": np.where(first > 0, first, np.nan) + unknown,
            "hits_at_k": hits + unknown,
            "hit_at_k": (hits > 0) + unknown,
            "context_recall_at_k": hits / np.maximum(n_gold, 1) + unknown,
            "precision_at_k": hits / k + unknown,
            "context_precision_at_k": np.where(hits > 0, precision_sum / np.maximum(hits, 1), 0.0) + unknown,
            "rr_at_k": np.where((first > 0) & (first <= k), 1.0 / np.maximum(first, 1), 0.0) + unknown,
            "ndcg_at_k": dcg / ideal_dcg + unknown,
        }
    columns = [_series(name, value, nan_to_null=True) for name, value in values.items()]
    columns = [c.cast(pl.Int64) if c.name in ("first_gold_rank", "hits_at_k") else c for c in columns]
    columns.append(_series("n_gold", n_gold))
    return frame.with_columns(columns)


# A column of at most this many values is handed to polars as a list: from a numpy array,
# polars imports numpy.ma (to look for a mask), about 9 ms of the bundled sample's start.
_LISTED_UP_TO = 10_000
_LISTED_DTYPES = {np.dtype(np.float64): pl.Float64, np.dtype(np.int64): pl.Int64}


def _series(name: str, values: np.ndarray, *, nan_to_null: bool = False) -> pl.Series:
    """`pl.Series(name, values, nan_to_null=…)`, the same column, for a short float64 or int64 array."""
    dtype = _LISTED_DTYPES.get(values.dtype)
    if dtype is None or values.size > _LISTED_UP_TO:
        return pl.Series(name, values, nan_to_null=nan_to_null)
    listed = values.tolist()
    if nan_to_null and dtype == pl.Float64:
        listed = [None if value != value else value for value in listed]  # NaN is the only value unequal to itself
    return pl.Series(name, listed, dtype=dtype)
