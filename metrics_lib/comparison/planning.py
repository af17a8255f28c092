"""Planning an experiment: how many users to see a difference, and the
smallest difference a given number of users can see.

One pair of functions covers the designs a comparison can have: an offline
paired comparison (every user scored by both systems: the paired t-test of
:func:`compare`), an interleaving experiment (the share of decided
impressions won: the exact binomial test of
:func:`~metrics_lib.interleaving_test`) and an A/B test (two groups: the
two-sample t-test for a mean, or the two-proportion z test of
:func:`~metrics_lib.two_proportion_test` for a rate), so that their sizes
can be put in one table.
"""

from __future__ import annotations

import math

from .._validation import check_choice, check_count, check_open_unit, check_real, show

__all__ = ["DESIGNS", "users_needed", "detectable_difference", "power_of"]

DESIGNS = ("paired", "two_sample", "proportions", "interleaving")
METHODS = ("exact", "sakai")
_MAX_USERS = 10 ** 9  # a design needing more is refused, not searched for ever


def _t_power(n: int, difference: float, variance: float, alpha: float, paired: bool,
             method: str) -> float:
    """Power of the two-sided t-test with ``n`` users (per group when unpaired)."""
    from scipy.stats import nct, norm, t

    if paired:
        df, shift = n - 1, math.sqrt(n) * abs(difference) / math.sqrt(variance)
    else:
        df, shift = 2 * n - 2, abs(difference) / math.sqrt(2 * variance / n)
    if df < 1:
        return 0.0
    w = float(t.isf(alpha / 2, df))
    if method == "sakai":
        # Nagata's normal approximation of the noncentral t (Sakai's Excel tool)
        scale = math.sqrt(1 + w * w / (2 * df))
        upper = (w * (1 - 1 / (4 * df)) - shift) / scale
        lower = (-w * (1 - 1 / (4 * df)) - shift) / scale
        return float(norm.cdf(lower) + norm.sf(upper))
    # the far tail as an upper tail: scipy's nct.cdf far below the mean can be NaN
    far = float(nct.sf(w, df, -shift))
    return float(nct.sf(w, df, shift)) + (far if math.isfinite(far) else 0.0)


def _binomial_power(n: int, share: float, alpha: float) -> float:
    """Power of the exact two-sided binomial test of a share of 1/2, ``n`` trials.

    For the symmetric null scipy's two-sided p-value is ``2 P(X <= min(k,
    n - k))``: the rejection region is ``k <= c`` or ``k >= n - c``.
    """
    from scipy.stats import binom

    c = int(binom.ppf(alpha / 2, n, 0.5))
    while c >= 0 and 2 * binom.cdf(c, n, 0.5) > alpha:
        c -= 1
    if c < 0:
        return 0.0
    return float(binom.cdf(c, n, share) + binom.sf(n - c - 1, n, share))


def power_of(n, difference, *, design="paired", variance=None, baseline_rate=None,
             alpha=0.05, method="exact"):
    """Power of a design with ``n`` users (per group for A/B tests).

    Parameters
    ----------
    n : int
        Users (``"paired"``), users per group (``"two_sample"``,
        ``"proportions"``) or decided impressions (``"interleaving"``).
    difference : float
        The true difference, as in :func:`users_needed`.
    design, variance, baseline_rate, alpha, method
        As in :func:`users_needed`.

    Returns
    -------
    float
        Probability that the two-sided test rejects at level ``alpha``.

    Notes
    -----
    The power functions :func:`users_needed` inverts in ``n`` and
    :func:`detectable_difference` in ``difference``: the noncentral t
    (paired, two-sample), Nagata's approximation (``method="sakai"``), the
    exact binomial test (interleaving), the two-proportion z test
    (:func:`~metrics_lib.power_two_proportions`).

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016, 256-283.

    Examples
    --------
    >>> from metrics_lib import power_of
    >>> round(power_of(34, 0.05, variance=0.01), 3)
    0.808
    """
    n = check_count("n", n)
    options = _checked(difference, design, variance, baseline_rate, alpha, method)
    return _power(n, options["difference"], options)


def _checked(difference, design, variance, baseline_rate, alpha, method) -> dict:
    check_choice("design", design, DESIGNS)
    check_choice("method", method, METHODS)
    alpha = check_open_unit("alpha", alpha)
    if method == "sakai" and design != "paired":
        raise ValueError("method='sakai' (Nagata's approximation, Sakai's t-test tool) "
                         f"is for design='paired'; got design={show(design)}")
    if design in ("paired", "two_sample"):
        if variance is None:
            raise ValueError(f"design={show(design)} needs variance=: the pilot's variance "
                             "of the per-user differences (paired) or of the per-user "
                             "values (two_sample)")
        variance = check_real("variance", variance, low=0, low_open=True)
    elif variance is not None:
        raise ValueError(f"variance= is not used by design={show(design)}: its variance "
                         "follows from the rates")
    if design == "proportions":
        if baseline_rate is None:
            raise ValueError("design='proportions' needs baseline_rate= (the control rate)")
        baseline_rate = check_real("baseline_rate", baseline_rate, low=0, high=1,
                                   low_open=True, high_open=True)
    elif baseline_rate is not None:
        raise ValueError(f"baseline_rate= is only used by design='proportions'")
    if difference is not None:
        difference = check_real("difference", difference)
        if difference == 0:
            raise ValueError("difference must be non-zero: no design detects a zero "
                             "difference")
        if design == "interleaving" and not abs(difference) < 0.5:
            raise ValueError("difference is the share of decided impressions won minus "
                             f"1/2 for design='interleaving', so |difference| < 0.5; "
                             f"got {show(difference)}")
    return {"difference": difference, "design": design, "variance": variance,
            "baseline_rate": baseline_rate, "alpha": alpha, "method": method}


