"""Paired tests pair by user (issue 22, point 4).

Series are matched on their index, per-user tables (pandas, Polars, Arrow)
on their user column, arrays by position. Each result is compared with
scipy on the data aligned by hand, and reordering either input must change
nothing, not even a seeded resample.
"""

import dataclasses
import math

import metrics_lib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics_lib import (evaluate, paired_bootstrap_ci, paired_permutation_test,
                         paired_t_test)

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")


def _users(rng, n, kind):
    if kind == "int64":  # large 64-bit ids: distinct only when kept exact
        return (2 ** 62 + rng.choice(10 ** 6, n, replace=False) * 3).astype(np.int64)
    if kind == "str":
        return np.array([f"u{v}" for v in rng.choice(10 ** 6, n, replace=False)],
                        dtype=object)
    return rng.choice(10 ** 6, n, replace=False).astype(np.int64)


def _sample(seed, kind="int", n=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(3, 40))
    users = _users(rng, n, kind)
    a = rng.random(n).round(int(rng.integers(1, 4)))  # rounding makes ties
    b = np.clip(a + rng.normal(0, 0.2, n), 0, 1).round(2)
    return rng, users, a, b


def _results(a, b, **kw):
    return (paired_t_test(a, b, **kw),
            paired_bootstrap_ci(a, b, n_resamples=499, seed=3, **kw),
            paired_permutation_test(a, b, n_resamples=999, seed=3, **kw))


CASES = [(seed, kind) for seed in range(40) for kind in ("int", "int64", "str")]


