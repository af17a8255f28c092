"""metrics_lib with each peer's preset reproduces the peers' own per-user values.

The golden values (``benchmarks/peers/golden/*.csv``) were computed by the peers
themselves on a seeded corpus (``benchmarks/peers/corpus/``); regenerate them with
``bash benchmarks/peers/run_all.sh`` (its README). For every (peer, metric,
options, k) group this test runs ``evaluate(..., convention=<peer>)`` and
compares every user's value (1e-12; 1e-6 for torchmetrics and RecBole, which compute in
float32):

- on the tied corpus and the untied one where the preset says the peer's order
  of tied scores is reproducible;
- on the untied corpus only where it is not (ranx, RecBole, torchmetrics,
  scikit-learn's ``ignore_ties=True``);
- a group that is not reproduced must be in ``reproduce.ALLOWED`` with its
  reason, and a listed group that is reproduced fails too (stale entry).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks" / "peers"))

import reproduce  # noqa: E402


@pytest.fixture(scope="module")
def results():
    return reproduce.check_all()


@pytest.mark.parametrize("peer", reproduce.PEER_FILES)
def test_peer_goldens_reproduced(results, peer):
    mine = [r for r in results if r[0] == peer]
    assert mine, f"no golden rows for {peer}"
    problems, entry_fails = [], {}
    for _peer, metric, options, k, reached, expected, reason, message in mine:
        ok = reached == "tied" or (reached == "untied" and expected == "untied")
        if reason is not None:
            key = reproduce._entry(peer, metric, options)
            entry_fails[key] = entry_fails.get(key, False) or not ok
        elif not ok:
            problems.append(f"{metric} {options} k={k}: {reached}, expected {expected}: "
                            f"{message}")
    for key, fails in entry_fails.items():
        if not fails:
            problems.append(f"allow-list entry {key} covers only groups that are "
                            "reproduced: remove it")
    assert not problems, f"{peer}:\n" + "\n".join(problems)


def test_every_group_is_checked(results):
    """Every golden group is classified: nothing is skipped silently."""
    n_groups = len(reproduce.groups())
    assert len(results) == n_groups
    entries = reproduce.manifest()
    assert len(entries) == n_groups


def test_a_wrong_preset_is_caught():
    """The comparison can fail: ranx's ndcg with trec_eval's exponential gain differs."""
    peer, metric, options, k, rows = next(
        g for g in reproduce.groups() if g[0] == "ranx" and g[1] == "ndcg@10")
    ok, _ = reproduce.compare(peer, "ndcg_burges@10", options, k, rows, "untied")
    assert not ok


def test_trec_eval_preset_on_untied_scores():
    """trec_eval 10.0 compares scores as doubles, pytrec_eval (the golden) as floats:
    the "trec_eval" preset must agree wherever no two scores are float32-equal."""
    bad = []
    for peer, metric, options, k, rows in reproduce.groups():
        if peer == "trec_eval":
            ok, message = reproduce.compare(peer, metric, options, k, rows, "untied",
                                            preset="trec_eval")
            if not ok:
                bad.append(f"{metric} {options} k={k}: {message}")
    assert not bad, "\n".join(bad)


def test_untied_corpus_has_no_ties():
    """The untied corpus has no two equal scores in any user's input, also after the
    judged items a list lacks are appended (candidates "recommended+judged"), and
    not in float32 either (torchmetrics): every peer sees one order there."""
    import numpy as np

    for peer in ("sklearn", "torchmetrics"):
        for candidates in ("recommended", "recommended+judged"):
            recs, _ = reproduce._prepare(peer, {"candidates": candidates}, "untied")
            for dtype in (np.float64, np.float32):
                scores = recs["score"].to_numpy().astype(dtype)
                tied = recs.assign(score=scores).duplicated(["user", "score"])
                assert not tied.any(), (peer, candidates, dtype,
                                        recs[tied].head().to_dict("records"))


def test_appended_items_as_the_peer_scripts_appended_them():
    """reproduce.py's input is the peer scripts' input (_common.append_judged)."""
    import _common

    truth = _common.load_truth()
    for scores in _common.SCORES:
        recs, _ = reproduce._prepare("sklearn", {"candidates": "recommended+judged"}, scores)
        ours = {user: list(zip(group["item"], group["score"]))
                for user, group in recs.groupby("user", sort=False)}
        for user, rows in _common.load_recs(scores).items():
            assert ours[user] == _common.append_judged(rows, truth.get(user, {}), scores)


def test_recommenders_means_over_the_whole_tables():
    """Recommenders' functions called once on the whole tables (how it is used) equal
    the mean of the preset's per-user values over the same graded truth table: which
    users count (precision: the users of both tables; ndcg_at_k: every truth user) and
    which are NaN and left out show only here (golden/recommenders_means.csv)."""
    import json

    import numpy as np
    import pandas as pd

    from metrics_lib import evaluate

    means = pd.read_csv(reproduce.GOLDEN / "recommenders_means.csv",
                        dtype={"options": str})
    assert len(means) == 2 * 60
    bad = []
    for row in means.itertuples(index=False):
        name = reproduce.peer_metric_name("recommenders", row.metric, int(row.k),
                                          json.loads(row.options))
        recs, truth = reproduce.corpus(row.scores)
        ours = float(evaluate(recs, truth, [name], convention="recommenders")[name].mean())
        if not np.isclose(ours, row.value, rtol=0, atol=1e-12):
            bad.append(f"{row.scores} {name}: Recommenders {row.value!r}, preset {ours!r}")
    assert not bad, f"{len(bad)} of {len(means)} means differ:\n" + "\n".join(bad)


def test_ranx_tie_order_is_the_input_order_on_short_lists():
    """numba's quicksort only insertion-sorts lists of at most SMALL_QUICKSORT = 15
    items (numba 0.68.1, numba/misc/quicksort.py), which is stable: on such lists ranx
    keeps tied items in the run's order and ties="input" reproduces every golden value
    on the tied corpus; longer lists are partitioned and some of them differ."""
    import numpy as np
    from metrics_lib import describe_convention, evaluate

    short_checked, long_differ, bad = 0, 0, []
    for peer, metric, options, k, rows in reproduce.groups():
        if peer != "ranx":
            continue
        described = describe_convention("ranx", reproduce.peer_metric_name(
            peer, metric, k, json.loads(options)))
        recs, truth = reproduce._prepare(peer, json.loads(options), "tied")
        ours = evaluate(recs, truth, [described["metric"]],
                        **{**described["keywords"], "ties": "input"})[described["metric"]]
        expected = rows[rows["scores"] == "tied"].set_index("user")["value"]
        length = recs.groupby("user").size().reindex(expected.index, fill_value=0)
        diff = np.abs(ours.reindex(expected.index).to_numpy(float) - expected.to_numpy(float))
        short = (length <= 15).to_numpy()
        short_checked += int(short.sum())
        long_differ += int((diff[~short] > 1e-12).sum())
        if (diff[short] > 1e-12).any():
            bad.append(f"{metric} {options}: {int((diff[short] > 1e-12).sum())} short lists differ")
    assert short_checked > 0 and not bad, "\n".join(bad)
    assert long_differ > 0   # the limit is real: beyond 15 items the order is the sort's
