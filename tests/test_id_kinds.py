"""Id kinds agree everywhere (issue 22, point 5).

Every public function that takes ids is called with its two id arguments
(or two parts of one argument) in every pair of id kinds: strings, Python
ints (beyond 2**64 where the other kind allows it), numpy int64 and uint64
(beyond 2**63), whole floats, pandas nullable Int64 and pyarrow int64,
booleans, and a nullable Int64 column with a missing id (refused as
missing, whatever the other side). A call either gives the answer of the
same data with both sides in one kind (the first), or raises a
TypeError/ValueError whose message names the arguments. Integer kinds are one kind, as in ``evaluate``: they never raise
and stay exact (2**63 + 1 and 2**63 + 2 stay two ids, and so do 2**62 + 1
and 2**62 + 2, which float64 merges).

The table ``CALLS`` says how to call each function; ``NO_IDS`` lists the
public functions that take no ids, with the reason. A public function in
neither fails the test, so a new function cannot skip the matrix.
"""

from __future__ import annotations

import inspect
import itertools

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import metrics_lib as ml
from metrics_lib._validation import check_int_array

# -- the kinds -----------------------------------------------------------------
# Each kind: how a list of ints becomes a container of that kind, and the
# largest "tier" of values it holds: 64 (any int), 63 (up to 2**64 - 1),
# 62 (up to 2**63 - 1) or 0 (small: floats are exact only below 2**53).
KINDS = {
    "str": (lambda values: [str(v) for v in values], 64),
    "int": (lambda values: [int(v) for v in values], 64),
    "int64": (lambda values: np.array(values, dtype=np.int64), 62),
    "uint64": (lambda values: np.array(values, dtype=np.uint64), 63),
    "float": (lambda values: [float(v) for v in values], 0),
    "Int64": (lambda values: pd.array(values, dtype="Int64"), 62),
    "pyarrow": (lambda values: pa.array(values, type=pa.int64()), 62),
    # booleans are a kind of their own (True is not the id 1), and one
    # missing id (pandas.NA in a nullable column) is refused wherever it is
    "bool": (lambda values: [bool(v % 2) for v in values], 0),
    "missing": (lambda values: pd.array([None, *values[1:]], dtype="Int64"), 62),
}
INTEGER_KINDS = {"int", "int64", "uint64", "Int64", "pyarrow"}
OFFSET = {64: 2**64, 63: 2**63, 62: 2**62, 0: 0}
PAIRS = list(itertools.product(KINDS, repeat=2))


def tier(kind_a: str, kind_b: str) -> int:
    """The largest tier both kinds hold: the ids of a pair's data."""
    return min(KINDS[kind_a][1], KINDS[kind_b][1])


def series(kind: str, values) -> pd.Series:
    """A pandas column of ``kind`` (for evaluate)."""
    if kind == "pyarrow":
        return pd.Series(pd.array(values, dtype="int64[pyarrow]"))
    if kind == "int":
        return pd.Series(list(values), dtype=object)
    return pd.Series(KINDS[kind][0](values))


def scalars(kind: str, values) -> list:
    """The ids of ``kind`` one by one, as iterating its container gives them."""
    container = KINDS[kind][0](values)
    return list(container)


class Data:
    """One random data set of small ids; ``ids(offset)`` lifts them to a tier."""

    def __init__(self, seed: int):
        rng = np.random.default_rng(seed)
        self.rng_seed = seed
        pool = np.arange(1, 13)
        self.lists = [rng.permutation(pool)[:6].tolist() for _ in range(3)]
        self.relevant = [sorted(rng.choice(pool, size=4, replace=False).tolist())
                         for _ in range(3)]
        self.other = [rng.permutation(pool)[:6].tolist() for _ in range(3)]
        self.actions = rng.integers(0, 3, size=8).tolist()


def lift(values, offset):
    return [offset + v for v in values]


# -- how to call each function -------------------------------------------------
# call(kind_a, kind_b, data, offset) -> a comparable summary of the result;
# names: the arguments a message must name when the call refuses the mix.

def _per_list(function, **options):
    def call(a, b, d, off):
        return function(KINDS[a][0](lift(d.lists[0], off)),
                        KINDS[b][0](lift(d.relevant[0], off)), **options)
    return call, ("recommended", "relevant")


