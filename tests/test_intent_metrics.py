"""Intent-aware metrics (issue 29): alpha-nDCG, ERR-IA, P-IA and subtopic recall against ndeval.

The reference values (``benchmarks/peers/golden/intents/``) were computed by
pyndeval 0.0.8, which compiles ndeval 4.5 (the TREC Web track's program, the
one ir-measures 0.4.3 calls for ``alpha_nDCG``, ``ERR_IA``, ``P_IA`` and
``StRecall``), on a seeded random run and qrels by subtopic with tied scores,
grades 0 to 3, one to six subtopics per user, subtopics and users without a
relevant document, lists of 0 to 15 documents and documents relevant to
several subtopics; regenerate them with ``benchmarks/peers/intents.py``.
pyndeval returns doubles, so the comparisons allow 1e-12.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import (alpha_ndcg_at_k, err_ia_at_k, evaluate, precision_ia_at_k,
                         subtopic_recall_at_k)
from _helpers import as_frame, in_library

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "benchmarks" / "peers" / "golden" / "intents"
OURS = {"alpha-nDCG": "alpha_ndcg", "ERR-IA": "err_ia", "P-IA": "p_ia", "strec": "s_recall"}
PER_LIST = {"alpha-nDCG": alpha_ndcg_at_k, "ERR-IA": err_ia_at_k, "P-IA": precision_ia_at_k,
            "strec": subtopic_recall_at_k}
KS = (1, 2, 3, 5, 10, 20)
TOL = 1e-12


def _tables():
    run = pd.read_csv(GOLDEN / "run.txt", sep=" ", header=None,
                      names=["user", "q0", "item", "rank", "score", "tag"])
    qrels = pd.read_csv(GOLDEN / "qrels.txt", sep=" ", header=None,
                        names=["user", "intent", "item", "relevance"])
    return run[["user", "item", "score"]], qrels


def _reference():
    ref = pd.read_csv(GOLDEN / "ndeval.csv")
    return {(int(r.user), int(r.level), r.measure, int(r.k)): float(r.value)
            for r in ref.itertuples()}


REFERENCE = _reference()
RUN, QRELS = _tables()
NAMES = [f"{OURS[m]}@{k}" for m in OURS for k in KS]


def _n_intents(qrels, level):
    relevant = qrels[qrels["relevance"] >= level]
    return relevant.groupby("user")["intent"].nunique()


def _compare(result, level, skip_err_ia_at_1=True):
    """(values compared, largest difference) of evaluate's table against ndeval's."""
    count, worst = 0, 0.0
    for (user, lev, measure, k), value in REFERENCE.items():
        if lev != level or (skip_err_ia_at_1 and measure == "ERR-IA" and k == 1):
            continue
        ours = result.loc[user, f"{OURS[measure]}@{k}"]
        assert abs(ours - value) <= TOL, (user, level, measure, k, ours, value)
        worst = max(worst, abs(ours - value))
        count += 1
    return count, worst


# -- the golden files -----------------------------------------------------------------

def test_golden_files_are_the_generator_corpus():
    sys.path.insert(0, str(ROOT / "benchmarks" / "peers"))
    try:
        import intents as generator
    finally:
        sys.path.pop(0)
    run, qrels = generator.corpus()
    assert list(RUN.itertuples(index=False, name=None)) == run
    assert list(QRELS[["user", "intent", "item", "relevance"]].itertuples(
        index=False, name=None)) == qrels
    # what the data was made to have
    assert RUN.groupby("user")["score"].apply(lambda s: s.duplicated().any()).any()
    per_user = QRELS.groupby("user")
    assert (per_user["intent"].nunique() >= 4).any()
    assert (per_user["relevance"].max() == 0).any()          # nothing relevant
    by_intent = QRELS.groupby(["user", "intent"])["relevance"].max()
    assert ((by_intent == 0) & (by_intent.groupby(level=0).transform("max") > 0)).any()
    assert (QRELS[QRELS.relevance > 0].groupby(["user", "item"]).size() > 1).any()
    assert set(QRELS.user) - set(RUN.user) and set(RUN.user) - set(QRELS.user)


# -- evaluate against ndeval, user by user ----------------------------------------------

@pytest.mark.parametrize("level", [1, 2])
def test_evaluate_matches_ndeval_per_user(level):
    result = evaluate(RUN, QRELS, NAMES, intent_col="intent", relevance_level=level,
                      ties="item_asc", missing="zero")
    count, worst = _compare(result, level)
    assert count == len({u for u, lev, _, _ in REFERENCE if lev == level}) * (4 * len(KS) - 1)
    assert worst <= TOL
    # users judged but not recommended to (ndeval reports none of them): 0
    unlisted = sorted(set(QRELS.user) - set(RUN.user))
    assert (result.loc[unlisted].to_numpy() == 0).all()
    # evaluate reports the users of truth, and only them
    assert sorted(result.index) == sorted(set(QRELS.user))


@pytest.mark.parametrize("level", [1, 2])
def test_err_ia_at_1_is_ndevals_over_the_number_of_intents(level):
    # ndeval 4.5 does not divide ERR-IA@1 (its normalising loop starts at rank 2)
    result = evaluate(RUN, QRELS, ["err_ia@1"], intent_col="intent", relevance_level=level,
                      ties="item_asc", missing="skip")
    intents = _n_intents(QRELS, level)
    for (user, lev, measure, k), value in REFERENCE.items():
        if lev == level and measure == "ERR-IA" and k == 1:
            ours = result.loc[user, "err_ia@1"] * intents.get(user, 0)
            assert abs(ours - value) <= TOL, (user, ours, value)


def _per_list_inputs(level_run=RUN, qrels=QRELS):
    """Each user's list in pyndeval's order (score descending, docno ascending) and
    judgements as item -> {intent: grade}."""
    lists = {user: list(frame.sort_values(["score", "item"], ascending=[False, True])["item"])
             for user, frame in level_run.groupby("user")}
    truth = {}
    for user, intent, item, grade in qrels.itertuples(index=False, name=None):
        truth.setdefault(user, {}).setdefault(item, {})[intent] = grade
    return lists, truth


@pytest.mark.parametrize("level", [1, 2])
def test_per_list_functions_match_ndeval(level):
    lists, truth = _per_list_inputs()
    count = 0
    for (user, lev, measure, k), value in REFERENCE.items():
        if lev != level or (measure == "ERR-IA" and k == 1):
            continue
        ours = PER_LIST[measure](lists[user], truth[user], k, relevance_level=level)
        assert abs(ours - value) <= TOL, (user, measure, k, ours, value)
        count += 1
    assert count > 3000


def test_evaluate_equals_the_per_list_functions_with_other_alphas_and_cutoffs():
    # evaluate's alpha is ndeval's 0.5; the cut-offs past ndeval's depth of 20
    lists, truth = _per_list_inputs()
    result = evaluate(RUN, QRELS, ["alpha_ndcg@25", "err_ia@1", "p_ia@30", "s_recall@4"],
                      intent_col="intent", ties="item_asc", missing="skip")
    for user in result.index:
        items, judged = lists[user], truth[user]
        assert result.loc[user, "alpha_ndcg@25"] == pytest.approx(
            alpha_ndcg_at_k(items, judged, 25), abs=TOL)
        assert result.loc[user, "err_ia@1"] == pytest.approx(
            err_ia_at_k(items, judged, 1), abs=TOL)
        assert result.loc[user, "p_ia@30"] == pytest.approx(
            precision_ia_at_k(items, judged, 30), abs=TOL)
        assert result.loc[user, "s_recall@4"] == pytest.approx(
            subtopic_recall_at_k(items, judged, 4), abs=TOL)


# -- ids, dtypes, backends, chunks ------------------------------------------------------

def _baseline():
    return evaluate(RUN, QRELS, NAMES, intent_col="intent", ties="item_asc",
                    missing="zero")


def _as_ints(frame, offset=0, dtype="int64"):
    out = frame.assign(item=frame["item"].str[1:].astype("int64"))
    out["item"] = (out["item"].astype("uint64") + np.uint64(offset)).astype(dtype) \
        if offset else out["item"].astype(dtype)
    return out


@pytest.mark.parametrize("variant", ["int64", "uint64_2**63", "Int64", "string[pyarrow]",
                                     "str_users", "str_intents", "n_jobs"])
def test_ids_and_dtypes_do_not_change_the_values(variant):
    want = _baseline()
    run, qrels, keywords = RUN, QRELS, {}
    if variant == "int64":  # docnos of one width: integer order is strcmp order
        run, qrels = _as_ints(RUN), _as_ints(QRELS)
    elif variant == "uint64_2**63":
        run, qrels = _as_ints(RUN, 2**63, "uint64"), _as_ints(QRELS, 2**63, "uint64")
    elif variant == "Int64":
        run, qrels = _as_ints(RUN, dtype="Int64"), _as_ints(QRELS, dtype="Int64")
        qrels = qrels.astype({"intent": "Int64", "relevance": "Int64"})
    elif variant == "string[pyarrow]":
        run = RUN.astype({"item": "string[pyarrow]"})
        qrels = QRELS.astype({"item": "string[pyarrow]"})
    elif variant == "str_users":
        run = RUN.assign(user="u" + RUN["user"].astype(str))
        qrels = QRELS.assign(user="u" + QRELS["user"].astype(str))
        want = want.set_axis("u" + want.index.astype(str))
    elif variant == "str_intents":
        qrels = QRELS.assign(intent="subtopic " + QRELS["intent"].astype(str))
    else:
        keywords = {"n_jobs": 2}
    got = evaluate(run, qrels, NAMES, intent_col="intent", ties="item_asc", missing="zero",
                   **keywords)
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_names=False,
                                  check_index_type=False, rtol=0, atol=TOL)


@pytest.mark.parametrize("library", ["polars", "pyarrow", "dask"])
def test_polars_arrow_and_dask_tables(library):
    want = _baseline()
    run, qrels = in_library(library, RUN, QRELS)
    got = evaluate(run, qrels, NAMES, intent_col="intent", ties="item_asc", missing="zero")
    got = as_frame(got)
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_names=False,
                                  check_index_type=False, rtol=0, atol=TOL)


def test_inputs_are_not_mutated():
    run, qrels = RUN.copy(), QRELS.copy()
    evaluate(run, qrels, ["alpha_ndcg@5"], intent_col="intent", missing="zero")
    pd.testing.assert_frame_equal(run, RUN)
    pd.testing.assert_frame_equal(qrels, QRELS)
    judged = {"a": {1: 2, 2: 0}, "b": {1: 1}}
    alpha_ndcg_at_k(["b", "a"], judged, 2)
    assert judged == {"a": {1: 2, 2: 0}, "b": {1: 1}}


# -- the keywords that act on the lists ---------------------------------------------------

def test_relevance_level_0_judged_only_truncate_and_candidates():
    lists, truth = _per_list_inputs()
    names = ["alpha_ndcg@5", "err_ia@5", "p_ia@5", "s_recall@5"]
    functions = [alpha_ndcg_at_k, err_ia_at_k, precision_ia_at_k, subtopic_recall_at_k]
    cases = {
        "level0": ({"relevance_level": 0}, lambda items, judged: (items, judged, 0)),
        "judged_only": ({"judged_only": True},
                        lambda items, judged: ([i for i in items if i in judged], judged, 1)),
        # truncate=3 keeps the first 3 items; k=5 still sets P-IA's denominator
        "truncate": ({"truncate": 3}, lambda items, judged: (items[:3], judged, 1)),
        "candidates": ({"candidates": "recommended"},
                       lambda items, judged: (items, {i: g for i, g in judged.items()
                                                      if i in items}, 1)),
    }
    for case, (keywords, change) in cases.items():
        result = evaluate(RUN, QRELS, names, intent_col="intent", ties="item_asc",
                          missing="skip", **keywords)
        for user in result.index:
            items, judged, level = change(lists[user], truth[user])
            for name, function in zip(names, functions):
                want = function(items, judged, 5, relevance_level=level)
                assert result.loc[user, name] == pytest.approx(want, abs=TOL), \
                    (case, user, name)


# -- reductions to the one-intent metrics -------------------------------------------------

def test_one_intent_reduces_to_the_binary_metrics():
    # with one intent: S-recall@k is hit@k, P-IA@k precision@k, alpha-nDCG@k
    # with alpha = 0 NDCG@k of binary gains (the greedy ideal is then exact)
    rng = np.random.default_rng(7)
    for _ in range(200):
        pool = [f"i{j:02d}" for j in rng.permutation(20)]
        items = pool[:int(rng.integers(0, 12))]
        judged = {item: {"only": int(g)} for item, g in
                  zip(pool[5:], rng.integers(0, 3, size=15)) if rng.random() < 0.7}
        binary = {item: 1 for item, g in judged.items() if g["only"] >= 1}
        k = int(rng.integers(1, 12))
        if not binary:
            assert subtopic_recall_at_k(items, judged, k) == 0.0
            continue
        assert subtopic_recall_at_k(items, judged, k) == ml.hit_at_k(items, binary, k)
        assert precision_ia_at_k(items, judged, k) == pytest.approx(
            ml.precision_at_k(items, binary, k), abs=TOL)
        assert alpha_ndcg_at_k(items, judged, k, alpha=0.0) == pytest.approx(
            ml.ndcg_at_k(items, binary, k), abs=TOL)
        # alpha = 1: ERR-IA@k is reciprocal rank cut at k (the ideal ideal is 1)
        assert err_ia_at_k(items, judged, k, alpha=1.0) == pytest.approx(
            ml.reciprocal_rank(items[:k], binary), abs=TOL)


def test_worked_example():
    # a covers intents 1 and 2, b intent 1 again, c intent 3; alpha = 0.5
    truth = {"a": {1: 1, 2: 1}, "b": {1: 1, 2: 0}, "c": {3: 2}, "z": {4: 0}}
    ranked = ["a", "b", "c"]
    # G = 2, 0.5, 1; ideal a, c, b: G = 2, 1, 0.5
    dcg = 2 + 0.5 / np.log2(3) + 1 / 2
    ideal = 2 + 1 / np.log2(3) + 0.5 / 2
    assert alpha_ndcg_at_k(ranked, truth, 3) == pytest.approx(dcg / ideal, abs=TOL)
    assert err_ia_at_k(ranked, truth, 3) == pytest.approx(
        (2 + 0.5 / 2 + 1 / 3) / (3 * (1 + 0.5 / 2 + 0.25 / 3)), abs=TOL)
    assert precision_ia_at_k(ranked, truth, 5) == pytest.approx(4 / 15)
    assert subtopic_recall_at_k(ranked, truth, 2) == pytest.approx(2 / 3)
    assert subtopic_recall_at_k(["z"], truth, 2) == 0.0
    assert alpha_ndcg_at_k([], truth, 3) == 0.0
    # ndeval's greedy ideal gives a tie to the larger id: p, q and s all cover
    # two new intents at rank 1; s first, then q (1.5, tied with p), then p
    # (1.5): the list p, q, s (G = 2, 2, 1) beats that "ideal", so
    # alpha-nDCG > 1 (p first would have given 2, 2, 1: exactly 1)
    tie = {"p": {1: 1, 2: 1}, "q": {3: 1, 4: 1}, "s": {1: 1, 3: 1}}
    ideal = 2 + 1.5 / np.log2(3) + 1.5 / 2
    assert alpha_ndcg_at_k(["p", "q", "s"], tie, 3) == pytest.approx(
        (2 + 2 / np.log2(3) + 1 / 2) / ideal, abs=TOL)


def test_empty_policy():
    truth = {"a": {1: 0, 2: 0}}
    for function in PER_LIST.values():
        assert function(["a"], truth, 3) == 0.0
        assert np.isnan(function(["a"], truth, 3, empty="nan"))
        with pytest.raises(ValueError, match="no intent has a relevant item"):
            function(["a"], truth, 3, empty="raise")
    recs = pd.DataFrame({"user": [1, 2], "item": ["a", "a"], "score": [1.0, 1.0]})
    judged = pd.DataFrame({"user": [1, 2], "item": ["a", "a"], "intent": [1, 1],
                           "relevance": [0, 1]})
    result = evaluate(recs, judged, ["alpha_ndcg@3", "s_recall@3"], intent_col="intent",
                      empty="nan")
    assert np.isnan(result.loc[1]).all() and (result.loc[2] == 1.0).all()
    with pytest.raises(ValueError, match="intent"):
        evaluate(recs, judged, ["p_ia@3"], intent_col="intent", empty="raise")


# -- bad input -----------------------------------------------------------------------------

def test_refusals():
    recs = pd.DataFrame({"user": [1], "item": ["a"], "score": [1.0]})
    judged = pd.DataFrame({"user": [1, 1], "item": ["a", "a"], "intent": [1, 2],
                           "relevance": [1, 1]})
    with pytest.raises(ValueError, match="intent_col="):
        evaluate(recs, judged, ["alpha_ndcg@5"])
    with pytest.raises(ValueError, match="'ndcg@5'.*without intent_col"):
        evaluate(recs, judged, ["alpha_ndcg@5", "ndcg@5"], intent_col="intent")
    with pytest.raises(ValueError, match="no column 'subtopic'.*pass intent_col="):
        evaluate(recs, judged, ["s_recall@5"], intent_col="subtopic")
    with pytest.raises(TypeError, match="intent_col"):
        evaluate(recs, judged, ["s_recall@5"], intent_col=3)
    with pytest.raises(ValueError, match="needs a cut-off"):
        evaluate(recs, judged, ["alpha_ndcg"], intent_col="intent")
    with pytest.raises(ValueError, match="more than once"):
        evaluate(recs, pd.concat([judged, judged.iloc[:1]]), ["p_ia@5"], intent_col="intent")
    with pytest.raises(ValueError, match="ties='best'"):
        evaluate(recs, judged, ["err_ia@5"], intent_col="intent", ties="best")
    with pytest.raises(ValueError, match="ties='average'"):
        evaluate(recs, judged, ["err_ia@5"], intent_col="intent", ties="average")
    with pytest.raises(ValueError, match="intent id"):
        evaluate(recs, judged.assign(intent=[1, None]), ["p_ia@5"], intent_col="intent")
    with pytest.raises(TypeError, match="relevant must be a mapping"):
        alpha_ndcg_at_k(["a"], {"a"}, 3)
    with pytest.raises(TypeError, match=r"relevant\['a'\]"):
        alpha_ndcg_at_k(["a"], {"a": 1}, 3)
    with pytest.raises(ValueError, match="grade of item 'a' for intent 1"):
        err_ia_at_k(["a"], {"a": {1: -1}}, 3)
    with pytest.raises(TypeError, match="k must be a positive integer"):
        precision_ia_at_k(["a"], {"a": {1: 1}}, None)
    with pytest.raises(ValueError, match="alpha"):
        alpha_ndcg_at_k(["a"], {"a": {1: 1}}, 3, alpha=1.5)
    with pytest.raises(ValueError, match="recommended|duplicate|once"):
        subtopic_recall_at_k(["a", "a"], {"a": {1: 1}}, 3)
    with pytest.raises(TypeError, match="relevant"):  # str ids against int ids
        subtopic_recall_at_k(["1", "2"], {1: {1: 1}}, 3)


def test_row_order_without_a_single_key():
    # more (user, item, intent) codes than an int64 key holds: lexsort, same order
    from metrics_lib.batch.intents import _sorted_rows
    rng = np.random.default_rng(3)
    codes = [rng.integers(0, 5, size=200) for _ in range(3)]
    small = _sorted_rows(*codes, 5, 5)
    large = _sorted_rows(*codes, 2**40, 2**30)
    assert (small == large).all()
    assert (small == np.lexsort(codes[::-1])).all()
