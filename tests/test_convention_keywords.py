"""The convention keywords of issue 12: hand-computed cases, per-list = evaluate, peers.

Each keyword reproduces a peer library's convention; the peers' per-user values
on a seeded corpus are committed in ``benchmarks/peers/golden/`` (see
``benchmarks/peers/README.md``), and the last tests check the keywords
against them.
"""

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import evaluate, parse_metric
from _helpers import in_library

# -- hand-computed cases ------------------------------------------------------

GRADES = {"a": 3, "b": 1, "c": 2, "d": 0}   # judged; "x", "y" are unjudged


def test_hit_count_and_num_rel_ret_at_k():
    # top 3 of a, x, c, b: a and c relevant (grade >= 1) -> 2; at level 2: a, c -> 2;
    # at level 3: a -> 1
    assert ml.hit_count_at_k(["a", "x", "c", "b"], GRADES, k=3) == 2.0
    assert ml.hit_count_at_k(["a", "x", "c", "b"], GRADES, k=3, relevance_level=3) == 1.0
    assert ml.hit_count_at_k(["a", "x", "c", "b"], GRADES) == 3.0
    assert ml.hit_count_at_k([], {}, k=3) == 0.0           # defined for everyone
    recs = pd.DataFrame({"user": [1] * 4, "item": ["a", "x", "c", "b"],
                         "score": [4.0, 3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1] * 4, "item": list(GRADES),
                          "relevance": list(GRADES.values())})
    result = evaluate(recs, truth, ["num_rel_ret@3", "num_rel_ret_1", "num_rel_ret"])
    assert result.loc[1].tolist() == [2.0, 1.0, 3.0]


def test_precision_denominators():
    # 1 hit (a) in a list of 2, k = 5, |R| = 3 (a, b, c)
    assert ml.precision_at_k(["a", "x"], GRADES, k=5) == 1 / 5
    assert ml.precision_at_k(["a", "x"], GRADES, k=5, denominator="min_k") == 1 / 3
    assert ml.precision_at_k(["a", "x"], GRADES, k=5, denominator="retrieved") == 1 / 2
    # k = 1 < |R|, list long enough: all three divide by 1
    for denominator in ("k", "min_k", "retrieved"):
        assert ml.precision_at_k(["a", "x"], GRADES, k=1, denominator=denominator) == 1.0
    assert ml.precision_at_k([], GRADES, k=3, denominator="retrieved") == 0.0


def test_recall_denominators():
    # 1 hit in the top 2, |R| = 3: 1/3 of all relevant, 1/2 of min(2, 3)
    assert ml.recall_at_k(["a", "x"], GRADES, k=2) == 1 / 3
    assert ml.recall_at_k(["a", "x"], GRADES, k=2, denominator="min_k") == 1 / 2
    assert ml.recall_at_k(["a", "b", "c"], GRADES, k=5, denominator="min_k") == 1.0


def test_average_precision_divided_by_k():
    # hits at ranks 1 and 3: precisions 1 and 2/3, sum 5/3; k = 4
    assert ml.average_precision(["a", "x", "b", "y"], GRADES, k=4,
                                denominator="k") == pytest.approx(5 / 12, abs=1e-15)
    with pytest.raises(ValueError, match="give a k"):
        ml.average_precision(["a"], GRADES, denominator="k")


def log2(rank):
    return math.log2(rank + 1)


def test_binary_gain_and_relevance_level():
    # list d, a, c at level 2: gains 0, 1, 1; ideal two gains of 1 (a, c)
    dcg = 1 / log2(2) + 1 / log2(3)
    ideal = 1 / log2(1) + 1 / log2(2)
    assert ml.ndcg_at_k(["d", "a", "c"], GRADES, k=3, gain="binary",
                        relevance_level=2) == pytest.approx(dcg / ideal, abs=1e-15)
    assert ml.dcg_at_k(["d", "a", "c"], GRADES, k=3, gain="binary",
                       relevance_level=2) == pytest.approx(dcg, abs=1e-15)


