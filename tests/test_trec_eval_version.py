"""trec_eval_version=9|10: the version of trec_eval is a convention.

trec_eval 9.0.8 (what pytrec_eval 0.5 compiles: its setup.py fetches the v9.0.8
archive) and 10.0 differ, in the metrics of this library, in
``iprec_at_recall``'s target item (``m_iprec_at_recall.c``: ``(long) (p * R +
0.9)`` in 9.0.8, ``lround(p * R)`` in 10.0) and in reading the scores as C
floats (9.0.8's ``trec_format.h``, ``TEXT_RESULTS.sim``). Checked three ways:
against a port of 9.0.8's loop (``te_calc_iprec_at_recall``, read from the
tag v9.0.8 of https://github.com/usnistgov/trec_eval), against pytrec_eval
itself where a Python with it is found (``PYTREC_EVAL_PYTHON``, else the
peer venv of ``benchmarks/peers``; skipped without), and through the
explainer, which must name the version as a convention.
"""
from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml

LEVELS = [i / 10 for i in range(11)]
NAMES = [f"iprec_at_recall_{p:.2f}" for p in LEVELS]


def _port(grades_in_rank_order, n_rel, version):
    """te_calc_iprec_at_recall of trec_eval 9.0.8 (and 10.0's one changed line).

    The C loop walks the list from the bottom keeping the best precision seen,
    and hands it to every level whose target (in relevant items) is reached.
    """
    ret = len(grades_in_rank_order)
    rel = [g >= 1 for g in grades_in_rank_order]
    num_rel_ret = sum(rel)
    if version == 9:
        cutoffs = [int(p * n_rel + 0.9) for p in LEVELS]  # (long) truncates
    else:
        cutoffs = [int(math.floor(p * n_rel + 0.5)) for p in LEVELS]  # lround, x >= 0
    values = [0.0] * len(LEVELS)
    cut = len(LEVELS) - 1
    while cut >= 0 and cutoffs[cut] > num_rel_ret:
        cut -= 1
    if ret == 0:
        return values
    int_precis = num_rel_ret / ret
    so_far = num_rel_ret
    i = ret
    while i > 0 and so_far > 0:
        int_precis = max(int_precis, so_far / i)
        if rel[i - 1]:
            while cut >= 0 and so_far == cutoffs[cut]:
                values[cut] = int_precis
                cut -= 1
            so_far -= 1
        i -= 1
    while cut >= 0:
        values[cut] = int_precis
        cut -= 1
    return values


def _data(seed, n_users=60, ties=True):
    """Random lists (ties, float32-equal scores, short lists), graded truth with
    many relevant items (R up to 25, where the two targets part), empty users,
    64-bit ids."""
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    base = 2**40
    for user in range(n_users):
        n = int(rng.integers(0, 30))
        items = rng.choice(60, size=n, replace=False) + base
        if ties:
            scores = rng.integers(0, 6, n) / 5.0
            scores[: n // 4] = 0.3 + rng.integers(0, 2, n // 4) * 1e-9  # float32-equal
        else:
            scores = rng.permutation(n) / 7.0 + 0.01
        recs += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        judged = rng.choice(60, size=int(rng.integers(0, 40)), replace=False) + base
        grades = rng.integers(0, 3, len(judged)) if user % 7 else np.zeros(len(judged), int)
        truth += [(user, int(i), int(g)) for i, g in zip(judged, grades)]
    recs = pd.DataFrame(recs, columns=["user", "item", "score"]).astype(
        {"user": "int64", "item": "int64"})
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"]).astype(
        {"user": "int64", "item": "int64"})
    return recs, truth


def _ported(recs, truth, version):
    """Per-user values of the port, in trec_eval's order (untied scores only)."""
    rows = {}
    for user, group in recs.groupby("user"):
        judged = truth[truth["user"] == user]
        if judged.empty:
            continue
        grade = dict(zip(judged["item"], judged["relevance"]))
        ordered = group.sort_values("score", ascending=False)
        grades = [grade.get(i, 0) for i in ordered["item"]]
        n_rel = int((judged["relevance"] >= 1).sum())
        rows[user] = _port(grades, n_rel, version)
    return pd.DataFrame.from_dict(rows, orient="index", columns=NAMES)


@pytest.mark.parametrize("version", [9, 10])
def test_evaluate_matches_the_ported_loop(version):
    compared = 0
    for seed in range(6):
        recs, truth = _data(seed, ties=False)
        mine = ml.evaluate(recs, truth, NAMES, missing="skip", trec_eval_version=version)
        port = _ported(recs, truth, version).loc[mine.index]
        np.testing.assert_allclose(mine.to_numpy(), port.to_numpy(), rtol=0, atol=1e-15)
        for user, group in recs.groupby("user"):  # and the per-list function
            judged = truth[truth["user"] == user]
            if judged.empty:
                continue
            got = ml.interpolated_precision(
                group["item"].tolist(), dict(zip(judged["item"], judged["relevance"])),
                LEVELS, scores=group["score"].tolist(), trec_eval_version=version)
            np.testing.assert_allclose(got, port.loc[user].to_numpy(), rtol=0, atol=1e-15)
            compared += 1
    assert compared > 200


def test_the_versions_differ_where_the_source_says():
    """R = 7, level 0.2: 10.0 aims at the 1st relevant item, 9.0.8 at the 2nd."""
    ranking = ["a", "x", "b", "y", "z", "c"]
    relevant = set("abcdefg")
    ten = ml.interpolated_precision(ranking, relevant, [0.2])
    nine = ml.interpolated_precision(ranking, relevant, [0.2], trec_eval_version=9)
    assert (ten[0], nine[0]) == (1.0, 2 / 3)
    recs, truth = _data(3, ties=False)
    a = ml.evaluate(recs, truth, NAMES, missing="skip")
    b = ml.evaluate(recs, truth, NAMES, missing="skip", trec_eval_version=9)
    assert (a != b).to_numpy().any()
    assert a["iprec_at_recall_0.00"].equals(b["iprec_at_recall_0.00"])