def _many(function, **options):
    def call(a, b, d, off):
        return function([KINDS[a][0](lift(r, off)) for r in d.lists],
                        [KINDS[b][0](lift(r, off)) for r in d.relevant], **options)
    return call, ("recommended", "relevant")


def _intent_list(function):
    # relevant: item -> {intent: grade}, its items the ids of kind b one by one
    def call(a, b, d, off):
        relevant = {item: {"x": 1, "y": n % 2} for n, item in
                    enumerate(scalars(b, lift(d.relevant[0], off)))}
        return function(KINDS[a][0](lift(d.lists[0], off)), relevant, 5)
    return call, ("recommended", "relevant")


def _tables(a, b, d, off):
    """recommendations with item ids of kind a, truth with item ids of kind b."""
    users = [u for u, r in enumerate(d.lists) for _ in r]
    items = [off + v for r in d.lists for v in r]
    rec = pd.DataFrame({"user": users, "item": series(a, items),
                        "score": [float(-i) for i in range(len(items))]})
    tusers = [u for u, r in enumerate(d.relevant) for _ in r]
    titems = [off + v for r in d.relevant for v in r]
    truth = pd.DataFrame({"user": tusers, "item": series(b, titems),
                          "relevance": [1 + v % 3 for r in d.relevant for v in r]})
    return rec, truth


def _evaluate(a, b, d, off):
    rec, truth = _tables(a, b, d, off)
    result = ml.evaluate(rec, truth, ["ndcg@5", "map", "recall@3"])
    return result.round(12).to_dict("split")


def _explain(a, b, d, off):
    rec, truth = _tables(a, b, d, off)
    e = ml.explain_difference(rec, truth, "ndcg@5", "trec_eval", "rectools")
    return (round(e.value_a, 12), round(e.value_b, 12),
            e.by_convention.round(12).astype(str).values.tolist(),
            e.per_user.round(12).to_dict("split"))


def _find(a, b, d, off):
    rec, truth = _tables(a, b, d, off)
    found = ml.find_convention(rec, truth, "ndcg@5", 0.5, tolerance=1.0, max_evaluations=1)
    return found[["peer", "n_changes"]].astype(str).values.tolist(), \
        found["value"].round(12).tolist()


def _interleave(a, b, d, off):
    merged = ml.team_draft_interleave(KINDS[a][0](lift(d.lists[0], off)),
                                      KINDS[b][0](lift(d.other[0], off)), seed=d.rng_seed)
    return [int(x) for x in merged.items], merged.teams


def _matrix(kind, rows):
    if kind in ("Int64", "pyarrow", "missing"):
        dtype = "int64[pyarrow]" if kind == "pyarrow" else "Int64"
        frame = pd.DataFrame(rows).astype(dtype)
        if kind == "missing":
            frame.iloc[0, 0] = pd.NA
        return frame
    if kind == "int":
        return [[int(v) for v in row] for row in rows]
    return np.array([KINDS[kind][0](row) for row in rows])


def _interleave_many(a, b, d, off):
    batch = ml.team_draft_interleave_many(
        _matrix(a, [lift(r, off) for r in d.lists]),
        _matrix(b, [lift(r, off) for r in d.other]), seed=d.rng_seed)
    return [[int(x) for x in row] for row in batch.items.tolist()], batch.teams.tolist()


def _lists(kind, d, off):
    return [KINDS[kind][0](lift(r, off)) for r in d.lists]


def _catalog(function):
    def call(a, b, d, off):
        catalog = sorted({v for r in d.lists + d.other for v in r})
        return function(_lists(a, d, off), KINDS[b][0](lift(catalog, off)))
    return call, ("recommended_lists", "catalog")


def _diversity(a, b, d, off):
    catalog = sorted({v for r in d.lists for v in r})
    vectors = np.random.default_rng(d.rng_seed).random((len(catalog), 3))
    keys = scalars(b, lift(catalog, off))
    return ml.intra_list_diversity(_lists(a, d, off), features=dict(zip(keys, vectors)))


