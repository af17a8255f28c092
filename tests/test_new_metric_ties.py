"""The tie modes of issue 29's metrics (set measures, RBP, Judged@k, relative_P, ERR, intents).

* trec_eval's set measures see the list as a set: every ``ties=`` mode must
  give the value of any fixed order;
* RBP, its residual, Judged@k and relative_P@k are linear in the weights of
  the positions, so ``ties="average"`` (the expectation over the orders of
  tied items) is exact: checked against brute force over every order of
  every tie group of small random lists; ``"block"`` (every tied item at the
  group's last rank) against its definition for Judged@k and relative_P@k;
* ERR and the intent metrics are not linear in the order: refused with the
  reason.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate, judged_at_k, rank_biased_precision

SET_MEASURES = ["set_p", "set_recall", "set_f", "set_f(beta=0.5)", "set_map",
                "set_relative_p", "num_nonrel_judged_ret"]
MODES = ["average", "block", "best", "worst"]
BIG = 2**40  # 64-bit ids


def _random_frames(seed, n_users=12, id_kind="int64"):
    """Lists with many ties (scores from 3 values, some float32), graded truth,
    short lists and users without a relevant item."""
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for user in range(n_users):
        length = int(rng.integers(1, 8))
        items = rng.choice(30, size=length, replace=False) + BIG
        scores = rng.choice([0.1, 0.3, 0.7], size=length)
        recs += [(user + BIG, int(i), float(s)) for i, s in zip(items, scores)]
        judged = rng.choice(30, size=int(rng.integers(1, 9)), replace=False) + BIG
        grades = rng.choice([0, 0, 1, 2, 3], size=judged.size)
        if user % 5 == 0:
            grades = np.zeros(judged.size, dtype=int)  # no relevant item
        truth += [(user + BIG, int(i), float(g)) for i, g in zip(judged, grades)]
    recs = pd.DataFrame(recs, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    if id_kind == "Int64":
        for frame in (recs, truth):
            frame["user"] = frame["user"].astype("Int64")
            frame["item"] = frame["item"].astype("Int64")
    elif id_kind == "pyarrow":
        for frame in (recs, truth):
            frame["user"] = frame["user"].astype("int64[pyarrow]")
            frame["item"] = frame["item"].astype(str).astype("string[pyarrow]")
    if seed % 2:
        recs["score"] = recs["score"].astype(np.float32)  # equal float32 scores tie
    return recs, truth


def _orders(items, scores):
    """Every order of the list that sorts it by decreasing score (ties permuted)."""
    groups = [list(g) for _, g in itertools.groupby(
        sorted(zip(items, scores), key=lambda pair: -pair[1]), key=lambda pair: pair[1])]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [item for part in parts for item, _ in part]


def _relative_p(ranked, grades, k, level=1.0):
    """trec_eval's relative_P (m_rel_P.c), from its definition."""
    n_rel = sum(g >= level for g in grades.values())
    if n_rel == 0:
        return 0.0
    return sum(grades.get(item, -1) >= level for item in ranked[:k]) / min(k, n_rel)


def _brute(user_recs, grades, metric):
    """The mean of ``metric(order)`` over every order of the tie groups."""
    values = [metric(order) for order in _orders(list(user_recs["item"]),
                                                  list(user_recs["score"]))]
    return float(np.mean(values))


def _per_user(recs, truth):
    """(user, its rows, its judgements as a dict item -> grade) of users with truth."""
    for user, rows in recs.groupby("user", sort=True):
        judged = truth[truth["user"] == user]
        if len(judged):
            yield user, rows, dict(zip(judged["item"], judged["relevance"].astype(float)))


