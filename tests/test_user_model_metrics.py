"""User-model metrics (issue 29): ERR against gdeval.pl through ir-measures.

The reference values (``benchmarks/peers/golden/user_models/``) were computed
by ir-measures 0.4.3's ``ERR@k``, which runs the ``gdeval.pl`` it ships, on a
seeded random run and qrels with tied scores, grades -1 to 4, lists of 0 to 15
items and users without a positive grade or without judgements; regenerate
them with ``benchmarks/peers/user_models.py`` (its docstring). gdeval prints 5
decimals, so those comparisons allow half a unit of the fifth decimal; a port
of gdeval's ``err`` sub, checked against those values here, is then compared
to 1e-12.
"""
from __future__ import annotations

import csv
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import err_at_k, evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "benchmarks" / "peers" / "golden" / "user_models"
KS = (1, 3, 5, 10, 20)
PRINTED = 0.5e-5 + 1e-12  # gdeval's printf "%.5f"


def _read_trec():
    run = pd.read_csv(GOLDEN / "run.txt", sep=" ", header=None,
                      names=["user", "q0", "item", "rank", "score", "tag"])
    qrels = pd.read_csv(GOLDEN / "qrels.txt", sep=" ", header=None,
                        names=["user", "zero", "item", "relevance"])
    # gdeval keeps only positive judgements (``if ($judgment > 0)``): a negative
    # grade is not relevant, as 0 is (evaluate refuses negative grades)
    qrels["relevance"] = qrels["relevance"].clip(lower=0)
    return run[["user", "item", "score"]], qrels[["user", "item", "relevance"]]


def _gdeval_values():
    with open(GOLDEN / "err_gdeval.csv") as f:
        return {(int(r["user"]), int(r["k"])): float(r["err"]) for r in csv.DictReader(f)}


def _gdeval_order(run):
    """Each user's list in gdeval.pl's order (sub runOrder): score, then docno, descending."""
    ordered = run.sort_values(["user", "score", "item"], ascending=False)
    return {user: list(group["item"]) for user, group in ordered.groupby("user")}


def _gdeval_err(grades, k):
    """A port of gdeval.pl 1.2a's sub err ($MAX_JUDGMENT = 4), in its order of operations."""
    score, decay = 0.0, 1.0
    for i, grade in enumerate(grades[:k]):
        r = (2 ** grade - 1) / 2 ** 4
        score += r * decay / (i + 1)
        decay *= 1 - r
    return score


# -- the definition, by hand ----------------------------------------------------------

def test_err_by_hand():
    # grades 4, 0, 2: R = 15/16, 0, 3/16; ERR = 15/16 + (1/16)(3/16)/3
    assert err_at_k(["a", "b", "c"], {"a": 4, "c": 2}) == 15 / 16 + 1 / 256
    # grades 2, 3: R = 3/16, 7/16; ERR = 3/16 + (13/16)(7/16)/2
    assert err_at_k(["a", "b"], {"a": 2, "b": 3}) == 3 / 16 + 13 * 7 / 512
    assert err_at_k(["a", "b"], {"a": 2, "b": 3}, k=1) == 3 / 16
    # g_max = 1 with binary grades: R = 1/2 for a relevant item
    assert err_at_k(["x", "a", "b"], {"a", "b"}, max_grade=1) == 0.5 / 2 + 0.25 / 3
    assert err_at_k([], {"a": 3}) == 0.0
    assert err_at_k(["a"], {"a": 3}, k=10) == 7 / 16
    assert err_at_k(["a"], {"b": 0}) == 0.0
    assert math.isnan(err_at_k(["a"], {"b": 0}, empty="nan"))


def test_err_is_monotone_in_the_grade_at_each_rank():
    rng = np.random.default_rng(1)
    for _ in range(200):
        grades = rng.integers(0, 5, size=6)
        rank = int(rng.integers(0, 6))
        if grades[rank] == 4:
            continue
        items = [f"i{j}" for j in range(6)]
        before = err_at_k(items, dict(zip(items, grades.tolist())))
        grades[rank] += 1
        after = err_at_k(items, dict(zip(items, grades.tolist())))
        assert after > before and 0 <= before < 1 and after < 1


