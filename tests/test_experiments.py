"""Tests of metrics_lib.experiments: hand cases, bootstrap, statsmodels OLS,
published group-sequential boundaries, scipy's multivariate normal, and seeded
simulations of type I error."""

import math

import numpy as np
import pytest
from scipy import stats

from metrics_lib import (
    cuped_test,
    group_sequential_boundaries,
    ratio_metric,
    ratio_metric_test,
    two_proportion_test,
)
from metrics_lib.online.sequential import _crossing_probabilities


def _users(rng, n, alpha=2.0, beta=38.0, mean_impressions=20):
    """Users with their own click rate (beta) and impression count."""
    impressions = rng.poisson(mean_impressions, n) + 1
    clicks = rng.binomial(impressions, rng.beta(alpha, beta, n))
    return clicks, impressions


# ----------------------------------------------------------------------------
# ratio metrics
# ----------------------------------------------------------------------------
def test_ratio_metric_hand_case():
    # R = 16/100; residuals x - R y = -1.6, -0.2, -0.6, 3.6, -1.2 -> sum of
    # squares 17.36, / (n-1) = 4.34; ybar = 20 -> Var = 4.34 / (5 * 400)
    est = ratio_metric([0, 3, 1, 10, 2], [10, 20, 10, 40, 20])
    assert est.ratio == pytest.approx(0.16)
    assert est.std_error == pytest.approx(math.sqrt(4.34 / 2000))
    z = stats.norm.ppf(0.975)
    assert est.ci_low == pytest.approx(0.16 - z * est.std_error)
    assert est.n_units == 5


def test_ratio_metric_equals_textbook_delta_formula():
    rng = np.random.default_rng(3)
    x, y = _users(rng, 200)
    est = ratio_metric(x, y)
    cov = np.cov(x, y, ddof=1)
    r = x.mean() / y.mean()
    var = (cov[0, 0] - 2 * r * cov[0, 1] + r * r * cov[1, 1]) / (len(x) * y.mean() ** 2)
    assert est.std_error == pytest.approx(math.sqrt(var), rel=1e-10)


def test_ratio_metric_matches_user_level_bootstrap():
    rng = np.random.default_rng(11)
    x, y = _users(rng, 400)
    est = ratio_metric(x, y)
    index = np.random.default_rng(12).integers(0, 400, (4000, 400))
    boot = x[index].sum(axis=1) / y[index].sum(axis=1)
    assert est.std_error == pytest.approx(boot.std(ddof=1), rel=0.06)


def test_ratio_metric_test_matches_bootstrap_for_both_lifts():
    rng = np.random.default_rng(21)
    xa, ya = _users(rng, 300)
    xb, yb = _users(rng, 300, beta=30.0)
    res = ratio_metric_test(xa, ya, xb, yb)
    boot = np.random.default_rng(22)
    ia, ib = boot.integers(0, 300, (4000, 300)), boot.integers(0, 300, (4000, 300))
    ra = xa[ia].sum(1) / ya[ia].sum(1)
    rb = xb[ib].sum(1) / yb[ib].sum(1)
    assert res.std_error == pytest.approx((rb - ra).std(ddof=1), rel=0.06)
    assert res.relative_std_error == pytest.approx((rb / ra - 1).std(ddof=1), rel=0.08)
    assert res.absolute_lift == pytest.approx(xb.sum() / yb.sum() - xa.sum() / ya.sum())
    assert res.z == pytest.approx(res.absolute_lift / res.std_error)
    assert res.p_value == pytest.approx(2 * stats.norm.sf(abs(res.z)))


def test_per_impression_analysis_over_rejects_delta_method_holds_alpha():
    # A/A tests: both groups come from the same population of users whose
    # click rates differ (beta(2, 38), mean 5 %), about 20 impressions each.
    rng = np.random.default_rng(2024)
    reps, n = 400, 200
    naive = delta = 0
    for _ in range(reps):
        xa, ya = _users(rng, n)
        xb, yb = _users(rng, n)
        naive += two_proportion_test(int(xa.sum()), int(ya.sum()),
                                     int(xb.sum()), int(yb.sum())).p_value < 0.05
        delta += ratio_metric_test(xa, ya, xb, yb).p_value < 0.05
    # Monte Carlo sd of a rate of 0.05 over 400 runs: 0.011
    assert 0.02 <= delta / reps <= 0.085
    assert naive / reps > 0.10


