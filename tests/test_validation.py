"""Every bad input gets a clear TypeError/ValueError naming the argument."""

import copy
import math

import numpy as np
import pytest

import metrics_lib as ml

LIST_METRICS = [ml.precision_at_k, ml.recall_at_k, ml.f1_at_k, ml.hit_at_k,
                ml.reciprocal_rank, ml.average_precision, ml.dcg_at_k, ml.ndcg_at_k]


@pytest.mark.parametrize("metric", LIST_METRICS)
class TestK:
    @pytest.mark.parametrize("k", [0, -1, -10])
    def test_non_positive(self, metric, k):
        with pytest.raises(ValueError, match=r"k must be a positive integer"):
            metric(["a"], {"a"}, k=k)

    @pytest.mark.parametrize("k", [2.0, 1.5, True, False, "3", np.bool_(True), [3]])
    def test_wrong_type(self, metric, k):
        with pytest.raises(TypeError, match=r"k must be a positive integer or None"):
            metric(["a"], {"a"}, k=k)

    def test_numpy_integer_accepted(self, metric):
        metric(["a"], {"a"}, k=np.int64(1))


@pytest.mark.parametrize("metric", LIST_METRICS)
class TestRecommended:
    def test_duplicate_names_id_and_both_ranks(self, metric):
        with pytest.raises(ValueError, match=r"'b' twice, at ranks 2 and 4"):
            metric(["a", "b", "c", "b"], {"a"})

    @pytest.mark.parametrize("value", ["abc", b"abc"])
    def test_string(self, metric, value):
        with pytest.raises(TypeError, match="recommended must be a sequence"):
            metric(value, {"a"})

    @pytest.mark.parametrize("value", [{"a", "b"}, {"a": 1}, frozenset("ab")])
    def test_unordered(self, metric, value):
        with pytest.raises(TypeError, match="no rank order"):
            metric(value, {"a"})

    def test_not_iterable(self, metric):
        with pytest.raises(TypeError, match="recommended must be a sequence"):
            metric(42, {"a"})

    def test_unhashable_id(self, metric):
        with pytest.raises(TypeError, match=r"recommended contains an unhashable id \['x'\]"):
            metric(["a", ["x"]], {"a"})

    def test_two_dimensional_array(self, metric):
        with pytest.raises(ValueError, match="one-dimensional"):
            metric(np.array([["a", "b"]]), {"a"})


@pytest.mark.parametrize("metric", LIST_METRICS)
class TestRelevant:
    def test_none(self, metric):
        with pytest.raises(TypeError, match="relevant must be .* got None"):
            metric(["a"], None)

    def test_string(self, metric):
        with pytest.raises(TypeError, match="relevant must be a collection of ids, not a str"):
            metric(["a"], "abc")

    @pytest.mark.parametrize("value", [3, 2.5])
    def test_bare_number(self, metric, value):
        with pytest.raises(TypeError, match="relevant must be a collection"):
            metric(["a"], value)

    @pytest.mark.parametrize("grade", [math.nan, math.inf, -math.inf, np.float64("nan")])
    def test_non_finite_grade(self, metric, grade):
        with pytest.raises(ValueError, match="relevant has a non-finite grade"):
            metric(["a"], {"a": grade})

    def test_negative_grade(self, metric):
        with pytest.raises(ValueError, match="relevant has a negative grade -1 for 'a'"):
            metric(["a"], {"a": -1})

    @pytest.mark.parametrize("grade", ["3", None, True, [1]])
    def test_non_numeric_grade(self, metric, grade):
        with pytest.raises(TypeError, match="relevant must map ids to numeric grades"):
            metric(["a"], {"a": grade})

    def test_unhashable_relevant_id(self, metric):
        with pytest.raises(TypeError, match="relevant contains an unhashable id"):
            metric(["a"], [["a"]])


@pytest.mark.parametrize("metric", LIST_METRICS)
def test_inputs_are_not_mutated(metric):
    recommended = ["c", "a", "x", "b"]
    relevant = {"a": 2, "b": 1, "c": 0}
    before = copy.deepcopy((recommended, relevant))
    metric(recommended, relevant, k=3)
    assert (recommended, relevant) == before


@pytest.mark.parametrize("keyword, metric", [
    ("denominator", ml.average_precision),
    ("gain", ml.ndcg_at_k),
    ("gain", ml.dcg_at_k),
    ("ideal", ml.ndcg_at_k),
    ("empty", ml.recall_at_k),
    ("empty", ml.ndcg_at_k),
])
def test_unknown_convention(keyword, metric):
    with pytest.raises(ValueError, match=rf"{keyword} must be one of .*got 'bogus'"):
        metric(["a"], {"a"}, **{keyword: "bogus"})


@pytest.mark.parametrize("level, error", [(-1, ValueError), (-0.5, ValueError),
                                          (math.nan, ValueError), ("1", TypeError),
                                          (True, TypeError)])
def test_bad_relevance_level(level, error):
    with pytest.raises(error, match="relevance_level"):
        ml.precision_at_k(["a"], {"a"}, relevance_level=level)