def test_gain_mapping_sorts_the_ideal_by_gain():
    # a non-monotone map: grade 1 is worth most
    gains = {0: 0, 1: 5, 2: 1, 3: 2}
    # list c, b: gains 1, 5; ideal b, a, c: 5, 2, 1 cut at 2 -> 5, 2
    expected = (1 / log2(1) + 5 / log2(2)) / (5 / log2(1) + 2 / log2(2))
    assert ml.ndcg_at_k(["c", "b"], GRADES, k=2, gain=gains) == pytest.approx(
        expected, abs=1e-15)
    with pytest.raises(ValueError, match="grade 0 has no entry"):
        ml.ndcg_at_k(["c"], GRADES, gain={1: 1, 2: 3, 3: 7})


def test_min_grade_drops_low_grades_from_dcg_and_ideal():
    # min_grade 2: b (grade 1) counts 0; list b, c, a -> 0, 2, 3; ideal a, c -> 3, 2
    dcg = 2 / log2(2) + 3 / log2(3)
    ideal = 3 / log2(1) + 2 / log2(2)
    assert ml.ndcg_at_k(["b", "c", "a"], GRADES, min_grade=2) == pytest.approx(
        dcg / ideal, abs=1e-15)
    # exponential gain after the cut: 2**3 - 1 = 7, 2**2 - 1 = 3
    dcg = 3 / log2(2) + 7 / log2(3)
    ideal = 7 / log2(1) + 3 / log2(2)
    assert ml.ndcg_at_k(["b", "c", "a"], GRADES, min_grade=2,
                        gain="exponential") == pytest.approx(dcg / ideal, abs=1e-15)


def test_ideal_of_k_items_of_the_top_grade():
    # binary, one relevant item at rank 1, k = 3: RecTools divides by 1 + 1/log2(3) + 1/2
    ideal = 1 / log2(1) + 1 / log2(2) + 1 / log2(3)
    assert ml.ndcg_at_k(["a", "x"], {"a"}, k=3, ideal="k") == pytest.approx(
        1 / ideal, abs=1e-15)
    # graded: three items of the user's top grade (3)
    assert ml.ndcg_at_k(["a", "x"], GRADES, k=3, ideal="k") == pytest.approx(
        3 / (3 * ideal), abs=1e-15)
    with pytest.raises(ValueError, match="give a k"):
        ml.ndcg_at_k(["a"], GRADES, ideal="k")


def test_judged_only_condenses_the_list():
    # x, y unjudged: the list x, a, y, d, b becomes a, d, b
    assert ml.precision_at_k(["x", "a", "y", "d", "b"], GRADES, k=2,
                             judged_only=True) == 0.5
    assert ml.reciprocal_rank(["x", "a"], GRADES, judged_only=True) == 1.0
    assert ml.r_precision(["x", "y", "a", "c"], GRADES, judged_only=True) == 2 / 3


def test_truncate_counts_hits_beyond_k():
    # list a, x, b, c truncated to 3: hits a, b; P@2 = 2/2, R@2 = 2/3
    items = ["a", "x", "b", "c"]
    assert ml.precision_at_k(items, GRADES, k=2, truncate=3) == 1.0
    assert ml.recall_at_k(items, GRADES, k=2, truncate=3) == 2 / 3
    # truncate below k: only the first item
    assert ml.precision_at_k(items, GRADES, k=3, truncate=1) == 1 / 3


def test_r_precision_cut_at_k_and_no_hit():
    # |R| = 3; list x, y, a, b: top min(2, 3) = x, y -> no hit
    assert ml.r_precision(["x", "y", "a", "b"], GRADES, k=2) == 0.0
    assert math.isnan(ml.r_precision(["x", "y", "a", "b"], GRADES, k=2, no_hit="nan"))
    # k = 4 >= |R|: top 3 = x, y, a -> 1/3
    assert ml.r_precision(["x", "y", "a", "b"], GRADES, k=4) == 1 / 3
    assert ml.r_precision(["x", "y", "a", "b"], GRADES) == 1 / 3