# -- gdeval.pl through ir-measures ----------------------------------------------------

def test_port_of_gdeval_reproduces_gdeval():
    run, qrels = _read_trec()
    grades = {(u, i): g for u, i, g in qrels.itertuples(index=False)}
    lists = _gdeval_order(run)
    gdeval = _gdeval_values()
    for (user, k), value in gdeval.items():
        ranked = [grades.get((user, item), 0) for item in lists.get(user, [])]
        assert abs(_gdeval_err(ranked, k) - value) <= PRINTED, (user, k)


def test_evaluate_err_matches_gdeval_per_user():
    run, qrels = _read_trec()
    gdeval = _gdeval_values()
    got = evaluate(run, qrels, [f"err@{k}" for k in KS], missing="zero")
    assert set(got.index) == {user for user, _ in gdeval}  # ir-measures: every qrels user
    worst = max(abs(got.loc[user, f"err@{k}"] - value) for (user, k), value in gdeval.items())
    assert worst <= PRINTED
    # and to 1e-12 against the port, on the same lists
    grades = {(u, i): g for u, i, g in qrels.itertuples(index=False)}
    lists = _gdeval_order(run)
    for user in got.index:
        ranked = [grades.get((user, item), 0) for item in lists.get(user, [])]
        for k in KS:
            assert got.loc[user, f"err@{k}"] == pytest.approx(_gdeval_err(ranked, k),
                                                              abs=1e-12), (user, k)


def test_err_at_k_matches_gdeval_per_user():
    run, qrels = _read_trec()
    truth = {user: dict(zip(group["item"], group["relevance"]))
             for user, group in qrels.groupby("user")}
    lists = _gdeval_order(run)
    for (user, k), value in _gdeval_values().items():
        mine = err_at_k(lists.get(user, []), truth[user], k=k)
        assert abs(mine - value) <= PRINTED, (user, k)


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl is not installed")
def test_gdeval_itself_when_installed(tmp_path):
    # the live check: only where ir-measures (and its gdeval.pl) can be imported
    ir_measures = pytest.importorskip("ir_measures")
    script = Path(ir_measures.__file__).parent / "bin" / "gdeval.pl"
    out = subprocess.run(["perl", str(script), str(GOLDEN / "qrels.txt"),
                          str(GOLDEN / "run.txt"), "10"], capture_output=True, text=True,
                         check=True).stdout.splitlines()[1:]
    gdeval = _gdeval_values()
    for line in out:
        _, user, _, err = line.split(",")
        assert abs(float(err) - gdeval[(int(user), 10)]) <= 1e-12


# -- evaluate against the per-list function ------------------------------------------

def _random_tables(seed, *, big_ids=False):
    rng = np.random.default_rng(seed)
    rec, truth = [], []
    offset = 2 ** 62 if big_ids else 0
    for user in range(80):
        items = rng.choice(40, size=int(rng.integers(0, 14)), replace=False)
        # float32-equal scores: 0.1 and float32(0.1) are one value after the cast
        scores = rng.choice(np.array([0.1, 0.2, 0.3], dtype=np.float32), size=items.size)
        rec += [(offset + user, offset + int(i), float(s)) for i, s in zip(items, scores)]
        if rng.random() < 0.1:
            continue
        judged = rng.choice(40, size=int(rng.integers(1, 10)), replace=False)
        top = 0 if rng.random() < 0.1 else 4
        truth += [(offset + user, offset + int(i), int(g))
                  for i, g in zip(judged, rng.integers(0, top + 1, size=judged.size))]
    rec = pd.DataFrame(rec, columns=["user", "item", "score"]).astype(
        {"score": "float32"})
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    return rec, truth


def _per_list(rec, truth, user, k, **keywords):
    mine = rec[rec["user"] == user].sort_values(["score", "item"], ascending=False,
                                                 kind="stable")
    judged = truth[truth["user"] == user]
    return err_at_k(list(mine["item"]), dict(zip(judged["item"], judged["relevance"])),
                    k, **keywords)


