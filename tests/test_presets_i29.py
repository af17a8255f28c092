"""Issue 29, point 2: the presets of the user-model, judgement, intent and set measures.

Each preset metric is checked user by user against the peer's own output:

- trec_eval 10.0 (``rbp``, ``rbp_resid``, ``set_P``, ``set_recall``, ``set_F``,
  ``set_map``, ``set_relative_P``, ``relative_P``, ``num_nonrel_judged_ret``):
  the built binary, run here on seeded random files (ties, scores equal in
  float32 but not in float64, graded truth, short lists, users without a list,
  without judgements or without a relevant item, 64-bit, nullable and pyarrow
  ids); skipped, with the reason, where the binary is not built;
- ir-measures 0.4.3 (``ERR@k`` through gdeval.pl, ``RBP(p, rel)`` through
  cwl_eval, ``Judged@k``, ``alpha_nDCG@k``, ``ERR_IA@k``, ``P_IA@k``,
  ``StRecall@k`` through pyndeval): the committed values of
  ``benchmarks/peers/golden/presets_i29/``, computed by ir-measures itself on
  the committed random corpora of ``golden/user_models`` and ``golden/intents``
  (``benchmarks/peers/presets_i29.py``);
- where no keyword reproduces the peer (ranx's RBP, ndeval's ERR-IA@1,
  ir-measures' RBP without ``rel=``, trec_eval's ``rbp_resid`` with ``-c``), the
  preset refuses, and the test shows that the closest keywords would indeed
  give another number.
"""
from __future__ import annotations

import csv
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import describe_convention, evaluate

from test_trec_cli import TREC_EVAL

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "benchmarks" / "peers" / "golden"
PRINTED = 0.5e-4 + 1e-12  # trec_eval prints 4 decimals
GDEVAL_PRINTED = 0.5e-5 + 1e-12  # gdeval.pl prints 5


# -- trec_eval 10.0: the binary ----------------------------------------------------------