def test_unjudged_users_in_evaluate():
    recs = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"],
                         "score": [2.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": ["a"], "relevance": [1]})
    skipped = evaluate(recs, truth, ["precision@2"])
    assert list(skipped.index) == [1]
    kept = evaluate(recs, truth, ["precision@2"], unjudged="empty")
    assert kept["precision@2"].to_dict() == {1: 0.5, 2: 0.0}
    nan = evaluate(recs, truth, ["precision@2"], unjudged="empty", empty="nan")
    assert math.isnan(nan.loc[2, "precision@2"])


def test_empty_one_scores_users_with_nothing_relevant_as_one():
    # torchmetrics empty_target_action="pos"; scikit-learn zero_division=1.0
    assert ml.precision_at_k(["a"], {"b": 0}, k=1, empty="one") == 1.0
    assert ml.ndcg_at_k(["a"], {"b": 0}, empty="one") == 1.0
    assert ml.precision([0, 0], [0, 0], empty="one") == 1.0
    recs = pd.DataFrame({"user": [1, 2], "item": ["a", "a"], "score": [1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": ["a", "b"], "relevance": [1, 0]})
    result = evaluate(recs, truth, ["recall@1", "ndcg@1", "num_rel_ret@1"], empty="one")
    assert result.loc[2].tolist() == [1.0, 1.0, 0.0]   # a count is never empty
    assert result.loc[1].tolist() == [1.0, 1.0, 1.0]


def test_no_hit_in_evaluate():
    recs = pd.DataFrame({"user": [1, 1, 2, 2], "item": ["a", "b", "a", "c"],
                         "score": [2.0, 1.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2, 3], "item": ["a", "b", "a"],
                          "relevance": [1, 1, 0]})
    result = evaluate(recs, truth, ["rprec@1", "ndcg@2", "num_rel_ret@2", "dcg@2"],
                      no_hit="nan")
    assert result.loc[1].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert np.isnan(result.loc[2, "rprec@1"]) and np.isnan(result.loc[2, "ndcg@2"])
    assert result.loc[2, "num_rel_ret@2"] == 0.0 and result.loc[2, "dcg@2"] == 0.0
    assert result.loc[3].tolist() == [0.0, 0.0, 0.0, 0.0]   # empty, not no-hit


def test_candidates_keeps_the_judgements_of_listed_items():
    # listed: x, b, a; judged and listed: a (3), b (1); c (2) is not listed
    items = ["x", "b", "a"]
    assert ml.recall_at_k(items, GRADES, k=2) == 1 / 3
    assert ml.recall_at_k(items, GRADES, k=2, candidates="recommended") == 1 / 2
    # R = 2 among listed items: top 2 = x, b -> 1/2 (all judgements: R = 3 -> 2/3)
    assert ml.r_precision(items, GRADES, candidates="recommended") == 1 / 2
    assert ml.r_precision(items, GRADES) == 2 / 3
    # ideal of the listed grades 3, 1: (1/log2(3) + 3/2) / (3 + 1/log2(3))
    expected = (1 / log2(2) + 3 / log2(3)) / (3 / log2(1) + 1 / log2(2))
    assert ml.ndcg_at_k(items, GRADES, candidates="recommended") == pytest.approx(
        expected, abs=1e-15)
    # nothing judged in the list: the user has nothing relevant
    assert math.isnan(ml.recall_at_k(["x"], GRADES, candidates="recommended", empty="nan"))


# -- bad values -------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, match", [
    ({"precision_denominator": "relevant"}, ValueError, "precision_denominator must be one of"),
    ({"recall_denominator": "k"}, ValueError, "recall_denominator must be one of"),
    ({"denominator": "k"}, ValueError, "ask for 'map@k'"),
    ({"ideal": "k"}, ValueError, "ask for 'ndcg@k'"),
    ({"gain": {}}, ValueError, "empty mapping"),
    ({"gain": {1: -1}}, ValueError, "gain of grade 1"),
    ({"gain": 2}, TypeError, "or a mapping"),
    ({"gain": {0: 0, 1: 1}}, ValueError, "grade 2 has no entry"),
    ({"min_grade": "2"}, TypeError, "min_grade must be a real"),
    ({"min_grade": math.inf}, ValueError, "min_grade must be finite"),
    ({"judged_only": 1}, TypeError, "judged_only must be True or False"),
    ({"unjudged": "neg"}, ValueError, "unjudged must be one of"),
    ({"truncate": 0}, ValueError, "truncate must be a positive"),
    ({"truncate": 2.5}, TypeError, "truncate must be a positive"),
    ({"no_hit": "skip"}, ValueError, "no_hit must be one of"),
    ({"candidates": "judged"}, ValueError, "candidates must be one of"),
])
def test_bad_keyword_values_are_refused(kwargs, error, match):
    recs = pd.DataFrame({"user": [1], "item": ["a"], "score": [1.0]})
    truth = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "relevance": [1, 2]})
    with pytest.raises(error, match=match):
        evaluate(recs, truth, ["map", "ndcg", "precision@2"], **kwargs)


