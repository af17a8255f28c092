"""Hand-checked values for the per-list metrics, including the posts' examples.

Expected values are written as the fractions worked out by hand, not as
numbers printed by the library.
"""

import math

import pytest

import metrics_lib as ml

# The two-user movie example of post 001.
LIKED = {"Parasite", "Nameless Gangster", "Avatar", "Tenet"}
GRADES = {"Parasite": 5, "Nameless Gangster": 3, "Avatar": 4, "Tenet": 5}
USER_A = ["Sector 7", "Nameless Gangster", "Parasite"]
USER_B = ["The Man from Nowhere", "JSA", "Avatar"]

# The letters example of post 000.
LETTERS = ["A", "B", "C", "L", "Y", "U", "F", "Z"]
LETTERS_RELEVANT = {"C": 1.0, "K": 1.0, "B": 1.0, "Z": 1.0}


def log2(x):
    return math.log(x, 2)


class TestMovieExample:
    def test_precision_recall_hit(self):
        assert ml.precision_at_k(USER_A, LIKED, k=3) == pytest.approx(2 / 3)
        assert ml.precision_at_k(USER_B, LIKED, k=3) == pytest.approx(1 / 3)
        assert ml.recall_at_k(USER_A, LIKED, k=3) == pytest.approx(2 / 4)
        assert ml.recall_at_k(USER_B, LIKED, k=3) == pytest.approx(1 / 4)
        assert ml.hit_at_k(USER_A, LIKED, k=3) == 1.0
        assert ml.hit_at_k(USER_B, LIKED, k=3) == 1.0

    def test_f1(self):
        p, r = 2 / 3, 2 / 4
        assert ml.f1_at_k(USER_A, LIKED, k=3) == pytest.approx(2 * p * r / (p + r))

    def test_mrr_is_five_twelfths(self):
        assert ml.mean_reciprocal_rank([USER_A, USER_B], [LIKED, LIKED]) == pytest.approx(5 / 12)

    def test_average_precision_denominators(self):
        # hits at ranks 2 and 3: precisions 1/2 and 2/3
        total = 1 / 2 + 2 / 3
        assert ml.average_precision(USER_A, LIKED) == pytest.approx(total / 4)
        assert ml.average_precision(USER_A, LIKED, k=3, denominator="min_k") == pytest.approx(total / 3)
        # the post's 7/12 divides by the hits found
        assert ml.average_precision(USER_A, LIKED, denominator="retrieved") == pytest.approx(7 / 12)

    def test_ndcg_judged_and_retrieved_ideal(self):
        dcg = 3 / log2(3) + 5 / log2(4)
        assert ml.dcg_at_k(USER_A, GRADES, k=3) == pytest.approx(dcg)
        judged_ideal = 5 / log2(2) + 5 / log2(3) + 4 / log2(4)
        retrieved_ideal = 5 / log2(2) + 3 / log2(3)
        assert ml.ndcg_at_k(USER_A, GRADES, k=3) == pytest.approx(dcg / judged_ideal)
        assert ml.ndcg_at_k(USER_A, GRADES, k=3, ideal="retrieved") == pytest.approx(dcg / retrieved_ideal)

    def test_relevance_level_turns_grades_into_yes_no(self):
        # at level 4 Nameless Gangster (3 stars) stops being relevant: 3 relevant films
        assert ml.precision_at_k(USER_A, GRADES, k=3, relevance_level=4) == pytest.approx(1 / 3)
        assert ml.recall_at_k(USER_A, GRADES, k=3, relevance_level=4) == pytest.approx(1 / 3)