def _novelty(a, b, d, off):
    items = [v for r in d.lists + d.other for v in r]
    users = [u % 4 for u in range(len(items))]
    pairs = list(zip(users, scalars(b, lift(items, off))))
    return ml.novelty(_lists(a, d, off), pairs, popularity="users")


def _serendipity(side):
    def call(a, b, d, off):
        rels = [KINDS[b if side == "relevant" else a][0](lift(r, off)) for r in d.relevant]
        others = [KINDS[b if side != "relevant" else a][0](lift(r, off)) for r in d.other]
        if side == "history":
            return ml.serendipity(_lists(a, d, off), rels, history_lists=others,
                                  similarity=lambda x, y: float(int(x) == int(y)),
                                  per_user=True).tolist()
        return ml.serendipity(_lists(a, d, off), rels, baseline_lists=others,
                              per_user=True).tolist()
    return call, ("recommended_lists", f"{side}_lists")


def _personalization(a, b, d, off):
    lists = [KINDS[a if u % 2 == 0 else b][0](lift(r, off)) for u, r in enumerate(d.lists)]
    return ml.personalization(lists)


def _mixed(a, b, values, off):
    """One argument: the first half of ``values`` in kind a, the rest in kind b."""
    half = len(values) // 2
    if a == b:
        return KINDS[a][0](lift(values, off))
    return scalars(a, lift(values[:half], off)) + scalars(b, lift(values[half:], off))


def _bandit(function, **extra):
    def call(x, y, d, off):
        n = len(d.actions)
        logging = np.full((n, 3), 1 / 3)
        target = np.tile([0.5, 0.3, 0.2], (n, 1))
        rewards = [float(i % 2) for i in range(n)]
        result = function(rewards, _mixed(x, y, d.actions, off), logging, target, **extra)
        return round(result.value, 12)
    return call, ("actions",)


def _slates(x, y, d, off):
    n = len(d.actions) // 2
    slates = [_mixed(x, y, d.actions[2 * i:2 * i + 2], off) for i in range(n)]
    marginals = np.full((n, 3, 2), 1 / 3)  # (lists, items, positions)
    target = np.broadcast_to(np.array([[0.6], [0.3], [0.1]]), (n, 3, 2))
    clicks = np.eye(n, 2)
    result = ml.slate_ips_estimate(clicks, slates, marginals, target)
    return round(result.value, 12)


def _grouped(function):
    def call(x, y, d, off):
        groups = _mixed(x, y, [v % 3 for v in d.lists[0]], off)
        return round(function([4, 3, 5, 2, 1, 3], [3.5, 3, 3, 2, 2, 1], groups=groups), 12)
    return call, ("groups",)


def _paired(function, **options):
    def call(a, b, d, off):
        users = d.lists[0]
        x = pd.Series([float(v % 5) for v in users], index=KINDS[a][0](lift(users, off)))
        y = pd.Series([float(v % 3) for v in reversed(users)],
                      index=KINDS[b][0](lift(users[::-1], off)))
        result = function(x, y, **options)
        return round(float(getattr(result, "p_value", getattr(result, "low", 0.0))), 12)
    return call, ("index of a", "index of b")


def _compare(a, b, d, off):
    """Two systems' per-user results, B's users in reverse order: paired by user."""
    users = d.lists[0]
    tables = {"A": pd.DataFrame({"user": series(a, lift(users, off)),
                                 "ndcg": [float(v % 5) / 5 for v in users]}),
              "B": pd.DataFrame({"user": series(b, lift(users[::-1], off)),
                                 "ndcg": [float(v % 3) / 3 for v in reversed(users)]})}
    return ml.compare(tables, baseline="A").table.round(12).to_dict("split")


def _plain(kind, values):
    """Mapping keys of ``kind``: Python ints for the integer kinds (a key read
    from a pyarrow array would be a pyarrow scalar, which is no id)."""
    if kind in INTEGER_KINDS:
        return [int(v) for v in values]
    return scalars(kind, values)


def _calibration(a, b, d, off):
    pool = lift(list(range(1, 13)), off)
    genres = {key: [f"g{v % 3}", f"g{v % 4}"] for key, v in zip(_plain(a, pool), range(12))}
    value = ml.miscalibration(KINDS[a][0](lift(d.lists[0], off)),
                              KINDS[b][0](lift(d.relevant[0], off)), genres)
    return round(value, 12)


