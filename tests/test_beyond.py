"""Tests of metrics_lib.beyond: hand-computed cases for every variant, bad
input, independent reference formulas and a memory-bounded large run."""

import math
import tracemalloc
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics_lib import (
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    novelty,
    personalization,
    serendipity,
)

GENRES = np.array([[1, 0], [1, 0], [0, 1]])  # items 0 and 1 alike, item 2 apart


# ---------------------------------------------------------------- coverage
def test_coverage_hand_cases():
    lists = [["a", "b"], ["a", "c"]]
    assert catalog_coverage(lists, {"a", "b", "c", "d"}) == 3 / 4
    assert catalog_coverage(lists, {"a", "b", "c"}) == 1.0
    assert catalog_coverage(lists, {"a", "b", "c", "d"}, k=1) == 1 / 4
    assert catalog_coverage([[0, 1], [0, 2]], 8) == 3 / 8
    assert catalog_coverage(np.array([[0, 1], [0, 2]]), 8) == 3 / 8


def test_coverage_bad_input():
    with pytest.raises(ValueError, match="not in the catalog"):
        catalog_coverage([["a", "z"]], {"a", "b"})
    with pytest.raises(ValueError, match="not in the catalog"):
        catalog_coverage([[0, 8]], 8)
    with pytest.raises(ValueError, match="empty"):
        catalog_coverage([], {"a"})
    with pytest.raises(ValueError, match="user 1.*empty"):
        catalog_coverage([["a"], []], {"a"})
    with pytest.raises(ValueError, match="catalog is empty"):
        catalog_coverage([["a"]], set())
    with pytest.raises(ValueError, match="k must be a positive"):
        catalog_coverage([["a"]], {"a"}, k=0)
    with pytest.raises(ValueError, match="twice"):
        catalog_coverage([["a", "a"]], {"a"})
    with pytest.raises(TypeError):
        catalog_coverage("ab", {"a"})


# ---------------------------------------------------------------- gini
def test_gini_hand_cases():
    lists = [["a", "b"], ["a", "c"]]
    # catalogue a, b, c, d: exposures sorted 0, 1, 1, 2; sum 4;
    # sum (2i - n - 1) x_i = -3*0 - 1*1 + 1*1 + 3*2 = 6
    assert gini_index(lists, {"a", "b", "c", "d"}) == pytest.approx(6 / (4 * 4))
    assert gini_index(lists, {"a", "b", "c", "d"}, denominator="n-1") == pytest.approx(
        6 / (3 * 4))
    # recommended only: 1, 1, 2 -> -2*1 + 0*1 + 2*2 = 2
    assert gini_index(lists) == pytest.approx(2 / (3 * 4))


def test_gini_extremes():
    assert gini_index([["a", "b"], ["c", "d"]], {"a", "b", "c", "d"}) == 0.0
    # all exposure on one of n items: (n-1)/n, or exactly 1 with n-1
    assert gini_index([["a"], ["a"]], {"a", "b", "c", "d"}) == pytest.approx(3 / 4)
    assert gini_index([["a"], ["a"]], {"a", "b", "c", "d"},
                      denominator="n-1") == pytest.approx(1.0)
    assert gini_index([["a"], ["a"]]) == 0.0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 7), min_size=1, max_size=4, unique=True),
                min_size=1, max_size=12))
def test_gini_equals_mean_absolute_difference(lists):
    counts = Counter(i for items in lists for i in items)
    x = np.array([counts.get(i, 0) for i in range(8)], dtype=float)
    reference = np.abs(x[:, None] - x[None, :]).sum() / (2 * 8 ** 2 * x.mean())
    assert gini_index(lists, 8) == pytest.approx(reference)


def test_gini_bad_input():
    with pytest.raises(ValueError, match="denominator"):
        gini_index([["a"]], denominator="n+1")
    with pytest.raises(ValueError, match="at least two items"):
        gini_index([["a"]], denominator="n-1")
    with pytest.raises(ValueError, match="not in the catalog"):
        gini_index([["z"]], {"a"})