def _random_tables(seed):
    """A run and graded truth with what real data has (see the module docstring)."""
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for n in range(int(rng.integers(40, 90))):
        user = int(rng.integers(1, 2**40)) * 100 + n  # 64-bit ids
        length = int(rng.choice([0, 1, 2, 3, 5, 8, 12, 20]))
        items = rng.choice(50, size=length, replace=False)
        scores = rng.integers(0, 4, size=length) / 4.0  # ties
        if length > 1 and rng.random() < 0.3:
            # equal in float32, distinct in float64: trec_eval 10.0 reads doubles
            scores[1] = scores[0] + 1e-9
        recs += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        if length and rng.random() < 0.1:
            continue  # a list without judgements
        judged = rng.choice(50, size=int(rng.integers(1, 15)), replace=False)
        if rng.random() < 0.25:
            judged = np.union1d(judged, items)  # a list judged in full: residual 0
        top = int(rng.choice([0, 1, 2, 3]))  # none relevant, binary, graded
        truth += [(user, int(i), int(g))
                  for i, g in zip(judged, rng.integers(0, top + 1, size=judged.size))]
    recs = pd.DataFrame(recs, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    return recs, truth


def _trec_eval(tmp_path, recs, truth, *args):
    if not TREC_EVAL.is_file():
        pytest.skip(f"the trec_eval 10.0 binary is not built ({TREC_EVAL}; make trec_eval)")
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    # %.17g: the doubles themselves, so that 1e-9 apart stays apart
    r_path.write_text("".join(f"{u} Q0 {i} 1 {s:.17g} r\n"
                              for u, i, s in recs.itertuples(index=False)))
    out = subprocess.run([str(TREC_EVAL), "-q", *args, str(q_path), str(r_path)],
                         capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        name, user, value = (part.strip() for part in line.split("\t"))
        if user != "all":
            values[(name, int(user))] = float(value)
    return values


# trec_eval's spellings on its command line, one parameter per measure and run
# (trec_eval keeps the first -m of a measure: rbp and rbp.p=0.5 need two runs)
_TREC_RUNS = (["rbp", "rbp_resid", "set_P", "set_recall", "set_F", "set_map",
               "set_relative_P", "relative_P.1,3,10", "num_nonrel_judged_ret"],
              ["rbp.p=0.5", "rbp_resid.p=0.8", "set_F.0.5"], ["rbp.p=0.95"])
# their output names (rbp_resid is checked without -c, below)
_TREC_NAMES = ["rbp", "rbp_p=0.5", "rbp_p=0.95", "set_P", "set_recall", "set_F",
               "set_F_0.5", "set_map", "set_relative_P", "relative_P_1", "relative_P_3",
               "relative_P_10", "num_nonrel_judged_ret"]


def _trec_eval_runs(tmp_path, recs, truth, *args, runs=_TREC_RUNS):
    values = {}
    for measures in runs:
        values.update(_trec_eval(tmp_path, recs, truth, *args,
                                 *(a for m in measures for a in ("-m", m))))
    return values


def _compare_trec(ours, theirs, names, users):
    count, worst = 0, 0.0
    for name in names:
        for user in users:
            value = theirs[(name, user)]
            got = ours.loc[user, name]
            assert abs(got - value) <= PRINTED, (name, user, got, value)
            worst = max(worst, abs(got - value))
            count += 1
    return count, worst


@pytest.mark.parametrize("seed", range(12))
def test_trec_eval_preset_matches_the_binary_per_user(tmp_path, seed):
    recs, truth = _random_tables(seed)
    level = 1 + seed % 3
    # -c: users judged without a list are scored (the preset's missing="zero")
    theirs = _trec_eval_runs(tmp_path, recs, truth, "-c", "-l", str(level))
    names = _TREC_NAMES
    if seed % 3 == 1:
        recs = recs.astype({"user": "Int64", "score": "Float64"})
        truth = truth.astype({"user": "int64[pyarrow]", "relevance": "Int64"})
    ours = evaluate(recs, truth, names, convention="trec_eval", missing="zero",
                    relevance_level=level)
    users = sorted(set(truth["user"]))
    assert len(set(truth["user"]) - set(recs["user"])) > 0  # some users without a list
    count, worst = _compare_trec(ours, theirs, names, users)
    assert count == len(names) * len(users) and worst <= PRINTED


@pytest.mark.parametrize("seed", range(12))
def test_trec_eval_rbp_resid_preset_matches_the_binary(tmp_path, seed):
    recs, truth = _random_tables(seed)
    listed = set(recs["user"]) & set(truth["user"])
    # without -c trec_eval 10.0 stops at a judged user without a list: leave them out
    truth = truth[truth["user"].isin(listed)]
    theirs = _trec_eval_runs(tmp_path, recs, truth, runs=(["rbp_resid"], ["rbp_resid.p=0.8"]))
    names = ["rbp_resid", "rbp_resid_p=0.8"]
    ours = evaluate(recs, truth, names, convention="trec_eval")
    count, worst = _compare_trec(ours, theirs, names, sorted(listed))
    assert count == 2 * len(listed) and worst <= PRINTED
    # every list fully judged has residual 0 in trec_eval's convention (m_rbp_resid.c)
    assert (ours["rbp_resid"] == 0).any() and (ours["rbp_resid"] > 0).any()


def test_trec_eval_rbp_resid_with_c_is_refused_and_would_differ(tmp_path):
    recs, truth = _random_tables(3)
    theirs = _trec_eval(tmp_path, recs, truth, "-c", "-m", "rbp_resid.p=0.8")
    unlisted = sorted(set(truth["user"]) - set(recs["user"]))
    assert unlisted and all(theirs[("rbp_resid_p=0.8", u)] == 1.0 for u in unlisted)
    with pytest.raises(ValueError, match="rbp_resid_p=0.9.*Leave -c out"):
        describe_convention("trec_eval", "rbp_resid.p=0.8", c=True)
    spelled = evaluate(recs, truth, ["rbp_resid(p=0.8)"], missing="zero")
    assert (spelled.loc[unlisted, "rbp_resid(p=0.8)"] == 0.0).all()  # not trec_eval's 1.0


def test_trec_eval_names_resolve_to_our_metrics():
    expected = {"rbp": "rbp(p=0.9)", "rbp.p=0.5": "rbp(p=0.5)", "rbp_p=0.5": "rbp(p=0.5)",
                "rbp_resid": "rbp_resid(p=0.9)", "rbp_resid_p=0.8": "rbp_resid(p=0.8)",
                "set_F": "set_f(beta=1.0)", "set_F.0.5": "set_f(beta=0.5)",
                "set_F_0.5": "set_f(beta=0.5)", "relative_P_10": "relative_p@10",
                "set_relative_P": "set_relative_p", "set_P": "set_p"}
    for name, metric in expected.items():
        assert describe_convention("trec_eval", name)["metric"] == metric, name
    assert describe_convention("trec_eval", "rbp", p=0.7)["metric"] == "rbp(p=0.7)"
    with pytest.raises(ValueError, match="p must be a number"):
        describe_convention("trec_eval", "rbp", p="0.7")
    with pytest.raises(ValueError, match="takes no cut-off"):
        describe_convention("trec_eval", "rbp@10")
    with pytest.raises(ValueError, match="needs a cut-off"):
        describe_convention("trec_eval", "relative_P")
    # pytrec_eval compiles trec_eval 9.0.8, which has no rbp (m_rbp.c came with 10.0)
    with pytest.raises(ValueError, match="has no metric"):
        describe_convention("pytrec_eval", "rbp")


# -- ir-measures 0.4.3: its own values on the committed corpora ------------------------------

def _irm_values(name):
    with open(GOLDEN / "presets_i29" / name) as f:
        return {(int(r["user"]), r["measure"]): float(r["value"]) for r in csv.DictReader(f)}


def _rel(measure: str) -> int:
    """The rel= of an ir-measures name as it prints it (rel=1, the default, left out)."""
    return int(measure.split("rel=")[1].split(")")[0].split(",")[0]) if "rel=" in measure else 1


def _irm_name(base: str, rel: int, k: int) -> str:
    return f"{base}@{k}" if rel == 1 else f"{base}(rel={rel})@{k}"


def _user_model_tables():
    run = pd.read_csv(GOLDEN / "user_models" / "run.txt", sep=" ", header=None,
                      names=["user", "q0", "item", "rank", "score", "tag"])
    qrels = pd.read_csv(GOLDEN / "user_models" / "qrels.txt", sep=" ", header=None,
                        names=["user", "zero", "item", "relevance"])
    # gdeval and cwl_eval count a negative grade as not relevant, as 0 (evaluate
    # refuses negative grades); it stays judged
    qrels["relevance"] = qrels["relevance"].clip(lower=0)
    return run[["user", "item", "score"]], qrels[["user", "item", "relevance"]]


def _intent_tables():
    run = pd.read_csv(GOLDEN / "intents" / "run.txt", sep=" ", header=None,
                      names=["user", "q0", "item", "rank", "score", "tag"])
    qrels = pd.read_csv(GOLDEN / "intents" / "qrels.txt", sep=" ", header=None,
                        names=["user", "intent", "item", "relevance"])
    return run[["user", "item", "score"]], qrels


def _compare_irm(ours, reference, tolerance):
    count, worst = 0, 0.0
    for (user, measure), value in reference.items():
        got = ours.loc[user, measure]
        assert abs(got - value) <= tolerance, (user, measure, got, value)
        worst = max(worst, abs(got - value))
        count += 1
    return count, worst


def test_ir_measures_user_model_presets_match_ir_measures():
    run, qrels = _user_model_tables()
    reference = _irm_values("ir_measures_user_models.csv")
    names = sorted({measure for _, measure in reference})
    ours = evaluate(run, qrels, names, convention="ir_measures")
    for prefix, tolerance in (("ERR", GDEVAL_PRINTED), ("RBP", 1e-12), ("Judged", 1e-12)):
        part = {key: v for key, v in reference.items() if key[1].startswith(prefix)}
        count, worst = _compare_irm(ours, part, tolerance)
        assert count >= 5 * 250 and worst <= tolerance, prefix
    # ir-measures reports every judged user: the preset too (missing="zero")
    assert set(ours.index) == {user for user, _ in reference}


@pytest.mark.parametrize("rel", [1, 2])
def test_ir_measures_intent_presets_match_ir_measures(rel):
    run, qrels = _intent_tables()
    reference = {key: v for key, v in _irm_values("ir_measures_intents.csv").items()
                 if _rel(key[1]) == rel and key[1] != _irm_name("ERR_IA", rel, 1)}
    names = sorted({measure for _, measure in reference})
    ours = evaluate(run, qrels, names, convention="ir_measures", intent_col="intent")
    count, worst = _compare_irm(ours, reference, 1e-12)
    assert count == len(reference) > 23 * 200 and worst <= 1e-12


def test_ir_measures_reference_is_ndeval_and_gdeval_themselves():
    """ir-measures' values are those of the programs it calls (committed separately)."""
    ndeval = pd.read_csv(GOLDEN / "intents" / "ndeval.csv")
    names = {"alpha-nDCG": "alpha_nDCG", "ERR-IA": "ERR_IA", "P-IA": "P_IA",
             "strec": "StRecall"}
    irm = _irm_values("ir_measures_intents.csv")
    for row in ndeval.itertuples():
        key = (int(row.user), _irm_name(names[row.measure], int(row.level), int(row.k)))
        assert abs(irm.get(key, 0.0) - row.value) <= 1e-12, key


def test_err_ia_at_1_is_refused_and_would_differ():
    run, qrels = _intent_tables()
    with pytest.raises(ValueError, match="ERR-IA@1 is err_ia@1 times"):
        evaluate(run, qrels, ["ERR_IA@1"], convention="ir_measures", intent_col="intent")
    reference = {key: v for key, v in _irm_values("ir_measures_intents.csv").items()
                 if key[1] == "ERR_IA@1"}
    ours = evaluate(run, qrels, ["err_ia@1"], ties="item_asc", missing="zero",
                    intent_col="intent")["err_ia@1"]
    assert sum(abs(ours.loc[u] - v) > 1e-6 for (u, _), v in reference.items()) > 20


def test_rbp_refusals_and_the_numbers_they_avoid():
    # ir-measures 0.4.3 has no provider for RBP without rel=
    with pytest.raises(ValueError, match="only with rel="):
        describe_convention("ir_measures", "RBP(p=0.8)")
    info = describe_convention("ir_measures", "RBP(p=0.5, rel=2)")
    assert info["metric"] == "rbp(p=0.5)" and info["keywords"]["relevance_level"] == 2
    assert info["keywords"]["gain"] == "binary" and info["score_dtype"] is None
    # ranx gains the grade itself: RBP above 1 on graded truth, which no gain= gives
    with pytest.raises(ValueError, match="gains the grade itself"):
        evaluate(pd.DataFrame({"user": [1], "item": [1], "score": [1.0]}),
                 pd.DataFrame({"user": [1], "item": [1], "relevance": [3]}), ["rbp.95"],
                 convention="ranx")
    grades = [3, 0, 2]
    ranx_value = (1 - 0.95) * sum(g * 0.95 ** i for i, g in enumerate(grades))
    linear = ml.rank_biased_precision(["a", "b", "c"], {"a": 3, "b": 0, "c": 2}, 0.95)
    assert abs(linear - ranx_value) > 0.05


def test_a_wrong_tie_order_is_caught():
    """The comparison can fail: cwl_eval's RBP with trec_eval's tie order differs."""
    run, qrels = _user_model_tables()
    reference = {key: v for key, v in _irm_values("ir_measures_user_models.csv").items()
                 if key[1] == "RBP(rel=1)"}
    wrong = evaluate(run, qrels, ["rbp(p=0.8)"], gain="binary", missing="zero",
                     ties="item_desc")["rbp(p=0.8)"]
    assert sum(abs(wrong.loc[u] - v) > 1e-9 for (u, _), v in reference.items()) > 20


def test_the_table_has_a_row_for_each_new_preset_metric():
    table = ml.convention_table()
    rows = {(r.peer, r.peer_metric): r for r in table.itertuples()}
    for peer, name, metric in [
            ("trec_eval", "rbp", "rbp(p=0.9)"), ("trec_eval", "rbp_resid", "rbp_resid(p=0.9)"),
            ("trec_eval", "set_F", "set_f(beta=1.0)"), ("trec_eval", "relative_P",
                                                        "relative_p@k"),
            ("ir_measures", "ERR", "err@k"), ("ir_measures", "RBP", "rbp(p=0.8)"),
            ("ir_measures", "Judged", "judged"), ("ir_measures", "alpha_nDCG", "alpha_ndcg@k"),
            ("ir_measures", "ERR_IA", "err_ia@k"), ("ir_measures", "StRecall", "s_recall@k"),
            ("ranx", "rbp", "(not reproduced)")]:
        assert rows[(peer, name)].metric == metric, (peer, name)
    assert "gains the grade itself" in rows[("ranx", "rbp")].note
    assert "ERR-IA@1" in rows[("ir_measures", "ERR_IA")].note
    assert "ties='input'" in rows[("ir_measures", "RBP")].ties


@pytest.mark.parametrize("kind", ["user_models", "intents"])
def test_ir_measures_own_providers_compare_scores_as_doubles(kind):
    """Scores 1e-9 apart (equal in float32) keep their order in gdeval, cwl_eval, the
    Judged provider and pyndeval: those presets read float64, unlike pytrec_eval's."""
    run = pd.read_csv(GOLDEN / "presets_i29" / f"{kind}_run_f32.txt", sep=" ", header=None,
                      names=["user", "q0", "item", "rank", "score", "tag"])
    run = run[["user", "item", "score"]]
    qrels = _intent_tables()[1] if kind == "intents" else _user_model_tables()[1]
    reference = _irm_values(f"ir_measures_{kind}_f32.csv")
    names = sorted({measure for _, measure in reference})
    extra = {"intent_col": "intent"} if kind == "intents" else {}
    ours = evaluate(run, qrels, names, convention="ir_measures", **extra)
    tolerance = GDEVAL_PRINTED if kind == "user_models" else 1e-12
    count, worst = _compare_irm(ours, reference, tolerance)
    assert count == len(reference) and worst <= tolerance
    # the same scores read as float32 tie again, and the values move: the data can tell
    as32 = run.assign(score=run["score"].astype(np.float32).astype(np.float64))
    moved = evaluate(as32, qrels, names, convention="ir_measures", **extra)
    assert sum(abs(moved.loc[u, m] - v) > 1e-4 for (u, m), v in reference.items()) > 10


# -- the set measures: pytrec_eval itself and ir-measures' pytrec_eval provider -------------

def _set_tables():
    """The user-model corpus as trec_eval reads it: a negative grade marks a document
    of the pool left unjudged (form_res_rels.c, RELVALUE_UNJUDGED), so its row goes."""
    run = pd.read_csv(GOLDEN / "user_models" / "run.txt", sep=" ", header=None,
                      names=["user", "q0", "item", "rank", "score", "tag"])
    qrels = pd.read_csv(GOLDEN / "user_models" / "qrels.txt", sep=" ", header=None,
                        names=["user", "zero", "item", "relevance"])
    qrels = qrels[qrels["relevance"] >= 0]
    return run[["user", "item", "score"]], qrels[["user", "item", "relevance"]]


def _only_unjudged(reference, ours):
    """The users whose every qrels row is negative have no truth row here (evaluate
    has nothing to score them against); the peers give them 0 everywhere."""
    gone = {user for user, _ in reference} - set(ours.index)
    assert all(v == 0 for (u, _), v in reference.items() if u in gone)
    return gone, {key: v for key, v in reference.items() if key[0] not in gone}


@pytest.mark.parametrize("rel", [1, 2])
def test_pytrec_eval_set_presets_match_pytrec_eval(rel):
    run, qrels = _set_tables()
    reference = {(user, measure.split()[0]): value for (user, measure), value
                 in _irm_values("pytrec_eval_sets.csv").items() if measure.endswith(f"-l{rel}")}
    names = sorted({measure for _, measure in reference})
    ours = evaluate(run, qrels, names, convention="pytrec_eval", relevance_level=rel)
    gone, reference = _only_unjudged(reference, ours)
    count, worst = _compare_irm(ours, reference, 1e-12)
    assert count == len(reference) == 10 * (258 - len(gone)) and worst <= 1e-12
    # pytrec_eval scores the users with a list only (the preset: missing="skip")
    assert set(ours.index) == {user for user, _ in reference}


def test_ir_measures_set_presets_match_ir_measures():
    run, qrels = _set_tables()
    reference = _irm_values("ir_measures_sets.csv")
    names = sorted({measure for _, measure in reference})
    assert len(names) == 22
    ours = evaluate(run, qrels, names, convention="ir_measures")
    gone, reference = _only_unjudged(reference, ours)
    count, worst = _compare_irm(ours, reference, 1e-12)
    assert count == 22 * (270 - len(gone)) and worst <= 1e-12
    # judged_only=True changes the values (the option is not ignored)
    assert (ours["SetP(judged_only=True)"] != ours["SetP"]).sum() > 50
