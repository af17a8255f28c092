"""Tests of metrics_lib.interleaving: hand-traced drafts, the vectorised path
against the one-list path, fairness under random clicks, scipy's binomial test."""

import numpy as np
import pytest
from scipy import stats

from metrics_lib import (
    interleaving_credit,
    interleaving_test,
    team_draft_interleave,
    team_draft_interleave_many,
)
from metrics_lib.online.interleaving import _team_draft_many, _team_draft_one


def test_hand_traced_drafts():
    a, b = (1, 2, 3), (2, 3, 4)
    # round 1: A first -> A takes 1, B takes 2; round 2: A first -> A's best
    # unused is 3; now every item of A is in the list, so the draft ends
    # before B's turn (Algorithm 2 goes on only while both have unused items)
    assert _team_draft_one(a, b, [True, True], 6) == ([1, 2, 3], ["A", "B", "A"])
    # swapped: A=(2,3,4) takes 2, B=(1,2,3) takes 1, A takes 3: B used up
    assert _team_draft_one(b, a, [True, True], 6) == ([2, 1, 3], ["A", "B", "A"])
    # longer rankings: A=(1,2,3,5), B=(2,3,4,6), A first twice -> 1, 2, 3, 4,
    # then round 3 with B first: B takes 6 and is used up, so A never gets 5
    assert _team_draft_one((1, 2, 3, 5), (2, 3, 4, 6), [True, True, False], 8) == (
        [1, 2, 3, 4, 6], ["A", "B", "A", "B", "B"])
    # with A first in round 3: A takes 5 and is used up in turn
    assert _team_draft_one((1, 2, 3, 5), (2, 3, 4, 6), [True, True, True], 8) == (
        [1, 2, 3, 4, 5], ["A", "B", "A", "B", "A"])
    # round 1: B first -> B takes 2, A takes 1; round 2: B first -> B takes 3;
    # A has nothing unused left, so the draft ends (Algorithm 2's condition)
    assert _team_draft_one(a, b, [False, False], 6) == ([2, 1, 3], ["B", "A", "B"])
    # round 2 with A first: A takes 3 and A is used up
    assert _team_draft_one(a, b, [False, True], 6) == ([2, 1, 3], ["B", "A", "A"])
    # a length stops it earlier
    assert _team_draft_one((1, 2, 3, 5), (2, 3, 4, 6), [True, True, True], 3) == (
        [1, 2, 3], ["A", "B", "A"])
    # identical rankings: the list is the ranking whoever picks
    items, teams = _team_draft_one(a, a, [True, False], 3)
    assert items == [1, 2, 3] and teams == ["A", "B", "B"]


@pytest.mark.parametrize("seed", range(5))
def test_vectorised_equals_one_list_algorithm(seed):
    rng = np.random.default_rng(seed)
    n, ka, kb, catalogue = 300, 8, 6, 15
    a = np.array([rng.permutation(catalogue)[:ka] for _ in range(n)]) * 10**12
    b = np.array([rng.permutation(catalogue)[:kb] for _ in range(n)]) * 10**12
    length = 6
    coins = rng.random((n, 3)) < 0.5
    items, teams = _team_draft_many(a, b, coins, length)
    for u in range(n):
        ref_items, ref_teams = _team_draft_one(tuple(a[u]), tuple(b[u]), coins[u], length)
        assert items[u].tolist() == ref_items
        assert ["AB"[t] for t in teams[u]] == ref_teams


def test_public_functions_are_seeded_and_valid():
    a, b = list("abcdefgh"), list("hgfedcba")
    first = team_draft_interleave(a, b, seed=42)
    assert first == team_draft_interleave(a, b, seed=42)
    draws = {team_draft_interleave(a, b, seed=s).items for s in range(20)}
    assert len(draws) > 1
    assert len(set(first.items)) == len(first.items)
    batch = team_draft_interleave_many(np.tile(np.arange(8), (50, 1)),
                                       np.tile(np.arange(8)[::-1], (50, 1)), seed=1)
    again = team_draft_interleave_many(np.tile(np.arange(8), (50, 1)),
                                       np.tile(np.arange(8)[::-1], (50, 1)), seed=1)
    assert np.array_equal(batch.items, again.items)
    # every prefix of two picks has one pick of each team
    assert np.all(batch.teams.reshape(50, 4, 2).sum(axis=2) == 1)


def test_random_clicks_favour_neither_ranker():
    # two unrelated rankings; the user clicks each shown item with probability
    # 0.2 whatever it is: the wins of A are a fair coin.
    rng = np.random.default_rng(5)
    n = 4000
    a = np.array([rng.permutation(50)[:10] for _ in range(n)])
    b = np.array([rng.permutation(50)[:10] for _ in range(n)])
    batch = team_draft_interleave_many(a, b, seed=rng)
    clicks = rng.random(batch.items.shape) < 0.2
    credit = interleaving_credit(batch.teams, clicks)
    res = interleaving_test(credit.clicks_a, credit.clicks_b)
    assert abs(res.share_a - 0.5) < 4 * 0.5 / np.sqrt(res.wins_a + res.wins_b)
    assert np.mean(batch.teams[:, 0] == 0) == pytest.approx(0.5, abs=0.03)