@pytest.mark.parametrize("keywords", [
    {}, {"min_grade": 2}, {"judged_only": True}, {"truncate": 4}, {"empty": "nan"},
    {"relevance_level": 0}, {"candidates": "recommended"}])
@pytest.mark.parametrize("big_ids", [False, True])
def test_evaluate_matches_err_at_k(keywords, big_ids):
    rec, truth = _random_tables(7 + big_ids, big_ids=big_ids)
    if big_ids:  # nullable and pyarrow dtypes
        rec = rec.astype({"user": "Int64", "item": "uint64[pyarrow]"})
        truth = truth.astype({"user": "Int64", "item": "uint64[pyarrow]",
                              "relevance": "Int64"})
    ks = (None, 1, 3, 10, 20)
    names = ["err" if k is None else f"err@{k}" for k in ks]
    got = evaluate(rec, truth, names, missing="zero", ties="numeric_desc", **keywords)
    per_list = {key: value for key, value in keywords.items() if key != "relevance_level"}
    assert len(got) > 50
    for user in got.index:
        for name, k in zip(names, ks):
            expected = _per_list(rec, truth, user, k, **per_list)
            assert got.loc[user, name] == pytest.approx(expected, abs=1e-12, nan_ok=True), \
                (user, name, keywords)


def test_ties_best_and_worst_bound_every_order():
    rec, truth = _random_tables(3)
    best = evaluate(rec, truth, ["err@5"], ties="best", missing="zero")["err@5"]
    worst = evaluate(rec, truth, ["err@5"], ties="worst", missing="zero")["err@5"]
    plain = evaluate(rec, truth, ["err@5"], missing="zero")["err@5"]
    assert (worst <= plain + 1e-15).all() and (plain <= best + 1e-15).all()
    assert (worst < best).any()


# -- refusals -------------------------------------------------------------------------

def test_grades_above_gmax_are_refused():
    rec = pd.DataFrame({"user": [1], "item": [1], "score": [1.0]})
    truth = pd.DataFrame({"user": [1, 1], "item": [1, 2], "relevance": [1, 5]})
    with pytest.raises(ValueError, match=r"grade 5 is above g_max = 4"):
        evaluate(rec, truth, ["err@10"])
    with pytest.raises(ValueError, match=r"grade 5 is above g_max = 4.*max_grade"):
        err_at_k([1], {1: 1, 2: 5})
    assert err_at_k([2], {1: 1, 2: 5}, max_grade=5) == 31 / 32


@pytest.mark.parametrize("value, error", [(0, ValueError), (-1, ValueError),
                                          (True, TypeError), ("4", TypeError),
                                          (float("nan"), ValueError), (2000, ValueError)])
def test_bad_max_grade(value, error):
    with pytest.raises(error, match="max_grade"):
        err_at_k(["a"], {"a": 1}, max_grade=value)


@pytest.mark.parametrize("gain", ["binary", {0: 0, 1: 1, 2: 3}])
def test_gain_keyword_is_refused_for_err(gain):
    rec, truth = _random_tables(5)
    truth = truth.assign(relevance=truth["relevance"].clip(upper=2))
    with pytest.raises(ValueError, match=r"metric 'err' is not available with gain="):
        evaluate(rec, truth, ["err@10", "ndcg@10"], gain=gain, missing="zero")


@pytest.mark.parametrize("ties", ["average", "block"])
def test_expectation_ties_are_refused(ties):
    rec, truth = _random_tables(5)
    with pytest.raises(ValueError, match=r"'err@10' is not available with ties="):
        evaluate(rec, truth, ["err@10"], ties=ties)
    with pytest.raises(ValueError, match="not available with ties="):
        err_at_k(["a", "b"], {"a": 1}, scores=[1, 1], ties=ties)


def test_inputs_are_not_mutated():
    rec, truth = _random_tables(9)
    before = rec.copy(), truth.copy()
    evaluate(rec, truth, ["err@10"], missing="zero")
    pd.testing.assert_frame_equal(rec, before[0])
    pd.testing.assert_frame_equal(truth, before[1])


def test_err_is_in_the_registry():
    assert ml.parse_metric("ERR@10") == ("err", 10)
    assert ml.parse_metric("err_cut_5") == ("err", 5)


