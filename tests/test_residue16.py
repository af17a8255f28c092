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
