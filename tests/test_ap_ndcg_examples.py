"""The numbers used in the AP/MAP and DCG/NDCG chapters, checked by hand.

Expected values are fractions and log sums worked out by hand from the
definitions (or scikit-learn, an independent implementation), never numbers
printed by metrics_lib. Values already checked in test_ranking.py (user A's AP
under the three denominators, post 004's DCG/NDCG, the conventions toy
example) are not repeated here.
"""

import math

import numpy as np
import pytest
from sklearn.metrics import ndcg_score

import metrics_lib as ml

LIKED = {"Parasite", "Nameless Gangster", "Avatar", "Tenet"}
GRADES = {"Parasite": 5, "Nameless Gangster": 3, "Avatar": 4, "Tenet": 5}
USER_A = ["Sector 7", "Nameless Gangster", "Parasite"]
USER_B = ["The Man from Nowhere", "JSA", "Avatar"]
LETTERS = ["A", "B", "C", "L", "Y", "U", "F", "Z"]
LETTERS_RELEVANT = {"C", "K", "B", "Z"}
P004_GRADES = {"C": 3, "A": 3, "B": 2, "E": 2, "D": 1}
P004_LIST = ["E", "A", "C", "D", "B"]


def log2(x):
    return math.log(x, 2)


def trec_eval_order(scores):
    """Score descending, ties broken by document name descending."""
    return [d for d, _ in sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


# --- average precision chapter ------------------------------------------------

@pytest.mark.parametrize("denominator, expected", [
    # user A: (1/2 + 2/3) over 4, 3, 2; user B: 1/3 over 4, 3, 1
    ("relevant", (7 / 24 + 1 / 12) / 2),    # 3/16
    ("min_k", (7 / 18 + 1 / 9) / 2),        # 1/4
    ("retrieved", (7 / 12 + 1 / 3) / 2),    # 11/24
])
def test_movie_map_under_three_denominators(denominator, expected):
    assert ml.average_precision(USER_B, LIKED, k=3, denominator=denominator) == pytest.approx(
        {"relevant": 1 / 12, "min_k": 1 / 9, "retrieved": 1 / 3}[denominator])
    assert ml.mean_average_precision([USER_A, USER_B], [LIKED, LIKED], k=3,
                                     denominator=denominator) == pytest.approx(expected)


@pytest.mark.parametrize("level, expected", [
    (1, (7 / 24 + 1 / 12) / 2),   # all four films relevant
    (4, (1 / 9 + 1 / 9) / 2),     # Parasite, Avatar, Tenet: one hit at rank 3 each, |R| = 3
    (5, (1 / 6 + 0) / 2),         # Parasite, Tenet ("rated above 4"): A hits at rank 3, |R| = 2
])
def test_threshold_on_star_ratings_moves_map(level, expected):
    value = ml.mean_average_precision([USER_A, USER_B], [GRADES, GRADES], k=3,
                                      relevance_level=level)
    assert value == pytest.approx(expected)


def test_post_004_average_of_all_precisions_is_not_ap():
    # one relevant item, shown first: AP is 1 under every denominator
    ranking, relevant = ["A", "x", "y"], {"A"}
    for d in ("relevant", "min_k", "retrieved"):
        assert ml.average_precision(ranking, relevant, k=3, denominator=d) == 1.0
    precisions = [ml.precision_at_k(ranking, relevant, k=i) for i in (1, 2, 3)]
    assert np.mean(precisions) == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)   # 11/18 < 1
    assert np.sum(precisions) == pytest.approx(11 / 6)                      # > 1 with m = |R| = 1


def test_letters_curve_drops_named_in_the_chapter():
    ap = ml.average_precision
    # min_k: divisor 3 at K = 3, 4 at K = 4, no new hit at rank 4
    assert ap(LETTERS, LETTERS_RELEVANT, k=3, denominator="min_k") == pytest.approx(7 / 18)
    assert ap(LETTERS, LETTERS_RELEVANT, k=4, denominator="min_k") == pytest.approx(7 / 24)
    # retrieved: the late hit Z at rank 8 lowers the mean
    assert ap(LETTERS, LETTERS_RELEVANT, k=7, denominator="retrieved") == pytest.approx(7 / 12)
    assert ap(LETTERS, LETTERS_RELEVANT, k=8, denominator="retrieved") == pytest.approx(
        (1 / 2 + 2 / 3 + 3 / 8) / 3)
    # relevant: padding beyond the list changes nothing
    assert ap(LETTERS, LETTERS_RELEVANT, k=10) == pytest.approx((1 / 2 + 2 / 3 + 3 / 8) / 4)


