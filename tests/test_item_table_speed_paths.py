"""The faster paths of ``arp``, ``aplt``, ``group_exposure`` and ``ee_*`` in
``evaluate`` (issue 29, point 5).

``metrics_lib.batch.items`` looks up each distinct recommended item key once
in the item tables (``_key_codes``: a table of every key's value when the
keys span a moderate range, the decoded rows otherwise), checks integer ids
for duplicates by counting (``_unique``) and compares string group labels
without Python objects (``_in_group``); ``metrics_lib.ranking.exposure``
counts the (user, grade) pairs and the grade places instead of sorting
(``_counted``, ``_grade_places``). Each helper is compared here with the
numpy or pandas call it replaces, and each metric with its per-list
function (coded independently, one user at a time) on random data: every id
kind, narrow and wide id spans, items absent from the tables, ties, users
without recommendations or without a placed judgement.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metrics_lib import (average_recommendation_popularity, evaluate, expected_exposure,
                         group_exposure, long_tail_share)
from metrics_lib.batch.items import _in_group, _key_codes, _unique
from metrics_lib.ranking.exposure import _counted, _grade_places

from _helpers import ids_of_kind

TOL = 1e-12
KINDS = ["int64", "negative", "wide", "uint64", "str", "Int64", "pyarrow"]


def _case(seed, kind, n_items=40):
    """(recs, truth): lists of 0-11 items with tied scores, users only in truth."""
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(30, 60))
    lengths = rng.integers(0, 12, n_users)  # 0: judged only
    users = np.repeat(np.arange(n_users), lengths)
    items = np.concatenate([rng.choice(n_items, n, replace=False) for n in lengths])
    order = rng.permutation(items.size)
    recs = pd.DataFrame({"user": users[order], "item": ids_of_kind(items[order], kind),
                         "score": rng.integers(0, 4, items.size) / 2})  # ties
    judged = pd.DataFrame({"user": rng.integers(0, n_users + 3, 3 * n_users),
                           "item": rng.integers(0, n_items, 3 * n_users)}
                          ).drop_duplicates().reset_index(drop=True)
    truth = pd.DataFrame({"user": judged["user"], "item": ids_of_kind(judged["item"], kind),
                          "relevance": rng.integers(0, 4, len(judged))})
    return recs, truth


def _gap(got, want):
    """|got - want|; infinite when one of them is NaN (``max`` would skip a NaN)."""
    if math.isnan(got) or math.isnan(want):
        return 0.0 if math.isnan(got) and math.isnan(want) else math.inf
    return abs(got - want)


def _lists(recs):
    """Each user's list in the order of ties='numeric_asc' (ties by item id, ascending)."""
    return {user: list(frame.sort_values(["score", "item"], ascending=[False, True])["item"])
            for user, frame in recs.groupby("user")}


# ------------------------------------------------------------------- the helpers
@pytest.mark.parametrize("kind", KINDS)
def test_key_codes_is_get_indexer_of_the_decoded_keys(kind):
    """Both paths: a table of every key (moderate span) and the decoded rows."""
    rng = np.random.default_rng(5)
    index = pd.Index(ids_of_kind(rng.permutation(300)[:120], kind).to_numpy(
        dtype=object if kind in ("str", "pyarrow") else None))
    decoded = ids_of_kind(np.arange(300), kind).to_numpy(
        dtype=object if kind in ("str", "pyarrow") else None)
    keys = rng.integers(0, 300, 2000)
    want = index.get_indexer(decoded[keys])
    np.testing.assert_array_equal(_key_codes(index, keys, decoded.take), want)
    # keys spread past the table's limit: every row decoded and looked up
    spread = {int(key): 10**6 * int(key) for key in range(300)}
    back = {value: key for key, value in spread.items()}
    wide = np.array([spread[int(key)] for key in keys])
    got = _key_codes(index, wide, lambda k: decoded[[back[int(v)] for v in np.ravel(k)]])
    np.testing.assert_array_equal(got, want)
    # per_code sees the codes (-1 for absent items) before the rows are gathered
    values = np.append(np.arange(index.size) * 2.5, -7.0)
    np.testing.assert_array_equal(_key_codes(index, keys, decoded.take, values.take),
                                  values.take(want))


@pytest.mark.parametrize("kind", KINDS)
def test_unique_is_is_unique(kind):
    rng = np.random.default_rng(7)
    for values in (rng.permutation(500), rng.integers(0, 500, 200), np.array([4, 9, 4]),
                   np.array([0]), np.array([2**20, 0, 2**20 - 1])):
        series = ids_of_kind(values, kind)
        ids = series.to_numpy(dtype=object if kind in ("str", "pyarrow") else
                              np.int64 if kind == "Int64" else None)
        index = pd.Index(ids)
        assert _unique(ids, index) == pd.Index(list(values)).is_unique, (kind, values)


