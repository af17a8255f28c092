"""Tests of the simulated world in metrics_lib.datasets.

Expected values come from independent recomputation (the generative formulas
written out again here with plain numpy) or from properties, never from
numbers printed by the simulator itself.
"""

import dataclasses

import numpy as np
import pandas as pd
import pytest

from metrics_lib import SimulatedWorld, simulate_world

SMALL = dict(n_users=150, n_items=80, n_factors=8)


@pytest.fixture(scope="module")
def world():
    return simulate_world(**SMALL, seed=7)


def _logistic(x):
    return 1.0 / (1.0 + np.exp(-x))


# -- determinism -------------------------------------------------------------

def test_same_seed_same_world(world):
    again = simulate_world(**SMALL, seed=7)
    pd.testing.assert_frame_equal(world.interactions, again.interactions)
    pd.testing.assert_frame_equal(world.test_relevance, again.test_relevance)
    np.testing.assert_array_equal(world.user_factors, again.user_factors)
    np.testing.assert_array_equal(world.item_exposure, again.item_exposure)


def test_different_seed_different_world(world):
    other = simulate_world(**SMALL, seed=8)
    assert not np.allclose(world.user_factors, other.user_factors)
    assert not world.interactions.equals(other.interactions)


def test_simulate_clicks_is_seeded(world):
    lists = np.tile(np.arange(10), (world.n_users, 1))
    users = np.arange(world.n_users)
    a = world.simulate_clicks(users, lists, seed=1)
    b = world.simulate_clicks(users, lists, seed=1)
    c = world.simulate_clicks(users, lists, seed=2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


# -- shapes and bookkeeping ----------------------------------------------------

def test_shapes_and_columns(world):
    assert isinstance(world, SimulatedWorld)
    assert world.user_factors.shape == (150, 8)
    assert world.item_factors.shape == (80, 8)
    assert world.item_appeal.shape == world.item_exposure.shape == (80,)
    assert (world.n_users, world.n_items, world.n_factors) == (150, 80, 8)
    assert list(world.interactions.columns) == ["user", "item", "timestamp"]
    assert list(world.test_relevance.columns) == ["user", "item", "grade"]
    for frame in (world.interactions, world.test_relevance):
        assert all(dtype == np.int64 for dtype in frame.dtypes)
    assert world.item_popularity.shape == (80,)


def test_interactions_are_valid(world):
    log = world.interactions
    assert log["user"].between(0, world.n_users - 1).all()
    assert log["item"].between(0, world.n_items - 1).all()
    assert log["timestamp"].between(0, world.n_days - 1).all()
    assert not log.duplicated(["user", "item"]).any()  # first click only
    assert log["timestamp"].is_monotonic_increasing
    assert world.test_start == 80  # 100 days, last 20 % for testing
    train, test = world.train_interactions, world.test_interactions
    assert len(train) + len(test) == len(log)
    assert (train["timestamp"] < world.test_start).all()
    assert (test["timestamp"] >= world.test_start).all()
    counts = np.bincount(train["item"], minlength=world.n_items)
    np.testing.assert_array_equal(world.item_popularity, counts)


def test_exposure_is_a_zipf_law():
    w = simulate_world(**SMALL, popularity_bias=1.5, seed=3)
    assert w.item_exposure.sum() == pytest.approx(1.0)
    sorted_exposure = np.sort(w.item_exposure)[::-1]
    ranks = np.arange(1, w.n_items + 1)
    expected = ranks ** -1.5 / (ranks ** -1.5).sum()
    np.testing.assert_allclose(sorted_exposure, expected)
    flat = simulate_world(**SMALL, popularity_bias=0, seed=3)
    np.testing.assert_allclose(flat.item_exposure, 1 / flat.n_items)


def test_arrays_are_read_only_and_world_is_frozen(world):
    with pytest.raises(ValueError):
        world.user_factors[0, 0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        world.seed = 3


def test_repr_is_short(world):
    text = repr(world)
    assert text.startswith("SimulatedWorld(n_users=150, n_items=80")
    assert "\n" not in text


# -- the truth -------------------------------------------------------------------

def test_affinity_and_probability_match_the_formula(world):
    expected_a = world.user_factors @ world.item_factors.T + world.item_appeal
    users, items = np.arange(world.n_users)[:, None], np.arange(world.n_items)[None, :]
    np.testing.assert_allclose(world.true_affinity(users, items), expected_a)
    expected_p = _logistic(world.preference_strength * expected_a + world.baseline_logit)
    np.testing.assert_allclose(world.true_click_probability(users, items), expected_p)
    np.testing.assert_allclose(world.click_probability_matrix(), expected_p)
    np.testing.assert_allclose(world.click_probability_matrix([3, 1]), expected_p[[3, 1]])


def test_grades_follow_the_true_probabilities(world):
    p = _logistic(world.preference_strength
                  * (world.user_factors @ world.item_factors.T + world.item_appeal)
                  + world.baseline_logit)
    expected = np.zeros(p.shape, dtype=int)
    for t in world.grade_thresholds:
        expected += p >= t
    np.testing.assert_array_equal(
        world.true_grade(np.arange(world.n_users)[:, None], np.arange(world.n_items)),
        expected)
    # test_relevance: exactly the unseen pairs with grade >= 1, with that grade
    train = world.train_interactions
    seen = set(zip(train["user"], train["item"]))
    want = {(u, i): expected[u, i] for u, i in zip(*np.nonzero(expected))
            if (u, i) not in seen}
    rel = world.test_relevance
    got = dict(zip(zip(rel["user"], rel["item"]), rel["grade"]))
    assert got == want
    assert rel["grade"].between(1, len(world.grade_thresholds)).all()


def test_higher_grades_mean_higher_click_probability(world):
    rel = world.test_relevance
    p = world.true_click_probability(rel["user"].to_numpy(), rel["item"].to_numpy())
    means = pd.Series(p).groupby(rel["grade"].to_numpy()).min()
    assert means.is_monotonic_increasing


def test_clicks_follow_taste():
    # Among shown items, the clicked ones have higher true probability.
    w = simulate_world(n_users=300, n_items=100, n_factors=8, seed=5)
    p_clicked = w.true_click_probability(w.interactions["user"].to_numpy(),
                                         w.interactions["item"].to_numpy()).mean()
    assert p_clicked > 1.5 * w.click_probability_matrix().mean()


def test_simulated_ctr_matches_probabilities_and_position_bias():
    w = simulate_world(n_users=4000, n_items=50, n_factors=4, sessions_per_user=1,
                       seed=11)
    users = np.arange(w.n_users)
    lists = np.tile(np.arange(5), (w.n_users, 1))
    p = w.click_probability_matrix()[:, :5]
    clicks = w.simulate_clicks(users, lists, position_bias=0, seed=4)
    # every slot examined: CTR per slot ~ mean p (4,000 draws: 4 standard errors)
    se = np.sqrt(p.mean(0) * (1 - p.mean(0)) / w.n_users)
    assert np.all(np.abs(clicks.mean(0) - p.mean(0)) < 4 * se)
    clicks = w.simulate_clicks(users, lists, position_bias=1.0, seed=4)
    expected = p.mean(0) / np.arange(1, 6)
    se = np.sqrt(expected * (1 - expected) / w.n_users)
    assert np.all(np.abs(clicks.mean(0) - expected) < 4 * se)


# -- popularity bias ---------------------------------------------------------------

def _gini(x):
    x = np.sort(np.asarray(x, dtype=float))
    n = x.size
    return float((2 * np.arange(1, n + 1) - n - 1) @ x / (n * x.sum()))


def test_popularity_bias_shows_in_the_log():
    kwargs = dict(n_users=400, n_items=100, n_factors=8, seed=2,
                  exposure_appeal_correlation=0.0)
    flat = simulate_world(popularity_bias=0.0, **kwargs)
    biased = simulate_world(popularity_bias=1.0, **kwargs)
    assert _gini(biased.item_popularity) > _gini(flat.item_popularity) + 0.1
    # with exposure independent of appeal, observed popularity follows
    # exposure more than taste once the bias is on, and taste when it is off
    def corr(w, x):
        return np.corrcoef(w.item_popularity, x)[0, 1]
    taste = biased.click_probability_matrix().mean(axis=0)
    assert corr(biased, biased.item_exposure) > corr(biased, taste)
    assert corr(flat, flat.click_probability_matrix().mean(axis=0)) > 0.8


def test_exposure_independent_of_appeal_when_asked():
    w = simulate_world(n_users=10, n_items=2000, n_factors=2,
                       exposure_appeal_correlation=0.0, seed=9)
    r = np.corrcoef(np.log(w.item_exposure), w.item_appeal)[0, 1]
    assert abs(r) < 0.1
    w = simulate_world(n_users=10, n_items=2000, n_factors=2,
                       exposure_appeal_correlation=0.9, seed=9)
    assert np.corrcoef(np.log(w.item_exposure), w.item_appeal)[0, 1] > 0.5


# -- new users ------------------------------------------------------------------------

def test_new_users_share_items_not_users(world):
    fresh = world.new_users(40, seed=1)
    assert fresh.n_users == 40 and fresh.n_items == world.n_items
    np.testing.assert_array_equal(fresh.item_factors, world.item_factors)
    np.testing.assert_array_equal(fresh.item_exposure, world.item_exposure)
    assert fresh.test_start == world.test_start
    assert not np.allclose(fresh.user_factors, world.user_factors[:40])
    again = world.new_users(40, seed=1)
    pd.testing.assert_frame_equal(fresh.interactions, again.interactions)


# -- bad arguments ----------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, words", [
    (dict(n_users=0), ValueError, "n_users"),
    (dict(n_items=-3), ValueError, "n_items"),
    (dict(n_factors=2.0), TypeError, "n_factors"),
    (dict(n_users=True), TypeError, "n_users"),
    (dict(popularity_bias=-0.5), ValueError, "popularity_bias"),
    (dict(popularity_bias=float("nan")), ValueError, "popularity_bias"),
    (dict(exposure_appeal_correlation=1.5), ValueError, "exposure_appeal_correlation"),
    (dict(preference_strength=0), ValueError, "preference_strength"),
    (dict(baseline_logit="low"), TypeError, "baseline_logit"),
    (dict(grade_thresholds=(0.5, 0.2)), ValueError, "increasing"),
    (dict(grade_thresholds=(0.0, 0.2)), ValueError, "grade_thresholds"),
    (dict(grade_thresholds=()), ValueError, "grade_thresholds"),
    (dict(grade_thresholds=0.3), TypeError, "grade_thresholds"),
    (dict(test_fraction=1.0), ValueError, "test_fraction"),
    (dict(n_days=1), ValueError, "n_days"),
    (dict(sessions_per_user=0.5), ValueError, "sessions_per_user"),
    (dict(session_size=0), ValueError, "session_size"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
])
def test_bad_arguments_raise(kwargs, error, words):
    with pytest.raises(error, match=words):
        simulate_world(**{**SMALL, **kwargs})


def test_bad_indices_raise(world):
    with pytest.raises(ValueError, match="items contains 80"):
        world.true_click_probability([0], [80])
    with pytest.raises(ValueError, match="users contains -1"):
        world.true_affinity([-1], [0])
    with pytest.raises(TypeError, match="integer"):
        world.true_affinity([0.5], [0])
    with pytest.raises(ValueError, match="broadcast"):
        world.true_affinity([0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match="shape"):
        world.simulate_clicks([0, 1], np.zeros((3, 2), dtype=int))
    with pytest.raises(ValueError, match="position_bias"):
        world.simulate_clicks([0], [[0, 1]], position_bias=-1)
    with pytest.raises(ValueError, match="n_users"):
        world.new_users(0, seed=1)


def test_inputs_are_not_mutated(world):
    users = np.array([2, 1, 0])
    lists = np.array([[0, 1], [2, 3], [4, 5]])
    world.simulate_clicks(users, lists, seed=0)
    np.testing.assert_array_equal(users, [2, 1, 0])
    np.testing.assert_array_equal(lists, [[0, 1], [2, 3], [4, 5]])
