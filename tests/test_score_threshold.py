"""``score_threshold``: items scored at or below it are never hits, |R| unchanged.

torchmetrics 1.9.0 applies ``torch.where(preds > 0, target, 0)`` before the
top k in ``functional/retrieval/average_precision.py``, ``precision.py``,
``recall.py`` and ``reciprocal_rank.py`` (not in ``hit_rate.py``, ``ndcg.py``,
``r_precision.py``), while the number of relevant items (recall's
denominator) and the empty check (``retrieval/base.py``,
``RetrievalMetric.compute``) use the unfiltered target. Hand cases, the
per-list functions against ``evaluate`` on random tables, and the preset.
(``benchmarks/peers/check_score_threshold.py`` compares with torchmetrics
itself on random logits.)
"""

import math
import sys
import zlib

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import describe_convention, evaluate
from _helpers import convert, in_library

# a, c, d relevant (d grade 2), b judged 0, e relevant but not recommended, x unjudged
GRADES = {"a": 1, "b": 0, "c": 1, "d": 2, "e": 1}
LIST = ["a", "x", "c", "b", "d"]
SCORES = [0.9, 0.5, 0.0, -0.2, -0.3]   # c scores exactly the threshold 0


# -- hand-computed cases ------------------------------------------------------

def test_recall_and_precision_keep_the_relevant_count():
    # without the threshold: hits a, c, d of |R| = 4 (a, c, d, e)
    assert ml.recall_at_k(LIST, GRADES, scores=SCORES) == 3 / 4
    # with it: c (score 0, at the threshold) and d (below) are no hits; |R| still 4
    assert ml.recall_at_k(LIST, GRADES, scores=SCORES, score_threshold=0) == 1 / 4
    assert ml.recall_at_k(LIST, GRADES, k=3, scores=SCORES, score_threshold=-0.25) == 2 / 4
    # precision@5: one hit in five places; precision@3 with threshold -1: a, c
    assert ml.precision_at_k(LIST, GRADES, k=5, scores=SCORES, score_threshold=0) == 1 / 5
    assert ml.precision_at_k(LIST, GRADES, k=3, scores=SCORES, score_threshold=-1) == 2 / 3
    # f1@5: 2 * hits / (k + |R|) = 2 / 9
    assert ml.f1_at_k(LIST, GRADES, k=5, scores=SCORES, score_threshold=0) == 2 / 9


def test_rank_based_metrics():
    # the first hit above the threshold: c at rank 3 when a is masked too
    assert ml.reciprocal_rank(LIST, GRADES, scores=SCORES, score_threshold=0.95) == 0.0
    assert ml.reciprocal_rank(["x", "a"], GRADES, scores=[2.0, 1.0], score_threshold=0) == 0.5
    assert ml.reciprocal_rank(["x", "a"], GRADES, scores=[2.0, -1.0],
                              score_threshold=0) == 0.0
    # AP: the only hit is a at rank 1 -> precision 1; / |R| = 4, or / hits = 1
    assert ml.average_precision(LIST, GRADES, scores=SCORES, score_threshold=0) == 1 / 4
    assert ml.average_precision(LIST, GRADES, scores=SCORES, score_threshold=0,
                                denominator="retrieved") == 1.0
    # threshold -0.25: hits a (rank 1), c (rank 3): (1 + 2/3) / 4
    assert ml.average_precision(LIST, GRADES, scores=SCORES,
                                score_threshold=-0.25) == pytest.approx((1 + 2 / 3) / 4)
    # hit@k: nothing above 0.95
    assert ml.hit_at_k(LIST, GRADES, k=5, scores=SCORES, score_threshold=0.95) == 0.0
    assert ml.hit_at_k(LIST, GRADES, k=5, scores=SCORES, score_threshold=0.5) == 1.0