def _popularity(function):
    def call(a, b, d, off):
        items = [v for r in d.lists + d.other for v in r]
        pairs = list(zip([u % 4 for u in range(len(items))], scalars(b, lift(items, off))))
        return round(function(KINDS[a][0](lift(d.lists[0], off)), pairs), 12)
    return call, ("recommended", "interactions")


def _exposure(a, b, d, off):
    got = ml.expected_exposure([KINDS[a][0](lift(r, off)) for r in d.lists],
                               KINDS[b][0](lift(d.relevant[0], off)), patience=0.7)
    return {key: round(value, 12) for key, value in got.items()}


def _group_exposure(a, b, d, off):
    pool = lift(list(range(1, 13)), off)
    groups = {key: f"g{v % 3}" for key, v in zip(_plain(b, pool), range(12))}
    got = ml.group_exposure([KINDS[a][0](lift(r, off)) for r in d.lists], groups)
    return got.round(12).to_dict("split")


def _long(kind, rows, off, **columns):
    """A long table: one row per (user, item) of ``rows``, items of ``kind``."""
    users = [u for u, r in enumerate(rows) for _ in r]
    ranks = [i + 1 for r in rows for i in range(len(r))]
    items = [off + v for r in rows for v in r]
    return pd.DataFrame({"user": users, "item": series(kind, items), "rank": ranks,
                         **columns})


def _calibration_batch(a, b, d, off):
    pool = list(range(1, 13))
    genres = pd.DataFrame({"item": series(a, lift(pool, off)),
                           "genre": [f"g{v % 3}" for v in pool]})
    got = ml.miscalibration_batch(_long(a, d.lists, off), _long(b, d.relevant, off), genres)
    return got.round(12).to_dict("split")


def _popularity_batch(a, b, d, off):
    got = ml.popularity_bias_batch(_long(a, d.lists, off), _long(b, d.other, off))
    return got.round(12).to_dict("split")


def _exposure_batch(a, b, d, off):
    runs = _long(a, d.lists, off).assign(user=0, sample=lambda f: f["user"])
    runs["sample"] = [u for u, r in enumerate(d.lists) for _ in r]
    truth = _long(b, d.relevant[:1], off, relevance=[1 + v % 3 for v in d.relevant[0]])
    got = ml.expected_exposure_batch(runs, truth)
    return got.round(12).to_dict("split")


def _group_exposure_batch(a, b, d, off):
    pool = list(range(1, 13))
    groups = pd.DataFrame({"item": series(b, lift(pool, off)),
                           "group": [f"g{v % 3}" for v in pool]})
    got = ml.group_exposure_batch(_long(a, d.lists, off), groups)
    return got.round(12).to_dict("split")


