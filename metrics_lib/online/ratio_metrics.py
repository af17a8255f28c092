"""A ratio of per-user sums (clicks / impressions of a whole group) with its
delta-method variance (Deng, Knoblich & Lu 2018), for one group
(``ratio_metric``) and for the difference of two (``ratio_metric_test``).

The user is the randomisation unit: one user's impressions are not
independent of each other, so the variance is that of per-user sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import show, check_choice, check_open_unit
from .significance import paired_values
from ._inference import ALTERNATIVES, _interval, _p_value_and_interval


# ----------------------------------------------------------------------------
# result types
# ----------------------------------------------------------------------------
@dataclass(frozen=True)
class RatioEstimate:
    """A ratio of per-unit sums with its delta-method confidence interval.

    Attributes
    ----------
    ratio : float
        ``sum(numerators) / sum(denominators)``.
    std_error : float
        Delta-method standard error of ``ratio``.
    ci_low, ci_high : float
        Normal confidence interval ``ratio +/- z * std_error``.
    n_units : int
        Number of randomisation units (users).
    confidence : float
        Confidence level of the interval.
    """

    ratio: float
    std_error: float
    ci_low: float
    ci_high: float
    n_units: int
    confidence: float


@dataclass(frozen=True)
class RatioTest:
    """Result of comparing a ratio metric between control and treatment.

    Attributes
    ----------
    ratio_control, ratio_treatment : float
        The ratio of each group.
    absolute_lift : float
        ``ratio_treatment - ratio_control``.
    std_error : float
        Delta-method standard error of ``absolute_lift``.
    ci_low, ci_high : float
        Confidence interval of ``absolute_lift`` (one bound infinite for a
        one-sided ``alternative``).
    relative_lift : float
        ``ratio_treatment / ratio_control - 1``; ``inf`` when the control
        ratio is 0.
    relative_std_error : float
        Delta-method standard error of ``relative_lift`` (``inf`` when the
        control ratio is 0).
    relative_ci_low, relative_ci_high : float
        Confidence interval of ``relative_lift`` (``-inf`` and ``inf`` when
        the control ratio is 0).
    z : float
        ``absolute_lift / std_error``.
    p_value : float
        p-value of ``z`` for the requested ``alternative``.
    confidence : float
        Confidence level of the intervals.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    """

    ratio_control: float
    ratio_treatment: float
    absolute_lift: float
    std_error: float
    ci_low: float
    ci_high: float
    relative_lift: float
    relative_std_error: float
    relative_ci_low: float
    relative_ci_high: float
    z: float
    p_value: float
    confidence: float
    alternative: str


def _ratio_parts(numerators, denominators, num_name, den_name):
    """Validated ratio, its delta-method variance and the unit count."""
    # sums in the caller's order: Series give the same bits as their arrays
    x, y = paired_values(num_name, numerators, den_name, denominators, user_order=False)
    if np.any(y < 0):
        raise ValueError(f"{den_name} must be non-negative (a count per unit); got "
                         f"{show(y[y < 0][0])}")
    total = y.sum()
    if total <= 0:
        raise ValueError(f"{den_name} sums to 0: the ratio is undefined")
    n = x.size
    ratio = x.sum() / total
    # Delta method (Deng, Knoblich & Lu 2018, eq. 2): with sample (co)variances
    # of the per-unit x and y, Var(xbar/ybar) ~ (s_xx - 2 R s_xy + R^2 s_yy)
    # / (n ybar^2). That numerator is the sample variance of x - R y, whose
    # mean is exactly 0, so it is computed as such (no cancellation).
    residual = x - ratio * y
    variance = float(residual @ residual) / (n - 1) / (n * (total / n) ** 2)
    return float(ratio), variance, n


# ----------------------------------------------------------------------------
# ratio metrics
# ----------------------------------------------------------------------------
def ratio_metric(numerators, denominators, *, confidence=0.95):
    """A ratio of per-user sums (such as CTR) with a delta-method interval.

    Parameters
    ----------
    numerators : array-like of float
        One value per randomisation unit (user), e.g. the user's clicks.
        At least two units.
    denominators : array-like of float
        One non-negative value per unit, e.g. the user's impressions; same
        length as ``numerators``, with a positive sum. Two pandas Series
        are matched on their index (the same users, each once); arrays pair
        by position.
    confidence : float, default=0.95
        Confidence level of the interval, strictly between 0 and 1.

    Returns
    -------
    RatioEstimate
        ``ratio = sum(numerators) / sum(denominators)``, its standard error
        and interval.

    See Also
    --------
    ratio_metric_test : compare a ratio between two groups.
    metrics_lib.click_through_rate : the per-impression interval, right only
        when impressions are independent.

    Notes
    -----
    With per-unit values :math:`x_u, y_u` for :math:`n` units,
    :math:`R = \\bar x / \\bar y` and the delta method gives [1]_

    .. math::

        \\widehat{\\operatorname{Var}}(R) = \\frac{1}{n\\,\\bar y^2}
        \\left(s_x^2 - 2R\\,s_{xy} + R^2 s_y^2\\right)
        = \\frac{1}{n\\,\\bar y^2}\\,\\frac{\\sum_u (x_u - R\\,y_u)^2}{n-1},

    with sample (co)variances. The unit of analysis is the unit of
    randomisation, so a user whose impressions are correlated (a heavy
    clicker) counts once, with its whole weight. Treating the impressions as
    independent Bernoulli trials instead understates the variance whenever
    users differ in their click rates. Units with a zero denominator
    (users who saw nothing) may be included; they add to :math:`n`.

    Cost: :math:`O(n)` time and memory.

    References
    ----------
    .. [1] A. Deng, U. Knoblich and J. Lu, "Applying the delta method in
       metric analytics: a practical guide with novel ideas", KDD 2018.

    Examples
    --------
    >>> from metrics_lib import ratio_metric
    >>> clicks = [0, 3, 1, 10, 2]
    >>> impressions = [10, 20, 10, 40, 20]
    >>> est = ratio_metric(clicks, impressions)
    >>> round(est.ratio, 4), round(est.std_error, 4)
    (0.16, 0.0466)
    """
    gamma = check_open_unit("confidence", confidence)
    ratio, variance, n = _ratio_parts(numerators, denominators, "numerators",
                                      "denominators")
    se = math.sqrt(variance)
    low, high = _interval(ratio, se, gamma, "two-sided")
    return RatioEstimate(ratio=ratio, std_error=se, ci_low=low, ci_high=high,
                         n_units=n, confidence=gamma)


def ratio_metric_test(numerators_control, denominators_control, numerators_treatment,
                      denominators_treatment, *, confidence=0.95,
                      alternative="two-sided"):
    """Compare a ratio metric (such as CTR) between two groups of users.

    Parameters
    ----------
    numerators_control, denominators_control : array-like of float
        Per-user numerator (clicks) and non-negative denominator
        (impressions) of the control group; equal lengths, at least two
        users, positive denominator sum. Two pandas Series are matched on
        their index (the same users, each once); arrays pair by position.
    numerators_treatment, denominators_treatment : array-like of float
        The same for the treatment group.
    confidence : float, default=0.95
        Confidence level of the intervals.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis about ``ratio_treatment - ratio_control``.

    Returns
    -------
    RatioTest
        Both ratios, the absolute and relative lift with delta-method
        standard errors and intervals, the z statistic and p-value.

    See Also
    --------
    ratio_metric : one group.
    metrics_lib.two_proportion_test : the per-impression test.

    Notes
    -----
    The groups are independent, so the variance of the difference is the
    sum of the two delta-method variances of :func:`ratio_metric`. The
    relative lift :math:`R_T/R_C - 1` gets a second delta step [1]_:

    .. math::

        \\operatorname{Var}\\left(\\frac{R_T}{R_C}\\right) \\approx
        \\frac{\\operatorname{Var}(R_T)}{R_C^2} +
        \\frac{R_T^2\\,\\operatorname{Var}(R_C)}{R_C^4}.

    The test is the Wald z test of the absolute lift (unpooled variance),
    appropriate for the large samples of online experiments.

    A zero standard error (no unit varies around its group's ratio) raises
    ``ValueError``: z and the p-value are undefined. A control ratio of 0
    gives a relative lift of ``inf`` (``-inf`` for a negative treatment
    ratio), as :func:`~metrics_lib.two_proportion_test` does, with an
    infinite relative standard error and the interval ``(-inf, inf)``; the
    absolute test stays valid. Both ratios 0 raise ``ValueError``.

    Cost: :math:`O(n)` time and memory for :math:`n` users in all.

    References
    ----------
    .. [1] A. Deng, U. Knoblich and J. Lu, "Applying the delta method in
       metric analytics: a practical guide with novel ideas", KDD 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics_lib import ratio_metric_test
    >>> rng = np.random.default_rng(0)
    >>> imp_a, imp_b = rng.poisson(20, 500) + 1, rng.poisson(20, 500) + 1
    >>> clicks_a = rng.binomial(imp_a, rng.beta(2, 38, 500))
    >>> clicks_b = rng.binomial(imp_b, rng.beta(2, 30, 500))
    >>> res = ratio_metric_test(clicks_a, imp_a, clicks_b, imp_b)
    >>> round(res.ratio_control, 4), round(res.ratio_treatment, 4)
    (0.0509, 0.0656)
    >>> round(res.z, 2), round(res.relative_lift, 2)
    (3.76, 0.29)
    """
    gamma = check_open_unit("confidence", confidence)
    check_choice("alternative", alternative, ALTERNATIVES)
    rc, vc, _ = _ratio_parts(numerators_control, denominators_control,
                             "numerators_control", "denominators_control")
    rt, vt, _ = _ratio_parts(numerators_treatment, denominators_treatment,
                             "numerators_treatment", "denominators_treatment")
    diff = rt - rc
    se = math.sqrt(vc + vt)
    z, p, low, high = _p_value_and_interval(
        diff, se, gamma, alternative, "in both groups every unit's numerator is the "
        "ratio times its denominator: no unit varies around its group's ratio")
    if rc != 0:
        rel = rt / rc - 1.0
        rel_se = math.sqrt(vt / rc ** 2 + rt ** 2 * vc / rc ** 4)
        rel_low, rel_high = _interval(rel, rel_se, gamma, alternative)
    elif rt != 0:
        # as two_proportion_test: any change from a control ratio of 0 is an
        # infinite relative lift, on which the delta method bounds nothing
        rel, rel_se, rel_low, rel_high = math.copysign(math.inf, rt), math.inf, \
            -math.inf, math.inf
    else:
        # both ratios 0 (numerators of both signs): a NaN relative lift next
        # to a p-value would be half a result
        raise ValueError("numerators_control and numerators_treatment both sum to 0, "
                         "so both ratios are 0 and the relative lift (treatment / "
                         "control - 1) is 0 / 0; compare the absolute lift with "
                         "ratio_metric on each group")
    return RatioTest(ratio_control=rc, ratio_treatment=rt, absolute_lift=diff,
                     std_error=se, ci_low=low, ci_high=high, relative_lift=rel,
                     relative_std_error=rel_se, relative_ci_low=rel_low,
                     relative_ci_high=rel_high, z=z, p_value=p, confidence=gamma,
                     alternative=alternative)
