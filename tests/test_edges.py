"""Inputs at the edges (issue "No silent wrong number", points 5 and 6).

Each test here failed on the code before it was written: a pandas Series of
ids read as grades, a 0/1 label vector read as the ids 0 and 1, NaN from
exponential gains of large grades, infinite or NaN confidence bounds near a
confidence of 1, OverflowError from sample sizes and huge counts, and an
OverflowError for cut-offs past int64 in evaluate.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

import metrics_lib as ml

LISTS = ["a", "b", "c", "d"]
BINARY = [ml.precision_at_k, ml.recall_at_k, ml.f1_at_k, ml.hit_at_k,
          ml.reciprocal_rank, ml.average_precision]


# -- point 5: what `relevant` means ------------------------------------------
def test_series_of_grades_is_read_as_id_to_grade():
    series = pd.Series({"a": 3, "c": 1})
    assert ml.ndcg_at_k(LISTS, series, k=4) == ml.ndcg_at_k(LISTS, {"a": 3, "c": 1}, k=4)
    assert ml.precision_at_k(LISTS, series, k=2) == 0.5


@pytest.mark.parametrize("series, message", [
    (pd.Series(["a", "c"]), "values must be numbers"),
    (pd.Series({"a": True, "c": False}), "boolean Series"),
    (pd.Series([1, 2], index=["a", "a"]), "twice"),
    (pd.Series({"a": 1.0, "c": np.nan}), "missing grade"),
])
def test_series_that_is_not_grades_is_refused(series, message):
    with pytest.raises((TypeError, ValueError), match=message):
        ml.precision_at_k(LISTS, series, k=2)


def test_dataframe_is_refused():
    with pytest.raises(TypeError, match="DataFrame"):
        ml.recall_at_k(LISTS, pd.DataFrame({"item": ["a"]}), k=2)


@pytest.mark.parametrize("metric", BINARY + [ml.ndcg_at_k, ml.dcg_at_k])
@pytest.mark.parametrize("labels", [[1, 0, 1, 0], np.array([0, 1, 1, 0]),
                                    [True, False, True, False], np.array([True, False, False, True])])
def test_label_vector_is_refused(metric, labels):
    with pytest.raises((TypeError, ValueError), match="one label per recommended item"):
        metric(LISTS, labels)


def test_integer_ids_are_not_mistaken_for_labels():
    # ids 0 and 1 (no repeat) and 0/1 ids of another length stay ids
    assert ml.recall_at_k([0, 1, 5], [0, 1], k=3) == 1.0
    assert ml.recall_at_k([0, 1, 5, 6], [1, 0], k=2) == 1.0
    assert ml.recall_at_k([0, 1, 5, 6], [1, 0, 1], k=2) == 1.0   # not as long as the list


# -- point 6: exponential gains of large grades ------------------------------
def _exact_ndcg(ranking, grades):
    """NDCG with exact integer gains 2**g - 1, scaled before any float."""
    top = max(grades.values())
    def dcg(gs):
        return sum(float(Fraction(2**g - 1, 2**top)) / math.log2(i + 2)
                   for i, g in enumerate(gs))
    ideal = sorted(grades.values(), reverse=True)
    return dcg([grades.get(item, 0) for item in ranking]) / dcg(ideal)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3000), min_size=1, max_size=6))
def test_exponential_ndcg_of_any_grade_is_finite_and_exact(raw):
    grades = {f"i{j}": g for j, g in enumerate(raw)}
    if max(raw) == 0:
        return
    ranking = sorted(grades, key=lambda item: (grades[item] * 7919) % 13)
    value = ml.ndcg_at_k(ranking, grades, gain="exponential")
    assert math.isfinite(value)
    assert value == pytest.approx(_exact_ndcg(ranking, grades), rel=1e-12)


def test_exponential_dcg_that_overflows_is_refused():
    with pytest.raises(ValueError, match="exceeds the largest float64"):
        ml.dcg_at_k(["a"], {"a": 1024}, gain="exponential")
    assert ml.dcg_at_k(["a"], {"a": 1000}, gain="exponential") == 2.0**1000 - 1


def test_exponential_ndcg_in_evaluate_is_finite():
    recs = pd.DataFrame({"user": [1, 1, 1], "item": ["a", "b", "c"], "score": [3, 2, 1]})
    truth = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "relevance": [1024, 2000]})
    value = ml.evaluate(recs, truth, ["ndcg"], gain="exponential")["ndcg"].iloc[0]
    assert value == pytest.approx(_exact_ndcg(["a", "b", "c"], {"a": 1024, "b": 2000}))


# -- point 6: confidence levels near 1 -----------------------------------------
NEAR_ONE = [1 - 1e-16, 1 - 1e-15, 1 - 1e-12]


@pytest.mark.parametrize("confidence", NEAR_ONE)
@pytest.mark.parametrize("method", ["wilson", "wald", "jeffreys", "clopper_pearson"])
def test_rate_bounds_near_confidence_one_are_finite(confidence, method):
    result = ml.click_through_rate(5, 100, confidence=confidence, method=method)
    assert 0.0 <= result.ci_low <= result.rate <= result.ci_high <= 1.0
    wide = ml.click_through_rate(5, 100, confidence=0.999, method=method)
    assert result.ci_low <= wide.ci_low and result.ci_high >= wide.ci_high


@pytest.mark.parametrize("confidence", NEAR_ONE)
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_lift_and_t_bounds_near_confidence_one_are_not_nan(confidence, alternative):
    test = ml.two_proportion_test(50, 1000, 60, 1000, confidence=confidence,
                                  alternative=alternative)
    t = ml.paired_t_test([1.0, 2, 3, 4], [1.0, 3, 2, 5], confidence=confidence,
                         alternative=alternative)
    for low, high, side in ((test.ci_low, test.ci_high, alternative),
                            (t.ci_low, t.ci_high, alternative)):
        assert not (math.isnan(low) or math.isnan(high))
        if side == "two-sided":
            assert math.isfinite(low) and math.isfinite(high)


@pytest.mark.parametrize("c, n", [(0, 20), (3, 40), (20, 20), (5, 100), (500, 1000)])
@pytest.mark.parametrize("method, statsmodels_name", [("jeffreys", "jeffreys"),
                                                      ("clopper_pearson", "beta")])
def test_beta_intervals_equal_statsmodels(c, n, method, statsmodels_name):
    ours = ml.click_through_rate(c, n, method=method)
    low, high = proportion_confint(c, n, method=statsmodels_name)
    # at 0 clicks (or all) the bound is the edge itself (Brown, Cai and DasGupta);
    # statsmodels keeps the Beta quantile for Jeffreys there
    assert ours.ci_low == (0.0 if c == 0 else pytest.approx(low, abs=1e-12))
    assert ours.ci_high == (1.0 if c == n else pytest.approx(high, abs=1e-12))


def _coverage(p, n, method):
    clicks = np.arange(n + 1)
    inside = [ml.click_through_rate(int(c), n, method=method) for c in clicks]
    inside = np.array([r.ci_low <= p <= r.ci_high for r in inside])
    return float(binom.pmf(clicks, n, p)[inside].sum())


def test_wilson_coverage_dips_below_nominal_and_wald_collapses():
    """The facts the click_through_rate docstring states (exact, n = 100)."""
    rates = np.linspace(0.0005, 0.05, 100)
    wilson = [_coverage(p, 100, "wilson") for p in rates]
    wald = [_coverage(p, 100, "wald") for p in rates]
    exact = [_coverage(p, 100, "clopper_pearson") for p in rates]
    assert 0.84 < min(wilson) < 0.88                 # "dips to about 0.86"
    assert rates[int(np.argmin(wilson))] < 1 / 100   # near 1/n and below
    assert min(wald) < 0.1                           # Wald collapses near 0
    assert min(exact) >= 0.95 - 1e-12                # Clopper-Pearson never below


# -- point 6: no OverflowError -------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(alpha=st.floats(1e-300, 0.5), power=st.floats(0.01, 1 - 1e-16),
       mde=st.floats(1e-300, 0.4))
def test_sample_size_is_a_number_or_a_clear_error(alpha, power, mde):
    try:
        n = ml.sample_size_per_group(0.5, mde, alpha=alpha, power=power)
    except ValueError as error:
        assert "1e300" in str(error)
    else:
        assert isinstance(n, int) and n >= 1


def test_sample_size_with_tiny_alpha_is_exact_enough():
    n = ml.sample_size_per_group(0.05, 0.01, alpha=1e-300)
    assert n > 10**6
    assert ml.power_two_proportions(0.05, 0.01, n, alpha=1e-300) >= 0.8 - 1e-9


def test_power_of_huge_groups_is_one():
    assert ml.power_two_proportions(0.05, 0.01, 10**400) == 1.0


@pytest.mark.parametrize("call", [
    lambda: ml.click_through_rate(10**400, 10**401),
    lambda: ml.two_proportion_test(1, 10**400, 1, 10),
    lambda: ml.sample_ratio_mismatch([10**400, 10**400]),
])
def test_counts_beyond_float_are_refused_clearly(call):
    with pytest.raises(ValueError, match="too large to compute with"):
        call()


@pytest.mark.parametrize("ratios", [[1, 1], [50, 50], [0.5, 0.5], [1e308, 1e308],
                                    [1e-320, 1e-320], [3e-310, 3e-310]])
def test_sample_ratio_mismatch_takes_any_positive_scale(ratios):
    reference = ml.sample_ratio_mismatch([5000, 5100])
    result = ml.sample_ratio_mismatch([5000, 5100], ratios)
    assert result.statistic == pytest.approx(reference.statistic)
    assert result.expected == pytest.approx(reference.expected)


def test_unequal_ratios_on_two_scales_agree():
    a = ml.sample_ratio_mismatch([400, 600], [2, 3])
    b = ml.sample_ratio_mismatch([400, 600], [0.4, 0.6])
    assert a.statistic == pytest.approx(b.statistic) and a.p_value == pytest.approx(b.p_value)


# -- point 6: cut-offs of 2**63 and more ----------------------------------------
HUGE = [2**63 - 1, 2**63, 2**64, 10**30]


@pytest.mark.parametrize("k", HUGE)
@pytest.mark.parametrize("metric", BINARY + [ml.ndcg_at_k, ml.dcg_at_k])
def test_huge_cut_off_means_the_whole_list(metric, k):
    whole = metric(LISTS, {"b": 1, "d": 2}, k=None)
    cut = metric(LISTS, {"b": 1, "d": 2}, k=k)
    if metric in (ml.precision_at_k, ml.f1_at_k):   # they divide by k itself
        assert cut == pytest.approx(whole * len(LISTS) / k, rel=1e-12) or cut <= whole
    else:
        assert cut == whole


@pytest.mark.parametrize("k", HUGE)
def test_huge_cut_off_in_evaluate(k):
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 3], "score": [.5, .4, .3]})
    truth = pd.DataFrame({"user": [1, 2], "item": [2, 3], "relevance": [1, 2]})
    names = [f"{m}@{k}" for m in ("ndcg", "dcg", "map", "mrr", "recall", "hit", "precision")]
    cut = ml.evaluate(recs, truth, names)
    whole = ml.evaluate(recs, truth, ["ndcg", "dcg", "map", "mrr", "recall", "hit"])
    for name in ("ndcg", "dcg", "map", "mrr", "recall", "hit"):
        assert cut[f"{name}@{k}"].tolist() == whole[name].tolist()
    assert cut[f"precision@{k}"].tolist() == pytest.approx([1 / k, 1 / k])
    assert ml.evaluate(recs, truth, [f"map@{k}"], denominator="min_k").iloc[:, 0].tolist() \
        == whole["map"].tolist()
