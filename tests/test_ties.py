"""Tie modes ties="average" | "block" | "best" | "worst" (issue 12).

The references are independent of metrics_lib/_tie_kernels.py:
- "average", "best", "worst": every order of every tie group is enumerated
  and the per-list function scores each one with the list's own order
  (ties="input", no scores); the mean, max and min over the orders must match;
- "average" DCG/NDCG: scikit-learn dcg_score / ndcg_score (ignore_ties=False);
- "block" AP: scikit-learn average_precision_score and
  label_ranking_average_precision_score; the other "block" metrics: a naive
  implementation of "every tied item takes its group's last rank" below.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_lib import (average_precision, dcg_at_k, evaluate, f1_at_k, hit_at_k,
                         ndcg_at_k, precision_at_k, recall_at_k, reciprocal_rank)

sklearn_metrics = pytest.importorskip("sklearn.metrics")

BINARY = {"precision": precision_at_k, "recall": recall_at_k, "f1": f1_at_k,
          "hit": hit_at_k, "rr": reciprocal_rank, "ap": average_precision}
GRADED = {"dcg": dcg_at_k, "ndcg": ndcg_at_k}
ALL = {**BINARY, **GRADED}
# evaluate's names of the per-list functions
EVAL_NAME = {"precision": "precision", "recall": "recall", "f1": "f1", "hit": "hit",
             "rr": "mrr", "ap": "map", "dcg": "dcg", "ndcg": "ndcg"}


def tie_groups(items, scores):
    """Items sorted by score (descending, stable), split into tie groups."""
    order = sorted(range(len(items)), key=lambda i: -scores[i])
    return [[items[i] for i in group]
            for _, group in itertools.groupby(order, key=lambda i: scores[i])]


def all_orders(items, scores):
    groups = tie_groups(items, scores)
    for perms in itertools.product(*[itertools.permutations(g) for g in groups]):
        yield [item for perm in perms for item in perm]


def brute_force(function, items, scores, relevant, k, **kwargs):
    """Mean over all tie orders, and the values of the best and worst orders.

    The best (worst) order puts higher (lower) grades first inside each tie
    group. It is also the largest (smallest) value over all orders for every
    metric except AP with denominator="retrieved", whose mean over the hits
    can rise when fewer relevant items make the top k; there the test checks
    the order itself and that the bounds hold the other way round only where
    they should.
    """
    values = [function(order, relevant, k, **kwargs)
              for order in all_orders(items, scores)]
    position = {item: i for i, item in enumerate(items)}
    def grade(item):
        return relevant.get(item, 0)
    best = sorted(items, key=lambda i: (-scores[position[i]], -grade(i)))
    worst = sorted(items, key=lambda i: (-scores[position[i]], grade(i)))
    high = function(best, relevant, k, **kwargs)
    low = function(worst, relevant, k, **kwargs)
    if kwargs.get("denominator") != "retrieved" and not math.isnan(high):
        assert high == max(values) and low == min(values)
    return float(np.mean(values)), high, low


@st.composite
def tied_lists(draw, max_len=7):
    n = draw(st.integers(0, max_len))
    scores = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    grades = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    n_missed = draw(st.integers(0, 2))  # judged items the list never shows
    missed = draw(st.lists(st.integers(0, 3), min_size=n_missed, max_size=n_missed))
    items = [f"i{i}" for i in range(n)]
    relevant = {item: g for item, g in zip(items, grades) if g > 0 or draw(st.booleans())}
    relevant.update({f"m{i}": g for i, g in enumerate(missed)})
    k = draw(st.one_of(st.none(), st.integers(1, max_len + 2)))
    return items, [float(s) for s in scores], relevant, k


settings.register_profile("ties", max_examples=120, deadline=None)


@settings(max_examples=120, deadline=None)
@given(tied_lists(), st.sampled_from(sorted(BINARY)), st.sampled_from([1, 2]),
       st.sampled_from(["relevant", "min_k", "retrieved"]))
def test_binary_average_best_worst_equal_enumeration(case, kind, level, denominator):
    items, scores, relevant, k = case
    kwargs = {"relevance_level": level, "empty": "nan"}
    if kind == "ap":
        kwargs["denominator"] = denominator
    function = BINARY[kind]
    mean, high, low = brute_force(function, items, scores, relevant, k, **kwargs)
    average = function(items, relevant, k, scores=scores, ties="average", **kwargs)
    best = function(items, relevant, k, scores=scores, ties="best", **kwargs)
    worst = function(items, relevant, k, scores=scores, ties="worst", **kwargs)
    if math.isnan(mean):  # nothing relevant: the empty policy, in every mode
        assert math.isnan(average) and math.isnan(best) and math.isnan(worst)
        return
    assert average == pytest.approx(mean, rel=1e-12, abs=1e-12)
    assert best == pytest.approx(high, rel=1e-12, abs=1e-12)
    assert worst == pytest.approx(low, rel=1e-12, abs=1e-12)
    if denominator != "retrieved" or kind != "ap":
        assert worst <= average + 1e-12 and average <= best + 1e-12


@settings(max_examples=120, deadline=None)
@given(tied_lists(), st.sampled_from(sorted(GRADED)),
       st.sampled_from(["linear", "exponential"]), st.sampled_from([2, math.e]))
def test_graded_average_best_worst_equal_enumeration(case, kind, gain, log_base):
    items, scores, relevant, k = case
    kwargs = {"gain": gain, "log_base": log_base}
    if kind == "ndcg":
        kwargs["empty"] = "nan"
    function = GRADED[kind]
    mean, high, low = brute_force(function, items, scores, relevant, k, **kwargs)
    average = function(items, relevant, k, scores=scores, ties="average", **kwargs)
    best = function(items, relevant, k, scores=scores, ties="best", **kwargs)
    worst = function(items, relevant, k, scores=scores, ties="worst", **kwargs)
    if math.isnan(mean):
        assert math.isnan(average)
        return
    assert average == pytest.approx(mean, rel=1e-12, abs=1e-12)
    assert best == pytest.approx(high, rel=1e-12, abs=1e-12)
    assert worst == pytest.approx(low, rel=1e-12, abs=1e-12)


def test_average_is_not_the_input_order():
    # one tie group of three, the relevant item last in the input: the input
    # order gives RR 1/3, the expectation (1 + 1/2 + 1/3) / 3
    items, scores, relevant = ["a", "b", "c"], [1.0, 1.0, 1.0], {"c"}
    assert reciprocal_rank(items, relevant, scores=scores) == pytest.approx(1 / 3)
    assert reciprocal_rank(items, relevant, scores=scores, ties="average") == \
        pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert reciprocal_rank(items, relevant, scores=scores, ties="block") == \
        pytest.approx(1 / 3)
    assert reciprocal_rank(items, relevant, scores=scores, ties="best") == 1.0


def random_label_rows(rng, n_rows, n_labels, float32):
    y_true = rng.integers(0, 4, size=(n_rows, n_labels))
    if float32:  # distinct float64 values that are equal in float32
        base = rng.integers(0, 4, size=(n_rows, n_labels)).astype(np.float32)
        y_score = base.astype(np.float64) + rng.integers(0, 2, base.shape) * 1e-12
        y_score = y_score.astype(np.float32)
    else:
        y_score = rng.integers(-2, 3, size=(n_rows, n_labels)).astype(np.int64)
    return y_true, y_score


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [None, 1, 3, 5, 12])
def test_average_dcg_ndcg_equal_sklearn(seed, k):
    rng = np.random.default_rng(seed)
    y_true, y_score = random_label_rows(rng, 20, 9, float32=seed % 2 == 1)
    items = [f"label{j}" for j in range(y_true.shape[1])]
    for row in range(y_true.shape[0]):
        relevant = dict(zip(items, y_true[row].tolist()))
        dcg = dcg_at_k(items, relevant, k, scores=y_score[row], ties="average")
        assert dcg == pytest.approx(sklearn_metrics.dcg_score(
            y_true[row:row + 1], y_score[row:row + 1], k=k), rel=1e-12, abs=1e-12)
        if y_true[row].any():
            ndcg = ndcg_at_k(items, relevant, k, scores=y_score[row], ties="average")
            assert ndcg == pytest.approx(sklearn_metrics.ndcg_score(
                y_true[row:row + 1], y_score[row:row + 1], k=k), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_block_ap_equals_sklearn(seed):
    rng = np.random.default_rng(100 + seed)
    y_true, y_score = random_label_rows(rng, 30, 8, float32=seed % 2 == 0)
    labels = y_true >= 2
    items = list(range(10**15, 10**15 + y_true.shape[1]))  # 64-bit integer ids
    keep = labels.any(axis=1) & ~labels.all(axis=1)
    ours = []
    for row in np.flatnonzero(keep):
        relevant = dict(zip(items, y_true[row].tolist()))
        ap = average_precision(items, relevant, scores=y_score[row], ties="block",
                               relevance_level=2)
        assert ap == pytest.approx(sklearn_metrics.average_precision_score(
            labels[row], y_score[row]), rel=1e-12, abs=1e-12)
        ours.append(ap)
    lrap = sklearn_metrics.label_ranking_average_precision_score(
        labels[keep], y_score[keep])
    assert np.mean(ours) == pytest.approx(lrap, rel=1e-12)


def block_reference(kind, items, scores, relevant, k, level):
    """The block rule written out: rank = number of items scored at least as high."""
    rank = {item: sum(other >= score for other in scores)
            for item, score in zip(items, scores)}
    rel = [item for item in items if relevant.get(item, 0) >= level]
    n_rel = sum(grade >= level for grade in relevant.values())
    cutoff = len(items) if k is None else k
    inside = [item for item in rel if rank[item] <= cutoff]
    if kind == "precision":
        return len(inside) / cutoff if cutoff else 0.0
    if kind == "recall":
        return len(inside) / n_rel
    if kind == "f1":
        return 2 * len(inside) / (cutoff + n_rel) if inside else 0.0
    if kind == "hit":
        return float(bool(inside))
    if kind == "rr":
        return 1 / min(rank[item] for item in inside) if inside else 0.0
    total = sum(sum(rank[other] <= rank[item] for other in rel) / rank[item]
                for item in inside)
    return total / n_rel


@settings(max_examples=150, deadline=None)
@given(tied_lists(), st.sampled_from(sorted(BINARY)), st.sampled_from([1, 2]))
def test_block_equals_its_definition(case, kind, level):
    items, scores, relevant, k = case
    value = BINARY[kind](items, relevant, k, scores=scores, ties="block",
                         relevance_level=level, empty="nan")
    if not any(grade >= level for grade in relevant.values()):
        assert math.isnan(value)
        return
    assert value == pytest.approx(block_reference(kind, items, scores, relevant, k,
                                                  level), rel=1e-12, abs=1e-12)


def test_without_ties_every_mode_is_the_plain_value():
    rng = np.random.default_rng(5)
    items = [f"x{i}" for i in range(12)]
    scores = rng.permutation(12).astype(float)
    relevant = {item: int(g) for item, g in zip(items, rng.integers(0, 3, 12)) if g}
    ranked = [items[i] for i in np.argsort(-scores)]
    for kind, function in ALL.items():
        modes = ("average", "best", "worst") + (("block",) if kind in BINARY else ())
        for mode in modes:
            assert function(items, relevant, 5, scores=scores, ties=mode) == \
                pytest.approx(function(ranked, relevant, 5), rel=1e-12, abs=1e-15)


# -- evaluate --------------------------------------------------------------
def tied_tables(seed, id_kind):
    rng = np.random.default_rng(seed)
    rows = []
    for user in range(25):
        n = int(rng.integers(0, 9))  # some users recommend nothing
        scores = rng.integers(0, 3, n).astype(np.float32) / np.float32(3)
        for j, score in enumerate(scores):
            rows.append((user, j, float(score)))
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth_rows = [(user, j, int(rng.integers(0, 4)))
                  for user in range(28) for j in range(12) if rng.random() < 0.4]
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    if id_kind == "int64":  # ids above 2**53: equal in float64, not in int64
        for frame in (recs, truth):
            frame["item"] = frame["item"].astype(np.int64) + 2**60
            frame["user"] = frame["user"].astype(np.int64) * 3 + 2**61
    elif id_kind == "str":
        for frame in (recs, truth):
            frame["item"] = "item" + frame["item"].astype(str)
            frame["user"] = "u" + frame["user"].astype(str)
    recs = recs.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return recs, truth


METRICS = ["precision@3", "recall@3", "f1@3", "hit@2", "mrr", "mrr@3", "map", "map@4",
           "ndcg", "ndcg@3", "dcg@4", "precision@20", "map@20"]


@pytest.mark.parametrize("mode", ["average", "block", "best", "worst"])
@pytest.mark.parametrize("id_kind", ["int64", "str", "small"])
@pytest.mark.parametrize("denominator", ["relevant", "retrieved"])
def test_evaluate_equals_per_list(mode, id_kind, denominator):
    recs, truth = tied_tables(hash((mode, id_kind, denominator)) % 1000, id_kind)
    metrics = [m for m in METRICS
               if not (mode == "block" and m.startswith(("ndcg", "dcg")))]
    result = evaluate(recs, truth, metrics, ties=mode, denominator=denominator,
                      empty="nan")
    assert list(result.index) == sorted(truth["user"].unique())
    for user, judged in truth.groupby("user"):
        rows = recs[recs["user"] == user]
        relevant = dict(zip(judged["item"], judged["relevance"]))
        items, scores = rows["item"].tolist(), rows["score"].to_numpy()
        for metric in metrics:
            name, _, k = metric.partition("@")
            kind = {v: key for key, v in EVAL_NAME.items()}[name]
            kwargs = {"denominator": denominator} if kind == "ap" else {}
            if kind != "dcg":
                kwargs["empty"] = "nan"
            expected = ALL[kind](items, relevant, int(k) if k else None,
                                 scores=scores, ties=mode, **kwargs)
            got = result.loc[user, metric]
            assert (math.isnan(got) and math.isnan(expected)) or \
                got == pytest.approx(expected, rel=1e-12, abs=1e-12), (user, metric)


def test_evaluate_average_ndcg_equals_sklearn_and_rank_col():
    rng = np.random.default_rng(3)
    y_true, y_score = random_label_rows(rng, 15, 7, float32=False)
    users = np.repeat(np.arange(15), 7)
    items = np.tile(np.arange(7), 15)
    recs = pd.DataFrame({"user": users, "item": items, "score": y_score.ravel()})
    truth = pd.DataFrame({"user": users, "item": items, "relevance": y_true.ravel()})
    result = evaluate(recs, truth, ["ndcg@3", "dcg", "ndcg"], ties="average")
    for row in range(15):
        expected = sklearn_metrics.dcg_score(y_true[row:row + 1], y_score[row:row + 1])
        assert result["dcg"].iloc[row] == pytest.approx(expected, rel=1e-12)
        if y_true[row].any():
            expected = sklearn_metrics.ndcg_score(y_true[row:row + 1],
                                                  y_score[row:row + 1], k=3)
            assert result["ndcg@3"].iloc[row] == pytest.approx(expected, rel=1e-12)
    # equal ranks are ties too: rank = dense rank of the score
    ranked = recs.assign(rank=recs.groupby("user")["score"].rank(method="dense",
                                                                 ascending=False))
    by_rank = evaluate(ranked.drop(columns="score"), truth, ["ndcg@3", "dcg", "ndcg"],
                       ties="average", rank_col="rank")
    pd.testing.assert_frame_equal(by_rank, result)


def test_evaluate_block_map_equals_sklearn_lrap():
    rng = np.random.default_rng(11)
    y_true, y_score = random_label_rows(rng, 40, 6, float32=True)
    labels = y_true >= 1
    keep = labels.any(axis=1)
    users = np.repeat(np.arange(40), 6)
    recs = pd.DataFrame({"user": users, "item": np.tile(np.arange(6), 40),
                         "score": y_score.ravel()})
    truth = recs.assign(relevance=labels.ravel().astype(int)).drop(columns="score")
    result = evaluate(recs, truth, ["map"], ties="block", empty="nan")
    expected = sklearn_metrics.label_ranking_average_precision_score(
        labels[keep], y_score[keep])
    assert result["map"].to_numpy()[keep].mean() == pytest.approx(expected, rel=1e-12)


def test_evaluate_trec_counts_and_rprec():
    recs, truth = tied_tables(4, "small")
    counts = ["num_ret", "num_rel", "num_rel_ret"]
    for mode in ("average", "block", "best", "worst"):
        result = evaluate(recs, truth, counts + ["rprec"], ties=mode)
        plain = evaluate(recs, truth, counts, ties="item_desc")
        pd.testing.assert_frame_equal(result[counts], plain)
    best = evaluate(recs, truth, ["rprec", "bpref"], ties="best")
    worst = evaluate(recs, truth, ["rprec", "bpref"], ties="worst")
    average = evaluate(recs, truth, ["rprec"], ties="average")
    assert (worst["rprec"] <= average["rprec"] + 1e-12).all()
    assert (average["rprec"] <= best["rprec"] + 1e-12).all()
    assert (worst["bpref"] <= best["bpref"] + 1e-12).all()


def test_evaluate_bounds_hold_for_every_fixed_order():
    recs, truth = tied_tables(9, "int64")
    metrics = ["precision@3", "mrr", "map", "map@4", "ndcg@3", "hit@2"]
    best = evaluate(recs, truth, metrics, ties="best")
    worst = evaluate(recs, truth, metrics, ties="worst")
    average = evaluate(recs, truth, metrics, ties="average")
    for ties in ("item_desc", "item_asc", "input"):
        fixed = evaluate(recs, truth, metrics, ties=ties)
        assert (fixed <= best + 1e-12).all().all()
        assert (worst <= fixed + 1e-12).all().all()
    assert (worst <= average + 1e-12).all().all()
    assert (average <= best + 1e-12).all().all()


def test_evaluate_dask_gives_the_same_values():
    dd = pytest.importorskip("dask.dataframe")
    recs, truth = tied_tables(21, "str")
    metrics = ["map@4", "ndcg@3", "mrr", "hit@2"]
    expected = evaluate(recs, truth, metrics, ties="average")
    lazy = evaluate(dd.from_pandas(recs, npartitions=3),
                    dd.from_pandas(truth, npartitions=2), metrics, ties="average")
    got = lazy.compute().sort_index()
    pd.testing.assert_frame_equal(got, expected, check_exact=False, rtol=1e-12,
                                  check_index_type=False)


def test_inputs_are_not_modified():
    recs, truth = tied_tables(2, "small")
    before = recs.copy(), truth.copy()
    evaluate(recs, truth, ["map", "ndcg@3"], ties="average")
    pd.testing.assert_frame_equal(recs, before[0])
    pd.testing.assert_frame_equal(truth, before[1])
    items, scores = ["a", "b", "c"], [2, 1, 2]
    average_precision(items, {"b": 1}, scores=scores, ties="best")
    assert items == ["a", "b", "c"] and scores == [2, 1, 2]


# -- refusals --------------------------------------------------------------
@pytest.mark.parametrize("mode", ["average", "block", "best", "worst"])
def test_modes_need_scores(mode):
    with pytest.raises(ValueError, match="needs scores"):
        precision_at_k(["a", "b"], {"a"}, 1, ties=mode)


@pytest.mark.parametrize("scores, error, match", [
    ([1.0], ValueError, "one score per recommended item"),
    ([1.0, float("nan")], ValueError, "non-finite"),
    ([1.0, float("inf")], ValueError, "non-finite"),
    ([True, False], TypeError, "booleans"),
    (["1", "2"], TypeError, "real numbers"),
    ([1 + 2j, 1], TypeError, "real numbers"),
    ([[1.0, 2.0]], ValueError, "one-dimensional|one score"),
    (3.0, TypeError, "sequence"),
    ([2**70, 1], ValueError, "int64"),
])
def test_bad_scores(scores, error, match):
    with pytest.raises(error, match=match):
        ndcg_at_k(["a", "b"], {"a": 1}, scores=scores, ties="average")


def test_unknown_mode_and_unsupported_metrics():
    with pytest.raises(ValueError, match="ties"):
        precision_at_k(["a"], {"a"}, scores=[1], ties="random")
    with pytest.raises(ValueError, match="ties='average'"):
        ndcg_at_k(["a", "b"], {"a": 1}, scores=[1, 1], ties="average", ideal="retrieved")
    for function in (dcg_at_k, ndcg_at_k):
        with pytest.raises(ValueError, match="ties='block'"):
            function(["a", "b"], {"a": 1}, scores=[1, 1], ties="block")
    recs = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [1], "relevance": [1]})
    for mode, metric in [("block", "ndcg@2"), ("block", "dcg"), ("average", "bpref"),
                         ("block", "iprec_at_recall_0.5")]:
        with pytest.raises(ValueError, match=f"ties='{mode}'"):
            evaluate(recs, truth, [metric], ties=mode)
    with pytest.raises(ValueError, match="ideal='retrieved'"):
        evaluate(recs, truth, ["ndcg"], ties="average", ideal="retrieved")


def test_integer_scores_beyond_float64_keep_their_order():
    # 2**53 + 1 and 2**53 are equal in float64 but not as integers: no tie
    items, scores = ["low", "high"], [2**53, 2**53 + 1]
    assert reciprocal_rank(items, {"high"}, scores=scores, ties="average") == 1.0
    recs = pd.DataFrame({"user": [1, 1], "item": items,
                         "score": np.array(scores, dtype=np.int64)})
    truth = pd.DataFrame({"user": [1], "item": ["high"], "relevance": [1]})
    assert evaluate(recs, truth, ["mrr"], ties="average")["mrr"].iloc[0] == 1.0


def seeded_case(rng):
    n = int(rng.integers(2, 6))
    scores = rng.integers(0, 2, n).astype(float)  # few distinct scores: big tie groups
    grades = rng.integers(0, 3, n)
    items = [f"i{i}" for i in range(n)]
    relevant = {item: int(g) for item, g in zip(items, grades)}
    relevant["missed"] = int(rng.integers(0, 3))
    k = int(rng.integers(1, n + 1))  # often inside a tie group
    return items, scores, relevant, k


@pytest.mark.parametrize("seed", range(12))
def test_every_metric_and_denominator_on_seeded_cut_groups(seed):
    # Not left to hypothesis' sampling: k cutting a tie group that holds both
    # relevant and non-relevant items is the case every closed form must get right.
    rng = np.random.default_rng(7000 + seed)
    for _ in range(15):
        items, scores, relevant, k = seeded_case(rng)
        for kind, function in ALL.items():
            variants = ([{"denominator": d} for d in ("relevant", "min_k", "retrieved")]
                        if kind == "ap" else [{}])
            for kwargs in variants:
                if kind in BINARY:
                    kwargs = {**kwargs, "relevance_level": 2}
                mean, high, low = brute_force(function, items, scores, relevant, k,
                                              **kwargs)
                for mode, expected in (("average", mean), ("best", high),
                                       ("worst", low)):
                    got = function(items, relevant, k, scores=scores, ties=mode, **kwargs)
                    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12), \
                        (kind, kwargs, mode, items, scores, relevant, k)


@pytest.mark.parametrize("mode", ["average", "block", "best", "worst"])
def test_threads_give_the_same_values(mode, monkeypatch):
    # Chunks of users per thread see their own slice of the tie groups; make
    # the chunks small enough to exist on a small table.
    import sys

    chunks_module = sys.modules["metrics_lib.batch.chunks"]
    monkeypatch.setattr(chunks_module, "_MIN_ROWS_PER_THREAD", 8)
    recs, truth = tied_tables(33, "int64")
    metrics = ["precision@3", "mrr", "map@4", "hit@2", "rprec"] + (
        [] if mode == "block" else ["ndcg@3", "dcg"])
    one = evaluate(recs, truth, metrics, ties=mode)
    three = evaluate(recs, truth, metrics, ties=mode, n_jobs=3)
    pd.testing.assert_frame_equal(one, three, check_exact=True)


def test_keywords_the_closed_forms_do_not_know_are_refused():
    # A keyword added to a per-list function or to evaluate later (say a
    # precision denominator) must not be ignored silently by "average"/"block".
    from metrics_lib._tie_kernels import refuse_unknown_options
    from metrics_lib.ranking import _tied

    def precision_with_more_keywords(recommended, relevant, k=None, **kwargs):
        return precision_at_k(recommended, relevant, k)

    for mode in ("average", "block"):
        with pytest.raises(ValueError, match="not supported"):
            _tied(precision_with_more_keywords, "precision", ["a", "b"], {"a"}, 1,
                  [1.0, 1.0], mode, denominator="min_k")
        with pytest.raises(ValueError, match="does not support"):
            refuse_unknown_options(mode, {"metrics": [], "precision_denominator": "min_k"})
    # other branches' keywords at their neutral values change nothing: accepted
    assert _tied(precision_with_more_keywords, "precision", ["a", "b"], {"b"}, 1,
                 [1.0, 1.0], "average", denominator="k", truncate=None,
                 judged_only=False) == 0.5
    refuse_unknown_options("average", {"metrics": [], "precision_denominator": "k",
                                       "truncate": None, "unjudged": "empty"})
    with pytest.raises(ValueError, match="does not support"):
        refuse_unknown_options("block", {"truncate": 5})
    # option values the closed forms do not implement are refused, not ignored
    from metrics_lib._tie_kernels import TieGroups, tie_starts
    lengths = np.array([2])
    groups = TieGroups(lengths, tie_starts(np.array([1.0, 1.0]), lengths),
                       np.array([0]), np.array([1.0]), np.array([0]), np.array([1.0]), 1)
    base = {"relevance_level": 1, "gain": "linear", "log_base": 2,
            "denominator": "relevant"}
    for kind, change in [("ndcg", {"gain": "binary"}), ("dcg", {"gain": {1: 3.0}}),
                         ("ap", {"denominator": "k"})]:
        with pytest.raises(ValueError, match="not available"):
            groups.measure("average", kind, 2, {**base, **change})
    with pytest.raises(ValueError, match="not available"):
        groups.measure("average", "rprec", 2, base)
    # best/worst re-order the list and call the function itself: nothing is lost
    assert _tied(precision_with_more_keywords, "precision", ["a", "b"], {"b"}, 1,
                 [1.0, 1.0], "best", denominator="min_k") == 1.0
    refuse_unknown_options("best", {"precision_denominator": "k"})


# -- trec_measures ---------------------------------------------------------
@settings(max_examples=100, deadline=None)
@given(tied_lists(max_len=6), st.sampled_from([1, 2]))
def test_trec_measures_against_enumeration(case, level):
    from metrics_lib import bpref, interpolated_precision, r_precision

    items, scores, relevant, _ = case
    kwargs = {"relevance_level": level}
    mean, high, low = brute_force(lambda r, rel, k, **kw: r_precision(r, rel, **kw),
                                  items, scores, relevant, None, **kwargs)
    assert r_precision(items, relevant, scores=scores, ties="average", **kwargs) == \
        pytest.approx(mean, rel=1e-12, abs=1e-12)
    assert r_precision(items, relevant, scores=scores, ties="best", **kwargs) == high
    assert r_precision(items, relevant, scores=scores, ties="worst", **kwargs) == low
    values = [bpref(order, relevant, **kwargs) for order in all_orders(items, scores)]
    assert bpref(items, relevant, scores=scores, ties="best", **kwargs) == max(values)
    assert bpref(items, relevant, scores=scores, ties="worst", **kwargs) == min(values)
    curves = np.array([interpolated_precision(order, relevant, **kwargs)
                       for order in all_orders(items, scores)])
    np.testing.assert_array_equal(
        interpolated_precision(items, relevant, scores=scores, ties="best", **kwargs),
        curves.max(axis=0))
    np.testing.assert_array_equal(
        interpolated_precision(items, relevant, scores=scores, ties="worst", **kwargs),
        curves.min(axis=0))
    for function in (bpref, interpolated_precision):
        for mode in ("average", "block"):
            with pytest.raises(ValueError, match=f"ties='{mode}'"):
                function(items, relevant, scores=scores, ties=mode)


def test_trec_measures_equal_evaluate():
    from metrics_lib import bpref, r_precision

    recs, truth = tied_tables(41, "small")
    for mode in ("average", "block", "best", "worst"):
        result = evaluate(recs, truth, ["rprec", "bpref"] if mode in ("best", "worst")
                          else ["rprec"], ties=mode, empty="nan")
        for user, judged in truth.groupby("user"):
            rows = recs[recs["user"] == user]
            relevant = dict(zip(judged["item"], judged["relevance"]))
            expected = r_precision(rows["item"].tolist(), relevant, empty="nan",
                                   scores=rows["score"].to_numpy(), ties=mode)
            got = result.loc[user, "rprec"]
            assert (math.isnan(got) and math.isnan(expected)) or \
                got == pytest.approx(expected, rel=1e-12, abs=1e-12)
            if mode in ("best", "worst"):
                expected = bpref(rows["item"].tolist(), relevant, empty="nan",
                                 scores=rows["score"].to_numpy(), ties=mode)
                got = result.loc[user, "bpref"]
                assert (math.isnan(got) and math.isnan(expected)) or \
                    got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("score_dtype, id_dtype", [
    ("Float32", "Int64"), ("float32[pyarrow]", "int64[pyarrow]"),
    ("Float64", "string"), ("double[pyarrow]", "string[pyarrow]")])
def test_nullable_and_pyarrow_dtypes(score_dtype, id_dtype):
    pytest.importorskip("pyarrow")
    kind = "str" if "string" in id_dtype else "small"
    recs, truth = tied_tables(17, kind)
    metrics = ["map@4", "ndcg@3", "mrr", "hit@2", "precision@3"]
    expected = evaluate(recs, truth, metrics, ties="average")
    converted = [frame.astype({"user": id_dtype, "item": id_dtype})
                 for frame in (recs, truth)]
    converted[0]["score"] = converted[0]["score"].astype(score_dtype)
    got = evaluate(*converted, metrics, ties="average")
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-12)
    # per list: a Series of such scores is read the same way
    user = truth["user"].iloc[0]
    rows = converted[0][converted[0]["user"] == user]
    relevant = dict(zip(truth.loc[truth["user"] == user, "item"],
                        truth.loc[truth["user"] == user, "relevance"]))
    plain_rows = recs[recs["user"] == user]
    assert average_precision(list(rows["item"]), relevant, 4, scores=rows["score"],
                             ties="average") == average_precision(
        plain_rows["item"].tolist(), relevant, 4, scores=plain_rows["score"].to_numpy(),
        ties="average")


def test_means_over_users_take_score_lists():
    from metrics_lib import mean_average_precision, mean_reciprocal_rank

    lists = [["a", "b", "c"], ["x", "y"]]
    truth = [{"c"}, {"x", "y"}]
    scores = [[1.0, 1.0, 1.0], [2, 2]]
    for mode in ("input", "average", "block", "best", "worst"):
        assert mean_reciprocal_rank(lists, truth, scores_lists=scores, ties=mode) == \
            pytest.approx(np.mean([reciprocal_rank(lists[u], truth[u], scores=scores[u],
                                                   ties=mode) for u in range(2)]))
        assert mean_average_precision(lists, truth, k=2, scores_lists=scores,
                                      ties=mode) == pytest.approx(np.mean(
            [average_precision(lists[u], truth[u], 2, scores=scores[u], ties=mode)
             for u in range(2)]))
    assert mean_reciprocal_rank(lists, truth, scores_lists=scores, ties="average") == \
        pytest.approx(((1 + 1 / 2 + 1 / 3) / 3 + 1) / 2)
    with pytest.raises(ValueError, match="user 0: ties='average' needs scores"):
        mean_reciprocal_rank(lists, truth, ties="average")
    with pytest.raises(ValueError, match="one entry per user"):
        mean_average_precision(lists, truth, scores_lists=scores[:1], ties="average")
