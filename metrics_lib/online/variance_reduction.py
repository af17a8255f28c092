"""The difference of means adjusted with pre-period covariates (CUPED, Deng,
Xu, Kohavi & Walker 2013), which removes the variance the covariates
explain: ``cuped_test``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import (show, check_choice, check_open_unit, check_real_array,
                           check_real_matrix, check_same_length, check_same_users,
                           check_user_index)
from .significance import paired_values
from ._inference import ALTERNATIVES, _p_value_and_interval


@dataclass(frozen=True)
class CupedTest:
    """Result of :func:`cuped_test`.

    Attributes
    ----------
    mean_control, mean_treatment : float
        Unadjusted means of the metric.
    adjusted_mean_control, adjusted_mean_treatment : float
        Means after the adjustment ``y - theta * (x - mean(x))`` (a sum over
        the covariates when there are several), with ``mean(x)`` over both
        groups together.
    theta : float or tuple of float
        Regression coefficient of the metric on the covariate (pooled
        within-group slope); a tuple, one per column, when the covariates
        were given as a 2-D array or DataFrame.
    difference : float
        ``adjusted_mean_treatment - adjusted_mean_control``.
    std_error : float
        Standard error of ``difference``.
    ci_low, ci_high : float
        Confidence interval of ``difference``.
    z, p_value : float
        ``difference / std_error`` and its p-value.
    unadjusted_difference, unadjusted_std_error : float
        The same difference and standard error without the covariate.
    variance_reduction : float
        ``1 - std_error**2 / unadjusted_std_error**2``: the share of the
        variance of the difference the covariate removed.
    confidence : float
        Confidence level of the interval.
    alternative : str
        ``"two-sided"``, ``"greater"`` or ``"less"``.
    """

    mean_control: float
    mean_treatment: float
    adjusted_mean_control: float
    adjusted_mean_treatment: float
    theta: float
    difference: float
    std_error: float
    ci_low: float
    ci_high: float
    z: float
    p_value: float
    unadjusted_difference: float
    unadjusted_std_error: float
    variance_reduction: float
    confidence: float
    alternative: str


# ----------------------------------------------------------------------------
# CUPED
# ----------------------------------------------------------------------------
def _metric_and_covariates(name_y, y, name_x, x):
    """Per-user metric and covariate matrix (n, p); ``x`` 1-D or 2-D.

    A 1-D covariate goes through ``significance.paired_values`` (one
    covariate, as before); a 2-D array or DataFrame has one column per covariate, and a
    DataFrame is matched to a Series metric on the index.
    """
    import pandas as pd

    if isinstance(x, pd.Series) or not (isinstance(x, pd.DataFrame) or _is_2d(x)):
        # sums in the caller's order: Series give the same bits as their arrays
        yv, xv = paired_values(name_y, y, name_x, x, user_order=False)
        return yv, xv[:, None], None
    keyed_y, keyed_x = isinstance(y, pd.Series), isinstance(x, pd.DataFrame)
    if keyed_y != keyed_x:
        raise TypeError(f"{name_y} and {name_x} must be both pandas (a Series and a "
                        "DataFrame matched on the user index) or both plain arrays in "
                        "the same user order")
    yv = check_real_array(name_y, y, min_size=2)
    if keyed_x:
        try:  # nullable columns: a missing value becomes NaN, refused below
            x_values = x.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError):
            raise TypeError(f"{name_x} must contain only numbers") from None
    xv = check_real_matrix(name_x, x_values if keyed_x else x)
    if keyed_y:
        check_user_index(name_y, y.index)
        check_user_index(name_x, x.index)
        return yv, xv[check_same_users(name_y, y.index, name_x, x.index)], list(x.columns)
    check_same_length(name_y, yv, name_x, xv)
    return yv, xv, None


def _is_2d(x):
    try:
        return np.ndim(x) >= 2  # 3-D too: check_real_matrix names the shape
    except ValueError:  # a ragged nested list: let check_real_matrix say so
        return True


def _pooled_slopes(xs, ys):
    """Pooled within-group least-squares coefficients of y on the columns of x."""
    centred = [x - x.mean(axis=0) for x in xs]
    sxx = sum(d.T @ d for d in centred)
    sxy = sum(d.T @ (y - y.mean()) for d, y in zip(centred, ys))
    if sxx.shape == (1, 1):
        if sxx[0, 0] <= 0:
            raise ValueError("the covariate is constant within both groups, so it "
                             "explains nothing and theta is undefined")
        return sxy / sxx[0, 0]
    if np.linalg.matrix_rank(np.vstack(centred)) < sxx.shape[0]:
        raise ValueError("the covariates are collinear within the groups (or one is "
                         "constant), so theta is not unique; drop the redundant ones")
    return np.linalg.solve(sxx, sxy)


def cuped_test(metric_control, covariate_control, metric_treatment,
               covariate_treatment, *, confidence=0.95, alternative="two-sided"):
    """Difference of means with CUPED variance reduction (pre-period covariates).

    Parameters
    ----------
    metric_control : array-like of float
        Per-user metric during the experiment, control group, at least two
        users.
    covariate_control : array-like of float, 2-D array or DataFrame
        The same users' covariate from before the experiment (typically the
        same metric in a pre-period): one value per user, or one column per
        covariate (regression adjustment with several covariates). Two
        pandas objects (a Series metric with a Series or DataFrame
        covariate) are matched on their index (the same users, each once);
        arrays pair by position.
    metric_treatment, covariate_treatment : array-like of float
        The same for the treatment group, with the same covariates.
    confidence : float, default=0.95
        Confidence level of the interval.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        Alternative hypothesis about the treatment minus control difference.

    Returns
    -------
    CupedTest
        Unadjusted and adjusted means, ``theta``, the adjusted difference
        with its standard error, interval and test, and the variance
        reduction achieved.

    Raises
    ------
    TypeError
        If an input is not numeric, or one of a pair is pandas and the
        other a plain sequence.
    ValueError
        On missing or non-finite values, mismatched lengths or users,
        fewer than two users, covariates that differ between the groups,
        a covariate constant (or covariates collinear) within the groups,
        or a zero standard error.

    Notes
    -----
    CUPED [1]_ replaces each user's metric :math:`y` by
    :math:`y - \\theta^\\top (x - \\bar x)`, where :math:`x` holds
    covariates that the treatment cannot have affected (measured before
    the experiment) and :math:`\\bar x` their means over both groups. Any
    :math:`\\theta` keeps the difference of means unbiased; the variance is
    smallest at the regression coefficients, and the variance of the
    difference falls by the share :math:`R^2` the covariates explain
    (:math:`\\rho^2` for one).

    Here :math:`\\theta` solves the pooled within-group least squares
    :math:`\\big(\\sum_g D_g^\\top D_g\\big)\\theta = \\sum_g D_g^\\top
    (y_g - \\bar y_g)`, :math:`D_g` the covariates of group :math:`g`
    centred on the group's means, so the adjusted difference equals the
    treatment coefficient of the regression ``y ~ 1 + treatment + x``
    exactly: regression adjustment [2]_ (Deng et al. estimate
    :math:`\\theta` from the pooled data; both are consistent under
    randomisation, and Lin's interacted regression can be more efficient
    when the groups differ in size and slope [2]_). The standard error is
    the unpooled one, :math:`\\sqrt{s^2_{C}/n_C + s^2_{T}/n_T}` of the
    adjusted values, which does not assume equal variances in the two
    groups and treats :math:`\\theta` as known (its estimation changes the
    variance by a factor :math:`1 + O(p/n)`). Users without a pre-period
    value need a covariate anyway (0, with an indicator covariate, is the
    usual choice [1]_); the function refuses missing values.

    A zero standard error (every unit of each group alike) raises
    ``ValueError``: z and the p-value are undefined.

    Cost: :math:`O(n p^2 + p^3)` time and :math:`O(n p)` memory for
    :math:`n` users and :math:`p` covariates.

    References
    ----------
    .. [1] A. Deng, Y. Xu, R. Kohavi and T. Walker, "Improving the
       sensitivity of online controlled experiments by utilizing
       pre-experiment data", WSDM 2013.
    .. [2] W. Lin, "Agnostic notes on regression adjustments to
       experimental data: Reexamining Freedman's critique", Annals of
       Applied Statistics 7(1), 295-318, 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics_lib import cuped_test
    >>> rng = np.random.default_rng(1)
    >>> pre_a, pre_b = rng.gamma(2, 5, 1000), rng.gamma(2, 5, 1000)
    >>> y_a = pre_a + rng.normal(0, 3, 1000)
    >>> y_b = pre_b + 0.5 + rng.normal(0, 3, 1000)
    >>> res = cuped_test(y_a, pre_a, y_b, pre_b)
    >>> round(res.theta, 3), round(res.difference, 3)
    (1.006, 0.702)
    >>> round(res.variance_reduction, 3), round(res.unadjusted_std_error, 3)
    (0.851, 0.345)

    Two covariates, one column each (``theta`` is then a tuple):

    >>> two_a = np.column_stack([pre_a, rng.normal(size=1000)])
    >>> two_b = np.column_stack([pre_b, rng.normal(size=1000)])
    >>> res2 = cuped_test(y_a, two_a, y_b, two_b)
    >>> len(res2.theta), round(res2.theta[0], 3)
    (2, 1.006)
    """
    gamma = check_open_unit("confidence", confidence)
    check_choice("alternative", alternative, ALTERNATIVES)
    yc, xc, cols_c = _metric_and_covariates("metric_control", metric_control,
                                            "covariate_control", covariate_control)
    yt, xt, cols_t = _metric_and_covariates("metric_treatment", metric_treatment,
                                            "covariate_treatment", covariate_treatment)
    if xc.shape[1] != xt.shape[1] or (cols_c is not None and cols_t is not None
                                      and cols_c != cols_t):
        raise ValueError("covariate_control and covariate_treatment must hold the "
                         f"same covariates; got {show(cols_c or xc.shape[1])} and "
                         f"{show(cols_t or xt.shape[1])} columns")
    one = np.ndim(covariate_control) == 1  # one covariate: theta stays a float
    theta = _pooled_slopes([xc, xt], [yc, yt])
    x_all = np.concatenate([xc, xt]).mean(axis=0)
    adj_c = yc - (xc - x_all) @ theta
    adj_t = yt - (xt - x_all) @ theta
    nc, nt = yc.size, yt.size
    diff = float(adj_t.mean() - adj_c.mean())
    se = math.sqrt(adj_c.var(ddof=1) / nc + adj_t.var(ddof=1) / nt)
    raw_diff = float(yt.mean() - yc.mean())
    raw_se = math.sqrt(yc.var(ddof=1) / nc + yt.var(ddof=1) / nt)
    z, p, low, high = _p_value_and_interval(
        diff, se, gamma, alternative, "every unit of each group has the same "
        "CUPED-adjusted value")
    reduction = 1.0 - se ** 2 / raw_se ** 2 if raw_se > 0 else math.nan
    return CupedTest(mean_control=float(yc.mean()), mean_treatment=float(yt.mean()),
                     adjusted_mean_control=float(adj_c.mean()),
                     adjusted_mean_treatment=float(adj_t.mean()),
                     theta=float(theta[0]) if one else tuple(float(v) for v in theta),
                     difference=diff, std_error=se, ci_low=low, ci_high=high, z=z,
                     p_value=p, unadjusted_difference=raw_diff,
                     unadjusted_std_error=raw_se, variance_reduction=reduction,
                     confidence=gamma, alternative=alternative)