def test_ratio_one_sided_and_interval_bounds():
    rng = np.random.default_rng(5)
    xa, ya = _users(rng, 100)
    xb, yb = _users(rng, 100)
    two = ratio_metric_test(xa, ya, xb, yb)
    greater = ratio_metric_test(xa, ya, xb, yb, alternative="greater")
    less = ratio_metric_test(xa, ya, xb, yb, alternative="less")
    assert greater.ci_high == math.inf and less.ci_low == -math.inf
    assert greater.p_value + less.p_value == pytest.approx(1.0)
    assert min(greater.p_value, less.p_value) * 2 == pytest.approx(two.p_value)


def test_ratio_errors_and_no_mutation():
    x = np.array([1.0, 2.0, 0.0])
    y = np.array([10.0, 10.0, 5.0])
    before = (x.copy(), y.copy())
    ratio_metric(x, y)
    assert np.array_equal(x, before[0]) and np.array_equal(y, before[1])
    with pytest.raises(ValueError, match="numerators and denominators must have the same"):
        ratio_metric([1, 2], [3, 4, 5])
    with pytest.raises(ValueError, match="denominators must be non-negative"):
        ratio_metric([1, 2], [3, -4])
    with pytest.raises(ValueError, match="denominators sums to 0"):
        ratio_metric([0, 0], [0, 0])
    with pytest.raises(ValueError, match="numerators contains a non-finite"):
        ratio_metric([1, np.nan], [3, 4])
    with pytest.raises(ValueError, match="numerators is empty"):
        ratio_metric([1], [3])
    with pytest.raises(TypeError, match="numerators must"):
        ratio_metric("12", [3, 4])
    with pytest.raises(ValueError, match="alternative"):
        ratio_metric_test(x, y, x, y, alternative="both")
    with pytest.raises(ValueError, match="denominators_treatment"):
        ratio_metric_test(x, y, x, -y)


# ----------------------------------------------------------------------------
# CUPED
# ----------------------------------------------------------------------------
def _cuped_data(seed, n=600, effect=0.3):
    rng = np.random.default_rng(seed)
    pre_a, pre_b = rng.gamma(2.0, 3.0, n), rng.gamma(2.0, 3.0, n + 37)
    ya = 1.0 + 0.8 * pre_a + rng.normal(0, 2.0, n)
    yb = 1.0 + effect + 0.8 * pre_b + rng.normal(0, 2.0, n + 37)
    return ya, pre_a, yb, pre_b


def test_cuped_equals_ols_with_a_treatment_indicator():
    sm = pytest.importorskip("statsmodels.api")
    ya, xa, yb, xb = _cuped_data(1)
    res = cuped_test(ya, xa, yb, xb)
    y = np.concatenate([ya, yb])
    treat = np.r_[np.zeros(ya.size), np.ones(yb.size)]
    design = sm.add_constant(np.column_stack([treat, np.concatenate([xa, xb])]))
    fit = sm.OLS(y, design).fit()
    assert res.difference == pytest.approx(fit.params[1], rel=1e-10)
    assert res.theta == pytest.approx(fit.params[2], rel=1e-10)
    # Equal variances in both groups: the unpooled standard error is close to
    # the OLS one (same residuals, slightly different degrees of freedom).
    assert res.std_error == pytest.approx(fit.bse[1], rel=0.02)
    # The unadjusted analysis is the OLS without the covariate.
    fit0 = sm.OLS(y, sm.add_constant(treat)).fit()
    assert res.unadjusted_difference == pytest.approx(fit0.params[1], rel=1e-10)
    assert res.unadjusted_std_error == pytest.approx(fit0.bse[1], rel=0.02)


