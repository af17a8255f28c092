"""Named parameters in metric names (issue 29, point 1): ``name(key=value, ...)[@k]``.

One parser reads every parameter that a registry entry declares
(``metrics_lib.ranking.registry.Parameter``): the persistence of
``rbp(p=0.8)``, the weight of ``set_f(beta=0.5)`` and the redundancy
intolerance of ``alpha_ndcg(alpha=0.5)@10`` and ``err_ia(alpha=0.5)@10``.
A malformed name is refused with a message that names the metric as written,
the parameter and its allowed values; a well-formed one gives, user by user,
the per-list function's value with that parameter, on every backend.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import alpha_ndcg_at_k, err_ia_at_k, evaluate
from metrics_lib.ranking import registry
from _helpers import as_frame, in_library

ROOT = Path(__file__).resolve().parents[1]
TOL = 1e-12


# -- malformed names --------------------------------------------------------------------

@pytest.mark.parametrize("name, words", [
    ("rbp(p=)", ["'rbp(p=)'", "persistence p", "no value"]),
    ("rbp(q=0.8)", ["'rbp(q=0.8)'", "takes no parameter q", "p (persistence",
                    "(0, 1)"]),
    ("rbp(p=0.8,p=0.9)", ["'rbp(p=0.8,p=0.9)'", "p is given twice"]),
    ("rbp(p=0.8, p=0.8)", ["p is given twice"]),
    ("set_f(beta=-1)", ["'set_f(beta=-1)'", "beta", "[0, inf)", "got '-1'"]),
    ("set_f(beta=inf)", ["beta", "[0, inf)", "got 'inf'"]),
    ("alpha_ndcg(alpha=2)@10", ["'alpha_ndcg(alpha=2)@10'", "alpha", "[0, 1]", "got '2'"]),
    ("err_ia(alpha=nan)@5", ["'err_ia(alpha=nan)@5'", "alpha", "[0, 1]"]),
    ("err_ia(alpha=-0.1)@5", ["alpha", "[0, 1]"]),
    ("alpha_ndcg(alpha=0.5)", ["needs a cut-off", "'alpha_ndcg(alpha=0.5)@10'"]),
    ("alpha_ndcg@10(alpha=0.5)", ["before the cut-off", "'alpha_ndcg(alpha=0.5)@10'"]),
    ("alpha_ndcg(alpha=0.5)@0", ["cut-off", "positive integer"]),
    ("alpha_ndcg(alpha=0.5)_10", ["'@k'"]),
    ("rbp(p=0.8)@10", ["rbp takes no cut-off"]),
    ("ndcg(alpha=0.5)@10", ["ndcg takes no parameter alpha",
                            "alpha_ndcg, err_ia take a redundancy intolerance"]),
    ("p_ia(alpha=0.5)@10", ["takes no parameter alpha"]),
    ("rbp(0.8)", ["'0.8'", "key=value"]),
    ("rbp(p=0.8,)", ["key=value"]),
    ("rbp(p=0.8", ["parenthes"]),
    ("rbp(p=(0.8))", ["parenthes"]),
    ("rpb(p=0.8)", ["unknown metric", "'rbp(p=0.8)'"]),
    # spaces: around '=' and ',' inside the parentheses they are read (as
    # before, 'rbp_resid( p = .95 )'); anywhere else they are refused
    ("rbp (p=0.8)", ["no space", "'rbp(p=0.8)'"]),
    ("alpha_ndcg(alpha=0.5) @10", ["'@k'"]),
    ("alpha_ndcg(alpha=0. 5)@10", ["alpha", "[0, 1]", "got '0. 5'"]),
    ("rbp(p p=0.8)", ["key=value"]),
    # upper case is read as lower case (as every metric name); the message
    # quotes the name as it was written
    ("RBP(P=)", ["'RBP(P=)'", "no value"]),
    ("ALPHA_NDCG(ALPHA=2)@10", ["'ALPHA_NDCG(ALPHA=2)@10'", "[0, 1]"]),
    ("Set_F(Beta=-1)", ["'Set_F(Beta=-1)'", "[0, inf)"]),
])
def test_malformed_names_are_refused_clearly(name, words):
    with pytest.raises(ValueError) as error:
        ml.parse_metric(name)
    for word in words:
        assert word in str(error.value), (name, word, str(error.value))


def test_evaluate_refuses_them_before_reading_data():
    run, qrels = _intent_tables(1)
    with pytest.raises(ValueError, match=r"'alpha_ndcg\(alpha=2\)@10'.*\[0, 1\]"):
        evaluate(run, qrels, ["alpha_ndcg(alpha=2)@10"], intent_col="intent")
    with pytest.raises(ValueError, match="takes no parameter q"):
        evaluate(run, qrels, ["rbp(q=0.5)"])


# -- well-formed names ------------------------------------------------------------------

@pytest.mark.parametrize("name, kind, k, parameters, canonical", [
    ("alpha_ndcg(alpha=0.25)@10", "alpha_ndcg", 10, {"alpha": 0.25},
     "alpha_ndcg(alpha=0.25)@10"),
    ("ALPHA-NDCG( alpha = .25 )@10", "alpha_ndcg", 10, {"alpha": 0.25},
     "alpha_ndcg(alpha=0.25)@10"),
    ("alpha_ndcg(alpha=0.5)@10", "alpha_ndcg", 10, {"alpha": 0.5}, "alpha_ndcg@10"),
    ("alpha_ndcg@10", "alpha_ndcg", 10, {"alpha": 0.5}, "alpha_ndcg@10"),
    ("alpha_ndcg_10", "alpha_ndcg", 10, {"alpha": 0.5}, "alpha_ndcg@10"),
    ("err_ia(alpha=1)@3", "err_ia", 3, {"alpha": 1.0}, "err_ia(alpha=1.0)@3"),
    ("err_ia(alpha=0)@3", "err_ia", 3, {"alpha": 0.0}, "err_ia(alpha=0.0)@3"),
    ("rbp(p=.8)", "rbp", 0.8, {"p": 0.8}, "rbp(p=0.8)"),
    ("RBP(P=8e-1)", "rbp", 0.8, {"p": 0.8}, "rbp(p=0.8)"),
    ("rbp_resid( p = 0.95 )", "rbp_resid", 0.95, {"p": 0.95}, "rbp_resid(p=0.95)"),
    ("set_f", "set_f", None, {"beta": 1.0}, "set_f"),
    ("set_f(beta=1)", "set_f", 1.0, {"beta": 1.0}, "set_f"),
    ("set_f(beta=0.5)", "set_f", 0.5, {"beta": 0.5}, "set_f(beta=0.5)"),
    ("set_f(beta=1e-05)", "set_f", 1e-05, {"beta": 1e-05}, "set_f(beta=1e-05)"),
    ("ndcg_cut.10", "ndcg", 10, {}, "ndcg@10"),
    ("P_5", "precision", 5, {}, "precision@5"),
    ("MRR", "rr", None, {}, "mrr"),
    ("iprec_at_recall_0.50", "iprec_at_recall", 0.5, {}, "iprec_at_recall@0.5"),
])
def test_well_formed_names(name, kind, k, parameters, canonical):
    parsed = registry.parse_metric_name(name)
    assert (parsed.kind, parsed.k, dict(parsed.parameters)) == (kind, k, parameters)
    assert parsed.canonical == canonical
    assert ml.parse_metric(name) == (kind, k)  # the two-value form, as before
    # the canonical spelling is a name of the same metric
    again = registry.parse_metric_name(canonical)
    assert (again.kind, dict(again.parameters)) == (kind, parameters)


def test_a_new_parameter_is_one_declaration(monkeypatch):
    """A metric with two parameters, one of them an integer, declared in one line each."""
    registry.metrics()  # loaded first: the toy is then added to copies, undone after
    monkeypatch.setattr(registry, "_METRICS", dict(registry._METRICS))
    monkeypatch.setattr(registry, "_KIND", dict(registry._KIND))
    registry.register(registry.Metric(
        name="toy", aliases=("toy",), batch=lambda tables, k, options: None,
        parameters=(registry.Parameter("depth", "[1, inf)", "depth", integer=True,
                                       example=5),
                    registry.Parameter("w", "(-inf, inf)", "weight", default=0.0))))
    parsed = registry.parse_metric_name("toy(w=-2.5,depth=3)@7")
    assert (parsed.kind, parsed.k, parsed.parameters) == ("toy", 7, {"depth": 3, "w": -2.5})
    assert parsed.canonical == "toy(depth=3,w=-2.5)@7"  # declared order
    assert registry.parse_metric_name("toy(depth=3,w=0)").canonical == "toy(depth=3)"
    for name, words in (("toy@7", "needs its depth depth, such as 'toy(depth=5)'"),
                        ("toy(depth=2.5)", "an integer >= 1"),
                        ("toy(depth=0)", "[1, inf)"),
                        ("toy(depth=3,w=x)", "a finite number")):
        with pytest.raises(ValueError, match="metric 'toy") as error:
            registry.parse_metric_name(name)
        assert words in str(error.value), (name, str(error.value))


@pytest.mark.parametrize("interval", ["(1, 0)", "[0, 1", "0, 1", "[a, 1]", "(inf, 1)"])
def test_a_malformed_declaration_is_refused(interval):
    with pytest.raises(ValueError, match="interval"):
        registry.Parameter("x", interval, "thing")


# -- the numbers ------------------------------------------------------------------------

def _intent_tables(seed, ids="int64"):
    """A run with ties, lists shorter and longer than the cut-offs, and a truth by
    intent with graded judgements, users without a relevant item and items
    relevant to several intents."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for user in range(40):
        pool = rng.choice(60, size=25, replace=False)
        length = int(rng.integers(0, 12))
        scores = rng.integers(0, 4, size=length).astype(np.float32) / 3  # ties
        run += [(user, int(item), float(s)) for item, s in zip(pool[:length], scores)]
        if rng.random() < 0.1:
            continue  # a user with no judgement: missing
        top = 0 if rng.random() < 0.1 else 3  # nothing relevant: the empty policy
        for intent in rng.choice(8, size=int(rng.integers(1, 6)), replace=False):
            judged = rng.choice(pool, size=int(rng.integers(1, 9)), replace=False)
            grades = rng.integers(0, top + 1, size=judged.size)
            qrels += [(user, int(intent), int(item), int(g)) for item, g in
                      zip(judged, grades)]
    run = pd.DataFrame(run, columns=["user", "item", "score"])
    qrels = pd.DataFrame(qrels, columns=["user", "intent", "item", "relevance"])
    if ids == "big":  # 64-bit ids past 2**53
        for frame in (run, qrels):
            frame["user"] = frame["user"].astype(np.int64) + 2**62
            frame["item"] = frame["item"].astype(np.int64) + 2**62 + 7
    elif ids == "nullable":
        for frame in (run, qrels):
            frame["item"] = frame["item"].astype("Int64")
            frame["user"] = frame["user"].astype("string[pyarrow]")
    return run, qrels


