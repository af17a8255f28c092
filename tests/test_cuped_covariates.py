"""cuped_test with several covariates (regression adjustment): statsmodels OLS
of the metric on treatment and centred covariates on random data, pandas
inputs matched by user, one covariate unchanged, clear errors."""

import math

import numpy as np
import pandas as pd
import pytest

from metrics_lib import cuped_test

sm = pytest.importorskip("statsmodels.api")
weightstats = pytest.importorskip("statsmodels.stats.weightstats")


def _data(seed, p):
    rng = np.random.default_rng(seed)
    n_c, n_t = rng.integers(30, 400, 2)
    mix = rng.normal(size=(p, p))  # correlated covariates
    x_c = rng.gamma(2.0, 2.0, (n_c, p)) @ mix
    x_t = rng.gamma(2.0, 2.0, (n_t, p)) @ mix + rng.normal(0, 0.3, p)
    beta = rng.normal(size=p)
    y_c = x_c @ beta + rng.normal(0, 2.0, n_c)
    y_t = 0.4 + x_t @ beta + rng.normal(0, 3.0, n_t)  # unequal variances
    return y_c, x_c, y_t, x_t


@pytest.mark.parametrize("seed", range(30))
def test_several_covariates_equal_ols(seed):
    p = 1 + seed % 5
    y_c, x_c, y_t, x_t = _data(seed, p)
    res = cuped_test(y_c, x_c, y_t, x_t)
    y = np.concatenate([y_c, y_t])
    treat = np.r_[np.zeros(y_c.size), np.ones(y_t.size)]
    x = np.vstack([x_c, x_t])
    fit = sm.OLS(y, sm.add_constant(np.column_stack([treat, x - x.mean(axis=0)]))).fit()
    scale = max(1.0, abs(fit.params[1]))
    assert abs(res.difference - fit.params[1]) < 1e-10 * scale
    np.testing.assert_allclose(res.theta, fit.params[2:], rtol=1e-9, atol=1e-10)
    assert len(res.theta) == p
    # the documented standard error: Welch's unpooled one of the adjusted
    # values, here from statsmodels' CompareMeans on the OLS adjustment
    adj_c = y_c - (x_c - x.mean(axis=0)) @ fit.params[2:]
    adj_t = y_t - (x_t - x.mean(axis=0)) @ fit.params[2:]
    welch = weightstats.CompareMeans(weightstats.DescrStatsW(adj_t),
                                     weightstats.DescrStatsW(adj_c)).std_meandiff_separatevar
    assert res.std_error == pytest.approx(welch, rel=1e-10)
    # the intercept of the centred regression is the adjusted control mean
    assert res.adjusted_mean_control == pytest.approx(fit.params[0], rel=1e-10, abs=1e-10)
    assert res.variance_reduction == pytest.approx(1 - res.std_error ** 2
                                                   / res.unadjusted_std_error ** 2)


def test_one_covariate_as_a_column_equals_the_1d_call():
    y_c, x_c, y_t, x_t = _data(5, 1)
    flat = cuped_test(y_c, x_c[:, 0], y_t, x_t[:, 0])
    column = cuped_test(y_c, x_c, y_t, x_t)
    assert isinstance(flat.theta, float) and isinstance(column.theta, tuple)
    assert column.theta[0] == pytest.approx(flat.theta, rel=1e-12)
    for name in ("difference", "std_error", "p_value", "ci_low", "ci_high",
                 "adjusted_mean_control", "variance_reduction"):
        assert getattr(column, name) == pytest.approx(getattr(flat, name), rel=1e-12)


def test_dataframes_are_matched_on_the_user_index():
    y_c, x_c, y_t, x_t = _data(8, 3)
    cols = ["pre_clicks", "pre_sessions", "tenure"]
    users_c = np.arange(y_c.size, dtype=np.int64) * 7 + 2**40
    users_t = np.arange(y_t.size, dtype=np.int64) * 5 + 2**41
    frame_c = pd.DataFrame(x_c, columns=cols, index=users_c)
    frame_t = pd.DataFrame(x_t, columns=cols, index=users_t).astype("Float64")
    order_c = np.random.default_rng(0).permutation(y_c.size)
    got = cuped_test(pd.Series(y_c, index=users_c).iloc[order_c], frame_c,
                     pd.Series(y_t, index=users_t), frame_t.iloc[::-1])
    expected = cuped_test(y_c, x_c, y_t, x_t)
    assert got.difference == pytest.approx(expected.difference, rel=1e-12)
    assert got.std_error == pytest.approx(expected.std_error, rel=1e-12)
    np.testing.assert_allclose(got.theta, expected.theta, rtol=1e-10)


def test_several_covariates_errors_and_no_mutation():
    y_c, x_c, y_t, x_t = _data(9, 2)
    copies = [a.copy() for a in (y_c, x_c, y_t, x_t)]
    cuped_test(y_c, x_c, y_t, x_t)
    assert all(np.array_equal(a, b) for a, b in zip((y_c, x_c, y_t, x_t), copies))
    with pytest.raises(ValueError, match="must hold the same covariates"):
        cuped_test(y_c, x_c, y_t, x_t[:, :1])
    with pytest.raises(ValueError, match="collinear"):
        cuped_test(y_c, np.column_stack([x_c[:, 0], 2 * x_c[:, 0]]),
                   y_t, np.column_stack([x_t[:, 0], 2 * x_t[:, 0]]))
    with pytest.raises(ValueError, match="metric_control and covariate_control"):
        cuped_test(y_c, x_c[:-1], y_t, x_t)
    bad = x_t.copy()
    bad[3, 1] = math.nan
    with pytest.raises(ValueError, match="covariate_treatment contains a non-finite"):
        cuped_test(y_c, x_c, y_t, bad)
    with pytest.raises(TypeError, match="both pandas"):
        cuped_test(pd.Series(y_c), x_c, y_t, x_t)
    with pytest.raises(ValueError, match="same covariates"):
        cuped_test(pd.Series(y_c), pd.DataFrame(x_c, columns=["a", "b"]),
                   pd.Series(y_t), pd.DataFrame(x_t, columns=["a", "c"]))
    with pytest.raises(ValueError, match="covariate_control must be 2-dimensional"):
        cuped_test(y_c, x_c[None], y_t, x_t)


def test_nullable_frame_with_a_missing_value_is_refused():
    y = pd.Series(np.arange(6.0))
    x = pd.DataFrame({"a": pd.array([1, 2, None, 4, 5, 7], dtype="Float64"),
                      "b": pd.array([1, 3, 2, 5, 4, 4], dtype="Int64")})
    with pytest.raises(ValueError, match="covariate_control contains a non-finite value"):
        cuped_test(y, x, y, x.fillna(3.0))
    with pytest.raises(TypeError, match="covariate_treatment must contain only numbers"):
        cuped_test(y, x.fillna(3.0), y, x.assign(a=list("abcdef")))
