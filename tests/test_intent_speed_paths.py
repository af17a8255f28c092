"""The faster paths of the intent metrics (issue 29, point 5) against plain references.

``evaluate(..., intent_col=)`` folds a truth with one row per (user, item,
intent) into one row per (user, item). The fold now orders each pair's
intents with a table of flags and sorts only the pairs, and not even them
when a pair's rows come together (``metrics_lib.batch.intents._fold_by_table``);
it falls back to sorting every row when the table would be large or a
judgement is repeated. ``c_i(r)`` of the hits is counted after a stable sort
by intent alone when the hits come in user order
(``metrics_lib.ranking.intents._seen_before``). Each is checked here against a
reference written plainly with Python dicts and loops, on truths in every row
order (pairs together but not in order, as qrels often are; sorted by (user,
item, intent); by (user, intent, item), as TREC's diversity qrels are;
shuffled), with 64-bit, negative and uint64 ids, and through ``evaluate``
against the per-list functions.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics_lib import (alpha_ndcg_at_k, err_ia_at_k, evaluate, precision_ia_at_k,
                         subtopic_recall_at_k)
from metrics_lib.batch import intents as fold_module
from metrics_lib.batch.intents import fold_intents
from metrics_lib.ranking.intents import _seen_before

LAYOUTS = ["pairs_together", "user_item_intent", "user_intent_item", "shuffled"]


def _truth(rng, n_users=30, n_items=40, n_intents=6, layout="pairs_together"):
    """Rows (user, item, intent, grade) of a random truth by intent, in ``layout`` order."""
    rows = []
    for user in range(n_users):
        # items in random order, each judged for some intents in random order
        for item in rng.permutation(n_items)[:int(rng.integers(0, 20))]:
            for intent in rng.permutation(n_intents)[:int(rng.integers(1, 5))]:
                rows.append((user, int(item), int(intent), int(rng.integers(0, 3))))
    frame = pd.DataFrame(rows, columns=["user", "item", "intent", "relevance"])
    if layout == "user_item_intent":
        frame = frame.sort_values(["user", "item", "intent"], ignore_index=True)
    elif layout == "user_intent_item":
        frame = frame.sort_values(["user", "intent", "item"], ignore_index=True)
    elif layout == "shuffled":
        frame = frame.sample(frac=1, random_state=int(rng.integers(2**31)),
                             ignore_index=True)
    return frame


def _plain_fold(users, items, intents, grades, level):
    """The fold written plainly: {user: [(item, relevant intents, S), ...]}, items
    increasing, each item's relevant intents as offsets from the smallest
    intent, increasing, and S the user's number of relevant intents."""
    low = min(intents)
    relevant, seen = {}, set()
    for user, item, intent, grade in zip(users, items, intents, grades):
        assert (user, item, intent) not in seen
        seen.add((user, item, intent))
        relevant.setdefault(user, {}).setdefault(item, [])
        if grade >= level:
            relevant[user][item].append(intent - low)
    folded = {}
    for user, by_item in relevant.items():
        n_relevant = len(set().union(*map(set, by_item.values())))
        folded[user] = [(item, sorted(by_item[item]), n_relevant) for item in sorted(by_item)]
    return folded


def _check_fold(frame, level, users=None, items=None):
    users = frame["user"].to_numpy() if users is None else users
    items = frame["item"].to_numpy() if items is None else items
    grades = frame["relevance"].to_numpy(dtype=np.float64)
    f_users, f_items, keys, ptr, codes, count = fold_intents(frame["intent"], users, items,
                                                            grades, level)
    want = _plain_fold(users.tolist(), items.tolist(), frame["intent"].tolist(),
                       grades.tolist(), level)
    assert f_users.dtype == users.dtype and f_items.dtype == items.dtype
    assert keys.tolist() == list(range(1, f_users.size + 1))
    assert count.dtype == np.float64
    got = {}
    for g, (user, item) in enumerate(zip(f_users.tolist(), f_items.tolist())):
        # a user's pairs come together (the users' order is the fold's choice)
        assert user not in got or list(got)[-1] == user
        got.setdefault(user, []).append((item, codes[ptr[g]:ptr[g + 1]].tolist(), count[g]))
    assert got == want
    return keys.size


@pytest.fixture(params=["table", "sort"])
def fold_path(request, monkeypatch):
    """Run the fold with its table of flags (as it chooses) or with the sort only."""
    if request.param == "sort":
        monkeypatch.setattr(fold_module, "_TABLE_FACTOR", -1)
        monkeypatch.setattr(fold_module, "_TABLE_SLACK", 0)
    return request.param


@pytest.mark.parametrize("layout", LAYOUTS)
def test_fold_equals_the_plain_fold(layout, fold_path):
    rng = np.random.default_rng(LAYOUTS.index(layout))
    pairs = 0
    for case in range(25):
        frame = _truth(rng, n_users=int(rng.integers(1, 30)),
                       n_intents=int(rng.choice([1, 2, 6, 40])), layout=layout)
        if frame.empty:
            continue
        ids = case % 3  # int64 / 64-bit and negative / uint64 beyond int64
        users, items = frame["user"].to_numpy(), frame["item"].to_numpy()
        if ids == 1:
            users, items = users * 10**12 - 7 * 10**11, items * 3**38 - 10**17
        elif ids == 2:
            users = users.astype(np.uint64) + np.uint64(2**63)
            items = items.astype(np.uint64) * np.uint64(2**50)
        pairs += _check_fold(frame, float(rng.choice([1, 2])), users, items)
    assert pairs > 1000


