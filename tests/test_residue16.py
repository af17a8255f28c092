"""Small corners left by stop 15 (note15, "Noticed and left alone").

1. ``explain_difference`` names the users that differ most with facts from
   their rows; the facts about a cut-off (ties at the cut-off, fewer than k
   items, fewer relevant items than k) must use the metric's cut-off, never a
   named parameter (rbp's p, set_f's beta, utility's a) nor trec_eval's list
   of levels (``11pt_avg.0.2,0.5``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib.explain.reasons import user_reasons


def _tables(seed, n_users=30, intents=False):
    """Random tables: ties on a coarse score grid, graded truth with zeros,
    lists shorter and longer than the cut-offs, int64 ids, empty users."""
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for user in range(n_users):
        n_items = int(rng.integers(1, 8))
        items = rng.choice(20, size=n_items, replace=False)
        scores = rng.integers(0, 3, n_items) / 2  # many ties
        recs += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        judged = rng.choice(20, size=int(rng.integers(0, 6)), replace=False)
        for item in judged:
            grade = int(rng.integers(0, 4))
            if intents:
                for intent in rng.choice(3, size=int(rng.integers(1, 3)), replace=False):
                    truth.append((user, int(item), grade, int(intent)))
            else:
                truth.append((user, int(item), grade))
    columns = ["user", "item", "relevance"] + (["intent"] if intents else [])
    return (pd.DataFrame(recs, columns=["user", "item", "score"]).astype(
                {"user": "int64", "item": "int64"}),
            pd.DataFrame(truth, columns=columns).astype({"user": "int64", "item": "int64"}))


A = {"ties": "item_asc", "relevance_level": 1}
B = {"ties": "item_desc", "relevance_level": 2}

# (metric as written, the cut-off the facts must use: written here from the
# grammar, not read from the code under test)
CASES = [
    ("rbp(p=0.8)", None), ("RBP( p = .5 )", None), ("rbp_resid(p=0.5)", None),
    ("rbp.p=0.8", None),  # trec_eval's spelling
    ("set_f(beta=2)", None), ("set_f(beta=3.5)", None), ("set_f", None),
    ("utility(a=3)", None), ("utility(a=2,b=-2)", None), ("11pt_avg", None),
    ("11pt_avg.0.2,0.5", None), ("rprec_mult@1.5", None), ("trec_g", None),
    ("infap", None), ("yaap", None),
    ("err@2", 2), ("err@5", 5), ("ndcg@3", 3), ("judged@2", 2), ("unj@3", 3),
    ("relative_p@2", 2), ("aplt(head_share=0.5)@3", 3), ("map", None),
]


def _expected(metric, k, recs, truth, e, level):
    """Each named user's reasons, from user_reasons with the right cut-off."""
    columns = {"user": "user", "item": "item", "score": "score", "rank": None,
               "relevance": "relevance"}
    out = {}
    for row in e.users.itertuples():
        present = (pd.notna(row.value_a), pd.notna(row.value_b))
        reasons = user_reasons(row.user, recs[recs["user"] == row.user],
                               truth[truth["user"] == row.user], k, level, columns,
                               present)
        out[row.user] = "; ".join(reasons) or "no special case found in its rows"
    return out


