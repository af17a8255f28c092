"""The per-list functions of trec_eval's set measures, relative_P, num_nonrel_judged_ret
and gm_bpref, per user against the trec_eval 10.0 binary and against evaluate.

On random frames (ties, graded truth, judged non-relevant, pooled-unjudged
(-1) and unpooled items, short and empty lists, users without a relevant
item, 64-bit ids): each per-list function prints as the binary's ``-q`` line
of its user, and, on truth without negative grades (which ``evaluate``
refuses for these measures), equals ``evaluate``'s value exactly, nullable
and pyarrow dtypes included. ``geometric_mean_bpref`` prints as the binary's
``gm_bpref`` summary.
"""

import math

import numpy as np
import pytest

import metrics_lib as ml
from metrics_lib import evaluate
from test_infap import random_frames
from test_trec_cli import binary, trec_eval  # noqa: F401

CUTS = (1, 3, 10)


def _per_list_measures(beta):
    """trec_eval name -> (evaluate name, per-list call on (ranked list, grades, level))."""
    out = {
        "set_P": ("set_p", lambda r, g, lv: ml.set_precision(r, g, relevance_level=lv)),
        "set_recall": ("set_recall", lambda r, g, lv: ml.set_recall(r, g, relevance_level=lv)),
        "set_map": ("set_map", lambda r, g, lv: ml.set_map(r, g, relevance_level=lv)),
        "set_relative_P": ("set_relative_p", lambda r, g, lv: ml.set_relative_precision(
            r, g, relevance_level=lv)),
        f"set_F_{beta}": (f"set_f(beta={beta})", lambda r, g, lv: ml.set_f(
            r, g, beta=beta, relevance_level=lv)),
        "num_nonrel_judged_ret": ("num_nonrel_judged_ret", lambda r, g, lv:
                                  ml.num_nonrel_judged_ret(r, g, relevance_level=lv)),
    }
    for k in CUTS:
        out[f"relative_P_{k}"] = (f"relative_p@{k}", lambda r, g, lv, k=k:
                                  ml.relative_precision_at_k(r, g, k, relevance_level=lv))
    return out


def _ranked(recs, truth):
    """{user: (list in trec_eval's order, {item: grade})}: score descending,
    equal scores by document id descending as bytes."""
    out = {}
    for user, own in truth.groupby("user"):
        rows = recs[recs["user"] == user]
        order = sorted(zip(rows["score"], rows["item"]), key=lambda x: str(x[1]),
                       reverse=True)
        order = sorted(order, key=lambda x: -x[0])
        out[user] = ([item for _, item in order], dict(zip(own["item"], own["relevance"])))
    return out


def _binary(tmp_path, recs, truth, level, beta):
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    r_path.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, i, s in recs.itertuples(index=False)))
    out = trec_eval("-q", "-c", "-l", str(level), "-m", "set_P", "-m", "set_recall",
                    "-m", "set_map", "-m", "set_relative_P", "-m", f"set_F.{beta}",
                    "-m", "num_nonrel_judged_ret", "-m", "gm_bpref",
                    "-m", "relative_P." + ",".join(map(str, CUTS)), q_path, r_path)
    assert out.returncode == 0, out.stderr
    per_user, summary = {}, {}
    for line in out.stdout.decode().splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        if query == "all":
            summary[name] = value
        else:
            per_user[(name, int(query))] = value
    return per_user, summary


def _text(name, value):
    return str(value) if name == "num_nonrel_judged_ret" else f"{value:6.4f}"


