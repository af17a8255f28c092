"""The estimate at the stop of a group-sequential test (winner's curse):
sequential_estimate_bias against seeded Monte Carlo of the same designs and
against scipy's truncated normal for one look; Whitehead's bias-adjusted
estimate by its defining equation."""

import math

import numpy as np
import pytest
from scipy import stats

from metrics_lib import (
    group_sequential_boundaries,
    sequential_bias_adjusted_estimate,
    sequential_estimate_bias,
)

FIVE = [0.2, 0.4, 0.6, 0.8, 1.0]


def _simulate(design, effect, reps, seed):
    """Score process with drift ``effect`` at the looks: where each run stops
    (first crossing, else the last look), whether it rejected, its estimate."""
    rng = np.random.default_rng(seed)
    t = np.asarray(design.information_fractions)
    gaps = np.diff(np.r_[0.0, t])
    score = np.cumsum(rng.normal(effect * gaps, np.sqrt(gaps), (reps, t.size)), axis=1)
    z = score / np.sqrt(t)
    stat = np.abs(z) if design.alternative == "two-sided" else z
    crossed = stat >= np.asarray(design.z_boundaries)
    rejected = crossed.any(axis=1)
    look = np.where(rejected, crossed.argmax(axis=1), t.size - 1)
    estimate = score[np.arange(reps), look] / t[look]  # in final standard errors
    return look, rejected, estimate


CASES = [
    (FIVE, "obrien-fleming", "two-sided", 2.8),
    (FIVE, "pocock", "two-sided", 2.8),
    ([0.25, 0.6, 1.0], "obrien-fleming", "greater", 1.5),
    ([0.3, 0.5, 0.9, 1.0], "pocock", "greater", -0.7),
    ([0.35, 0.7, 1.0], "pocock", "two-sided", -2.2),
]


@pytest.mark.parametrize("fractions, spending, alternative, effect", CASES)
def test_conditional_means_agree_with_monte_carlo(fractions, spending, alternative, effect):
    reps = 400_000
    design = group_sequential_boundaries(fractions, spending=spending, alpha=0.05 if
                                         alternative == "two-sided" else 0.025,
                                         alternative=alternative)
    res = sequential_estimate_bias(design, effect)
    look, rejected, estimate = _simulate(design, effect, reps, seed=23)
    k_last = len(fractions) - 1
    checked = 0
    for k in range(len(fractions)):
        for which, prob, mean in [
            ((look == k), res.stop_probability[k], res.mean_if_stopped[k]),
            ((look == k) & rejected, res.rejection_probability[k], res.mean_if_rejected[k]),
        ]:
            share = which.mean()
            assert abs(share - prob) < 4.5 * math.sqrt(prob * (1 - prob) / reps) + 1e-6
            if which.sum() >= 200:  # conditional means need enough stops
                values = estimate[which]
                mc_se = values.std(ddof=1) / math.sqrt(values.size)
                assert abs(values.mean() - mean) < 4.5 * mc_se
                checked += 1
    assert checked >= k_last  # most looks had enough stops to be compared
    assert abs(estimate.mean() - res.mean_estimate) < 4.5 * estimate.std() / math.sqrt(reps)
    assert abs(rejected.mean() - res.power) < 4.5 * math.sqrt(res.power * (1 - res.power) / reps)
    # the winner's curse: given a rejection at an early look the estimate
    # overstates the effect (in its own direction)
    if abs(effect) >= 1.5:
        assert abs(res.mean_if_rejected[1]) > 1.3 * abs(effect)