class TestLettersExample:
    def test_rr_at_5_is_one_half(self):
        assert ml.reciprocal_rank(LETTERS, LETTERS_RELEVANT, k=5) == 0.5

    def test_mrr_is_0375(self):
        lists = [LETTERS, ["N", "X", "Y", "B", "M"]]
        truth = [LETTERS_RELEVANT, {"E": 1.0, "B": 1.0}]
        assert ml.mean_reciprocal_rank(lists, truth) == pytest.approx((1 / 2 + 1 / 4) / 2)

    def test_rr_cut_before_first_hit(self):
        assert ml.reciprocal_rank(LETTERS, LETTERS_RELEVANT, k=1) == 0.0

    def test_k_beyond_list_is_padded(self):
        # three hits (B, C, Z) over k = 10 slots
        assert ml.precision_at_k(LETTERS, LETTERS_RELEVANT, k=10) == pytest.approx(3 / 10)
        assert ml.recall_at_k(LETTERS, LETTERS_RELEVANT, k=10) == pytest.approx(3 / 4)


class TestNdcgPost004:
    GRADES = {"C": 3, "A": 3, "B": 2, "E": 2, "D": 1}
    LIST = ["E", "A", "C", "D", "B"]

    def test_dcg_and_ndcg(self):
        dcg = 2 / log2(2) + 3 / log2(3) + 3 / log2(4) + 1 / log2(5) + 2 / log2(6)
        idcg = 3 / log2(2) + 3 / log2(3) + 2 / log2(4) + 2 / log2(5) + 1 / log2(6)
        assert ml.dcg_at_k(self.LIST, self.GRADES, k=5) == pytest.approx(dcg)
        assert ml.ndcg_at_k(self.LIST, self.GRADES, k=5) == pytest.approx(dcg / idcg)
        # the post printed DCG 6.64 and NDCG 0.93; neither is right
        assert round(dcg, 2) != 6.64
        assert round(dcg / idcg, 2) == 0.92

    def test_exponential_gain(self):
        expo = {i: 2.0 ** g - 1 for i, g in self.GRADES.items()}
        assert ml.dcg_at_k(self.LIST, self.GRADES, k=5, gain="exponential") == pytest.approx(
            ml.dcg_at_k(self.LIST, expo, k=5))

    def test_log_base_changes_dcg_not_ndcg(self):
        d2 = ml.dcg_at_k(self.LIST, self.GRADES, k=5)
        de = ml.dcg_at_k(self.LIST, self.GRADES, k=5, log_base=math.e)
        # ln(i + 1) = log2(i + 1) * ln 2, so every term grows by 1 / ln 2
        assert de == pytest.approx(d2 / math.log(2))
        assert ml.ndcg_at_k(self.LIST, self.GRADES, k=5, log_base=math.e) == pytest.approx(
            ml.ndcg_at_k(self.LIST, self.GRADES, k=5))


class TestConventionsToyExample:
    """R = {A, B, C, D}, ranking [A, x, B, y, z], k = 3 (shared/reference/conventions.md)."""

    RANKING = ["A", "x", "B", "y", "z"]
    RELEVANT = {"A", "B", "C", "D"}

    def test_three_ap_denominators(self):
        total = 1 + 2 / 3
        assert ml.average_precision(self.RANKING, self.RELEVANT, k=3) == pytest.approx(total / 4)
        assert ml.average_precision(self.RANKING, self.RELEVANT, k=3,
                                    denominator="min_k") == pytest.approx(total / 3)
        assert ml.average_precision(self.RANKING, self.RELEVANT, k=3,
                                    denominator="retrieved") == pytest.approx(total / 2)

    def test_ndcg_judged_vs_retrieved(self):
        dcg = 1 + 1 / log2(4)
        judged = 1 + 1 / log2(3) + 1 / log2(4)
        retrieved = 1 + 1 / log2(3)
        assert ml.ndcg_at_k(self.RANKING, self.RELEVANT, k=3) == pytest.approx(dcg / judged)
        assert ml.ndcg_at_k(self.RANKING, self.RELEVANT, k=3,
                            ideal="retrieved") == pytest.approx(dcg / retrieved)

    def test_graded_gains(self):
        grades = {"A": 3, "B": 1, "C": 2, "D": 1}
        linear = (3 + 1 / log2(4)) / (3 + 2 / log2(3) + 1 / log2(4))
        expo = (7 + 1 / log2(4)) / (7 + 3 / log2(3) + 1 / log2(4))
        assert ml.ndcg_at_k(self.RANKING, grades, k=3) == pytest.approx(linear)
        assert ml.ndcg_at_k(self.RANKING, grades, k=3, gain="exponential") == pytest.approx(expo)