# ---------------------------------------------------------------- diversity
def test_ild_features_hand_case():
    # pairs (0,1)=1, (0,2)=0, (1,2)=0: mean similarity 1/3
    assert intra_list_diversity([[0, 1, 2]], features=GENRES) == pytest.approx(2 / 3)
    np.testing.assert_allclose(
        intra_list_diversity([[0, 1], [0, 2]], features=GENRES, per_user=True), [0, 1])
    assert intra_list_diversity([[0, 1, 2]], features=GENRES, k=2) == pytest.approx(0)


def test_ild_every_similarity_source_agrees():
    mapping = {"x": [1, 0], "y": [1, 1], "z": [0, 3]}
    # cos(x,y) = 1/sqrt2, cos(x,z) = 0, cos(y,z) = 1/sqrt2
    expected = 1 - (2 / math.sqrt(2)) / 3
    assert intra_list_diversity([["x", "y", "z"]], features=mapping) == pytest.approx(expected)
    matrix = np.array([[1, 1 / math.sqrt(2), 0],
                       [1 / math.sqrt(2), 1, 1 / math.sqrt(2)],
                       [0, 1 / math.sqrt(2), 1]])
    assert intra_list_diversity([[0, 1, 2]], similarity=matrix) == pytest.approx(expected)
    assert intra_list_diversity([[0, 1, 2]],
                                similarity=lambda a, b: matrix[a, b]) == pytest.approx(expected)


def test_ild_cooccurrence_similarity_as_features():
    # users x items: u0 {0, 1}, u1 {0, 1, 2}, u2 {2}. Co-occurrence cosine
    # (Recommenders' default): cos(0,1) = 2/2, cos(0,2) = cos(1,2) = 1/2.
    x = np.array([[1, 1, 0], [1, 1, 1], [0, 0, 1]])
    assert intra_list_diversity([[0, 1, 2]], features=x.T) == pytest.approx(1 - 2 / 3)


def test_ild_zero_vectors_only_matter_when_recommended():
    # item 3 was never clicked: an all-zero co-occurrence column
    features = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    assert intra_list_diversity([[0, 1, 2]], features=features) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="item 3 .*all-zero"):
        intra_list_diversity([[0, 3]], features=features)
    mapping = {"x": [1, 0], "y": [0, 1], "z": [0, 0]}
    assert intra_list_diversity([["x", "y"]], features=mapping) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="'z' .*all-zero"):
        intra_list_diversity([["x", "z"]], features=mapping)
    with pytest.raises(ValueError, match="all-zero"):
        serendipity([[0]], [{0}], history_lists=[[3]], features=features)


def test_ild_bad_input():
    with pytest.raises(ValueError, match="at least two items"):
        intra_list_diversity([[0]], features=GENRES)
    with pytest.raises(ValueError, match="unknown"):
        intra_list_diversity([[0, 5]], features=GENRES)
    with pytest.raises(ValueError, match="unknown"):
        intra_list_diversity([["x", "q"]], features={"x": [1, 0], "y": [0, 1]})
    with pytest.raises(ValueError, match="square"):
        intra_list_diversity([[0, 1]], similarity=np.ones((2, 3)))
    with pytest.raises(ValueError, match="square"):
        intra_list_diversity([[0, 1]], similarity=np.ones(3))
    with pytest.raises(ValueError, match="symmetric"):
        intra_list_diversity([[0, 1]], similarity=np.array([[1, 0.2], [0.3, 1]]))
    with pytest.raises(ValueError, match="2-D"):
        intra_list_diversity([[0, 1]], features=np.ones(3))
    with pytest.raises(ValueError, match="all-zero"):
        intra_list_diversity([[0, 1]], features=np.array([[1, 0], [0, 0]]))
    with pytest.raises(ValueError, match="same length"):
        intra_list_diversity([["x", "y"]], features={"x": [1, 0], "y": [1, 0, 0]})
    with pytest.raises(TypeError, match="exactly one"):
        intra_list_diversity([[0, 1]])
    with pytest.raises(TypeError, match="exactly one"):
        intra_list_diversity([[0, 1]], features=GENRES, similarity=np.eye(3))
    with pytest.raises(TypeError, match="must return a number"):
        intra_list_diversity([[0, 1]], similarity=lambda a, b: "high")
    with pytest.raises(ValueError, match="empty"):
        intra_list_diversity([], features=GENRES)


