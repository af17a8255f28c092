"""Tests of metrics_lib.significance against scipy.stats (ttest_rel,
bootstrap, permutation_test with permutation_type="samples")."""

import math

import numpy as np
import pytest
from scipy import stats

from metrics_lib import paired_bootstrap_ci, paired_permutation_test, paired_t_test


def _per_user_metrics(seed, n):
    """Two correlated per-user metric arrays with many exact zeros."""
    rng = np.random.default_rng(seed)
    base = rng.beta(0.6, 1.5, n) * (rng.random(n) < 0.7)
    a = np.clip(base + rng.normal(0.02, 0.08, n), 0, 1)
    b = np.clip(base + rng.normal(0.0, 0.08, n), 0, 1)
    return a, b


def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


# ---------------------------------------------------------------- t-test
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
@pytest.mark.parametrize("seed", [0, 1])
def test_t_test_matches_scipy(alternative, seed):
    a, b = _per_user_metrics(seed, 200)
    ours = paired_t_test(a, b, alternative=alternative, confidence=0.9)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)
    assert ours.df == 199
    ci = ref.confidence_interval(confidence_level=0.9)
    assert ours.ci_low == pytest.approx(ci.low, rel=1e-10)
    assert ours.ci_high == pytest.approx(ci.high, rel=1e-10)
    assert ours.mean_difference == pytest.approx(np.mean(a - b))


def test_t_test_hand_case():
    # differences 0.1, 0.2, 0, 0.3: mean 0.15, sd sqrt(0.05/3)
    result = paired_t_test([0.5, 0.7, 0.2, 0.9], [0.4, 0.5, 0.2, 0.6])
    assert result.statistic == pytest.approx(0.15 / (math.sqrt(0.05 / 3) / 2))


def test_t_test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        paired_t_test([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="at least 2"):
        paired_t_test([1], [2])
    with pytest.raises(ValueError, match="non-finite"):
        paired_t_test([1, np.nan], [1, 2])
    with pytest.raises(ValueError, match="undefined"):
        paired_t_test([1, 2, 3], [0, 1, 2])
    with pytest.raises(ValueError, match="alternative"):
        paired_t_test([1, 2], [2, 1], alternative="bigger")
    with pytest.raises(ValueError, match="confidence"):
        paired_t_test([1, 2], [2, 1], confidence=95)


# ---------------------------------------------------------------- bootstrap
@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
def test_bootstrap_matches_scipy_with_same_generator(method):
    a, b = _per_user_metrics(2, 120)
    ours = paired_bootstrap_ci(a, b, n_resamples=2000, method=method,
                               seed=np.random.default_rng(7), confidence=0.9)
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=2000, method=method,
                          rng=np.random.default_rng(7), confidence_level=0.9)
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, rel=1e-10)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, rel=1e-10)
    assert ours.standard_error == pytest.approx(ref.standard_error, rel=1e-10)


def test_bootstrap_batches_reproduce_one_draw():
    # 3000 users x 999 resamples is drawn in several batches; scipy draws once
    a, b = _per_user_metrics(3, 3000)
    ours = paired_bootstrap_ci(a, b, n_resamples=999, seed=11)
    ref = stats.bootstrap((a - b,), np.mean, n_resamples=999, method="percentile",
                          rng=np.random.default_rng(11))
    assert ours.ci_low == pytest.approx(ref.confidence_interval.low, rel=1e-10)
    assert ours.ci_high == pytest.approx(ref.confidence_interval.high, rel=1e-10)


def test_bootstrap_seeded_and_covers_estimate():
    a, b = _per_user_metrics(4, 80)
    first = paired_bootstrap_ci(a, b, n_resamples=500, seed=1)
    second = paired_bootstrap_ci(a, b, n_resamples=500, seed=1)
    assert first == second
    assert first.ci_low < first.mean_difference < first.ci_high
    assert first.mean_difference == pytest.approx(np.mean(a - b))


def test_bootstrap_bad_input():
    with pytest.raises(ValueError, match="method"):
        paired_bootstrap_ci([1, 2], [2, 1], method="studentized")
    with pytest.raises(ValueError, match="n_resamples"):
        paired_bootstrap_ci([1, 2], [2, 1], n_resamples=0)
    with pytest.raises(TypeError, match="seed"):
        paired_bootstrap_ci([1, 2], [2, 1], seed="abc")
    with pytest.raises(ValueError, match="BCa"):
        paired_bootstrap_ci([1, 2, 3], [0, 1, 2], method="bca", seed=0)