class TestEdgeCases:
    @pytest.mark.parametrize("metric", [ml.precision_at_k, ml.recall_at_k, ml.f1_at_k,
                                        ml.hit_at_k, ml.reciprocal_rank,
                                        ml.average_precision, ml.ndcg_at_k])
    def test_empty_policy(self, metric):
        assert metric(["a", "b"], set(), k=2) == 0.0
        assert math.isnan(metric(["a", "b"], set(), k=2, empty="nan"))
        with pytest.raises(ValueError, match="empty='raise'"):
            metric(["a", "b"], set(), k=2, empty="raise")

    def test_grades_below_level_count_as_empty(self):
        assert math.isnan(ml.recall_at_k(["a"], {"a": 1}, relevance_level=2, empty="nan"))

    def test_ndcg_zero_grades_only_is_empty(self):
        assert math.isnan(ml.ndcg_at_k(["a"], {"a": 0, "b": 0}, empty="nan"))

    def test_empty_recommendation_list(self):
        assert ml.precision_at_k([], {"a"}) == 0.0
        assert ml.precision_at_k([], {"a"}, k=5) == 0.0
        assert ml.recall_at_k([], {"a"}) == 0.0
        assert ml.ndcg_at_k([], {"a"}, k=3) == 0.0
        assert ml.average_precision([], {"a"}) == 0.0

    def test_no_hits(self):
        assert ml.f1_at_k(["x"], {"a"}) == 0.0
        assert ml.average_precision(["x"], {"a"}, denominator="retrieved") == 0.0

    def test_ndcg_retrieved_ideal_with_no_relevant_retrieved(self):
        assert ml.ndcg_at_k(["x", "y"], {"a": 2}, ideal="retrieved") == 0.0

    def test_min_k_without_cutoff_uses_all_relevant(self):
        assert ml.average_precision(["a", "x"], {"a", "b", "c"}, denominator="min_k") == pytest.approx(1 / 3)

    def test_mean_functions_skip_nan_users(self):
        lists, truth = [["a"], ["b"]], [{"a"}, set()]
        assert ml.mean_reciprocal_rank(lists, truth) == 0.5
        assert ml.mean_reciprocal_rank(lists, truth, empty="nan") == 1.0
        assert math.isnan(ml.mean_average_precision([["a"]], [set()], empty="nan"))

    def test_numpy_ids_and_arrays_are_accepted(self):
        import numpy as np
        assert ml.precision_at_k(np.array([3, 1, 2]), {np.int64(1), 2}, k=3) == pytest.approx(2 / 3)

    def test_ndcg_short_list_keeps_k_slots_in_ideal(self):
        # one relevant retrieved at rank 1, but three relevant exist: the ideal has 3 hits
        value = ml.ndcg_at_k(["a"], {"a", "b", "c"}, k=3)
        assert value == pytest.approx(1 / (1 + 1 / log2(3) + 1 / log2(4)))


class TestRanks:
    def test_mean_rank_of_post_002(self):
        assert ml.mean_rank([1, 3, 3, 5, 2]) == pytest.approx(14 / 5)

    def test_mrr_and_hits_from_ranks(self):
        assert ml.mean_reciprocal_rank_from_ranks([3, 2, 1]) == pytest.approx(11 / 18)
        assert ml.hits_at_k([3, 2, 1], 1) == pytest.approx(1 / 3)
        assert ml.hits_at_k([3, 2, 1], 3) == 1.0

    def test_rank_with_ties(self):
        scores = [0.2, 0.7, 0.7, 0.7, 0.9]
        assert ml.rank_with_ties(scores, 1, ties="optimistic") == 2
        assert ml.rank_with_ties(scores, 1, ties="pessimistic") == 4
        assert ml.rank_with_ties(scores, 1) == 3
        assert ml.rank_with_ties([1.0, 1.0, 1.0], 0, ties="optimistic") == 1


