"""Tests of metrics_lib.counterfactual: hand cases, and seeded simulations in
which the target policy's true value is known exactly (bias and coverage)."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics_lib import (
    doubly_robust_estimate,
    ips_estimate,
    slate_ips_estimate,
    snips_estimate,
)

LOGGING = np.array([[0.5, 0.5], [0.8, 0.2], [0.25, 0.75]])
TARGET = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
ACTIONS = [1, 1, 0]
REWARDS = [1.0, 1.0, 0.0]
MODEL = np.array([[0.2, 0.6]] * 3)


# ----------------------------------------------------------------------------
# hand-computed cases
# ----------------------------------------------------------------------------
def test_hand_case_ips_snips_dr():
    # weights 1/0.5, 1/0.2, 1/0.25 = 2, 5, 4; rewards 1, 1, 0
    ips = ips_estimate(REWARDS, ACTIONS, LOGGING, TARGET)
    assert ips.value == pytest.approx(7 / 3)
    assert ips.std_error == pytest.approx(np.std([2, 5, 0], ddof=1) / math.sqrt(3))
    assert ips.effective_sample_size == pytest.approx(121 / 45)
    assert ips.max_weight == pytest.approx(5.0)
    snips = snips_estimate(REWARDS, ACTIONS, LOGGING, TARGET)
    assert snips.value == pytest.approx(7 / 11)
    # delta method: terms w (r - V) / mean(w)
    terms = np.array([2, 5, 4]) * (np.array(REWARDS) - 7 / 11) / (11 / 3)
    assert snips.std_error == pytest.approx(terms.std(ddof=1) / math.sqrt(3))
    # DR: model values of the target 0.6, 0.6, 0.2; corrections
    # 2 (1 - 0.6), 5 (1 - 0.6), 4 (0 - 0.2) = 0.8, 2.0, -0.8
    dr = doubly_robust_estimate(REWARDS, ACTIONS, LOGGING, TARGET, MODEL)
    assert dr.value == pytest.approx((1.4 + 2.0) / 3)
    assert dr.std_error == pytest.approx(np.std([1.4, 2.6, -0.6], ddof=1) / math.sqrt(3))
    z = stats.norm.ppf(0.975)
    assert dr.ci_high == pytest.approx(dr.value + z * dr.std_error)


def test_dr_with_zero_model_is_ips_and_propensity_vector_form():
    zero = doubly_robust_estimate(REWARDS, ACTIONS, LOGGING, TARGET, np.zeros((3, 2)))
    ips = ips_estimate(REWARDS, ACTIONS, LOGGING, TARGET)
    assert zero.value == pytest.approx(ips.value)
    assert zero.std_error == pytest.approx(ips.std_error)
    short = ips_estimate(REWARDS, ACTIONS, [0.5, 0.2, 0.25], TARGET)
    assert short.value == pytest.approx(ips.value)


def test_on_policy_ips_is_the_sample_mean():
    rng = np.random.default_rng(0)
    policy = rng.dirichlet(np.ones(4), 50)
    actions = [rng.choice(4, p=p) for p in policy]
    rewards = rng.random(50)
    for estimator in (ips_estimate, snips_estimate):
        est = estimator(rewards, actions, policy, policy)
        assert est.value == pytest.approx(rewards.mean())
        assert est.effective_sample_size == pytest.approx(50)


def test_slate_hand_case():
    # two items, two positions; the logger shows [0, 1] or [1, 0] at random;
    # the target always shows [1, 0]. Record 0 showed [0, 1]: weights 0.
    # Record 1 showed [1, 0] with clicks 1, 1: weights 2, 2 -> 4. Mean 2.
    logging = np.full((2, 2, 2), 0.5)
    target = np.array([[[0.0, 1.0], [1.0, 0.0]]] * 2)
    est = slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [1, 0]], logging, target)
    assert est.value == 2.0
    assert est.std_error == pytest.approx(np.std([0, 4], ddof=1) / math.sqrt(2))
    weighted = slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [1, 0]], logging, target,
                                  position_weights=[1.0, 0.5])
    assert weighted.value == pytest.approx((2 + 1) / 2)
    marginal = slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [1, 0]],
                                  [[0.5, 0.5], [0.5, 0.5]], target)
    assert marginal.value == 2.0


# ----------------------------------------------------------------------------
# simulation: a contextual bandit whose true values are known
# ----------------------------------------------------------------------------
def _softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _bandit_world():
    rng = np.random.default_rng(123)
    n_contexts, n_actions = 6, 4
    q = rng.uniform(0.02, 0.3, (n_contexts, n_actions))  # click probabilities
    logger = _softmax(rng.normal(0, 0.7, (n_contexts, n_actions)))
    target = _softmax(8.0 * q + rng.normal(0, 0.3, (n_contexts, n_actions)))
    true_value = float(np.mean((target * q).sum(axis=1)))  # contexts uniform
    return q, logger, target, true_value


def test_bias_and_coverage_against_the_true_value():
    q, logger, target, true_value = _bandit_world()
    rng = np.random.default_rng(7)
    reps, n = 300, 1000
    # a reward model that is wrong by a constant and by noise: DR stays unbiased
    model = q + 0.05 + np.random.default_rng(8).normal(0, 0.03, q.shape)
    values = {"ips": [], "snips": [], "dr": []}
    covered = {"ips": 0, "snips": 0, "dr": 0}
    for _ in range(reps):
        x = rng.integers(0, q.shape[0], n)
        cumulative = logger[x].cumsum(axis=1)
        a = (rng.random(n)[:, None] > cumulative).sum(axis=1)
        r = (rng.random(n) < q[x, a]).astype(float)
        for name, est in (
                ("ips", ips_estimate(r, a, logger[x], target[x])),
                ("snips", snips_estimate(r, a, logger[x], target[x])),
                ("dr", doubly_robust_estimate(r, a, logger[x], target[x], model[x]))):
            values[name].append(est.value)
            covered[name] += est.ci_low <= true_value <= est.ci_high
    for name in values:
        v = np.asarray(values[name])
        assert abs(v.mean() - true_value) < 3.5 * v.std(ddof=1) / math.sqrt(reps), name
        assert 0.91 <= covered[name] / reps <= 0.985, name
    # the reward model removes variance
    assert np.std(values["dr"]) < np.std(values["ips"])


def test_missing_overlap_is_refused_and_would_bias():
    q, logger, target, true_value = _bandit_world()
    blind = logger.copy()
    blind[:, 0] = 0.0  # the logger never takes action 0 ...
    blind /= blind.sum(axis=1, keepdims=True)
    x = np.arange(600) % q.shape[0]
    rng = np.random.default_rng(3)
    a = np.array([rng.choice(4, p=p) for p in blind[x]])
    r = (rng.random(600) < q[x, a]).astype(float)
    with pytest.raises(ValueError, match="no overlap: target_policy gives probability"):
        ips_estimate(r, a, blind[x], target[x])  # ... but the target does
    with pytest.raises(ValueError, match="no overlap"):
        doubly_robust_estimate(r, a, blind[x], target[x], q[x])
    # with the propensities alone the check is impossible: the value misses
    # the target's share on action 0 (the documented silent bias)
    est = ips_estimate(r, a, blind[x, a], target[x])
    assert est.ci_high < true_value


# ----------------------------------------------------------------------------
# simulation: slates under an item-position click model
# ----------------------------------------------------------------------------
def _plackett_luce(weights, length):
    """Probability of every ordered list of ``length`` distinct items."""
    slates = list(itertools.permutations(range(weights.size), length))
    probs = []
    for s in slates:
        remaining, p = weights.sum(), 1.0
        for item in s:
            p *= weights[item] / remaining
            remaining -= weights[item]
        probs.append(p)
    return np.array(slates), np.array(probs)


def _marginals(slates, probs, n_items, length):
    m = np.zeros((n_items, length))
    for s, p in zip(slates, probs):
        m[s, np.arange(length)] += p
    return m


def test_slate_ips_unbiased_with_coverage_under_item_position_model():
    n_items, length = 5, 3
    attraction = np.array([0.6, 0.45, 0.3, 0.2, 0.1])
    examination = np.array([1.0, 0.6, 0.35])
    slates, p_log = _plackett_luce(np.array([1.0, 1.5, 2.0, 2.5, 3.0]), length)
    _, p_target = _plackett_luce(np.array([5.0, 3.0, 1.5, 1.0, 0.5]), length)
    m_log = _marginals(slates, p_log, n_items, length)
    m_target = _marginals(slates, p_target, n_items, length)
    click_prob = attraction[slates] * examination  # (n_slates, length)
    true_value = float(p_target @ click_prob.sum(axis=1))
    rng = np.random.default_rng(11)
    reps, n = 200, 800
    values, covered = [], 0
    for _ in range(reps):
        drawn = rng.choice(len(slates), size=n, p=p_log)
        clicks = (rng.random((n, length)) < click_prob[drawn]).astype(int)
        est = slate_ips_estimate(clicks, slates[drawn], np.broadcast_to(m_log, (n, *m_log.shape)),
                                 np.broadcast_to(m_target, (n, *m_target.shape)))
        values.append(est.value)
        covered += est.ci_low <= true_value <= est.ci_high
    v = np.asarray(values)
    assert abs(v.mean() - true_value) < 3.5 * v.std(ddof=1) / math.sqrt(reps)
    assert 0.9 <= covered / reps <= 0.99
    # the naive on-log click count is far from the target's value
    assert abs(float(p_log @ click_prob.sum(axis=1)) - true_value) > 4 * v.std()


# ----------------------------------------------------------------------------
# bad input
# ----------------------------------------------------------------------------
def test_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"logging_policy must be probabilities in \(0, 1\]"):
        ips_estimate(REWARDS, ACTIONS, [0.5, 0.0, 0.25], TARGET)
    with pytest.raises(ValueError, match=r"logging_policy must be probabilities in \(0, 1\]"):
        ips_estimate(REWARDS, ACTIONS, [0.5, 1.2, 0.25], TARGET)
    with pytest.raises(ValueError, match="logging_policy must sum to 1"):
        ips_estimate(REWARDS, ACTIONS, LOGGING * 0.9, TARGET)
    with pytest.raises(ValueError, match="target_policy must sum to 1"):
        snips_estimate(REWARDS, ACTIONS, LOGGING, TARGET * 0.5)
    with pytest.raises(ValueError, match="record 1: the logged action 1 has probability 0"):
        ips_estimate(REWARDS, ACTIONS, [[0.5, 0.5], [1.0, 0.0], [0.25, 0.75]],
                     [[0.5, 0.5], [1.0, 0.0], [1.0, 0.0]])
    with pytest.raises(ValueError, match="rewards and target_policy"):
        ips_estimate([1.0, 0.0], ACTIONS, LOGGING, TARGET)
    with pytest.raises(ValueError, match="actions must have one entry"):
        ips_estimate(REWARDS, [1, 1], LOGGING, TARGET)
    with pytest.raises(ValueError, match=r"actions must lie in \[0, 2\)"):
        ips_estimate(REWARDS, [1, 2, 0], LOGGING, TARGET)
    with pytest.raises(TypeError, match="actions must contain integers"):
        ips_estimate(REWARDS, [1.5, 1, 0], LOGGING, TARGET)
    with pytest.raises(ValueError, match="rewards contains a non-finite value"):
        ips_estimate([1.0, np.nan, 0.0], ACTIONS, LOGGING, TARGET)
    with pytest.raises(ValueError, match="propensities of the logged actions"):
        ips_estimate(REWARDS, ACTIONS, [0.5, 0.2], TARGET)
    with pytest.raises(ValueError, match="logging_policy and target_policy must have the same"):
        ips_estimate(REWARDS, ACTIONS, np.full((3, 3), 1 / 3), TARGET)
    with pytest.raises(ValueError, match="reward_model must have the shape"):
        doubly_robust_estimate(REWARDS, ACTIONS, LOGGING, TARGET, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="reward_model contains a non-finite"):
        doubly_robust_estimate(REWARDS, ACTIONS, LOGGING, TARGET, [[0, 1], [0, np.inf], [0, 0]])
    with pytest.raises(ValueError, match="every importance weight is 0"):
        snips_estimate(REWARDS, ACTIONS, LOGGING, [[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    logging = np.full((2, 2, 2), 0.5)
    target = np.array([[[0.0, 1.0], [1.0, 0.0]]] * 2)
    with pytest.raises(ValueError, match="clicks must contain only 0/1"):
        slate_ips_estimate([[2, 0], [1, 1]], [[0, 1], [1, 0]], logging, target)
    with pytest.raises(ValueError, match="clicks must contain only 0/1"):
        slate_ips_estimate([[-1, 0], [1, 1]], [[0, 1], [1, 0]], logging, target)
    with pytest.raises(ValueError, match="slates must lie in"):
        slate_ips_estimate([[1, 0], [1, 1]], [[0, 2], [1, 0]], logging, target)
    blind = np.array([[[1.0, 0.0], [0.0, 1.0]]] * 2)
    with pytest.raises(ValueError, match="no overlap: target_marginals .* record 0, item 0, position 1"):
        slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [0, 1]], blind, target)
    with pytest.raises(ValueError, match="logging_marginals must sum to 1 over axis 1"):
        slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [1, 0]], logging * 0.5, target)
    with pytest.raises(ValueError, match="position_weights must have one entry"):
        slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [1, 0]], logging, target,
                           position_weights=[1.0])


def test_inputs_are_not_mutated():
    logging, target, model = LOGGING.copy(), TARGET.copy(), MODEL.copy()
    rewards = np.array(REWARDS)
    doubly_robust_estimate(rewards, ACTIONS, logging, target, model)
    snips_estimate(rewards, ACTIONS, logging, target)
    snips_estimate(rewards, ACTIONS, logging, target, clip=3.0, interval="bootstrap",
                   n_resamples=99, seed=0)
    doubly_robust_estimate(rewards, ACTIONS, logging, target, model, clip=1.0,
                           interval="bootstrap", n_resamples=99, seed=0)
    assert np.array_equal(logging, LOGGING) and np.array_equal(target, TARGET)
    assert np.array_equal(model, MODEL) and rewards.tolist() == REWARDS


# ----------------------------------------------------------------------------
# variance control: clipped weights and the bootstrap interval (issue 23)
# ----------------------------------------------------------------------------
def _random_log(rng, case):
    """A random bandit log with the dtypes real logs have."""
    n, k = int(rng.integers(2, 400)), int(rng.integers(2, 7))
    logger = np.maximum(rng.dirichlet(np.full(k, 0.5), n), 1e-3)
    logger /= logger.sum(axis=1, keepdims=True)
    target = (np.eye(k)[rng.integers(0, k, n)] if case % 3 == 0
              else rng.dirichlet(np.full(k, 0.3), n))
    a = np.minimum((rng.random(n)[:, None] > logger.cumsum(axis=1)).sum(axis=1), k - 1)
    r = [(rng.random(n) < 0.3).astype(np.int64), rng.normal(0, 1, n).astype(np.float32),
         rng.normal(-1, 2, n)][case % 3]
    actions = [a.astype(np.int32), a.astype(np.uint64), a.tolist(),
               pd.array(a, dtype="Int64")][case % 4]
    return r, actions, logger, target, rng.normal(0.2, 0.3, (n, k)), a


def test_clipped_estimators_match_their_formulas():
    rng = np.random.default_rng(230)
    for case in range(60):
        r, actions, logger, target, model, a = _random_log(rng, case)
        rows = np.arange(a.size)
        rf = np.asarray(r, dtype=float)
        w = target[rows, a] / logger[rows, a]
        clip = float(np.quantile(w, rng.uniform(0.2, 0.95)))
        if clip <= 0:
            clip = 0.5
        wc = np.minimum(w, clip)
        ips = ips_estimate(r, actions, logger, target, clip=clip)
        assert ips.value == pytest.approx(np.mean(wc * rf), rel=1e-12, abs=1e-12)
        assert ips.std_error == pytest.approx(np.std(wc * rf, ddof=1) / math.sqrt(a.size),
                                              rel=1e-12, abs=1e-12)
        assert ips.n_clipped == np.count_nonzero(w > clip) and ips.clip == clip
        assert ips.max_weight == pytest.approx(wc.max(), rel=1e-12)
        assert ips.effective_sample_size == pytest.approx(wc.sum() ** 2 / (wc @ wc), rel=1e-12)
        dr = doubly_robust_estimate(r, actions, logger, target, model, clip=clip)
        terms = (target * model).sum(axis=1) + wc * (rf - model[rows, a])
        assert dr.value == pytest.approx(terms.mean(), rel=1e-12, abs=1e-12)
        if wc.sum() > 0:
            snips = snips_estimate(r, actions, logger, target, clip=clip)
            assert snips.value == pytest.approx(wc @ rf / wc.sum(), rel=1e-12, abs=1e-12)
        # a cap above every weight changes nothing
        same = ips_estimate(r, actions, logger, target, clip=2 * w.max() + 1)
        plain = ips_estimate(r, actions, logger, target)
        assert (same.value, same.ci_low, same.ci_high, same.n_clipped) == \
            (plain.value, plain.ci_low, plain.ci_high, 0)


def test_clipped_slate_hand_case():
    # weights 2, 2 on the second list (clicks 1, 1): capped at 1.5 -> 3 per list, mean 1.5
    logging = np.full((2, 2, 2), 0.5)
    target = np.array([[[0.0, 1.0], [1.0, 0.0]]] * 2)
    est = slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [1, 0]], logging, target, clip=1.5)
    assert est.value == 1.5 and est.n_clipped == 2 and est.max_weight == 1.5


def _percentile_reference(numerator, denominator, n_resamples, seed, confidence):
    """The percentile bootstrap written out: resample records, recompute, quantiles."""
    n = numerator.size
    index = np.random.default_rng(seed).integers(0, n, (n_resamples, n))
    values = (numerator[index].mean(axis=1) if denominator is None
              else numerator[index].sum(axis=1) / denominator[index].sum(axis=1))
    tail = (1 - confidence) / 2
    return np.quantile(values, [tail, 1 - tail])


def test_bootstrap_interval_matches_the_percentile_formula():
    rng = np.random.default_rng(231)
    compared = 0
    for case in range(30):
        r, actions, logger, target, model, a = _random_log(rng, case)
        rows = np.arange(a.size)
        rf = np.asarray(r, dtype=float)
        w = target[rows, a] / logger[rows, a]
        clip = None if case % 2 else float(np.quantile(w, 0.8)) or None
        wc = w if clip is None else np.minimum(w, clip)
        confidence = [0.95, 0.9, 0.5][case % 3]
        options = dict(interval="bootstrap", n_resamples=999, seed=case,
                       confidence=confidence, clip=clip)
        checks = [(ips_estimate(r, actions, logger, target, **options), wc * rf, None),
                  (doubly_robust_estimate(r, actions, logger, target, model, **options),
                   (target * model).sum(axis=1) + wc * (rf - model[rows, a]), None)]
        if np.count_nonzero(wc) > a.size // 2:  # no resample without a weight
            checks.append((snips_estimate(r, actions, logger, target, **options),
                           wc * rf, wc))
        for est, numerator, denominator in checks:
            low, high = _percentile_reference(numerator, denominator, 999, case, confidence)
            assert est.ci_low == pytest.approx(low, rel=1e-12, abs=1e-12)
            assert est.ci_high == pytest.approx(high, rel=1e-12, abs=1e-12)
            assert est.interval == "bootstrap" and est.n_resamples == 999
            compared += 1
    assert compared >= 70
    # a Generator is used as given; the same state gives the same interval
    first = ips_estimate(REWARDS, ACTIONS, LOGGING, TARGET, interval="bootstrap",
                         n_resamples=99, seed=np.random.default_rng(5))
    again = ips_estimate(REWARDS, ACTIONS, LOGGING, TARGET, interval="bootstrap",
                         n_resamples=99, seed=5)
    assert (first.ci_low, first.ci_high) == (again.ci_low, again.ci_high)
    normal = ips_estimate(REWARDS, ACTIONS, LOGGING, TARGET)
    assert normal.interval == "normal" and normal.n_resamples is None


def test_slate_bootstrap_resamples_lists():
    logging = np.full((4, 2, 2), 0.5)
    target = np.array([[[0.0, 1.0], [1.0, 0.0]]] * 4)
    clicks, slates = [[1, 0], [1, 1], [0, 1], [1, 1]], [[0, 1], [1, 0], [1, 0], [1, 0]]
    est = slate_ips_estimate(clicks, slates, logging, target, interval="bootstrap",
                             n_resamples=499, seed=3)
    per_list = np.array([0.0, 4.0, 2.0, 4.0])  # weights 2 where the target's item is shown
    low, high = _percentile_reference(per_list, None, 499, 3, 0.95)
    assert (est.ci_low, est.ci_high) == pytest.approx((low, high), rel=1e-12)


def test_bootstrap_coverage_near_the_logger():
    # where the weights are moderate the bootstrap interval covers like the normal one
    q, logger, target, true_value = _bandit_world()
    rng = np.random.default_rng(17)
    reps, n = 200, 500
    covered = {"ips": 0, "snips": 0}
    for rep in range(reps):
        x = rng.integers(0, q.shape[0], n)
        a = (rng.random(n)[:, None] > logger[x].cumsum(axis=1)).sum(axis=1)
        r = (rng.random(n) < q[x, a]).astype(float)
        for name, function in (("ips", ips_estimate), ("snips", snips_estimate)):
            est = function(r, a, logger[x], target[x], interval="bootstrap",
                           n_resamples=199, seed=rep)
            covered[name] += est.ci_low <= true_value <= est.ci_high
    for name, count in covered.items():
        assert 0.9 <= count / reps <= 0.985, (name, count)


def test_variance_control_options_are_validated():
    call = lambda **kw: ips_estimate(REWARDS, ACTIONS, LOGGING, TARGET, **kw)  # noqa: E731
    with pytest.raises(ValueError,
                       match=r"interval must be one of 'normal', 'bootstrap'; got 'wald'"):
        call(interval="wald")
    with pytest.raises(ValueError, match=r"n_resamples must be an integer from 1 to 1,000,000"):
        call(interval="bootstrap", n_resamples=1_000_001)
    with pytest.raises(ValueError, match=r"n_resamples must be at least 2"):
        call(interval="bootstrap", n_resamples=1)
    with pytest.raises(TypeError, match=r"n_resamples must be a positive integer"):
        call(interval="bootstrap", n_resamples=99.5)
    with pytest.raises(ValueError, match=r"seed must be a non-negative integer"):
        call(interval="bootstrap", seed=-1)
    with pytest.raises(TypeError, match=r"seed must be None"):
        call(seed="a")
    for bad in (0, -1.0):
        with pytest.raises(ValueError, match=r"clip must lie in \(0, inf\)"):
            call(clip=bad)
    for bad in (math.nan, math.inf):
        with pytest.raises(ValueError, match=r"clip must be finite"):
            call(clip=bad)
    with pytest.raises(TypeError, match=r"clip must be a real number"):
        call(clip=True)
    # two records, one with weight 0: a quarter of the resamples have no weight
    with pytest.raises(ValueError, match=r"bootstrap resample has every importance weight 0"):
        snips_estimate([1.0, 0.0], [1, 0], LOGGING[:2], [[0.0, 1.0], [0.0, 1.0]],
                       interval="bootstrap", n_resamples=99, seed=0)
    with pytest.raises(ValueError, match="clip"):
        slate_ips_estimate([[1, 0]] * 2, [[0, 1]] * 2, np.full((2, 2, 2), 0.5),
                           np.full((2, 2, 2), 0.5), clip=-2)
