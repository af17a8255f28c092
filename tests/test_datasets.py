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


# -- issue 14: logging policy, click model, common random numbers, pre-period --

from metrics_lib import sample_rankings  # noqa: E402


@pytest.mark.parametrize("pool", [None, 6])
def test_sample_rankings_marginals_match_frequencies(pool):
    rng = np.random.default_rng(0)
    scores = rng.normal(size=(1, 12))
    scores[0, 3] = -np.inf                      # one ineligible item
    tiled = np.repeat(scores, 40000, axis=0)
    log = sample_rankings(tiled, 4, epsilon=0.3, pool=pool, seed=1)
    full = log.item_position_marginals()
    np.testing.assert_allclose(full.sum(axis=1), 1.0)
    assert (full[:, 3, :] == 0).all()
    freq = np.zeros((12, 4))
    for j in range(4):
        freq[:, j] = np.bincount(log.lists[:, j], minlength=12) / log.lists.shape[0]
    np.testing.assert_allclose(freq, full[0], atol=0.01)
    # the logged propensities are the full table read at the logged slots
    rows = np.arange(tiled.shape[0])[:, None]
    np.testing.assert_allclose(log.propensities, full[rows, log.lists, np.arange(4)])


@pytest.mark.parametrize("pool", [None, 5])
def test_sample_rankings_slate_probabilities_match_frequencies(pool):
    scores = np.tile(np.array([[0.4, 0.3, 0.2, 0.1, 0.0, -0.1]]), (60000, 1))
    log = sample_rankings(scores, 2, epsilon=0.4, pool=pool, seed=2)
    slates, counts = np.unique(log.lists, axis=0, return_counts=True)
    # every possible ordered pair: probabilities sum to 1 and match frequencies
    pairs = np.array([(a, b) for a in range(6) for b in range(6) if a != b])
    sub = sample_rankings(scores[:len(pairs)], 2, epsilon=0.4, pool=pool, seed=2)
    p = sub.slate_probability(pairs)
    assert p.sum() == pytest.approx(1.0)
    freq = {tuple(s): c / scores.shape[0] for s, c in zip(slates.tolist(), counts)}
    for pair, prob in zip(pairs.tolist(), p):
        assert freq.get(tuple(pair), 0.0) == pytest.approx(prob, abs=0.006)


def test_sample_rankings_deterministic_and_errors():
    scores = np.array([[0.5, 0.5, 0.1], [0.0, 1.0, 2.0]])
    before = scores.copy()
    log = sample_rankings(scores, 2, epsilon=0.0, seed=0)
    assert log.lists.tolist() == [[0, 1], [2, 1]]          # tie: lower index first
    assert (log.propensities == 1).all() and (log.slate_propensities == 1).all()
    np.testing.assert_array_equal(scores, before)
    with pytest.raises(ValueError, match="eligible"):
        sample_rankings(np.array([[0.0, -np.inf]]), 2)
    with pytest.raises(ValueError, match="NaN"):
        sample_rankings(np.array([[0.0, np.nan]]), 1)
    with pytest.raises(ValueError, match="epsilon"):
        sample_rankings(scores, 1, epsilon=1.5)
    with pytest.raises(ValueError, match="pool"):
        sample_rankings(scores, 2, pool=1)
    with pytest.raises(TypeError):
        sample_rankings(np.array([["a", "b"]]), 1)


def test_sample_rankings_feeds_slate_ips_unbiased():
    # exact expected value of slate IPS = target's true value (item-position model)
    from metrics_lib import slate_ips_estimate
    rng = np.random.default_rng(3)
    n, n_items, k = 30000, 8, 3
    scores = np.tile(rng.normal(size=(1, n_items)), (n, 1))
    log = sample_rankings(scores, k, epsilon=0.5, pool=4, seed=4)
    attract = rng.uniform(0.1, 0.6, size=n_items)
    examine = 1.0 / np.arange(1, k + 1)
    clicks = rng.random((n, k)) < attract[log.lists] * examine
    target = np.tile(np.array([[7, 6, 5]]), (n, 1))
    truth = float((attract[[7, 6, 5]] * examine).sum())
    tm = np.zeros((n, n_items, k))
    tm[np.arange(n)[:, None], target, np.arange(k)] = 1.0
    est = slate_ips_estimate(clicks, log.lists, log.propensities, tm)
    assert abs(est.value - truth) < 4 * est.std_error