def _per_list(run, qrels):
    """Each user's list in the order of ties='numeric_asc' and judgements by intent."""
    lists = {user: list(frame.sort_values(["score", "item"], ascending=[False, True])["item"])
             for user, frame in run.groupby("user")}
    truth = {}
    for user, intent, item, grade in qrels[["user", "intent", "item", "relevance"]].itertuples(
            index=False, name=None):
        truth.setdefault(user, {}).setdefault(item, {})[intent] = grade
    return lists, truth


ALPHAS = (0.0, 0.1, 0.5, 0.75, 1.0)


@pytest.mark.parametrize("ids", ["int64", "big", "nullable"])
@pytest.mark.parametrize("level", [1, 2])
def test_alpha_in_the_name_equals_the_per_list_function(ids, level):
    compared = 0
    for seed in range(3):
        run, qrels = _intent_tables(seed, ids)
        names = [f"{m}(alpha={a})@{k}" for m in ("alpha_ndcg", "err_ia") for a in ALPHAS
                 for k in (1, 3, 10)]
        got = evaluate(run, qrels, names, intent_col="intent", ties="numeric_asc",
                       missing="zero", relevance_level=level)
        assert list(got.columns) == names  # each column is the name as written
        lists, truth = _per_list(run, qrels)
        for name in names:
            parsed = registry.parse_metric_name(name)
            function = alpha_ndcg_at_k if parsed.kind == "alpha_ndcg" else err_ia_at_k
            for user in got.index:
                want = function(lists.get(user, []), truth[user], parsed.k,
                                alpha=parsed.parameters["alpha"], relevance_level=level)
                assert abs(got.loc[user, name] - want) <= TOL, (name, user)
                compared += 1
    assert compared > 3000