@pytest.mark.parametrize("labels", [
    pd.Series(["a", "b", "a", "ab", "A"], dtype=object),
    pd.Series(["a", "b", "a", "ab", "A"], dtype="str"),
    pd.Series(["a", "b", "a", "ab", "A"], dtype="string[pyarrow]"),
    pd.Series(["a", "b", "a", "ab", "A"], dtype="string[python]"),
    pd.Series([1, 2, 1, 3, 2]), pd.Series([1.0, 2.5, 1.0, 0.0, 2.5]),
    pd.Series([True, False, True, True, False])])
@pytest.mark.parametrize("group", ["a", "A", "ab", "zz", 1, 2.5, True, 0])
def test_in_group_is_an_elementwise_comparison(labels, group):
    got = _in_group(labels, group)
    want = np.array([label == group for label in labels.to_numpy(dtype=object)], dtype=bool)
    assert got.dtype == bool
    np.testing.assert_array_equal(got, want)


def test_counted_is_unique_with_counts():
    rng = np.random.default_rng(11)
    for key in (rng.integers(0, 50, 400), rng.integers(0, 10**7, 300),  # sparse: np.unique
                np.array([3, 3, 3]), np.zeros(0, dtype=np.int64), np.array([0])):
        pairs, count = _counted(key.astype(np.int64))
        want_pairs, want_count = np.unique(key.astype(np.int64), return_counts=True)
        np.testing.assert_array_equal(pairs, want_pairs)
        np.testing.assert_array_equal(count, want_count)


@pytest.mark.parametrize("grades,top", [
    (np.array([3.0, 1.0, 1.0, 2.0, 3.0, 1.0]), 3), (np.array([1.0, 5.0, 5.0]), 5),
    (np.array([2, 4, 4, 2, 7]), 9),  # integer dtype, levels with gaps
    (np.array([0.5, 1.5, 0.5, 2.0]), -1), (np.array([1e300, 2.0, 1e300]), -1),
    (np.zeros(0), 3), (np.array([0.0, 0.0, 1.0]), 1)])
def test_grade_places_is_unique_with_inverse(grades, top):
    levels, code = _grade_places(grades, top)
    want_levels, want_code = np.unique(grades, return_inverse=True)
    assert levels.dtype == want_levels.dtype
    np.testing.assert_array_equal(levels, want_levels)
    np.testing.assert_array_equal(code, want_code)


# ------------------------------------------------- evaluate against per-list values
@pytest.mark.parametrize("kind", KINDS)
def test_arp_and_aplt_equal_the_per_list_functions(kind):
    compared, worst = 0, 0.0
    names = ["arp", "arp@3", "aplt", "aplt(head_share=0.5)@4", "aplt(head=items)@2"]
    for seed in range(2):
        recs, truth = _case(seed, kind)
        rng = np.random.default_rng(seed + 100)
        # items 0-29 only: the others are absent from the table (popularity 0);
        # a table of many more items than the lists hold
        train_items = rng.integers(0, 30, 300)
        train = pd.DataFrame({"user": rng.integers(0, 99, train_items.size),
                              "item": ids_of_kind(train_items, kind)})
        popularity = train.groupby("item").size()
        extra = pd.Series(1, index=pd.Index(ids_of_kind(np.arange(1000, 3000), kind)))
        table = pd.concat([popularity, extra])
        got = evaluate(recs, truth, names, item_popularity=table, ties="numeric_asc",
                       missing="zero")
        pairs = list(zip(train["user"], train["item"])) + [
            (-1, item) for item in extra.index]
        lists = _lists(recs)
        for user in got.index:
            items = lists.get(user, [])
            for name in names:
                k = int(name.split("@")[1]) if "@" in name else None
                if not items:
                    assert got.loc[user, name] == 0.0
                    continue
                if name.startswith("arp"):
                    want = average_recommendation_popularity(items, pairs, k=k)
                else:
                    head = "items" if "head=items" in name else "ratings"
                    share = 0.5 if "0.5" in name else 0.8
                    want = long_tail_share(items, pairs, k=k, head=head, head_share=share)
                worst = max(worst, _gap(got.loc[user, name], want))
                compared += 1
    assert compared > 300 and worst <= TOL, (compared, worst)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("label_dtype", [object, "str", "string[pyarrow]", "int64"])
def test_group_exposure_equals_the_per_list_function(kind, label_dtype):
    compared, worst = 0, 0.0
    names = {"group_exposure": ("log", 0.5, None),
             "group_exposure(weights=geometric, p=0.8)@4": ("geometric", 0.8, 4),
             "group_exposure(weights=equal)@2": ("equal", 0.5, 2)}
    for seed in range(2):
        recs, truth = _case(seed, kind)
        rng = np.random.default_rng(seed + 200)
        label = rng.integers(0, 3, 60)  # items 40-59: labelled, never listed
        labels = (pd.Series(label) if label_dtype == "int64"
                  else pd.Series([f"g{v}" for v in label], dtype=label_dtype))
        labels.index = pd.Index(ids_of_kind(np.arange(60), kind))
        group = 1 if label_dtype == "int64" else "g1"
        got = evaluate(recs, truth, list(names), item_groups=labels, exposure_group=group,
                       ties="numeric_asc", missing="zero")
        by_item = dict(zip(labels.index, labels.to_numpy(dtype=object)))
        lists = _lists(recs)
        for user in got.index:
            items = lists.get(user, [])
            for name, (weights, p, k) in names.items():
                if not items:
                    assert got.loc[user, name] == 0.0
                    continue
                shares = group_exposure([items], by_item, weights=weights, patience=p,
                                        k=k)["exposure_share"]
                want = shares.get(group, 0.0)
                worst = max(worst, _gap(got.loc[user, name], want))
                compared += 1
    assert compared > 150 and worst <= TOL, (compared, worst)