CALLS = {
    **{name: _per_list(getattr(ml, name), k=5) for name in (
        "precision_at_k", "recall_at_k", "f1_at_k", "hit_at_k", "hit_count_at_k",
        "reciprocal_rank", "average_precision", "dcg_at_k", "ndcg_at_k", "r_precision",
        "err_at_k", "judged_at_k")},
    "rank_biased_precision": _per_list(ml.rank_biased_precision, p=0.8),
    **{name: _intent_list(getattr(ml, name)) for name in (
        "alpha_ndcg_at_k", "err_ia_at_k", "precision_ia_at_k", "subtopic_recall_at_k")},
    "bpref": _per_list(ml.bpref),
    "infap": _per_list(ml.infap),
    # trec_eval's gain measures and its other measures of one list (issue 29)
    **{name: _per_list(getattr(ml, name)) for name in (
        "trec_g", "bin_g", "ndcg_rel", "rndcg", "eleven_point_average", "yaap",
        "set_utility")},
    # one id argument: its relevant of kind b, beside ndcg_rel (whose DCG it
    # divides) on the same pair, so that both-a references mean the same
    "ideal_dcg": ((lambda a, b, d, off: (
        ml.ideal_dcg(KINDS[b][0](lift(d.relevant[0], off))),
        ml.ndcg_rel(KINDS[a][0](lift(d.lists[0], off)), KINDS[b][0](lift(d.relevant[0], off))))),
        ("recommended", "relevant")),
    "r_precision_multiple": _per_list(ml.r_precision_multiple, multiple=1.5),
    "unjudged_at_k": _per_list(ml.unjudged_at_k, k=3),
    **{name: _per_list(getattr(ml, name)) for name in (
        "set_precision", "set_recall", "set_f", "set_map", "set_relative_precision",
        "num_nonrel_judged_ret")},
    "relative_precision_at_k": _per_list(ml.relative_precision_at_k, k=5),
    "geometric_mean_bpref": _many(ml.geometric_mean_bpref),
    "interpolated_precision": (lambda a, b, d, off: np.asarray(
        _per_list(ml.interpolated_precision)[0](a, b, d, off)).round(12).tolist(),
        ("recommended", "relevant")),
    "mean_reciprocal_rank": _many(ml.mean_reciprocal_rank, k=5),
    "mean_average_precision": _many(ml.mean_average_precision),
    "geometric_mean_average_precision": _many(ml.geometric_mean_average_precision),
    "evaluate": (_evaluate, ("recommendations", "truth")),
    "explain_difference": (_explain, ("recommendations", "truth")),
    "find_convention": (_find, ("recommendations", "truth")),
    "team_draft_interleave": (_interleave, ("ranking_a", "ranking_b")),
    "team_draft_interleave_many": (_interleave_many, ("rankings_a", "rankings_b")),
    "catalog_coverage": _catalog(ml.catalog_coverage),
    "gini_index": _catalog(ml.gini_index),
    "intra_list_diversity": (_diversity, ("recommended_lists", "features")),
    "novelty": (_novelty, ("recommended_lists", "interactions")),
    "serendipity": _serendipity("relevant"),
    "serendipity/baseline": _serendipity("baseline"),
    "serendipity/history": _serendipity("history"),
    "personalization": (_personalization, ("recommended_lists",)),
    "ips_estimate": _bandit(ml.ips_estimate),
    "snips_estimate": _bandit(ml.snips_estimate),
    "doubly_robust_estimate": _bandit(ml.doubly_robust_estimate,
                                      reward_model=np.full((8, 3), 0.5)),
    "slate_ips_estimate": (_slates, ("slates",)),
    "paired_t_test": _paired(ml.paired_t_test),
    "paired_bootstrap_ci": _paired(ml.paired_bootstrap_ci, seed=0, n_resamples=200),
    "paired_permutation_test": _paired(ml.paired_permutation_test, seed=0, n_resamples=200),
    "compare": (_compare, ("results['A']", "results['B']")),
    "rmse": _grouped(ml.rmse),
    "mae": _grouped(ml.mae),
    "miscalibration": (_calibration, ("recommended", "history")),
    "average_recommendation_popularity": _popularity(ml.average_recommendation_popularity),
    "long_tail_share": _popularity(ml.long_tail_share),
    "expected_exposure": (_exposure, ("sampled_rankings", "relevant")),
    "group_exposure": (_group_exposure, ("recommended_lists", "item_groups")),
    "miscalibration_batch": (_calibration_batch, ("recommendations", "history")),
    "popularity_bias_batch": (_popularity_batch, ("recommendations", "interactions")),
    "expected_exposure_batch": (_exposure_batch, ("rankings", "truth")),
    "group_exposure_batch": (_group_exposure_batch, ("recommendations", "item_groups")),
}