@pytest.mark.parametrize("bad", [True, 8, 9.0, "9", None, np.bool_(True)])
def test_bad_version_is_refused(bad):
    recs, truth = _data(0, n_users=3)
    with pytest.raises(ValueError, match="trec_eval_version must be 9 or 10"):
        ml.evaluate(recs, truth, ["iprec_at_recall_0.20"], trec_eval_version=bad)
    with pytest.raises(ValueError, match="trec_eval_version must be 9 or 10"):
        ml.interpolated_precision(["a"], {"a"}, trec_eval_version=bad)


def test_presets_know_the_versions():
    assert ml.describe_convention("pytrec_eval", "iprec_at_recall_0.20")[
        "keywords"]["trec_eval_version"] == 9
    assert ml.describe_convention("ir_measures", "nDCG@10")["keywords"][
        "trec_eval_version"] == 9
    assert ml.describe_convention("trec_eval", "iprec_at_recall_0.20")[
        "keywords"]["trec_eval_version"] == 10
    table = ml.convention_table()
    row = table[(table["peer"] == "pytrec_eval") & (table["peer_metric"] == "iprec_at_recall")]
    assert "trec_eval_version=9" in row["keywords"].iloc[0]


def test_explainer_names_the_version():
    recs, truth = _data(3, ties=False)
    e = ml.explain_difference(recs, truth, "iprec_at_recall_0.20", "trec_eval", "pytrec_eval")
    rows = e.by_convention.set_index("convention")
    assert rows.loc["trec_eval_version", "a"] == 10 and rows.loc["trec_eval_version", "b"] == 9
    assert rows.loc["trec_eval_version", "contribution"] != 0
    assert abs(rows["contribution"].sum() - e.difference) < 1e-12
    found = ml.find_convention(recs, truth, "iprec_at_recall_0.20",
                               e.value_a + rows.loc["trec_eval_version", "contribution"],
                               tolerance=1e-12)
    assert {"trec_eval_version": 9} in list(found["changes"]) or "pytrec_eval" in set(
        found["peer"])


# -- pytrec_eval itself --------------------------------------------------------

_PEER_SCRIPT = r"""
import json, sys, pytrec_eval
data = json.load(sys.stdin)
evaluator = pytrec_eval.RelevanceEvaluator(data["qrels"], {"iprec_at_recall"})
print(json.dumps(evaluator.evaluate(data["run"])))
"""


def _pytrec_python():
    candidates = [os.environ.get("PYTREC_EVAL_PYTHON"),
                  "/tmp/peer-venvs/peers-trec_eval/bin/python"]
    for python in candidates:
        if python and Path(python).exists():
            probe = subprocess.run([python, "-c", "import pytrec_eval"], capture_output=True)
            if probe.returncode == 0:
                return python
    pytest.skip("no Python with pytrec_eval (set PYTREC_EVAL_PYTHON)")


def _pytrec_eval(python, recs, truth):
    qrels, run = {}, {}
    for user, item, grade in truth.itertuples(index=False):
        qrels.setdefault(str(user), {})[str(item)] = int(grade)
    for user, item, score in recs.itertuples(index=False):
        run.setdefault(str(user), {})[str(item)] = float(score)
    out = subprocess.run([python, "-c", _PEER_SCRIPT], input=json.dumps(
        {"qrels": qrels, "run": run}), capture_output=True, text=True, check=True)
    return pd.DataFrame.from_dict(json.loads(out.stdout), orient="index")[NAMES]


def test_pytrec_eval_itself():
    python = _pytrec_python()
    compared, parted = 0, 0
    for seed in range(8):
        recs, truth = _data(seed, ties=seed % 2 == 0)
        theirs = _pytrec_eval(python, recs, truth)
        theirs.index = theirs.index.astype("int64")
        mine = ml.evaluate(recs, truth, NAMES, convention="pytrec_eval")
        assert set(mine.index) == set(theirs.index)
        theirs = theirs.loc[mine.index]
        np.testing.assert_allclose(mine.to_numpy(), theirs.to_numpy(), rtol=0, atol=1e-12)
        ten = ml.evaluate(recs, truth, NAMES, missing="skip",
                          **({"ties": "item_desc"}))
        parted += int((ten.to_numpy() != theirs.to_numpy()).sum())
        for name in ("iprec_at_recall_0.20", "iprec_at_recall_0.30"):
            e = ml.explain_difference(recs, truth, name, "trec_eval", "pytrec_eval")
            assert abs(e.value_b - theirs[name].mean()) < 1e-12
        compared += mine.size
    assert compared > 3000
    assert parted > 0  # the data reach values where 10.0 and 9.0.8 part


def test_the_version_gets_zero_where_it_cannot_act():
    """trec_eval_version acts on iprec_at_recall only: for NDCG, trec_eval against
    pytrec_eval differs by the float32 scores alone, the version's share is 0
    (listed, as every keyword on which the sides differ)."""
    recs, truth = _data(1)
    e = ml.explain_difference(recs, truth, "ndcg@10", "trec_eval", "pytrec_eval")
    rows = e.by_convention.set_index("convention")["contribution"]
    assert sorted(rows.index) == ["score_dtype", "trec_eval_version"]
    assert rows["trec_eval_version"] == 0.0 and rows["score_dtype"] != 0.0
    assert e.value_b == ml.evaluate(recs, truth, ["ndcg@10"],
                                    convention="pytrec_eval")["ndcg@10"].mean()