@pytest.mark.parametrize("call, error, match", [
    (lambda: ml.precision_at_k(["a"], {"a"}, denominator="relevant"), ValueError,
     "denominator must be one of 'k'"),
    (lambda: ml.recall_at_k(["a"], {"a"}, denominator="k"), ValueError,
     "denominator must be one of 'relevant', 'min_k'"),
    (lambda: ml.ndcg_at_k(["a"], {"a"}, gain="binari"), ValueError, "'binary'"),
    (lambda: ml.ndcg_at_k(["a"], {"a"}, gain=[1, 2]), TypeError, "or a mapping"),
    (lambda: ml.ndcg_at_k(["a"], {"a"}, k=2**30, ideal="k"), ValueError, "at most"),
    (lambda: ml.dcg_at_k(["a"], {"a"}, min_grade=None, judged_only="yes"), TypeError,
     "judged_only must be True or False"),
    (lambda: ml.hit_count_at_k(["a"], {"a"}, truncate=-1), ValueError, "truncate must be a positive"),
    (lambda: ml.r_precision(["a"], {"a"}, no_hit="skip"), ValueError, "no_hit must be one of"),
    (lambda: ml.r_precision(["a"], {"a"}, k=0), ValueError, "k must be a positive"),
    (lambda: ml.precision_at_k(["a"], {"a"}, candidates=True), ValueError,
     "candidates must be one of"),
])
def test_bad_per_list_values_are_refused(call, error, match):
    with pytest.raises(error, match=match):
        call()


# -- randomised: evaluate equals the per-list functions ---------------------