# ---------------------------------------------------------------- novelty
TRAIN = [("u1", "a"), ("u2", "a"), ("u2", "b"), ("u3", "a")]


def test_novelty_popularity_variants():
    # by interactions: p(a) = 3/4, p(b) = 1/4
    assert novelty([["b"]], TRAIN) == pytest.approx(2.0)
    assert novelty([["a", "b"]], TRAIN) == pytest.approx((math.log2(4 / 3) + 2) / 2)
    # by users: p(a) = 3/3, p(b) = 1/3
    assert novelty([["a", "b"]], TRAIN, popularity="users") == pytest.approx(
        math.log2(3) / 2)
    # a repeated interaction counts under "interactions" only
    repeated = TRAIN + [("u3", "a")]
    assert novelty([["b"]], repeated) == pytest.approx(math.log2(5))
    assert novelty([["b"]], repeated, popularity="users") == pytest.approx(math.log2(3))
    assert novelty([["b"]], TRAIN, base=math.e) == pytest.approx(math.log(4))


def test_novelty_averaging_variants():
    lists = [["b"], ["a", "b"]]
    info_a, info_b = math.log2(4 / 3), 2.0
    per_user = [info_b, (info_a + info_b) / 2]
    np.testing.assert_allclose(novelty(lists, TRAIN, per_user=True), per_user)
    assert novelty(lists, TRAIN) == pytest.approx(np.mean(per_user))
    assert novelty(lists, TRAIN, average="recommendations") == pytest.approx(
        (info_b + info_a + info_b) / 3)


def test_novelty_bad_input():
    with pytest.raises(ValueError, match="never occurs"):
        novelty([["a", "zzz"]], TRAIN)
    with pytest.raises(ValueError, match="interactions is empty"):
        novelty([["a"]], [])
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        novelty([["a"]], np.array([[1, 2, 3]]))
    with pytest.raises(ValueError, match="pair"):
        novelty([["a"]], [("u1", "a", 5)])
    with pytest.raises(ValueError, match="popularity"):
        novelty([["a"]], TRAIN, popularity="clicks")
    with pytest.raises(ValueError, match="base"):
        novelty([["a"]], TRAIN, base=1)
    with pytest.raises(ValueError, match="k must be"):
        novelty([["a"]], TRAIN, k=-1)


# ---------------------------------------------------------------- serendipity
def test_serendipity_baseline_hand_case():
    recs, base, liked = [["a", "b", "c"]], [["a", "x", "y"]], [{"a", "c"}]
    # a is relevant but expected; b unexpected but not relevant; c both
    assert serendipity(recs, liked, baseline_lists=base) == pytest.approx(1 / 3)
    # graded relevance with a threshold: c has grade 1 < 2
    assert serendipity(recs, [{"a": 3, "c": 1}], baseline_lists=base,
                       relevance_level=2) == 0.0
    # with k=2 the list is [a, b] and the baseline [a, x]
    assert serendipity(recs, liked, baseline_lists=base, k=2) == 0.0
    np.testing.assert_allclose(
        serendipity([["a"], ["c"]], [{"a"}, {"c"}], baseline_lists=[["a"], ["a"]],
                    per_user=True), [0, 1])


def test_serendipity_history_hand_case():
    # history [0]; recommended 1 (same genre: unexpectedness 0) and 2 (1)
    assert serendipity([[1, 2]], [{1, 2}], history_lists=[[0]],
                       features=GENRES) == pytest.approx(0.5)
    assert serendipity([[1, 2]], [{1}], history_lists=[[0]], features=GENRES) == 0.0
    # history [0, 2]: item 1 has mean similarity (1 + 0)/2
    assert serendipity([[1]], [{1}], history_lists=[[0, 2]],
                       features=GENRES) == pytest.approx(0.5)