@pytest.mark.parametrize("seed,kind", CASES)
def test_shuffled_series_give_identical_results(seed, kind):
    rng, users, a, b = _sample(seed, kind)
    if np.all(a == b) or np.std(a - b) == 0:
        pytest.skip("zero variance")
    sa, sb = pd.Series(a, index=users), pd.Series(b, index=users)
    expected = _results(sa, sb)
    pa_, pb_ = rng.permutation(len(a)), rng.permutation(len(a))
    assert _results(sa.iloc[pa_], sb.iloc[pb_]) == expected
    # the reference: scipy on the values aligned by user (here in user order)
    order = np.argsort(users)
    x, y = a[order], b[order]
    t, boot, perm = expected
    ref = stats.ttest_rel(x, y)
    assert math.isclose(t.statistic, ref.statistic, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(t.p_value, ref.pvalue, rel_tol=1e-9, abs_tol=1e-15)
    scipy_boot = stats.bootstrap((x - y,), np.mean, n_resamples=499,
                                 method="percentile", rng=np.random.default_rng(3),
                                 vectorized=True)
    assert math.isclose(boot.ci_low, scipy_boot.confidence_interval.low, abs_tol=1e-12)
    assert math.isclose(boot.ci_high, scipy_boot.confidence_interval.high, abs_tol=1e-12)
    assert perm.mean_difference == pytest.approx(float(np.mean(x - y)), abs=1e-12)


@pytest.mark.parametrize("seed", range(15))
def test_exact_permutation_matches_scipy_on_aligned_series(seed):
    rng, users, a, b = _sample(seed, n=int(np.random.default_rng(seed).integers(3, 11)))
    sa = pd.Series(a, index=users)
    sb = pd.Series(b, index=users).sample(frac=1, random_state=seed)
    got = paired_permutation_test(sa, sb, n_resamples=4096)
    assert got.exact
    ref = stats.permutation_test((a, b), lambda x, y, axis: np.mean(x - y, axis=axis),
                                 permutation_type="samples", n_resamples=np.inf,
                                 vectorized=True)
    assert got.p_value == pytest.approx(ref.pvalue, rel=1e-9)


def test_reordered_series_matter_on_positions_but_not_on_users():
    # the case: one input shuffled changed t when pairing by position
    a = pd.Series([0.5, 0.7, 0.2, 0.9, 0.1], index=[1, 2, 3, 4, 5])
    b = pd.Series([0.4, 0.5, 0.2, 0.6, 0.3], index=[1, 2, 3, 4, 5])
    shuffled = b.iloc[[4, 2, 0, 3, 1]]
    assert paired_t_test(a, shuffled) == paired_t_test(a, b)
    assert paired_t_test(a.to_numpy(), shuffled.to_numpy()) != paired_t_test(a, b)


def _evaluate_inputs(seed, n_users=30):
    rng = np.random.default_rng(seed)
    users = (2 ** 53 + np.arange(n_users)).astype(np.int64)  # beyond float64
    rec = pd.DataFrame({"user": np.repeat(users, 5),
                        "item": rng.integers(0, 20, n_users * 5),
                        "score": rng.random(n_users * 5)})
    rec = rec.drop_duplicates(["user", "item"])
    truth = pd.DataFrame({"user": np.repeat(users, 3), "item": rng.integers(0, 20, n_users * 3),
                          "relevance": 1}).drop_duplicates(["user", "item"])
    other = pd.DataFrame({"user": np.repeat(users, 5),
                          "item": rng.integers(0, 20, n_users * 5),
                          "score": rng.random(n_users * 5)}).drop_duplicates(["user", "item"])
    return rec, other, truth


@pytest.mark.parametrize("backend", ["pandas", "polars", "pyarrow"])
def test_evaluate_results_of_every_backend(backend):
    rec, other, truth = _evaluate_inputs(0)
    convert = {"pandas": lambda f: f, "polars": pl.from_pandas,
               "pyarrow": lambda f: pa.Table.from_pandas(f, preserve_index=False)}[backend]
    metrics = ["ndcg@10", "precision@5"]
    res_a = evaluate(convert(rec), convert(truth), metrics)
    res_b = evaluate(convert(other.sample(frac=1, random_state=1)), convert(truth), metrics)
    base_a = evaluate(rec, truth, metrics)
    base_b = evaluate(other, truth, metrics)
    for metric in metrics:
        x = base_a[metric]
        y = base_b[metric].loc[x.index]
        expected = stats.ttest_rel(x.to_numpy(), y.to_numpy())
        got = paired_t_test(res_a, res_b, metric=metric)
        assert got.statistic == pytest.approx(expected.statistic, rel=1e-9)
        assert got == paired_t_test(x, base_b[metric])
    with pytest.raises(ValueError, match="metric="):
        paired_t_test(res_a, res_b)
    # one value column: chosen without metric=
    single_a = evaluate(convert(rec), convert(truth), ["ndcg@10"])
    single_b = evaluate(convert(other), convert(truth), ["ndcg@10"])
    assert paired_t_test(single_a, single_b) == paired_t_test(res_a, res_b, metric="ndcg@10")


def test_table_with_another_user_column():
    a = pl.DataFrame({"uid": [3, 1, 2], "v": [0.3, 0.1, 0.5]})
    b = pl.DataFrame({"uid": [1, 2, 3], "v": [0.0, 0.2, 0.1]})
    got = paired_t_test(a, b, user_col="uid")
    ref = stats.ttest_rel([0.1, 0.5, 0.3], [0.0, 0.2, 0.1])
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
    with pytest.raises(ValueError, match="user_col="):
        paired_t_test(a, b)


def test_arrays_pair_by_position():
    rng = np.random.default_rng(5)
    x, y = rng.random(25), rng.random(25)
    ref = stats.ttest_rel(x, y)
    got = paired_t_test(list(x), y)
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert got.p_value == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.parametrize("function", [paired_t_test, paired_bootstrap_ci,
                                      paired_permutation_test])
def test_refusals_name_the_argument(function):
    a = pd.Series([0.1, 0.5, 0.3], index=[1, 2, 3])
    with pytest.raises(ValueError, match=r"same users.*not in b \[3\].*not in a \[4\]"):
        function(a, pd.Series([0.2, 0.1, 0.0], index=[1, 2, 4]))
    with pytest.raises(ValueError, match="b holds user 2 more than once"):
        function(a, pd.Series([0.2, 0.1, 0.0], index=[1, 2, 2]))
    with pytest.raises(ValueError, match="a holds user 1 more than once"):
        function(pd.Series([0.2, 0.1, 0.0], index=[1, 1, 2]), a)
    with pytest.raises(TypeError, match="a carries user ids .* b is a plain sequence"):
        function(a, [0.2, 0.1, 0.0])
    with pytest.raises(TypeError, match="integer ids in the index of a but string ids "
                                        "in the index of b"):  # ids of another kind
        function(a, pd.Series([0.2, 0.1, 0.0], index=["1", "2", "3"]))
    with pytest.raises(ValueError, match="metric="):
        function([0.1, 0.2, 0.3], [0.0, 0.1, 0.1], metric="ndcg@10")
    table = pl.DataFrame({"user": [1, 2, 3], "x": [0.1, 0.2, 0.3], "y": [0.0, 0.1, 0.1]})
    with pytest.raises(ValueError, match="a has 2 value columns.*metric="):
        function(table, table)
    with pytest.raises(ValueError, match="a has no column 'z'"):
        function(table, table, metric="z")
    twice = pl.DataFrame({"user": [1, 2, 2], "x": [0.1, 0.2, 0.3]})
    with pytest.raises(ValueError, match="b holds user 2 more than once"):
        function(twice.with_columns(pl.Series("user", [1, 2, 3])), twice)
    missing = pa.table({"user": [1, None, 3], "x": [0.1, 0.2, 0.3]})
    with pytest.raises(ValueError, match="missing id"):
        function(missing, missing)


def test_inputs_are_not_mutated():
    a = pd.Series([0.1, 0.5, 0.3, 0.9], index=[4, 2, 3, 1])
    b = pd.Series([0.2, 0.1, 0.0, 0.4], index=[1, 2, 3, 4])
    a0, b0 = a.copy(), b.copy()
    _results(a, b)
    pd.testing.assert_series_equal(a, a0)
    pd.testing.assert_series_equal(b, b0)


# ---------------------------------------------------------------------------
# experiments: numerators/denominators and metric/covariate pair by user too
# ---------------------------------------------------------------------------
from metrics_lib import cuped_test, ratio_metric, ratio_metric_test  # noqa: E402


def _ratio_users(seed, n=80):
    rng = np.random.default_rng(seed)
    users = _users(rng, n, ["int", "int64", "str"][seed % 3])
    impressions = rng.poisson(10, n) + 1
    clicks = rng.binomial(impressions, rng.beta(2, 20, n))
    return rng, users, clicks.astype(float), impressions.astype(float)


@pytest.mark.parametrize("seed", range(12))
def test_ratio_metric_matches_series_by_user(seed):
    rng, users, clicks, impressions = _ratio_users(seed)
    x = pd.Series(clicks, index=users)
    y = pd.Series(impressions, index=users).sample(frac=1, random_state=seed)
    got = ratio_metric(x, y)
    # reference: the delta method by hand on the values aligned by user
    ratio = clicks.sum() / impressions.sum()
    n = clicks.size
    variance = np.var(clicks - ratio * impressions, ddof=1) / (n * impressions.mean() ** 2)
    assert got.ratio == pytest.approx(ratio, rel=1e-12)
    assert got.std_error == pytest.approx(math.sqrt(variance), rel=1e-9)
    assert got == ratio_metric(clicks, impressions)
    _, _, clicks_b, impressions_b = _ratio_users(seed + 100)
    xb = pd.Series(clicks_b, index=users + 1 if users.dtype.kind == "i" else users + "b")
    yb = xb.copy()
    yb[:] = impressions_b
    test = ratio_metric_test(x, y, xb, yb.iloc[::-1])
    assert test == ratio_metric_test(clicks, impressions, clicks_b, impressions_b)


@pytest.mark.parametrize("seed", range(12))
def test_cuped_matches_series_by_user_and_ols(seed):
    rng = np.random.default_rng(seed)
    n = 60
    users_c, users_t = _users(rng, n, "int64"), _users(rng, n, "str")
    pre_c, pre_t = rng.gamma(2, 5, n), rng.gamma(2, 5, n)
    y_c, y_t = pre_c + rng.normal(0, 3, n), pre_t + 0.5 + rng.normal(0, 3, n)
    shuffle_c, shuffle_t = rng.permutation(n), rng.permutation(n)
    got = cuped_test(pd.Series(y_c, index=users_c),
                     pd.Series(pre_c, index=users_c).iloc[shuffle_c],
                     pd.Series(y_t, index=users_t).iloc[shuffle_t],
                     pd.Series(pre_t, index=users_t))
    # reference: the treatment coefficient of y ~ 1 + treatment + x (pooled
    # within-group slope), on the values aligned by user
    y = np.r_[y_c, y_t]
    design = np.c_[np.ones(2 * n), np.r_[np.zeros(n), np.ones(n)], np.r_[pre_c, pre_t]]
    coefficients = np.linalg.lstsq(design, y, rcond=None)[0]
    assert got.difference == pytest.approx(coefficients[1], rel=1e-9)
    # the treatment metric came in another order: sums may differ in the last bit
    expected = cuped_test(y_c, pre_c, y_t, pre_t)
    for field in dataclasses.fields(expected):
        value = getattr(expected, field.name)
        if isinstance(value, float):
            assert getattr(got, field.name) == pytest.approx(value, rel=1e-12), field.name


def test_experiment_pairs_refused_by_name():
    x = pd.Series([1.0, 2.0, 3.0], index=[1, 2, 3])
    with pytest.raises(ValueError, match="numerators and denominators must hold the same users"):
        ratio_metric(x, pd.Series([5.0, 5.0, 5.0], index=[1, 2, 4]))
    with pytest.raises(ValueError, match="denominators holds user 2 more than once"):
        ratio_metric(x, pd.Series([5.0, 5.0, 5.0], index=[1, 2, 2]))
    with pytest.raises(TypeError, match="numerators carries user ids .* denominators is a plain"):
        ratio_metric(x, [5.0, 5.0, 5.0])
    with pytest.raises(ValueError, match="metric_treatment and covariate_treatment must hold"):
        cuped_test([1.0, 2.0, 4.0], [1.0, 3.0, 2.0], x, pd.Series([1.0, 2.0, 0.0], index=[3, 4, 5]))


# ---------------------------------------------------------------------------
# review of issue 22 (points 2, 4, 6): the index as users, one helper, messages
# ---------------------------------------------------------------------------
def test_unnamed_range_index_is_not_taken_as_users():
    # two tables with a user_id column in different row orders: an unnamed
    # RangeIndex is row numbers, so pairing by it paired by position (t=0.7276)
    a = pd.DataFrame({"user_id": [1, 2, 3, 4], "ndcg": [.5, .7, .2, .9]})
    b = pd.DataFrame({"user_id": [4, 3, 2, 1], "ndcg": [.6, .2, .5, .4]})
    for function in (paired_t_test, paired_permutation_test, paired_bootstrap_ci):
        with pytest.raises(ValueError, match=r"user_col=.*\['user_id', 'ndcg'\]"):
            function(a, b, metric="ndcg")
    got = paired_t_test(a, b, user_col="user_id")
    ref = stats.ttest_rel([.5, .7, .2, .9], [.4, .5, .2, .6])
    assert math.isclose(got.statistic, ref.statistic, rel_tol=1e-12)
    # a named index (as evaluate's results have) is the users
    named = paired_t_test(a.set_index("user_id"), b.set_index("user_id"))
    assert math.isclose(named.statistic, ref.statistic, rel_tol=1e-12)


def test_value_column_message_names_user_col_not_none():
    a = pd.DataFrame({"v": [.1, .2, .3], "w": [1., 2., 3.]},
                     index=pd.Index([1, 2, 3], name="user"))
    with pytest.raises(ValueError, match="pass metric=") as info:
        paired_t_test(a, a)
    assert "None" not in str(info.value)
    keyed = a.reset_index()
    with pytest.raises(ValueError, match=r"user column 'user' \(user_col=\)"):
        paired_t_test(keyed, keyed)


@pytest.mark.parametrize("index,error,message", [
    ([1, "2", 3], TypeError, "the index of a mixes ids"),
    ([1.0, 2.0, 3.0], TypeError, "the index of a holds floats"),
    (pd.MultiIndex.from_tuples([(1, 1), (1, 2), (2, 1)]), ValueError, "MultiIndex"),
    (pd.Index([1, None, 3], dtype="Int64"), ValueError,
     "missing id at row 1; every row needs a user id "),
])
def test_index_users_get_the_id_checks_of_tables(index, error, message):
    # a mixed index could not be sorted, so a seeded resample followed row order
    a = pd.Series([0.1, 0.5, 0.3], index=index)
    b = pd.Series([0.0, 0.2, 0.4], index=index)
    for function in (paired_t_test, paired_permutation_test, paired_bootstrap_ci):
        with pytest.raises(error, match=message):
            function(a, b)


def test_missing_user_in_a_column_needs_no_item_id():
    a = pd.DataFrame({"user": [1, None, 3], "v": [.1, .2, .3]})
    b = pd.DataFrame({"user": [1, 2, 3], "v": [.1, .2, .4]})
    with pytest.raises(ValueError, match="every row needs a user id ") as info:
        paired_t_test(a, b)
    assert "item" not in str(info.value)


def test_non_finite_value_of_a_series_names_its_user():
    a = pd.Series([np.float64(0.1), np.float64("nan"), 0.3], index=[7, 8, 9])
    b = pd.Series([0.1, 0.2, 0.3], index=[7, 8, 9])
    with pytest.raises(ValueError, match=r"non-finite value nan at index label 8$"):
        paired_t_test(a, b)
    with pytest.raises(ValueError, match=r"non-finite value inf at index 2$"):
        paired_t_test([0.1, 0.2, np.float64("inf")], [0.1, 0.2, 0.3])


def test_numpy_scalars_never_reach_a_message():
    rec = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [.9, .8]})
    truth = pd.DataFrame({"user": [1], "item": [1], "relevance": [2]})
    calls = [
        lambda: evaluate(rec, truth, metrics=["map@10-l2"], convention="ranx",
                         relevance_col="relevance", relevance_level=np.int64(1)),
        lambda: metrics_lib.precision_at_k([1, 2, 3], {1: 1}, k=np.int64(2),
                                           convention="trec_eval",
                                           denominator=np.int64(3)),
        lambda: paired_bootstrap_ci([.1, .2, .3], [.2, .1, .4], n_resamples=np.int64(1)),
        lambda: paired_t_test([.1, .2, .3], [.2, .1, .4], confidence=np.float64(1.5)),
        lambda: ratio_metric([np.int64(1), 2], [np.float64(-1.0), 2.0]),
    ]
    for call in calls:
        with pytest.raises((TypeError, ValueError)) as info:
            call()
        assert "np." not in str(info.value), str(info.value)


