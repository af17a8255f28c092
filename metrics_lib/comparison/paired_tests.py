"""The tests of a comparison, on per-user values already paired by user.

Two systems are compared on the per-user differences ``d = x - y`` (paired
t, Wilcoxon signed rank, sign-flip permutation, bootstrap); many systems on
the matrix of per-user values, one column per system (Tukey HSD and
randomised Tukey HSD). Inputs here are checked float arrays without NaN:
:mod:`metrics_lib.comparison.compare` validates and pairs the data first.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["TESTS", "PAIR_TESTS", "MANY_TESTS", "t_interval", "pair_test",
           "tukey_p_values", "tukey_intervals", "tukey_hsd", "tukey_hsd_intervals",
           "randomised_tukey_hsd"]

PAIR_TESTS = ("t", "wilcoxon", "permutation", "bootstrap")
MANY_TESTS = ("tukey_hsd", "randomised_tukey_hsd")
TESTS = PAIR_TESTS + MANY_TESTS
_BATCH_CELLS = 2_000_000  # resampled cells held at once


def t_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Student-t interval of the mean of ``values`` (``(nan, nan)`` for one value)."""
    from scipy.stats import t as t_dist

    n = values.size
    mean = float(values.mean())
    if n < 2:
        return math.nan, math.nan
    half = float(t_dist.isf((1 - confidence) / 2, n - 1)) * float(values.std(ddof=1)) \
        / math.sqrt(n)
    return mean - half, mean + half


def _constant_p(d: np.ndarray) -> float | None:
    """p-value when every difference is the same: 1 if all are 0, else 0.

    The t statistic is then 0/0 or infinite and scipy's Wilcoxon refuses all
    zeros; the limits are taken instead (``None``: the differences vary).
    """
    if np.all(d == d[0]):
        return 1.0 if d[0] == 0 else 0.0
    return None