@pytest.mark.parametrize("metric, k", CASES, ids=[m for m, _ in CASES])
def test_the_facts_use_the_cut_off_not_a_parameter(metric, k):
    named = 0
    for seed in range(4):
        recs, truth = _tables(seed)
        extra = {}
        if metric.startswith("aplt"):
            extra["item_popularity"] = pd.Series(np.arange(20) % 7 + 1.0,
                                                 index=pd.Index(np.arange(20), dtype="int64"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e = ml.explain_difference(recs, truth, metric, A, B, top=30, **extra)
        got = dict(zip(e.users["user"], e.users["reasons"]))
        assert got == _expected(metric, k, recs, truth, e, 1), metric
        for text in got.values():  # never a parameter shown as a cut-off
            if k is None:
                assert "than k" not in text and "cut-off" not in text, (metric, text)
        named += len(got)
    assert named > 0  # the two sides differ for some users


def test_alpha_ndcg_with_its_alpha_uses_the_cut_off():
    for metric in ("alpha_ndcg(alpha=0.25)@2", "err_ia(alpha=0.75)@3", "alpha_ndcg@2"):
        recs, truth = _tables(5, intents=True)
        e = ml.explain_difference(recs, truth, metric, {"ties": "item_asc"},
                                  {"ties": "item_desc"}, top=30, intent_col="intent",
                                  missing="zero")
        k = ml.parse_metric(metric)[1]
        assert k in (2, 3)
        got = dict(zip(e.users["user"], e.users["reasons"]))
        assert got and got == _expected(metric, k, recs, truth, e, 1)
        assert any("tied scores at the cut-off" in text for text in got.values())


def test_a_tie_at_rbps_persistence_is_not_a_tie_at_a_cut_off():
    """rbp(p=0.8) read 0.8 as a cut-off and indexed the scores with it
    (numpy's IndexError on main); p=2e-1 likewise."""
    recs = pd.DataFrame({"user": [1, 1, 1, 2, 2, 2], "item": [1, 2, 3, 1, 2, 3],
                         "score": [0.9, 0.5, 0.5, 0.8, 0.8, 0.1]})
    truth = pd.DataFrame({"user": [1, 1, 2, 2], "item": [3, 2, 2, 1],
                          "relevance": [2, 1, 1, 0]})
    for metric in ("rbp(p=0.8)", "rbp(p=2e-1)"):
        e = ml.explain_difference(recs, truth, metric, {"ties": "best"}, {"ties": "worst"})
        reasons = dict(zip(e.users["user"], e.users["reasons"]))
        assert set(reasons) == {1, 2}
        assert all("tied scores" in text and "cut-off" not in text
                   for text in reasons.values()), reasons


def test_set_fs_beta_is_not_a_list_length():
    """set_f(beta=3) read 3.0 as k: 'fewer than k items (1 < 3.0)'."""
    recs = pd.DataFrame({"user": [1, 2, 2], "item": [1, 1, 2], "score": [0.5, 0.9, 0.1]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1], "relevance": [1, 2, 2]})
    e = ml.explain_difference(recs, truth, "set_f(beta=3)", {"relevance_level": 1},
                              {"relevance_level": 2})
    assert list(e.users["user"]) == [1]  # one item, three was its "k"
    assert not any("than k" in text for text in e.users["reasons"]), list(e.users["reasons"])


# -- 2. two spellings of one metric in one evaluate call --------------------------

TWO_SPELLINGS = [
    (["ndcg@10", "NDCG_cut_10"], "ndcg@10"), (["rbp(p=0.8)", "rbp( p=.8 )"], "rbp(p=0.8)"),
    (["map", "ap"], "map"), (["P_5", "precision@5"], "precision@5"),
    (["mrr", "recip_rank"], "mrr"), (["ndcg_cut.10", "ndcg@10"], "ndcg@10"),
    (["ndcg_cut", "ndcg@10"], "ndcg@10"),  # trec_eval's defaults include ndcg_cut.10
    (["set_f", "set_f(beta=1)"], "set_f"), (["set_F.0.5", "set_f(beta=.5)"], "set_f(beta=0.5)"),
    (["rbp.p=0.8", "RBP(p=0.80)"], "rbp(p=0.8)"), (["Rprec", "r-precision"], "rprec"),
    (["iprec_at_recall_0.50", "iprec_at_recall@0.5"], "iprec_at_recall@0.5"),
    (["utility", "utility(a=1,b=-1)"], "utility"), (["G", "trec_g"], "trec_g"),
    (["hit@3", "success_3"], "hit@3"), (["infAP", "infap"], "infap"),
]


@pytest.mark.parametrize("names, canonical", TWO_SPELLINGS,
                         ids=[" ".join(n) for n, _ in TWO_SPELLINGS])
def test_two_spellings_of_one_metric_are_refused(names, canonical):
    recs, truth = _tables(1)
    for order in (names, names[::-1]):
        with pytest.raises(ValueError) as error:
            ml.evaluate(recs, truth, ["err@3", *order], missing="zero")
        message = str(error.value)
        assert f"'{canonical}'" in message and "one metric" in message, message
        for name in order:  # both spellings, as written (or the column they give)
            column = ml.ranking.registry.expand_metric(name)
            assert any(f"'{c}'" in message for c, _, _ in column), (name, message)


def test_different_metrics_with_one_base_are_kept():
    recs, truth = _tables(2)
    names = ["recall", "recall@1000", "set_f", "set_f(beta=0.5)", "rbp(p=0.8)",
             "rbp(p=0.9)", "ndcg_cut.5,10", "ndcg@3", "map", "map@10"]
    got = ml.evaluate(recs, truth, names, missing="zero")
    assert list(got.columns) == ["recall", "recall@1000", "set_f", "set_f(beta=0.5)",
                                 "rbp(p=0.8)", "rbp(p=0.9)", "ndcg_cut.5", "ndcg_cut.10",
                                 "ndcg@3", "map", "map@10"]
    with pytest.raises(ValueError, match="listed twice"):
        ml.evaluate(recs, truth, ["map", "map"])


def test_trec_evals_set_f_spelling_is_its_weight():
    """evaluate refused set_F.0.5 saying trec_eval's set_F takes no parameter:
    it takes the weight (m_set_F.c, default 1.0)."""
    recs, truth = _tables(3)
    got = ml.evaluate(recs, truth, ["set_F.0.5"], missing="zero")
    want = ml.evaluate(recs, truth, ["set_f(beta=0.5)"], missing="zero")
    assert list(got.columns) == ["set_F.0.5"]
    assert got["set_F.0.5"].equals(want["set_f(beta=0.5)"].rename("set_F.0.5"))
    with pytest.raises(ValueError, match="beta"):
        ml.evaluate(recs, truth, ["set_F.-1"])


# -- the command line with a repeated -m: trec_eval 10.0's output, byte for byte --

def _trec_files(seed, tmp_path):
    rng = np.random.default_rng(seed)
    qrels = [(f"q{u}", f"d{d}", int(rng.integers(0, 4))) for u in range(int(rng.integers(1, 8)))
             for d in rng.choice(15, int(rng.integers(1, 7)), replace=False)]
    users = sorted({q for q, _, _ in qrels})
    run = [(q, f"d{d}", float(rng.integers(0, 4)) / 2) for q in users
           for d in rng.choice(15, int(rng.integers(1, 9)), replace=False)]
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 0 {s!r} t\n" for q, d, s in run))
    return str(tmp_path / "qrels"), str(tmp_path / "run")


# measures named twice, with and without parameters: trec_eval keeps the
# parameters of the first -m that gives some (meas_init.c)
REPEATS = ["ndcg_cut.10", "ndcg_cut.5", "ndcg_cut", "map", "P.5", "P.10,5", "P",
           "set_F.0.5", "set_F.2", "set_F", "rbp_resid.p=0.5", "rbp_resid.p=0.8", "G",
           "G.1=3,2=7", "success.1", "recall.5", "11pt_avg", "11pt_avg.0.2,0.5",
           "utility.2,-1,0,0", "utility", "official", "map_cut.5,10", "map_cut.10"]


def test_a_repeated_measure_prints_what_trec_eval_prints(tmp_path):
    from test_trec_cli import TREC_EVAL, trec_eval
    from test_trec_cli_grammar import run_ours

    if not TREC_EVAL.is_file():
        pytest.skip("the trec_eval 10.0 binary is not built")
    rng = np.random.default_rng(16)
    compared = lines = 0
    for seed in range(40):
        files = _trec_files(seed, tmp_path)
        picks = list(rng.choice(REPEATS, size=int(rng.integers(2, 5))))
        picks.append(picks[int(rng.integers(0, len(picks)))])  # one named twice
        args = ["-q", "-c"] + [a for m in picks for a in ("-m", m)] + list(files)
        theirs = trec_eval(*args)
        code, out, err = run_ours(args)
        assert (code, out) == (theirs.returncode, theirs.stdout), (picks, err)
        compared += 1
        lines += out.count(b"\n")
    assert compared == 40 and lines > 500


def test_two_spellings_on_the_command_line_are_one_computation(tmp_path):
    """trec_eval's set_F.1 and evaluate's set_f: the command line prints both
    lines (as it prints every -m in evaluate's grammar) with one value."""
    from test_trec_cli import TREC_EVAL, trec_eval
    from test_trec_cli_grammar import run_ours

    files = _trec_files(7, tmp_path)
    for first, second, trec in [
            ("set_F.1", "set_f", "set_F.1"), ("set_f", "set_F", "set_F"),
            ("set_F.0.5", "set_f(beta=0.5)", "set_F.0.5"),
            ("rbp_resid.p=0.8", "rbp_resid(p=.8)", "rbp_resid.p=0.8"),
            ("ndcg_cut.10", "ndcg@10", "ndcg_cut.10"), ("map", "ap", "map")]:
        code, out, err = run_ours(["-q", "-m", first, "-m", second, *files])
        assert code == 0, (first, second, err)
        rows = [line.split(b"\t") for line in out.splitlines()]
        names = list(dict.fromkeys(name.strip() for name, _, _ in rows))
        assert len(names) == 2, names
        one = {q: v for n, q, v in rows if n.strip() == names[0]}
        two = {q: v for n, q, v in rows if n.strip() == names[1]}
        assert one == two and len(one) > 1, (first, second)
        if TREC_EVAL.is_file():  # the trec_eval line is the binary's
            theirs = trec_eval("-q", "-m", trec, *files)
            assert theirs.returncode == 0
            assert {line.split(b"\t")[1]: line.split(b"\t")[2]
                    for line in theirs.stdout.splitlines()} == one == two


# -- trec_eval's gain order (gain_init.c): the command line prints its number or refuses --

GAIN_MEASURES = ["G", "ndcg_rel", "Rndcg", "ideal_dcg", "dcg", "ndcg"]


def test_gain_pairs_print_trec_evals_number_or_are_refused(tmp_path):
    """-m G.1=0.5,0=0 with no grade-0 judgement: trec_eval's ideal walk starts at
    the last sorted gain, 0, and ends at once (G 0.0000); the command line
    printed the exact ideal's value (0.3782)."""
    from test_trec_cli import TREC_EVAL, trec_eval
    from test_trec_cli_grammar import run_ours

    if not TREC_EVAL.is_file():
        pytest.skip("the trec_eval 10.0 binary is not built")
    rng = np.random.default_rng(29)
    printed = refused = 0
    for case in range(90):
        levels = rng.choice(4, size=int(rng.integers(1, 4)), replace=False)
        gains = rng.choice([0.0, 0.2, 0.5, 0.9, 1.0, 1.5, 3.0], size=len(levels))
        pairs = [f"{int(level)}={gain:g}" for level, gain in zip(levels, gains)]
        if case % 2 and 0 not in levels:
            pairs.append("0=0")  # a zero gain written last: sorted last among close gains
        spec = ",".join(pairs)
        measure = GAIN_MEASURES[case % len(GAIN_MEASURES)]
        low = int(case % 3 == 0)  # a third of the cases judge no grade 0
        grades = rng.choice(np.arange(low, 4), size=int(rng.integers(1, 4 - low)), replace=False)
        (tmp_path / "qrels").write_text("".join(f"q1 0 d{i} {int(g)}\n"
                                                for i, g in enumerate(grades)))
        listed = rng.permutation(len(grades) + 2)[:int(rng.integers(1, len(grades) + 3))]
        (tmp_path / "run").write_text("".join(f"q1 Q0 d{d} 0 {10 - r} t\n"
                                              for r, d in enumerate(listed)))
        args = ["-q", "-m", f"{measure}.{spec}", str(tmp_path / "qrels"), str(tmp_path / "run")]
        code, out, err = run_ours(args)
        if code == 1:
            assert b"" == out and "comp_rel_gain" in err, (args, err)
            refused += 1
            continue
        theirs = trec_eval(*args)
        assert (code, out) == (theirs.returncode, theirs.stdout), (spec, grades, listed, err)
        printed += 1
    assert printed >= 20 and refused >= 5, (printed, refused)
