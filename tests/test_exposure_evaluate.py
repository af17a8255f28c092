"""Exposure as evaluate metrics (issue 29, point 1), and word values in metric names.

``ee_loss``, ``ee_disparity``, ``ee_relevance`` (Diaz et al. 2020, each
user's list as one deterministic ranking) must equal
:func:`expected_exposure_batch` given each list as one sample cut at k, on
random data with ties in grades, graded truth, lists shorter than k, users
without relevant items, every id kind and backend. No peer computes the
per-user share of one group's exposure (``group_exposure@k``): it is
checked against the definition computed list by list in plain Python, and
its mean against :func:`group_exposure_batch` where the two must agree.
``aplt(head=items)`` is checked against :func:`long_tail_share`.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from metrics_lib import (evaluate, expected_exposure, expected_exposure_batch,
                         group_exposure_batch, long_tail_share)
from metrics_lib.ranking.registry import Parameter, parse_metric_name

TOL = 1e-12
EE = ("ee_loss", "ee_disparity", "ee_relevance")


# ------------------------------------------------------------------ data
def _tables(seed, ids="int64", n_users=30, n_items=25):
    """(recommendations with distinct ranks, truth): ties in grades, users without
    a positive grade, users only in truth, lists of 0-9 items."""
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for user in range(n_users):
        length = int(rng.integers(0, 10))  # 0: a user only in truth
        items = rng.choice(n_items, size=length, replace=False)
        recs += [(user, int(i), r + 1) for r, i in enumerate(items)]
        judged = rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False)
        nothing = rng.random() < 0.2  # no positive grade
        truth += [(user, int(i), 0 if nothing else int(rng.choice([0, 1, 1, 2, 3])))
                  for i in judged]
    recs = pd.DataFrame(recs, columns=["user", "item", "rank"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    return _with_ids(recs, ids), _with_ids(truth, ids)


def _with_ids(frame, ids):
    frame = frame.copy()
    if ids == "big":  # 64-bit ids past 2**53
        frame["item"] = frame["item"].astype(np.int64) + 2**62
        frame["user"] = frame["user"].astype(np.int64) + 2**61
    elif ids == "nullable":
        frame["item"] = frame["item"].astype("Int64")
        frame["user"] = frame["user"].astype("Int64")
    elif ids == "pyarrow":
        frame["item"] = ("i" + frame["item"].astype(str)).astype("string[pyarrow]")
        frame["user"] = frame["user"].astype("int64[pyarrow]")
    elif ids == "string":
        frame["item"] = "i" + frame["item"].astype(str)
        frame["user"] = "u" + frame["user"].astype(str)
    return frame


def _reference_ee(recs, truth, k, level, p):
    """expected_exposure_batch with each list as one sample cut at k, the truth
    cut to the grades >= level (complete: every row left is placed)."""
    runs = recs.assign(sample=0)
    if k is not None:
        runs = runs[runs["rank"] <= k]
    placed = truth[truth["relevance"] >= level]
    runs = runs[runs["user"].isin(set(placed["user"]))]
    return expected_exposure_batch(runs, placed, patience=p, complete=True)


def _ideal(truth, user, level, p):
    """sum of the target exposures squared: the loss of an empty list."""
    rows = truth[(truth["user"] == user) & (truth["relevance"] >= level)]
    rel = dict(zip(rows["item"].tolist(), rows["relevance"].astype(float).tolist()))
    dummy = "never judged" if isinstance(next(iter(rel)), str) else -1
    return expected_exposure([[dummy]], rel, patience=p, complete=True)["loss"] - 1.0


# ----------------------------------------------------------- word parameters
def test_word_parameters_in_names():
    name = parse_metric_name("Group_Exposure( weights = Geometric , p=.8 )@10")
    assert (name.kind, name.k) == ("group_exposure", 10)
    assert name.parameters == {"weights": "geometric", "p": 0.8}
    assert name.canonical == "group_exposure(weights=geometric,p=0.8)@10"
    assert parse_metric_name("group_exposure@5").parameters == {"weights": "log", "p": 0.5}
    assert parse_metric_name("group_exposure(weights=log)@5").canonical == "group_exposure@5"
    aplt = parse_metric_name("aplt(head=items, head_share=0.2)@10")
    assert aplt.parameters == {"head_share": 0.2, "head": "items"}
    assert parse_metric_name("aplt@10").parameters == {"head_share": 0.8, "head": "ratings"}


@pytest.mark.parametrize("name, words", [
    ("group_exposure(weights=geometrc)@10", ["'geometric'"]),
    ("group_exposure(weights=lg)", ["'log'"]),
    ("aplt(head=itmes)@5", ["'items'"]),
    ("aplt(head=rating)", ["'ratings'"]),
])
def test_misspelt_words_get_did_you_mean(name, words):
    with pytest.raises(ValueError, match="did you mean") as error:
        parse_metric_name(name)
    assert all(word in str(error.value) for word in words)
    assert "one of" in str(error.value)


@pytest.mark.parametrize("name, says", [
    ("group_exposure(weights=2)", "one of 'log', 'geometric', 'equal'"),
    ("group_exposure(weights=)", "has no value"),
    ("aplt(head=0.5)", "one of 'ratings', 'items'"),
    ("ee_loss(p=log)", "strictly between 0 and 1"),
    ("ee_loss(p=1)", "strictly between 0 and 1"),
    ("ee_loss(gamma=0.5)", "takes no parameter gamma"),
    ("group_exposure(p=0.5, p=0.6)", "given twice"),
])
def test_bad_values_are_refused(name, says):
    with pytest.raises(ValueError) as error:
        parse_metric_name(name)
    assert says in str(error.value)


@pytest.mark.parametrize("arguments", [
    dict(interval=None, choices=()),                          # no words, no interval
    dict(interval="(0, 1)", choices=("a", "b")),              # both
    dict(interval=None, choices=("A", "b")),                  # not lower case
    dict(interval=None, choices=("a", "a")),                  # repeated
    dict(interval=None, choices=("a", "b"), default="c"),     # default not a word
    dict(interval=None, choices=("a", "b"), integer=True),
])
def test_malformed_word_parameters_are_refused(arguments):
    with pytest.raises(ValueError):
        Parameter("w", arguments.pop("interval"), "test", **arguments)


def test_aplt_head_items_equals_long_tail_share():
    rng = np.random.default_rng(5)
    compared, worst = 0, 0.0
    for seed in range(3):
        train = pd.DataFrame({"user": rng.integers(0, 40, 300),
                              "item": rng.choice(30, 300, p=np.r_[np.full(10, 0.07),
                                                                  np.full(20, 0.015)])})
        recs, truth = _tables(seed)
        popularity = train.groupby("item").size()
        names = ["aplt(head=items)@3", "aplt(head=items, head_share=0.2)", "aplt(head="
                 "items,head_share=0.35)@20", "aplt(head=ratings)@4"]
        got = evaluate(recs, truth, names, rank_col="rank", item_popularity=popularity,
                       missing="skip")
        # one metric spelt twice is refused in one call: the default in a call of its own
        got["aplt@4"] = evaluate(recs, truth, ["aplt@4"], rank_col="rank",
                                 item_popularity=popularity, missing="skip")["aplt@4"]
        names.append("aplt@4")
        pairs = list(zip(train["user"], train["item"]))
        for user in got.index:
            items = recs[recs["user"] == user].sort_values("rank")["item"].tolist()
            for name in names:
                parsed = parse_metric_name(name)
                want = long_tail_share(items, pairs, k=parsed.k, **parsed.parameters)
                worst = max(worst, abs(got.loc[user, name] - want))
                compared += 1
        # the default is head=ratings, as before
        np.testing.assert_array_equal(got["aplt(head=ratings)@4"], got["aplt@4"])
    assert compared > 300 and worst <= TOL


# -------------------------------------------------------- expected exposure
def test_ee_hand_example():
    # exposures 1, 0.5, 0.25 of a, b, c; grades c 2, b 1: targets 1 and 0.5
    recs = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "rank": [1, 2, 3]})
    truth = pd.DataFrame({"user": [1, 1, 1], "item": ["b", "c", "d"],
                          "relevance": [1, 2, 0]})
    got = evaluate(recs, truth, list(EE) + ["ee_loss@1", "ee_relevance@2"],
                   rank_col="rank")
    assert got.loc[1, "ee_disparity"] == 1 + 0.25 + 0.0625
    assert got.loc[1, "ee_relevance"] == 0.5 * 0.5 + 0.25 * 1.0
    assert got.loc[1, "ee_loss"] == 1.0 + 0.0 + 0.75 ** 2
    assert got.loc[1, "ee_loss@1"] == 1.0 + 0.5 ** 2 + 1.0   # a shown, b and c not
    assert got.loc[1, "ee_relevance@2"] == 0.25
    # relevance_level=0 places d (grade 0) too: target 0.25 at rank 3 of the ideal
    zero = evaluate(recs, truth, ["ee_loss"], rank_col="rank", relevance_level=0)
    assert zero.loc[1, "ee_loss"] == pytest.approx(1.0 + 0.0 + 0.75 ** 2 + 0.25 ** 2,
                                                   abs=TOL)


def test_ee_tied_grades_share_their_positions():
    # two items of grade 1, p=0.5: each target (1 - 0.25) / (2 * 0.5) = 0.75
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
    truth = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "relevance": [1, 1]})
    got = evaluate(recs, truth, list(EE), rank_col="rank")
    assert got.loc[1, "ee_relevance"] == 0.75 * 1.0 + 0.75 * 0.5
    assert got.loc[1, "ee_loss"] == pytest.approx(0.25 ** 2 + 0.25 ** 2, abs=TOL)


def test_ee_ideal_list_with_distinct_grades_has_no_loss():
    recs = pd.DataFrame({"user": [7] * 4, "item": [4, 3, 2, 1], "rank": [1, 2, 3, 4]})
    truth = pd.DataFrame({"user": [7] * 4, "item": [1, 2, 3, 4], "relevance": [1, 2, 3, 4]})
    for p in (0.2, 0.5, 0.9):
        got = evaluate(recs, truth, [f"ee_loss(p={p})"], rank_col="rank")
        assert got.iloc[0, 0] == pytest.approx(0.0, abs=TOL)


@pytest.mark.parametrize("ids", ["int64", "big", "nullable", "pyarrow", "string"])
@pytest.mark.parametrize("level", [0, 1, 2])
def test_ee_equals_expected_exposure_batch(ids, level):
    compared, worst = 0, 0.0
    for seed in range(3):
        recs, truth = _tables(seed, ids)
        for p, k in ((0.5, None), (0.8, 3), (0.3, 20), (0.5, 1)):
            suffix = ("" if p == 0.5 else f"(p={p})") + ("" if k is None else f"@{k}")
            names = [f"{metric}{suffix}" for metric in EE]
            got = evaluate(recs, truth, names, rank_col="rank", relevance_level=level,
                           empty="nan", missing="skip")
            want = _reference_ee(recs, truth, k, level, p)
            users = set(got.index[got[names[0]].notna()])
            assert users == set(want.index)  # the others have no placed item
            for name, column in zip(names, want.columns):
                diff = np.abs(got.loc[list(want.index), name].to_numpy()
                              - want[column].to_numpy())
                worst = max(worst, float(diff.max(initial=0.0)))
                compared += len(diff)
    assert compared > 500 and worst <= TOL


@pytest.mark.parametrize("empty, value", [("zero", 0.0), ("one", 1.0), ("nan", np.nan)])
def test_ee_users_without_placed_items_follow_empty(empty, value):
    recs, truth = _tables(11)
    got = evaluate(recs, truth, list(EE), rank_col="rank", empty=empty, missing="skip")
    placed = set(truth.loc[truth["relevance"] >= 1, "user"])
    without = [user for user in got.index if user not in placed]
    assert without  # the data has such users
    np.testing.assert_array_equal(got.loc[without].to_numpy(),
                                  np.full((len(without), 3), value))
    with pytest.raises(ValueError, match="no judged item at or above relevance_level"):
        evaluate(recs, truth, ["ee_relevance"], rank_col="rank", empty="raise",
                 missing="skip")


def test_ee_users_without_recommendations_have_no_exposure():
    recs, truth = _tables(12)
    got = evaluate(recs, truth, list(EE) + ["ee_loss(p=0.7)@4"], rank_col="rank",
                   missing="zero", empty="nan")
    only_truth = sorted(set(truth["user"]) - set(recs["user"]))
    placed = set(truth.loc[truth["relevance"] >= 1, "user"])
    checked = 0
    for user in only_truth:
        if user not in placed:
            continue
        assert got.loc[user, "ee_disparity"] == 0.0 and got.loc[user, "ee_relevance"] == 0.0
        assert got.loc[user, "ee_loss"] == pytest.approx(_ideal(truth, user, 1, 0.5), abs=TOL)
        assert got.loc[user, "ee_loss(p=0.7)@4"] == pytest.approx(
            _ideal(truth, user, 1, 0.7), abs=TOL)
        checked += 1
    assert checked >= 1


def _scored(seed):
    """Recommendations with scores tied in groups of 2-3, grades tied too."""
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for user in range(12):
        items = rng.choice(12, size=int(rng.integers(2, 7)), replace=False)
        scores = rng.integers(0, 3, len(items)).astype(float)
        recs += [(user, int(i), s) for i, s in zip(items, scores)]
        truth += [(user, int(i), int(rng.integers(0, 3))) for i in
                  rng.choice(12, size=5, replace=False)]
    return (pd.DataFrame(recs, columns=["user", "item", "score"]),
            pd.DataFrame(truth, columns=["user", "item", "relevance"]))


def test_ee_tie_bounds_are_the_extremes_over_tie_orders():
    recs, truth = _scored(3)
    names = ["ee_loss", "ee_relevance", "ee_disparity", "ee_loss@3"]
    best = evaluate(recs, truth, names, ties="best", empty="nan")
    worst = evaluate(recs, truth, names, ties="worst", empty="nan")
    for user, rows in recs.groupby("user"):
        if user not in best.index or np.isnan(best.loc[user, "ee_loss"]):
            continue
        rel = truth[truth["user"] == user]
        rel = dict(zip(rel["item"], rel["relevance"].astype(float)))
        groups = [list(g["item"]) for _, g in rows.groupby("score", sort=True)][::-1]
        values = {name: [] for name in names}
        for order in itertools.product(*[itertools.permutations(g) for g in groups]):
            items = [i for group in order for i in group]
            one = expected_exposure([items], {i: g for i, g in rel.items() if g >= 1})
            cut = expected_exposure([items[:3]], {i: g for i, g in rel.items() if g >= 1})
            values["ee_loss"].append(one["loss"])
            values["ee_relevance"].append(one["relevance"])
            values["ee_disparity"].append(one["disparity"])
            values["ee_loss@3"].append(cut["loss"])
        for name in ("ee_loss", "ee_loss@3"):
            assert best.loc[user, name] == pytest.approx(min(values[name]), abs=TOL)
            assert worst.loc[user, name] == pytest.approx(max(values[name]), abs=TOL)
        assert best.loc[user, "ee_relevance"] == pytest.approx(max(values["ee_relevance"]),
                                                               abs=TOL)
        assert worst.loc[user, "ee_relevance"] == pytest.approx(
            min(values["ee_relevance"]), abs=TOL)
        assert best.loc[user, "ee_disparity"] == worst.loc[user, "ee_disparity"]


@pytest.mark.parametrize("ties", ["average", "block"])
def test_ee_expectation_ties_are_refused(ties):
    recs, truth = _scored(4)
    with pytest.raises(ValueError, match="not available with ties"):
        evaluate(recs, truth, ["ee_loss"], ties=ties)


def test_ee_no_hit_nan_is_refused():
    recs, truth = _scored(5)
    with pytest.raises(ValueError, match="no_hit='nan' does not apply"):
        evaluate(recs, truth, ["ee_loss"], no_hit="nan")


@pytest.mark.parametrize("backend", ["polars", "polars-lazy", "arrow", "dask"])
def test_ee_and_group_exposure_on_every_backend(backend):
    recs, truth = _tables(21, "string")
    groups = _groups(recs, truth)
    names = ["ee_loss@4", "ee_disparity(p=0.7)", "ee_relevance", "group_exposure@3",
             "group_exposure(weights=geometric,p=0.8)"]
    keywords = dict(rank_col="rank", missing="zero", empty="nan", item_groups=groups,
                    exposure_group="g1")
    want = evaluate(recs, truth, names, **keywords)
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        got = evaluate(dd.from_pandas(recs, npartitions=3),
                       dd.from_pandas(truth, npartitions=2), names, **keywords).compute()
    else:
        from test_backends import convert
        got = evaluate(convert(recs, backend), convert(truth, backend), names, **keywords)
        got = got.to_pandas() if hasattr(got, "to_pandas") else got
        got = got.set_index("user")
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_names=False,
                                  check_index_type=False, rtol=0, atol=TOL)


def test_ee_chunks_and_threads_do_not_change_the_values():
    recs, truth = _tables(22)
    big = pd.concat([recs.assign(user=recs["user"] + 100 * i) for i in range(300)])
    judged = pd.concat([truth.assign(user=truth["user"] + 100 * i) for i in range(300)])
    names = ["ee_loss@5", "ee_relevance(p=0.9)"]
    one = evaluate(big, judged, names, rank_col="rank", missing="zero", empty="nan")
    many = evaluate(big, judged, names, rank_col="rank", missing="zero", empty="nan",
                    n_jobs=2)
    pd.testing.assert_frame_equal(one, many)
    small = evaluate(recs, truth, names, rank_col="rank", missing="zero", empty="nan")
    np.testing.assert_array_equal(one.loc[small.index].to_numpy(), small.to_numpy())


# ----------------------------------------------------------- group exposure
def _groups(recs, truth, n_groups=3, seed=0):
    rng = np.random.default_rng(seed)
    items = pd.unique(pd.concat([recs["item"], truth["item"]]))
    return pd.Series([f"g{int(g)}" for g in rng.integers(0, n_groups, len(items))],
                     index=pd.Index(items))


def _weight(rank, weights, p):
    return {"log": 1.0 / math.log2(rank + 1), "geometric": p ** (rank - 1),
            "equal": 1.0}[weights]


def _share(items, groups, group, k, weights, p):
    shown = items if k is None else items[:k]
    total = sum(_weight(r, weights, p) for r in range(1, len(shown) + 1))
    mine = sum(_weight(r, weights, p) for r, i in enumerate(shown, 1) if groups[i] == group)
    return mine / total


@pytest.mark.parametrize("ids", ["int64", "big", "nullable", "pyarrow", "string"])
def test_group_exposure_equals_the_definition(ids):
    compared, worst = 0, 0.0
    for seed in range(3):
        recs, truth = _tables(seed, ids)
        groups = _groups(recs, truth, seed=seed)
        for group in ("g0", "g2"):
            names = ["group_exposure", "group_exposure@3", "group_exposure(weights=equal)@20",
                     "group_exposure(weights=geometric, p=0.8)@5",
                     "group_exposure(weights=geometric)"]
            got = evaluate(recs, truth, names, rank_col="rank", item_groups=groups,
                           exposure_group=group, missing="skip")
            lists = {u: f.sort_values("rank")["item"].tolist() for u, f in recs.groupby("user")}
            for user in got.index:
                for name in names:
                    parsed = parse_metric_name(name)
                    want = _share(lists[user], groups, group, parsed.k,
                                  parsed.parameters["weights"], parsed.parameters["p"])
                    worst = max(worst, abs(got.loc[user, name] - want))
                    compared += 1
    assert compared > 700 and worst <= TOL


def test_group_shares_add_up_to_one():
    recs, truth = _tables(30, "string")
    groups = _groups(recs, truth)
    total = sum(evaluate(recs, truth, ["group_exposure@4"], rank_col="rank",
                         item_groups=groups, exposure_group=g, missing="skip").iloc[:, 0]
                for g in ("g0", "g1", "g2"))
    np.testing.assert_allclose(total.to_numpy(), 1.0, rtol=0, atol=TOL)


def test_group_mean_equals_exposure_share_when_lists_have_one_length():
    recs, truth = _tables(31)
    groups = _groups(recs, truth)
    long_enough = recs.groupby("user")["rank"].transform("max") >= 4
    recs = recs[long_enough]  # every list cut at 4 has 4 items
    table = pd.DataFrame({"item": groups.index, "group": groups.to_numpy()})
    for weights in ("log", "geometric", "equal"):
        shares = group_exposure_batch(recs, table, weights=weights, patience=0.7, k=4)
        for group in shares.index:
            got = evaluate(recs, truth, [f"group_exposure(weights={weights},p=0.7)@4"],
                           rank_col="rank", item_groups=groups, exposure_group=group,
                           unjudged="empty", missing="skip")
            assert len(got) == recs["user"].nunique()
            assert got.iloc[:, 0].mean() == pytest.approx(shares.loc[group, "exposure_share"],
                                                          abs=TOL)


def test_group_mean_differs_from_exposure_share_when_lengths_differ():
    # user 1: a (g) alone, share 1; user 2: b, c, d with only d in g
    recs = pd.DataFrame({"user": [1, 2, 2, 2], "item": ["a", "b", "c", "d"],
                         "rank": [1, 1, 2, 3]})
    truth = recs[["user", "item"]].assign(relevance=1)
    groups = {"a": "g", "b": "h", "c": "h", "d": "g"}
    got = evaluate(recs, truth, ["group_exposure(weights=equal)"], rank_col="rank",
                   item_groups=groups, exposure_group="g")
    assert got.iloc[:, 0].tolist() == [1.0, 1 / 3]
    table = pd.DataFrame({"item": list(groups), "group": list(groups.values())})
    share = group_exposure_batch(recs, table, weights="equal").loc["g", "exposure_share"]
    assert share == pytest.approx(2 / 4)            # share of sums
    assert got.iloc[:, 0].mean() == pytest.approx(2 / 3)  # mean of shares


@pytest.mark.parametrize("empty, value", [("zero", 0.0), ("one", 1.0), ("nan", np.nan)])
def test_group_exposure_empty_lists_follow_empty(empty, value):
    recs, truth = _tables(32)
    groups = _groups(recs, truth)
    got = evaluate(recs, truth, ["group_exposure@3"], rank_col="rank", item_groups=groups,
                   exposure_group="g1", missing="zero", empty=empty)
    without = sorted(set(truth["user"]) - set(recs["user"]))
    assert without
    np.testing.assert_array_equal(got.loc[without].iloc[:, 0].to_numpy(),
                                  np.full(len(without), value))
    with pytest.raises(ValueError, match="no recommended item"):
        evaluate(recs, truth, ["group_exposure@3"], rank_col="rank", item_groups=groups,
                 exposure_group="g1", missing="zero", empty="raise")


def test_group_exposure_truncate():
    recs, truth = _tables(33)
    groups = _groups(recs, truth)
    keywords = dict(rank_col="rank", item_groups=groups, exposure_group="g0",
                    missing="skip")
    cut = evaluate(recs, truth, ["group_exposure@5"], truncate=3, **keywords)
    plain = evaluate(recs, truth, ["group_exposure@3"], **keywords)
    np.testing.assert_allclose(cut.to_numpy(), plain.to_numpy(), rtol=0, atol=TOL)


@pytest.mark.parametrize("keywords, error, says", [
    (dict(item_groups={"a": "g"}, exposure_group="g"), ValueError,
     "item 'b' of the recommendations has no group"),
    (dict(item_groups={"a": "g", "b": None}, exposure_group="g"), ValueError,
     "gives item 'b' a missing label"),
    (dict(item_groups={"a": "g", "b": "h"}, exposure_group="x"), ValueError,
     "exposure_group 'x' is not a label of item_groups"),
    (dict(item_groups={"a": "g", "b": "h"}), ValueError, "pass exposure_group="),
    (dict(exposure_group="g"), ValueError, "pass item_groups="),
    (dict(item_groups={"a": "g", "b": "h"}, exposure_group=["g"]), TypeError,
     "exposure_group must be one label"),
    (dict(item_groups=[("a", "g")], exposure_group="g"), TypeError,
     "item_groups must be a pandas Series"),
    (dict(item_groups=pd.Series(["g", "h", "g"], index=["a", "b", "a"]),
          exposure_group="g"), ValueError, "lists item 'a' twice"),
    (dict(item_groups={1: "g", 2: "h"}, exposure_group="g"), TypeError, "item ids"),
    (dict(item_groups={"a": "g", "b": "h"}, exposure_group="g", ties="best"), ValueError,
     "ties"),
    (dict(item_groups={"a": "g", "b": "h"}, exposure_group="g", judged_only=True),
     ValueError, "judged_only"),
    (dict(item_groups={"a": "g", "b": "h"}, exposure_group="g", no_hit="nan"),
     ValueError, "no_hit"),
])
def test_group_exposure_bad_input(keywords, error, says):
    recs = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
    truth = pd.DataFrame({"user": [1], "item": ["a"], "relevance": [1]})
    with pytest.raises(error) as raised:
        evaluate(recs, truth, ["group_exposure@2"], rank_col="rank", **keywords)
    assert says in str(raised.value)


def test_item_groups_without_the_metric_is_refused():
    recs = pd.DataFrame({"user": [1], "item": ["a"], "rank": [1]})
    truth = pd.DataFrame({"user": [1], "item": ["a"], "relevance": [1]})
    for keywords in (dict(item_groups={"a": "g"}, exposure_group="g"),
                     dict(exposure_group="g")):
        with pytest.raises(ValueError, match="read by the metric group_exposure only"):
            evaluate(recs, truth, ["ndcg"], rank_col="rank", **keywords)


def test_inputs_are_not_mutated():
    recs, truth = _tables(40, "nullable")
    groups = _groups(recs, truth)
    copies = recs.copy(), truth.copy(), groups.copy()
    evaluate(recs, truth, ["ee_loss@3", "group_exposure@3"], rank_col="rank",
             item_groups=groups, exposure_group="g0", missing="zero")
    pd.testing.assert_frame_equal(recs, copies[0])
    pd.testing.assert_frame_equal(truth, copies[1])
    pd.testing.assert_series_equal(groups, copies[2])


@pytest.mark.parametrize("level", ["0", "1", "2"])
def test_command_line_hands_expected_exposure_the_grades(level, tmp_path):
    # the command line binarises the grades for most metrics; EE's targets rank them
    from test_trec_cli_grammar import run_ours

    recs, truth = _tables(50, "string")
    recs = recs.assign(score=-recs["rank"].astype(float))
    (tmp_path / "qrels").write_text("".join(
        f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    (tmp_path / "run").write_text("".join(
        f"{u} Q0 {i} {r} {s!r} tag\n" for u, i, r, s in recs.itertuples(index=False)))
    names = ["ee_loss(p=0.8)", "ee_relevance", "ee_disparity"]
    code, out, err = run_ours(["-q", "-c", "-l", level, *sum((["-m", n] for n in names), []),
                               str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert code == 0, err
    printed = {(row[0].strip(), row[1]): float(row[2]) for row in
               (line.split("\t") for line in out.decode().splitlines())
               if row[0].strip() in names and row[1] != "all"}
    want = evaluate(recs, truth, names, rank_col="rank", missing="zero",
                    relevance_level=max(int(level), 0))
    assert len(printed) == 3 * len(want)
    for name in names:
        for user, value in want[name].items():
            assert abs(printed[(name, user)] - value) <= 5e-5 + 1e-12
    graded = truth.assign(relevance=(truth["relevance"] > 0).astype(int))
    if level == "1":  # binarised grades would give other numbers
        other = evaluate(recs, graded, names, rank_col="rank", missing="zero")
        assert (other["ee_relevance"] - want["ee_relevance"]).abs().max() > 1e-3
