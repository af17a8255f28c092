"""The faster paths of ``miscalibration@k`` in ``evaluate`` (issue 29, point 5).

Reading the history and the genres takes the larger part of a
miscalibration call, so ``metrics_lib.batch.items`` codes ids through
lookup tables where it can: integer ids of a moderate span through a table
(``_codes_in``), other ids once per distinct value, the recommended items
through a table of their join keys (``_rec_genre_codes``), and p(g|i) is a
dense items x genres array when small (``_share_table``). Each path is
compared here with the per-list :func:`metrics_lib.miscalibration` (coded
independently, one user at a time) on random data: every id kind, wide and
narrow id spans, users without history, history users never recommended,
repeated history rows, items of ``item_genres`` never listed, ties, short
lists and every rank weight; and the two share tables with each other, bit
for bit.
"""
from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate, miscalibration, miscalibration_batch
from metrics_lib.batch.items import _codes_in
from metrics_lib.beyond import calibration

from _helpers import ids_of_kind

TOL = 1e-12
NAMES = ["miscalibration@3", "miscalibration(alpha=0.2)", "miscalibration(alpha=1)@1"]


def _case(seed, user_kind, item_kind):
    """(recs, truth, history, item_genres Series) with many more history rows
    than users (the path that codes each distinct history user once)."""
    rng = np.random.default_rng(seed)
    n_users, n_items = int(rng.integers(30, 60)), int(rng.integers(20, 40))
    lengths = rng.integers(0, 12, n_users)  # 0: judged only
    users = np.repeat(np.arange(n_users), np.minimum(lengths, n_items))
    items = np.concatenate([rng.choice(n_items, min(n, n_items), replace=False)
                            for n in lengths])
    scores = rng.integers(0, 4, items.size) / 2  # ties
    order = rng.permutation(items.size)  # rows of users mixed together
    recs = pd.DataFrame({"user": ids_of_kind(users[order], user_kind),
                         "item": ids_of_kind(items[order], item_kind), "score": scores[order]})
    judged = pd.DataFrame({"user": rng.integers(0, n_users, 2 * n_users),
                           "item": rng.integers(0, n_items, 2 * n_users)}).drop_duplicates()
    truth = pd.DataFrame({"user": ids_of_kind(judged["user"], user_kind),
                          "item": ids_of_kind(judged["item"], item_kind),
                          "relevance": rng.integers(0, 3, len(judged))})
    # users n_users.. have history only; users with code % 5 == 2 none at all
    h_user = rng.integers(0, n_users + 6, 12 * n_users)
    h_user = h_user[h_user % 5 != 2]
    h_item = rng.integers(0, n_items + 4, h_user.size)  # items n_items..: never listed
    history = pd.DataFrame({"user": ids_of_kind(h_user, user_kind),
                            "item": ids_of_kind(h_item, item_kind)})
    count = rng.integers(1, 4, n_items + 4)
    item = np.repeat(np.arange(n_items + 4), count)
    genre = np.concatenate([rng.choice(7, c, replace=False) for c in count])
    genres = pd.Series([f"g{g}" for g in genre], index=pd.Index(ids_of_kind(item, item_kind)))
    return recs, truth, history, genres


def _per_list(recs, history, genres, name, weights):
    """Each user's value from :func:`miscalibration` (ties by item id ascending)."""
    k = int(name.split("@")[1]) if "@" in name else None
    alpha = float(re.search(r"alpha=([0-9.]+)", name).group(1)) if "(" in name else 0.01
    by_genre = {item: list(group) for item, group in genres.groupby(level=0)}
    past = {user: list(frame["item"]) for user, frame in history.groupby("user")}
    want = {}
    for user, frame in recs.groupby("user"):
        ranked = list(frame.sort_values(["score", "item"], ascending=[False, True])["item"])
        want[user] = (miscalibration(ranked, past[user], by_genre, alpha=alpha, k=k,
                                     rank_weights=weights) if user in past else math.nan)
    return want


KINDS = [("int64", "int64"), ("negative", "wide"), ("uint64", "uint64"), ("str", "str"),
         ("Int64", "negative"), ("pyarrow", "pyarrow"), ("str", "wide"), ("int64", "str")]


