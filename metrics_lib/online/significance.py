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

Each function takes the two sides as pandas Series (matched on their
index, the user ids), as per-user tables like those
:func:`~metrics_lib.evaluate` returns (pandas, Polars or pyarrow; matched on
the users, the value column chosen by ``metric=`` or being the only one), or
as plain arrays, which pair by position. Matched inputs are put in user order,
so that reordering the rows of either side changes no result, not even a
seeded resample.

The resampling functions take a ``seed`` (an int, ``None`` or a
``numpy.random.Generator``) so that results are reproducible. Results are
small frozen dataclasses. ``scipy`` is imported inside the functions (it is
slow to import and the rest of the package does not need it).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._frames import column_names, native_library, read_columns
from .._validation import (check_choice, check_column_names, check_id_column,
                          check_open_unit, check_real_array, check_rng,
                          check_same_length, check_same_users, check_user_index,
                          show)

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
# More resamples only sharpen the Monte Carlo error, already below 0.0005 on a
# p-value or a quantile level at this count, while time and the bootstrap's
# memory grow with them: a larger request is refused, not silently capped.
MAX_RESAMPLES = 1_000_000


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

def _value_column(name, names, user_col, metric):
    """The one column of per-user values in a table with columns ``names``.

    ``user_col`` is None when the users are the index of a pandas DataFrame.
    """
    if metric is not None:
        check_column_names(name, names, [metric])
        return metric
    others = [c for c in names if c != user_col]
    if len(others) != 1:
        users = ("its index of users" if user_col is None
                 else f"the user column {show(user_col)} (user_col=)")
        raise ValueError(f"{name} has {len(others)} value columns besides {users} "
                         f"({show(others)}); pass metric= to name the one to compare")
    return others[0]


def _ids(name, ids, where):
    """Checked user ids (one kind, none missing, none twice) as a pandas Index."""
    users = pd.Index(check_id_column(name, pd.Series(ids), where=where,
                                     needs="a user id")[1])
    check_user_index(name, users)
    return users


def _index_users(name, values, user_col):
    """The users of a pandas Series or DataFrame given by its index."""
    index = values.index
    if isinstance(index, pd.MultiIndex):
        raise ValueError(f"{name} has a MultiIndex (levels {show(list(index.names))}); "
                         "per-user values need one user id per row: reset_index() and "
                         "pass user_col= naming the column of user ids")
    if isinstance(values, pd.DataFrame) and index.name is None:
        # an unnamed index is usually 0, 1, 2, ...: row numbers, not users
        raise ValueError(f"{name} has no user column {show(user_col)} (user_col=) and "
                         "its index has no name, so nothing says which user each row "
                         f"belongs to; pass user_col= naming the column of user ids "
                         f"(columns: {show(list(values.columns))}), or set the users "
                         "as the index")
    return _ids(name, index, f"the index of {name}")


def _per_user(name, values, user_col, metric, min_size):
    """``(users, values)`` of one side: users is a pandas Index, or None for a
    plain sequence (paired by position)."""
    if native_library(values) is not None:  # Polars or Arrow: a user column
        names = column_names(values)
        check_column_names(name, names, [user_col],
                           hint="pass user_col= to name the column of user ids")
        column = _value_column(name, names, user_col, metric)
        frame = read_columns(name, values, ids=[user_col], values=[column])
        users = _ids(name, frame[user_col], f"{name} column {show(user_col)}")
        return users, check_real_array(name, frame[column], min_size=min_size)
    if isinstance(values, pd.DataFrame):  # as evaluate returns it: users as index
        names = list(values.columns)
        keyed = user_col in names
        column = _value_column(name, names, user_col if keyed else None, metric)
        users = (_ids(name, values[user_col], f"{name} column {show(user_col)}")
                 if keyed else _index_users(name, values, user_col))
        values = values[column]
    elif isinstance(values, pd.Series):
        users = _index_users(name, values, user_col)
    else:
        return None, check_real_array(name, values, min_size=min_size)
    return users, check_real_array(name, values, min_size=min_size)


