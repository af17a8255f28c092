"""Errors of predicted ratings: RMSE and MAE."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import check_real_array, check_same_length, id_list, ids_kind

__all__ = ["rmse", "mae"]


def _pair(y_true, y_pred):
    truth = check_real_array("y_true", y_true)
    pred = check_real_array("y_pred", y_pred)
    check_same_length("y_true", truth, "y_pred", pred)
    return truth, pred


def _group_codes(groups, n: int) -> np.ndarray:
    """Integer codes 0..G-1 for the group labels (user ids, say)."""
    if isinstance(groups, (str, bytes)) or np.isscalar(groups) or groups is None:
        raise TypeError("groups must be a sequence with one label per rating; got "
                        f"{type(groups).__name__}")
    labels = id_list(groups)
    try:
        codes, _ = pd.factorize(pd.Series(labels, dtype=object))
    except TypeError:
        raise TypeError("groups must contain hashable labels (user ids)") from None
    if codes.size != n:
        raise ValueError(f"groups must have one label per rating: got {codes.size} labels "
                         f"for {n} ratings")
    if np.any(codes < 0):
        raise ValueError("groups contains a missing label (None or NaN)")
    ids_kind("groups", labels)  # "1" and 1 would be two groups
    return codes


def _mean_per_group(values: np.ndarray, groups, root: bool) -> float:
    """Macro average: the metric within each group, then the mean over groups."""
    codes = _group_codes(groups, values.size)
    sums = np.bincount(codes, weights=values)
    counts = np.bincount(codes)
    per_group = sums / counts
    if root:
        per_group = np.sqrt(per_group)
    return float(per_group.mean())


def rmse(y_true, y_pred, *, groups=None):
    """Root mean squared error between true and predicted ratings.

    Parameters
    ----------
    y_true : sequence of float
        Observed ratings.
    y_pred : sequence of float
        Predicted ratings, aligned with ``y_true``.
    groups : sequence of hashable, optional
        One label per rating (typically the user id). When given, RMSE is
        computed within each group and the mean over groups is returned: a
        macro average in which every user counts once. By default the
        average is over all ratings (micro), as in scikit-learn.

    Returns
    -------
    float
        RMSE, in the units of the ratings (>= 0).

    See Also
    --------
    mae

    Notes
    -----
    .. math:: RMSE = \\sqrt{\\frac{1}{n}\\sum_i (y_i - \\hat y_i)^2}

    Squaring weighs large errors more than small ones, so RMSE >= MAE, with
    equality only when every error has the same size. By default the value
    is a micro average over (user, item) pairs, so heavy raters weigh more;
    ``groups=`` gives the per-user (macro) average instead.

    References
    ----------
    .. [1] Bennett and Lanning, "The Netflix Prize", KDD Cup 2007.

    Examples
    --------
    >>> from metrics_lib import rmse
    >>> rmse([4, 3, 5], [3.5, 3, 3])
    1.190238071...
    >>> rmse([4, 3, 5], [3.5, 3, 3], groups=["ann", "ann", "bob"])  # (0.3536 + 2) / 2
    1.176776695...
    """
    truth, pred = _pair(y_true, y_pred)
    squared = (truth - pred) ** 2
    if groups is not None:
        return _mean_per_group(squared, groups, root=True)
    return float(np.sqrt(np.mean(squared)))


def mae(y_true, y_pred, *, groups=None):
    """Mean absolute error between true and predicted ratings.

    Parameters
    ----------
    y_true : sequence of float
        Observed ratings.
    y_pred : sequence of float
        Predicted ratings, aligned with ``y_true``.
    groups : sequence of hashable, optional
        One label per rating (typically the user id). When given, MAE is
        computed within each group and averaged over groups (macro).

    Returns
    -------
    float
        MAE, in the units of the ratings (>= 0).

    See Also
    --------
    rmse

    Notes
    -----
    .. math:: MAE = \\frac{1}{n}\\sum_i |y_i - \\hat y_i|

    References
    ----------
    .. [1] Herlocker et al., "Evaluating collaborative filtering recommender
       systems", ACM TOIS 22(1), 2004.

    Examples
    --------
    >>> from metrics_lib import mae
    >>> round(mae([4, 3, 5], [3.5, 3, 3]), 4)
    0.8333
    >>> mae([4, 3, 5], [3.5, 3, 3], groups=["ann", "ann", "bob"])  # (0.25 + 2) / 2
    1.125
    """
    truth, pred = _pair(y_true, y_pred)
    absolute = np.abs(truth - pred)
    if groups is not None:
        return _mean_per_group(absolute, groups, root=False)
    return float(np.mean(absolute))