# Public functions without id arguments, and why.
NO_IDS = {
    **dict.fromkeys(["floored_geometric_mean", "mean_rank", "hits_at_k",
                     "mean_reciprocal_rank_from_ranks"], "values or ranks per query"),
    "rank_with_ties": "target is a position in scores, not an id",
    **dict.fromkeys(["parse_metric", "describe_convention", "convention_metrics",
                     "convention_table"], "metric and library names"),
    **dict.fromkeys(["read_trec_run", "read_trec_qrels"], "a path; ids come from the file"),
    **dict.fromkeys(["confusion_matrix", "accuracy", "precision", "recall", "f1_score",
                     "roc_auc"], "0/1 labels and scores per example"),
    **dict.fromkeys(["click_through_rate", "two_proportion_test", "power_two_proportions",
                     "sample_size_per_group", "sample_ratio_mismatch", "ratio_metric",
                     "ratio_metric_test", "cuped_test", "group_sequential_boundaries",
                     "sequential_estimate_bias", "sequential_bias_adjusted_estimate"],
                    "counts and values per unit"),
    **dict.fromkeys(["interleaving_credit", "interleaving_test"], "teams, clicks, counts"),
    **dict.fromkeys(["users_needed", "detectable_difference", "power_of"],
                    "sizes, differences, variances and levels"),
    "correct_p_values": "p-values",
    "online_report": "results of online tests and a ComparisonReport, already paired",
    **dict.fromkeys(["simulate_world", "sample_rankings", "load_movielens_100k"],
                    "sizes, score matrices, a cache path"),
}
ID_PARAMETERS = {"recommended", "relevant", "recommended_lists", "relevant_lists",
                 "recommendations", "truth", "ranking_a", "rankings_a", "catalog",
                 "interactions", "actions", "slates", "groups", "baseline_lists"}


def test_every_public_function_is_in_the_table():
    functions = [name for name in ml.__all__
                 if callable(getattr(ml, name)) and not inspect.isclass(getattr(ml, name))]
    tabled = {name.split("/")[0] for name in CALLS}
    missing = [name for name in functions if name not in tabled and name not in NO_IDS]
    assert not missing, f"public functions with no entry in CALLS or NO_IDS: {missing}"
    for name in NO_IDS:  # a function listed as id-free really takes no id argument
        parameters = set(inspect.signature(getattr(ml, name)).parameters)
        assert not parameters & ID_PARAMETERS, (name, parameters & ID_PARAMETERS)
    assert not set(NO_IDS) & tabled


def _outcome(call, a, b, data, offset):
    try:
        return "ok", call(a, b, data, offset)
    except (TypeError, ValueError) as error:
        return "error", str(error)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_id_kind_matrix(name):
    call, names = CALLS[name]
    failures = []
    pairs = PAIRS
    if name.startswith("paired_"):
        # the paired functions' index checks (_validation.check_paired_values)
        # are being reworked to align by user (issue 22 point 4); their
        # refusals of a repeated or missing user name a/b, not "index of a"
        pairs = [pair for pair in PAIRS if not {"bool", "missing"} & set(pair)]
    for seed, (a, b) in enumerate(pairs):
        data = Data(seed)
        offset = OFFSET[tier(a, b)]
        status, reference = _outcome(call, a, a, data, offset)
        both_b_works = _outcome(call, b, b, data, offset)[0] == "ok"
        got_status, got = _outcome(call, a, b, data, offset)
        if got_status == "ok":
            if status == "ok" and got != reference:
                failures.append(f"{a} x {b}: {got!r} != {reference!r} (both {a})")
            elif status != "ok":
                failures.append(f"{a} x {b}: an answer where both-{a} raises {reference}")
        elif a in INTEGER_KINDS and b in INTEGER_KINDS and status == "ok":
            failures.append(f"{a} x {b}: integer kinds refused: {got}")
        elif status == "ok" and both_b_works and not all(arg in got for arg in names):
            # refused for the mix alone: the message names both sides
            failures.append(f"{a} x {b}: message does not name {names}: {got}")
        elif not any(arg in got for arg in names):  # a kind refused on its own
            failures.append(f"{a} x {b}: message names no argument of {names}: {got}")
        other = b if a == "missing" else a
        other_works = both_b_works if a == "missing" else status == "ok"
        if "missing" in (a, b) and (other == "missing" or other_works) \
                and not (got_status == "error" and "missing" in got):
            failures.append(f"{a} x {b}: a missing id not refused as missing: {got}")
        for text in ("np.", "numpy."):
            if got_status == "error" and text in got:
                failures.append(f"{a} x {b}: a numpy repr in the message: {got}")
    assert not failures, f"{len(failures)} of {len(pairs)} pairs:\n" + "\n".join(failures)