class TestClassification:
    Y_TRUE = [1, 1, 0, 0, 1, 0, 0, 0, 1, 0]
    Y_PRED = [1, 0, 0, 1, 1, 0, 0, 0, 1, 1]

    def test_confusion_matrix_counts(self):
        cm = ml.confusion_matrix(self.Y_TRUE, self.Y_PRED)
        assert cm == ml.ConfusionMatrix(tn=4, fp=2, fn=1, tp=3)
        assert (cm.tn, cm.fp, cm.fn, cm.tp) == (4, 2, 1, 3)

    def test_scores(self):
        assert ml.accuracy(self.Y_TRUE, self.Y_PRED) == pytest.approx(7 / 10)
        assert ml.precision(self.Y_TRUE, self.Y_PRED) == pytest.approx(3 / 5)
        assert ml.recall(self.Y_TRUE, self.Y_PRED) == pytest.approx(3 / 4)
        assert ml.f1_score(self.Y_TRUE, self.Y_PRED) == pytest.approx(6 / 9)

    def test_undefined_precision_follows_empty(self):
        assert ml.precision([1, 0], [0, 0]) == 0.0
        assert math.isnan(ml.precision([1, 0], [0, 0], empty="nan"))
        with pytest.raises(ValueError, match="nothing was predicted positive"):
            ml.precision([1, 0], [0, 0], empty="raise")

    def test_auc_counts_ties_as_half(self):
        # pairs (pos, neg): (0.5, 0.5) tie -> 1/2, (0.9, 0.5) -> 1
        assert ml.roc_auc([1, 1, 0], [0.5, 0.9, 0.5]) == pytest.approx((0.5 + 1) / 2)

    def test_auc_perfect_and_inverted(self):
        assert ml.roc_auc([0, 0, 1, 1], [1, 2, 3, 4]) == 1.0
        assert ml.roc_auc([1, 1, 0, 0], [1, 2, 3, 4]) == 0.0


class TestRating:
    def test_rmse_mae(self):
        assert ml.rmse([4, 3, 5], [3.5, 3, 3]) == pytest.approx(math.sqrt((0.25 + 0 + 4) / 3))
        assert ml.mae([4, 3, 5], [3.5, 3, 3]) == pytest.approx(2.5 / 3)


class TestRatingGroups:
    TRUTH = [4, 5, 3, 4, 5, 2, 1, 4]
    PRED = [4.5, 4.5, 3, 3, 3.5, 3.5, 2.5, 2.5]
    USERS = ["u1", "u1", "u1", "u1", "u2", "u2", "u3", "u3"]

    def test_macro_is_mean_of_per_user_values(self):
        per_user_rmse, per_user_mae = [], []
        for user in ("u1", "u2", "u3"):
            idx = [i for i, u in enumerate(self.USERS) if u == user]
            errors = [self.TRUTH[i] - self.PRED[i] for i in idx]
            per_user_rmse.append(math.sqrt(sum(e * e for e in errors) / len(errors)))
            per_user_mae.append(sum(abs(e) for e in errors) / len(errors))
        assert ml.rmse(self.TRUTH, self.PRED, groups=self.USERS) == pytest.approx(sum(per_user_rmse) / 3)
        assert ml.mae(self.TRUTH, self.PRED, groups=self.USERS) == pytest.approx(sum(per_user_mae) / 3)

    def test_one_group_equals_micro(self):
        one = ["u"] * len(self.TRUTH)
        assert ml.rmse(self.TRUTH, self.PRED, groups=one) == pytest.approx(ml.rmse(self.TRUTH, self.PRED))

    def test_bad_groups(self):
        with pytest.raises(ValueError, match="one label per rating: got 2 labels for 8 ratings"):
            ml.rmse(self.TRUTH, self.PRED, groups=["a", "b"])
        with pytest.raises(ValueError, match="missing label"):
            ml.mae(self.TRUTH, self.PRED, groups=self.USERS[:-1] + [None])
        with pytest.raises(TypeError, match="groups must be a sequence"):
            ml.mae(self.TRUTH, self.PRED, groups="u1")


