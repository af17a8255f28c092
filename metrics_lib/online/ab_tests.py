"""Online experiments: click-through rate, A/B tests, sample size and SRM.

Everything here is a normal (or chi-square) approximation for counts of
independent binary events, the textbook tools of online controlled
experiments (Kohavi et al. 2009, 2020). Each function validates its counts,
then does the arithmetic; results come back as small frozen dataclasses with
named fields.

``scipy.stats`` is imported inside the functions, not at module level: it
costs several times more to import than the rest of ``metrics_lib`` together,
and the ranking metrics do not need it. scipy is still a declared dependency
of the package, because these public functions need it when called.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from .._validation import check_choice, check_count, check_open_unit, show

__all__ = [
    "RateEstimate",
    "TwoProportionTest",
    "SampleRatioMismatch",
    "click_through_rate",
    "two_proportion_test",
    "power_two_proportions",
    "sample_size_per_group",
    "sample_ratio_mismatch",
]

ALTERNATIVES = ("two-sided", "greater", "less")
INTERVAL_METHODS = ("wilson", "wald", "jeffreys", "clopper_pearson")


def _norm():
    from scipy.stats import norm  # lazy: see the module docstring

    return norm


# ----------------------------------------------------------------------------
# result types
# ----------------------------------------------------------------------------
@dataclass(frozen=True)
class RateEstimate:
    """A click-through rate with its confidence interval.

    Attributes
    ----------
    rate : float
        ``clicks / impressions``.
    ci_low, ci_high : float
        Bounds of the confidence interval, inside [0, 1].
    clicks, impressions : int
        The counts the estimate is based on.
    confidence : float
        Confidence level of the interval, e.g. 0.95.
    method : str
        ``"wilson"`` or ``"wald"``.
    """

    rate: float
    ci_low: float
    ci_high: float
    clicks: int
    impressions: int
    confidence: float
    method: str


@dataclass(frozen=True)
class TwoProportionTest:
    """Result of comparing the click rates of a control and a treatment group.

    Attributes
    ----------
    rate_control, rate_treatment : float
        Observed rates ``clicks / impressions`` of each group.
    absolute_lift : float
        ``rate_treatment - rate_control`` (in rate units, not percent).
    relative_lift : float
        ``absolute_lift / rate_control``; ``inf`` when the control rate is 0
        (the treatment's is then positive).
    ci_low, ci_high : float
        Confidence interval of ``absolute_lift`` (unpooled Wald). For a
        one-sided ``alternative`` one bound is infinite.
    z : float
        Pooled z statistic.
    p_value : float
        p-value of ``z`` for the requested ``alternative``.
    confidence : float
        Confidence level of the interval.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    """

    rate_control: float
    rate_treatment: float
    absolute_lift: float
    relative_lift: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float
    confidence: float
    alternative: str


@dataclass(frozen=True)
class SampleRatioMismatch:
    """Result of a chi-square goodness-of-fit test of the traffic split.

    Attributes
    ----------
    statistic : float
        Pearson's chi-square statistic.
    p_value : float
        Probability of a statistic at least this large if the split were
        as designed.
    dof : int
        Degrees of freedom: number of groups minus one.
    expected : tuple of float
        Counts the design expects for the observed total.
    """

    statistic: float
    p_value: float
    dof: int
    expected: tuple


# ----------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------
# Counts are turned into floats for the normal approximations; beyond this
# they would overflow (an OverflowError deep in math) rather than compute.
_LARGEST_COUNT = 2**1000


def _check_finite_count(name, value) -> int:
    count = check_count(name, value)
    if count > _LARGEST_COUNT:
        raise ValueError(f"{name} is a {len(str(count))}-digit count, too large to compute "
                         "with (at most 2**1000, about 1e301)")
    return count


def _check_clicks_impressions(clicks, impressions, clicks_name="clicks",
                              impressions_name="impressions") -> tuple[int, int]:
    c = _check_finite_count(clicks_name, clicks)
    n = _check_finite_count(impressions_name, impressions)
    if n == 0:
        raise ValueError(
            f"{impressions_name} must be positive: a rate of 0 impressions is undefined"
        )
    if c > n:
        raise ValueError(
            f"{clicks_name} ({c}) cannot exceed {impressions_name} ({n}); count "
            "each impression as clicked at most once (or use unique clicks)"
        )
    return c, n


def _check_design(baseline_rate, mde_absolute, alpha, alternative):
    p1 = check_open_unit("baseline_rate", baseline_rate)
    if isinstance(mde_absolute, (bool, np.bool_)) or not isinstance(mde_absolute, numbers.Real):
        raise TypeError(
            "mde_absolute must be a number (an absolute change of the rate, e.g. "
            f"0.01 for one percentage point); got {type(mde_absolute).__name__} "
            f"{show(mde_absolute)}"
        )
    delta = float(mde_absolute)
    if not math.isfinite(delta) or delta == 0.0:
        raise ValueError(f"mde_absolute must be a finite non-zero number; got {show(mde_absolute)}")
    p2 = p1 + delta
    if not 0.0 < p2 < 1.0:
        raise ValueError(
            f"baseline_rate + mde_absolute = {show(p2)} is outside (0, 1); "
            "mde_absolute is an absolute change of the rate, not a relative one"
        )
    a = check_open_unit("alpha", alpha)
    check_choice("alternative", alternative, ALTERNATIVES)
    if (alternative == "greater" and delta < 0) or (alternative == "less" and delta > 0):
        raise ValueError(
            f"alternative={show(alternative)} cannot detect mde_absolute={show(delta)}: "
            "the sign of the effect and the direction of the test disagree"
        )
    return p1, p2, delta, a


# ----------------------------------------------------------------------------
# click-through rate
# ----------------------------------------------------------------------------
def click_through_rate(clicks, impressions, confidence=0.95, *, method="wilson"):
    """Click-through rate with a confidence interval.

    Parameters
    ----------
    clicks : int
        Number of impressions that were clicked (0 <= clicks <= impressions).
    impressions : int
        Number of impressions (> 0).
    confidence : float, default=0.95
        Confidence level of the interval, strictly between 0 and 1.
    method : {"wilson", "wald"}, default="wilson"
        ``"wilson"``: the Wilson score interval [1]_, which stays inside
        [0, 1] and keeps close to its nominal coverage on average, but not
        at every rate (see Notes). ``"wald"``: rate +/- z * standard error,
        shown for comparison; it is clipped to [0, 1] and collapses to a
        single point when clicks is 0 or equal to impressions.
        ``"jeffreys"``: the equal-tailed interval of the Beta(c + 1/2,
        n - c + 1/2) posterior [2]_. ``"clopper_pearson"``: the exact
        binomial interval [3]_, whose coverage is never below the nominal
        level (it is conservative, so wider).

    Returns
    -------
    RateEstimate
        ``rate``, ``ci_low``, ``ci_high`` and the inputs.

    See Also
    --------
    two_proportion_test : compare the rates of two groups.

    Notes
    -----
    With :math:`\\hat p = c/n` and :math:`z = \\Phi^{-1}(1 - (1-\\gamma)/2)`
    for confidence :math:`\\gamma`, the Wilson interval is

    .. math::

        \\frac{\\hat p + \\frac{z^2}{2n}}{1 + \\frac{z^2}{n}} \\pm
        \\frac{z}{1 + \\frac{z^2}{n}}
        \\sqrt{\\frac{\\hat p(1-\\hat p)}{n} + \\frac{z^2}{4n^2}}.

    Coverage is exact, not asymptotic, for a given rate and ``n``: the
    binomial probability that the interval holds the true rate. Brown, Cai
    and DasGupta [2]_ show that it oscillates with the rate for every
    method, and that Wilson's is poor for rates very close to 0 or 1 (of
    the order of 1/n), which is why they offer a modified Wilson interval
    for the first one to three clicks (one or two when n <= 50) and as
    many short of ``n``. Computed exactly for 95 % intervals and 100
    impressions: Wilson's coverage dips to 0.838 at a rate near 0.176/n and
    stays above 0.92 for rates between 0.05 and 0.95; Wald's falls towards
    0 as the rate approaches 0 (one click or none gives a degenerate
    interval); Clopper-Pearson never drops below 0.95; Jeffreys' lowest is
    0.880, at a rate near 2.47/n (with the bound at 0 or 1 for no click or
    all, as below). ``tests/test_online.py`` recomputes these
    figures from statsmodels' intervals.

    All four methods treat impressions as independent Bernoulli trials.
    When one user contributes many impressions they are not independent,
    and the interval is too narrow; analyse per user instead (see the book's
    chapter). The numbers agree with
    ``statsmodels.stats.proportion.proportion_confint`` with ``method=``
    ``"wilson"``, ``"normal"`` (Wald), ``"jeffreys"`` and ``"beta"``
    (Clopper-Pearson), except that Jeffreys' lower bound at 0 clicks is 0
    and its upper bound at ``clicks == impressions`` is 1, as in Brown, Cai
    and DasGupta's definition of the Jeffreys interval (statsmodels keeps
    the Beta quantiles there).

    Cost: :math:`O(1)`.

    References
    ----------
    .. [1] E. B. Wilson, "Probable inference, the law of succession, and
       statistical inference", JASA 22(158), 1927.
    .. [2] L. D. Brown, T. T. Cai and A. DasGupta, "Interval estimation for a
       binomial proportion", Statistical Science 16(2), 2001.
    .. [3] C. J. Clopper and E. S. Pearson, "The use of confidence or
       fiducial limits illustrated in the case of the binomial",
       Biometrika 26(4), 1934.

    Examples
    --------
    >>> from metrics_lib import click_through_rate
    >>> ctr = click_through_rate(30, 1000)
    >>> ctr.rate
    0.03
    >>> round(ctr.ci_low, 4), round(ctr.ci_high, 4)
    (0.0211, 0.0425)
    >>> click_through_rate(0, 20).ci_low
    0.0
    """
    c, n = _check_clicks_impressions(clicks, impressions)
    gamma = check_open_unit("confidence", confidence)
    check_choice("method", method, INTERVAL_METHODS)
    # isf of the tail, not ppf of 1 - tail: 1 - tail rounds to 1 (and z to
    # infinity) for confidence levels within 1e-16 of 1
    z = float(_norm().isf((1.0 - gamma) / 2.0))
    p = c / n
    if method == "wilson":
        denominator = 1.0 + z * z / n
        centre = (p + z * z / (2.0 * n)) / denominator
        half = z / denominator * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
        low, high = centre - half, centre + half
        # exact bounds at the edges (the formula gives 0 and 1 up to rounding)
        if c == 0:
            low = 0.0
        if c == n:
            high = 1.0
    elif method == "wald":
        half = z * math.sqrt(p * (1.0 - p) / n)
        low, high = p - half, p + half
    else:
        from scipy.stats import beta  # lazy: see the module docstring

        tail = (1.0 - gamma) / 2.0
        if method == "jeffreys":
            low_shape, high_shape = (c + 0.5, n - c + 0.5), (c + 0.5, n - c + 0.5)
        else:  # Clopper-Pearson
            low_shape, high_shape = (c, n - c + 1), (c + 1, n - c)
        # at 0 clicks (or all) the bound is the edge itself: Clopper-Pearson by
        # definition (statsmodels too), Jeffreys as in Brown, Cai and DasGupta's
        # definition of it (statsmodels keeps the Beta quantile there)
        low = 0.0 if c == 0 else float(beta.ppf(tail, *low_shape))
        high = 1.0 if c == n else float(beta.isf(tail, *high_shape))
    return RateEstimate(
        rate=p,
        ci_low=min(max(low, 0.0), 1.0),
        ci_high=min(max(high, 0.0), 1.0),
        clicks=c,
        impressions=n,
        confidence=gamma,
        method=method,
    )


# ----------------------------------------------------------------------------
# A/B test of two proportions
# ----------------------------------------------------------------------------
def two_proportion_test(clicks_control, impressions_control, clicks_treatment,
                        impressions_treatment, *, confidence=0.95,
                        alternative="two-sided"):
    """z test comparing the click rates of a control (A) and a treatment (B).

    Parameters
    ----------
    clicks_control, impressions_control : int
        Successes and trials of the control group (0 <= clicks <= trials,
        trials > 0).
    clicks_treatment, impressions_treatment : int
        Successes and trials of the treatment group.
    confidence : float, default=0.95
        Confidence level of the interval of the difference.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis about ``rate_treatment - rate_control``:
        different from 0, greater than 0, less than 0 (scipy's names;
        statsmodels calls the last two ``"larger"`` and ``"smaller"``).

    Returns
    -------
    TwoProportionTest
        Rates, absolute and relative lift, confidence interval of the
        absolute lift, z statistic and p-value.

    See Also
    --------
    click_through_rate : interval for one rate.
    sample_size_per_group : how many units this test needs.

    Notes
    -----
    The z statistic uses the pooled rate
    :math:`\\bar p = (c_A + c_B)/(n_A + n_B)`, which is the variance under
    the null hypothesis of equal rates:

    .. math::

        z = \\frac{\\hat p_B - \\hat p_A}
                 {\\sqrt{\\bar p(1-\\bar p)(1/n_A + 1/n_B)}},

    as ``statsmodels.stats.proportion.proportions_ztest`` does by default.
    The confidence interval of the difference uses the unpooled (Wald)
    standard error
    :math:`\\sqrt{\\hat p_A(1-\\hat p_A)/n_A + \\hat p_B(1-\\hat p_B)/n_B}`,
    because it describes the difference where it is, not under the null.
    The two can disagree at the margin (p just below 0.05 and an interval
    just touching 0). For a one-sided ``alternative`` the interval is
    one-sided too, as in ``scipy.stats``.

    When no unit or every unit clicked in both groups together, the pooled
    variance is 0 and z is undefined: a ``ValueError`` says so. A control
    without clicks (and a treatment with some) has an infinite relative lift.

    Cost: :math:`O(1)`.

    References
    ----------
    .. [1] R. Kohavi, R. Longbotham, D. Sommerfield and R. M. Henne,
       "Controlled experiments on the web: survey and practical guide",
       Data Mining and Knowledge Discovery 18(1), 2009.

    Examples
    --------
    >>> from metrics_lib import two_proportion_test
    >>> res = two_proportion_test(200, 10_000, 250, 10_000)
    >>> round(res.absolute_lift, 4), round(res.relative_lift, 2)
    (0.005, 0.25)
    >>> round(res.z, 3), round(res.p_value, 4)
    (2.384, 0.0171)
    >>> round(res.ci_low, 5), round(res.ci_high, 5)
    (0.00089, 0.00911)
    """
    ca, na = _check_clicks_impressions(clicks_control, impressions_control,
                                       "clicks_control", "impressions_control")
    cb, nb = _check_clicks_impressions(clicks_treatment, impressions_treatment,
                                       "clicks_treatment", "impressions_treatment")
    gamma = check_open_unit("confidence", confidence)
    check_choice("alternative", alternative, ALTERNATIVES)
    pooled = (ca + cb) / (na + nb)
    if pooled in (0.0, 1.0):
        what = "no unit clicked" if pooled == 0.0 else "every unit clicked"
        raise ValueError(
            f"{what} in either group, so the pooled variance is 0 and the z "
            "statistic is undefined; there is no evidence either way"
        )
    pa, pb = ca / na, cb / nb
    diff = pb - pa
    se_pooled = math.sqrt(pooled * (1.0 - pooled) * (1.0 / na + 1.0 / nb))
    se_unpooled = math.sqrt(pa * (1.0 - pa) / na + pb * (1.0 - pb) / nb)
    z = diff / se_pooled
    norm = _norm()
    if alternative == "two-sided":
        p_value = 2.0 * float(norm.sf(abs(z)))
        q = float(norm.isf((1.0 - gamma) / 2.0))
        low, high = diff - q * se_unpooled, diff + q * se_unpooled
    elif alternative == "greater":
        p_value = float(norm.sf(z))
        low, high = diff - float(norm.isf(1.0 - gamma)) * se_unpooled, math.inf
    else:
        p_value = float(norm.cdf(z))
        low, high = -math.inf, diff + float(norm.isf(1.0 - gamma)) * se_unpooled
    return TwoProportionTest(
        rate_control=pa,
        rate_treatment=pb,
        absolute_lift=diff,
        # pooled > 0, so a control rate of 0 has a positive treatment rate:
        # the lift over nothing is infinite (never 0/0, which would be NaN)
        relative_lift=diff / pa if pa > 0 else math.inf,
        ci_low=low,
        ci_high=high,
        z=z,
        p_value=min(p_value, 1.0),
        confidence=gamma,
        alternative=alternative,
    )


# ----------------------------------------------------------------------------
# power and sample size
# ----------------------------------------------------------------------------
def _null_and_alt_sd(p1, p2):
    """Per-unit standard deviations of the difference under H0 and H1."""
    p_bar = (p1 + p2) / 2.0
    return (math.sqrt(2.0 * p_bar * (1.0 - p_bar)),
            math.sqrt(p1 * (1.0 - p1) + p2 * (1.0 - p2)))


def power_two_proportions(baseline_rate, mde_absolute, n_per_group, *, alpha=0.05,
                          alternative="two-sided"):
    """Power of the pooled two-proportion z test for a given group size.

    Parameters
    ----------
    baseline_rate : float
        Rate of the control group, strictly between 0 and 1.
    mde_absolute : float
        True difference ``rate_treatment - rate_control``, in rate units
        (0.005 is half a percentage point), non-zero; the treatment rate
        ``baseline_rate + mde_absolute`` must be strictly between 0 and 1.
    n_per_group : int
        Units in each group (equal split), > 0.
    alpha : float, default=0.05
        Significance level, strictly between 0 and 1.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        As in :func:`two_proportion_test`. A one-sided test must point in the
        direction of ``mde_absolute``.

    Returns
    -------
    float
        Probability that the test rejects the null hypothesis.

    See Also
    --------
    sample_size_per_group : the smallest ``n_per_group`` with a given power.

    Notes
    -----
    Normal approximation with the pooled variance under the null and the
    unpooled variance under the alternative; a two-sided test counts both
    rejection regions. This is what
    ``statsmodels.stats.proportion.power_proportions_2indep`` computes.

    Cost: :math:`O(1)`.

    References
    ----------
    .. [1] J. L. Fleiss, B. Levin and M. C. Paik, *Statistical Methods for
       Rates and Proportions*, 3rd ed., Wiley, 2003, chapter 4.

    Examples
    --------
    >>> from metrics_lib import power_two_proportions
    >>> round(power_two_proportions(0.02, 0.005, 10_000), 3)
    0.664
    """
    p1, p2, delta, a = _check_design(baseline_rate, mde_absolute, alpha, alternative)
    n = check_count("n_per_group", n_per_group)
    if n == 0:
        raise ValueError("n_per_group must be positive")
    sd0, sd1 = _null_and_alt_sd(p1, p2)
    norm = _norm()
    # n beyond float range: the shift is infinite and the power is 1 (its limit)
    root_n = math.sqrt(n) if n <= _LARGEST_COUNT else math.inf
    shift = abs(delta) * root_n / sd1
    if alternative == "two-sided":
        crit = float(norm.isf(a / 2.0)) * sd0 / sd1
        power = float(norm.sf(crit - shift)) + float(norm.cdf(-crit - shift))
    else:
        crit = float(norm.isf(a)) * sd0 / sd1
        power = float(norm.sf(crit - shift))
    return min(power, 1.0)


def sample_size_per_group(baseline_rate, mde_absolute, *, alpha=0.05, power=0.8,
                          alternative="two-sided"):
    """Units needed in each group to detect an absolute change of a rate.

    Parameters
    ----------
    baseline_rate : float
        Rate of the control group, strictly between 0 and 1.
    mde_absolute : float
        Minimum detectable effect as an **absolute** difference of rates:
        for a 5 % baseline, ``mde_absolute=0.005`` means 5 % -> 5.5 % (a 10 %
        relative lift). Non-zero; negative values ask for a decrease.
    alpha : float, default=0.05
        Significance level, strictly between 0 and 1.
    power : float, default=0.8
        Desired probability of detecting the effect, strictly between 0 and 1.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Two-sided uses :math:`z_{1-\\alpha/2}`, one-sided :math:`z_{1-\\alpha}`.

    Returns
    -------
    int
        Units per group, rounded up.

    See Also
    --------
    power_two_proportions : the power a given size achieves.

    Notes
    -----
    The classic normal-approximation formula for the pooled z test [1]_
    (without continuity correction), with :math:`p_2 = p_1 + \\delta` and
    :math:`\\bar p = (p_1 + p_2)/2`:

    .. math::

        n = \\left\\lceil \\frac{\\left(z_{1-\\alpha/2}\\sqrt{2\\bar p(1-\\bar p)}
            + z_{1-\\beta}\\sqrt{p_1(1-p_1) + p_2(1-p_2)}\\right)^2}
            {\\delta^2} \\right\\rceil.

    It ignores the (tiny) far rejection region of a two-sided test, so the
    achieved power is at least ``power``. It equals
    ``statsmodels.stats.proportion.samplesize_proportions_2indep_onetail``
    rounded up. ``NormalIndPower`` with Cohen's *h* effect size gives a
    slightly different number: it transforms the rates with an arcsine.

    Cost: :math:`O(1)`.

    References
    ----------
    .. [1] J. L. Fleiss, B. Levin and M. C. Paik, *Statistical Methods for
       Rates and Proportions*, 3rd ed., Wiley, 2003, chapter 4.
    .. [2] R. Kohavi, D. Tang and Y. Xu, *Trustworthy Online Controlled
       Experiments*, Cambridge University Press, 2020, chapter 17.

    Examples
    --------
    >>> from metrics_lib import sample_size_per_group
    >>> sample_size_per_group(0.05, 0.005)
    31234
    >>> sample_size_per_group(0.05, 0.01)
    8158
    """
    p1, p2, delta, a = _check_design(baseline_rate, mde_absolute, alpha, alternative)
    b = check_open_unit("power", power)
    norm = _norm()
    tail = a / 2.0 if alternative == "two-sided" else a
    z_alpha = float(norm.isf(tail))
    z_beta = float(norm.isf(1.0 - b))
    sd0, sd1 = _null_and_alt_sd(p1, p2)
    root = (z_alpha * sd0 + z_beta * sd1) / abs(delta)
    if not abs(root) < 1e150:  # n would pass 1e300 (and overflow float64 soon after)
        raise ValueError(
            f"sample_size_per_group: detecting mde_absolute={show(delta)} at alpha={show(a)} and "
            f"power={show(b)} needs more than 1e300 units per group; no experiment can run that")
    n = root * root
    # guard against 1000.0000000001 -> 1001 from rounding noise
    return max(1, math.ceil(n * (1.0 - 1e-12)))


# ----------------------------------------------------------------------------
# sample ratio mismatch
# ----------------------------------------------------------------------------
def _check_sequence(name, values) -> list:
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise TypeError(
            f"{name} must be a sequence with one entry per group; got "
            f"{type(values).__name__} {show(values)}"
        )
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {values.shape}")
    items = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if len(items) < 2:
        raise ValueError(f"{name} needs at least two groups; got {len(items)}")
    return items


def sample_ratio_mismatch(observed, expected_ratios=None):
    """Chi-square test that units were split between groups as designed.

    Parameters
    ----------
    observed : sequence of int
        Units counted in each group (at least two groups, non-negative
        integers, positive total).
    expected_ratios : sequence of float, optional
        Designed share of each group, in any positive scale (``[1, 1]``,
        ``[0.5, 0.5]`` and ``[50, 50]`` are the same design). One entry per
        group, all positive and finite. Default: equal shares.

    Returns
    -------
    SampleRatioMismatch
        Chi-square statistic, p-value, degrees of freedom, expected counts.

    See Also
    --------
    two_proportion_test

    Notes
    -----
    Pearson's statistic :math:`\\sum_g (O_g - E_g)^2 / E_g` with
    :math:`E_g = N r_g / \\sum_h r_h`, compared with a chi-square
    distribution with (groups - 1) degrees of freedom; the same numbers as
    ``scipy.stats.chisquare(observed, f_exp=expected)``. A very small
    p-value (practitioners often use 0.001 as the alarm level) means the
    assignment or the logging is broken, and the experiment's metrics
    should not be trusted until the cause is found [1]_.

    Cost: :math:`O(g)` for :math:`g` groups.

    References
    ----------
    .. [1] R. Kohavi, D. Tang and Y. Xu, *Trustworthy Online Controlled
       Experiments*, Cambridge University Press, 2020, chapter 21.

    Examples
    --------
    >>> from metrics_lib import sample_ratio_mismatch
    >>> srm = sample_ratio_mismatch([50_600, 49_400])
    >>> round(srm.statistic, 2), f"{srm.p_value:.1e}"
    (14.4, '1.5e-04')
    >>> srm.expected
    (50000.0, 50000.0)
    """
    raw = _check_sequence("observed", observed)
    counts = [_check_finite_count(f"observed[{i}]", v) for i, v in enumerate(raw)]
    total = sum(counts)
    if total == 0:
        raise ValueError("observed has no units at all (every count is 0)")
    if expected_ratios is None:
        ratios = [1.0] * len(counts)
    else:
        raw_ratios = _check_sequence("expected_ratios", expected_ratios)
        if len(raw_ratios) != len(counts):
            raise ValueError(
                f"expected_ratios must have one entry per group: observed has "
                f"{len(counts)} groups, expected_ratios {len(raw_ratios)}"
            )
        ratios = []
        for i, r in enumerate(raw_ratios):
            if isinstance(r, (bool, np.bool_)) or not isinstance(r, numbers.Real):
                raise TypeError(
                    f"expected_ratios[{i}] must be a positive number; got "
                    f"{type(r).__name__} {show(r)}"
                )
            if not (math.isfinite(float(r)) and float(r) > 0):
                raise ValueError(
                    f"expected_ratios[{i}] must be positive and finite; got {show(r)}"
                )
            ratios.append(float(r))
    # any positive scale: divide by the largest ratio first, so that neither
    # [1e300, 1e300] (the sum overflows) nor [1e-320, 1e-320] (denormal) misleads
    largest = max(ratios)
    ratios = [r / largest for r in ratios]
    scale = sum(ratios)
    expected = [total * r / scale for r in ratios]
    statistic = sum((o - e) ** 2 / e for o, e in zip(counts, expected))
    from scipy.stats import chi2  # lazy: see the module docstring

    dof = len(counts) - 1
    return SampleRatioMismatch(
        statistic=float(statistic),
        p_value=float(chi2.sf(statistic, dof)),
        dof=dof,
        expected=tuple(float(e) for e in expected),
    )
