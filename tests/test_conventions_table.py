"""The conventions appendix against scikit-learn, on the claims no other test checks.

book/conventions.ipynb states that (1) a ``log_base`` other than 2 reproduces
scikit-learn's ``dcg_score(log_base=...)`` (Recommenders' natural-log DCG),
(2) scikit-learn's tie-averaged NDCG equals the mean of ``ml.ndcg_at_k`` over
every order of the tied items, and (3) scikit-learn's ``average_precision_score``
is ``ml.average_precision`` (denominator |R|) on the full ordering of all items, and
(4) scikit-learn's ``ndcg_score`` given only the top-k items reproduces the
re-sorted ideal (``ideal="retrieved"``).
"""

import itertools
import math

import numpy as np
import pytest
from sklearn import metrics as skm

import metrics_lib as ml


def random_case(rng, n_max, ties):
    n = int(rng.integers(2, n_max + 1))
    grades = rng.integers(0, 4, size=n).astype(float)
    grades[rng.integers(n)] = float(rng.integers(1, 4))  # at least one relevant item
    scores = (rng.integers(0, 3, size=n) if ties else rng.permutation(n)).astype(float)
    items = [f"i{j}" for j in range(n)]
    return items, grades, scores


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("base", [math.e, 10.0])
def test_log_base_matches_sklearn_dcg_score(seed, base):
    rng = np.random.default_rng(seed)
    items, grades, scores = random_case(rng, 20, ties=False)
    ranking = [items[j] for j in np.argsort(-scores)]
    k = int(rng.integers(1, len(items) + 1))
    expected = skm.dcg_score([grades], [scores], k=k, log_base=base)
    assert ml.dcg_at_k(ranking, dict(zip(items, grades)), k=k, log_base=base) == pytest.approx(
        expected, abs=1e-9)


def orders_consistent_with(items, scores):
    """Every ranking that sorts by score descending, ties in any order."""
    groups = [[items[j] for j in range(len(items)) if scores[j] == s]
              for s in sorted(set(scores), reverse=True)]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [item for group in choice for item in group]


@pytest.mark.parametrize("seed", range(40))
def test_sklearn_tie_average_is_the_mean_over_tied_orders(seed):
    rng = np.random.default_rng(seed)
    items, grades, scores = random_case(rng, 6, ties=True)
    judged = dict(zip(items, grades))
    k = int(rng.integers(1, len(items) + 1))
    per_order = [ml.ndcg_at_k(order, judged, k=k) for order in orders_consistent_with(items, scores)]
    assert skm.ndcg_score([grades], [scores], k=k) == pytest.approx(np.mean(per_order), abs=1e-9)


@pytest.mark.parametrize("seed", range(30))
def test_sklearn_average_precision_is_ap_over_the_full_ordering(seed):
    rng = np.random.default_rng(seed)
    items, grades, scores = random_case(rng, 25, ties=False)
    ranking = [items[j] for j in np.argsort(-scores)]
    expected = skm.average_precision_score(grades > 0, scores)
    assert ml.average_precision(ranking, dict(zip(items, grades))) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", range(30))
def test_sklearn_ndcg_on_retrieved_items_only_is_the_resorted_ideal(seed):
    # The appendix says scikit-learn builds the ideal from the labels passed: given only the
    # top-k items, ndcg_score equals NDCG with the re-sorted top k as ideal.
    rng = np.random.default_rng(seed)
    items, grades, scores = random_case(rng, 20, ties=False)
    judged = dict(zip(items, grades))
    ranking = [items[j] for j in np.argsort(-scores)]
    k = int(rng.integers(1, len(ranking) + 1))
    shown = ranking[:k]                      # the caller passes only the top k
    if not any(judged[item] > 0 for item in shown):
        pytest.skip("no relevant item in the top k: both sides are 0/0 conventions")
    y_true = [[judged[item] for item in shown]]
    y_score = [list(range(len(shown), 0, -1))]
    expected = skm.ndcg_score(y_true, y_score, k=k)
    assert ml.ndcg_at_k(shown, judged, k=k, ideal="retrieved") == pytest.approx(expected, abs=1e-9)