def test_better_ranker_wins():
    # A ranks the user's relevant items first; B ranks them at random. A
    # user examines rank r with probability 1/r and clicks relevant items.
    rng = np.random.default_rng(9)
    n, k = 300, 10
    relevant = rng.random((n, 40)) < 0.15
    score = relevant + rng.random((n, 40)) * 0.5
    a = np.argsort(-score, axis=1)[:, :k]
    b = np.array([rng.permutation(40)[:k] for _ in range(n)])
    batch = team_draft_interleave_many(a, b, seed=10)
    examined = rng.random((n, k)) < 1.0 / np.arange(1, k + 1)
    clicks = examined & np.take_along_axis(relevant, batch.items, axis=1)
    credit = interleaving_credit(batch.teams, clicks)
    res = interleaving_test(credit.clicks_a, credit.clicks_b, alternative="greater")
    assert res.p_value < 1e-6 and res.delta > 0.1


def test_credit_and_test_against_hand_and_scipy():
    credit = interleaving_credit([["A", "B", "A"], ["B", "B", "A"]], [[1, 1, 1], [0, 0, 0]])
    assert credit.clicks_a.tolist() == [2, 0]
    assert credit.clicks_b.tolist() == [1, 0]
    assert credit.winner.tolist() == [1, 0]
    assert interleaving_credit([0, 1], [True, False]).winner == 1
    rng = np.random.default_rng(0)
    ca, cb = rng.poisson(0.6, 500), rng.poisson(0.5, 500)
    for alternative in ("two-sided", "greater", "less"):
        res = interleaving_test(ca, cb, alternative=alternative)
        wins_a, wins_b = int((ca > cb).sum()), int((cb > ca).sum())
        assert (res.wins_a, res.wins_b, res.ties) == (wins_a, wins_b, 500 - wins_a - wins_b)
        ref = stats.binomtest(wins_a, wins_a + wins_b, 0.5, alternative=alternative)
        assert res.p_value == pytest.approx(ref.pvalue)
    assert res.delta == pytest.approx((wins_a + 0.5 * (500 - wins_a - wins_b)) / 500 - 0.5)
    # no decided impression: scipy's binomtest(0, 0) refuses too
    with pytest.raises(ValueError, match="no impression has a winner"):
        interleaving_test([0, 0], [0, 0])
    with pytest.raises(ValueError):
        stats.binomtest(0, 0, 0.5)


def test_errors_and_no_mutation():
    a = np.array([[1, 2, 3]])
    b = np.array([[3, 2, 1]])
    a0 = a.copy()
    team_draft_interleave_many(a, b, seed=0)
    assert np.array_equal(a, a0)
    ranking = [1, 2, 3]
    team_draft_interleave(ranking, [3, 2, 1], seed=0)
    assert ranking == [1, 2, 3]
    with pytest.raises(ValueError, match="ranking_a contains the id 1 twice"):
        team_draft_interleave([1, 1], [2, 3])
    with pytest.raises(ValueError, match="rankings_b row 0 lists an item twice"):
        team_draft_interleave_many(a, [[1, 1, 2]])
    with pytest.raises(ValueError, match="length must be at most 3"):
        team_draft_interleave_many(a, b, length=4)
    with pytest.raises(ValueError, match="one row per user"):
        team_draft_interleave_many(a, np.vstack([b, b]))
    with pytest.raises(TypeError, match="seed"):
        team_draft_interleave(ranking, ranking, seed=1.5)
    with pytest.raises(ValueError, match="length must be a positive integer"):
        team_draft_interleave(ranking, ranking, length=0)
    with pytest.raises(ValueError, match="teams must contain only"):
        interleaving_credit(["A", "C"], [1, 0])
    with pytest.raises(ValueError, match="same shape"):
        interleaving_credit(["A", "B"], [1, 0, 1])
    with pytest.raises(ValueError, match="clicks must contain only 0/1"):
        interleaving_credit(["A", "B"], [2, 0])
    with pytest.raises(TypeError, match="clicks must contain 0/1 or booleans"):
        interleaving_credit(["A", "B"], ["x", "y"])
    with pytest.raises(TypeError, match="integer ids in rankings_a but string ids in rankings_b"):
        team_draft_interleave_many(a, np.array([["3", "2", "1"]]))
    strings = team_draft_interleave_many([["x", "y"]], [["y", "z"]], seed=0)
    assert sorted(strings.items[0].tolist()) in (["x", "y"], ["y", "z"])
    with pytest.raises(ValueError, match="clicks_a must be non-negative"):
        interleaving_test([-1, 0], [0, 0])
    with pytest.raises(ValueError, match="same length"):
        interleaving_test([1, 0], [0, 0, 1])