def test_examination_curve_recovered(world):
    # random orders of the same items: the click rate per rank / rank 1 = r ** -eta
    # (a user's draws are fixed by the seed: independent repetitions need new seeds)
    rng = np.random.default_rng(5)
    users = np.arange(world.n_users)
    lists = np.argsort(rng.random((300, users.size, world.n_items)), axis=2)[:, :, :6]
    clicks = np.concatenate([world.position_based_clicks(users, lists[s], position_bias=0.7,
                                                         seed=s) for s in range(300)])
    users = np.tile(users, 300)
    lists = lists.reshape(-1, 6)
    rate = clicks.mean(axis=0)
    expected = np.arange(1, 7) ** -0.7
    np.testing.assert_allclose(rate / rate[0], expected, rtol=0.06)
    np.testing.assert_allclose(world.examination_probability(6, position_bias=0.7), expected)
    np.testing.assert_allclose(clicks.mean(), world.expected_clicks(users, lists,
                               position_bias=0.7).mean(), rtol=0.03)


def test_common_random_numbers(world):
    users = np.arange(world.n_users)
    rng = np.random.default_rng(6)
    a = np.argsort(rng.random((users.size, world.n_items)), axis=1)[:, :10]
    b = a.copy()
    b[:, 5:] = np.argsort(rng.random((users.size, world.n_items)), axis=1)[:, :5]
    same = np.array([len(set(r)) == 10 for r in b.tolist()])
    ca = world.position_based_clicks(users, a, seed=11)
    cb = world.position_based_clicks(users, b, seed=11)
    np.testing.assert_array_equal(ca[:, :5], cb[:, :5])       # identical slots, same clicks
    np.testing.assert_array_equal(ca, world.position_based_clicks(users, a, seed=11))
    # a subset of users gets the same draws as in the full call
    np.testing.assert_array_equal(ca[10:20], world.position_based_clicks(users[10:20], a[10:20],
                                                                         seed=11))
    # same item at a different rank: attraction shared, examination of the new rank
    swapped = a[:, ::-1]
    cs = world.position_based_clicks(users, swapped, seed=11)
    assert not np.array_equal(cs[:, ::-1], ca)
    assert not np.array_equal(world.position_based_clicks(users, a, seed=12), ca)
    assert same.any()


def test_keyed_uniforms_are_uniform():
    from metrics_lib.datasets._random import _keyed_uniform
    u = _keyed_uniform(3, 1, np.arange(200)[:, None], np.arange(500)[None, :]).ravel()
    from scipy import stats
    assert stats.kstest(u, "uniform").pvalue > 0.01
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 0.02


def test_pre_period(world):
    pre = world.pre_period(seed=4)
    assert list(pre.columns) == ["user", "impressions", "clicks"]
    assert (pre["impressions"] % world.session_size == 0).all()
    sub = world.pre_period([5, 2], seed=4)
    pd.testing.assert_frame_equal(sub.reset_index(drop=True),
                                  pre.iloc[[5, 2]].reset_index(drop=True))
    # pre-period CTR follows the user's expected CTR on the exposure law
    p = world.click_probability_matrix() @ world.item_exposure
    ctr = pre["clicks"] / pre["impressions"]
    assert np.corrcoef(ctr, p)[0, 1] > 0.5
    many = pd.concat([world.pre_period([0], seed=s) for s in range(400)])
    assert many["clicks"].sum() / many["impressions"].sum() == pytest.approx(p[0], rel=0.1)
    with pytest.raises(ValueError):
        world.pre_period([world.n_users])


def test_attraction_draws_follow_the_item(world):
    # with every rank examined, a click depends on (user, item) only: reversing the
    # list reverses the clicks
    users = np.arange(world.n_users)
    lists = np.argsort(np.random.default_rng(8).random((users.size, world.n_items)),
                       axis=1)[:, :10]
    ca = world.position_based_clicks(users, lists, position_bias=0.0, seed=13)
    cr = world.position_based_clicks(users, lists[:, ::-1], position_bias=0.0, seed=13)
    np.testing.assert_array_equal(ca, cr[:, ::-1])
    assert ca.any()


def test_user_activity_default_changes_nothing(world):
    assert (world.user_activity == 0).all() and world.user_activity_scale == 0.0
    # the same world with the option set to 0 explicitly is the same world
    again = simulate_world(**SMALL, user_activity_scale=0.0, seed=7)
    pd.testing.assert_frame_equal(world.interactions, again.interactions)
    # the click model without offsets, written out again
    logit = (world.preference_strength * (world.user_factors @ world.item_factors.T
                                          + world.item_appeal) + world.baseline_logit)
    np.testing.assert_allclose(world.click_probability_matrix(), _logistic(logit))