def _power(n: int, difference: float, o: dict) -> float:
    design = o["design"]
    if design == "paired":
        return _t_power(n, difference, o["variance"], o["alpha"], True, o["method"])
    if design == "two_sample":
        return _t_power(n, difference, o["variance"], o["alpha"], False, "exact")
    if design == "interleaving":
        return _binomial_power(n, 0.5 + difference, o["alpha"])
    from ..online import power_two_proportions

    if n == 0:
        return 0.0
    return power_two_proportions(o["baseline_rate"], difference, n, alpha=o["alpha"])


def _interleaving_n(difference: float, alpha: float, power: float) -> int:
    """Smallest number of decided impressions whose exact binomial test has
    ``power``, scanning upwards from half the normal approximation's size (a
    size whose power is about 1/2 or less, below any target asked for)."""
    import numpy as np
    from scipy.stats import binom, norm

    share = 0.5 + difference
    z_a, z_b = float(norm.isf(alpha / 2)), float(norm.isf(1 - power))
    margin = 0.5 * z_a + z_b * math.sqrt(share * (1 - share))
    # a power at or below the level (margin <= 0; z_b = -inf at power 1e-300)
    # is reached by the fewest impressions: scan from 1
    start = max(1, int((margin / difference) ** 2 / 2)) if margin > 0 else 1
    while start <= _MAX_USERS:
        n = np.arange(start, start + 4096)
        c = binom.ppf(alpha / 2, n, 0.5)
        for _ in range(3):  # ppf can overshoot the largest c with 2 P(X <= c) <= alpha
            c = np.where((c >= 0) & (2 * binom.cdf(c, n, 0.5) > alpha), c - 1, c)
        achieved = np.where(c >= 0, binom.cdf(c, n, share) + binom.sf(n - c - 1, n, share),
                            0.0)
        hits = np.flatnonzero(achieved >= power)
        if hits.size:
            return int(n[hits[0]])
        start += 4096
    raise ValueError(f"more than {_MAX_USERS:,} impressions would be needed")


