"""The batch greedy ideal of alpha-nDCG, bit for bit against the implementation it replaced.

``metrics_lib.ranking.intents._greedy_ideal_dcg`` was rewritten for speed (a
padded table of candidates per user, scores summed straight into it, rank 1
read from the intent counts, the truth's (user, key) sort skipped when it
holds already). The values must not move by one bit: below, the previous
implementation (main at 7d4cc1d, copied unchanged apart from its names) is
the reference, on random chunks with ties (few intents), users without a
candidate, lists shorter than k, skewed numbers of candidates, shuffled or
sorted truth, a subset of the keys (as when only the listed items are
judged), alpha from 0 to 1; both strategies (padded table and one pass per
rank over the candidates) are run on every case.
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from metrics_lib._kernels import _first_in_run
from metrics_lib.ranking import intents as mod
from metrics_lib.ranking.intents import (_discount, _intents_of, _n_codes, _pair_slots,
                                         _ranges)


def _old_greedy_ideal_dcg(table, k, alpha, options):
    # main at 7d4cc1d: metrics_lib/ranking/intents.py, _greedy_ideal_dcg
    cand_user, cand_key = _old_candidates(table, options)
    row, intent = _intents_of(cand_key, options)
    slot, n_slots = _pair_slots(cand_user[row].astype(np.int64), intent, _n_codes(options))
    gain = np.ones(n_slots)
    pair_ptr = _pointers(row, cand_user.size)  # candidate -> its pairs
    starts = np.flatnonzero(_first_in_run(cand_user))
    sizes = np.diff(np.r_[starts, cand_user.size])
    ideal, left = np.zeros(table.n_users), np.ones(cand_user.size, dtype=bool)
    index = np.arange(cand_user.size)
    for rank in range(1, min(k, int(sizes.max(initial=0))) + 1):
        score = np.where(left, np.bincount(row, weights=gain[slot],
                                           minlength=cand_user.size), -1.0)
        best = np.maximum.reduceat(score, starts)
        pick = np.maximum.reduceat(np.where(score == np.repeat(best, sizes), index, -1),
                                   starts)
        alive = best >= 0.0
        ideal[cand_user[starts[alive]]] += best[alive] * _discount(float(rank))
        left[pick[alive]] = False
        gain[slot[_ranges(pair_ptr, pick[alive])]] *= 1.0 - alpha
    return ideal


def _pointers(sorted_codes, n):
    # main at 7d4cc1d: metrics_lib/ranking/intents.py, _pointers (no longer used there)
    ptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(sorted_codes, minlength=n), out=ptr[1:])
    return ptr


def _old_candidates(table, options):
    # main at 7d4cc1d: metrics_lib/ranking/intents.py, _candidates
    order = np.lexsort((table.truth_grade, table.truth_code))
    cand_user, cand_key = table.truth_code[order], table.truth_grade[order]
    ptr, group = options["intent_ptr"], cand_key.astype(np.int64) - 1
    keep = ptr[group + 1] > ptr[group]
    return cand_user[keep], cand_key[keep]


def _random_chunk(rng):
    """A chunk's folded truth: user codes, 1-based keys and the intents of each key."""
    n_users = int(rng.integers(0, 40))
    n_codes = int(rng.choice([1, 2, 3, 8, 50]))
    skewed = rng.random() < 0.3
    per_user = (rng.integers(0, 4, n_users) if skewed else rng.integers(0, 25, n_users))
    if skewed and n_users:
        per_user[rng.integers(n_users)] = rng.integers(30, 120)  # one long truth
    users = np.repeat(np.arange(n_users), per_user)
    if rng.random() < 0.3:
        users = rng.permutation(n_users)[users]  # chunk codes not in key order
    n_keys = users.size
    # each key's relevant intents, increasing; about a fifth have none
    lists = []
    for _ in range(n_keys):
        size = 0 if rng.random() < 0.2 else int(rng.integers(1, min(n_codes, 6) + 1))
        lists.append(np.sort(rng.choice(n_codes, size, replace=False)))
    ptr = np.zeros(n_keys + 1, dtype=np.int64)
    np.cumsum([x.size for x in lists], out=ptr[1:])
    codes = np.concatenate(lists).astype(np.int64) if lists else np.zeros(0, np.int64)
    keys = np.arange(1, n_keys + 1, dtype=np.float64)
    rows = np.arange(n_keys)
    if rng.random() < 0.3:
        rows = rows[rng.random(n_keys) < 0.6]  # some keys only
    if rng.random() < 0.5:
        rows = rng.permutation(rows)
    table = SimpleNamespace(truth_code=users[rows].astype(rng.choice([np.int64, np.int32])),
                            truth_grade=keys[rows], n_users=n_users + int(rng.integers(0, 3)))
    return table, {"intent_ptr": ptr, "intent_codes": codes}


@pytest.mark.parametrize("strategy", ["grid", "passes"])
def test_greedy_ideal_bitwise_equal_to_previous(strategy, monkeypatch):
    # the padded table for every case, or never
    monkeypatch.setattr(mod, "_GRID_FACTOR", 10**9 if strategy == "grid" else -1)
    monkeypatch.setattr(mod, "_GRID_SLACK", 0)
    rng = np.random.default_rng(29 if strategy == "grid" else 31)
    compared = 0
    for case in range(400):
        table, options = _random_chunk(rng)
        k = int(rng.choice([1, 2, 3, 5, 10, 40]))
        alpha = float(rng.choice([0.0, 0.5, 1.0, rng.random(), 1e-9]))
        old = _old_greedy_ideal_dcg(table, k, alpha, options)
        new = mod._greedy_ideal_dcg(table, k, alpha, options)
        assert new.dtype == np.float64 and new.shape == old.shape
        assert np.array_equal(new.view(np.int64), old.view(np.int64)), (
            f"case {case}: k={k}, alpha={alpha}, users "
            f"{np.flatnonzero(new.view(np.int64) != old.view(np.int64))[:5]}: "
            f"{new[new != old][:3]} != {old[new != old][:3]}")
        compared += new.size
    assert compared > 4000


@pytest.mark.parametrize("strategy", ["grid", "passes"])
def test_greedy_ideal_breaks_ties_by_largest_item(strategy, monkeypatch):
    # keys 1..4 relevant to intents {2, 3}, {0, 3}, {0, 4}, {3, 4}: all tie at
    # rank 1. ndeval takes key 4, and then the best is 1.5 (key 1 or 3, both
    # sharing one intent with it); taking key 1 would leave key 3 at 2.0.
    options = {"intent_ptr": np.array([0, 2, 4, 6, 8]),
               "intent_codes": np.array([2, 3, 0, 3, 0, 4, 3, 4])}
    table = SimpleNamespace(truth_code=np.zeros(4, np.int64),
                            truth_grade=np.array([1.0, 2.0, 3.0, 4.0]), n_users=1)
    expected = 2.0 * _discount(1.0) + 1.5 * _discount(2.0)
    monkeypatch.setattr(mod, "_GRID_FACTOR", 10**9 if strategy == "grid" else -1)
    monkeypatch.setattr(mod, "_GRID_SLACK", 0)
    assert mod._greedy_ideal_dcg(table, 2, 0.5, options)[0] == expected