@pytest.mark.parametrize("backend", ["polars", "polars-lazy", "arrow", "dask"])
def test_every_backend_gives_the_pandas_values(backend):
    rec, truth = _random_tables(11)
    names = ["err@3", "err", "ndcg@3"]
    expected = evaluate(rec, truth, names, missing="zero")
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        got = evaluate(dd.from_pandas(rec, npartitions=3), truth, names, missing="zero")
        got = got.compute(scheduler="sync").sort_index()
    else:
        from test_backends import convert
        got = evaluate(convert(rec, backend), convert(truth, backend), names,
                       missing="zero")
        got = got.to_pandas() if hasattr(got, "to_pandas") else got
        if "user" in getattr(got, "columns", []):
            got = got.set_index("user")
    pd.testing.assert_frame_equal(got[names].sort_index(), expected.sort_index(),
                                  check_exact=False, rtol=0, atol=1e-12,
                                  check_index_type=False, check_dtype=False)


# -- RBP: trec_eval 10.0 and cwl_eval -------------------------------------------------

def test_rbp_by_hand():
    from metrics_lib import rank_biased_precision as rbp
    truth = {"a": 3, "b": 1, "c": 0, "z": 2}
    ranked = ["a", "x", "b", "c"]  # gains 1, 0, 1/3, 0 (G = 3); x is unjudged
    assert rbp(ranked, truth, 0.8) == pytest.approx(0.2 * (1 + 0.64 / 3), abs=1e-15)
    assert rbp(ranked, truth, 0.8, gain="binary") == pytest.approx(0.2 * 1.64, abs=1e-15)
    assert rbp(ranked, truth, 0.8, gain="binary", relevance_level=2) == \
        pytest.approx(0.2, abs=1e-15)
    # residual: 0.8**4 after the list + (1 - 0.8) * 0.8 for x at rank 2
    assert rbp(ranked, truth, 0.8, residual=True) == pytest.approx(0.5696, abs=1e-15)
    assert rbp(["a", "b"], truth, 0.8, residual=True) == 0.0  # all judged (trec_eval)
    assert rbp([], truth, 0.5) == 0.0
    assert rbp([], truth, 0.5, residual=True) == 0.0
    assert rbp(["q"], truth, 0.5, residual=True) == 1.0
    assert math.isnan(rbp(["a"], {"a": 0}, 0.5, empty="nan"))
    assert rbp(["a"], {"a": 1}, 0.5) == 0.5  # grades up to 1 are not rescaled


def _random_trec_files(seed, tmp_path):
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for user in range(1, 151):
        items = rng.choice(40, size=int(rng.integers(0, 25)), replace=False)
        scores = rng.integers(0, 5, size=items.size) / 4
        run += [(user, f"d{i}", float(s)) for i, s in zip(items, scores)]
        if rng.random() < 0.1:
            continue
        judged = rng.choice(40, size=int(rng.integers(1, 20)), replace=False)
        top = int(rng.choice([0, 1, 2, 4]))  # binary users, graded ones, none positive
        qrels += [(user, f"d{i}", int(g))
                  for i, g in zip(judged, rng.integers(0, top + 1, size=judged.size))]
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    qrels = pd.DataFrame(qrels, columns=["user", "item", "relevance"])
    run_file, qrels_file = tmp_path / "run", tmp_path / "qrels"
    run.assign(q="Q0", rank=0, tag="r")[["user", "q", "item", "rank", "score", "tag"]] \
        .to_csv(run_file, sep=" ", header=False, index=False)
    qrels.assign(z=0)[["user", "z", "item", "relevance"]].to_csv(
        qrels_file, sep=" ", header=False, index=False)
    return run, qrels, run_file, qrels_file


