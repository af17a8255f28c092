"""first_hit_dcg (the toy metric of issue 24's recipe check) against a brute-force reference."""

import math

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib.ranking.first_hit_dcg import first_hit_dcg_at_k


def _reference(ranked, grades, k, level=1, empty=0.0):
    """Walk the list; the definition written out without numpy."""
    if not any(g >= level for g in grades.values()):
        return empty
    depth = len(ranked) if k is None else min(k, len(ranked))
    for rank in range(1, depth + 1):
        if grades.get(ranked[rank - 1], -1) >= level:
            return 1.0 / math.log2(1 + rank)
    return 0.0


def _random_user(rng, ids):
    n = int(rng.integers(0, 9))                    # empty and short lists
    items = [int(x) for x in rng.choice(ids, size=n, replace=False)]
    scores = [float(s) for s in rng.integers(0, 3, size=n)]   # many ties
    judged = rng.choice(ids, size=int(rng.integers(0, 6)), replace=False)
    grades = {int(i): float(rng.integers(0, 3)) for i in judged}
    return items, scores, grades


@pytest.mark.parametrize("seed", range(5))
def test_per_list_matches_reference(seed):
    rng = np.random.default_rng(seed)
    ids = np.arange(2**40, 2**40 + 15, dtype=np.int64)
    for _ in range(400):
        items, scores, grades = _random_user(rng, ids)
        k = [None, 1, 2, 3, 5, 20][int(rng.integers(0, 6))]
        level = [1, 2][int(rng.integers(0, 2))]
        for ties, reverse in (("best", True), ("worst", False)):
            order = sorted(range(len(items)),
                           key=lambda i: (-scores[i], (-1 if reverse else 1)
                                          * grades.get(items[i], -1)))
            ranked = [items[i] for i in order]
            got = first_hit_dcg_at_k(items, grades, k, relevance_level=level,
                                     scores=scores, ties=ties)
            assert got == pytest.approx(_reference(ranked, grades, k, level), abs=1e-15)
        # the list's order
        got = first_hit_dcg_at_k(items, grades, k, relevance_level=level, empty="nan")
        expected = _reference(items, grades, k, level, empty=math.nan)
        assert got == pytest.approx(expected, nan_ok=True, abs=1e-15)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", ["input", "best", "worst"])
def test_evaluate_matches_per_list(seed, ties):
    rng = np.random.default_rng(seed)
    ids = np.arange(2**40, 2**40 + 15, dtype=np.int64)
    rec_rows, truth_rows, users = [], [], {}
    for user in range(60):
        items, scores, grades = _random_user(rng, ids)
        users[user] = (items, scores, grades)
        rec_rows += [(user, i, s) for i, s in zip(items, scores)]
        truth_rows += [(user, i, g) for i, g in grades.items()]
    recs = pd.DataFrame(rec_rows, columns=["user", "item", "score"]).astype(
        {"user": "Int64", "item": "int64", "score": "float32"})
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"]).astype(
        {"user": "Int64", "item": "int64"})
    recs_before = recs.copy()
    for k in (1, 3, 5):
        table = ml.evaluate(recs, truth, [f"first_hit_dcg@{k}"], ties=ties,
                            empty="nan", missing="zero")
        for user, (items, scores, grades) in users.items():
            if user not in table.index:        # users without judgements are not scored
                assert not grades
                continue
            expected = first_hit_dcg_at_k(items, grades, k, scores=scores, ties=ties,
                                          empty="nan")
            got = table.loc[user, f"first_hit_dcg@{k}"]
            assert got == pytest.approx(expected, nan_ok=True, abs=1e-15), (user, k)
    pd.testing.assert_frame_equal(recs, recs_before)


def test_names_and_errors():
    assert ml.parse_metric("first_hit_dcg@5") == ("first_hit_dcg", 5)
    assert ml.parse_metric("FIRST_HIT_DCG") == ("first_hit_dcg", None)
    with pytest.raises(ValueError, match="cut-off"):
        ml.parse_metric("first_hit_dcg@0")
    with pytest.raises(ValueError, match="relevant"):
        first_hit_dcg_at_k(["a"], {"b": 0}, 3, empty="raise")
    assert first_hit_dcg_at_k(["a", "b"], {"b"}, 2**70) == pytest.approx(1 / math.log2(3))