def test_unseen_relevant_items_only_move_the_relevant_denominator():
    truth = {"Nameless Gangster", "Parasite"} | {f"unseen {j}" for j in range(8)}
    assert ml.average_precision(USER_A, truth, k=3) == pytest.approx(7 / 6 / 10)
    assert ml.average_precision(USER_A, truth, k=3, denominator="min_k") == pytest.approx(7 / 18)
    assert ml.average_precision(USER_A, truth, k=3, denominator="retrieved") == pytest.approx(7 / 12)


def test_empty_user_policy_in_map():
    lists = [USER_A, USER_B, ["Sector 7", "JSA", "Tenet"]]
    truths = [LIKED, LIKED, set()]
    assert ml.mean_average_precision(lists, truths, k=3) == pytest.approx((7 / 24 + 1 / 12) / 3)
    assert ml.mean_average_precision(lists, truths, k=3, empty="nan") == pytest.approx(3 / 16)


def test_short_list_under_retrieved_denominator_scores_one():
    assert ml.average_precision(["Parasite"], LIKED, k=10, denominator="retrieved") == 1.0
    assert ml.average_precision(["Parasite"], LIKED, k=10) == pytest.approx(1 / 4)


def test_ap_exercise_3():
    relevant = {"a", "b"}
    list_1, list_2 = ["a", "x", "y", "z", "b"], ["a", "x", "y", "z", "w"]
    assert ml.average_precision(list_1, relevant, k=5) == pytest.approx((1 + 2 / 5) / 2)
    assert ml.average_precision(list_1, relevant, k=5, denominator="retrieved") == pytest.approx(0.7)
    assert ml.average_precision(list_2, relevant, k=5) == pytest.approx(1 / 2)
    assert ml.average_precision(list_2, relevant, k=5, denominator="retrieved") == 1.0


# --- NDCG chapter ---------------------------------------------------------------

def test_post_001_ndcg_rounds_to_0_6373_not_0_6372():
    dcg = 3 / log2(3) + 5 / log2(4)
    retrieved_ideal = 5 / log2(2) + 3 / log2(3)
    assert round(dcg, 4) == 4.3928
    assert round(retrieved_ideal, 4) == 6.8928
    assert round(dcg / retrieved_ideal, 4) == 0.6373
    assert round(ml.ndcg_at_k(USER_A, GRADES, k=3, ideal="retrieved"), 4) == 0.6373


def test_user_b_ndcg_both_ideals():
    dcg = 4 / log2(4)
    judged_ideal = 5 + 5 / log2(3) + 4 / log2(4)
    assert ml.ndcg_at_k(USER_B, GRADES, k=3) == pytest.approx(dcg / judged_ideal)
    assert ml.ndcg_at_k(USER_B, GRADES, k=3, ideal="retrieved") == pytest.approx(0.5)


def test_retrieved_ideal_calls_a_weak_list_perfect():
    weak = ["Nameless Gangster", "Sector 7", "JSA"]
    assert ml.ndcg_at_k(weak, GRADES, k=3, ideal="retrieved") == 1.0
    assert ml.ndcg_at_k(weak, GRADES, k=3) == pytest.approx(3 / (5 + 5 / log2(3) + 4 / log2(4)))