def paired_values(name_a, a, name_b, b, *, user_col="user", metric=None, min_size=2,
                  user_order=True):
    """Two arrays of per-user values, ``x[i]`` and ``y[i]`` of the same user.

    Tables and Series are matched by user and put in user order (so that the
    rows' order changes no result, not even a seeded resample), or in
    ``a``'s order with ``user_order=False``; plain sequences pair by
    position. Shared with :mod:`metrics_lib.experiments`.
    """
    if not isinstance(user_col, Hashable) or user_col is None:
        raise TypeError(f"user_col must be a column name; got {show(user_col)}")
    users_a, x = _per_user(name_a, a, user_col, metric, min_size)
    users_b, y = _per_user(name_b, b, user_col, metric, min_size)
    if (users_a is None) != (users_b is None):
        keyed, plain = (name_a, name_b) if users_b is None else (name_b, name_a)
        raise TypeError(f"{keyed} carries user ids (a pandas Series or a table) but "
                        f"{plain} is a plain sequence, so nothing says which user each "
                        f"value of {plain} belongs to; pass both with their users, or "
                        "both as arrays in the same user order")
    if users_a is None:
        if metric is not None:
            raise ValueError(f"metric= names a column of a table; {name_a} and "
                             f"{name_b} are sequences of values")
        check_same_length(name_a, x, name_b, y)
        return x, y
    where = check_same_users(name_a, users_a, name_b, users_b)
    if not user_order:
        return x, y[where]
    # ids of one kind (checked above) always sort: the order needs no fallback
    order = np.argsort(users_a.to_numpy(), kind="stable")
    return x[order], y[where][order]


def _paired_differences(a, b, user_col="user", metric=None) -> np.ndarray:
    """``a - b`` per user: tables and Series matched by user, arrays by position."""
    x, y = paired_values("a", a, "b", b, user_col=user_col, metric=metric)
    return x - y


def _check_resamples(n_resamples, minimum=1, why="") -> int:
    """``n_resamples`` between ``minimum`` and ``MAX_RESAMPLES``."""
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(n_resamples,
                                                                     numbers.Integral):
        raise TypeError(f"n_resamples must be a positive integer; got {show(n_resamples)}")
    if not minimum <= n_resamples <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be an integer from {minimum} to "
                         f"{MAX_RESAMPLES:,}{why} (the Monte Carlo error is then below "
                         f"0.0005); got {int(n_resamples)}")
    return int(n_resamples)


# ---------------------------------------------------------------------------
# tests
# ---------------------------------------------------------------------------