@pytest.mark.parametrize("effect", [0.0, 1.0, 2.8, -1.7])
def test_one_look_is_the_fixed_sample_test(effect):
    design = group_sequential_boundaries([1.0])
    res = sequential_estimate_bias(design, effect)
    # one look: the test always ends there and the estimate is unbiased
    assert res.stop_probability == pytest.approx((1.0,), abs=1e-12)
    assert res.mean_estimate == pytest.approx(effect, abs=1e-9)
    assert res.bias == pytest.approx(0.0, abs=1e-9)
    # given a rejection: a two-tailed truncated normal, from scipy
    c = design.z_boundaries[0]
    up = stats.truncnorm(c - effect, np.inf, loc=effect)
    low = stats.truncnorm(-np.inf, -c - effect, loc=effect)
    p_up, p_low = stats.norm.sf(c - effect), stats.norm.cdf(-c - effect)
    assert res.power == pytest.approx(p_up + p_low, rel=1e-12)
    expected = (p_up * up.mean() + p_low * low.mean()) / (p_up + p_low)
    assert res.mean_if_rejected[0] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_no_effect_two_sided_is_symmetric_and_spends_alpha():
    design = group_sequential_boundaries(FIVE)
    res = sequential_estimate_bias(design, 0.0)
    np.testing.assert_allclose(np.cumsum(res.rejection_probability),
                               design.cumulative_alpha, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(res.mean_if_rejected, 0.0, atol=1e-9)
    assert res.bias == pytest.approx(0.0, abs=1e-9)


def test_whitehead_estimate_solves_its_equation():
    design = group_sequential_boundaries(FIVE, spending="pocock")
    estimate, se, look = 0.9, 0.25, 1
    final_se = se * math.sqrt(FIVE[look])
    adjusted = sequential_bias_adjusted_estimate(design, look, estimate, se)
    # E_adjusted[estimate at the stop] equals the observed estimate
    mean = sequential_estimate_bias(design, adjusted / final_se).mean_estimate
    assert mean * final_se == pytest.approx(estimate, abs=1e-6)
    # the bias is positive for a positive effect: the adjustment shrinks
    assert 0 < adjusted < estimate
    # mirror image for a negative estimate; one look: nothing to adjust
    assert sequential_bias_adjusted_estimate(design, look, -estimate, se) == pytest.approx(
        -adjusted, abs=1e-6)
    single = group_sequential_boundaries([1.0])
    assert sequential_bias_adjusted_estimate(single, 0, 0.3, 0.1) == pytest.approx(0.3, abs=1e-7)


def test_errors():
    design = group_sequential_boundaries(FIVE)
    with pytest.raises(TypeError, match="boundaries must be the GroupSequentialBoundaries"):
        sequential_estimate_bias(list(design.z_boundaries), 1.0)
    with pytest.raises(ValueError, match="effect must lie in"):
        sequential_estimate_bias(design, 25.0)
    with pytest.raises(ValueError, match="effect must be finite"):
        sequential_estimate_bias(design, math.nan)
    with pytest.raises(TypeError, match="effect must be a real number"):
        sequential_estimate_bias(design, "2")
    with pytest.raises(ValueError, match="look must be below the number of looks, 5"):
        sequential_bias_adjusted_estimate(design, 5, 1.0, 0.5)
    with pytest.raises(TypeError, match="look must be a non-negative integer"):
        sequential_bias_adjusted_estimate(design, 1.0, 1.0, 0.5)
    with pytest.raises(ValueError, match="std_error must lie in"):
        sequential_bias_adjusted_estimate(design, 1, 1.0, 0.0)


def test_whitehead_estimate_after_a_first_day_stop_of_fourteen_looks():
    # 14 daily O'Brien-Fleming looks: a day-1 stop means at least 31.1 final
    # standard errors, yet at such effects the bias is far from negligible
    design = group_sequential_boundaries([(day + 1) / 14 for day in range(14)])
    final_se = math.sqrt(1 / 14)  # standard error 1 at the first look
    z = 8.5
    assert z > design.z_boundaries[0]
    adjusted = sequential_bias_adjusted_estimate(design, 0, z, 1.0) / final_se
    assert z / final_se - adjusted > 0.5
    # defining equation by simulation: E_adjusted[estimate at the stop] = observed
    _, _, estimate = _simulate(design, adjusted, 400_000, seed=23)
    assert estimate.mean() == pytest.approx(z / final_se, abs=0.03)
    # far beyond any early boundary the stop is on day 1 and nothing is adjusted
    assert sequential_bias_adjusted_estimate(design, 0, 100.0, 0.5) == 100.0