def _bootstrap_p(d: np.ndarray, n_resamples: int, rng) -> float:
    """Two-sided p-value of the shifted paired bootstrap test of ``mean(d) = 0``.

    The differences are centred (the null made true) and resampled; the
    p-value is the share of resampled means at least as far from 0 as the
    observed mean, with the observed sample counted once (``+1``).
    """
    centred = d - d.mean()
    observed = abs(float(d.mean()))
    tolerance = 100 * np.finfo(float).eps * observed
    n = d.size
    batch = max(1, _BATCH_CELLS // n)
    count = 0
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        means = centred[rng.integers(0, n, (size, n))].mean(axis=1)
        count += int(np.count_nonzero(np.abs(means) >= observed - tolerance))
    return (count + 1) / (n_resamples + 1)


def pair_test(x: np.ndarray, y: np.ndarray, test: str, *, confidence: float,
              n_resamples: int, rng, bootstrap_method: str) -> tuple[float, float, float]:
    """``(p_value, low, high)``: a two-sided test of ``mean(x - y) = 0`` and
    the interval of the mean difference (bootstrap for ``test="bootstrap"``,
    Student t otherwise)."""
    d = x - y
    low, high = t_interval(d, confidence)
    constant = _constant_p(d)
    if test == "bootstrap":
        from ..significance import paired_bootstrap_ci

        if constant is None:
            ci = paired_bootstrap_ci(x, y, confidence=confidence, n_resamples=n_resamples,
                                     method=bootstrap_method, seed=rng)
            return _bootstrap_p(d, n_resamples, rng), ci.ci_low, ci.ci_high
        return constant, float(d[0]), float(d[0])
    if constant is not None:
        return constant, low, high
    if test == "t":
        from ..significance import paired_t_test

        p = paired_t_test(x, y, confidence=confidence).p_value
    elif test == "wilcoxon":
        from scipy.stats import wilcoxon

        p = float(wilcoxon(x, y, zero_method="wilcox").pvalue)
    else:
        from ..significance import paired_permutation_test

        p = paired_permutation_test(x, y, n_resamples=n_resamples, seed=rng).p_value
    return float(p), low, high


def two_way_mse(values: np.ndarray) -> tuple[float, int]:
    """Residual mean square and its degrees of freedom of the two-way ANOVA
    without replication (users x systems) of an ``(n, m)`` matrix."""
    n, m = values.shape
    residuals = (values - values.mean(axis=1, keepdims=True)
                 - values.mean(axis=0, keepdims=True) + values.mean())
    df = (n - 1) * (m - 1)
    return float(np.sum(residuals ** 2)) / df, df


def tukey_p_values(means: np.ndarray, mse: float, n: int, df: int, pairs) -> np.ndarray:
    """Tukey HSD p-values of ``pairs`` of group means, each of ``n`` values.

    The studentised range statistic :math:`q = |\\bar x_i - \\bar x_j| /
    \\sqrt{\\mathrm{MSE} / n}` against the studentised range distribution
    of ``len(means)`` groups and ``df`` degrees of freedom.
    """
    from scipy.stats import studentized_range

    k = means.size
    diffs = np.array([abs(means[i] - means[j]) for i, j in pairs], dtype=float)
    if mse == 0:  # no residual noise: any difference is certain, none is chance
        return np.where(diffs > 0, 0.0, 1.0)
    q = diffs / math.sqrt(mse / n)
    return np.minimum(1.0, studentized_range.sf(q, k, df))


def tukey_intervals(means: np.ndarray, mse: float, n: int, df: int, pairs,
                    confidence: float) -> list[tuple[float, float]]:
    """Simultaneous Tukey HSD intervals of ``means[i] - means[j]`` for ``pairs``.

    Each is :math:`\\bar x_i - \\bar x_j \\pm q_{c;\\,k,\\,df} \\sqrt{\\mathrm{MSE}/n}`,
    :math:`q_{c;\\,k,\\,df}` being the ``confidence`` quantile of the studentised
    range of ``k = len(means)`` groups: all pairs are covered at once with
    probability ``confidence`` (a point interval when the MSE is 0).
    """
    from scipy.stats import studentized_range

    half = 0.0
    if mse > 0:
        half = float(studentized_range.ppf(confidence, means.size, df)) * math.sqrt(mse / n)
    return [(float(means[i] - means[j]) - half, float(means[i] - means[j]) + half)
            for i, j in pairs]


def tukey_hsd_intervals(values: np.ndarray, pairs, confidence: float):
    """Simultaneous Tukey HSD intervals of ``pairs`` of columns of an ``(n users,
    m systems)`` matrix, with the two-way ANOVA's residual as in :func:`tukey_hsd`."""
    mse, df = two_way_mse(values)
    return tukey_intervals(values.mean(axis=0), mse, values.shape[0], df, pairs, confidence)


def tukey_hsd(values: np.ndarray, pairs) -> np.ndarray:
    """Tukey HSD p-values of ``pairs`` of columns of an ``(n users, m systems)``
    matrix, the error term being the two-way ANOVA's residual (users are a
    block factor)."""
    mse, df = two_way_mse(values)
    return tukey_p_values(values.mean(axis=0), mse, values.shape[0], df, pairs)


def randomised_tukey_hsd(values: np.ndarray, pairs, n_resamples: int, rng) -> np.ndarray:
    """Randomised Tukey HSD p-values of ``pairs`` of columns of ``values``.

    Each trial shuffles the ``m`` values of every user (row) independently
    among the systems and records the range (largest minus smallest) of the
    system means; the p-value of a pair is the share of trials whose range
    is at least the pair's observed absolute difference, the observed data
    counted as one trial (``(count + 1) / (n_resamples + 1)``).
    """
    n, m = values.shape
    observed = np.array([abs(values[:, i].mean() - values[:, j].mean())
                         for i, j in pairs], dtype=float)
    tolerance = 100 * np.finfo(float).eps * np.abs(values).max(initial=0.0)
    counts = np.zeros(len(observed), dtype=np.int64)
    batch = max(1, _BATCH_CELLS // (n * m))
    for start in range(0, n_resamples, batch):
        size = min(batch, n_resamples - start)
        shuffled = rng.permuted(np.broadcast_to(values, (size, n, m)), axis=2)
        means = shuffled.mean(axis=1)
        ranges = means.max(axis=1) - means.min(axis=1)
        counts += np.count_nonzero(ranges[:, None] >= observed[None, :] - tolerance,
                                   axis=0)
    return (counts + 1) / (n_resamples + 1)