@pytest.mark.parametrize("offset", [2**62, 2**63, 2**64 - 20])
def test_adjacent_64_bit_ids_stay_distinct(offset):
    """int64 next to uint64 (the old float64 meeting point), one apart."""
    low = np.array([[offset + 1, offset + 2, offset + 3]],
                   dtype=np.int64 if offset < 2**63 else np.uint64)
    high = np.array([[offset + 2, offset + 1, offset + 4]], dtype=np.uint64)
    batch = ml.team_draft_interleave_many(low, high, seed=1)
    assert len(set(batch.items[0].tolist())) == 3
    assert set(batch.items[0].tolist()) <= {offset + i for i in range(1, 5)}
    assert ml.ndcg_at_k(low[0], {offset + 2: 1}, k=3) < 1  # ranked second
    assert ml.ndcg_at_k(high[0], {offset + 2: 1}, k=1) == 1.0


def test_per_list_refusal_names_both_arguments_and_kinds():
    with pytest.raises(TypeError, match="string ids in recommended but integer ids in "
                                        "relevant"):
        ml.ndcg_at_k(["1", "2"], {1: 1}, k=2)
    with pytest.raises(TypeError, match="recommended mixes ids of different types"):
        ml.precision_at_k(["1", 1], {1}, k=2)
    # evaluate words it the same way
    rec = pd.DataFrame({"user": [1], "item": ["1"], "score": [1.0]})
    with pytest.raises(TypeError, match="string ids in recommendations but integer ids "
                                        "in truth"):
        ml.evaluate(rec, pd.DataFrame({"user": [1], "item": [1]}), ["ndcg@2"],
                    relevance_col=None)


def test_index_errors_show_the_true_value():
    """An out-of-range uint64 or Python int is shown as it is, not wrapped."""
    for values, shown in ((np.array([0, 2**64 - 1], dtype=np.uint64), str(2**64 - 1)),
                          ([0, 2**64 + 1], str(2**64 + 1))):
        with pytest.raises(ValueError, match=f"got {shown} at index 1"):
            check_int_array("actions", values, low=0, high=3)


# -- the second review of the id checks -----------------------------------------
NAN = float("nan")


def test_per_list_checks_find_each_kind_once(monkeypatch):
    """One ids_kind per argument and one unwrapping per id (the per-list cost)."""
    from metrics_lib._validation import ids, lists  # the modules that look them up

    kinds, unwrapped = [], []
    ids_kind, as_python_id = ids.ids_kind, lists._as_python_id
    for module in (ids, lists):
        monkeypatch.setattr(module, "ids_kind",
                            lambda name, items: kinds.append(name) or ids_kind(name, items))
    monkeypatch.setattr(lists, "_as_python_id",
                        lambda item: unwrapped.append(item) or as_python_id(item))
    ml.ndcg_at_k(list(range(100)), {3: 1, 500: 2}, k=10)
    assert sorted(kinds) == ["recommended", "relevant"]
    assert len(unwrapped) == 100 + 2


@pytest.mark.parametrize("call, where", [
    (lambda: ml.precision_at_k([NAN, 2.0], [NAN], k=2), "at position 1 of recommended"),
    (lambda: ml.precision_at_k(np.array([NAN, NAN, 2.0]), [2.0], k=3),
     "at position 1 of recommended"),
    (lambda: ml.precision_at_k([1.0, 2.0], {NAN: 1}, k=2), "at position 1 of relevant"),
    (lambda: ml.precision_at_k(pd.array([1, pd.NA, 3], dtype="Int64"), {1}, k=2),
     "<NA> at position 2 of recommended"),
    (lambda: ml.ndcg_at_k([1, None], {1: 1}), "None at position 2 of recommended"),
    (lambda: ml.ndcg_at_k([pd.Timestamp(0), pd.NaT], [pd.Timestamp(0)]),
     "NaT at position 2 of recommended"),
    (lambda: ml.precision_at_k([(1, NAN)], {(1, 2.0)}), "at position 1 of recommended"),
    (lambda: ml.team_draft_interleave([1.0, NAN], [1.0, 2.0], seed=0),
     "at position 2 of ranking_a"),
    (lambda: ml.team_draft_interleave_many(np.array([[NAN, NAN]], dtype=object),
                                           np.array([[1.5, 2.5]]), seed=0),
     "rankings_a has a missing id nan at index (0, 0)"),
    (lambda: ml.team_draft_interleave_many(np.array([[1.5, 2.5]]),
                                           np.array([[1.5, NAN]]), seed=0),
     "rankings_b has a missing id nan at index (0, 1)"),
])
def test_missing_ids_are_refused(call, where):
    """A missing id matches by object identity only: refused, as evaluate does."""
    with pytest.raises(ValueError, match="missing id") as error:
        call()
    assert where in str(error.value)