def test_ndcg_keeps_the_ideal_list():
    # DCG of a only (c, d masked): 1 / log2(2) = 1; ideal of grades 2, 1, 1, 1
    ideal = 2 + 1 / math.log2(3) + 1 / math.log2(4) + 1 / math.log2(5)
    assert ml.dcg_at_k(LIST, GRADES, scores=SCORES, score_threshold=0) == 1.0
    assert ml.ndcg_at_k(LIST, GRADES, scores=SCORES,
                        score_threshold=0) == pytest.approx(1 / ideal, rel=1e-15)


def test_masked_item_equals_an_unjudged_stand_in():
    """An item at or below the threshold counts as a non-relevant item at its rank:
    the same value as the list with a fresh id there and the judgements unchanged."""
    rng = np.random.default_rng(7)
    functions = (ml.precision_at_k, ml.recall_at_k, ml.f1_at_k, ml.hit_at_k,
                 ml.reciprocal_rank, ml.average_precision, ml.dcg_at_k, ml.ndcg_at_k)
    for _ in range(200):
        n = int(rng.integers(0, 9))
        items = [int(i) for i in rng.choice(20, size=n, replace=False)]
        scores = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], size=n).tolist()
        order = sorted(range(n), key=lambda i: -scores[i])  # stable: the input order
        ranked = [items[i] for i in order]
        grades = {int(i): int(g) for i, g in zip(rng.choice(20, size=6, replace=False),
                                                 rng.integers(0, 4, size=6))}
        threshold = float(rng.choice([-0.5, 0.0, 0.25]))
        stand_in = [1000 + item if scores[i] <= threshold else item
                    for item, i in zip(ranked, order)]
        k = int(rng.integers(1, 6))
        for function in functions:
            got = function(items, grades, k, scores=scores, score_threshold=threshold)
            want = function(stand_in, grades, k)
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), function.__name__


# -- errors -------------------------------------------------------------------

def test_refusals():
    with pytest.raises(ValueError, match="score_threshold needs scores"):
        ml.recall_at_k(LIST, GRADES, score_threshold=0)
    with pytest.raises(TypeError, match="score_threshold"):
        ml.recall_at_k(LIST, GRADES, scores=SCORES, score_threshold="0")
    with pytest.raises(ValueError, match="score_threshold"):
        ml.recall_at_k(LIST, GRADES, scores=SCORES, score_threshold=float("nan"))
    with pytest.raises(ValueError, match="score_threshold is not available"):
        ml.ndcg_at_k(LIST, GRADES, scores=SCORES, score_threshold=0, ties="average")
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "x"], "score": [1.0, -1.0],
                         "rank": [1, 2]})
    truth = pd.DataFrame({"user": [1], "item": ["a"], "relevance": [1]})
    with pytest.raises(ValueError, match="rank_col"):
        evaluate(recs, truth, ["recall"], rank_col="rank", score_threshold=0)
    with pytest.raises(TypeError, match="score_threshold"):
        evaluate(recs, truth, ["recall"], score_threshold=True)
    with pytest.raises(ValueError, match="score_threshold"):
        evaluate(recs, truth, ["recall"], score_threshold=float("inf"))
    with pytest.raises(ValueError, match="score_threshold"):
        evaluate(recs, truth, ["ndcg"], ties="average", score_threshold=0)


def test_evaluate_hand_case_and_no_mutation():
    recs = pd.DataFrame({"user": [1] * 5 + [2, 2], "item": LIST + ["a", "e"],
                         "score": SCORES + [-1.0, -2.0]})
    truth = pd.DataFrame({"user": [1] * 5 + [2], "item": list(GRADES) + ["e"],
                          "relevance": list(GRADES.values()) + [1]})
    before = recs.copy(), truth.copy()
    result = evaluate(recs, truth, ["recall", "map", "mrr", "precision@5", "hit@5"],
                      score_threshold=0)
    # user 1 as above; user 2: e relevant but scored -2 -> nothing found, |R| = 1
    assert result.loc[1].tolist() == [1 / 4, 1 / 4, 1.0, 1 / 5, 1.0]
    assert result.loc[2].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0]
    pd.testing.assert_frame_equal(recs, before[0])
    pd.testing.assert_frame_equal(truth, before[1])


