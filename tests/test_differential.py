"""Differential test: evaluate == trec_eval (through pytrec_eval), per user.

Random tables drawn by hypothesis: integer, negative, 64-bit (above 2**53,
near the ends of int64, uint64 above 2**63, int64 against uint64) and string
ids; tied scores; grades 0-3; users with nothing relevant, users only in
truth, lists shorter than k. pytrec_eval gets the same data with every id
written as text, ``str(id)``, which is what trec_eval reads from a run file.

Scores are multiples of 1/8 in [0, 1]: exact in float32 and in float64, so the
ties are the same for trec_eval 10.0 (which reads ``sim`` as a double:
trec_format.h, ``TEXT_RESULTS.sim``; get_trec_results.c, ``atof``) and for
pytrec_eval-terrier 0.5.11, which compares scores in single precision (two
scores 1 and 1 + 1e-12 tie there; run it to see). Where the two disagree,
trec_eval's source is the reference, and these scores keep them agreeing.

The same tables then go through the Dask path (with ``ties="input"`` and
``rank_col``, whose results depend on the order of a user's rows) and
through threads (``n_jobs=2`` with the chunking threshold lowered).
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import importlib

chunks_module = importlib.import_module("metrics_lib.batch.chunks")
from metrics_lib import evaluate

pytrec_eval = pytest.importorskip("pytrec_eval")

# trec_eval measure -> evaluate metric (default trec_eval cut-offs)
MEASURES = {"P_5": "precision@5", "P_10": "precision@10", "recall_5": "recall@5",
            "recall_10": "recall@10", "map": "map", "map_cut_5": "map@5",
            "map_cut_10": "map@10", "ndcg": "ndcg", "ndcg_cut_5": "ndcg@5",
            "ndcg_cut_10": "ndcg@10", "recip_rank": "mrr", "success_1": "hit@1",
            "success_5": "hit@5", "success_10": "hit@10", "Rprec": "rprec",
            "bpref": "bpref", "iprec_at_recall_0.50": "iprec_at_recall_0.50"}
METRICS = list(MEASURES.values())

ID_TYPES = ("small", "negative", "sparse", "wide", "uint64", "int64_vs_uint64", "string")


def id_pool(rng, id_type, size):
    """``size`` distinct ids of one type (as a numpy array) and the dtype."""
    if id_type == "small":  # 0..14: "9" > "10" as text, 9 < 10 as numbers
        return rng.choice(15, size=size, replace=False).astype(np.int64)
    if id_type == "negative":
        return rng.choice(np.arange(-12, 13), size=size, replace=False).astype(np.int64)
    if id_type == "sparse":  # far apart, yet no need to rank them for the join
        special = np.array([10**17 - 1, 10**16, 99, 100, -10**16], dtype=np.int64)
        drawn = rng.integers(-2**45, 2**45, size=size, dtype=np.int64)
        return np.unique(np.r_[special, drawn])[rng.permutation(size + 5)][:size]
    if id_type == "wide":  # full int64 range; 2**53 and 2**53 + 1 differ
        special = np.array([2**53, 2**53 + 1, 2**63 - 1, -2**63, -2**53 - 1, 7, -7,
                            10**17, 10**17 - 1], dtype=np.int64)
        drawn = rng.integers(-2**63, 2**63 - 1, size=size, dtype=np.int64)
        return np.unique(np.r_[special, drawn])[rng.permutation(size + 9)][:size]
    if id_type in ("uint64", "int64_vs_uint64"):
        top = 2**63 if id_type == "int64_vs_uint64" else 2**64
        special = np.array([2**53, 2**53 + 1, 9, 10, top - 1], dtype=np.uint64)
        drawn = rng.integers(0, top - 1, size=size, dtype=np.uint64)
        return np.unique(np.r_[special, drawn])[rng.permutation(size + 5)][:size]
    letters = np.array(["d9", "d10", "d1", "D2", "é", "e", "z", "a b", "10", "9",
                        "-1", "x" * 3, "ü", "Z"], dtype=object)
    return rng.choice(letters, size=size, replace=False)


def make_tables(seed, id_type):
    rng = np.random.default_rng(seed)
    n_users = int(rng.integers(1, 7))
    users = id_pool(rng, "string" if id_type == "string" else
                    ("negative" if id_type == "negative" else
                     ("small" if id_type in ("small", "sparse") else id_type)),
                    n_users + 2)
    items = id_pool(rng, id_type, 12)
    rec_rows, truth_rows = [], []
    for u in range(n_users + 2):
        user = users[u]
        if u < n_users:  # the last two users are only in truth (or nowhere)
            length = int(rng.integers(0, 9))  # 0: no list; < 10: shorter than k
            chosen = rng.choice(items.size, size=length, replace=False)
            scores = rng.integers(0, 9, size=length) / 8   # ties, exact in float32
            rec_rows += [(user, items[i], s) for i, s in zip(chosen, scores)]
        if u == n_users + 1 or rng.random() < 0.15:
            continue  # a user without judgements
        judged = rng.choice(items.size, size=int(rng.integers(1, 7)), replace=False)
        grades = rng.integers(0, 4, size=judged.size)
        if rng.random() < 0.2:
            grades[:] = 0  # nothing relevant
        truth_rows += [(user, items[i], int(g)) for i, g in zip(judged, grades)]
    recs = pd.DataFrame(rec_rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    if id_type != "string":
        dtype = np.uint64 if id_type in ("uint64", "int64_vs_uint64") else np.int64
        for frame in (recs, truth):
            for column in ("user", "item"):
                frame[column] = np.array(frame[column].tolist(), dtype=dtype)
        if id_type == "int64_vs_uint64":  # one table signed, the other unsigned
            truth["item"] = truth["item"].astype(np.int64)
            truth["user"] = truth["user"].astype(np.int64)
    recs["score"] = recs["score"].astype(np.float64)
    truth["relevance"] = truth["relevance"].astype(np.int64)
    return recs, truth


def trec_reference(recs, truth, missing):
    """Per-user trec_eval values (pytrec_eval on ``str`` ids), as a frame."""
    qrels, run = {}, {}
    for user, item, grade in truth.itertuples(index=False):
        qrels.setdefault(str(user), {})[str(item)] = int(grade)
    for user, item, score in recs.itertuples(index=False):
        run.setdefault(str(user), {})[str(item)] = float(score)
    values = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    rows = {}
    for user in pd.unique(truth["user"]):
        key = str(user)
        if key in values:
            rows[key] = [values[key][m] for m in MEASURES]
        elif missing == "zero":  # trec_eval -c: a judged user without a run scores 0
            rows[key] = [0.0] * len(MEASURES)
    return pd.DataFrame.from_dict(rows, orient="index", columns=METRICS,
                                  dtype=float).sort_index()


def by_text(result):
    """Our result re-indexed by the users' text, to align with trec_eval's."""
    out = result.copy()
    out.index = [str(user) for user in out.index]
    return out.sort_index()


def assert_same(ours, reference):
    assert list(ours.index) == list(reference.index)
    for name in METRICS:
        np.testing.assert_allclose(ours[name].to_numpy(), reference[name].to_numpy(),
                                   rtol=0, atol=1e-12, err_msg=name)


tables = st.tuples(st.integers(0, 2**32 - 1), st.sampled_from(ID_TYPES),
                   st.sampled_from(["zero", "skip"]))


@settings(max_examples=200, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(tables)
def test_equals_trec_eval_per_user(case):
    seed, id_type, missing = case
    recs, truth = make_tables(seed, id_type)
    reference = trec_reference(recs, truth, missing)
    ours = evaluate(recs, truth, METRICS, missing=missing)
    assert_same(by_text(ours), reference)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(tables)
def test_threads_equal_trec_eval(case):
    seed, id_type, missing = case
    recs, truth = make_tables(seed, id_type)
    one = evaluate(recs, truth, METRICS, missing=missing)
    with pytest.MonkeyPatch.context() as patch:
        # threads from 1 row per thread on (the default starts at 50,000 rows)
        patch.setattr(chunks_module, "_MIN_ROWS_PER_THREAD", 1)
        two = evaluate(recs, truth, METRICS, missing=missing, n_jobs=2)
    pd.testing.assert_frame_equal(two, one, check_exact=True)
    assert_same(by_text(two), trec_reference(recs, truth, missing))


dd = pytest.importorskip("dask.dataframe")


def dask_result(recs, truth, **kwargs):
    lazy = evaluate(dd.from_pandas(recs, npartitions=3),
                    dd.from_pandas(truth, npartitions=2), METRICS, **kwargs)
    return lazy.compute(scheduler="sync")


def shuffled_case(case, mode):
    """The tables of a ``tables`` example, rows shuffled, and the keywords of ``mode``.

    Rows come in random order with users interleaved, so ``ties="input"`` sees the row order
    and a shuffle inside the code under test must not reorder them; ``mode="rank"`` gives
    tied ranks instead of scores (the tie rule still applies).
    """
    seed, id_type, missing = case
    recs, truth = make_tables(seed, id_type)
    recs = recs.sample(frac=1.0, random_state=seed % 1000).reset_index(drop=True)
    kwargs = {"missing": missing}
    if mode == "input":
        kwargs["ties"] = "input"
    elif mode == "rank":
        recs = recs.assign(rank=recs.groupby("user")["score"]
                           .rank(method="dense", ascending=False).astype(np.int64))
        kwargs["rank_col"] = "rank"
    return recs, truth, kwargs


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(tables, st.sampled_from(["item_desc", "input", "rank"]))
def test_dask_equals_pandas_and_trec_eval(case, mode):
    recs, truth, kwargs = shuffled_case(case, mode)
    expected = evaluate(recs, truth, METRICS, **kwargs)
    got = dask_result(recs, truth, **kwargs)
    assert_same(by_text(got), by_text(expected))
    if mode == "item_desc":
        assert_same(by_text(got), trec_reference(recs, truth, kwargs["missing"]))


def test_dask_never_casts_ids_to_the_other_tables_dtype():
    # int32 users in one table, int64 in the other: 2**32 + 5 is not user 5
    recs = pd.DataFrame({"user": np.array([5, 5], dtype=np.int32), "item": [1, 2],
                         "score": [1.0, 0.5]})
    truth = pd.DataFrame({"user": np.array([2**32 + 5, 5], dtype=np.int64),
                          "item": [1, 2], "relevance": [1, 1]})
    expected = evaluate(recs, truth, ["mrr"])
    assert expected.loc[5, "mrr"] == 0.5 and expected.loc[2**32 + 5, "mrr"] == 0.0
    got = evaluate(dd.from_pandas(recs, npartitions=1),
                   dd.from_pandas(truth, npartitions=2),
                   ["mrr"]).compute(scheduler="sync").sort_index()
    pd.testing.assert_series_equal(got["mrr"], expected["mrr"], check_index_type=False)


def test_dask_refuses_ids_of_different_kinds():
    recs = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [1.0, 0.5]})
    truth = pd.DataFrame({"user": ["1"], "item": [1], "relevance": [1]})
    with pytest.raises(TypeError, match="integer ids in recommendations but string"):
        evaluate(dd.from_pandas(recs, npartitions=1), dd.from_pandas(truth, npartitions=1),
                 ["mrr"]).compute(scheduler="sync")