def test_cuped_adjusted_means_and_variance_reduction():
    ya, xa, yb, xb = _cuped_data(2)
    res = cuped_test(ya, xa, yb, xb)
    x_all = np.concatenate([xa, xb]).mean()
    assert res.adjusted_mean_control == pytest.approx(ya.mean() - res.theta * (xa.mean() - x_all))
    assert res.adjusted_mean_treatment == pytest.approx(yb.mean() - res.theta * (xb.mean() - x_all))
    # variance explained by the covariate: 0.8^2 * var(gamma(2, 3)) / total
    explained = 0.64 * 18.0 / (0.64 * 18.0 + 4.0)
    assert res.variance_reduction == pytest.approx(explained, abs=0.04)
    assert res.variance_reduction == pytest.approx(
        1 - res.std_error ** 2 / res.unadjusted_std_error ** 2)


def test_cuped_keeps_alpha_and_unbiased_in_aa_tests():
    rejections, estimates = 0, []
    for seed in range(300):
        ya, xa, yb, xb = _cuped_data(1000 + seed, n=150, effect=0.0)
        res = cuped_test(ya, xa, yb, xb)
        rejections += res.p_value < 0.05
        estimates.append(res.difference)
    assert 0.02 <= rejections / 300 <= 0.09
    assert abs(np.mean(estimates)) < 3 * np.std(estimates) / math.sqrt(300)


def test_cuped_errors_and_no_mutation():
    ya, xa, yb, xb = _cuped_data(3, n=20)
    copies = [a.copy() for a in (ya, xa, yb, xb)]
    cuped_test(ya, xa, yb, xb)
    assert all(np.array_equal(a, b) for a, b in zip((ya, xa, yb, xb), copies))
    with pytest.raises(ValueError, match="metric_control and covariate_control"):
        cuped_test(ya, xa[:-1], yb, xb)
    with pytest.raises(ValueError, match="covariate is constant"):
        cuped_test(ya, np.ones(ya.size), yb, np.ones(yb.size))
    with pytest.raises(ValueError, match="covariate_treatment contains a non-finite"):
        cuped_test(ya, xa, yb, np.r_[xb[:-1], np.nan])


# ----------------------------------------------------------------------------
# group-sequential boundaries
# ----------------------------------------------------------------------------
FIVE = [0.2, 0.4, 0.6, 0.8, 1.0]


@pytest.mark.parametrize("spending, published", [
    # Lan-DeMets spending, five equally spaced looks, two-sided alpha 0.05
    # (alpha/2 in each tail), as tabulated for this design (e.g. the output
    # of the R packages ldbounds / gsDesign); test_boundaries_against_scipy_mvn
    # checks the same boundaries independently.
    ("obrien-fleming", [4.8769, 3.3569, 2.6803, 2.2898, 2.0310]),
    ("pocock", [2.4380, 2.4268, 2.4102, 2.3966, 2.3860]),
])
def test_published_boundaries(spending, published):
    b = group_sequential_boundaries(FIVE, spending=spending)
    np.testing.assert_allclose(b.z_boundaries, published, atol=2e-4)
    assert b.cumulative_alpha[-1] == pytest.approx(0.05)
    np.testing.assert_allclose(b.nominal_alpha, 2 * stats.norm.sf(published), rtol=1e-3)


@pytest.mark.parametrize("spending", ["obrien-fleming", "pocock"])
@pytest.mark.parametrize("fractions", [FIVE, [0.3, 0.55, 1.0], [0.1, 0.15, 0.5, 0.9, 1.0]])
def test_boundaries_against_scipy_mvn(spending, fractions):
    # P(no crossing up to look k) by Genz's multivariate normal CDF with
    # Corr(Z_i, Z_j) = sqrt(t_i / t_j): a method independent of the recursion.
    b = group_sequential_boundaries(fractions, spending=spending)
    t = np.asarray(fractions)
    corr = np.sqrt(np.minimum.outer(t, t) / np.maximum.outer(t, t))
    for k in range(1, t.size + 1):
        c = np.asarray(b.z_boundaries[:k])
        inside = stats.multivariate_normal(mean=np.zeros(k), cov=corr[:k, :k]).cdf(
            c, lower_limit=-c, rng=np.random.default_rng(0))
        assert 1 - inside == pytest.approx(b.cumulative_alpha[k - 1], abs=2e-4)