# -- per-list functions against evaluate on random tables ----------------------

PER_LIST = {
    "precision": ml.precision_at_k, "recall": ml.recall_at_k, "f1": ml.f1_at_k,
    "hit": ml.hit_at_k, "mrr": ml.reciprocal_rank, "map": ml.average_precision,
    "dcg": ml.dcg_at_k, "ndcg": ml.ndcg_at_k,
}


def _random_tables(rng, id_kind):
    rows, judged = [], []
    for user in range(1, 41):
        n = int(rng.integers(0, 12)) if user <= 36 else 0   # 37-40: truth only
        items = rng.choice(60, size=n, replace=False)
        # few distinct values: exact ties, ties at the threshold, negatives
        scores = rng.choice([-2.0, -1.0, 0.0, 0.0, 0.5, 1.0, 1.0, 3.0], size=n)
        if n >= 2 and rng.random() < 0.3:   # float32-equal, float64-distinct
            scores[1] = scores[0] + 1e-12
        rows += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        if user <= 33:                      # 34-36: recommendations only
            for i in rng.choice(60, size=int(rng.integers(1, 8)), replace=False):
                judged.append((user, int(i), int(rng.integers(0, 4))))
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(judged, columns=["user", "item", "relevance"])
    big = 2**62
    for frame in (recs, truth):
        if id_kind == "int64-large":
            frame["item"] = frame["item"].astype(np.int64) + big
        elif id_kind == "nullable":
            frame["item"] = frame["item"].astype("Int64")
            frame["user"] = frame["user"].astype("Int64")
        elif id_kind == "string":
            frame["item"] = ("i" + frame["item"].astype(str)).astype("string[pyarrow]")
    return recs, truth


@pytest.mark.parametrize("id_kind", ["int64", "int64-large", "nullable", "string"])
@pytest.mark.parametrize("variant", [{}, {"candidates": "recommended"},
                                     {"judged_only": True}, {"truncate": 4},
                                     {"ties": "worst"}])
def test_per_list_equals_evaluate(id_kind, variant):
    rng = np.random.default_rng(zlib.crc32(f"{id_kind} {variant}".encode()))
    recs, truth = _random_tables(rng, id_kind)
    recs = recs.sample(frac=1.0, random_state=1)      # rows in any order
    ks = (1, 3, 5, 20)
    names = [f"{m}@{k}" for m in PER_LIST for k in ks] + ["mrr", "map", "ndcg", "recall"]
    for threshold in (0.0, -1.5, 0.75):
        got = evaluate(recs, truth, names, score_threshold=threshold, missing="zero",
                       **variant)
        assert got.index.tolist() == sorted(truth["user"].unique().tolist())
        for user in got.index:
            mine = recs[recs["user"] == user]
            # evaluate's order: score descending, then item id as text descending;
            # the per-list functions sort stably by score, keeping this order of ties
            key = sorted(zip(mine["item"].tolist(), mine["score"].tolist()),
                         key=lambda r: str(r[0]).encode(), reverse=True)
            key.sort(key=lambda r: -r[1])
            items = [item for item, _ in key]
            scores = [score for _, score in key]
            judged = truth[truth["user"] == user]
            grades = dict(zip(judged["item"].tolist(), judged["relevance"].tolist()))
            per_list_options = {k: v for k, v in variant.items()}
            for name in names:
                base, _, k = name.partition("@")
                function = PER_LIST[base]
                value = function(items, grades, int(k) if k else None, scores=scores,
                                 score_threshold=threshold, **per_list_options)
                assert got.loc[user, name] == pytest.approx(value, rel=1e-12, abs=1e-15), (
                    user, name, threshold)


def test_threads_and_chunks_agree(monkeypatch):
    """The mask is cut per chunk of users like every other row array."""
    module = sys.modules["metrics_lib.batch.chunks"]

    rng = np.random.default_rng(3)
    recs, truth = _random_tables(rng, "int64")
    names = ["recall@5", "map", "mrr", "ndcg@3"]
    one = evaluate(recs, truth, names, score_threshold=0.0)
    monkeypatch.setattr(module, "_MIN_ROWS_PER_THREAD", 10)
    many = evaluate(recs, truth, names, score_threshold=0.0, n_jobs=3)
    pd.testing.assert_frame_equal(one, many)