@pytest.mark.parametrize("user_kind,item_kind", KINDS)
@pytest.mark.parametrize("weights", ["equal", "reciprocal", "log"])
def test_evaluate_equals_the_per_list_function(user_kind, item_kind, weights):
    compared, undefined, worst = 0, 0, 0.0
    for seed in range(2):
        recs, truth, history, genres = _case(seed, user_kind, item_kind)
        got = evaluate(recs, truth, NAMES, item_genres=genres, history=history,
                       rank_weights=weights, ties="numeric_asc", missing="zero")
        for name in NAMES:
            want = _per_list(recs, history, genres, name, weights)
            for user in got.index:
                value, expected = got.loc[user, name], want.get(user, math.nan)
                if math.isnan(expected):  # no history, or no list
                    assert math.isnan(value), (user, name)
                    undefined += 1
                    continue
                worst = max(worst, abs(value - expected))
                compared += 1
    assert compared > 100 and undefined > 10 and worst <= TOL, (compared, undefined, worst)


@pytest.mark.parametrize("kind", ["int64", "negative", "wide", "uint64", "str", "Int64",
                                  "pyarrow"])
def test_codes_in_is_get_indexer(kind):
    """Every path of ``_codes_in``: a table of integers, a hash table of the
    distinct values (more values than the index holds), or the plain lookup."""
    rng = np.random.default_rng(3)
    ids = ids_of_kind(rng.permutation(400)[:150], kind)
    index = pd.Index(ids.to_numpy() if kind not in ("Int64", "pyarrow") else ids)
    for size in (10, 1000):  # fewer, then many more values than the index holds
        values = ids_of_kind(rng.integers(0, 400, size), kind)
        values = (values.to_numpy(dtype=object) if kind in ("str", "pyarrow")
                  else values.to_numpy(dtype=values.dtype.numpy_dtype if kind == "Int64"
                                       else values.dtype))
        np.testing.assert_array_equal(_codes_in(index, values), index.get_indexer(values))


@pytest.mark.parametrize("user_kind,item_kind", KINDS[:4])
def test_dense_and_sparse_share_tables_agree_bit_for_bit(monkeypatch, user_kind, item_kind):
    recs, truth, history, genres = _case(5, user_kind, item_kind)
    keywords = dict(item_genres=genres, history=history, missing="zero", rank_weights="log")
    ranked = recs.assign(rank=recs.sort_values(["score", "item"], ascending=[False, True])
                         .groupby("user").cumcount() + 1)
    ranked = ranked[ranked["user"].isin(history["user"])]
    table = genres.rename("genre").rename_axis("item").reset_index()
    dense = evaluate(recs, truth, NAMES, **keywords)
    dense_batch = miscalibration_batch(ranked, history, table, rank_col="rank", k=4,
                                       rank_weights="log")
    assert isinstance(calibration._share_table(calibration._share_matrix(
        np.arange(3), np.arange(3), np.ones(3), 3)[0]), np.ndarray)
    monkeypatch.setattr(calibration, "_DENSE_SHARES", -1)  # sparse everywhere
    sparse = evaluate(recs, truth, NAMES, **keywords)
    sparse_batch = miscalibration_batch(ranked, history, table, rank_col="rank", k=4,
                                        rank_weights="log")
    assert dense.notna().to_numpy().sum() > 50
    pd.testing.assert_frame_equal(dense, sparse, rtol=0, atol=0)
    pd.testing.assert_frame_equal(dense_batch, sparse_batch, rtol=0, atol=0)


@pytest.mark.parametrize("item_kind", ["int64", "wide", "str"])
@pytest.mark.parametrize("where", ["recommendations", "history"])
def test_the_first_item_without_genre_is_named(item_kind, where):
    """The refusal names the first row (in rank order, or in history order)
    whose item has no genre, on the table path and on the wide-id path."""
    rng = np.random.default_rng(7)
    users = np.repeat(np.arange(6), 5)
    items = np.concatenate([rng.choice(30, 5, replace=False) for _ in range(6)])
    scores = rng.permutation(users.size) / 10.0  # no ties
    recs = pd.DataFrame({"user": users, "item": ids_of_kind(items, item_kind), "score": scores})
    history = pd.DataFrame({"user": rng.integers(0, 6, 40),
                            "item": ids_of_kind(rng.integers(0, 45, 40), item_kind)})
    if where == "recommendations":  # rank order: users as first seen, best score first
        shown = recs.sort_values(["user", "score"], ascending=[True, False])
    else:  # history rows whose item is never recommended, in their order
        shown = history[~history["item"].isin(recs["item"])]
    lacking = list(dict.fromkeys(shown["item"]))[2:4]  # neither is the first row's item
    listed = set(recs["item"]) | set(history["item"])
    genres = pd.Series("drama", index=pd.Index([i for i in listed if i not in lacking]))
    first = next(i for i in shown["item"] if i in lacking)
    message = f"item {re.escape(repr(first))} of (the )?{where}"
    with pytest.raises(ValueError, match=message):
        evaluate(recs, recs.assign(relevance=1)[["user", "item", "relevance"]],
                 ["miscalibration@3"], item_genres=genres, history=history)
