"""The checks the four per-list intent metrics share (metrics_lib/ranking/intents.py, _checked)."""

import math

import pytest

from metrics_lib import (alpha_ndcg_at_k, err_ia_at_k, precision_ia_at_k,
                         subtopic_recall_at_k)

FUNCTIONS = [alpha_ndcg_at_k, err_ia_at_k, precision_ia_at_k, subtopic_recall_at_k]
TRUTH = {"a": {1: 1, 2: 1}, "b": {1: 1}, "c": {3: 0}}


@pytest.mark.parametrize("function", FUNCTIONS)
def test_a_bad_empty_policy_is_refused_even_when_unused(function):
    # S > 0 here, so the policy is not applied; a typo must still be refused
    with pytest.raises(ValueError, match="empty must be one of"):
        function(["a", "b"], TRUTH, 2, empty="zeros")
    with pytest.raises(ValueError, match="empty must be one of"):
        function(["a", "b"], {"a": {1: 0}}, 2, empty=None)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_empty_policy_when_no_intent_has_a_relevant_item(function):
    no_relevant = {"a": {1: 0}, "c": {2: 0}}
    assert function(["a", "c"], no_relevant, 2) == 0.0
    assert function(["a", "c"], no_relevant, 2, empty="one") == 1.0
    assert math.isnan(function(["a", "c"], no_relevant, 2, empty="nan"))
    with pytest.raises(ValueError, match="no intent has a relevant item"):
        function(["a", "c"], no_relevant, 2, empty="raise")


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_shared_checks(function):
    with pytest.raises(TypeError, match="relevant must be a mapping"):
        function(["a"], {"a"}, 2)
    with pytest.raises(TypeError, match=r"relevant\['a'\] must be a mapping"):
        function(["a"], {"a": 1}, 2)
    with pytest.raises(ValueError):
        function(["a"], TRUTH, 0)
    with pytest.raises(ValueError):
        function(["a"], {"a": {1: -1}}, 2)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_docstrings_share_their_raises_text(function):
    assert "an ``empty``\n        policy that is not one of the four" in function.__doc__
