"""Tests of metrics_lib.online against statsmodels, scipy, hand formulas and properties."""

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import (
    power_proportions_2indep,
    proportion_confint,
    proportion_effectsize,
    proportions_ztest,
    samplesize_proportions_2indep_onetail,
)

from metrics_lib import (
    click_through_rate,
    power_two_proportions,
    sample_ratio_mismatch,
    sample_size_per_group,
    two_proportion_test,
)

counts = st.integers(min_value=1, max_value=10**6).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)
levels = st.floats(min_value=0.5, max_value=0.999)


# ----------------------------------------------------------------------------
# click_through_rate
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("clicks, impressions", [(0, 1), (0, 20), (3, 40), (30, 1000),
                                                 (999, 1000), (50, 50), (12345, 678901)])
@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
@pytest.mark.parametrize("method, sm_method", [("wilson", "wilson"), ("wald", "normal")])
def test_ctr_interval_matches_statsmodels(clicks, impressions, confidence, method, sm_method):
    res = click_through_rate(clicks, impressions, confidence, method=method)
    low, high = proportion_confint(clicks, impressions, alpha=1 - confidence, method=sm_method)
    assert res.rate == pytest.approx(clicks / impressions)
    assert res.ci_low == pytest.approx(low, abs=1e-12)
    assert res.ci_high == pytest.approx(high, abs=1e-12)


def test_ctr_wilson_hand_computed():
    # 3 clicks in 40 impressions, z = 1.959964: centre and half-width by hand
    z, p, n = 1.959963984540054, 3 / 40, 40
    centre = (p + z**2 / (2 * n)) / (1 + z**2 / n)
    half = z / (1 + z**2 / n) * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2))
    res = click_through_rate(3, 40)
    assert res.ci_low == pytest.approx(centre - half)
    assert res.ci_high == pytest.approx(centre + half)


def test_ctr_wald_is_clipped_wilson_is_not_degenerate():
    wald = click_through_rate(0, 30, method="wald")
    wilson = click_through_rate(0, 30)
    assert wald.ci_low == wald.ci_high == 0.0
    assert wilson.ci_low == 0.0 < wilson.ci_high


@settings(max_examples=200, deadline=None)
@given(counts, levels)
def test_ctr_interval_contains_rate_and_stays_in_unit_interval(ci, confidence):
    clicks, impressions = ci
    res = click_through_rate(clicks, impressions, confidence)
    assert 0.0 <= res.ci_low <= res.rate <= res.ci_high <= 1.0


@settings(max_examples=100, deadline=None)
@given(counts, st.floats(min_value=0.5, max_value=0.9))
def test_ctr_interval_widens_with_confidence(ci, confidence):
    clicks, impressions = ci
    narrow = click_through_rate(clicks, impressions, confidence)
    wide = click_through_rate(clicks, impressions, confidence + 0.09)
    assert wide.ci_low <= narrow.ci_low + 1e-15
    assert wide.ci_high >= narrow.ci_high - 1e-15


@settings(max_examples=100, deadline=None)
@given(counts)
def test_ctr_interval_symmetric_under_swapping_clicks(ci):
    clicks, impressions = ci
    a = click_through_rate(clicks, impressions)
    b = click_through_rate(impressions - clicks, impressions)
    assert a.ci_low == pytest.approx(1 - b.ci_high, abs=1e-12)
    assert a.ci_high == pytest.approx(1 - b.ci_low, abs=1e-12)


def test_ctr_result_is_frozen():
    res = click_through_rate(1, 2)
    with pytest.raises(AttributeError):
        res.rate = 0.9


# ----------------------------------------------------------------------------
# two_proportion_test
# ----------------------------------------------------------------------------
CASES = [(200, 10_000, 250, 10_000), (1040, 20_000, 1150, 20_000), (5, 80, 1, 120),
         (0, 100, 3, 90), (7, 7, 3, 9), (480, 9_950, 525, 10_050)]


