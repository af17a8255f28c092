"""Is an offline difference real? Paired comparisons of two recommenders.

Evaluate two recommenders on the *same* users and you get two aligned arrays
of per-user metric values (for example NDCG@10 of model A and of model B for
each test user). The three functions here ask whether the mean difference
could be chance:

``paired_t_test``
    the classical test on the per-user differences (normal approximation of
    their mean);
``paired_bootstrap_ci``
    a bootstrap confidence interval of the mean difference (resampling
    users);
``paired_permutation_test``
    a randomisation test: under "no difference" the two labels of each
    user's pair are exchangeable, so the sign of each difference can be
    flipped at random.

The resampling functions take a ``seed`` (an int, ``None`` or a
``numpy.random.Generator``) so that results are reproducible. Results are
small frozen dataclasses. ``scipy`` is imported inside the functions (it is
slow to import and the rest of the package does not need it).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._validation import check_choice, check_real_array, check_same_length, show

__all__ = [
    "PairedTTest",
    "BootstrapInterval",
    "PermutationTest",
    "paired_t_test",
    "paired_bootstrap_ci",
    "paired_permutation_test",
]

ALTERNATIVES = ("two-sided", "greater", "less")
BOOTSTRAP_METHODS = ("percentile", "basic", "bca")
_BATCH_CELLS = 2_000_000  # resample cells (resamples x users) held at once


@dataclass(frozen=True)
class PairedTTest:
    """Result of :func:`paired_t_test`.

    Attributes
    ----------
    statistic : float
        The t statistic of the mean difference ``mean(a - b)``.
    p_value : float
        p-value for the requested ``alternative``.
    df : int
        Degrees of freedom, ``n - 1``.
    mean_difference : float
        ``mean(a - b)``.
    ci_low, ci_high : float
        Confidence interval of the mean difference (one bound infinite for
        a one-sided ``alternative``).
    confidence : float
        Confidence level of the interval.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    """

    statistic: float
    p_value: float
    df: int
    mean_difference: float
    ci_low: float
    ci_high: float
    confidence: float
    alternative: str


@dataclass(frozen=True)
class BootstrapInterval:
    """Result of :func:`paired_bootstrap_ci`.

    Attributes
    ----------
    mean_difference : float
        ``mean(a - b)`` on the original data.
    ci_low, ci_high : float
        Bounds of the bootstrap confidence interval.
    standard_error : float
        Standard deviation of the bootstrap distribution.
    confidence : float
        Confidence level.
    method : str
        ``"percentile"``, ``"basic"`` or ``"bca"``.
    n_resamples : int
        Number of bootstrap resamples.
    """

    mean_difference: float
    ci_low: float
    ci_high: float
    standard_error: float
    confidence: float
    method: str
    n_resamples: int


@dataclass(frozen=True)
class PermutationTest:
    """Result of :func:`paired_permutation_test`.

    Attributes
    ----------
    mean_difference : float
        The observed statistic, ``mean(a - b)``.
    p_value : float
        Share of sign flips giving a statistic at least as extreme.
    n_resamples : int
        Number of sign-flip patterns used (``2 ** n`` when exact).
    exact : bool
        Whether every one of the ``2 ** n`` patterns was enumerated.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    """

    mean_difference: float
    p_value: float
    n_resamples: int
    exact: bool
    alternative: str


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------

def _paired_differences(a, b) -> np.ndarray:
    a = check_real_array("a", a, min_size=2)
    b = check_real_array("b", b, min_size=2)
    check_same_length("a", a, "b", b)
    return a - b


def _check_confidence(confidence) -> float:
    if isinstance(confidence, (bool, np.bool_)) or not isinstance(confidence, numbers.Real):
        raise TypeError(f"confidence must be a number in (0, 1); got {show(confidence)}")
    value = float(confidence)
    if not 0 < value < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1; got {show(confidence)}")
    return value


def _check_resamples(n_resamples) -> int:
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(n_resamples,
                                                                     numbers.Integral):
        raise TypeError(f"n_resamples must be a positive integer; got {show(n_resamples)}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer; got {n_resamples}")
    return int(n_resamples)


def _rng(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError("seed must be None, a non-negative integer or a "
                        f"numpy.random.Generator; got {type(seed).__name__} {show(seed)}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed}")
    return np.random.default_rng(int(seed))


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------

def paired_t_test(a, b, *, alternative="two-sided", confidence=0.95):
    """Paired t-test of the mean per-user difference ``mean(a - b)``.

    Parameters
    ----------
    a, b : sequence of float
        Per-user values of a metric for two recommenders, aligned by user
        (``a[u]`` and ``b[u]`` belong to the same user). At least two users.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"`` tests whether ``a`` is better on average (mean
        difference > 0).
    confidence : float, default=0.95
        Level of the confidence interval of the mean difference.

    Returns
    -------
    PairedTTest
        Statistic, p-value, degrees of freedom, mean difference and its
        confidence interval.

    Raises
    ------
    ValueError
        If the arrays differ in length, hold fewer than two values or a
        non-finite value, or every difference is the same (zero variance:
        the t statistic is undefined).

    See Also
    --------
    paired_permutation_test, paired_bootstrap_ci

    Notes
    -----
    With differences :math:`d_u = a_u - b_u`, mean :math:`\\bar d` and sample
    standard deviation :math:`s_d` (``ddof=1``),
    :math:`t = \\bar d / (s_d / \\sqrt{n})` with :math:`n - 1` degrees of
    freedom; the same as ``scipy.stats.ttest_rel(a, b)``. It tests a *mean*:
    per-user metric values are far from normal (many users score 0), but with
    hundreds of users the mean is close to normal. It is not a test of the
    paired *medians*.

    References
    ----------
    .. [1] Smucker, Allan and Carterette, "A comparison of statistical
       significance tests for information retrieval evaluation", CIKM 2007.

    Examples
    --------
    >>> from metrics_lib import paired_t_test
    >>> result = paired_t_test([0.5, 0.7, 0.2, 0.9], [0.4, 0.5, 0.2, 0.6])
    >>> round(result.statistic, 4), result.df
    (2.3238, 3)
    """
    check_choice("alternative", alternative, ALTERNATIVES)
    confidence = _check_confidence(confidence)
    d = _paired_differences(a, b)
    n = d.size
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        raise ValueError("every paired difference is the same "
                         f"({show(d[0])}): the t statistic is undefined")
    se = sd / math.sqrt(n)
    t = mean / se
    from scipy.stats import t as t_dist

    df = n - 1
    if alternative == "two-sided":
        p = 2 * float(t_dist.sf(abs(t), df))
        # isf of the tail: 0.5 + confidence / 2 rounds to 1 near confidence 1
        q = float(t_dist.isf((1 - confidence) / 2, df))
        low, high = mean - q * se, mean + q * se
    elif alternative == "greater":
        p = float(t_dist.sf(t, df))
        low, high = mean - float(t_dist.isf(1 - confidence, df)) * se, math.inf
    else:
        p = float(t_dist.cdf(t, df))
        low, high = -math.inf, mean + float(t_dist.isf(1 - confidence, df)) * se
    return PairedTTest(statistic=float(t), p_value=min(p, 1.0), df=df,
                       mean_difference=mean, ci_low=float(low), ci_high=float(high),
                       confidence=confidence, alternative=alternative)


def paired_bootstrap_ci(a, b, *, confidence=0.95, n_resamples=9999,
                        method="percentile", seed=None):
    """Bootstrap confidence interval of the mean per-user difference.

    Parameters
    ----------
    a, b : sequence of float
        Per-user metric values of two recommenders, aligned by user.
    confidence : float, default=0.95
        Confidence level.
    n_resamples : int, default=9999
        Number of bootstrap resamples of the users.
    method : {"percentile", "basic", "bca"}, default="percentile"
        Percentile interval, basic (reverse percentile) interval, or the
        bias-corrected and accelerated interval (scipy's default).
    seed : int, numpy.random.Generator or None, default=None
        Source of randomness; an int makes the result reproducible.

    Returns
    -------
    BootstrapInterval
        Mean difference, interval bounds, bootstrap standard error.

    See Also
    --------
    paired_t_test, paired_permutation_test

    Notes
    -----
    Users are resampled *as pairs*: resample ``u`` contributes ``a[u] - b[u]``,
    which keeps the correlation between the two recommenders (the whole
    point of a paired design). Given the same ``numpy.random.Generator``
    state, the interval equals ``scipy.stats.bootstrap((a - b,), np.mean,
    method=..., rng=...)``. Resamples are drawn in batches, so memory stays
    bounded for many users.

    References
    ----------
    .. [1] Efron and Tibshirani, *An Introduction to the Bootstrap*,
       Chapman & Hall, 1993.

    Examples
    --------
    >>> from metrics_lib import paired_bootstrap_ci
    >>> ci = paired_bootstrap_ci([0.5, 0.7, 0.2, 0.9, 0.4], [0.4, 0.5, 0.2, 0.6, 0.4],
    ...                          n_resamples=999, seed=0)
    >>> round(ci.mean_difference, 2), ci.ci_low <= ci.mean_difference <= ci.ci_high
    (0.12, True)
    """
    confidence = _check_confidence(confidence)
    n_resamples = _check_resamples(n_resamples)
    check_choice("method", method, BOOTSTRAP_METHODS)
    rng = _rng(seed)
    d = _paired_differences(a, b)
    n = d.size
    estimate = float(d.mean())
    batch = max(1, _BATCH_CELLS // n)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, batch):
        stop = min(start + batch, n_resamples)
        index = rng.integers(0, n, (stop - start, n))
        means[start:stop] = d[index].mean(axis=-1)
    alpha = (1 - confidence) / 2
    if method == "bca":
        from scipy.special import ndtr, ndtri

        share = (np.count_nonzero(means < estimate)
                 + np.count_nonzero(means <= estimate)) / (2 * n_resamples)
        z0 = float(ndtri(share))
        jackknife = (d.sum() - d) / (n - 1)
        u = (n - 1) * (jackknife.mean() - jackknife)
        denominator = float(np.sum(u ** 2) / n ** 2) ** 1.5
        if denominator == 0 or not math.isfinite(z0):
            raise ValueError("the BCa interval is undefined for these data (all "
                             "differences equal, or the estimate lies outside the "
                             "bootstrap distribution); use method='percentile'")
        accel = float(np.sum(u ** 3) / n ** 3) / 6 / denominator
        z = float(ndtri(alpha))
        levels = [float(ndtr(z0 + (z0 + zz) / (1 - accel * (z0 + zz))))
                  for zz in (z, -z)]
    else:
        levels = [alpha, 1 - alpha]
    low, high = (float(x) for x in np.quantile(means, levels))
    if method == "basic":
        low, high = 2 * estimate - high, 2 * estimate - low
    return BootstrapInterval(mean_difference=estimate, ci_low=low, ci_high=high,
                             standard_error=float(means.std(ddof=1)) if n_resamples > 1
                             else math.nan,
                             confidence=confidence, method=method,
                             n_resamples=n_resamples)


def paired_permutation_test(a, b, *, alternative="two-sided", n_resamples=9999,
                            seed=None):
    """Randomisation (sign-flip) test of the mean per-user difference.

    Parameters
    ----------
    a, b : sequence of float
        Per-user metric values of two recommenders, aligned by user.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: is ``a`` better on average?
    n_resamples : int, default=9999
        Number of random sign-flip patterns. When ``2 ** n`` is not larger,
        every pattern is enumerated and the test is exact.
    seed : int, numpy.random.Generator or None, default=None
        Source of randomness for the random (non-exact) test.

    Returns
    -------
    PermutationTest
        Observed mean difference, p-value, number of patterns, exactness.

    See Also
    --------
    paired_t_test, paired_bootstrap_ci

    Notes
    -----
    If the two recommenders were equally good, which of a user's two values
    came from which recommender would be a coin flip. So the null
    distribution of :math:`\\bar d` is that of
    :math:`\\frac1n \\sum_u s_u d_u` with random signs :math:`s_u = \\pm 1`.
    The p-value counts the patterns at least as extreme as the observed one
    (with a relative tolerance of ``100 * machine epsilon`` for floating-point
    ties); a random test adds the observed pattern itself (``+1`` in
    numerator and denominator), so ``p > 0``. Two-sided p-values are twice
    the smaller one-sided p-value, capped at 1. This is
    ``scipy.stats.permutation_test((a, b), statistic,
    permutation_type="samples")`` with ``statistic`` the mean difference.

    References
    ----------
    .. [1] Smucker, Allan and Carterette, "A comparison of statistical
       significance tests for information retrieval evaluation", CIKM 2007.

    Examples
    --------
    >>> from metrics_lib import paired_permutation_test
    >>> result = paired_permutation_test([3, 5, 4], [1, 2, 3])  # 2**3 = 8 patterns
    >>> result.exact, result.n_resamples, result.p_value
    (True, 8, 0.25)
    """
    check_choice("alternative", alternative, ALTERNATIVES)
    n_resamples = _check_resamples(n_resamples)
    rng = _rng(seed)
    d = _paired_differences(a, b)
    n = d.size
    observed = float(d.mean())
    exact = n < 63 and 2 ** n <= n_resamples
    tolerance = abs(np.finfo(float).eps * 100 * observed)
    n_less = n_greater = 0
    if exact:
        total = 2 ** n
        batch = max(1, _BATCH_CELLS // n)
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, batch):
            codes = np.arange(start, min(start + batch, total), dtype=np.int64)
            signs = 1 - 2 * ((codes[:, None] >> bits) & 1)
            null = (signs * d).mean(axis=1)
            n_less += int(np.count_nonzero(null <= observed + tolerance))
            n_greater += int(np.count_nonzero(null >= observed - tolerance))
        adjustment = 0
    else:
        total = n_resamples
        batch = max(1, _BATCH_CELLS // n)
        for start in range(0, total, batch):
            size = min(batch, total - start)
            signs = rng.choice(np.array([-1.0, 1.0]), size=(size, n))
            null = (signs * d).mean(axis=1)
            n_less += int(np.count_nonzero(null <= observed + tolerance))
            n_greater += int(np.count_nonzero(null >= observed - tolerance))
        adjustment = 1
    p_less = (n_less + adjustment) / (total + adjustment)
    p_greater = (n_greater + adjustment) / (total + adjustment)
    if alternative == "less":
        p = p_less
    elif alternative == "greater":
        p = p_greater
    else:
        p = 2 * min(p_less, p_greater)
    return PermutationTest(mean_difference=observed, p_value=float(min(max(p, 0.0), 1.0)),
                           n_resamples=int(total), exact=bool(exact),
                           alternative=alternative)