def test_object_arrays_of_floats_are_read_as_floats():
    as_objects = ml.team_draft_interleave_many(np.array([[0.5, 1.5]], dtype=object),
                                               np.array([[1.5, 2.5]]), seed=3)
    as_floats = ml.team_draft_interleave_many(np.array([[0.5, 1.5]]),
                                              np.array([[1.5, 2.5]]), seed=3)
    assert as_objects.items.tolist() == as_floats.items.tolist()
    args = ([1, 0], [.5, .5], np.full((2, 2), .5))
    assert ml.ips_estimate(args[0], np.array([0.0, 1.0], dtype=object), *args[1:]).value \
        == ml.ips_estimate(args[0], [0, 1], *args[1:]).value


@pytest.mark.parametrize("values, error, message", [
    ([], ValueError, "actions is empty"),
    (["0", "1"], TypeError, "actions must contain integers; got strings"),
    (np.array([0, 2**63], dtype=np.uint64), ValueError,
     f"must lie in [0, 2**63); got {2**63} at index 1"),
    ([0, 2**64], ValueError, f"got {2**64} at index 1"),
    ([0, True], TypeError, "actions mixes ids of different types (boolean and integer)"),
    (pd.array([0, None], dtype="Int64"), ValueError,
     "actions has a missing id <NA> at index 1"),
    (np.array([0.0, 0.5]), TypeError, "got 0.5 at index 1"),
])
def test_index_arrays_are_refused_clearly(values, error, message):
    """Indices beyond int64 are refused (not wrapped), kinds named without numpy dtypes."""
    with pytest.raises(error) as raised:
        check_int_array("actions", values)
    assert message in str(raised.value)
    assert "<U" not in str(raised.value) and "dtype" not in str(raised.value)


@pytest.mark.parametrize("recommended, relevant, words", [
    ([1, True], {1}, "recommended mixes ids of different types (boolean and integer)"),
    ([1, 1.0], {1}, "recommended mixes ids of different types (float and integer)"),
    ([(True,), (3,)], {(1,): 1}, "mixes ids of different types (tuple(bool) and tuple(int))"),
    ([(True,)], {(1,): 1}, "tuple(bool) ids in recommended but tuple(int) ids in relevant"),
    ([("1",)], {(1,): 1}, "tuple(str) ids in recommended but tuple(int) ids in relevant"),
])
def test_kinds_are_checked_before_duplicates_and_inside_tuples(recommended, relevant, words):
    with pytest.raises(TypeError) as error:
        ml.precision_at_k(recommended, relevant, k=2)
    assert words in str(error.value)


def test_tuple_ids_of_one_kind_still_work():
    tuples = ml.ndcg_at_k([(2, "b"), (1, "a"), (3, "c")], {(1, "a"): 1, (3, "c"): 2}, k=3)
    strings = ml.ndcg_at_k(["2b", "1a", "3c"], {"1a": 1, "3c": 2}, k=3)
    assert tuples == strings
    with pytest.raises(TypeError, match=r"groups mixes ids .*tuple\(bool\)"):
        ml.rmse([1, 2, 3], [1, 2, 2], groups=[(1,), (True,), (2,)])


@pytest.mark.parametrize("call", [
    lambda: ml.ndcg_at_k([5, 6, 7], [0, 1, 1]),
    lambda: ml.bpref([5, 6, 7], [0, 1, 1]),
    lambda: ml.serendipity([[5, 6, 7]], [[0, 1, 1]], baseline_lists=[[8]]),
])
def test_judgements_are_checked_by_one_path(call):
    """serendipity and the trec measures read relevant as the per-list functions do."""
    with pytest.raises(ValueError, match="not one label per recommended item"):
        call()