@pytest.mark.parametrize("seed", range(40))
def test_per_list_equals_trec_eval_and_evaluate_per_user(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(700 + seed)
    pooled = seed % 2 == 0  # with -1 grades: the binary only (evaluate refuses them)
    recs, truth = random_frames(rng, pooled=pooled)
    level = int(rng.integers(0, 3))
    beta = [1.0, 0.5, 2.0, 0.0, 0.3][seed % 5]
    theirs, summary = _binary(tmp_path, recs, truth, level, beta)
    measures = _per_list_measures(beta)
    lists = _ranked(recs, truth)
    assert len(theirs) == len(measures) * len(lists)
    ours = {}
    for (name, user), value in theirs.items():
        ranked, grades = lists[user]
        ours[(name, user)] = measures[name][1](ranked, grades, level)
        assert _text(name, ours[(name, user)]) == value, (name, user, ours[(name, user)], value)
    gm = ml.geometric_mean_bpref([r for r, _ in lists.values()],
                                 [g for _, g in lists.values()], relevance_level=level)
    assert f"{gm:6.4f}" == summary["gm_bpref"]
    if pooled:
        return
    if seed % 3 == 1:  # nullable and pyarrow dtypes read as the plain ones
        recs = recs.astype({"user": "Int64", "score": "Float64"})
        truth = truth.astype({"user": "int64[pyarrow]", "relevance": "Int64"})
    names = {name: library for name, (library, _) in measures.items()}
    frame = evaluate(recs, truth, list(names.values()), relevance_level=level,
                     empty="zero", missing="zero")
    for (name, user), value in ours.items():
        assert frame.loc[user, names[name]] == value, (name, user)  # the same doubles


def test_set_measures_ignore_the_order_and_relative_p_reads_it():
    grades = {"a": 1, "b": 0, "c": 2, "u": -1}
    forward, backward = ["a", "x", "b", "u", "c"], ["c", "u", "b", "x", "a"]
    for function in (ml.set_precision, ml.set_recall, ml.set_f, ml.set_map,
                     ml.set_relative_precision, ml.num_nonrel_judged_ret):
        assert function(forward, grades) == function(backward, grades)
    # set_P 2/5, set_recall 1, set_map 2 * 2 / (5 * 2), set_relative_P 2 / min(5, 2)
    assert ml.set_precision(forward, grades) == 0.4
    assert ml.set_recall(forward, grades) == 1.0
    assert ml.set_map(forward, grades) == 0.4
    assert ml.set_relative_precision(forward, grades) == 1.0
    assert ml.set_f(forward, grades, beta=0.0) == 0.4  # beta 0: set precision
    assert ml.num_nonrel_judged_ret(forward, grades) == 1  # "u" is not judged
    assert ml.relative_precision_at_k(forward, grades, 2) == 0.5
    assert ml.relative_precision_at_k(backward, grades, 2) == 0.5
    assert ml.relative_precision_at_k(["x", "b", "a", "c"], grades, 3) == 0.5
    assert ml.relative_precision_at_k(["b", "x"], grades, 1, scores=[1.0, 2.0]) == 0.0


def test_edges_and_refusals():
    assert ml.set_precision([], {"a": 1}) == 0.0
    assert ml.set_map([], {"a": 1}) == 0.0
    assert ml.set_relative_precision([], {"a": 1}) == 0.0
    for function in (ml.set_recall, ml.set_f, ml.set_map, ml.set_relative_precision):
        assert math.isnan(function(["a"], {"a": 0}, empty="nan"))
        with pytest.raises(ValueError, match="no item at or above relevance_level"):
            function(["a"], {"a": 0}, empty="raise")
    assert math.isnan(ml.relative_precision_at_k(["a"], {"a": 0}, 5, empty="nan"))
    for beta in (-1, math.inf, math.nan, "1", True):
        with pytest.raises(ValueError, match="beta must be a finite number >= 0"):
            ml.set_f(["a"], {"a": 1}, beta=beta)
    for k in (0, -1, None):
        with pytest.raises((ValueError, TypeError), match="k|cut-off"):
            ml.relative_precision_at_k(["a"], {"a": 1}, k)
    # ties="average": the mean over every order of the tied items (b, c, d tie)
    from itertools import permutations
    grades = {"b": 1, "d": 2, "e": 1, "z": 0}
    orders = [["a", *middle, "e"] for middle in permutations(["b", "c", "d"])]
    expected = sum(ml.relative_precision_at_k(o, grades, 2) for o in orders) / len(orders)
    got = ml.relative_precision_at_k(["a", "b", "c", "d", "e"], grades, 2,
                                     scores=[3.0, 2.0, 2.0, 2.0, 1.0], ties="average")
    assert got == pytest.approx(expected, abs=1e-15)
    with pytest.raises(ValueError, match="twice"):
        ml.set_precision(["a", "a"], {"a": 1})
    with pytest.raises(ValueError, match="one entry per user"):
        ml.geometric_mean_bpref([["a"]], [])
    grades = {"a": 1}
    ml.set_f(["a"], grades)
    assert grades == {"a": 1}  # not mutated


def test_registered_as_per_list():
    from metrics_lib.ranking import registry

    expected = {"set_p": ml.set_precision, "set_recall": ml.set_recall,
                "set_map": ml.set_map, "set_relative_p": ml.set_relative_precision,
                "relative_p": ml.relative_precision_at_k, "set_f": ml.set_f,
                "num_nonrel_judged_ret": ml.num_nonrel_judged_ret}
    for kind, function in expected.items():
        assert registry.get(kind).per_list is function