@pytest.mark.parametrize("kind", ["int64", "wide", "str", "pyarrow"])
def test_a_recommended_item_without_a_group_is_named(kind):
    """The refusal names the first item in rank order without a label, on both
    paths of ``_key_codes``."""
    recs = pd.DataFrame({"user": [1, 1, 2, 2, 2], "item": ids_of_kind([5, 7, 8, 5, 9], kind),
                         "score": [3.0, 2.0, 3.0, 2.0, 1.0]})
    labels = pd.Series(["a", "b"], index=pd.Index(ids_of_kind([5, 9], kind)))
    with pytest.raises(ValueError, match=rf"item '?{ids_of_kind([7], kind)[0]}'? of the "
                                         "recommendations has no group"):
        evaluate(recs, recs.assign(relevance=1)[["user", "item", "relevance"]],
                 ["group_exposure"], item_groups=labels, exposure_group="a")


@pytest.mark.parametrize("kind", KINDS)
def test_an_item_listed_twice_is_refused(kind):
    recs = pd.DataFrame({"user": [1, 1], "item": ids_of_kind([5, 7], kind), "score": [2.0, 1.0]})
    truth = recs.assign(relevance=1)[["user", "item", "relevance"]]
    twice = pd.Index(ids_of_kind([7, 5, 3, 5], kind))
    with pytest.raises(ValueError, match="lists item .* twice"):
        evaluate(recs, truth, ["arp"], item_popularity=pd.Series([1, 2, 3, 4], index=twice))
    with pytest.raises(ValueError, match="lists item .* twice"):
        evaluate(recs, truth, ["group_exposure"], exposure_group="a",
                 item_groups=pd.Series(["a", "b", "a", "b"], index=twice))


@pytest.mark.parametrize("kind", ["int64", "str", "pyarrow", "wide"])
@pytest.mark.parametrize("level,grades", [(1, "int"), (2, "int"), (0.5, "half")])
def test_ee_equals_the_per_list_function(kind, level, grades):
    compared, skipped, worst = 0, 0, 0.0
    names = {"ee_loss@5": ("loss", 0.5, 5), "ee_relevance(p=0.8)": ("relevance", 0.8, None),
             "ee_disparity@3": ("disparity", 0.5, 3), "ee_loss(p=0.9)": ("loss", 0.9, None)}
    for seed in range(2):
        recs, truth = _case(seed, kind)
        if grades == "half":  # not whole numbers: the sorting path of _grade_places
            truth = truth.assign(relevance=truth["relevance"] * 0.75)
        got = evaluate(recs, truth, list(names), ties="numeric_asc", empty="nan",
                       relevance_level=level)
        lists = _lists(recs)
        for user in got.index:
            rows = truth[(truth["user"] == user) & (truth["relevance"] >= level)]
            placed = dict(zip(rows["item"], rows["relevance"].astype(float)))
            items = lists.get(user, [])
            for name, (part, p, k) in names.items():
                if not placed or not items:
                    assert not placed or not math.isnan(got.loc[user, name])
                    skipped += 1
                    continue
                want = expected_exposure([items[:k]], placed, patience=p,
                                         complete=True)[part]
                worst = max(worst, _gap(got.loc[user, name], want))
                compared += 1
    assert compared > 150 and skipped > 10 and worst <= TOL, (compared, skipped, worst)


@pytest.mark.parametrize("empty", ["nan", "zero"])
def test_ee_relevance_without_any_hit_is_a_float_column(empty):
    """No listed item at or above relevance_level in the whole call: np.bincount
    of no rows is int64, which made empty='nan' fail ("cannot convert float NaN
    to integer") and gave an int64 column otherwise."""
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [5, 6, 5], "score": [2.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2, 3], "item": [7, 6, 5], "relevance": [2, 1, 0]})
    got = evaluate(recs, truth, ["ee_relevance", "ee_loss"], empty=empty, missing="zero")
    assert got["ee_relevance"].dtype == np.float64
    want_empty = math.nan if empty == "nan" else 0.0
    np.testing.assert_array_equal(got["ee_relevance"].to_numpy(), [0.0, 0.0, want_empty])
    # user 1: target 1 for item 7, exposures 1 and 0.5 elsewhere
    assert got.loc[1, "ee_loss"] == 1.0 + 0.25 + 1.0
