"""Issue 27, point 5: the two sides of an explanation are the peers' own numbers.

For every pair of presets that share a metric among the golden groups of
``benchmarks/peers`` (per-user values computed by the peers' real code:
pytrec_eval, ranx, Recommenders, RecTools, RecBole, torchmetrics,
scikit-learn, ir-measures; see benchmarks/peers/README.md), explain_difference
on the golden corpus must give, user by user and in the means, the values the
peers computed (on the untied corpus when either peer's order of tied scores
is implementation-defined), and contributions that add up to the difference.
No peer needs to be installed: the goldens are committed. ``PEERS_DIR`` names
another copy of ``benchmarks/peers`` whose corpus and goldens were regenerated
(another ``SEED`` in its gen_corpus.py, the peer scripts run in their venvs),
to check the same on fresh random data.
"""
from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml

sys.path.insert(0, os.environ.get(
    "PEERS_DIR", str(Path(__file__).resolve().parents[1] / "benchmarks" / "peers")))

import reproduce  # noqa: E402

METRICS = ("ndcg@10", "map@10", "recall@10", "precision@10", "mrr@10", "hit@10", "ndcg@5",
           "map@5", "mrr")


def _sides():
    """our metric -> {preset: (golden rows, 'tied' or 'untied')}: the groups
    computed with the preset's defaults on the corpus as it is."""
    out = {}
    for peer, metric, options, k, rows in reproduce.groups():
        opts = json.loads(options)
        if opts.get("candidates") == "recommended+judged":
            continue  # the peer was given more rows than the corpus has
        if reproduce.partial(peer, metric, options) is not None:
            continue  # reproduced but for users of a stated kind (reproduce.PARTIAL)
        name = reproduce.peer_metric_name(peer, metric, k, opts)
        bare = reproduce.peer_metric_name(peer, metric, k, {})
        preset = reproduce.PRESET_OF.get(peer, peer)
        try:
            given, default = (ml.describe_convention(preset, n) for n in (name, bare))
        except ValueError:
            continue
        if (given["metric"], given["keywords"], given["score_dtype"]) != (
                default["metric"], default["keywords"], default["score_dtype"]):
            continue  # the peer's options change a convention: not the preset's defaults
        ours = given["metric"]
        if ours in METRICS:
            level = reproduce.expected_level(peer, metric, options, k)
            out.setdefault(ours, {}).setdefault(preset, (peer, rows, level,
                                                         (metric, options, k)))
    return out


SIDES = _sides()
PAIRS = [(metric, a, b) for metric in sorted(SIDES)
         for a, b in itertools.combinations(sorted(SIDES[metric]), 2)]


def _whole_table_mean(scores, group):
    """Recommenders called once on the whole tables (golden/recommenders_means.csv):
    its ndcg_at_k also counts, as 0, the users without predictions, which its
    one-user calls cannot show."""
    metric, options, k = group
    means = pd.read_csv(reproduce.GOLDEN / "recommenders_means.csv", dtype={"options": str})
    row = means[(means["scores"] == scores) & (means["metric"] == metric)
                & (means["options"] == options) & (means["k"] == k)]
    assert len(row) == 1, group
    return float(row["value"].iloc[0])


def _check(values, peer, rows, scores, group):
    expected = rows[rows["scores"] == scores].set_index("user")["value"].astype(float)
    tol = reproduce.FLOAT32.get(peer, reproduce.TOL)
    got = values.reindex(expected.index).to_numpy(dtype=float)
    want = expected.to_numpy(dtype=float)
    ok = (np.isnan(got) & np.isnan(want)) | (np.abs(got - want) <= tol)
    assert ok.all(), (peer, list(expected.index[~ok][:5]), got[~ok][:5], want[~ok][:5])
    if peer == "recommenders":
        assert abs(values.mean() - _whole_table_mean(scores, group)) <= tol
        return
    # the users the explainer averages are those with a value on the peer's side
    extra = values.dropna().index.difference(expected.dropna().index)
    if peer == "sklearn":
        # ndcg_score refuses a one-item list ("Computing NDCG is only meaningful when
        # there is more than 1 document"): the peer has no value to compare there
        recs, _ = reproduce.corpus(scores)
        lengths = recs.groupby("user").size()
        assert (lengths.reindex(extra) == 1).all(), (peer, list(extra[:5]))
        values = values.drop(extra)
    assert not len(values.dropna().index.difference(expected.dropna().index)), peer
    assert abs(values.mean() - np.nanmean(want)) <= tol


def test_enough_pairs():
    assert len(PAIRS) >= 40
    assert {p for _, a, b in PAIRS for p in (a, b)} >= {
        "pytrec_eval", "ranx", "recommenders", "rectools", "recbole", "sklearn",
        "torchmetrics", "ir_measures"}


@pytest.mark.parametrize("metric, a, b", PAIRS)
def test_sides_are_the_peers_numbers(metric, a, b):
    peer_a, rows_a, level_a, group_a = SIDES[metric][a]
    peer_b, rows_b, level_b, group_b = SIDES[metric][b]
    scores = "tied" if level_a == level_b == "tied" else "untied"
    recs, truth = reproduce.corpus(scores)
    e = ml.explain_difference(recs, truth, metric, a, b)
    _check(e.per_user["value_a"], peer_a, rows_a, scores, group_a)
    _check(e.per_user["value_b"], peer_b, rows_b, scores, group_b)
    assert abs(e.by_convention["contribution"].sum() - e.difference) < 1e-12


def test_the_check_can_fail():
    """Another preset's values do not pass for the peer's own."""
    peer_a, rows_a, level_a, group_a = SIDES["ndcg@10"]["ranx"]
    recs, truth = reproduce.corpus("untied")
    e = ml.explain_difference(recs, truth, "ndcg@10", "ranx", "rectools")
    with pytest.raises(AssertionError):
        _check(e.per_user["value_b"], peer_a, rows_a, "untied", group_a)


FOUND = [(metric, peer) for metric in sorted(SIDES) for peer in sorted(SIDES[metric])
         # scikit-learn's mean leaves out the one-item lists it refuses (see _check)
         if peer != "sklearn"]


@pytest.mark.parametrize("metric, peer", FOUND)
def test_find_convention_names_the_peer_from_its_own_number(metric, peer):
    """The mean a peer's real code reported on the corpus leads back to its preset."""
    golden_peer, rows, level, group = SIDES[metric][peer]
    scores = "tied" if level == "tied" else "untied"
    recs, truth = reproduce.corpus(scores)
    if golden_peer == "recommenders":
        reported = _whole_table_mean(scores, group)
    else:
        reported = float(np.nanmean(rows[rows["scores"] == scores]["value"].astype(float)))
    tolerance = reproduce.FLOAT32.get(golden_peer, reproduce.TOL)
    found = ml.find_convention(recs, truth, metric, reported, tolerance=tolerance,
                               max_evaluations=1)
    assert peer in set(found["peer"]), (metric, peer, reported)