def test_post_004_printed_dcg_is_its_misordered_idcg_expression():
    # the post's IDCG expression has the grades 2, 3, 3, 2, 1 (order E, A, C, B, D)
    misordered = 2 / log2(2) + 3 / log2(3) + 3 / log2(4) + 2 / log2(5) + 1 / log2(6)
    correct_dcg = 2 / log2(2) + 3 / log2(3) + 3 / log2(4) + 1 / log2(5) + 2 / log2(6)
    correct_idcg = 3 / log2(2) + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 1 / log2(6)
    assert round(misordered, 2) == 6.64       # the post's "DCG@5 = 6.64"
    assert round(correct_idcg, 2) == 7.14     # the post's IDCG value is right
    assert round(correct_dcg, 4) == 6.5972
    assert round(correct_idcg, 4) == 7.1410
    assert round(correct_dcg / correct_idcg, 3) == 0.924
    assert ml.dcg_at_k(["E", "A", "C", "B", "D"], P004_GRADES, k=5) == pytest.approx(misordered)
    assert ml.dcg_at_k(["C", "A", "B", "E", "D"], P004_GRADES, k=5) == pytest.approx(correct_idcg)


def test_post_004_exponential_gain():
    expo = lambda g: 2 ** g - 1  # noqa: E731
    dcg = sum(expo(P004_GRADES[x]) / log2(i + 2) for i, x in enumerate(P004_LIST))
    idcg = sum(expo(g) / log2(i + 2) for i, g in enumerate([3, 3, 2, 2, 1]))
    assert ml.ndcg_at_k(P004_LIST, P004_GRADES, k=5, gain="exponential") == pytest.approx(dcg / idcg)


def test_tie_example_trec_eval_rule_and_sklearn_average():
    qrels = {"d3": 1}
    first = trec_eval_order({"d1": 1.0, "d2": 1.0, "d3": 1.0})
    last = trec_eval_order({"d5": 1.0, "d4": 1.0, "d3": 1.0})
    assert first == ["d3", "d2", "d1"] and last == ["d5", "d4", "d3"]
    assert ml.ndcg_at_k(first, qrels) == 1.0
    assert ml.ndcg_at_k(last, qrels) == pytest.approx(1 / log2(4))     # 0.5
    assert ml.average_precision(last, qrels) == pytest.approx(1 / 3)
    tie_average = (1 + 1 / log2(3) + 1 / log2(4)) / 3
    assert round(tie_average, 4) == 0.7103
    assert ndcg_score([[0, 0, 1]], [[1.0, 1.0, 1.0]]) == pytest.approx(tie_average)


def test_ndcg_exercise_4_ties():
    scores = {"d1": 0.9, "d2": 0.5, "d3": 0.5, "d4": 0.1}
    order = trec_eval_order(scores)
    assert order == ["d1", "d3", "d2", "d4"]
    assert ml.ndcg_at_k(order, {"d3": 1}) == pytest.approx(1 / log2(3))
    assert ndcg_score([[0, 0, 1, 0]], [[0.9, 0.5, 0.5, 0.1]]) == pytest.approx(
        (1 / log2(3) + 1 / log2(4)) / 2)


def test_short_list_keeps_k_slots_in_judged_ideal():
    short = P004_LIST[:3]   # E, A, C: grades 2, 3, 3
    dcg = 2 + 3 / log2(3) + 3 / log2(4)
    idcg5 = 3 + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 1 / log2(6)
    idcg_retrieved = 3 + 3 / log2(3) + 2 / log2(4)
    assert ml.ndcg_at_k(short, P004_GRADES, k=5) == pytest.approx(dcg / idcg5)
    assert ml.ndcg_at_k(short, P004_GRADES, k=5, ideal="retrieved") == pytest.approx(
        dcg / idcg_retrieved)
    assert ml.ndcg_at_k(short, P004_GRADES, k=3) == pytest.approx(dcg / idcg_retrieved)


def test_ndcg_exercise_3_best_adjacent_swap():
    gains = {}
    for i in range(4):
        swapped = P004_LIST.copy()
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
        gains[i] = ml.dcg_at_k(swapped, P004_GRADES, k=5) - ml.dcg_at_k(P004_LIST, P004_GRADES, k=5)
    assert gains[0] == pytest.approx(1 - 1 / log2(3))
    assert gains[1] == pytest.approx(0.0)
    assert gains[2] < 0
    assert gains[3] == pytest.approx(1 / log2(5) - 1 / log2(6))
    assert max(gains, key=gains.get) == 0