# ---------------------------------------------------------------- permutation
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_permutation_matches_scipy(alternative):
    a, b = _per_user_metrics(5, 11)        # 2**11 = 2048 sign patterns
    ours = paired_permutation_test(a, b, alternative=alternative, n_resamples=5000)
    ref = stats.permutation_test((a, b), _mean_diff, permutation_type="samples",
                                 alternative=alternative, n_resamples=5000)
    assert ours.exact and ours.n_resamples == 2 ** 11
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-12)
    assert ours.mean_difference == pytest.approx(ref.statistic)


def test_random_permutation_close_to_scipy():
    a, b = _per_user_metrics(6, 60)
    ours = paired_permutation_test(a, b, n_resamples=20000, seed=3)
    ref = stats.permutation_test((a, b), _mean_diff, permutation_type="samples",
                                 n_resamples=20000, rng=np.random.default_rng(3))
    assert not ours.exact and ours.n_resamples == 20000
    # two Monte Carlo estimates of the same p-value: sd < 0.0036 each
    assert abs(ours.p_value - ref.pvalue) < 0.02


def test_permutation_hand_case_and_seed():
    # differences 2, 3, 1: only the all-plus pattern reaches the mean 2
    result = paired_permutation_test([3, 5, 4], [1, 2, 3], alternative="greater")
    assert result.p_value == 1 / 8
    a, b = _per_user_metrics(7, 40)
    assert (paired_permutation_test(a, b, n_resamples=300, seed=5)
            == paired_permutation_test(a, b, n_resamples=300, seed=5))


def test_permutation_bad_input():
    with pytest.raises(ValueError, match="same length"):
        paired_permutation_test([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="seed"):
        paired_permutation_test([1, 2], [2, 1], seed=-1)
    with pytest.raises(TypeError, match="n_resamples"):
        paired_permutation_test([1, 2], [2, 1], n_resamples=2.5)


def test_inputs_not_mutated():
    a, b = _per_user_metrics(8, 30)
    a0, b0 = a.copy(), b.copy()
    paired_t_test(a, b)
    paired_bootstrap_ci(a, b, n_resamples=100, seed=0)
    paired_permutation_test(a, b, n_resamples=100, seed=0)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)


def _exact_sign_flip_p(d_tenths: list[int], alternative: str) -> float:
    """The exact sign-flip p-value in integer arithmetic (d given in tenths)."""
    n = len(d_tenths)
    observed = sum(d_tenths)
    less = greater = 0
    for code in range(2 ** n):
        total = sum(-x if (code >> i) & 1 else x for i, x in enumerate(d_tenths))
        less += total <= observed
        greater += total >= observed
    p_less, p_greater = less / 2 ** n, greater / 2 ** n
    if alternative == "less":
        return p_less
    if alternative == "greater":
        return p_greater
    return min(1.0, 2 * min(p_less, p_greater))


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_exact_permutation_counts_ties_near_a_zero_mean(alternative):
    """Grid-valued differences (tenths, as per-user metrics often are) whose
    exact mean is zero or tiny: the floating-point mean is off by rounding,
    and a tolerance relative to it counted tied patterns by chance
    (p = 0.839 where the exact p-value is 1 on one 13-user case)."""
    rng = np.random.default_rng(2026)
    checked = 0
    for _ in range(60):
        n = int(rng.integers(6, 14))
        d = rng.integers(-9, 10, size=n)
        d[-1] -= d.sum() if rng.random() < 0.7 else 0  # mostly an exact zero mean
        if abs(d[-1]) > 30:
            continue
        a = rng.integers(0, 11, size=n) / 10 + 1.0
        b = a - d / 10
        result = paired_permutation_test(a, b, alternative=alternative, n_resamples=2 ** 14)
        assert result.exact
        assert result.p_value == pytest.approx(_exact_sign_flip_p(list(np.round((a - b) * 10).astype(int)), alternative), abs=1e-12)
        checked += 1
    assert checked > 40