def test_experiments_use_the_paired_helper_of_significance():
    # one helper: a table of per-user values is matched by user there too
    x = pd.DataFrame({"user": [3, 1, 2], "clicks": [1.0, 2.0, 0.0]})
    y = pd.DataFrame({"user": [1, 2, 3], "views": [4.0, 5.0, 6.0]})
    got = ratio_metric(x, y)
    assert got == ratio_metric([2.0, 0.0, 1.0], [4.0, 5.0, 6.0])
    with pytest.raises(ValueError, match="numerators has no user column 'user'"):
        ratio_metric(pd.DataFrame({"clicks": [1.0, 2.0]}), pd.DataFrame({"v": [1.0, 2.0]}))


def test_ratio_test_with_a_control_ratio_of_zero_keeps_the_absolute_test():
    clicks_c, views_c = [0, 0, 0, 0], [3, 4, 5, 6]
    clicks_t, views_t = [1, 0, 2, 1], [3, 3, 4, 5]
    got = ratio_metric_test(clicks_c, views_c, clicks_t, views_t)
    rt = sum(clicks_t) / sum(views_t)
    treatment = ratio_metric(clicks_t, views_t)
    # the control group has no variance around 0: the difference's error is
    # the treatment's alone
    assert got.absolute_lift == pytest.approx(rt, rel=1e-12)
    assert got.std_error == pytest.approx(treatment.std_error, rel=1e-12)
    z = rt / treatment.std_error
    assert got.p_value == pytest.approx(2 * stats.norm.sf(z), rel=1e-9)
    assert got.relative_lift == math.inf
    assert (got.relative_ci_low, got.relative_ci_high) == (-math.inf, math.inf)
    # as two_proportion_test says of a control rate of 0
    assert metrics_lib.two_proportion_test(0, 18, 4, 15).relative_lift == math.inf


def test_zero_standard_error_messages_say_what_it_means():
    with pytest.raises(ValueError, match="no unit varies around its group's ratio"):
        ratio_metric_test([1, 2], [1, 2], [2, 4], [1, 2])
    assert "Raises" in metrics_lib.interleaving_test.__doc__
    assert "tie" in metrics_lib.interleaving_test.__doc__.split("Raises")[1]