def _trec_eval(qrels_file, run_file, *measures):
    from test_trec_cli import TREC_EVAL
    if not TREC_EVAL.exists():
        pytest.skip("the trec_eval 10.0 binary is not built")
    # -c: a judged user without a list is scored as an empty list (without it
    # trec_eval 10.0 stops, trec_eval.c: "result qid ... not found in qrels")
    out = subprocess.run([str(TREC_EVAL), "-q", "-c", *(a for m in measures for a in ("-m", m)),
                          str(qrels_file), str(run_file)], capture_output=True, text=True,
                         check=True).stdout
    values = {}
    for line in out.splitlines():
        measure, user, value = line.split()
        if user != "all":
            values[(measure, int(user))] = float(value)
    return values


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95])
@pytest.mark.parametrize("seed", [1, 2])
def test_rbp_and_residual_match_trec_eval_per_user(tmp_path, p, seed):
    run, qrels, run_file, qrels_file = _random_trec_files(seed, tmp_path)
    ref = _trec_eval(qrels_file, run_file, f"rbp.p={p}", f"rbp_resid.p={p}")
    got = evaluate(run, qrels, [f"rbp(p={p})", f"rbp_resid(p={p})"], missing="zero")
    users = {user for _, user in ref}
    assert len(users) > 100 and users <= set(got.index)
    printed = 0.5e-4 + 1e-12  # trec_eval prints 4 decimals
    listed = set(run["user"])
    for (measure, user), value in ref.items():
        column = f"rbp(p={p})" if measure.startswith("rbp_p") else f"rbp_resid(p={p})"
        if user not in listed and column.startswith("rbp_resid"):
            # -c scores a user without a list as one unjudged item and then
            # fails to clear its residual (trec_eval.c compares the value's name
            # with "rbp_resid", which "rbp_resid_p=0.8" is not): 1.0; evaluate
            # follows missing= for such users (0 here)
            assert value == 1.0 and got.loc[user, column] == 0.0
            continue
        assert abs(got.loc[user, column] - value) <= printed, (measure, user)
    # the per-list function, user by user, in trec_eval's order (score, docno descending)
    lists = _gdeval_order(run)
    for user in users:
        judged = qrels[qrels["user"] == user]
        truth = dict(zip(judged["item"], judged["relevance"]))
        for residual, column in ((False, f"rbp(p={p})"), (True, f"rbp_resid(p={p})")):
            mine = ml.rank_biased_precision(lists.get(user, []), truth, p,
                                            residual=residual)
            assert mine == pytest.approx(got.loc[user, column], abs=1e-12)


def test_binary_rbp_matches_cwl_eval_per_user():
    # ir-measures gives cwl_eval each list sorted by score, ties in the run
    # file's order (ir_measures/util.py, as_sorted_namedtuple_iter: a stable
    # sorted(..., reverse=True)): evaluate's ties="input"
    run, qrels = _read_trec()
    with open(GOLDEN / "rbp_cwl.csv") as f:
        ref = [(int(r["user"]), int(r["rel"]), float(r["p"]), float(r["rbp"]))
               for r in csv.DictReader(f)]
    ordered = run.assign(row=np.arange(len(run))).sort_values(
        ["user", "score", "row"], ascending=[True, False, True])
    lists = {user: list(group["item"]) for user, group in ordered.groupby("user")}
    truth = {user: dict(zip(group["item"], group["relevance"]))
             for user, group in qrels.groupby("user")}
    worst = 0.0
    for rel in {r[1] for r in ref}:
        got = evaluate(run, qrels, ["rbp(p=0.8)"], gain="binary", relevance_level=rel,
                       missing="zero", ties="input")["rbp(p=0.8)"]
        for user, _, p, value in (r for r in ref if r[1] == rel):
            worst = max(worst, abs(got.loc[user] - value))
            mine = ml.rank_biased_precision(lists.get(user, []), truth[user], p,
                                            gain="binary", relevance_level=rel)
            assert mine == pytest.approx(value, abs=1e-12), (user, rel)
    assert worst <= 1e-12


@pytest.mark.parametrize("keywords", [
    {}, {"gain": "binary"}, {"gain": "binary", "relevance_level": 2}, {"min_grade": 2},
    {"judged_only": True}, {"truncate": 4}, {"empty": "nan"},
    {"candidates": "recommended"}])