LINEAR = {
    "rbp(p=0.8)": lambda order, grades: rank_biased_precision(order, grades, 0.8),
    "rbp(p=0.5)": lambda order, grades: rank_biased_precision(order, grades, 0.5),
    "rbp_resid(p=0.8)": lambda order, grades: rank_biased_precision(
        order, grades, 0.8, residual=True),
    "judged@3": lambda order, grades: judged_at_k(order, grades, 3),
    "judged": lambda order, grades: judged_at_k(order, grades),
    "relative_p@2": lambda order, grades: _relative_p(order, grades, 2),
    "relative_p@5": lambda order, grades: _relative_p(order, grades, 5),
}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("id_kind", ["int64", "Int64", "pyarrow"])
def test_set_measures_same_value_in_every_mode(seed, id_kind):
    recs, truth = _random_frames(seed, id_kind=id_kind)
    fixed = evaluate(recs, truth, SET_MEASURES, ties="item_desc")
    for mode in MODES:
        got = evaluate(recs, truth, SET_MEASURES, ties=mode)
        pd.testing.assert_frame_equal(got, fixed, check_exact=False, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed", range(8))
def test_average_of_linear_metrics_is_the_mean_over_every_tie_order(seed):
    recs, truth = _random_frames(seed, id_kind=["int64", "Int64", "pyarrow"][seed % 3])
    got = evaluate(recs, truth, list(LINEAR), ties="average")
    compared = 0
    for user, rows, grades in _per_user(recs, truth):
        for name, metric in LINEAR.items():
            expected = _brute(rows, grades, lambda order, m=metric: m(order, grades))
            assert got.loc[user, name] == pytest.approx(expected, abs=1e-12), (user, name)
            compared += 1
    assert compared > 50


@pytest.mark.parametrize("seed", range(4))
def test_per_list_average_matches_brute_force(seed):
    recs, truth = _random_frames(seed)
    for _, rows, grades in _per_user(recs, truth):
        items, scores = list(rows["item"]), list(rows["score"])
        for p in (0.5, 0.8):
            for residual in (False, True):
                expected = _brute(rows, grades, lambda order: rank_biased_precision(
                    order, grades, p, residual=residual))
                got = rank_biased_precision(items, grades, p, residual=residual,
                                            scores=scores, ties="average")
                assert got == pytest.approx(expected, abs=1e-12)
        for k in (1, 3, None):
            expected = _brute(rows, grades, lambda order: judged_at_k(order, grades, k))
            got = judged_at_k(items, grades, k, scores=scores, ties="average")
            assert got == pytest.approx(expected, abs=1e-12)


def _block_value(rows, grades, k, count):
    """Judged@k / relative_P@k with every tied item at its group's last rank."""
    scores = rows["score"].to_numpy()
    last = np.array([(scores >= s).sum() for s in scores])  # group's last rank
    inside = [item for item, r in zip(rows["item"], last) if r <= k]
    return count(inside)


@pytest.mark.parametrize("seed", range(6))
def test_block_judged_and_relative_p(seed):
    recs, truth = _random_frames(seed)
    got = evaluate(recs, truth, ["judged@3", "relative_p@3"], ties="block")
    for user, rows, grades in _per_user(recs, truth):
        n_rel = sum(g >= 1 for g in grades.values())
        judged = _block_value(rows, grades, 3,
                              lambda inside: sum(grades.get(i, -1) >= 0 for i in inside))
        assert got.loc[user, "judged@3"] == pytest.approx(judged / min(3, len(rows)))
        rel = _block_value(rows, grades, 3,
                           lambda inside: sum(grades.get(i, -1) >= 1 for i in inside))
        assert got.loc[user, "relative_p@3"] == pytest.approx(
            rel / min(3, n_rel) if n_rel else 0.0)


def test_residual_tail_always_with_average():
    recs, truth = _random_frames(3)
    got = evaluate(recs, truth, ["rbp_resid(p=0.8)"], ties="average",
                   residual_tail="always")
    for user, rows, grades in _per_user(recs, truth):
        expected = _brute(rows, grades, lambda order: rank_biased_precision(
            order, grades, 0.8, residual=True, residual_tail="always"))
        assert got.loc[user, "rbp_resid(p=0.8)"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("mode", ["average", "block"])
@pytest.mark.parametrize("metric", ["err@5", "err"])
def test_err_refused_with_the_reason(metric, mode):
    recs, truth = _random_frames(0)
    with pytest.raises(ValueError, match="not linear in the order.*ties='best'"):
        evaluate(recs, truth, [metric], ties=mode)


@pytest.mark.parametrize("mode", ["average", "block"])
@pytest.mark.parametrize("metric", ["alpha_ndcg@5", "err_ia@5", "s_recall@5"])
def test_intent_metrics_refused_with_the_reason(metric, mode):
    recs, truth = _random_frames(0)
    truth = truth.assign(intent=1)
    with pytest.raises(ValueError, match="not linear in the order.*fixed order"):
        evaluate(recs, truth, [metric], ties=mode, intent_col="intent")


@pytest.mark.parametrize("mode", ["average", "block"])
def test_p_ia_refused_with_the_reason(mode):
    recs, truth = _random_frames(0)
    with pytest.raises(ValueError, match="do not read the intents"):
        evaluate(recs, truth.assign(intent=1), ["p_ia@5"], ties=mode, intent_col="intent")


@pytest.mark.parametrize("metric", ["rbp(p=0.8)", "rbp_resid(p=0.8)"])
def test_rbp_block_refused_with_the_reason(metric):
    recs, truth = _random_frames(0)
    with pytest.raises(ValueError, match="RBP of no order.*ties='average'"):
        evaluate(recs, truth, [metric], ties="block")
    with pytest.raises(ValueError, match="RBP of no order"):
        rank_biased_precision(["a", "b"], {"a": 1}, 0.8, scores=[1, 1], ties="block")


def _bound(user_rows, grades, metric, pick):
    return pick(metric(order) for order in _orders(list(user_rows["item"]),
                                                   list(user_rows["score"])))


@pytest.mark.parametrize("seed", range(6))
def test_judged_best_and_worst_are_the_bounds_over_tie_orders(seed):
    recs, truth = _random_frames(seed, id_kind=["int64", "Int64", "pyarrow"][seed % 3])
    names = ["judged@1", "judged@3", "judged", "ndcg@3"]
    for mode, pick in (("best", max), ("worst", min)):
        got = evaluate(recs, truth, names, ties=mode)
        # the other metrics of the call keep their own best / worst order
        alone = evaluate(recs, truth, ["ndcg@3"], ties=mode)
        pd.testing.assert_series_equal(got["ndcg@3"], alone["ndcg@3"])
        for user, rows, grades in _per_user(recs, truth):
            for k in (1, 3, None):
                expected = _bound(rows, grades, lambda o, k=k: judged_at_k(o, grades, k),
                                  pick)
                name = "judged" if k is None else f"judged@{k}"
                assert got.loc[user, name] == pytest.approx(expected, abs=1e-15)
                per_list = judged_at_k(list(rows["item"]), grades, k,
                                       scores=list(rows["score"]), ties=mode)
                assert per_list == pytest.approx(expected, abs=1e-15)


def test_judged_bounds_refuse_judged_only_and_truncate():
    recs, truth = _random_frames(1)
    for keyword in ({"judged_only": True}, {"truncate": 2}):
        with pytest.raises(ValueError, match="not available with judged_only=True or"):
            evaluate(recs, truth, ["judged@3"], ties="best", **keyword)