def paired_t_test(a, b, *, alternative="two-sided", confidence=0.95, user_col="user",
                  metric=None):
    """Paired t-test of the mean per-user difference ``mean(a - b)``.

    Parameters
    ----------
    a, b : pandas Series or DataFrame, Polars DataFrame, pyarrow Table, or sequence of float
        Per-user values of a metric for two recommenders. Series are matched
        on their index (the user ids); a table of per-user results as
        :func:`~metrics_lib.evaluate` returns it (users as the index of a
        pandas DataFrame, or as the ``user_col`` column of any table) is
        matched on its users. Both must hold the same users, each once.
        Plain sequences and arrays pair by position: ``a[i]`` and ``b[i]``
        must belong to the same user. At least two users.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"`` tests whether ``a`` is better on average (mean
        difference > 0).
    confidence : float, default=0.95
        Level of the confidence interval of the mean difference.
    user_col : str, default="user"
        Column of user ids in a table. A pandas DataFrame without it uses
        its index if the index is named (as in :func:`~metrics_lib.evaluate`'s
        results); an unnamed index (row numbers) is refused.
    metric : str, optional
        Column of values in a table. By default the table must have exactly
        one column besides the users.

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
        the t statistic is undefined); if ``a`` and ``b`` carry users and
        their sets of users differ, one holds a user twice or misses one; if
        a table has several value columns and ``metric`` is not given; if a
        pandas DataFrame has no ``user_col`` column and an unnamed index, or
        users come as a MultiIndex.
    TypeError
        If one of ``a`` and ``b`` carries users and the other is a plain
        sequence; if user ids mix kinds (numbers and strings) or are floats.

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

    Cost: :math:`O(n)` time and memory for :math:`n` users (users matched by
    index or column add a sort, :math:`O(n \\log n)`).

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

    Series are matched by user, whatever their order:

    >>> import pandas as pd
    >>> a = pd.Series([0.5, 0.7, 0.2, 0.9], index=[10, 11, 12, 13])
    >>> b = pd.Series([0.6, 0.2, 0.5, 0.4], index=[13, 12, 11, 10])
    >>> round(paired_t_test(a, b).statistic, 4)
    2.3238
    """
    check_choice("alternative", alternative, ALTERNATIVES)
    confidence = check_open_unit("confidence", confidence)
    d = _paired_differences(a, b, user_col, metric)
    n = d.size
    mean = float(d.mean())
    sd = float(d.std(ddof=1))
    if sd == 0.0:
        raise ValueError("every paired difference is the same "
                         f"({show(float(d[0]))}): the t statistic is undefined")
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
                        method="percentile", seed=None, user_col="user", metric=None):
    """Bootstrap confidence interval of the mean per-user difference.

    Parameters
    ----------
    a, b : pandas Series or DataFrame, Polars DataFrame, pyarrow Table, or sequence of float
        Per-user values of a metric for two recommenders. Series are matched
        on their index (the user ids); a table of per-user results as
        :func:`~metrics_lib.evaluate` returns it (users as the index of a
        pandas DataFrame, or as the ``user_col`` column of any table) is
        matched on its users. Both must hold the same users, each once.
        Plain sequences and arrays pair by position: ``a[i]`` and ``b[i]``
        must belong to the same user. At least two users.
    confidence : float, default=0.95
        Confidence level.
    n_resamples : int, default=9999
        Number of bootstrap resamples of the users, from 2 to 1,000,000.
    method : {"percentile", "basic", "bca"}, default="percentile"
        Percentile interval, basic (reverse percentile) interval, or the
        bias-corrected and accelerated interval (scipy's default).
    seed : int, numpy.random.Generator or None, default=None
        Source of randomness; an int makes the result reproducible.
    user_col : str, default="user"
        Column of user ids in a table. A pandas DataFrame without it uses
        its index if the index is named (as in :func:`~metrics_lib.evaluate`'s
        results); an unnamed index (row numbers) is refused.
    metric : str, optional
        Column of values in a table. By default the table must have exactly
        one column besides the users.

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

    Cost: :math:`O(\\text{n\\_resamples} \\cdot n)` time; memory
    :math:`O(\\text{n\\_resamples})` plus batches of about two million
    cells. ``n_resamples`` is at most ``MAX_RESAMPLES`` (1,000,000; larger
    requests raise ``ValueError``), where the Monte Carlo error of a
    quantile level is already below 0.0005.

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
    confidence = check_open_unit("confidence", confidence)
    # one resample has no spread: a NaN standard error
    n_resamples = _check_resamples(n_resamples, 2, " for a bootstrap interval")
    check_choice("method", method, BOOTSTRAP_METHODS)
    rng = check_rng(seed)
    d = _paired_differences(a, b, user_col, metric)
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
                             standard_error=float(means.std(ddof=1)),
                             confidence=confidence, method=method,
                             n_resamples=n_resamples)


def paired_permutation_test(a, b, *, alternative="two-sided", n_resamples=9999,
                            seed=None, user_col="user", metric=None):
    """Randomisation (sign-flip) test of the mean per-user difference.

    Parameters
    ----------
    a, b : pandas Series or DataFrame, Polars DataFrame, pyarrow Table, or sequence of float
        Per-user values of a metric for two recommenders. Series are matched
        on their index (the user ids); a table of per-user results as
        :func:`~metrics_lib.evaluate` returns it (users as the index of a
        pandas DataFrame, or as the ``user_col`` column of any table) is
        matched on its users. Both must hold the same users, each once.
        Plain sequences and arrays pair by position: ``a[i]`` and ``b[i]``
        must belong to the same user. At least two users.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: is ``a`` better on average?
    n_resamples : int, default=9999
        Number of random sign-flip patterns, from 1 to 1,000,000. When
        ``2 ** n`` is not larger, every pattern is enumerated and the test
        is exact.
    seed : int, numpy.random.Generator or None, default=None
        Source of randomness for the random (non-exact) test.
    user_col : str, default="user"
        Column of user ids in a table. A pandas DataFrame without it uses
        its index if the index is named (as in :func:`~metrics_lib.evaluate`'s
        results); an unnamed index (row numbers) is refused.
    metric : str, optional
        Column of values in a table. By default the table must have exactly
        one column besides the users.

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
    (with a tolerance of ``100 * machine epsilon`` times the largest
    :math:`|d_u|` for floating-point ties); a random test adds the observed
    pattern itself (``+1`` in
    numerator and denominator), so ``p > 0``. Two-sided p-values are twice
    the smaller one-sided p-value, capped at 1. This is
    ``scipy.stats.permutation_test((a, b), statistic,
    permutation_type="samples")`` with ``statistic`` the mean difference,
    except for ties: scipy's tolerance is relative to the observed
    statistic, so when the observed mean is zero up to rounding (say
    1e-17) it misses patterns that tie with it exactly and gives, for
    example, 0.838 where the exact p-value is 1.

    Cost: :math:`O(\\min(2^n, \\text{n\\_resamples}) \\cdot n)` time, memory
    in batches of about two million cells. ``n_resamples`` is at most
    1,000,000 (larger requests raise ``ValueError``), so the exact test
    enumerates at most :math:`2^{19}` patterns.

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
    rng = check_rng(seed)
    d = _paired_differences(a, b, user_col, metric)
    n = d.size
    observed = float(d.mean())
    exact = n < 63 and 2 ** n <= n_resamples
    # Patterns tied with the observed one in exact arithmetic differ from it
    # by rounding only, which scales with the largest |d_u| (a mean of n < 63
    # terms), not with the observed mean: near a zero mean a tolerance
    # relative to it vanishes and ties are counted by chance.
    tolerance = np.finfo(float).eps * 100 * max(abs(observed), float(np.abs(d).max(initial=0.0)))
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