def test_evaluate_matches_rbp_per_list(keywords):
    rec, truth = _random_tables(13, big_ids=True)
    names = ["rbp(p=0.7)", "rbp_resid(p=0.7)"]
    got = evaluate(rec, truth, names, missing="zero", ties="numeric_desc", **keywords)
    resid = {key: value for key, value in keywords.items() if key != "empty"}
    for user in got.index:
        mine = rec[rec["user"] == user].sort_values(["score", "item"], ascending=False)
        judged = truth[truth["user"] == user]
        args = (list(mine["item"]), dict(zip(judged["item"], judged["relevance"])), 0.7)
        assert got.loc[user, names[0]] == pytest.approx(
            ml.rank_biased_precision(*args, **keywords), abs=1e-12, nan_ok=True)
        assert got.loc[user, names[1]] == pytest.approx(
            ml.rank_biased_precision(*args, residual=True, **resid), abs=1e-12)


@pytest.mark.parametrize("name, message", [
    ("rbp", r"needs its persistence p, such as 'rbp\(p=0.8\)'"),
    ("rbp@10", "needs its persistence"), ("rbp_resid", "needs its persistence"),
    ("rbp(p=1)", "strictly between 0 and 1"), ("rbp(p=0)", "strictly between 0 and 1"),
    ("rbp(p=.)", "strictly between 0 and 1"), ("ndcg(p=0.5)", "take a persistence"),
])
def test_rbp_names(name, message):
    with pytest.raises(ValueError, match=message):
        ml.parse_metric(name)


def test_rbp_grammar_and_refusals():
    assert ml.parse_metric("RBP(p=0.8)") == ("rbp", 0.8)
    assert ml.parse_metric("rbp_resid( p = .95 )") == ("rbp_resid", 0.95)
    rec, truth = _random_tables(5)
    with pytest.raises(ValueError, match=r"metric 'rbp' is not available with gain="):
        evaluate(rec, truth, ["rbp(p=0.8)"], gain="exponential")
    # ties='average' is exact for RBP (tests/test_new_metric_ties.py); 'block' is refused
    with pytest.raises(ValueError, match="'rbp\\(p=0.8\\)' is not available with ties="):
        evaluate(rec, truth, ["rbp(p=0.8)"], ties="block")
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        ml.rank_biased_precision(["a"], {"a": 1}, 1.0)
    with pytest.raises(TypeError, match="p must be a number"):
        ml.rank_biased_precision(["a"], {"a": 1}, "0.8")


def test_residual_tail_matches_cwl_eval_and_trec_eval_per_user():
    # cwl-eval -r (4 decimals) read each list in the run file's order: the rank column
    run, qrels = _read_trec()
    run = run.assign(rank=pd.read_csv(GOLDEN / "run.txt", sep=" ", header=None,
                                      names=list("uqirst"))["r"])
    with open(GOLDEN / "rbp_resid_cwl.csv") as f:
        ref = {int(r["user"]): (float(r["rbp"]), float(r["residual"]))
               for r in csv.DictReader(f)}
    names = ["rbp(p=0.8)", "rbp_resid(p=0.8)"]
    common = dict(score_col=None, rank_col="rank", missing="zero", gain="binary")
    always = evaluate(run, qrels, names, residual_tail="always", **common)
    trec = evaluate(run, qrels, names, **common)
    printed = 0.5e-4 + 1e-12
    differ = 0
    # evaluate reports the users with judgements; cwl-eval every listed user
    ref = {user: values for user, values in ref.items() if user in set(qrels["user"])}
    for user, (rbp, residual) in ref.items():
        assert abs(always.loc[user, names[0]] - rbp) <= printed, user
        assert abs(always.loc[user, names[1]] - residual) <= printed, user
        if trec.loc[user, names[1]] != always.loc[user, names[1]]:
            # only lists without an unjudged item differ: 0 in trec_eval's convention
            assert trec.loc[user, names[1]] == 0.0
            differ += 1
    assert len(ref) > 240 and differ > 0
    with pytest.raises(ValueError, match="residual_tail"):
        evaluate(run, qrels, names, residual_tail="cwl")


# -- Judged@k: ir-measures ------------------------------------------------------------