def test_user_activity_makes_pre_period_predictive():
    active = simulate_world(n_users=1500, n_items=60, n_factors=8, user_activity_scale=1.0,
                            seed=3)
    assert active.user_activity.std() == pytest.approx(1.0, rel=0.1)
    logit = (active.preference_strength * (active.user_factors @ active.item_factors.T
                                           + active.item_appeal)
             + active.baseline_logit + active.user_activity[:, None])
    np.testing.assert_allclose(active.click_probability_matrix(), _logistic(logit))
    np.testing.assert_allclose(active.true_click_probability([4, 9], [1, 2]),
                               _logistic(logit[[4, 9], [1, 2]]))
    users = np.arange(active.n_users)
    lists = np.tile(np.arange(10), (active.n_users, 1))
    outcome = active.position_based_clicks(users, lists, seed=2).sum(axis=1)
    pre = active.pre_period(seed=1)
    r_active = np.corrcoef(pre["clicks"], outcome)[0, 1]
    plain = simulate_world(n_users=1500, n_items=60, n_factors=8, seed=3)
    r_plain = np.corrcoef(plain.pre_period(seed=1)["clicks"],
                          plain.position_based_clicks(users, lists, seed=2).sum(axis=1))[0, 1]
    assert r_active > r_plain + 0.1
    fresh = active.new_users(50, seed=4)
    assert fresh.user_activity_scale == 1.0 and fresh.user_activity.std() > 0.5
    with pytest.raises(ValueError, match="user_activity_scale"):
        simulate_world(n_users=5, n_items=5, user_activity_scale=-1.0)


def _logger_distribution(scores_row, k, epsilon, pool):
    """Exact distribution of the logger's ordered lists, by enumeration."""
    import itertools
    eligible = [i for i in range(scores_row.size) if np.isfinite(scores_row[i])]
    order = sorted(eligible, key=lambda i: (-scores_row[i], i))   # ties: lower index
    dist = {}
    explore = list(itertools.permutations(eligible, k))
    for lst in explore:
        dist[lst] = dist.get(lst, 0.0) + epsilon / len(explore)
    if pool is None:
        exploit = [tuple(order[:k])]
    else:
        exploit = list(itertools.permutations(order[:min(pool, len(eligible))], k))
    for lst in exploit:
        dist[lst] = dist.get(lst, 0.0) + (1.0 - epsilon) / len(exploit)
    return dist


def test_sample_rankings_propensities_exact_by_enumeration():
    # every propensity the logger reports equals the probability obtained by listing
    # all ordered lists it can show (ties, ineligible items, pools larger than the
    # eligible set, invalid candidate lists with repeats)
    import itertools
    rng = np.random.default_rng(21)
    for _ in range(40):
        n_items = int(rng.integers(3, 7))
        k = int(rng.integers(1, min(4, n_items) + 1))
        row = rng.integers(0, 3, size=n_items).astype(float)       # many ties
        out = rng.random(n_items) < 0.25
        if (~out).sum() >= k:
            row[out] = -np.inf
        epsilon = float(rng.choice([0.0, 0.17, 0.5, 1.0]))
        pool = [None, k, k + 1, n_items + 2][int(rng.integers(0, 4))]
        dist = _logger_distribution(row, k, epsilon, pool)
        assert sum(dist.values()) == pytest.approx(1.0)
        exact = np.zeros((n_items, k))
        for lst, prob in dist.items():
            exact[list(lst), np.arange(k)] += prob
        candidates = np.array(list(itertools.product(range(n_items), repeat=k)))
        log = sample_rankings(np.repeat(row[None, :], len(candidates), axis=0), k,
                              epsilon=epsilon, pool=pool, seed=1)
        np.testing.assert_allclose(log.item_position_marginals()[0], exact, atol=1e-12)
        np.testing.assert_allclose(log.marginals(candidates),
                                   exact[candidates, np.arange(k)], atol=1e-12)
        np.testing.assert_allclose(log.slate_probability(candidates),
                                   [dist.get(tuple(c), 0.0) for c in candidates.tolist()],
                                   atol=1e-12)
        np.testing.assert_allclose(log.propensities, exact[log.lists, np.arange(k)],
                                   atol=1e-12)
        np.testing.assert_allclose(log.slate_propensities,
                                   [dist[tuple(c)] for c in log.lists.tolist()], atol=1e-12)