def test_serendipity_bad_input():
    with pytest.raises(TypeError, match="exactly one"):
        serendipity([["a"]], [{"a"}])
    with pytest.raises(TypeError, match="exactly one"):
        serendipity([["a"]], [{"a"}], baseline_lists=[["a"]], history_lists=[["a"]])
    with pytest.raises(ValueError, match="one entry per user"):
        serendipity([["a"], ["b"]], [{"a"}], baseline_lists=[["a"], ["b"]])
    with pytest.raises(ValueError, match="users"):
        serendipity([["a"]], [{"a"}, {"b"}], baseline_lists=[["a"], ["b"]])
    with pytest.raises(ValueError, match="history"):
        serendipity([[1]], [{1}], history_lists=[[]], features=GENRES)
    with pytest.raises(TypeError, match="history_lists only"):
        serendipity([["a"]], [{"a"}], baseline_lists=[["a"]], features=GENRES)


# ---------------------------------------------------------------- personalization
def _brute_force_personalization(lists):
    items = sorted({i for items in lists for i in items})
    col = {item: j for j, item in enumerate(items)}
    m = np.zeros((len(lists), len(items)))
    for u, items_u in enumerate(lists):
        m[u, [col[i] for i in items_u]] = 1
    norms = np.sqrt(m.sum(axis=1))
    cos = (m @ m.T) / np.outer(norms, norms)
    n = len(lists)
    return 1 - (cos.sum() - np.trace(cos)) / (n * (n - 1))


def test_personalization_hand_cases():
    # only users 1 and 2 share an item: cosine 1/2; mean over 3 pairs 1/6
    assert personalization([["a", "b"], ["a", "c"], ["d", "e"]]) == pytest.approx(5 / 6)
    assert personalization([["a", "b"], ["b", "a"]]) == 0.0
    assert personalization([["a"], ["b"]]) == 1.0
    # unequal lengths: cos([a], [a, b]) = 1/sqrt(2)
    assert personalization([["a"], ["a", "b"]]) == pytest.approx(1 - 1 / math.sqrt(2))
    assert personalization([["a", "x"], ["a", "b"]], k=1) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_personalization_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_items = 15
    equal = [list(rng.choice(n_items, 4, replace=False)) for _ in range(30)]
    unequal = [list(rng.choice(n_items, int(rng.integers(1, 7)), replace=False))
               for _ in range(30)]
    for lists in (equal, unequal):
        assert personalization(lists) == pytest.approx(
            _brute_force_personalization(lists), abs=1e-12)
    assert personalization(np.array(equal)) == pytest.approx(
        _brute_force_personalization(equal), abs=1e-12)


def test_personalization_bad_input():
    with pytest.raises(ValueError, match="at least two users"):
        personalization([["a"]])
    with pytest.raises(ValueError, match="at least two users"):
        personalization(np.array([[1, 2]]))
    with pytest.raises(ValueError, match="twice"):
        personalization(np.array([[1, 2], [3, 3]]))
    with pytest.raises(ValueError, match="empty"):
        personalization([["a"], []])
    with pytest.raises(ValueError, match="2-D"):
        personalization(np.arange(3))


def test_personalization_100k_users_in_bounded_memory():
    rng = np.random.default_rng(0)
    n_users, length, n_items = 100_000, 10, 2_000
    offsets = np.minimum(rng.zipf(1.3, n_users) - 1, n_items - 1)
    lists = (offsets[:, None] + np.arange(length)) % n_items  # distinct per row
    tracemalloc.start()
    try:
        value = personalization(lists)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # a users x users float matrix would need 8e10 bytes; the input is 8e6
    assert peak < 32 * 2 ** 20
    # independent check: the mean overlap from item counts, computed here
    counts = np.bincount(lists.ravel(), minlength=n_items).astype(float)
    expected = 1 - (counts * (counts - 1) / 2).sum() / length / (
        n_users * (n_users - 1) / 2)
    assert value == pytest.approx(expected)
    # and the list-of-lists path agrees on a slice
    assert personalization(lists[:5000].tolist()) == pytest.approx(
        personalization(lists[:5000]))


def test_inputs_not_mutated():
    lists = [["a", "b"], ["a", "c"]]
    copy = [list(x) for x in lists]
    feats = GENRES.copy()
    personalization(lists)
    gini_index(lists)
    intra_list_diversity([[0, 1]], features=feats)
    assert lists == copy
    np.testing.assert_array_equal(feats, GENRES)
