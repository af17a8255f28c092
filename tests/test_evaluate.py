"""metrics_lib.evaluate: equal to the per-list functions and to trec_eval."""

import math

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import evaluate, parse_metric
from metrics_lib.evaluate import TIES

PER_LIST = {
    "precision": ml.precision_at_k,
    "recall": ml.recall_at_k,
    "f1": ml.f1_at_k,
    "hit": ml.hit_at_k,
    "rr": ml.reciprocal_rank,
    "ap": ml.average_precision,
    "ndcg": ml.ndcg_at_k,
    "dcg": ml.dcg_at_k,
}
METRICS = ["precision@3", "precision", "recall@3", "recall", "f1@2", "f1", "hit@1",
           "hit", "mrr", "mrr@2", "map", "map@3", "ndcg", "ndcg@3", "dcg", "dcg@2"]


def random_tables(seed, *, string_ids=False, n_users=25, n_items=12, half_grades=False):
    """Small tables with many ties, short and missing lists, unjudged users."""
    rng = np.random.default_rng(seed)
    rec_rows, truth_rows = [], []
    for user in range(n_users):
        length = int(rng.integers(0, 9))          # 0 = user never recommended
        items = rng.choice(n_items, size=length, replace=False)
        scores = rng.integers(0, 4, size=length) / 4   # few distinct: ties
        rec_rows += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        if user % 7 != 3:                          # some users have no truth
            judged = rng.choice(n_items, size=int(rng.integers(1, 7)), replace=False)
            grades = rng.integers(0, 4, size=judged.size)
            if half_grades:  # non-integer grades: the sorting path of the ideal DCG
                grades = grades / 2
            truth_rows += [(user, int(i), g.item()) for i, g in zip(judged, grades)]
    recs = pd.DataFrame(rec_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    if string_ids:  # ids of unequal length: string order != numeric order
        recs["user"] = "u" + recs["user"].astype(str)
        truth["user"] = "u" + truth["user"].astype(str)
        recs["item"] = "d" + (recs["item"] * 7).astype(str)
        truth["item"] = "d" + (truth["item"] * 7).astype(str)
    recs = recs.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return recs, truth


def text(item):
    """trec_eval's tie key: the id as text, compared as UTF-8 bytes (strcmp)."""
    return str(item).encode("utf-8")


def ranked_list(user_rows, ties):
    """A user's list in rank order, sorted one row at a time in Python."""
    rows = list(user_rows[["item", "score"]].itertuples(index=False, name=None))
    if ties == "item_desc":
        rows.sort(key=lambda r: (r[1], text(r[0])), reverse=True)
    elif ties == "item_asc":
        rows.sort(key=lambda r: text(r[0]))
        rows.sort(key=lambda r: -r[1])
    elif ties == "numeric_desc":
        rows.sort(key=lambda r: (r[1], r[0]), reverse=True)
    elif ties == "numeric_asc":
        rows.sort(key=lambda r: r[0])
        rows.sort(key=lambda r: -r[1])
    else:
        rows.sort(key=lambda r: -r[1])  # stable: input order among ties
    return [item for item, _ in rows]


def expected_values(recs, truth, metric, ties, missing, **conv):
    kind, k = parse_metric(metric)
    function = PER_LIST[kind]
    out = {}
    for user, judged in truth.groupby("user", sort=True):
        user_rows = recs[recs["user"] == user]
        if missing == "skip" and user_rows.empty:
            continue
        relevant = dict(zip(judged["item"], judged["relevance"]))
        kwargs = {}
        if kind in ("precision", "recall", "f1", "hit", "rr", "ap"):
            kwargs = {"relevance_level": conv["relevance_level"], "empty": conv["empty"]}
            if kind == "ap":
                kwargs["denominator"] = conv["denominator"]
        elif kind == "ndcg":
            kwargs = {"gain": conv["gain"], "ideal": conv["ideal"],
                      "log_base": conv["log_base"], "empty": conv["empty"]}
        else:
            kwargs = {"gain": conv["gain"], "log_base": conv["log_base"]}
        out[user] = function(ranked_list(user_rows, ties), relevant, k, **kwargs)
    return pd.Series(out, dtype=float)


@pytest.mark.parametrize("seed", range(15))
def test_equals_per_list_functions_for_every_user(seed):
    rng = np.random.default_rng(1000 + seed)
    conv = {
        "relevance_level": [1, 2][seed % 2],
        "denominator": ["relevant", "min_k", "retrieved"][seed % 3],
        "gain": ["linear", "exponential"][(seed // 2) % 2],
        "ideal": ["judged", "retrieved"][(seed // 3) % 2],
        "log_base": [2, math.e][(seed // 4) % 2],
        "empty": ["zero", "nan"][(seed // 6) % 2],
    }
    ties = list(TIES)[seed % len(TIES)]
    missing = ["zero", "skip"][(seed // 2) % 2]
    recs, truth = random_tables(seed, string_ids=bool(rng.integers(0, 2)),
                                half_grades=seed % 4 == 1)
    result = evaluate(recs, truth, METRICS, ties=ties, missing=missing, **conv)
    for metric in METRICS:
        expected = expected_values(recs, truth, metric, ties, missing, **conv)
        got = result[metric]
        assert list(got.index) == list(expected.index), metric
        np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=metric)


def test_row_order_and_grouping_do_not_matter():
    recs, truth = random_tables(7)
    base = evaluate(recs, truth, METRICS)
    grouped = recs.sort_values(["user", "score", "item"], ascending=[True, False, False])
    pd.testing.assert_frame_equal(evaluate(grouped, truth, METRICS), base)
    shuffled = truth.sample(frac=1.0, random_state=1)
    pd.testing.assert_frame_equal(evaluate(recs, shuffled, METRICS), base)


def test_ragged_lists_use_the_global_sort_path():
    # one very long list among short ones: the padded-matrix path is skipped
    rng = np.random.default_rng(3)
    users = np.r_[np.zeros(400, int), np.repeat(np.arange(1, 30), 2)]
    items = np.r_[np.arange(400), np.tile([5, 9], 29)]
    recs = pd.DataFrame({"user": users, "item": items,
                         "score": rng.integers(0, 5, users.size).astype(float)})
    truth = pd.DataFrame({"user": np.arange(30), "item": np.full(30, 9),
                          "relevance": 1})
    got = evaluate(recs.sample(frac=1.0, random_state=2), truth, ["mrr", "map"])
    expected = expected_values(recs, truth, "mrr", "item_desc", "zero",
                               relevance_level=1, empty="zero")
    np.testing.assert_allclose(got["mrr"].to_numpy(), expected.to_numpy())


def test_rank_column_is_an_alternative_to_scores():
    recs, truth = random_tables(11)
    recs = recs.drop_duplicates(["user", "score"])  # ranks without ties
    recs["rank"] = recs.groupby("user")["score"].rank(ascending=False)
    by_rank = evaluate(recs.drop(columns="score"), truth, METRICS, rank_col="rank")
    pd.testing.assert_frame_equal(by_rank, evaluate(recs, truth, METRICS))


def test_hand_computed_example():
    recs = pd.DataFrame({"user": ["u", "u", "u", "v"], "item": ["x", "a", "b", "c"],
                         "score": [3.0, 2.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": ["u"] * 4 + ["w"], "item": ["a", "b", "c", "d", "a"],
                          "relevance": [1, 1, 1, 1, 1]})
    out = evaluate(recs, truth, ["precision@3", "recall@3", "map@3", "mrr"])
    # u: hits at ranks 2 and 3 of 4 relevant; w: never recommended; v: no truth
    assert list(out.index) == ["u", "w"]
    assert out.loc["u", "precision@3"] == pytest.approx(2 / 3)
    assert out.loc["u", "recall@3"] == pytest.approx(0.5)
    assert out.loc["u", "map@3"] == pytest.approx((1 / 2 + 2 / 3) / 4)
    assert out.loc["u", "mrr"] == pytest.approx(0.5)
    assert (out.loc["w"] == 0).all()
    skipped = evaluate(recs, truth, ["mrr"], missing="skip")
    assert list(skipped.index) == ["u"]


def test_trec_eval_tie_rule_and_its_alternatives():
    # pytrec_eval issue 56: three tied documents, only d3 relevant
    recs = pd.DataFrame({"user": "q", "item": ["d1", "d2", "d3"], "score": 1.0})
    truth = pd.DataFrame({"user": ["q"], "item": ["d3"], "relevance": [1]})
    assert evaluate(recs, truth, "mrr")["mrr"].iloc[0] == 1.0
    assert evaluate(recs, truth, "mrr", ties="item_asc")["mrr"].iloc[0] == pytest.approx(1 / 3)
    assert evaluate(recs, truth, "mrr", ties="input")["mrr"].iloc[0] == pytest.approx(1 / 3)


def test_relevance_col_none_means_binary():
    recs = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [2]})
    with pytest.raises(ValueError, match="relevance_col=None"):
        evaluate(recs, truth, "mrr")
    assert evaluate(recs, truth, "mrr", relevance_col=None)["mrr"].iloc[0] == 0.5


def test_empty_policies():
    recs = pd.DataFrame({"user": [1, 2], "item": [1, 1], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": [1, 1], "relevance": [1, 0]})
    nan = evaluate(recs, truth, ["map", "ndcg"], empty="nan")
    assert nan.loc[1, "map"] == 1.0 and math.isnan(nan.loc[2, "map"])
    assert nan.mean()["map"] == 1.0
    with pytest.raises(ValueError, match="user 2"):
        evaluate(recs, truth, ["map"], empty="raise")


@pytest.mark.parametrize("bad, error, match", [
    (lambda r, t: (r.drop(columns="score"), t), ValueError, "no column 'score'"),
    (lambda r, t: (r.assign(score="high"), t), TypeError, "must be numeric"),
    (lambda r, t: (r.assign(score=[np.nan, 1.0, 2.0]), t), ValueError, "non-finite"),
    (lambda r, t: (r.assign(user=[1, None, 2]), t), ValueError, "missing id"),
    (lambda r, t: (r, t.assign(relevance=-1)), ValueError, ">= 0"),
    (lambda r, t: (r, t.assign(item=t["item"].astype(str))), TypeError, "same kind"),
    (lambda r, t: (r.to_dict(), t), TypeError, "DataFrame"),
    (lambda r, t: (r.assign(item=[4, 4, 5]), t), ValueError, "item 4 twice for user 1"),
    (lambda r, t: (r, pd.concat([t, t])), ValueError, "twice for user"),
])
def test_bad_input_is_refused_loudly(bad, error, match):
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [4, 5, 4], "score": [1.0, 2.0, 3.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": [4, 4], "relevance": [1, 1]})
    recs_bad, truth_bad = bad(recs, truth)
    with pytest.raises(error, match=match):
        evaluate(recs_bad, truth_bad, ["mrr"])


@pytest.mark.parametrize("name, kind, k", [
    ("ndcg@10", "ndcg", 10), ("map@100", "ap", 100), ("map", "ap", None),
    ("MRR", "rr", None), ("precision@5", "precision", 5), ("P_5", "precision", 5),
    ("ndcg_cut_10", "ndcg", 10), ("map_cut_20", "ap", 20), ("recip_rank", "rr", None),
    ("recall_10", "recall", 10), ("hit@3", "hit", 3), ("f1@2", "f1", 2),
    ("dcg@4", "dcg", 4), ("success_1", "hit", 1),
])
def test_parse_metric(name, kind, k):
    assert parse_metric(name) == (kind, k)


@pytest.mark.parametrize("name", ["ndgc@10", "map@0", "precision@", "", "@10"])
def test_parse_metric_refuses_unknown_names(name):
    with pytest.raises(ValueError):
        parse_metric(name)


def test_inputs_are_not_mutated():
    recs, truth = random_tables(5)
    before = recs.copy(), truth.copy()
    evaluate(recs, truth, METRICS)
    pd.testing.assert_frame_equal(recs, before[0])
    pd.testing.assert_frame_equal(truth, before[1])


# -- reference: trec_eval through pytrec_eval ----------------------------------

TREC_MEASURES = {"P_5": "precision@5", "P_10": "precision@10", "recall_5": "recall@5",
                 "recall_10": "recall@10", "map": "map", "map_cut_5": "map@5",
                 "recip_rank": "mrr", "ndcg": "ndcg", "ndcg_cut_5": "ndcg@5",
                 "ndcg_cut_10": "ndcg@10", "success_1": "hit@1"}


@pytest.mark.parametrize("seed", range(3))
def test_matches_pytrec_eval_with_ties(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(seed)
    n_users, n_items = 60, 40
    rows = []
    for user in range(n_users):
        items = rng.choice(n_items, size=int(rng.integers(1, 25)), replace=False)
        # multiples of 1/8 are exact in float32 and float64: the ties are real
        scores = rng.integers(0, 6, size=items.size) / 8
        rows += [(f"q{user}", f"d{i}", s) for i, s in zip(items, scores)]
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    judged = []
    for user in range(n_users + 5):  # five judged queries were never run
        items = rng.choice(n_items, size=int(rng.integers(1, 15)), replace=False)
        judged += [(f"q{user}", f"d{i}", int(g))
                   for i, g in zip(items, rng.integers(0, 4, items.size))]
    truth = pd.DataFrame(judged, columns=["user", "item", "relevance"])

    qrels, run = {}, {}
    for u, i, g in truth.itertuples(index=False):
        qrels.setdefault(u, {})[i] = g
    for u, i, s in recs.itertuples(index=False):
        run.setdefault(u, {})[i] = float(s)
    reference = pytrec_eval.RelevanceEvaluator(qrels, set(TREC_MEASURES)).evaluate(run)

    ours = evaluate(recs, truth, list(TREC_MEASURES.values()), missing="skip")
    assert set(ours.index) == set(reference)  # pytrec_eval skips unrun queries
    for measure, name in TREC_MEASURES.items():
        theirs = np.array([reference[q][measure] for q in ours.index])
        np.testing.assert_allclose(ours[name].to_numpy(), theirs, rtol=0, atol=1e-9,
                                   err_msg=measure)


def test_empty_tables():
    truth = pd.DataFrame({"user": [1, 2], "item": [3, 4], "relevance": [1, 1]})
    no_recs = truth.iloc[:0].drop(columns="relevance").assign(score=1.0)
    out = evaluate(no_recs, truth, ["mrr", "precision", "ndcg"])
    assert list(out.index) == [1, 2] and (out.to_numpy() == 0).all()
    assert evaluate(truth.assign(score=1.0), truth.iloc[:0], ["mrr"]).empty


def equal_length_tables(seed, n_users=30, length=6):
    """Every user gets a list of the same length (the top-k table layout)."""
    rng = np.random.default_rng(seed)
    rows = [(u, int(i), float(s)) for u in range(n_users)
            for i, s in zip(rng.choice(20, size=length, replace=False),
                            rng.integers(0, 3, size=length) / 2)]
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, int(i), int(g)) for u in range(0, n_users + 3, 2)
                          for i, g in zip(rng.choice(20, size=4, replace=False),
                                          rng.integers(0, 3, size=4))],
                         columns=["user", "item", "relevance"])
    return recs, truth


@pytest.mark.parametrize("seed", range(3))
def test_equal_length_lists(seed):
    recs, truth = equal_length_tables(seed)
    result = evaluate(recs, truth, METRICS)
    conv = {"relevance_level": 1, "denominator": "relevant", "gain": "linear",
            "ideal": "judged", "log_base": 2, "empty": "zero"}
    for metric in METRICS:
        expected = expected_values(recs, truth, metric, "item_desc", "zero", **conv)
        np.testing.assert_allclose(result[metric].to_numpy(), expected.to_numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=metric)


def test_duplicate_in_equal_length_lists_is_named():
    recs, truth = equal_length_tables(0)
    recs.loc[(recs["user"] == 17).to_numpy().nonzero()[0][3], "item"] = int(
        recs.loc[recs["user"] == 17, "item"].iloc[0])
    item = int(recs.loc[recs["user"] == 17, "item"].iloc[0])
    with pytest.raises(ValueError, match=f"item {item} twice for user 17"):
        evaluate(recs, truth, ["mrr"])


# -- n_jobs: threads over contiguous chunks of users -----------------------------

scoring_module = __import__("sys").modules["metrics_lib.batch.scoring"]
chunks_module = __import__("sys").modules["metrics_lib.batch.chunks"]


@pytest.fixture
def count_chunks(monkeypatch):
    """Number of chunks scored by the last evaluate call (a spy)."""
    calls = []
    score = scoring_module._score_chunk

    def spy(*args, **kwargs):
        calls.append(args[5])  # the chunk's number of users
        return score(*args, **kwargs)

    monkeypatch.setattr(scoring_module, "_score_chunk", spy)
    return calls


@pytest.mark.parametrize("seed", range(8))
def test_threads_give_identical_results(seed, monkeypatch, count_chunks):
    # Tiny chunks (1 row per thread minimum) so that small tables get split.
    monkeypatch.setattr(chunks_module, "_MIN_ROWS_PER_THREAD", 1)
    options = {"ties": list(TIES)[seed % len(TIES)],
               "missing": ["zero", "skip"][seed % 2],
               "empty": ["zero", "nan"][(seed // 2) % 2],
               "gain": ["linear", "exponential"][(seed // 4) % 2],
               "ideal": ["judged", "retrieved"][(seed // 2) % 2],
               "denominator": ["relevant", "min_k", "retrieved"][seed % 3],
               "relevance_level": [1, 2][(seed // 3) % 2]}
    recs, truth = random_tables(seed, n_users=40, string_ids=seed % 4 == 3,
                                half_grades=seed % 4 == 1)
    if seed % 2:  # judgements not grouped by user: the gathering path
        truth = truth.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    base = evaluate(recs, truth, METRICS, **options)
    assert len(count_chunks) == 1
    for n_jobs in (2, 3, 8, -1):
        count_chunks.clear()
        got = evaluate(recs, truth, METRICS, n_jobs=n_jobs, **options)
        pd.testing.assert_frame_equal(got, base, check_exact=True)
        if n_jobs > 0:
            assert len(count_chunks) == n_jobs
            # every user, recommended or not, is scored in exactly one chunk
            assert sum(count_chunks) == len(set(recs["user"]) | set(truth["user"]))


def test_threads_on_a_large_table(count_chunks):
    # 1,000 users x 100 items = 100,000 rows: just enough for 2 threads.
    rng = np.random.default_rng(5)
    items = np.argsort(rng.random((1000, 300)), axis=1)[:, :100]
    recs = pd.DataFrame({"user": np.repeat(np.arange(1000), 100),
                         "item": items.ravel(),
                         "score": rng.integers(0, 20, 100_000) / 4.0})
    truth = pd.DataFrame({"user": np.repeat(np.arange(0, 1010, 2), 5),
                          "item": rng.integers(0, 300, 2525),
                          "relevance": rng.integers(0, 5, 2525)})
    truth = truth.drop_duplicates(["user", "item"])
    shuffled = recs.sample(frac=1.0, random_state=1)
    base = evaluate(shuffled, truth, METRICS)
    for n_jobs in (2, -1):
        count_chunks.clear()
        got = evaluate(shuffled, truth, METRICS, n_jobs=n_jobs)
        pd.testing.assert_frame_equal(got, base, check_exact=True)
        assert len(count_chunks) == min(2, ml_cpu_count())
    # fewer rows than 50,000 per thread: no threads
    count_chunks.clear()
    evaluate(recs.iloc[:99_900], truth, METRICS, n_jobs=2)
    assert len(count_chunks) == 1


def ml_cpu_count():
    import os

    return os.cpu_count() or 1


@pytest.mark.parametrize("n_jobs, error", [
    (0, ValueError), (-2, ValueError), (1.5, TypeError), ("2", TypeError),
    (True, TypeError), (None, TypeError), (2.0, TypeError)])
def test_bad_n_jobs_is_refused(n_jobs, error):
    recs, truth = random_tables(0)
    with pytest.raises(error, match="n_jobs must be a positive integer or -1"):
        evaluate(recs, truth, ["mrr"], n_jobs=n_jobs)


def test_errors_are_the_same_with_threads(monkeypatch):
    monkeypatch.setattr(chunks_module, "_MIN_ROWS_PER_THREAD", 1)
    recs, truth = equal_length_tables(0)
    # a duplicate judgement in the first chunk, a duplicate recommendation in
    # a later one: as without threads, the recommendation is reported
    dup_truth = pd.concat([truth, truth[truth["user"] == 0].iloc[:1]], ignore_index=True)
    dup_recs = recs.copy()
    rows = np.flatnonzero(recs["user"] == 25)
    dup_recs.loc[rows[4], "item"] = int(recs.loc[rows[1], "item"])
    item = int(recs.loc[rows[1], "item"])
    cases = [(dup_recs, dup_truth, {}, f"item {item} twice for user 25"),
             (recs, dup_truth, {}, "truth judges item .* twice for user 0"),
             (recs, truth.assign(relevance=truth["relevance"] * (truth["user"] > 10)),
              {"empty": "raise"}, "user 0 has")]
    for r, t, kwargs, match in cases:
        with pytest.raises(ValueError, match=match) as single:
            evaluate(r, t, ["ndcg@3", "mrr"], **kwargs)
        for n_jobs in (2, 5):
            with pytest.raises(ValueError, match=match) as threaded:
                evaluate(r, t, ["ndcg@3", "mrr"], n_jobs=n_jobs, **kwargs)
            assert str(threaded.value) == str(single.value)


def test_only_zero_grades():
    # Judged but nothing relevant anywhere: the empty policy, not an IndexError.
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1], "score": [1.0, 0.5, 0.2]})
    truth = pd.DataFrame({"user": [1, 2], "item": [1, 1], "relevance": [0, 0]})
    out = evaluate(recs, truth, ["ndcg@2", "ndcg", "mrr"])
    assert (out.to_numpy() == 0).all() and list(out.index) == [1, 2]
    assert evaluate(recs, truth, ["ndcg@2"], empty="nan")["ndcg@2"].isna().all()
    with pytest.raises(ValueError, match="user 1 has no judged item with a positive"):
        evaluate(recs, truth, ["ndcg"], empty="raise")


# -- numbers at the edges: exponential gains, many grade levels -----------------

def test_exponential_gain_of_huge_grades_gives_finite_ndcg():
    recs = pd.DataFrame({"user": 1, "item": ["a", "b", "c"], "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": 1, "item": ["a", "b", "c"],
                          "relevance": [1023, 1024, 2000]})
    got = evaluate(recs, truth, ["ndcg", "ndcg@2"], gain="exponential")
    # scaled by 2**-2000, the gains are 2**-977, 2**-976 and 1 (minus 2**-2000)
    d2, d3 = 1 / math.log2(3), 1 / math.log2(4)
    ideal = 1 + 2.0**-976 * d2 + 2.0**-977 * d3
    assert got.loc[1, "ndcg"] == pytest.approx((2.0**-977 + 2.0**-976 * d2 + d3) / ideal,
                                               rel=1e-12)
    assert np.isfinite(got.to_numpy()).all()
    with pytest.raises(ValueError, match="exceeds the largest float64"):
        evaluate(recs, truth, ["dcg"], gain="exponential")
    # below the overflow the plain gains stay: 2**1000 - 1 is finite
    small = truth.assign(relevance=[1000, 3, 0])
    assert np.isfinite(evaluate(recs, small, ["dcg"], gain="exponential")).all().all()


def many_users_many_levels(n_users, seed=0):
    rng = np.random.default_rng(seed)
    recs = pd.DataFrame({"user": np.repeat(np.arange(n_users), 3),
                         "item": np.tile([1, 2, 3], n_users),
                         "score": np.tile([3.0, 2.0, 1.0], n_users)})
    truth = pd.DataFrame({"user": np.repeat(np.arange(n_users), 3),
                          "item": np.tile([2, 3, 4], n_users),
                          "relevance": rng.integers(0, 65, size=3 * n_users)})
    truth.loc[0, "relevance"] = 64
    return recs, truth


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_ideal_dcg_of_many_grade_levels_equals_per_list(gain):
    # 2,000 users x 65 levels is more than the 6,000 judgements: the sparse path
    recs, truth = many_users_many_levels(2_000)
    got = evaluate(recs, truth, ["ndcg", "ndcg@2"], gain=gain)
    for user in range(0, 2_000, 97):
        judged = truth[truth["user"] == user]
        relevant = dict(zip(judged["item"], judged["relevance"]))
        for name, k in (("ndcg", None), ("ndcg@2", 2)):
            assert got.loc[user, name] == pytest.approx(
                ml.ndcg_at_k([1, 2, 3], relevant, k, gain=gain), rel=1e-12, abs=1e-15)


def test_ideal_dcg_memory_does_not_grow_with_users_times_levels():
    import tracemalloc

    recs, truth = many_users_many_levels(100_000)
    tracemalloc.start()
    try:
        evaluate(recs, truth, ["ndcg", "ndcg@2"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # a users x 65 int64 table alone would be 52 MB; the input is 300,000 rows
    assert peak < 100e6, peak  # main's code: 272 MB