# ---------------------------------------------------------------------------
# relevance_level=0 (issue 22 point 9): trec_eval -l 0, every judged item
# relevant (grade 0 included), no unjudged one; compared with the binary
# ---------------------------------------------------------------------------
import itertools  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

_TREC_EVAL = Path(__file__).resolve().parents[1] / "_build" / "trec_eval" / "trec_eval"
_LEVEL_ZERO_MEASURES = ["P.3,10", "recall.3,10", "map", "map_cut.3,10", "recip_rank",
                        "Rprec", "ndcg_cut.3,10", "success.10"]


def _level_zero_case(seed):
    """{qid: (run rows (score, docno), {docno: grade})}: ties, short and empty
    lists, judged items of grade 0 only, unjudged items in the lists."""
    rng = np.random.default_rng(seed)
    queries = {}
    for q in range(12):
        pool = [str(d) for d in rng.choice(300, size=30, replace=False)]
        n_ret = 0 if q == 5 else int(rng.integers(1, 16))
        rows = [(float(rng.choice([3.0, 2.0, 1.5, 1.0])), doc) for doc in pool[:n_ret]]
        judged = rng.choice(pool, size=int(rng.integers(1, 20)), replace=False)
        weights = [1.0, 0, 0, 0] if q == 3 else [0.5, 0.2, 0.15, 0.15]
        grades = {str(doc): int(rng.choice(4, p=weights)) for doc in judged}
        queries[f"q{q}"] = (rows, grades)
    return queries