def test_integer_scores_compare_exactly():
    # 2**53 + 1 is above the threshold 2**53 (float64 would make them equal)
    recs = pd.DataFrame({"user": [1, 1], "item": [1, 2],
                         "score": np.array([2**53 + 1, 2**53], dtype=np.int64)})
    truth = pd.DataFrame({"user": [1, 1], "item": [1, 2], "relevance": [1, 1]})
    result = evaluate(recs, truth, ["recall"], score_threshold=2**53)
    assert result.loc[1, "recall"] == 0.5
    assert ml.recall_at_k([1, 2], {1: 1, 2: 1}, scores=[2**53 + 1, 2**53],
                          score_threshold=2**53) == 0.5


# -- the torchmetrics preset ----------------------------------------------------

def test_torchmetrics_preset_sets_the_threshold_where_torchmetrics_filters():
    for metric in ("RetrievalPrecision@5", "RetrievalRecall", "RetrievalMRR",
                   "RetrievalMAP"):
        assert describe_convention("torchmetrics", metric)["keywords"][
            "score_threshold"] == 0
    for metric in ("RetrievalNormalizedDCG", "RetrievalHitRate", "RetrievalRPrecision"):
        assert describe_convention("torchmetrics", metric)["keywords"].get(
            "score_threshold") is None
    for peer in ("trec_eval", "ranx", "sklearn", "recbole"):
        assert all(v is None for v in [describe_convention(peer, "ndcg@10")["keywords"].get(
            "score_threshold")])


def test_torchmetrics_preset_on_logits():
    # logits: b is relevant but scored -0.5, c relevant with 1e-50 (0 in float32, as
    # torchmetrics stores preds), e relevant with 2.0
    recs = pd.DataFrame({"user": [1] * 4, "item": ["e", "a", "c", "b"],
                         "score": [2.0, 1.0, 1e-50, -0.5]})
    truth = pd.DataFrame({"user": [1] * 3, "item": ["b", "c", "e"], "relevance": [1] * 3})
    result = evaluate(recs, truth, ["RetrievalRecall", "RetrievalMAP", "RetrievalMRR",
                                    "RetrievalPrecision@4", "RetrievalHitRate@4",
                                    "RetrievalRPrecision"], convention="torchmetrics")
    # found: e only (c and b are <= 0 in float32); |R| = 3
    assert result.loc[1].tolist() == [1 / 3, 1.0, 1.0, 1 / 4, 1.0,
                                      # R-precision does not filter: e, a, c -> 2 of 3
                                      2 / 3]
    # the per-list functions apply it when given scores, in float64 (c counts there)
    assert ml.recall_at_k(["e", "a", "c", "b"], {"b": 1, "c": 1, "e": 1},
                          scores=[2.0, 1.0, 1e-50, -0.5], convention="torchmetrics") == 2 / 3
    assert ml.recall_at_k(["e", "a", "c", "b"], {"b": 1, "c": 1, "e": 1},
                          convention="torchmetrics") == 1.0


def test_polars_and_dask_inputs_agree():
    rng = np.random.default_rng(5)
    recs, truth = _random_tables(rng, "int64")
    names = ["recall@5", "map", "mrr", "precision@3"]
    want = evaluate(recs, truth, names, score_threshold=0.0)
    got = evaluate(convert(recs, "polars"), convert(truth, "polars"), names,
                   score_threshold=0.0)
    np.testing.assert_array_equal(got.select(names).to_numpy(), want.to_numpy())
    lazy = evaluate(*in_library("dask", recs, truth), names,
                    score_threshold=0.0).compute().sort_index()
    pd.testing.assert_frame_equal(lazy, want, check_dtype=False, check_index_type=False)