@pytest.mark.parametrize("base, error", [(1, ValueError), (0.5, ValueError),
                                         (math.inf, ValueError), ("e", TypeError)])
def test_bad_log_base(base, error):
    with pytest.raises(error, match="log_base"):
        ml.dcg_at_k(["a"], {"a"}, log_base=base)


class TestManyUsers:
    def test_length_mismatch(self):
        with pytest.raises(ValueError, match="got 2 and 1 entries"):
            ml.mean_reciprocal_rank([["a"], ["b"]], [{"a"}])

    def test_no_users(self):
        with pytest.raises(ValueError, match="no user to average over"):
            ml.mean_average_precision([], [])

    def test_error_names_the_user(self):
        with pytest.raises(ValueError, match=r"user 1: recommended contains the id 'b' twice"):
            ml.mean_average_precision([["a"], ["b", "b"]], [{"a"}, {"b"}])

    def test_string_instead_of_lists(self):
        with pytest.raises(TypeError, match="recommended_lists must be a sequence"):
            ml.mean_reciprocal_rank("abc", [{"a"}])


class TestArrays:
    @pytest.mark.parametrize("func", [ml.rmse, ml.mae])
    def test_length_mismatch(self, func):
        with pytest.raises(ValueError, match="y_true and y_pred must have the same length; got 3 and 2"):
            func([1, 2, 3], [1, 2])

    @pytest.mark.parametrize("func", [ml.rmse, ml.mae])
    def test_empty(self, func):
        with pytest.raises(ValueError, match="y_true is empty"):
            func([], [])

    @pytest.mark.parametrize("func", [ml.rmse, ml.mae])
    @pytest.mark.parametrize("bad", [math.nan, math.inf])
    def test_non_finite(self, func, bad):
        with pytest.raises(ValueError, match="y_pred contains a non-finite value"):
            func([1, 2], [1, bad])

    @pytest.mark.parametrize("func", [ml.rmse, ml.mae])
    def test_non_numeric(self, func):
        with pytest.raises(TypeError, match="y_true must contain only numbers"):
            func(["a", "b"], [1, 2])

    @pytest.mark.parametrize("func", [ml.rmse, ml.mae])
    def test_scalar_and_string(self, func):
        with pytest.raises(TypeError, match="y_true must be a 1-D sequence"):
            func(3, [3])
        with pytest.raises(TypeError, match="y_true must be a 1-D sequence"):
            func("12", [1, 2])

    def test_roc_auc_one_class(self):
        with pytest.raises(ValueError, match="needs both classes in y_true; every label is positive"):
            ml.roc_auc([1, 1, 1], [0.1, 0.2, 0.3])
        with pytest.raises(ValueError, match="every label is negative"):
            ml.roc_auc([0, 0], [0.1, 0.2])

    def test_roc_auc_non_binary_labels(self):
        with pytest.raises(ValueError, match="y_true must contain only 0/1"):
            ml.roc_auc([0, 2], [0.1, 0.2])

    def test_roc_auc_length_mismatch(self):
        with pytest.raises(ValueError, match="y_true and y_score must have the same length"):
            ml.roc_auc([0, 1], [0.1])

    @pytest.mark.parametrize("func", [ml.confusion_matrix, ml.accuracy, ml.precision,
                                      ml.recall, ml.f1_score])
    def test_classification_bad_inputs(self, func):
        with pytest.raises(ValueError, match="same length"):
            func([0, 1], [0])
        with pytest.raises(ValueError, match="y_pred must contain only 0/1"):
            func([0, 1], [0, 0.5])
        with pytest.raises(ValueError, match="y_true is empty"):
            func([], [])

    def test_arrays_not_mutated(self):
        truth, pred = np.array([1.0, 2.0]), np.array([2.0, 2.0])
        ml.rmse(truth, pred)
        ml.roc_auc(np.array([0, 1]), pred)
        assert truth.tolist() == [1.0, 2.0] and pred.tolist() == [2.0, 2.0]


class TestRanksInput:
    @pytest.mark.parametrize("func", [ml.mean_rank, ml.mean_reciprocal_rank_from_ranks])
    def test_rank_below_one(self, func):
        with pytest.raises(ValueError, match="ranks must be >= 1"):
            func([1, 0])

    def test_hits_at_k_needs_k(self):
        with pytest.raises(TypeError, match="k must be a positive integer; got None"):
            ml.hits_at_k([1, 2], None)
        with pytest.raises(ValueError, match="k must be a positive integer"):
            ml.hits_at_k([1, 2], 0)

    def test_rank_with_ties_bad_target(self):
        with pytest.raises(ValueError, match="target must be an index into scores"):
            ml.rank_with_ties([0.1, 0.2], 2)
        with pytest.raises(TypeError, match="target must be an integer index"):
            ml.rank_with_ties([0.1, 0.2], 1.0)
        with pytest.raises(ValueError, match="ties must be one of"):
            ml.rank_with_ties([0.1, 0.2], 0, ties="random")