def test_fold_of_one_row_and_of_every_row_its_own_pair(fold_path):
    one = pd.DataFrame({"user": [5], "item": [7], "intent": [3], "relevance": [1]})
    assert _check_fold(one, 1.0) == 1
    rng = np.random.default_rng(3)
    # every pair judged for one intent: as many runs as rows, none sorted
    rows = pd.DataFrame({"user": rng.integers(0, 50, 3000), "item": np.arange(3000),
                         "intent": rng.integers(0, 4, 3000),
                         "relevance": rng.integers(0, 2, 3000)})
    assert _check_fold(rows, 1.0) == 3000


def test_fold_when_one_pair_has_rows_apart(fold_path):
    # pairs together, out of order, but the first pair's last row moved to
    # the end: the runs look sortable until two runs hold the same pair
    rng = np.random.default_rng(8)
    frame = _truth(rng, n_users=20, n_intents=6)
    first = frame.index[(frame["user"] == frame["user"][0])
                        & (frame["item"] == frame["item"][0])]
    assert first.size > 1
    moved = pd.concat([frame.drop(first[-1]), frame.loc[[first[-1]]]], ignore_index=True)
    assert _check_fold(moved, 1.0) == _check_fold(frame, 1.0)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_repeated_judgement_is_named_in_every_order(layout):
    rng = np.random.default_rng(11)
    frame = _truth(rng, layout=layout)
    twice = pd.concat([frame, frame.iloc[[len(frame) // 2]]], ignore_index=True)
    user, item, intent = frame.iloc[len(frame) // 2][["user", "item", "intent"]]
    with pytest.raises(ValueError, match=f"item {item} of user {user} for intent "
                                         f"{intent} more than once"):
        fold_intents(twice["intent"], twice["user"].to_numpy(), twice["item"].to_numpy(),
                     twice["relevance"].to_numpy(dtype=np.float64), 1.0)


def _plain_seen(user, intent):
    counts, seen = {}, []
    for pair in zip(user.tolist(), intent.tolist()):
        seen.append(counts.get(pair, 0))
        counts[pair] = counts.get(pair, 0) + 1
    return seen


@pytest.mark.parametrize("users_in_order", [True, False])
def test_seen_before_counts_the_earlier_equal_pairs(users_in_order):
    rng = np.random.default_rng(5)
    for _ in range(60):
        n = int(rng.integers(0, 400))
        n_codes = int(rng.choice([1, 3, 8, 300, 70_000]))  # 70,000: past 16 bits
        user = rng.integers(0, 30, n)
        if users_in_order:
            user = np.sort(user)
        intent = rng.integers(0, n_codes, n)
        got = _seen_before(user.astype(rng.choice([np.int64, np.int32])), intent, n_codes)
        assert got.tolist() == _plain_seen(user, intent)


def _per_list_values(recs, truth, name, k, alpha, level):
    """Each user's value by the per-list function (users with a list)."""
    judged = {}
    for row in truth.itertuples():
        judged.setdefault(row.user, {}).setdefault(row.item, {})[row.intent] = row.relevance
    out = {}
    for user, block in recs.groupby("user", sort=True):
        ranked = block.sort_values(["score", "item"], ascending=[False, False])
        items = ranked["item"].tolist()
        relevant = judged.get(user, {})
        keywords = {"relevance_level": level}
        function = {"alpha_ndcg": alpha_ndcg_at_k, "err_ia": err_ia_at_k,
                    "p_ia": precision_ia_at_k, "s_recall": subtopic_recall_at_k}[name]
        if name in ("alpha_ndcg", "err_ia"):
            keywords["alpha"] = alpha
        out[user] = function(items, relevant, k, **keywords)
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_evaluate_equals_the_per_list_functions_in_every_truth_order(layout, fold_path):
    rng = np.random.default_rng(20 + LAYOUTS.index(layout))
    truth = _truth(rng, n_users=60, n_items=60, n_intents=5, layout=layout)
    recs = pd.DataFrame([(user, int(item), float(rng.random()))
                         for user in range(60) for item in rng.permutation(60)[:15]],
                        columns=["user", "item", "score"])
    compared = 0
    for alpha, k, level in ((0.5, 10, 1), (0.3, 3, 2), (1.0, 20, 1)):
        names = {"alpha_ndcg": f"alpha_ndcg(alpha={alpha})@{k}",
                 "err_ia": f"err_ia(alpha={alpha})@{k}", "p_ia": f"p_ia@{k}",
                 "s_recall": f"s_recall@{k}"}
        result = evaluate(recs, truth, list(names.values()), intent_col="intent",
                          relevance_level=level, missing="zero")
        for name, column in names.items():
            want = _per_list_values(recs, truth, name, k, alpha, level)
            got = result[column]
            # users with a list and a judgement (the others are not reported)
            assert sorted(got.index) == sorted(set(want) & set(truth["user"]))
            for user, value in got.items():
                assert value == pytest.approx(want[user], rel=1e-12, abs=1e-15), (
                    column, user)
                compared += 1
    assert compared > 600
