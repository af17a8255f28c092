"""Run one seeded random workload on two trees of metrics_lib and compare, bit for bit.

    python tools/differential_refactor.py OLD_TREE NEW_TREE [--cases N] [--seed S]

A refactoring must not change a single number. This tool draws random
inputs of the kinds real data has (integer, 64-bit, string, nullable and
pyarrow ids; ties; float32-equal scores; users without recommendations or
without truth; lists shorter than k; graded truth; and bad inputs), runs
every public entry point on them in two subprocesses, one importing
``metrics_lib`` from OLD_TREE and one from NEW_TREE, and compares the
outcomes:

* values: numeric arrays by dtype, shape and bytes (so NaN positions, signed
  zeros and the last bit count), DataFrames by column order, dtypes, index
  and values, Polars and Arrow tables by schema and values, result
  dataclasses field by field (not by module path, which a move changes);
* errors: exception type and message;
* warnings: category and message, in order;
* the command line: ``metrics_lib.cli.main`` on generated TREC files, its
  return code and its stdout and stderr bytes.

The workload covers :func:`metrics_lib.evaluate` for every metric name the
package documents (read from the OLD tree: the names of ``parse_metric``'s
docstring, each convention's metrics) with random keyword choices, on every
installed backend (pandas, Polars, Arrow, Dask; Dask on every eighth table,
it is slow), the presets (``convention=``), every per-list function, the
beyond-accuracy, rating and classification functions, the online
experiments, the data simulators and the command line. Both workers draw the
same inputs from the same seed; the workload plan (the metric names) comes
from the OLD tree so that both run the same calls.

Exit status 0 when every outcome is identical, 1 otherwise (the first
differences are printed).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import math
import os
import pickle
import re
import struct
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

OPTIONAL_BACKENDS = ("polars", "pyarrow", "dask")


# ---------------------------------------------------------------------------
# canonical form of an outcome: nested tuples of str, int, bytes
# ---------------------------------------------------------------------------
def canon(x):
    """A value-only description of ``x`` that compares with ``==`` bit for bit."""
    import pandas as pd

    if x is None or isinstance(x, (bool, str, bytes)):
        return (type(x).__name__, x)
    if isinstance(x, (np.generic,)) and not isinstance(x, (np.str_, np.bytes_)):
        return ("np", x.dtype.str, x.tobytes())
    if isinstance(x, int):
        return ("int", x)
    if isinstance(x, float):
        return ("float", struct.pack("<d", x))
    if isinstance(x, np.ndarray):
        if x.dtype.kind == "O":
            return ("ndO", x.shape, tuple(canon(v) for v in x.ravel().tolist()))
        return ("nd", x.dtype.str, x.shape, np.ascontiguousarray(x).tobytes())
    if isinstance(x, pd.DataFrame):
        return ("pd.DataFrame", tuple(map(str, x.columns)), tuple(map(str, x.dtypes)),
                canon(x.index), tuple(canon(x.iloc[:, j]) for j in range(x.shape[1])))
    if isinstance(x, pd.Index):
        return ("pd.Index", str(x.dtype), canon(list(x.names)), _canon_values(x))
    if isinstance(x, pd.Series):
        return ("pd.Series", str(x.dtype), str(x.name), canon(x.index), _canon_values(x))
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return ("dataclass", type(x).__name__,
                tuple((f.name, canon(getattr(x, f.name))) for f in dataclasses.fields(x)))
    if isinstance(x, dict) or type(x).__name__ == "mappingproxy":
        return ("dict", tuple((canon(k), canon(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(canon(v) for v in x))
    if isinstance(x, (set, frozenset)):
        return ("set", tuple(sorted((canon(v) for v in x), key=repr)))
    module = type(x).__module__.split(".")[0]
    if module == "polars":
        import polars as pl

        if isinstance(x, pl.LazyFrame):
            x = x.collect()
        if isinstance(x, pl.DataFrame):
            return ("pl.DataFrame", str(x.schema),
                    tuple(canon(x.get_column(c).to_list()) for c in x.columns))
        if isinstance(x, pl.Series):
            return ("pl.Series", str(x.dtype), x.name, canon(x.to_list()))
    if module == "pyarrow" and hasattr(x, "schema"):
        return ("pa.Table", str(x.schema), canon(x.to_pydict()))
    if module == "dask" and hasattr(x, "compute"):
        return ("dask", canon(x.compute()))
    return ("repr", type(x).__name__, repr(x))


def _canon_values(x):
    """Values of a Series or Index: numpy bytes when numeric, else one by one."""
    values = x.to_numpy() if x.dtype.kind in "biufcmM" and isinstance(x.dtype, np.dtype) \
        else np.asarray(x.astype(object))
    return canon(values)


# ---------------------------------------------------------------------------
# the worker: runs the workload in one tree
# ---------------------------------------------------------------------------
class Recorder:
    def __init__(self):
        self.outcomes = []

    def __call__(self, label, function, *args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = ("ok", canon(function(*args, **kwargs)))
            except Exception as error:  # noqa: BLE001 - the error is the outcome
                result = ("error", type(error).__name__, str(error))
        said = tuple((w.category.__name__, str(w.message)) for w in caught
                     if not _foreign(w))
        self.outcomes.append((label, result, said))


def _foreign(w) -> bool:
    """Warnings raised inside an installed library (Dask's scheduler, ...) are not compared.

    metrics_lib's own warnings point at the caller's line (``stacklevel``), so
    they are told apart by their category's module, not by the file.
    """
    own = w.category.__module__.startswith("metrics_lib")
    return not own and "site-packages" in (w.filename or "")


ID_KINDS = ("int64", "int32", "uint64_big", "int64_big", "pyint", "str", "string",
            "string_pyarrow", "Int64", "arrow_int64", "category")
SCORE_KINDS = ("float64", "float32", "int64", "f32_equal", "ties", "Float64")


def _ids(values, kind):
    import pandas as pd

    v = np.asarray(values, dtype=np.int64)
    if kind == "int64":
        return pd.Series(v)
    if kind == "int32":
        return pd.Series(v.astype(np.int32))
    if kind == "uint64_big":
        return pd.Series(v.astype(np.uint64) + np.uint64(2**63 + 5))
    if kind == "int64_big":  # neighbours that float64 cannot tell apart
        return pd.Series(v + np.int64(2**53))
    if kind == "pyint":
        return pd.Series([int(i) for i in v], dtype=object)
    if kind == "str":
        return pd.Series([str(i) for i in v], dtype=object)
    if kind == "string":
        return pd.Series([str(i) for i in v], dtype="string")
    if kind == "string_pyarrow":
        return pd.Series([str(i) for i in v], dtype="string[pyarrow]")
    if kind == "Int64":
        return pd.Series(v, dtype="Int64")
    if kind == "arrow_int64":
        return pd.Series(v, dtype="int64[pyarrow]")
    return pd.Series([f"c{i}" for i in v], dtype="category")


def _scores(rng, n, kind):
    import pandas as pd

    if kind == "ties":
        return pd.Series(rng.integers(0, 3, n).astype(np.float64))
    if kind == "int64":
        return pd.Series(rng.integers(-3, 4, n).astype(np.int64))
    if kind == "float32":
        return pd.Series(rng.random(n).astype(np.float32))
    if kind == "f32_equal":  # equal as float32, different as float64
        base = np.round(rng.random(n), 1)
        return pd.Series(np.where(rng.random(n) < 0.5, base,
                                  base.astype(np.float32).astype(np.float64)))
    if kind == "Float64":
        return pd.Series(np.round(rng.random(n), 2), dtype="Float64")
    return pd.Series(np.round(rng.random(n), 2))


def random_tables(rng):
    """A recommendations and a truth table with the awkward cases real data has."""
    import pandas as pd

    n_users = int(rng.integers(0, 9))
    n_items = int(rng.integers(1, 25))
    user_kind, item_kind = rng.choice(ID_KINDS), rng.choice(ID_KINDS)
    rec_users, rec_items = [], []
    for user in range(n_users):
        length = int(rng.integers(0, min(n_items, 12) + 1))  # 0: no recommendations
        rec_users += [user] * length
        rec_items += list(rng.choice(n_items, size=length, replace=False))
    truth_users, truth_items, grades = [], [], []
    for user in range(n_users + int(rng.integers(0, 3))):  # extra users: missing
        if rng.random() < 0.2:
            continue  # no truth: unjudged
        length = int(rng.integers(1, min(n_items, 8) + 1))
        truth_users += [user] * length
        truth_items += list(rng.choice(n_items, size=length, replace=False))
        grades += list(rng.integers(0, 4, length))
    recs = pd.DataFrame({"user": _ids(rec_users, user_kind), "item": _ids(rec_items, item_kind),
                         "score": _scores(rng, len(rec_users), rng.choice(SCORE_KINDS))})
    recs["rank"] = recs.groupby("user", observed=True).cumcount() + 1 if len(recs) else []
    truth = pd.DataFrame({"user": _ids(truth_users, user_kind),
                          "item": _ids(truth_items, item_kind),
                          "relevance": np.asarray(grades, dtype=np.int64)})
    if rng.random() < 0.3:
        truth["relevance"] = truth["relevance"] / 2.0  # float grades
    bad = rng.random()
    if bad < 0.03 and len(recs):
        recs = pd.concat([recs, recs.iloc[:1]], ignore_index=True)  # a duplicate row
    elif bad < 0.06 and len(recs):
        recs.loc[0, "score"] = np.nan
    elif bad < 0.09 and len(truth):
        truth = truth.assign(item=truth["item"].astype(str).astype(object))  # kinds differ
    elif bad < 0.11 and len(recs):
        recs = recs.assign(item=recs["item"].astype(object))
        recs.loc[0, "item"] = None  # a missing id
    return recs, truth


EVALUATE_POOLS = {
    "relevance_level": [0, 1, 1, 2, 0.5],
    "denominator": ["relevant", "min_k", "retrieved", "k", "relevant"],
    "gain": ["linear", "exponential", "binary", {0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0,
                                                 0.0: 0.0, 0.5: 0.5, 1.5: 2.0}],
    "ideal": ["judged", "retrieved", "k"],
    "log_base": [2, 10, math.e],
    "empty": ["zero", "nan", "one", "raise"],
    "missing": ["warn", "zero", "skip", "raise"],
    "ties": ["item_desc", "item_asc", "numeric_desc", "numeric_asc", "input", "average",
             "block", "best", "worst"],
    "precision_denominator": ["k", "min_k", "retrieved"],
    "recall_denominator": ["relevant", "min_k"],
    "min_grade": [None, 1, 2],
    "judged_only": [False, True],
    "unjudged": ["skip", "empty"],
    "truncate": [None, 3, 5],
    "no_hit": ["zero", "nan"],
    "candidates": ["all", "recommended"],
    "score_threshold": [None, 0.5],
    "n_jobs": [1, 2],
}


def _metric_names(rng, plan, how_many):
    names = []
    for _ in range(how_many):
        name = str(rng.choice(plan["metrics"]))
        if name in plan["metrics_with_k"] and rng.random() < 0.6:
            name += f"@{int(rng.choice([1, 3, 5, 10, 20]))}"
        names.append(name)
    if rng.random() < 0.03:
        names.append(str(rng.choice(plan["bad_metrics"])))
    return list(dict.fromkeys(names))


def _options(rng, pools, allowed, most=4):
    names = [n for n in pools if n in allowed]
    chosen = rng.choice(names, size=min(len(names), int(rng.integers(0, most + 1))),
                        replace=False) if names else []
    return {str(n): pools[n][int(rng.integers(len(pools[n])))] for n in chosen}


def _backends(available, recs, truth, case):
    yield "pandas", recs, truth
    if "polars" in available:
        import polars as pl

        try:
            tables = [pl.from_pandas(t) for t in (recs, truth)]
        except Exception:  # noqa: BLE001 - a table Polars cannot hold is not ours to test
            tables = None
        if tables:
            yield "polars", tables[0], tables[1]
    if "pyarrow" in available:
        import pyarrow as pa

        try:
            tables = [pa.Table.from_pandas(t, preserve_index=False) for t in (recs, truth)]
        except Exception:  # noqa: BLE001 - a table Arrow cannot hold is not ours to test
            tables = None
        if tables:
            yield "arrow", tables[0], tables[1]
    if "dask" in available and case % 8 == 0:
        import dask
        import dask.dataframe as dd

        # one partition after the other: with threads, which partition's error
        # comes first (the user an empty="raise" message names) is a race
        dask.config.set(scheduler="synchronous")
        yield "dask", dd.from_pandas(recs, npartitions=2), dd.from_pandas(truth, npartitions=2)


def evaluate_cases(record, rng, plan, n, available):
    import metrics_lib as ml

    allowed = set(plan["evaluate_keywords"])
    for case in range(n):
        recs, truth = random_tables(rng)
        metrics = _metric_names(rng, plan, int(rng.integers(1, 5)))
        options = _options(rng, EVALUATE_POOLS, allowed)
        if rng.random() < 0.15:
            options["rank_col"] = "rank"
        if rng.random() < 0.1:
            options["relevance_col"] = None
        if rng.random() < 0.15:  # a preset, with the metric names it defines
            peer = str(rng.choice(plan["peers"]))
            options = {"convention": peer}
            metrics = list(rng.choice(plan["convention_metrics"][peer], size=1))
        for backend, r, t in _backends(available, recs, truth, case):
            function = _dask_evaluate if backend == "dask" else ml.evaluate
            record(f"evaluate#{case} {backend} {metrics} {options}", function, r, t,
                   metrics, **options)


def _dask_evaluate(recs, truth, metrics, **options):
    """evaluate on Dask tables, computed, with the user an error names masked.

    Several partitions may refuse the input (``empty="raise"``); which one's
    error surfaces first follows Dask's task order, and that order depends on
    task keys that are random in each process: the same code names user 0 in
    one run and user 5 in the next. The error's type and the rest of its
    message are compared.
    """
    import metrics_lib as ml

    try:
        result = ml.evaluate(recs, truth, metrics, **options)
        return result.compute() if hasattr(result, "compute") else result
    except (ValueError, TypeError) as error:
        raise type(error)(re.sub(r"\buser \S+ ", "user <one> ", str(error))) from None


def convention_cases(record, rng, plan):
    import metrics_lib as ml

    record("convention_table", ml.convention_table)
    for peer in plan["peers"] + ["nobody"]:
        record(f"convention_metrics {peer}", ml.convention_metrics, peer)
        for metric in plan["convention_metrics"].get(peer, []) + ["ndcg@5", "bogus"]:
            record(f"describe_convention {peer} {metric}", ml.describe_convention, peer, metric)
            for name in (metric, f"{metric}@5"):
                recs, truth = random_tables(rng)
                record(f"evaluate convention={peer} {name}", ml.evaluate, recs, truth, [name],
                       convention=peer)


PER_LIST_POOLS = {
    "denominator": ["k", "min_k", "retrieved", "relevant"],
    "relevance_level": [0, 1, 2, 1, 0.5],
    "empty": ["zero", "nan", "one", "raise"],
    "judged_only": [False, True],
    "truncate": [None, 2, 5],
    "candidates": ["all", "recommended"],
    "ties": ["input", "item_desc", "average", "block", "best", "worst"],
    "score_threshold": [None, 0.5],
    "gain": ["linear", "exponential", "binary"],
    "ideal": ["judged", "retrieved", "k"],
    "log_base": [2, 10, math.e],
    "min_grade": [None, 1, 2],
    "no_hit": ["zero", "nan"],
    "recall_levels": [None, [0.0, 0.5, 1.0], [1.5]],
    "convention": [None, "trec_eval", "ranx", "recommenders", "rectools", "recbole",
                   "torchmetrics", "sklearn", "ir_measures", "pytrec_eval"],
    "floor": [1e-5, 0.01, 0.0],
}
PER_LIST = ("precision_at_k", "recall_at_k", "f1_at_k", "hit_at_k", "hit_count_at_k",
            "reciprocal_rank", "average_precision", "dcg_at_k", "ndcg_at_k", "r_precision",
            "bpref", "interpolated_precision")
PER_USERS = ("mean_reciprocal_rank", "mean_average_precision",
             "geometric_mean_average_precision")


def _one_list(rng, tables=None):
    import pandas as pd

    recs, truth = tables if tables is not None else random_tables(rng)
    if not len(recs):
        return [], {}, None
    user = recs["user"].iloc[int(rng.integers(len(recs)))]
    mine = recs[recs["user"] == user]
    judged = truth[truth["user"] == user]
    recommended = list(mine["item"])
    form = rng.integers(4)
    if form == 1:
        recommended = np.asarray(mine["item"].to_numpy())
    elif form == 2:
        recommended = mine["item"].reset_index(drop=True)
    grades = dict(zip(judged["item"], judged["relevance"]))
    relevant = grades if rng.random() < 0.6 else {i for i, g in grades.items() if g > 0}
    if rng.random() < 0.1:
        relevant = pd.Series(grades, dtype=object)  # refused: grades must be numbers
    elif rng.random() < 0.1:
        relevant = pd.Series(grades, dtype=float)
    scores = list(mine["score"]) if rng.random() < 0.7 else None
    return recommended, relevant, scores


def per_list_cases(record, rng, plan, n):
    import inspect

    import metrics_lib as ml

    tables = None
    for case in range(n):
        name = PER_LIST[case % len(PER_LIST)]
        function = getattr(ml, name)
        parameters = inspect.signature(function).parameters
        if case % 4 == 0:  # four lists from one pair of tables (building them is slow)
            tables = random_tables(rng)
        recommended, relevant, scores = _one_list(rng, tables)
        options = _options(rng, PER_LIST_POOLS, parameters, most=3)
        if scores is not None and "scores" in parameters:
            options["scores"] = scores
        if "k" in parameters and rng.random() < 0.8:
            options["k"] = [None, 1, 2, 3, 5, 10, 20, 0, -1, 2.5, True][int(rng.integers(11))]
        record(f"{name}#{case} {options}", function, recommended, relevant, **options)
    for case in range(n // 4):
        name = PER_USERS[case % len(PER_USERS)]
        function = getattr(ml, name)
        tables = random_tables(rng)
        lists = [_one_list(rng, tables) for _ in range(int(rng.integers(0, 5)))]
        options = _options(rng, PER_LIST_POOLS, inspect.signature(function).parameters, 2)
        record(f"{name}#{case} {options}", function, [r for r, _, _ in lists],
               [g for _, g, _ in lists], **options)
    for case in range(n // 8):
        values = rng.random(int(rng.integers(0, 6))) * (rng.random() < 0.8)
        ranks = rng.integers(1, 12, int(rng.integers(0, 8)))
        scores = np.round(rng.random(int(rng.integers(1, 8))), 1)
        record("floored_geometric_mean", ml.floored_geometric_mean, values,
               floor=float(rng.choice([1e-5, 0.01])))
        record("mean_rank", ml.mean_rank, ranks)
        record("hits_at_k", ml.hits_at_k, ranks, int(rng.integers(0, 6)))
        record("mean_reciprocal_rank_from_ranks", ml.mean_reciprocal_rank_from_ranks, ranks)
        record("rank_with_ties", ml.rank_with_ties, scores, int(rng.integers(0, len(scores))),
               ties=str(rng.choice(["average", "optimistic", "pessimistic"])))
        for name in ("parse_metric",):
            record(name, ml.parse_metric, str(rng.choice(plan["metrics"] + plan["bad_metrics"])))


def beyond_and_other_cases(record, rng, n):
    import metrics_lib as ml

    for case in range(n):
        n_users, n_items = int(rng.integers(0, 6)), int(rng.integers(1, 12))
        n_users, n_items = n_users + 1, n_items + 2
        lists = [list(rng.choice(n_items, size=int(rng.integers(2, min(n_items, 6) + 1)),
                                 replace=False)) for _ in range(n_users)]
        if rng.random() < 0.05:
            lists.append([])  # refused: a user without recommendations
        k = [None, 1, 3][int(rng.integers(3))]
        features = {i: rng.random(3) for i in range(n_items)}
        interactions = [(int(rng.integers(5)), item) for item in range(n_items)] + [
            (int(rng.integers(5)), int(rng.integers(n_items)))
            for _ in range(int(rng.integers(0, 20)))]
        relevant = [set(rng.choice(n_items, size=2)) for _ in lists]
        record("catalog_coverage", ml.catalog_coverage, lists, n_items, k=k)
        record("gini_index", ml.gini_index, lists, range(n_items), k=k,
               denominator=str(rng.choice(["n", "n-1"])))
        record("intra_list_diversity", ml.intra_list_diversity, lists, features=features, k=k,
               per_user=bool(rng.random() < 0.5))
        record("novelty", ml.novelty, lists, interactions, k=k,
               popularity=str(rng.choice(["interactions", "users"])),
               average=str(rng.choice(["users", "recommendations"])))
        other = [[0, 1]] * len(lists)
        record("serendipity", ml.serendipity, lists, relevant, features=features, k=k,
               **({"history_lists": other} if rng.random() < 0.5 else {"baseline_lists": other}))
        record("personalization", ml.personalization, lists, k=k)
        y_true = rng.integers(0, 2, int(rng.integers(0, 10)))
        y_pred = rng.integers(0, 2, y_true.size)
        y_score = np.round(rng.random(y_true.size), 1)
        for name in ("confusion_matrix", "accuracy", "precision", "recall", "f1_score"):
            record(name, getattr(ml, name), y_true, y_pred)
        record("roc_auc", ml.roc_auc, y_true, y_score)
        record("rmse", ml.rmse, y_score, y_pred.astype(float))
        record("mae", ml.mae, y_score, y_pred.astype(float),
               groups=rng.integers(0, 3, y_true.size) if rng.random() < 0.5 else None)


def online_cases(record, rng, n):
    import pandas as pd

    import metrics_lib as ml

    alt = ["two-sided", "greater", "less"]
    for case in range(n):
        a = str(rng.choice(alt))
        clicks, shown = int(rng.integers(0, 50)), int(rng.integers(0, 200))
        record("click_through_rate", ml.click_through_rate, clicks, shown,
               method=str(rng.choice(["wilson", "wald", "jeffreys", "clopper_pearson"])))
        record("two_proportion_test", ml.two_proportion_test, clicks, shown,
               int(rng.integers(0, 50)), int(rng.integers(1, 200)), alternative=a)
        record("power_two_proportions", ml.power_two_proportions, float(rng.random() / 2),
               float(rng.random() / 10), int(rng.integers(1, 5000)), alternative=a)
        record("sample_size_per_group", ml.sample_size_per_group, float(rng.random() / 2),
               float(rng.random() / 10), power=float(rng.choice([0.8, 0.9])), alternative=a)
        record("sample_ratio_mismatch", ml.sample_ratio_mismatch,
               list(rng.integers(0, 1000, int(rng.integers(2, 5)))))
        m = int(rng.integers(2, 40))
        num, den = rng.poisson(2, m).astype(float), rng.poisson(10, m).astype(float) + 1
        record("ratio_metric", ml.ratio_metric, num, den)
        record("ratio_metric_test", ml.ratio_metric_test, num, den, num[::-1] + 1, den,
               alternative=a)
        y, x = rng.normal(size=m), rng.normal(size=m)
        record("cuped_test", ml.cuped_test, y, x, y + 0.1 + rng.normal(size=m), x + 0.05,
               alternative=a)
        looks = sorted(set(np.round(rng.random(int(rng.integers(1, 5))), 2)) | {1.0})
        spending = str(rng.choice(["obrien-fleming", "pocock"]))
        record("group_sequential_boundaries", ml.group_sequential_boundaries, looks,
               spending=spending, alternative=str(rng.choice(["two-sided", "greater"])))
        if case % 4 == 0:
            try:
                boundaries = ml.group_sequential_boundaries(looks, spending=spending)
            except ValueError:
                boundaries = None
            if boundaries is not None:
                record("sequential_estimate_bias", ml.sequential_estimate_bias, boundaries,
                       float(rng.normal()))
                record("sequential_bias_adjusted_estimate",
                       ml.sequential_bias_adjusted_estimate, boundaries,
                       int(rng.integers(0, len(looks))), float(rng.normal()), 0.5)
        users = pd.Index(rng.choice(100, m, replace=False))
        sa = pd.Series(rng.random(m), index=users)
        sb = pd.Series(rng.random(m), index=users[rng.permutation(m)])
        record("paired_t_test", ml.paired_t_test, sa, sb, alternative=a)
        record("paired_bootstrap_ci", ml.paired_bootstrap_ci, sa, sb, n_resamples=200,
               seed=case, method=str(rng.choice(["percentile", "basic", "bca"])))
        record("paired_permutation_test", ml.paired_permutation_test, sa, sb,
               n_resamples=200, seed=case, alternative=a)
        ra, rb = rng.permutation(10)[:6], rng.permutation(10)[:6]
        record("team_draft_interleave", ml.team_draft_interleave, list(ra), list(rb),
               seed=case, length=int(rng.integers(1, 8)))
        many_a = np.stack([rng.permutation(20)[:6] for _ in range(5)])
        many_b = np.stack([rng.permutation(20)[:6] for _ in range(5)])
        record("team_draft_interleave_many", ml.team_draft_interleave_many, many_a, many_b,
               seed=case)
        teams = rng.choice(np.array(["A", "B"]), size=(4, 6))
        clicks_matrix = rng.random((4, 6)) < 0.3
        record("interleaving_credit", ml.interleaving_credit, teams, clicks_matrix)
        record("interleaving_test", ml.interleaving_test, rng.integers(0, 5, m),
               rng.integers(0, 5, m), alternative=a)
        n_log, n_actions = int(rng.integers(1, 60)), 3
        rewards = (rng.random(n_log) < 0.3).astype(float)
        actions = rng.integers(0, n_actions, n_log)
        logging = rng.dirichlet(np.ones(n_actions), n_log)
        target = rng.dirichlet(np.ones(n_actions), n_log)
        interval = str(rng.choice(["normal", "bootstrap"]))
        extra = {"interval": interval, "n_resamples": 100, "seed": case,
                 "clip": [None, 5.0][int(rng.integers(2))]}
        for name in ("ips_estimate", "snips_estimate"):
            record(name, getattr(ml, name), rewards, actions, logging, target, **extra)
        record("doubly_robust_estimate", ml.doubly_robust_estimate, rewards, actions, logging,
               target, rng.random((n_log, n_actions)), **extra)
        slates = np.stack([rng.permutation(5)[:3] for _ in range(n_log)])
        marg_l = rng.dirichlet(np.ones(5), (n_log, 3)).transpose(0, 2, 1)  # (n, items, slots)
        marg_t = rng.dirichlet(np.ones(5), (n_log, 3)).transpose(0, 2, 1)
        record("slate_ips_estimate", ml.slate_ips_estimate, rng.random((n_log, 3)) < 0.2,
               slates, marg_l, marg_t, **extra)
    for seed in range(max(1, n // 20)):
        world = ml.simulate_world(n_users=30, n_items=25, n_factors=3, n_days=10, seed=seed)
        record("simulate_world", lambda w=world: w)
        scores = rng.random((6, 12))
        record("sample_rankings", ml.sample_rankings, scores, 4, epsilon=0.2, seed=seed)


def cli_cases(record, rng, plan, n, folder):
    from metrics_lib import cli

    for case in range(n):
        qrels, run = Path(folder, f"qrels{case}"), Path(folder, f"run{case}")
        queries = [f"q{int(q)}" if rng.random() < 0.5 else str(int(q))
                   for q in rng.choice(30, size=int(rng.integers(1, 6)), replace=False)]
        lines = []
        for q in queries:
            if rng.random() < 0.85:
                for d in rng.choice(20, size=int(rng.integers(1, 8)), replace=False):
                    lines.append(f"{q} 0 d{int(d)} {int(rng.integers(-1, 4))}\n")
        qrels.write_text("".join(lines))
        lines = []
        for q in queries + ["extra"]:
            for rank, d in enumerate(rng.choice(20, size=int(rng.integers(0, 12)),
                                                replace=False), 1):
                score = float(rng.choice([1.0, 0.5, 0.25])) if rng.random() < 0.5 \
                    else round(float(rng.random()), 3)
                lines.append(f"{q} Q0 d{int(d)} {rank} {score} tag\n")
        run.write_text("".join(lines))
        argv = []
        for _ in range(int(rng.integers(0, 3))):
            argv += ["-m", str(rng.choice(plan["cli_measures"]))]
        for flag in ("-q", "-c", "-n", "-J"):
            if rng.random() < 0.3:
                argv.append(flag)
        if rng.random() < 0.2:
            argv += ["-l", str(int(rng.integers(0, 3)))]
        if rng.random() < 0.15:
            argv += ["-M", str(int(rng.integers(1, 6)))]
        record(f"cli {argv}", _run_cli, cli, argv + [str(qrels), str(run)])


def _run_cli(cli, argv):
    """Return code, stdout bytes and stderr bytes of one command line."""
    out, err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    saved = sys.stdout
    sys.stdout = out
    try:
        with contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as stop:
                code = ("exit", stop.code)
    finally:
        out.flush()
        sys.stdout = saved
    text = err.getvalue().replace(str(Path(argv[-1]).parent), "<tmp>")
    return code, out.buffer.getvalue().replace(str(Path(argv[-1]).parent).encode(), b"<tmp>"), \
        text


def make_plan(out_path):
    """The workload's names, read from the (old) tree's own documentation."""
    import inspect

    import metrics_lib as ml
    from metrics_lib import cli

    section = ml.parse_metric.__doc__.split("Returns")[0]
    words = set(re.findall(r"``([A-Za-z_@.0-9-]+)``", section))
    metrics = []
    for word in sorted(words):
        try:
            ml.parse_metric(word)
        except (ValueError, TypeError):
            continue
        metrics.append(word)
    with_k = []
    for word in metrics:
        try:
            ml.parse_metric(f"{word}@5")
        except (ValueError, TypeError):
            continue
        with_k.append(word)
    peers = list(ml.PEERS)
    listed = (cli.build_parser().epilog or "").split("Measures:", 1)[-1].split(";", 1)[0]
    measures = [re.sub(r"\[.*", "", m.strip()) for m in listed.split(", ")]
    measures += [m + ".5,10" for m in measures if "[" in listed.split(m, 1)[-1][:2]]
    plan = {
        "metrics": metrics,
        "metrics_with_k": with_k,
        "bad_metrics": ["hits@10", "gm_map", "ndcg@x", "precison@5", "map@-1", "", "ndcg@0"],
        "peers": peers,
        "convention_metrics": {p: list(ml.convention_metrics(p)) for p in peers},
        "evaluate_keywords": list(inspect.signature(ml.evaluate).parameters),
        "cli_measures": measures + ["ndcg_cut.1", "P.1,5", "iprec_at_recall.0.5,1",
                                    "bogus", "P.0"],
    }
    Path(out_path).write_text(json.dumps(plan, indent=1))


def worker(tree, plan_path, cases, seed, out_path):
    import metrics_lib

    where = Path(metrics_lib.__file__).resolve()
    assert Path(tree).resolve() in where.parents, f"imported {where}, not from {tree}"
    plan = json.loads(Path(plan_path).read_text())
    available = []
    for name in OPTIONAL_BACKENDS:
        try:
            __import__(name)
            available.append(name)
        except ImportError:
            pass
    record = Recorder()
    rng = np.random.default_rng(seed)
    timings = {}
    with tempfile.TemporaryDirectory() as folder:
        for part, run in (
            ("evaluate", lambda: evaluate_cases(record, rng, plan, cases, available)),
            ("conventions", lambda: convention_cases(record, rng, plan)),
            ("per-list", lambda: per_list_cases(record, rng, plan, cases)),
            ("beyond, ratings, classification", lambda: beyond_and_other_cases(
                record, rng, max(1, cases // 4))),
            ("online and data", lambda: online_cases(record, rng, max(1, cases // 8))),
            ("command line", lambda: cli_cases(record, rng, plan, max(1, cases // 4), folder)),
        ):
            start, cpu, before = time.perf_counter(), time.process_time(), len(record.outcomes)
            run()
            timings[part] = (len(record.outcomes) - before, time.perf_counter() - start,
                             time.process_time() - cpu)
    with open(out_path, "wb") as f:
        pickle.dump({"outcomes": record.outcomes, "available": available,
                     "timings": timings, "file": str(where)}, f)


def _spawn(tree, *args):
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *args],
                            env=env, cwd=tempfile.gettempdir())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old_tree")
    parser.add_argument("new_tree", nargs="?")
    parser.add_argument("--cases", type=int, default=2000,
                        help="random tables through evaluate (the other parts scale with it)")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--plan", help=argparse.SUPPRESS)
    parser.add_argument("--make-plan", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        if args.make_plan:
            make_plan(args.plan)
            return 0
        worker(args.old_tree, args.plan, args.cases, args.seed, args.out)
        return 0
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        plan = Path(folder, "plan.json")
        if _spawn(args.old_tree, args.old_tree, "--worker", "--make-plan",
                  "--plan", str(plan)).wait():
            return 2
        outs = [Path(folder, "old.pkl"), Path(folder, "new.pkl")]
        workers = [_spawn(tree, tree, "--worker", "--plan", str(plan), "--cases",
                          str(args.cases), "--seed", str(args.seed), "--out", str(out))
                   for tree, out in zip((args.old_tree, args.new_tree), outs)]
        if any(w.wait() for w in workers):
            return 2
        old, new = (pickle.loads(out.read_bytes()) for out in outs)
    return report(old, new, time.perf_counter() - start)


def _first_difference(a, b, path="outcome"):
    """(path, old leaf, new leaf) of the first place two canonical forms differ."""
    if isinstance(a, tuple) and a and a[0] == "float" and b and b[0] == "float":
        return path, repr(struct.unpack("<d", a[1])[0]), repr(struct.unpack("<d", b[1])[0])
    if isinstance(a, tuple) and a and a[0] == "nd" and b[0] == "nd" and a[1:3] == b[1:3]:
        x, y = (np.frombuffer(v[3], dtype=v[1]) for v in (a, b))
        bytes_x, bytes_y = (v.view(np.uint8).reshape(v.size, -1) for v in (x, y))
        i = int(np.flatnonzero((bytes_x != bytes_y).any(axis=1))[0])  # bitwise, NaN too
        return f"{path}[{i}]", repr(x[i]), repr(y[i])
    if isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                label = x[0] if isinstance(x, tuple) and x and isinstance(x[0], str) else i
                return _first_difference(x, y, f"{path}/{label}")
    return path, a, b


def report(old, new, seconds) -> int:
    print(f"old: {old['file']}\nnew: {new['file']}")
    missing = [b for b in OPTIONAL_BACKENDS if b not in old["available"]]
    print(f"backends: pandas, {', '.join(old['available'])}"
          + (f" (not installed, skipped: {', '.join(missing)})" if missing else ""))
    print("calls and seconds (wall, CPU) in the old tree's worker:")
    for part, (count, took, cpu) in old["timings"].items():
        print(f"  {part:34s} {count:7d} calls  {took:6.1f} s  {cpu:6.1f} s CPU")
    a, b = old["outcomes"], new["outcomes"]
    differences = [(x, y) for x, y in zip(a, b) if x != y]
    if len(a) != len(b):
        print(f"DIFFERENT number of outcomes: {len(a)} old, {len(b)} new")
    errors = sum(1 for x in a if x[1][0] == "error")
    warned = sum(1 for x in a if x[2])
    print(f"{len(a)} outcomes compared ({errors} errors, {warned} with warnings), "
          f"{len(differences)} different, {seconds:.0f} s in all")
    by_part = {}
    for x, _ in differences:
        part = re.split(r"[# ]", x[0], maxsplit=1)[0]
        by_part[part] = by_part.get(part, 0) + 1
    if by_part:
        print("different, by function: " + ", ".join(f"{k} {v}" for k, v in by_part.items()))
    for x, y in differences[:5]:
        where, old_leaf, new_leaf = _first_difference(x[1:], y[1:])
        print(f"- {x[0][:300]}\n    at {where}\n    old: {str(old_leaf)[:300]}"
              f"\n    new: {str(new_leaf)[:300]}")
    return 0 if not differences and len(a) == len(b) else 1


if __name__ == "__main__":
    sys.exit(main())