def _trec_eval_table(tmp_path, queries, level):
    run = "".join(f"{q} Q0 {d} 0 {s!r} tag\n" for q, (rows, _) in queries.items()
                  for s, d in rows)
    qrels = "".join(f"{q} 0 {d} {g}\n" for q, (_, grades) in queries.items()
                    for d, g in grades.items())
    (tmp_path / "run").write_text(run)
    (tmp_path / "qrels").write_text(qrels)
    args = [str(_TREC_EVAL), "-q", "-c", "-l", str(level)]
    for measure in _LEVEL_ZERO_MEASURES:
        args += ["-m", measure]
    out = subprocess.run(args + [str(tmp_path / "qrels"), str(tmp_path / "run")],
                         check=True, capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        table.setdefault(qid, {})[name] = value
    return table


def _trec_order(rows):
    """trec_eval's order: score descending, ties by docno descending."""
    rows = sorted(rows, key=lambda r: r[1].encode(), reverse=True)
    return [doc for _, doc in sorted(rows, key=lambda r: -r[0])]


def _per_list_values(ranking, grades, level):
    kw = {"relevance_level": level}
    out = {}
    for k in (3, 10):
        out[f"P_{k}"] = ml.precision_at_k(ranking, grades, k, **kw)
        out[f"recall_{k}"] = ml.recall_at_k(ranking, grades, k, **kw)
        out[f"map_cut_{k}"] = ml.average_precision(ranking, grades, k, **kw)
        out[f"ndcg_cut_{k}"] = ml.ndcg_at_k(ranking, grades, k, **kw)
    out["map"] = ml.average_precision(ranking, grades, **kw)
    out["recip_rank"] = ml.reciprocal_rank(ranking, grades, **kw)
    out["Rprec"] = ml.r_precision(ranking, grades, **kw)
    out["success_10"] = ml.hit_at_k(ranking, grades, 10, **kw)
    return out


@pytest.mark.skipif(not os.access(_TREC_EVAL, os.X_OK), reason="no trec_eval binary")
@pytest.mark.parametrize("level", [0, 1])
@pytest.mark.parametrize("seed", range(10))
def test_relevance_level_zero_equals_trec_eval_and_evaluate(tmp_path, seed, level):
    queries = _level_zero_case(seed)
    table = _trec_eval_table(tmp_path, queries, level)
    rec_rows, truth_rows = [], []
    for qid, (rows, grades) in queries.items():
        ranking = _trec_order(rows)
        ours = _per_list_values(ranking, grades, level)
        for name, value in ours.items():
            assert f"{value:.4f}" == table[qid][name], (seed, qid, name)
        rec_rows += [(qid, doc, rank) for rank, doc in enumerate(ranking, start=1)]
        truth_rows += [(qid, doc, grade) for doc, grade in grades.items()]
    # evaluate on the same data gives the same per-user values
    recs = pd.DataFrame(rec_rows, columns=["user", "item", "rank"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    metrics = ["precision@3", "recall@10", "ap", "ap@3", "rr", "ndcg@10", "hit@10"]
    got = ml.evaluate(recs, truth, metrics, rank_col="rank", score_col=None,
                      relevance_level=level, missing="zero")
    names = {"precision@3": "P_3", "recall@10": "recall_10", "ap": "map",
             "ap@3": "map_cut_3", "rr": "recip_rank", "ndcg@10": "ndcg_cut_10",
             "hit@10": "success_10"}
    for qid, (rows, grades) in queries.items():
        ours = _per_list_values(_trec_order(rows), grades, level)
        for metric, name in names.items():
            assert got.loc[qid, metric] == pytest.approx(ours[name], abs=1e-12), \
                (qid, metric)


@pytest.mark.parametrize("seed", range(30))
def test_relevance_level_zero_average_ties_is_the_mean_over_orders(seed):
    # ties="average" (closed forms) equals the mean over every order of the
    # tied items, each scored with ties="input", at relevance_level=0
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 7))
    items = list(range(n))
    scores = [float(s) for s in rng.choice([1.0, 2.0], n)]
    grades = {int(i): int(rng.choice([0, 0, 1, 2]))
              for i in rng.choice(n + 3, int(rng.integers(1, n + 3)), replace=False)}
    k = int(rng.integers(1, n + 2))
    for function, keywords in [(ml.precision_at_k, {}), (ml.recall_at_k, {}),
                               (ml.average_precision, {}), (ml.reciprocal_rank, {}),
                               (ml.hit_at_k, {})]:
        orders = [list(order) for order in itertools.permutations(items)
                  if all(scores[a] >= scores[b] for a, b in zip(order, order[1:]))]
        expected = np.mean([function(order, grades, k, relevance_level=0, **keywords)
                            for order in orders])
        got = function(items, grades, k, relevance_level=0, scores=scores,
                       ties="average", **keywords)
        assert got == pytest.approx(expected, abs=1e-12), (function.__name__, seed)


def test_negative_relevance_level_is_refused():
    with pytest.raises(ValueError, match="relevance_level must be >= 0"):
        ml.precision_at_k([1, 2], {1: 1}, 2, relevance_level=-1)


@pytest.mark.parametrize("seed", range(20))
def test_relevance_level_zero_binary_gain_leaves_unjudged_items_out(seed):
    # gain="binary" at level 0: judged items (grade 0 included) gain 1, an
    # unjudged item (no grade, read as 0) gains nothing; as evaluate does
    rng = np.random.default_rng(seed)
    ranking = [int(i) for i in rng.choice(20, int(rng.integers(1, 10)), replace=False)]
    grades = {int(i): int(rng.choice([0, 0, 1, 2]))
              for i in rng.choice(20, int(rng.integers(1, 8)), replace=False)}
    k = int(rng.integers(1, 12))
    hits = [1.0 if item in grades else 0.0 for item in ranking[:k]]
    dcg = sum(h / math.log2(i + 2) for i, h in enumerate(hits))
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(grades))))
    got = ml.ndcg_at_k(ranking, grades, k, gain="binary", relevance_level=0)
    assert got == pytest.approx(dcg / ideal, abs=1e-12)
    recs = pd.DataFrame({"user": 1, "item": ranking, "rank": range(1, len(ranking) + 1)})
    truth = pd.DataFrame({"user": 1, "item": list(grades),
                          "relevance": list(grades.values())})
    out = ml.evaluate(recs, truth, [f"ndcg@{k}"], rank_col="rank", score_col=None,
                      gain="binary", relevance_level=0)
    assert out[f"ndcg@{k}"].iloc[0] == pytest.approx(got, abs=1e-12)