@pytest.mark.parametrize("ca, na, cb, nb", CASES)
@pytest.mark.parametrize("alternative, sm_alternative",
                         [("two-sided", "two-sided"), ("greater", "larger"), ("less", "smaller")])
def test_z_and_p_match_statsmodels(ca, na, cb, nb, alternative, sm_alternative):
    res = two_proportion_test(ca, na, cb, nb, alternative=alternative)
    z, p = proportions_ztest([cb, ca], [nb, na], alternative=sm_alternative)
    assert res.z == pytest.approx(float(z), rel=1e-12)
    assert res.p_value == pytest.approx(float(p), rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("ca, na, cb, nb", CASES)
def test_lifts_and_unpooled_ci_by_hand(ca, na, cb, nb):
    res = two_proportion_test(ca, na, cb, nb, confidence=0.9)
    pa, pb = ca / na, cb / nb
    se = math.sqrt(pa * (1 - pa) / na + pb * (1 - pb) / nb)
    q = stats.norm.ppf(0.95)
    assert res.rate_control == pytest.approx(pa)
    assert res.rate_treatment == pytest.approx(pb)
    assert res.absolute_lift == pytest.approx(pb - pa)
    if pa > 0:
        assert res.relative_lift == pytest.approx(pb / pa - 1)
    else:
        assert res.relative_lift == math.inf  # a lift over nothing, never NaN
    assert res.ci_low == pytest.approx(pb - pa - q * se)
    assert res.ci_high == pytest.approx(pb - pa + q * se)


def test_ci_matches_statsmodels_wald_difference():
    from statsmodels.stats.proportion import confint_proportions_2indep

    res = two_proportion_test(1040, 20_000, 1150, 20_000)
    low, high = confint_proportions_2indep(1150, 20_000, 1040, 20_000, method="wald",
                                           compare="diff", alpha=0.05)
    assert (res.ci_low, res.ci_high) == pytest.approx((low, high), rel=1e-10)


def test_one_sided_interval_is_half_open():
    greater = two_proportion_test(200, 10_000, 250, 10_000, alternative="greater")
    less = two_proportion_test(200, 10_000, 250, 10_000, alternative="less")
    two = two_proportion_test(200, 10_000, 250, 10_000, confidence=0.9)
    assert greater.ci_high == math.inf and less.ci_low == -math.inf
    # a one-sided 95 % bound is the matching end of the two-sided 90 % interval
    assert greater.ci_low == pytest.approx(two.ci_low)
    assert less.ci_high == pytest.approx(two.ci_high)
    assert greater.p_value + less.p_value == pytest.approx(1.0)


@settings(max_examples=150, deadline=None)
@given(counts, counts)
def test_swapping_groups_flips_the_sign(a, b):
    (ca, na), (cb, nb) = a, b
    if ca + cb in (0, na + nb):
        return  # pooled variance 0: refused, tested separately
    ab = two_proportion_test(ca, na, cb, nb)
    ba = two_proportion_test(cb, nb, ca, na)
    assert ab.z == pytest.approx(-ba.z, abs=1e-9)
    assert ab.p_value == pytest.approx(ba.p_value, abs=1e-12)
    assert ab.ci_low == pytest.approx(-ba.ci_high, abs=1e-12)
    assert 0.0 <= ab.p_value <= 1.0
    assert ab.ci_low <= ab.absolute_lift <= ab.ci_high


def test_identical_groups_give_z_zero_p_one():
    res = two_proportion_test(40, 1000, 40, 1000)
    assert res.z == 0.0 and res.p_value == 1.0 and res.absolute_lift == 0.0


@pytest.mark.parametrize("ca, cb", [(0, 0), (100, 100)])
def test_zero_pooled_variance_is_refused(ca, cb):
    with pytest.raises(ValueError, match="pooled variance is 0"):
        two_proportion_test(ca, 100, cb, 100)


def test_aa_false_positive_rate_is_alpha():
    """Under the null the test rejects about 5 % of the time (seeded simulation)."""
    rng = np.random.default_rng(7)
    n, p, reps = 4000, 0.1, 2000
    ca, cb = rng.binomial(n, p, reps), rng.binomial(n, p, reps)
    rejected = np.mean([two_proportion_test(int(a), n, int(b), n).p_value < 0.05
                        for a, b in zip(ca, cb)])
    # binomial sd of the rate: sqrt(.05 * .95 / 2000) = 0.0049
    assert abs(rejected - 0.05) < 0.015


# ----------------------------------------------------------------------------
# power and sample size
# ----------------------------------------------------------------------------
def hand_sample_size(p1, delta, alpha, power, two_sided=True):
    """Textbook formula written out independently of metrics_lib."""
    p2 = p1 + delta
    pbar = (p1 + p2) / 2
    za = stats.norm.isf(alpha / 2 if two_sided else alpha)
    zb = stats.norm.isf(1 - power)
    top = za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    return top**2 / delta**2


DESIGNS = [(0.05, 0.005, 0.05, 0.8), (0.05, 0.01, 0.05, 0.8), (0.02, 0.002, 0.05, 0.9),
           (0.3, -0.03, 0.01, 0.8), (0.5, 0.1, 0.1, 0.95), (0.001, 0.0005, 0.05, 0.8)]


@pytest.mark.parametrize("p1, delta, alpha, power", DESIGNS)
def test_sample_size_matches_hand_formula_and_statsmodels(p1, delta, alpha, power):
    n = sample_size_per_group(p1, delta, alpha=alpha, power=power)
    exact = hand_sample_size(p1, delta, alpha, power)
    assert n == math.ceil(exact)
    # statsmodels' normal-approximation sample size for the same pooled z test
    sm = samplesize_proportions_2indep_onetail(delta, p1, power, alpha=alpha)
    assert n == math.ceil(sm)


@pytest.mark.parametrize("p1, delta, alpha, power", DESIGNS)
def test_sample_size_is_the_smallest_with_enough_power(p1, delta, alpha, power):
    n = sample_size_per_group(p1, delta, alpha=alpha, power=power)
    assert power_two_proportions(p1, delta, n, alpha=alpha) >= power
    assert power_two_proportions(p1, delta, n - 1, alpha=alpha) < power + 1e-6


@pytest.mark.parametrize("p1, delta, alpha, power", DESIGNS)
def test_sample_size_close_to_cohens_h(p1, delta, alpha, power):
    """NormalIndPower uses Cohen's h = 2 asin(sqrt(p2)) - 2 asin(sqrt(p1)), a
    variance-stabilised effect size: a different approximation of the same test.
    The two sample sizes agree within a few percent, not exactly."""
    h = proportion_effectsize(p1 + delta, p1)
    n_h = NormalIndPower().solve_power(effect_size=abs(h), alpha=alpha, power=power)
    n = sample_size_per_group(p1, delta, alpha=alpha, power=power)
    assert n == pytest.approx(n_h, rel=0.06)


@pytest.mark.parametrize("p1, delta, n", [(0.02, 0.005, 10_000), (0.05, 0.01, 3_000),
                                          (0.4, -0.05, 500), (0.1, 0.02, 50)])
@pytest.mark.parametrize("alternative, sm_alternative",
                         [("two-sided", "two-sided"), ("greater", "larger"), ("less", "smaller")])
def test_power_matches_statsmodels(p1, delta, n, alternative, sm_alternative):
    if (alternative == "greater" and delta < 0) or (alternative == "less" and delta > 0):
        with pytest.raises(ValueError, match="alternative"):
            power_two_proportions(p1, delta, n, alternative=alternative)
        return
    ours = power_two_proportions(p1, delta, n, alternative=alternative)
    sm = power_proportions_2indep(delta, p1, n, alternative=sm_alternative).power
    assert ours == pytest.approx(float(sm), rel=1e-10)


def test_sample_size_achieves_power_by_simulation():
    """Run the actual test many times at the computed n: about 80 % reject."""
    p1, delta = 0.1, 0.02
    n = sample_size_per_group(p1, delta)
    rng = np.random.default_rng(2024)
    reps = 2000
    ca = rng.binomial(n, p1, reps)
    cb = rng.binomial(n, p1 + delta, reps)
    rejected = np.mean([two_proportion_test(int(a), n, int(b), n).p_value < 0.05
                        for a, b in zip(ca, cb)])
    # Monte Carlo sd: sqrt(.8 * .2 / 2000) = 0.009
    assert abs(rejected - 0.8) < 0.03


def test_one_sided_needs_fewer_units():
    assert sample_size_per_group(0.05, 0.005, alternative="greater") < sample_size_per_group(0.05, 0.005)
    assert sample_size_per_group(0.05, -0.005, alternative="less") == math.ceil(
        hand_sample_size(0.05, -0.005, 0.05, 0.8, two_sided=False))


def test_halving_the_mde_roughly_quadruples_n():
    ratio = sample_size_per_group(0.05, 0.0025) / sample_size_per_group(0.05, 0.005)
    assert 3.8 < ratio < 4.2


@settings(max_examples=100, deadline=None)
@given(st.floats(0.01, 0.9), st.floats(0.01, 0.5), st.floats(0.5, 0.95))
def test_power_increases_with_n(p1, relative, power):
    delta = p1 * relative
    if p1 + delta >= 1:
        return
    n = sample_size_per_group(p1, delta, power=power)
    assert power_two_proportions(p1, delta, 2 * n) > power_two_proportions(p1, delta, n)


# ----------------------------------------------------------------------------
# sample ratio mismatch
# ----------------------------------------------------------------------------
@pytest.mark.parametrize("observed, ratios", [
    ([50_600, 49_400], None),
    ([50_600, 49_400], [1, 1]),
    ([10_321, 9_679], [0.5, 0.5]),
    ([900, 100], [9, 1]),
    ([3_300, 3_350, 3_100], [1, 1, 1]),
    ([20, 0, 5], [2, 1, 1]),
])
def test_srm_matches_scipy_chisquare(observed, ratios):
    res = sample_ratio_mismatch(observed, ratios)
    r = np.ones(len(observed)) if ratios is None else np.asarray(ratios, float)
    f_exp = sum(observed) * r / r.sum()
    ref = stats.chisquare(observed, f_exp=f_exp)
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.p_value == pytest.approx(ref.pvalue, rel=1e-9)
    assert res.dof == len(observed) - 1
    assert res.expected == pytest.approx(tuple(f_exp))


def test_srm_hand_computed():
    # (600^2 / 50000) * 2 = 14.4
    res = sample_ratio_mismatch([50_600, 49_400])
    assert res.statistic == pytest.approx(14.4)


def test_srm_ratio_scale_does_not_matter():
    a = sample_ratio_mismatch([900, 100], [9, 1])
    b = sample_ratio_mismatch([900, 100], [0.9, 0.1])
    assert a.statistic == pytest.approx(b.statistic) and a.p_value == pytest.approx(b.p_value)


def test_srm_perfect_split():
    res = sample_ratio_mismatch(np.array([500, 500]))
    assert res.statistic == 0.0 and res.p_value == 1.0


def test_srm_does_not_mutate_inputs():
    observed, ratios = [10, 20], [1, 2]
    sample_ratio_mismatch(observed, ratios)
    assert observed == [10, 20] and ratios == [1, 2]


# ----------------------------------------------------------------------------
# bad inputs: one test per case
# ----------------------------------------------------------------------------
def test_clicks_above_impressions():
    with pytest.raises(ValueError, match=r"clicks \(11\) cannot exceed impressions \(10\)"):
        click_through_rate(11, 10)


def test_clicks_above_impressions_in_treatment():
    with pytest.raises(ValueError, match="clicks_treatment"):
        two_proportion_test(1, 10, 11, 10)


def test_negative_clicks():
    with pytest.raises(ValueError, match="clicks must be a non-negative count"):
        click_through_rate(-1, 10)


def test_negative_impressions():
    with pytest.raises(ValueError, match="impressions_control must be a non-negative"):
        two_proportion_test(1, -10, 1, 10)


def test_float_count():
    with pytest.raises(TypeError, match="clicks must be a non-negative integer count; got float 3.5"):
        click_through_rate(3.5, 10)


def test_whole_float_count_is_refused_too():
    with pytest.raises(TypeError, match="impressions"):
        click_through_rate(3, 10.0)


def test_bool_count():
    with pytest.raises(TypeError, match="clicks must be"):
        click_through_rate(True, 10)


def test_string_count():
    with pytest.raises(TypeError, match="impressions_treatment"):
        two_proportion_test(1, 10, 1, "10")


def test_numpy_integer_counts_are_accepted():
    res = click_through_rate(np.int64(3), np.int32(10))
    assert res.rate == pytest.approx(0.3) and isinstance(res.clicks, int)


def test_zero_impressions():
    with pytest.raises(ValueError, match="impressions must be positive"):
        click_through_rate(0, 0)


@pytest.mark.parametrize("confidence", [0, 1, 1.5, -0.1, float("nan")])
def test_confidence_outside_unit_interval(confidence):
    with pytest.raises(ValueError, match="confidence must be strictly between 0 and 1"):
        click_through_rate(1, 10, confidence)


def test_confidence_given_as_percent_string():
    with pytest.raises(TypeError, match="confidence"):
        two_proportion_test(1, 10, 2, 10, confidence="95%")


def test_unknown_interval_method():
    with pytest.raises(ValueError, match="method must be one of"):
        click_through_rate(1, 10, method="exact")


def test_unknown_alternative():
    with pytest.raises(ValueError, match="alternative must be one of"):
        two_proportion_test(1, 10, 2, 10, alternative="larger")


@pytest.mark.parametrize("rate", [0, 1, 1.2, -0.3])
def test_baseline_rate_outside_unit_interval(rate):
    with pytest.raises(ValueError, match="baseline_rate must be strictly between 0 and 1"):
        sample_size_per_group(rate, 0.01)


def test_baseline_rate_given_in_percent():
    with pytest.raises(ValueError, match="baseline_rate"):
        sample_size_per_group(5, 0.5)


@pytest.mark.parametrize("alpha", [0, 1, 5])
def test_alpha_outside_unit_interval(alpha):
    with pytest.raises(ValueError, match="alpha must be strictly between 0 and 1"):
        sample_size_per_group(0.05, 0.01, alpha=alpha)


@pytest.mark.parametrize("power", [0, 1, 80])
def test_power_outside_unit_interval(power):
    with pytest.raises(ValueError, match="power must be strictly between 0 and 1"):
        sample_size_per_group(0.05, 0.01, power=power)


@pytest.mark.parametrize("mde", [0.96, -0.05, -0.2])
def test_mde_pushes_rate_outside_unit_interval(mde):
    with pytest.raises(ValueError, match=r"baseline_rate \+ mde_absolute .* outside \(0, 1\)"):
        sample_size_per_group(0.05, mde)


def test_zero_mde():
    with pytest.raises(ValueError, match="mde_absolute must be a finite non-zero"):
        sample_size_per_group(0.05, 0)


def test_mde_not_a_number():
    with pytest.raises(TypeError, match="mde_absolute must be a number"):
        sample_size_per_group(0.05, "10%")


def test_mde_direction_disagrees_with_alternative():
    with pytest.raises(ValueError, match="sign of the effect"):
        sample_size_per_group(0.05, -0.01, alternative="greater")


def test_power_needs_positive_group_size():
    with pytest.raises(ValueError, match="n_per_group must be positive"):
        power_two_proportions(0.05, 0.01, 0)


def test_power_group_size_not_integer():
    with pytest.raises(TypeError, match="n_per_group"):
        power_two_proportions(0.05, 0.01, 100.5)


def test_srm_ratios_wrong_length():
    with pytest.raises(ValueError, match="one entry per group: observed has 2 groups, expected_ratios 3"):
        sample_ratio_mismatch([10, 20], [1, 1, 1])


@pytest.mark.parametrize("ratios", [[1, 0], [1, -1], [1, float("inf")], [1, float("nan")]])
def test_srm_ratios_not_positive(ratios):
    with pytest.raises(ValueError, match=r"expected_ratios\[1\] must be positive and finite"):
        sample_ratio_mismatch([10, 20], ratios)


def test_srm_ratio_not_a_number():
    with pytest.raises(TypeError, match=r"expected_ratios\[0\]"):
        sample_ratio_mismatch([10, 20], ["half", 0.5])


def test_srm_negative_count():
    with pytest.raises(ValueError, match=r"observed\[1\] must be a non-negative count"):
        sample_ratio_mismatch([10, -20])


def test_srm_float_count():
    with pytest.raises(TypeError, match=r"observed\[0\]"):
        sample_ratio_mismatch([10.5, 20])


def test_srm_single_group():
    with pytest.raises(ValueError, match="at least two groups"):
        sample_ratio_mismatch([10])


def test_srm_all_zero():
    with pytest.raises(ValueError, match="no units at all"):
        sample_ratio_mismatch([0, 0])


def test_srm_mapping_refused():
    with pytest.raises(TypeError, match="observed must be a sequence"):
        sample_ratio_mismatch({"A": 10, "B": 20})


def test_srm_two_dimensional_array():
    with pytest.raises(ValueError, match="one-dimensional"):
        sample_ratio_mismatch(np.array([[10, 20], [30, 40]]))


def _exact_coverage(method, n, rates, confidence=0.95):
    """P(interval holds the rate) for every rate, from statsmodels' intervals."""
    clicks = np.arange(n + 1)
    low, high = proportion_confint(clicks, n, alpha=1 - confidence, method=method)
    if method == "jeffreys":  # the edge rule of Brown, Cai and DasGupta, as documented
        low[0], high[n] = 0.0, 1.0
    inside = (low[None, :] <= rates[:, None]) & (rates[:, None] <= high[None, :])
    return (stats.binom.pmf(clicks[None, :], n, rates[:, None]) * inside).sum(axis=1)


def test_ctr_docstring_coverage_figures_are_exact():
    # the Notes of click_through_rate quote the exact coverage of the intervals at
    # n = 100 (Brown, Cai and DasGupta 2001 describe the shape); recompute every figure
    doc = " ".join(click_through_rate.__doc__.split())
    n = 100
    # fine near 0, where the dips are, coarser up to 0.5 (coverage is symmetric in the rate)
    rates = np.concatenate([np.linspace(1e-6, 0.05, 100_001)[:-1], np.linspace(0.05, 0.5, 9_001)])
    wilson = _exact_coverage("wilson", n, rates)
    found = re.search(r"Wilson's coverage dips to (?:about )?([\d.]+) at (?:a )?rates? near "
                      r"([\d.]+)/n and stays (?:above ([\d.]+)|close to [\d.]+)", doc)
    assert found, "the Wilson sentence of the Notes is missing"
    dip, where, above = found.groups()
    assert round(wilson.min(), 3) == float(dip)
    assert abs(rates[wilson.argmin()] * n - float(where)) < 0.005
    middle = (rates >= 0.05)   # symmetric in the rate: [0.05, 0.5] covers [0.05, 0.95]
    assert above is not None and wilson[middle].min() > float(above)
    assert _exact_coverage("beta", n, rates).min() >= 0.95   # Clopper-Pearson
    jeffreys = _exact_coverage("jeffreys", n, rates)
    found = re.search(r"Jeffreys' lowest is ([\d.]+), at a rate near ([\d.]+)/n", doc)
    assert found, "the Jeffreys sentence of the Notes is missing"
    assert round(jeffreys.min(), 3) == float(found.group(1))
    assert abs(rates[jeffreys.argmin()] * n - float(found.group(2))) < 0.005
    wald = _exact_coverage("normal", n, rates)
    assert wald[rates < 0.1 / n].max() < 0.1   # falls towards 0 near a rate of 0