def users_needed(difference, *, design="paired", variance=None, baseline_rate=None,
                 alpha=0.05, power=0.8, method="exact"):
    """Users needed to detect a difference with a given power (topic set size design).

    Parameters
    ----------
    difference : float
        The smallest difference worth detecting (non-zero): of the metric's
        mean (``"paired"``, ``"two_sample"``), of the rate
        (``"proportions"``: treatment minus control), or of the share of
        decided impressions won, minus 1/2 (``"interleaving"``: 0.05 is a
        55 % preference).
    design : {"paired", "two_sample", "proportions", "interleaving"}, default="paired"
        ``"paired"``: every user sees both systems (offline evaluation; the
        two-sided paired t-test); ``"two_sample"``: an A/B test of a mean
        per user (two-sided two-sample t-test, equal groups and variances);
        ``"proportions"``: an A/B test of a rate (the pooled two-proportion
        z test, :func:`~metrics_lib.sample_size_per_group`);
        ``"interleaving"``: the exact binomial test of the wins of
        :func:`~metrics_lib.interleaving_test` (ties dropped).
    variance : float, optional
        From a pilot: the variance of the per-user *differences* for
        ``"paired"`` (Sakai's :math:`\\hat\\sigma_t^2`), of the per-user
        values for ``"two_sample"``. Not used by the other designs.
    baseline_rate : float, optional
        The control's rate, for ``"proportions"`` only.
    alpha : float, default=0.05
        Level of the two-sided test.
    power : float, default=0.8
        Wanted probability of detecting ``difference`` (:math:`1 - \\beta`).
    method : {"exact", "sakai"}, default="exact"
        For ``"paired"``: the power from the noncentral t distribution, or
        from Nagata's normal approximation of it, as in Sakai's Excel tool
        ``samplesizeTTEST2`` (the number his book and papers print; it can
        differ from the exact one by a user or so).

    Returns
    -------
    int
        Users (``"paired"``), users per group (``"two_sample"``,
        ``"proportions"``) or decided impressions (``"interleaving"``).

    Raises
    ------
    ValueError
        On a zero difference, a missing or unused ``variance`` /
        ``baseline_rate``, or a level outside (0, 1); for ``"proportions"``,
        on the errors of :func:`~metrics_lib.sample_size_per_group` (which
        refuses a design needing more than 1e300 units per group).

    Notes
    -----
    For the paired t-test with :math:`n` users the statistic follows a
    noncentral t distribution with :math:`n - 1` degrees of freedom and
    noncentrality :math:`\\lambda = \\sqrt n\\,\\delta/\\sigma_t`; the power is
    :math:`P(T' > t_{\\alpha/2}) + P(T' < -t_{\\alpha/2})`. The returned
    :math:`n` is the smallest with at least ``power``, searched from
    Sakai's starting value :math:`((z_{\\alpha/2} + z_\\beta)/\\Delta)^2 +
    z_{\\alpha/2}^2/2` with :math:`\\Delta = \\delta/\\sigma_t`. The two-sample
    test has :math:`2n - 2` degrees of freedom and
    :math:`\\lambda = \\delta/\\sqrt{2\\sigma^2/n}`. The exact binomial test's
    power is not monotone in :math:`n` (a sawtooth): the first :math:`n`
    reaching ``power`` is returned.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016, 256-283.
    .. [2] T. Sakai, *Laboratory Experiments in Information Retrieval*,
       Springer, 2018, chapter 6.

    Examples
    --------
    >>> from metrics_lib import users_needed
    >>> users_needed(0.05, variance=0.01)                 # offline, paired
    34
    >>> users_needed(0.05, design="two_sample", variance=0.04)
    253
    >>> users_needed(0.05, design="interleaving")         # 55 % of wins
    786
    >>> users_needed(0.005, design="proportions", baseline_rate=0.05)
    31234
    """
    options = _checked(difference, design, variance, baseline_rate, alpha, method)
    power = check_open_unit("power", power)
    difference = options["difference"]
    if design == "proportions":
        from ..online import sample_size_per_group

        return sample_size_per_group(baseline_rate, difference, alpha=alpha, power=power)
    if design == "interleaving":
        return _interleaving_n(abs(difference), options["alpha"], power)
    from scipy.stats import norm

    z_a, z_b = float(norm.isf(options["alpha"] / 2)), float(norm.isf(1 - power))
    scale = 1 if design == "paired" else 2  # two groups: twice the variance
    effect = abs(difference) / math.sqrt(scale * options["variance"])
    # a power at or below the level (z_a + z_b <= 0) is reached by the
    # fewest users; squaring would turn it into a huge (or infinite) start
    start = ((z_a + z_b) / effect) ** 2 + z_a ** 2 / 2 if z_a + z_b > 0 else 2
    if not start < _MAX_USERS:
        raise ValueError(f"more than {_MAX_USERS:,} users would be needed")
    n = max(2, math.ceil(start))
    while _power(n, difference, options) < power:  # power grows with n
        n += 1
    while n > 2 and _power(n - 1, difference, options) >= power:
        n -= 1
    return n


def detectable_difference(n, *, design="paired", variance=None, baseline_rate=None,
                          alpha=0.05, power=0.8, method="exact"):
    """The smallest difference ``n`` users detect with a given power.

    Parameters
    ----------
    n : int
        Users (``"paired"``), users per group (``"two_sample"``,
        ``"proportions"``) or decided impressions (``"interleaving"``).
    design, variance, baseline_rate, alpha, power, method
        As in :func:`users_needed`.

    Returns
    -------
    float
        The positive difference whose power is ``power``: the inverse of
        :func:`users_needed` (for ``"proportions"`` an increase of the rate).
        0.0 when ``power`` is at most the power of (almost) no difference,
        about ``alpha``: the test reaches it without any difference.

    Raises
    ------
    ValueError
        If no difference reaches ``power`` with ``n`` (too few users or
        impressions), or on the errors of :func:`users_needed`.

    Notes
    -----
    The root in ``difference`` of ``power_of(n, difference) = power``
    (Brent's method; the power grows with the difference). Sakai calls it
    the minimum detectable difference of a topic set size.

    References
    ----------
    .. [1] T. Sakai, "Topic set size design", Information Retrieval Journal
       19(3), 2016, 256-283.

    Examples
    --------
    >>> from metrics_lib import detectable_difference, power_of
    >>> delta = detectable_difference(100, variance=0.01)
    >>> round(delta, 4), round(power_of(100, delta, variance=0.01), 6)
    (0.0283, 0.8)
    """
    from scipy.optimize import brentq

    n = check_count("n", n)
    options = _checked(None, design, variance, baseline_rate, alpha, method)
    power = check_open_unit("power", power)
    if design == "interleaving":
        high = 0.5 - 1e-12
    elif design == "proportions":
        high = (1 - options["baseline_rate"]) * (1 - 1e-12)
    else:
        sd = math.sqrt(options["variance"])
        high = 1e3 * sd
        # a tiny alpha needs a larger difference than 1000 standard deviations
        while _power(n, high, options) < power and high < 1e12 * sd:
            high *= 10
    low = 1e-12 * high
    if _power(n, low, options) >= power:
        return 0.0  # a power at or below the test's size: no difference is needed
    if _power(n, high, options) < power:
        raise ValueError(f"n={n} is too small: no difference reaches power {power:g} "
                         f"with design={show(design)}")
    return float(brentq(lambda d: _power(n, d, options) - power, low, high,
                        xtol=1e-14, rtol=1e-12))