def test_judged_by_hand():
    from metrics_lib import judged_at_k
    truth = {"a": 2, "b": 0}
    assert judged_at_k(["a", "x", "b", "y"], truth, k=3) == 2 / 3
    assert judged_at_k(["a", "x", "b", "y"], truth) == 0.5
    assert judged_at_k(["a", "x"], truth, k=10) == 0.5  # min(k, n) = 2
    assert judged_at_k([], truth, k=5) == 0.0
    assert judged_at_k(["x", "a"], truth, k=1, judged_only=True) == 1.0
    assert judged_at_k(["a", "x", "b"], truth, k=1, truncate=3) == 2.0 / 1  # k: denominator
    assert judged_at_k(["x", "a"], truth, scores=[2, 1], k=1) == 0.0


def test_judged_matches_ir_measures_per_user():
    # ir-measures sorts by score, then document id ascending: ties="item_asc"
    run, qrels = _read_trec()
    with open(GOLDEN / "judged_irm.csv") as f:
        ref = {(int(r["user"]), r["measure"]): float(r["judged"]) for r in csv.DictReader(f)}
    names = {f"Judged@{k}": f"judged@{k}" for k in KS} | {"Judged": "judged"}
    got = evaluate(run, qrels, list(names.values()), ties="item_asc", missing="zero")
    ordered = run.sort_values(["user", "item"]).sort_values(
        ["user", "score"], ascending=[True, False], kind="stable")
    lists = {user: list(group["item"]) for user, group in ordered.groupby("user")}
    truth = {user: dict(zip(group["item"], group["relevance"]))
             for user, group in qrels.groupby("user")}
    listed = set(run["user"])
    assert len(ref) == 6 * len(truth)
    for (user, measure), value in ref.items():
        if user not in listed:
            assert value == 0.0  # ir-measures fills a judged user without a list with 0
        k = None if measure == "Judged" else int(measure.split("@")[1])
        assert got.loc[user, names[measure]] == pytest.approx(value, abs=1e-12)
        assert ml.judged_at_k(lists.get(user, []), truth[user], k) == \
            pytest.approx(value, abs=1e-12), (user, measure)


@pytest.mark.parametrize("keywords", [{}, {"judged_only": True}, {"truncate": 4},
                                      {"relevance_level": 0}, {"min_grade": 3},
                                      {"candidates": "recommended"}])
def test_evaluate_matches_judged_at_k(keywords):
    rec, truth = _random_tables(17, big_ids=True)
    rec = rec.astype({"user": "Int64", "item": "uint64[pyarrow]"})
    truth = truth.astype({"user": "Int64", "item": "uint64[pyarrow]"})
    ks = (None, 1, 3, 10, 20)
    names = ["judged" if k is None else f"judged@{k}" for k in ks]
    got = evaluate(rec, truth, names, missing="zero", ties="numeric_desc", **keywords)
    per_list = {key: value for key, value in keywords.items()
                if key in ("judged_only", "truncate", "candidates")}
    for user in got.index:
        mine = rec[rec["user"] == user].sort_values(["score", "item"], ascending=False)
        judged = truth[truth["user"] == user]
        for name, k in zip(names, ks):
            expected = ml.judged_at_k(list(mine["item"]), dict(zip(judged["item"],
                                                                  judged["relevance"])),
                                      k, **per_list)
            assert got.loc[user, name] == pytest.approx(expected, abs=1e-12), (user, name)


@pytest.mark.parametrize("ties", ["best", "worst"])
def test_best_and_worst_orders_are_refused_where_judgement_matters(ties):
    # they order ties by grade: a judged 0 and an unjudged item stay in no defined order
    # (judged@k's bounds are defined instead: tests/test_new_metric_ties.py)
    rec, truth = _random_tables(21)
    with pytest.raises(ValueError, match=f"not available with ties='{ties}'"):
        evaluate(rec, truth, ["rbp_resid(p=0.7)"], ties=ties, missing="zero")
    with pytest.raises(ValueError, match=f"not available with ties='{ties}'"):
        ml.rank_biased_precision(["a", "b"], {"a": 0}, 0.5, residual=True, scores=[1, 1],
                                 ties=ties)
    # RBP and ERR read grades only: their bounds are defined
    got = evaluate(rec, truth, ["rbp(p=0.7)", "err@3"], ties=ties, missing="zero")
    assert got.notna().all().all()
