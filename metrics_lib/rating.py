"""Errors of predicted ratings: RMSE and MAE."""

from __future__ import annotations

import numpy as np

from ._validation import check_real_array, check_same_length

__all__ = ["rmse", "mae"]


def _pair(y_true, y_pred):
    truth = check_real_array("y_true", y_true)
    pred = check_real_array("y_pred", y_pred)
    check_same_length("y_true", truth, "y_pred", pred)
    return truth, pred


def rmse(y_true, y_pred):
    """Root mean squared error between true and predicted ratings.

    Parameters
    ----------
    y_true : sequence of float
        Observed ratings.
    y_pred : sequence of float
        Predicted ratings, aligned with ``y_true``.

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
    equality only when every error has the same size. The value is a micro
    average over (user, item) pairs: heavy raters weigh more.

    References
    ----------
    .. [1] Bennett and Lanning, "The Netflix Prize", KDD Cup 2007.

    Examples
    --------
    >>> from metrics_lib import rmse
    >>> rmse([4, 3, 5], [3.5, 3, 3])
    1.190238071...
    """
    truth, pred = _pair(y_true, y_pred)
    return float(np.sqrt(np.mean((truth - pred) ** 2)))


def mae(y_true, y_pred):
    """Mean absolute error between true and predicted ratings.

    Parameters
    ----------
    y_true : sequence of float
        Observed ratings.
    y_pred : sequence of float
        Predicted ratings, aligned with ``y_true``.

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
    """
    truth, pred = _pair(y_true, y_pred)
    return float(np.mean(np.abs(truth - pred)))
