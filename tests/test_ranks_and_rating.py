"""The posts' numbers used by the RR/MRR and RMSE/MAE chapters, checked against
hand computation, scipy and properties.

Cases already in tests/test_ranking.py (RR@5 = 0.5, MRR = 0.375, MR of
[1, 3, 3, 5, 2], MRR/Hits of ranks [3, 2, 1], MRR 5/12 of the movies) and the
scikit-learn cross-check of rmse/mae in tests/test_reference.py are not
repeated here.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import rankdata

import metrics_lib as ml

LETTERS = ["A", "B", "C", "L", "Y", "U", "F", "Z"]
LETTERS_RELEVANT = {"C", "K", "B", "Z"}
SECOND_CASE = (["N", "X", "Y", "B", "M"], {"E", "B"})


class TestReciprocalRankPosts:
    def test_second_case_first_hit_at_rank_4(self):
        assert ml.reciprocal_rank(*SECOND_CASE) == pytest.approx(1 / 4)

    def test_cut_before_the_second_cases_hit(self):
        # K = 3: case 1 keeps 1/2, case 2 loses its hit at rank 4
        lists = [LETTERS, SECOND_CASE[0]]
        truth = [LETTERS_RELEVANT, SECOND_CASE[1]]
        assert ml.mean_reciprocal_rank(lists, truth, k=3) == pytest.approx((1 / 2 + 0) / 2)
        assert ml.mean_reciprocal_rank(lists, truth, k=4) == pytest.approx((1 / 2 + 1 / 4) / 2)

    def test_rr_by_k_of_letters(self):
        expected = [0.0] + [0.5] * 7
        got = [ml.reciprocal_rank(LETTERS, LETTERS_RELEVANT, k=k) for k in range(1, 9)]
        assert got == pytest.approx(expected)

    def test_movie_user_b_hit_is_avatar_not_parasite(self):
        shown_b = ["The Man from Nowhere", "JSA", "Avatar"]
        liked = {"Parasite", "Nameless Gangster", "Avatar", "Tenet"}
        assert ml.reciprocal_rank(shown_b, liked, k=3) == pytest.approx(1 / 3)
        assert ml.reciprocal_rank(shown_b, {"Avatar"}, k=3) == pytest.approx(1 / 3)
        assert ml.reciprocal_rank(shown_b, {"Parasite"}, k=3) == 0.0


class TestOneAnswerPerQuery:
    # post 002: R/NR marks of three users' top-3 lists
    PATTERNS = [["NR", "NR", "R"], ["NR", "R", "R"], ["R", "R", "NR"]]

    def _lists(self):
        lists = [[f"u{u}-{i}" for i in range(3)] for u in range(3)]
        relevant = [{item for item, mark in zip(items, marks) if mark == "R"}
                    for items, marks in zip(lists, self.PATTERNS)]
        return lists, relevant

    def test_lists_and_ranks_agree(self):
        lists, relevant = self._lists()
        assert ml.mean_reciprocal_rank(lists, relevant) == pytest.approx(11 / 18)
        assert ml.mean_reciprocal_rank(lists, relevant) == pytest.approx(
            ml.mean_reciprocal_rank_from_ranks([3, 2, 1]))

    def test_hit_at_k_mean_equals_hits_at_k(self):
        lists, relevant = self._lists()
        for k, expected in ((1, 1 / 3), (2, 2 / 3), (3, 1.0)):
            mean_hit = np.mean([ml.hit_at_k(l, r, k=k) for l, r in zip(lists, relevant)])
            assert mean_hit == pytest.approx(expected)
            assert ml.hits_at_k([3, 2, 1], k) == pytest.approx(expected)

    def test_mrr_of_student_places_is_not_one_over_mr(self):
        places = [1, 3, 3, 5, 2]
        assert ml.mean_reciprocal_rank_from_ranks(places) == pytest.approx(71 / 150)
        assert 1 / ml.mean_rank(places) == pytest.approx(5 / 14)

    def test_mean_rank_outlier(self):
        assert ml.mean_rank([1] * 9 + [10_000]) == pytest.approx(10_009 / 10)
        assert ml.hits_at_k([1] * 9 + [10_000], 10) == pytest.approx(0.9)

    def test_average_ranks_are_valid_input(self):
        ranks = [2.5, 1, 4.5]
        assert ml.mean_rank(ranks) == pytest.approx(8 / 3)
        assert ml.hits_at_k(ranks, 2) == pytest.approx(1 / 3)
        assert ml.hits_at_k(ranks, 3) == pytest.approx(2 / 3)
        assert ml.mean_reciprocal_rank_from_ranks(ranks) == pytest.approx((0.4 + 1 + 1 / 4.5) / 3)


class TestTies:
    @pytest.mark.parametrize("n", [1, 2, 7, 1000])
    def test_constant_scores(self, n):
        scores = [0.0] * n
        for target in {0, n // 2, n - 1}:
            assert ml.rank_with_ties(scores, target, ties="optimistic") == 1
            assert ml.rank_with_ties(scores, target, ties="pessimistic") == n
            assert ml.rank_with_ties(scores, target, ties="average") == pytest.approx((n + 1) / 2)

    def test_no_tie_all_rules_agree(self):
        scores = [0.3, 0.9, 0.1, 0.5]
        for rule in ("optimistic", "pessimistic", "average"):
            assert ml.rank_with_ties(scores, 3, ties=rule) == 2

    def test_ties_with_strictly_better_candidates(self):
        # two better, the target tied with three others: ranks 3 to 6
        scores = [0.9, 0.8, 0.5, 0.5, 0.5, 0.5] + [0.1] * 94
        assert ml.rank_with_ties(scores, 2, ties="optimistic") == 3
        assert ml.rank_with_ties(scores, 5, ties="pessimistic") == 6
        assert ml.rank_with_ties(scores, 4, ties="average") == pytest.approx(4.5)

    @given(st.lists(st.integers(0, 4), min_size=1, max_size=25), st.data())
    def test_matches_scipy_rankdata(self, values, data):
        # few distinct values -> many ties; rank of -score: higher score = better
        scores = [v / 4 for v in values]
        target = data.draw(st.integers(0, len(scores) - 1))
        negated = -np.asarray(scores)
        for rule, method in (("optimistic", "min"), ("pessimistic", "max"), ("average", "average")):
            expected = rankdata(negated, method=method)[target]
            assert ml.rank_with_ties(scores, target, ties=rule) == pytest.approx(expected)


class TestRatingErrors:
    def test_worked_example(self):
        truth, pred = [5, 3, 4, 5], [4.5, 3.5, 3, 4]
        assert ml.rmse(truth, pred) == pytest.approx(math.sqrt((0.25 + 0.25 + 1 + 1) / 4))
        assert ml.mae(truth, pred) == pytest.approx((0.5 + 0.5 + 1 + 1) / 4)

    def test_equal_size_errors_give_rmse_equal_mae(self):
        truth, pred = [4, 2, 5, 3], [3.5, 2.5, 4.5, 3.5]
        assert ml.rmse(truth, pred) == pytest.approx(0.5)
        assert ml.mae(truth, pred) == pytest.approx(0.5)

    @pytest.mark.parametrize("n, e", [(4, 2.0), (10, 4.0), (25, 0.3)])
    def test_single_error_hits_the_upper_bound(self, n, e):
        truth = np.zeros(n)
        pred = np.zeros(n)
        pred[-1] = e
        assert ml.rmse(truth, pred) == pytest.approx(e / math.sqrt(n))
        assert ml.mae(truth, pred) == pytest.approx(e / n)
        assert ml.rmse(truth, pred) == pytest.approx(math.sqrt(n) * ml.mae(truth, pred))

    @given(st.lists(st.tuples(st.floats(1, 5), st.floats(0, 6)), min_size=1, max_size=30),
           st.floats(0.1, 10), st.floats(-10, 10))
    def test_scale_and_shift(self, pairs, stretch, shift):
        truth = np.array([t for t, _ in pairs])
        pred = np.array([p for _, p in pairs])
        for metric in (ml.rmse, ml.mae):
            base = metric(truth, pred)
            assert metric(stretch * truth, stretch * pred) == pytest.approx(stretch * base, abs=1e-9)
            assert metric(truth + shift, pred + shift) == pytest.approx(base, abs=1e-9)

    def test_micro_versus_macro_with_a_heavy_rater(self):
        # heavy rater: 8 ratings, each off by 0.25; two light raters: 2 ratings each, off by 1.5
        users = [0] * 8 + [1] * 2 + [2] * 2
        truth = np.array([4, 5, 3, 4, 5, 4, 3, 5, 5, 2, 1, 4], dtype=float)
        errors = np.array([0.25, -0.25, 0.25, -0.25, -0.25, 0.25, -0.25, -0.25,
                           -1.5, 1.5, 1.5, -1.5])
        pred = truth + errors
        micro = ml.rmse(truth, pred)
        assert micro == pytest.approx(math.sqrt((8 * 0.0625 + 4 * 2.25) / 12))
        per_user = [ml.rmse(truth[np.equal(users, u)], pred[np.equal(users, u)]) for u in range(3)]
        assert np.mean(per_user) == pytest.approx((0.25 + 1.5 + 1.5) / 3)
        # the micro RMSE is the rating-weighted mean of the per-user MSEs, rooted
        counts = np.bincount(users)
        assert micro == pytest.approx(math.sqrt(np.average(np.square(per_user), weights=counts)))

    @given(st.lists(st.integers(1, 5), min_size=2, max_size=15, unique=False),
           st.floats(-2, 2).filter(lambda c: abs(c) > 1e-3))
    def test_constant_offset_keeps_the_order(self, ratings, offset):
        truth = np.array(ratings, dtype=float)
        pred = truth + offset
        assert ml.rmse(truth, pred) == pytest.approx(abs(offset))
        assert ml.mae(truth, pred) == pytest.approx(abs(offset))
        order = np.argsort(-pred, kind="stable")
        grades = {j: int(r) for j, r in enumerate(ratings)}
        assert ml.ndcg_at_k([int(j) for j in order], grades) == pytest.approx(1.0)