def test_the_default_alpha_is_the_unparameterised_name():
    run, qrels = _intent_tables(4)
    got = evaluate(run, qrels, ["alpha_ndcg@5", "err_ia@5", "alpha_ndcg(alpha=0.2)@5"],
                   intent_col="intent", missing="zero")
    # two spellings of one metric in one call are refused: a second call
    named = evaluate(run, qrels, ["alpha_ndcg(alpha=0.5)@5", "err_ia(alpha=0.5)@5"],
                     intent_col="intent", missing="zero")
    assert got["alpha_ndcg@5"].equals(named["alpha_ndcg(alpha=0.5)@5"].rename("alpha_ndcg@5"))
    assert got["err_ia@5"].equals(named["err_ia(alpha=0.5)@5"].rename("err_ia@5"))
    # a planted bug that used one alpha for every column would show here
    assert (got["alpha_ndcg(alpha=0.2)@5"] != got["alpha_ndcg@5"]).any()


def test_alpha_in_the_name_equals_ndeval():
    """pyndeval 0.0.8 (ndeval 4.5) with alpha 0.25, 0.75, 1 (benchmarks/peers/intents.py)."""
    golden = ROOT / "benchmarks" / "peers" / "golden" / "intents"
    run = pd.read_csv(golden / "run.txt", sep=" ", header=None,
                      names=["user", "q0", "item", "rank", "score", "tag"])
    qrels = pd.read_csv(golden / "qrels.txt", sep=" ", header=None,
                        names=["user", "intent", "item", "relevance"])
    reference = pd.read_csv(golden / "ndeval_alpha.csv")
    ours = {"alpha-nDCG": "alpha_ndcg", "ERR-IA": "err_ia"}
    names = sorted({f"{ours[r.measure]}(alpha={r.alpha})@{r.k}"
                    for r in reference.itertuples()})
    # pyndeval orders equal scores by docno ascending: ties='item_asc'
    got = evaluate(run[["user", "item", "score"]], qrels, names, intent_col="intent",
                   ties="item_asc", missing="skip")
    worst = 0.0
    for r in reference.itertuples():
        value = got.loc[r.user, f"{ours[r.measure]}(alpha={r.alpha})@{r.k}"]
        assert abs(value - r.value) <= TOL, r
        worst = max(worst, abs(value - r.value))
    assert len(reference) == 4878 and worst <= TOL  # the 271 users ndeval reports