def test_crossing_engine_reproduces_classic_constants():
    # Pocock (1977) constant 2.413 and O'Brien-Fleming (1979) constant 2.040
    # for five looks at two-sided 0.05 (Jennison & Turnbull 2000, Tables 2.1
    # and 2.3); repeated 1.96 over five looks: 0.142 (Armitage, McPherson &
    # Rowe 1969).
    assert _crossing_probabilities([2.413] * 5, FIVE)[-1] == pytest.approx(0.05, abs=5e-4)
    obf = [2.040 * math.sqrt(5 / k) for k in range(1, 6)]
    assert _crossing_probabilities(obf, FIVE)[-1] == pytest.approx(0.05, abs=5e-4)
    assert _crossing_probabilities([1.96] * 5, FIVE)[-1] == pytest.approx(0.142, abs=1e-3)


def test_boundary_of_a_look_does_not_depend_on_later_looks():
    early = group_sequential_boundaries([0.3, 0.55, 1.0])
    late = group_sequential_boundaries([0.3, 0.55, 0.8, 0.9, 1.0])
    np.testing.assert_allclose(early.z_boundaries[:2], late.z_boundaries[:2], rtol=1e-9)
    assert early.z_boundaries[2] != pytest.approx(late.z_boundaries[2], abs=1e-3)


def test_one_sided_at_half_alpha_equals_two_sided():
    two = group_sequential_boundaries(FIVE, alpha=0.05)
    one = group_sequential_boundaries(FIVE, alpha=0.025, alternative="greater")
    np.testing.assert_allclose(one.z_boundaries, two.z_boundaries, atol=1e-4)
    single = group_sequential_boundaries([1.0], alpha=0.05)
    assert single.z_boundaries[0] == pytest.approx(stats.norm.isf(0.025), abs=1e-8)


def test_peeking_simulation_boundaries_hold_alpha_naive_peeking_does_not():
    # A/A experiments on skewed per-user outcomes (exponential), five looks
    # after 100, 200, ..., 500 users per group; the z statistic of the
    # difference of means with estimated variances at each look.
    rng = np.random.default_rng(7)
    reps, step, looks = 3000, 100, 5
    a = rng.exponential(1.0, (reps, step * looks))
    b = rng.exponential(1.0, (reps, step * looks))
    z = np.empty((reps, looks))
    for k in range(looks):
        n = step * (k + 1)
        diff = b[:, :n].mean(1) - a[:, :n].mean(1)
        se = np.sqrt(a[:, :n].var(1, ddof=1) / n + b[:, :n].var(1, ddof=1) / n)
        z[:, k] = diff / se
    bounds = group_sequential_boundaries(FIVE)
    sequential = np.mean((np.abs(z) >= np.asarray(bounds.z_boundaries)).any(axis=1))
    naive = np.mean((np.abs(z) >= stats.norm.isf(0.025)).any(axis=1))
    final_only = np.mean(np.abs(z[:, -1]) >= stats.norm.isf(0.025))
    mc_sd = math.sqrt(0.05 * 0.95 / reps)  # 0.004
    assert abs(sequential - 0.05) < 3.5 * mc_sd
    assert abs(final_only - 0.05) < 3.5 * mc_sd
    assert naive > 0.11
    rows = [bounds.first_crossing(row) for row in z[:200]]
    assert sum(r is not None for r in rows) == int(
        (np.abs(z[:200]) >= np.asarray(bounds.z_boundaries)).any(axis=1).sum())


def test_sequential_errors():
    with pytest.raises(ValueError, match="strictly increasing"):
        group_sequential_boundaries([0.5, 0.5, 1.0])
    with pytest.raises(ValueError, match="last information fraction must be 1"):
        group_sequential_boundaries([0.5, 0.8])
    with pytest.raises(ValueError, match=r"must lie in \(0, 1\]"):
        group_sequential_boundaries([0.0, 1.0])
    with pytest.raises(ValueError, match="spending"):
        group_sequential_boundaries(FIVE, spending="haybittle")
    with pytest.raises(ValueError, match="alternative"):
        group_sequential_boundaries(FIVE, alternative="less")
    with pytest.raises(ValueError, match="alpha"):
        group_sequential_boundaries(FIVE, alpha=1.5)
    b = group_sequential_boundaries([0.5, 1.0])
    with pytest.raises(ValueError, match="z_statistics has 3 looks"):
        b.first_crossing([1, 2, 3])