def random_tables(seed, n_users=30, n_items=15):
    """Ties, short and empty lists, users only on one side, grades 0-3 (or halves)."""
    rng = np.random.default_rng(seed)
    halves = seed % 5 == 4
    rec_rows, truth_rows = [], []
    for user in range(n_users):
        length = int(rng.integers(0, 10))
        items = rng.choice(n_items, size=length, replace=False)
        scores = rng.integers(0, 5, size=length) / 4
        rec_rows += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        if user % 6 != 2:
            judged = rng.choice(n_items, size=int(rng.integers(1, 8)), replace=False)
            grades = rng.integers(0, 4 if not halves else 7, size=judged.size)
            grades = grades / 2 if halves else grades
            truth_rows += [(user, int(i), float(g)) for i, g in zip(judged, grades)]
    recs = pd.DataFrame(rec_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    return recs.sample(frac=1.0, random_state=seed).reset_index(drop=True), truth


ID_KINDS = ["int64", "uint64-huge", "Int64", "int64[pyarrow]", "string[pyarrow]",
            "object-str"]


def with_ids(frame, kind):
    """The same table with ids of another dtype (values the per-list side sees)."""
    frame = frame.copy()
    for column in ("user", "item"):
        values = frame[column]
        if kind == "uint64-huge":       # beyond 2**63: 64-bit ids compared exactly
            frame[column] = values.astype("uint64") + np.uint64(2**63 + 7)
        elif kind in ("Int64", "int64[pyarrow]"):
            frame[column] = values.astype(kind)
        elif kind == "string[pyarrow]":
            frame[column] = (column[0] + values.astype(str)).astype("string[pyarrow]")
        elif kind == "object-str":
            frame[column] = (column[0] + values.astype(str)).astype(object)
    return frame


def python_ids(values):
    return [v.item() if hasattr(v, "item") else (str(v) if isinstance(v, str) else v)
            for v in values]


def ranked(rows):
    """trec_eval's order: score descending, then item id as text descending."""
    pairs = list(zip(python_ids(rows["item"]), rows["score"].tolist()))
    pairs.sort(key=lambda p: (p[1], str(p[0]).encode()), reverse=True)
    return [item for item, _ in pairs]


def per_list_value(kind, k, items, relevant, conv):
    level, empty = conv["relevance_level"], conv["empty"]
    lists = {"judged_only": conv["judged_only"], "truncate": conv["truncate"],
             "candidates": conv["candidates"]}
    graded = {"gain": conv["gain"], "relevance_level": level,
              "min_grade": conv["min_grade"], "log_base": 2, **lists}
    if kind == "precision":
        return ml.precision_at_k(items, relevant, k, denominator=conv["precision_denominator"],
                                 relevance_level=level, empty=empty, **lists)
    if kind == "recall":
        return ml.recall_at_k(items, relevant, k, denominator=conv["recall_denominator"],
                              relevance_level=level, empty=empty, **lists)
    if kind == "ap":
        return ml.average_precision(items, relevant, k, denominator=conv["denominator"],
                                    relevance_level=level, empty=empty, **lists)
    if kind in ("f1", "hit", "rr"):
        function = {"f1": ml.f1_at_k, "hit": ml.hit_at_k, "rr": ml.reciprocal_rank}[kind]
        return function(items, relevant, k, relevance_level=level, empty=empty, **lists)
    if kind == "num_rel_ret":
        return ml.hit_count_at_k(items, relevant, k, relevance_level=level, **lists)
    if kind == "rprec":
        return ml.r_precision(items, relevant, k, relevance_level=level, empty=empty,
                              no_hit=conv["no_hit"], **lists)
    if kind == "ndcg":
        return ml.ndcg_at_k(items, relevant, k, ideal=conv["ideal"], empty=empty, **graded)
    return ml.dcg_at_k(items, relevant, k, **graded)


def expected_column(recs, truth, metric, conv):
    kind, k = parse_metric(metric)
    users = set(python_ids(truth["user"]))
    rec_users = set(python_ids(recs["user"]))
    if conv["missing"] == "skip":
        users &= rec_users
    if conv["unjudged"] == "empty":
        users |= rec_users
    rec_user = python_ids(recs["user"])
    truth_user = python_ids(truth["user"])
    out = {}
    for user in users:
        rows = recs[[u == user for u in rec_user]]
        judged = truth[[u == user for u in truth_user]]
        relevant = dict(zip(python_ids(judged["item"]), judged["relevance"].tolist()))
        items = ranked(rows)
        value = per_list_value(kind, k, items, relevant, conv)
        if conv["no_hit"] == "nan" and kind not in ("num_rel_ret", "dcg", "rprec") \
                and value == 0.0:
            # a user with something relevant scores nan; an empty user keeps `empty`
            is_empty = math.isnan(per_list_value(kind, k, items, relevant,
                                                 dict(conv, empty="nan", no_hit="zero")))
            if not is_empty:
                value = math.nan
        out[user] = value
    return out


def random_conventions(seed):
    rng = np.random.default_rng(seed)
    pick = lambda options: options[int(rng.integers(0, len(options)))]  # noqa: E731
    gain = pick(["linear", "exponential", "binary", "map", "map"])
    if gain == "map":   # non-monotone on purpose, every grade 0, 0.5, ..., 3
        gain = {g / 2: float(rng.integers(0, 8)) for g in range(7)}
    return {
        "precision_denominator": pick(["k", "min_k", "retrieved"]),
        "recall_denominator": pick(["relevant", "min_k"]),
        "denominator": pick(["relevant", "min_k", "retrieved", "k"]),
        "gain": gain,
        "ideal": pick(["judged", "retrieved", "k"]),
        "min_grade": pick([None, None, 1, 2, 1.5]),
        "relevance_level": pick([1, 2, 0.5]),
        "judged_only": bool(rng.integers(0, 2)),
        "unjudged": pick(["skip", "empty"]),
        "truncate": pick([None, None, 1, 3, 6]),
        "no_hit": pick(["zero", "nan"]),
        "candidates": pick(["all", "recommended"]),
        "empty": pick(["zero", "nan", "one"]),
        "missing": pick(["zero", "skip"]),
    }


CUT_METRICS = ["precision@3", "recall@2", "f1@3", "hit@2", "mrr@3", "map@3", "ndcg@3",
               "dcg@2", "num_rel_ret@3", "rprec@2", "precision@12", "ndcg@12"]
UNCUT_METRICS = ["precision", "recall", "mrr", "map", "ndcg", "dcg", "num_rel_ret",
                 "rprec", "hit"]


@pytest.mark.parametrize("seed", range(24))
def test_evaluate_equals_the_per_list_functions(seed):
    conv = random_conventions(seed)
    metrics = list(CUT_METRICS)
    if conv["denominator"] != "k":
        metrics.append("map")
    if conv["ideal"] != "k":
        metrics.append("ndcg")
    metrics += [m for m in UNCUT_METRICS if m not in ("map", "ndcg")]
    recs, truth = random_tables(seed)
    kind = ID_KINDS[seed % len(ID_KINDS)]
    recs, truth = with_ids(recs, kind), with_ids(truth, kind)
    before = (recs.copy(), truth.copy())
    result = evaluate(recs, truth, metrics, **conv)
    pd.testing.assert_frame_equal(recs, before[0])      # inputs not mutated
    pd.testing.assert_frame_equal(truth, before[1])
    got_users = python_ids(result.index)
    for metric in metrics:
        expected = expected_column(recs, truth, metric, conv)
        assert sorted(got_users, key=str) == sorted(expected, key=str), metric
        got = dict(zip(got_users, result[metric].tolist()))
        for user, value in expected.items():
            assert got[user] == pytest.approx(value, rel=1e-12, abs=1e-12, nan_ok=True), \
                (metric, user, conv)


@pytest.mark.parametrize("seed", range(3))
def test_dask_passes_the_keywords_through(seed):
    conv = random_conventions(100 + seed)
    conv["denominator"], conv["ideal"] = "k", "k"
    metrics = CUT_METRICS
    recs, truth = random_tables(100 + seed)
    expected = evaluate(recs, truth, metrics, **conv)
    got = evaluate(*in_library("dask", recs, truth), metrics, **conv).compute().sort_index()
    pd.testing.assert_frame_equal(got, expected, check_dtype=False, check_index_type=False,
                                  rtol=1e-12, atol=1e-12)


# -- the peers' per-user values ---------------------------------------------

PEERS = Path(__file__).resolve().parent.parent / "benchmarks" / "peers"
KS = [1, 3, 5, 10, 20]


def _options(opts, k):
    return opts(k) if callable(opts) else opts


def _tm(extra):
    return lambda k: {**extra, **({} if k is None else {"top_k": k})}


# (peer, peer metric (ranx: name before @), golden options, ks, our metric, keywords,
#  scores, truth rows kept (grade >= this; 0: every row), tolerance)
GOLDEN_CASES = [
    ("ranx", "hits", {"make_comparable": True}, KS, "num_rel_ret@{k}",
     {"missing": "zero"}, "untied", 0, 1e-9),
    ("ranx", "ndcg", {"make_comparable": True, "rel_lvl": 2}, KS, "ndcg@{k}",
     {"min_grade": 2}, "untied", 0, 1e-9),
    ("ranx", "r-precision", {"make_comparable": True}, [None], "rprec", {}, "untied", 0,
     1e-9),
    ("rectools", "Precision", {"r_precision": True}, KS, "precision@{k}",
     {"precision_denominator": "min_k", "relevance_col": None, "missing": "zero"},
     "tied", 0, 1e-9),
    ("rectools", "MAP", {"divide_by_k": True}, KS, "map@{k}",
     {"denominator": "k", "relevance_col": None, "missing": "zero"}, "tied", 0, 1e-9),
    ("rectools", "NDCG", {}, KS, "ndcg@{k}",
     {"ideal": "k", "gain": "binary", "relevance_col": None, "missing": "zero"}, "tied", 0, 1e-9),
    ("rectools", "NDCG", {"divide_by_achievable": True}, KS, "ndcg@{k}",
     {"gain": "binary", "relevance_col": None, "missing": "zero"}, "tied", 0, 1e-9),
    ("recommenders", "precision_at_k", {"relevancy_method": "by_threshold"}, KS,
     "precision@{k}", {"truncate": 10, "ties": "input", "relevance_col": None}, "tied", 0,
     1e-9),
    ("recommenders", "recall_at_k", {"relevancy_method": "by_threshold"}, KS,
     "recall@{k}", {"truncate": 10, "ties": "input", "relevance_col": None}, "tied", 0,
     1e-9),
    ("recommenders", "map_at_k", {"relevancy_method": "by_threshold"}, KS, "map@{k}",
     {"truncate": 10, "ties": "input", "denominator": "min_k",
      "relevance_col": None}, "tied", 0, 1e-9),
    ("recommenders", "ndcg_at_k", {"relevancy_method": "by_threshold"}, KS, "ndcg@{k}",
     {"truncate": 10, "ties": "input", "gain": "binary",
      "relevance_col": None}, "tied", 0, 1e-9),
    ("recommenders", "r_precision_at_k", {"relevancy_method": "top_k"}, KS, "rprec@{k}",
     {"ties": "input", "no_hit": "nan", "relevance_col": None}, "tied", 0, 1e-9),
    ("torchmetrics", "RetrievalPrecision",
     _tm({"adaptive_k": True, "empty_target_action": "neg"}), KS, "precision@{k}",
     {"precision_denominator": "retrieved", "unjudged": "empty", "missing": "skip"},
     "untied", 0, 1e-6),
    ("torchmetrics", "RetrievalPrecision", _tm({"empty_target_action": "neg"}),
     [None] + KS, "precision@{k}", {"unjudged": "empty", "missing": "skip"}, "untied", 0,
     1e-6),
    ("torchmetrics", "RetrievalRecall", _tm({"empty_target_action": "neg"}), [None] + KS,
     "recall@{k}", {"candidates": "recommended", "unjudged": "empty", "missing": "skip"},
     "untied", 0, 1e-6),
    ("torchmetrics", "RetrievalMAP", _tm({"empty_target_action": "skip"}), [None] + KS,
     "map@{k}", {"candidates": "recommended", "unjudged": "empty", "missing": "skip",
                 "denominator": "retrieved", "empty": "nan"}, "untied", 0, 1e-6),
    ("torchmetrics", "RetrievalNormalizedDCG", _tm({"empty_target_action": "neg"}),
     [None] + KS, "ndcg@{k}",
     {"candidates": "recommended", "unjudged": "empty", "missing": "skip"}, "untied", 0,
     1e-6),
    ("torchmetrics", "RetrievalHitRate", _tm({"empty_target_action": "pos"}), [None] + KS,
     "hit@{k}", {"candidates": "recommended", "unjudged": "empty", "missing": "skip",
                 "empty": "one"}, "untied", 0, 1e-6),
    ("torchmetrics", "RetrievalRPrecision", {"empty_target_action": "neg"}, [None],
     "rprec", {"candidates": "recommended", "unjudged": "empty", "missing": "skip"},
     "untied", 0, 1e-6),
    ("sklearn", "ndcg_score", {"candidates": "recommended", "ignore_ties": True},
     [None] + KS, "ndcg@{k}", {"candidates": "recommended", "unjudged": "empty"},
     "untied", 0, 1e-9),
    ("ir_measures", "nDCG", {"gains": {"0": 0, "1": 1, "2": 3, "3": 7},
                             "measure": "nDCG(gains={2:3,3:7})", "provider": "pytrec_eval"},
     [None] + KS, "ndcg@{k}", {"gain": {0: 0, 1: 1, 2: 3, 3: 7}}, "untied", 0, 1e-9),
    ("ir_measures", "nDCG", {"judged_only": True, "measure": "nDCG(judged_only=True)",
                             "provider": "pytrec_eval"},
     [None] + KS, "ndcg@{k}", {"judged_only": True}, "untied", 0, 1e-9),
    ("ir_measures", "AP", {"judged_only": True, "measure": "AP(judged_only=True)",
                           "provider": "pytrec_eval"},
     KS, "map@{k}", {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "P", {"judged_docs_only_flag": True}, KS, "P_{k}",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "ndcg_cut", {"judged_docs_only_flag": True}, KS, "ndcg_cut_{k}",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "recall", {"judged_docs_only_flag": True}, KS, "recall_{k}",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "map_cut", {"judged_docs_only_flag": True}, KS, "map_cut_{k}",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "success", {"judged_docs_only_flag": True}, KS, "success_{k}",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "recip_rank", {"judged_docs_only_flag": True}, [None], "mrr",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("torchmetrics", "RetrievalMRR", _tm({"empty_target_action": "skip"}), [None] + KS,
     "mrr@{k}", {"candidates": "recommended", "unjudged": "empty", "missing": "skip",
                 "empty": "nan"}, "untied", 0, 1e-6),
    ("torchmetrics", "RetrievalPrecision", _tm({"empty_target_action": "pos"}),
     [None] + KS, "precision@{k}", {"candidates": "recommended", "unjudged": "empty",
                                    "missing": "skip", "empty": "one"}, "untied", 0, 1e-6),
    ("trec_eval", "map", {"judged_docs_only_flag": True}, [None], "map",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "Rprec", {"judged_docs_only_flag": True}, [None], "rprec",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("trec_eval", "num_rel_ret", {"judged_docs_only_flag": True}, [None], "num_rel_ret",
     {"judged_only": True}, "untied", 0, 1e-9),
    ("recbole", "ndcg", {}, KS, "ndcg@{k}",
     {"gain": "binary", "missing": "zero", "unjudged": "empty", "relevance_col": None},
     "untied", 0, 1e-6),
]


@pytest.fixture(scope="module")
def corpus():
    if not (PEERS / "golden").is_dir():
        pytest.skip("benchmarks/peers/golden is missing")
    return {
        "truth": pd.read_csv(PEERS / "corpus" / "truth.csv"),
        "tied": pd.read_csv(PEERS / "corpus" / "recommendations.csv"),
        "untied": pd.read_csv(PEERS / "corpus" / "recommendations_untied.csv"),
    }


@pytest.mark.parametrize("case", GOLDEN_CASES,
                         ids=[f"{c[0]}-{c[1]}-{'-'.join(c[5])}" for c in GOLDEN_CASES])
def test_keywords_reproduce_the_peers(case, corpus):
    peer, metric, options, ks, ours, keywords, scores, min_grade, tol = case
    golden = pd.read_csv(PEERS / "golden" / f"{peer}.csv")
    golden = golden[golden["scores"] == scores]
    truth = corpus["truth"]
    if min_grade:   # the peer was given the relevant rows only (its docstring says why)
        truth = truth[truth["grade"] >= min_grade]
    n_rows = 0
    for k in ks:
        wanted = json.dumps(_options(options, k), sort_keys=True)
        rows = golden[golden["options"] == wanted]
        rows = rows[rows["k"].isna()] if k is None else rows[rows["k"] == k]
        if peer == "ranx":
            suffix = "-l2" if _options(options, k).get("rel_lvl") == 2 else ""
            rows = rows[rows["metric"] == (metric if k is None else f"{metric}@{k}{suffix}")]
        else:
            rows = rows[rows["metric"] == metric]
        name = ours.format(k=k) if k is not None else ours.split("@")[0].split("_{")[0]
        result = evaluate(corpus[scores], truth, [name],
                          **{"relevance_col": "grade", **keywords})[name]
        if peer == "recommenders" and metric == "r_precision_at_k":
            # Called on one user, r_precision_at_k returns 0.0 for a user with no
            # hit in the top k (its df_hit.shape[0] == 0 guard); over many users
            # such a user is absent from df_hit_count and leaves its mean, as
            # no_hit="nan" says.
            hits = evaluate(corpus[scores], truth, [f"num_rel_ret@{k}"],
                            relevance_col=None, ties="input")[f"num_rel_ret@{k}"]
            result = result.where(hits > 0, 0.0)
        assert not rows.empty, (peer, metric, k)
        assert set(rows["user"]) <= set(result.index), (peer, metric, k)
        mine = result.loc[rows["user"]].to_numpy()
        np.testing.assert_allclose(mine, rows["value"].to_numpy(), rtol=0, atol=tol,
                                   equal_nan=True, err_msg=f"{peer} {metric} k={k}")
        n_rows += len(rows)
    assert n_rows > 0


@pytest.mark.parametrize("seed", range(4))
def test_threads_give_identical_results_with_the_keywords(seed, monkeypatch):
    import sys
    module = sys.modules["metrics_lib.batch.chunks"]
    monkeypatch.setattr(module, "_MIN_ROWS_PER_THREAD", 5)   # chunks on small tables
    conv = dict(random_conventions(200 + seed), denominator="k", ideal="k")
    recs, truth = random_tables(200 + seed)
    metrics = CUT_METRICS + ["rprec", "num_rel_ret"]
    one = evaluate(recs, truth, metrics, **conv)
    three = evaluate(recs, truth, metrics, n_jobs=3, **conv)
    pd.testing.assert_frame_equal(one, three, check_exact=True)