@pytest.mark.parametrize("library", ["polars", "pyarrow", "dask"])
def test_other_backends(library):
    run, qrels = _intent_tables(5)
    names = ["alpha_ndcg(alpha=0.3)@4", "err_ia(alpha=0.9)@4", "alpha_ndcg@4"]
    want = evaluate(run, qrels, names, intent_col="intent", missing="zero")
    run, qrels = in_library(library, run, qrels)
    got = evaluate(run, qrels, names, intent_col="intent", missing="zero")
    got = as_frame(got)
    pd.testing.assert_frame_equal(got.sort_index(), want.sort_index(), check_names=False,
                                  check_index_type=False, rtol=0, atol=TOL)


def test_two_persistences_in_one_call_each_have_their_own():
    rng = np.random.default_rng(3)
    run = pd.DataFrame({"user": np.repeat(np.arange(20), 6), "item": np.tile(np.arange(6), 20),
                        "score": rng.integers(0, 3, 120).astype(float)})
    truth = pd.DataFrame({"user": np.repeat(np.arange(20), 4),
                          "item": np.tile([0, 2, 4, 7], 20),
                          "relevance": rng.integers(0, 4, 80)})
    names = ["rbp(p=0.5)", "rbp(p=0.9)", "set_f(beta=0.25)", "set_f"]
    got = evaluate(run, truth, names, ties="item_desc", missing="zero")
    for user in got.index:
        mine = run[run["user"] == user].sort_values(["score", "item"], ascending=False)
        judged = truth[truth["user"] == user]
        relevant = dict(zip(judged["item"], judged["relevance"]))
        for name, p in (("rbp(p=0.5)", 0.5), ("rbp(p=0.9)", 0.9)):
            assert got.loc[user, name] == pytest.approx(
                ml.rank_biased_precision(list(mine["item"]), relevant, p), abs=TOL)
        hits = sum(relevant.get(item, 0) >= 1 for item in mine["item"])
        n_rel = sum(g >= 1 for g in relevant.values())
        prec, rec = hits / len(mine), hits / n_rel if n_rel else 0.0
        for name, beta in (("set_f(beta=0.25)", 0.25), ("set_f", 1.0)):
            want = (beta + 1) * prec * rec / (beta * prec + rec) if hits else 0.0
            assert got.loc[user, name] == pytest.approx(want, abs=TOL), (name, user)


def test_the_command_line_keeps_the_parameters(tmp_path):
    """``-m 'rbp(p=0.8)'``: the command line computes the name as evaluate reads it
    (it rebuilt names from (kind, k) and lost the parameters: 'rbp@0.8')."""
    from test_trec_cli_grammar import run_ours

    rng = np.random.default_rng(6)
    qrels = [(f"q{u}", f"d{d}", int(rng.integers(0, 3))) for u in range(6)
             for d in rng.choice(20, 6, replace=False)]
    run = [(f"q{u}", f"d{d}", float(rng.integers(0, 3))) for u in range(6)
           for d in rng.choice(20, 8, replace=False)]
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in run))
    names = ["rbp(p=0.8)", "rbp_resid(p=0.5)", "set_f(beta=0.25)"]
    args = ["-q"] + [a for name in names for a in ("-m", name)]
    code, out, err = run_ours(args + [str(tmp_path / "qrels"), str(tmp_path / "run")])
    assert code == 0, err
    printed = {(n.strip(), q): float(v) for n, q, v in
               (line.split("\t") for line in out.decode().splitlines())}
    truth = pd.DataFrame(qrels, columns=["user", "item", "relevance"])
    recs = pd.DataFrame(run, columns=["user", "item", "score"])
    want = evaluate(recs, truth, names, missing="zero", ties="item_desc")
    for name in names:
        for user, value in want[name].items():
            assert abs(printed[(name, user)] - value) <= 5e-5, (name, user)
