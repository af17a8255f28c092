"""trec_eval's standard measures (Rprec, bpref, iprec_at_recall, gm_map, num_*).

The per-list functions of ``metrics_lib.trec_measures`` and the matching
``evaluate`` metrics are compared, on randomised qrels and runs, with

- the trec_eval 10.0 binary (built from ``/work/shared/vendor``'s source, or
  any ``trec_eval`` named by ``$TREC_EVAL`` or found on ``PATH``): these
  tests skip cleanly when there is none;
- pytrec_eval (the venv's ``pytrec_eval-terrier``, which wraps trec_eval
  9.0.8), so that ``make test`` covers the measures without the binary.

The random data have ties in score (trec_eval breaks them by docno,
descending, compared as text), docnos whose text and numeric orders differ,
grades -1..3, judged items never retrieved, retrieved items never judged,
queries with no relevant item, queries only in the run or only in the qrels.
"""

from __future__ import annotations

import importlib
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
chunks_module = importlib.import_module("metrics_lib.batch.chunks")
from metrics_lib.trec_measures import IPREC_RECALL_LEVELS


def _find_trec_eval():
    built = Path(__file__).resolve().parents[1] / "_build" / "trec_eval" / "trec_eval"
    for candidate in (os.environ.get("TREC_EVAL"), str(built), shutil.which("trec_eval")):
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


TREC_EVAL = _find_trec_eval()
needs_trec_eval = pytest.mark.skipif(
    TREC_EVAL is None, reason="no trec_eval binary (make trec_eval builds it into "
    "_build/trec_eval; or set $TREC_EVAL)")

SEEDS = range(8)
LEVEL_NAMES = [f"iprec_at_recall_{p:.2f}" for p in IPREC_RECALL_LEVELS]
SCORES = (2.0, 1.0, 0.5, float(np.float32(0.3)), 0.25)  # few values: many ties


# -- random data -------------------------------------------------------------
def make_case(seed, *, fractional=False):
    """Run rows (qid, docno, score) and qrels rows (qid, docno, grade)."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for q in range(14):
        qid = f"q{q}"
        pool = [str(d) for d in rng.choice(400, size=40, replace=False)]
        kind = q % 7
        n_ret = int(rng.integers(1, 25))
        retrieved = pool[:n_ret]
        if kind != 5:  # q5, q12: in the qrels only
            for doc in retrieved:
                run.append((qid, doc, float(rng.choice(SCORES))))
        if kind == 6:  # q6, q13: in the run only
            continue
        judged = rng.choice(pool, size=int(rng.integers(1, 30)), replace=False)
        for doc in judged:
            if kind == 3:  # no relevant item: grades -1 and 0 only
                grade = int(rng.integers(-1, 1))
            else:
                grade = int(rng.integers(-1, 4))
            if fractional and grade >= 0 and rng.random() < 0.5:
                grade = grade + float(rng.choice([0.25, 0.5, 0.75]))
            qrels.append((qid, str(doc), grade))
    return run, qrels


def trec_order(rows):
    """Docnos of (score, docno) rows in trec_eval's order: score desc, then
    docno desc compared as bytes (both sorts are stable)."""
    rows = sorted(rows, key=lambda r: r[1].encode(), reverse=True)
    return [doc for _, doc in sorted(rows, key=lambda r: -r[0])]


def per_query(run, qrels, *, complete):
    """{qid: (ranked docnos, {docno: grade})} for the queries trec_eval scores.

    Those are the queries of the qrels: with ``complete`` (trec_eval ``-c``)
    all of them, a query without a run scoring an empty list; without it
    only those in the run too (pytrec_eval; trec_eval 10.0 without ``-c``
    stops with exit code 4 on a qrels query missing from the run).
    """
    lists, grades = {}, {}
    for qid, doc, score in run:
        lists.setdefault(qid, []).append((score, doc))
    for qid, doc, grade in qrels:
        grades.setdefault(qid, {})[doc] = grade
    return {qid: (trec_order(lists.get(qid, [])), judged)
            for qid, judged in grades.items() if complete or qid in lists}


def write_files(tmp_path, run, qrels):
    run_file, qrels_file = tmp_path / "run", tmp_path / "qrels"
    run_file.write_text("".join(f"{q} Q0 {d} {i} {s!r} tag\n"
                                for i, (q, d, s) in enumerate(run)))
    qrels_file.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    return qrels_file, run_file


def run_trec_eval(qrels_file, run_file, level, measures):
    args = [TREC_EVAL, "-q", "-c", "-l", str(level)]
    for measure in measures:
        args += ["-m", measure]
    out = subprocess.run(args + [str(qrels_file), str(run_file)], check=True,
                         capture_output=True, text=True).stdout
    table = {}
    for line in out.splitlines():
        name, qid, value = (part.strip() for part in line.split("\t"))
        table.setdefault(qid, {})[name] = value
    return table


def fmt(value):
    return f"{value:.4f}"


# -- per-list functions against the trec_eval binary -------------------------
@needs_trec_eval
@pytest.mark.parametrize("level", [0, 1, 2])
@pytest.mark.parametrize("seed", SEEDS)
def test_per_list_functions_equal_trec_eval(tmp_path, seed, level):
    run, qrels = make_case(seed)
    table = run_trec_eval(*write_files(tmp_path, run, qrels), level,
                          ["Rprec", "bpref", "iprec_at_recall", "map", "gm_map"])
    queries = per_query(run, qrels, complete=True)
    assert set(table) - {"all"} == set(queries)
    for qid, (ranking, grades) in queries.items():
        expected = table[qid]
        assert fmt(ml.r_precision(ranking, grades, relevance_level=level)) == expected["Rprec"], qid
        assert fmt(ml.bpref(ranking, grades, relevance_level=level)) == expected["bpref"], qid
        iprec = ml.interpolated_precision(ranking, grades, relevance_level=level)
        assert [fmt(v) for v in iprec] == [expected[n] for n in LEVEL_NAMES], qid
    gm = ml.geometric_mean_average_precision(
        [r for r, _ in queries.values()], [g for _, g in queries.values()],
        relevance_level=level)
    assert fmt(gm) == table["all"]["gm_map"]


@needs_trec_eval
@pytest.mark.parametrize("seed", SEEDS)
def test_other_recall_levels_equal_trec_eval(tmp_path, seed):
    levels = [0.05, 0.25, 0.33, 0.45, 0.55, 0.67, 0.75, 0.95]
    run, qrels = make_case(seed)
    table = run_trec_eval(*write_files(tmp_path, run, qrels), 1,
                          ["iprec_at_recall." + ",".join(map(str, levels))])
    for qid, (ranking, grades) in per_query(run, qrels, complete=True).items():
        ours = ml.interpolated_precision(ranking, grades, levels)
        assert [fmt(v) for v in ours] == [
            table[qid][f"iprec_at_recall_{p:.2f}"] for p in levels], qid


@needs_trec_eval
@pytest.mark.parametrize("seed", SEEDS)
def test_fractional_grades_equal_trec_eval(tmp_path, seed):
    # trec_eval truncates a grade to an integer (atol); for grades >= 0 and an
    # integer relevance level, floor(g) >= L exactly when g >= L, so the
    # library's comparison of the grade as it is gives the same values.
    run, qrels = make_case(seed, fractional=True)
    table = run_trec_eval(*write_files(tmp_path, run, qrels), 2, ["Rprec", "bpref"])
    for qid, (ranking, grades) in per_query(run, qrels, complete=True).items():
        assert fmt(ml.r_precision(ranking, grades, relevance_level=2)) == table[qid]["Rprec"]
        assert fmt(ml.bpref(ranking, grades, relevance_level=2)) == table[qid]["bpref"]


# -- evaluate against the trec_eval binary -----------------------------------
def frames(run, qrels, *, item_dtype=None):
    """evaluate's tables; negative grades left out (the DataFrame path refuses
    them, and for every measure here a negative grade is the same as no
    judgement: trec_eval's RELVALUE_UNJUDGED)."""
    recs = pd.DataFrame(run, columns=["user", "item", "score"])
    truth = pd.DataFrame(qrels, columns=["user", "item", "relevance"])
    truth = truth[truth["relevance"] >= 0]
    if item_dtype is not None:
        recs["item"] = recs["item"].astype(item_dtype)
        truth["item"] = truth["item"].astype(item_dtype)
    return recs, truth


EVAL_METRICS = ["rprec", "bpref", "num_ret", "num_rel", "num_rel_ret", "map"] + LEVEL_NAMES
TREC_NAMES = {"rprec": "Rprec", "map": "map"}


def assert_evaluate_matches(result, table, queries, qrels):
    """Every user of ``result`` equals the trec_eval (or pytrec_eval) table."""
    only_negative = {q for q, _, _ in qrels} - {q for q, _, g in qrels if g >= 0}
    # Queries whose judgements are all negative vanish from evaluate's truth.
    assert set(result.index) == set(queries) - only_negative
    for qid in result.index:
        for name in result.columns:
            expected = table[qid][TREC_NAMES.get(name, name)]
            value = result.at[qid, name]
            if name.startswith("num_"):
                assert value == int(expected), (qid, name)
            else:
                assert fmt(value) == expected, (qid, name)


@needs_trec_eval
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_equals_trec_eval(tmp_path, seed, level):
    run, qrels = make_case(seed)
    table = run_trec_eval(*write_files(tmp_path, run, qrels), level,
                          ["Rprec", "bpref", "num_ret", "num_rel", "num_rel_ret",
                           "map", "gm_map", "iprec_at_recall"])
    recs, truth = frames(run, qrels)
    # missing="zero" is trec_eval -c: a qrels query without a run scores an
    # empty list.
    result = ml.evaluate(recs, truth, EVAL_METRICS, relevance_level=level)
    queries = per_query(run, qrels, complete=True)
    assert_evaluate_matches(result, table, queries, qrels)
    # gm_map over users: trec_eval's summary line. Users whose judgements are
    # all negative have AP 0, hence the floor, in trec_eval as well.
    only_negative = len(queries) - len(result)
    aps = list(result["map"]) + [0.0] * only_negative
    assert fmt(ml.floored_geometric_mean(aps)) == table["all"]["gm_map"]


# -- the same against pytrec_eval (no binary needed) -------------------------
pytrec_eval = pytest.importorskip("pytrec_eval")


def pytrec_tables(run, qrels, level, measures):
    qrel = {}
    for qid, doc, grade in qrels:
        qrel.setdefault(qid, {})[doc] = int(grade)
    runs = {}
    for qid, doc, score in run:
        runs.setdefault(qid, {})[doc] = score
    evaluator = pytrec_eval.RelevanceEvaluator(qrel, measures, relevance_level=level)
    return evaluator.evaluate(runs)


def gm_from_logs(logs):
    """trec_eval's summary of gm_map: logs added in query order, then exp of the mean."""
    total = 0.0
    for value in logs:
        total += value
    return math.exp(total / len(logs))


def v9_target_level(p, n_rel):
    """A recall level whose trec_eval 10 target equals trec_eval 9's for ``p``.

    pytrec_eval wraps trec_eval 9.0.8, whose iprec_at_recall targets the
    ``(long)(p * R + 0.9)``-th relevant item; trec_eval 10 (and this
    library) target the ``lround(p * R)``-th. Level ``c / R`` makes them meet.
    """
    target = int(p * n_rel + 0.9)
    return target / n_rel if n_rel else p


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", SEEDS)
def test_per_list_functions_equal_pytrec_eval(seed, level):
    run, qrels = make_case(seed)
    tables = pytrec_tables(run, qrels, level, {"Rprec", "bpref", "iprec_at_recall",
                                               "gm_map"})
    queries = per_query(run, qrels, complete=False)
    assert set(tables) == set(queries)
    for qid, (ranking, grades) in queries.items():
        expected = tables[qid]
        assert ml.r_precision(ranking, grades, relevance_level=level) == expected["Rprec"]
        assert ml.bpref(ranking, grades, relevance_level=level) == expected["bpref"]
        n_rel = sum(1 for g in grades.values() if g >= level)
        levels = [v9_target_level(p, n_rel) for p in IPREC_RECALL_LEVELS]
        ours = ml.interpolated_precision(ranking, grades, levels, relevance_level=level)
        np.testing.assert_array_equal(ours, [expected[n] for n in LEVEL_NAMES])
    # pytrec_eval reports gm_map per query as log(max(AP, 1e-5)).
    logs = [tables[qid]["gm_map"] for qid in queries]
    gm = ml.geometric_mean_average_precision(
        [r for r, _ in queries.values()], [g for _, g in queries.values()],
        relevance_level=level)
    assert gm == gm_from_logs(logs)


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_equals_pytrec_eval(seed, level):
    run, qrels = make_case(seed)
    tables = pytrec_tables(run, qrels, level, {"Rprec", "bpref", "num_ret", "num_rel",
                                               "num_rel_ret", "map", "gm_map"})
    recs, truth = frames(run, qrels)
    metrics = ["rprec", "bpref", "num_ret", "num_rel", "num_rel_ret", "map"]
    result = ml.evaluate(recs, truth, metrics, relevance_level=level, missing="skip")
    queries = per_query(run, qrels, complete=False)
    only_negative = {q for q, _, _ in qrels} - {q for q, _, g in qrels if g >= 0}
    assert set(result.index) == set(queries) - only_negative
    for qid in result.index:
        for name in metrics:
            expected = tables[qid][TREC_NAMES.get(name, name)]
            assert result.at[qid, name] == expected, (qid, name)
    logs = [tables[qid]["gm_map"] for qid in queries]
    # Same users in the same order (the sum's order decides the last bit).
    aps = [result["map"].get(qid, 0.0) for qid in queries]
    assert ml.floored_geometric_mean(aps) == gm_from_logs(logs)


@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_iprec_equals_per_list(seed):
    # iprec in evaluate, level by level, equals the per-list function, which
    # the tests above compare with both trec_eval versions.
    run, qrels = make_case(seed)
    recs, truth = frames(run, qrels)
    levels = [0.0, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.75, 1.0]
    names = [f"iprec_at_recall_{p:.2f}" for p in levels]
    result = ml.evaluate(recs, truth, names, missing="skip")
    for qid, (ranking, grades) in per_query(run, qrels, complete=False).items():
        if qid not in result.index:
            continue
        np.testing.assert_array_equal(result.loc[qid, names].to_numpy(),
                                      ml.interpolated_precision(ranking, grades, levels))


# -- evaluate: id dtypes, missing users, threads, empty policy ----------------
@pytest.mark.parametrize("item_dtype", [None, "string", "string[pyarrow]"])
def test_evaluate_with_other_id_dtypes(item_dtype):
    if item_dtype == "string[pyarrow]":
        pytest.importorskip("pyarrow")
    run, qrels = make_case(3)
    recs, truth = frames(run, qrels, item_dtype=item_dtype)
    base = ml.evaluate(*frames(run, qrels), EVAL_METRICS, missing="skip")
    pd.testing.assert_frame_equal(
        ml.evaluate(recs, truth, EVAL_METRICS, missing="skip"), base)


@pytest.mark.parametrize("id_dtype", ["int64", "Int64", "uint32"])
def test_evaluate_integer_ids_equal_per_list(id_dtype):
    # Distinct scores, so the order does not depend on the tie rule.
    rng = np.random.default_rng(7)
    rows, judged = [], []
    for user in range(30):
        items = rng.choice(2**40, size=int(rng.integers(1, 20)), replace=False)
        scores = rng.permutation(items.size).astype(float)
        rows += [(user * 2**33, int(i), s) for i, s in zip(items, scores)]
        extra = rng.choice(2**40, size=5, replace=False)
        pool = np.concatenate([items[: items.size // 2], extra])
        judged += [(user * 2**33, int(i), int(rng.integers(0, 4))) for i in pool]
    recs = pd.DataFrame(rows, columns=["user", "item", "score"])
    truth = pd.DataFrame(judged, columns=["user", "item", "relevance"]).drop_duplicates(
        ["user", "item"])
    if id_dtype == "uint32":
        recs["item"] = (recs["item"] % 2**32).astype("uint32")
        truth["item"] = (truth["item"] % 2**32).astype("uint32")
        recs = recs.drop_duplicates(["user", "item"])
        truth = truth.drop_duplicates(["user", "item"])
    else:
        for frame in (recs, truth):
            frame["item"] = frame["item"].astype(id_dtype)
            frame["user"] = frame["user"].astype(id_dtype)
    names = ["rprec", "bpref", "num_ret", "num_rel", "num_rel_ret",
             "iprec_at_recall_0.00", "iprec_at_recall_0.30", "iprec_at_recall_1.00"]
    result = ml.evaluate(recs, truth, names)
    for user, group in recs.groupby("user"):
        ranking = group.sort_values("score", ascending=False)["item"].tolist()
        sub = truth[truth["user"] == user]
        grades = dict(zip(sub["item"].tolist(), sub["relevance"].tolist()))
        row = result.loc[user]
        assert row["rprec"] == ml.r_precision(ranking, grades)
        assert row["bpref"] == ml.bpref(ranking, grades)
        assert row["num_ret"] == len(ranking)
        assert row["num_rel"] == sum(g >= 1 for g in grades.values())
        assert row["num_rel_ret"] == sum(grades.get(i, 0) >= 1 for i in ranking)
        np.testing.assert_array_equal(
            row[names[5:]].to_numpy(dtype=float),
            ml.interpolated_precision(ranking, grades, [0.0, 0.3, 1.0]))


def test_evaluate_threads_give_identical_values(monkeypatch):
    run, qrels = make_case(5)
    recs, truth = frames(run, qrels)
    one = ml.evaluate(recs, truth, EVAL_METRICS)
    monkeypatch.setattr(chunks_module, "_MIN_ROWS_PER_THREAD", 10)
    pd.testing.assert_frame_equal(ml.evaluate(recs, truth, EVAL_METRICS, n_jobs=3), one)


def test_evaluate_missing_users_and_empty_policy():
    recs = pd.DataFrame({"user": ["u", "u", "u"], "item": ["a", "b", "c"],
                         "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": ["u", "u", "v", "w"], "item": ["b", "c", "a", "z"],
                          "relevance": [1, 0, 1, 0]})
    names = ["rprec", "bpref", "num_ret", "num_rel", "num_rel_ret", "iprec_at_recall_0.00"]
    result = ml.evaluate(recs, truth, names)
    # v: judged but never recommended (-c); w: nothing relevant.
    # u: R = 1 (b), N = 1 (c); "a" above "b" is unjudged, so bpref is 1.
    assert result.loc["u"].tolist() == [0.0, 1.0, 3.0, 1.0, 1.0, 0.5]
    assert result.loc["v"].tolist() == [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    assert result.loc["w"].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    nan = ml.evaluate(recs, truth, names, empty="nan")
    assert nan.loc["w", ["rprec", "bpref", "iprec_at_recall_0.00"]].isna().all()
    assert nan.loc["w", ["num_ret", "num_rel", "num_rel_ret"]].tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="bpref: user 'w'"):
        ml.evaluate(recs, truth, ["bpref"], empty="raise")
    skipped = ml.evaluate(recs, truth, names, missing="skip")
    assert list(skipped.index) == ["u"]


# -- definitions and edge cases of the per-list functions ---------------------
def test_bpref_negative_grade_is_unjudged_and_zero_is_nonrelevant():
    ranking = ["n", "a", "b"]
    with_negative = {"a": 1, "b": 1, "n": -2, "m": 0}
    without = {"a": 1, "b": 1, "m": 0}
    assert ml.bpref(ranking, with_negative) == ml.bpref(ranking, without) == 1.0
    # The same item judged 0 is non-relevant and ranked above both: 1 - 1/1 each.
    assert ml.bpref(ranking, {"a": 1, "b": 1, "n": 0, "m": 0}) == 0.5


def test_bpref_denominators():
    # R = 3, N = 1: min(N, R) = 1, so one non-relevant above costs everything.
    grades = {"a": 1, "b": 1, "c": 1, "n": 0}
    assert ml.bpref(["a", "n", "b", "c"], grades) == pytest.approx(1 / 3)
    # R = 1, N = 3: min(n_r, R) / min(N, R) = min(2, 1) / 1.
    grades = {"a": 1, "n1": 0, "n2": 0, "n3": 0}
    assert ml.bpref(["n1", "n2", "a"], grades) == 0.0
    # R = 2, N = 3: 1 - min(1, 2) / min(3, 2) = 0.5 for "a"; "b" not retrieved.
    grades = {"a": 1, "b": 1, "n1": 0, "n2": 0, "n3": 0}
    assert ml.bpref(["n1", "a"], grades) == 0.25
    # A plain set judges nothing non-relevant: the fraction of R retrieved.
    assert ml.bpref(["x", "a", "y"], {"a", "b"}) == 0.5


def test_r_precision_definition():
    assert ml.r_precision(["a", "x", "b"], {"a", "b"}) == 0.5
    assert ml.r_precision(["a"], {"a", "b", "c"}) == pytest.approx(1 / 3)
    assert ml.r_precision([], {"a"}) == 0.0
    assert ml.r_precision(["a", "b"], {"a": 2, "b": 1}, relevance_level=2) == 1.0


def test_interpolated_precision_definition():
    ranking = ["a", "x", "b", "y", "z", "c"]  # relevant at ranks 1, 3, 6; R = 4
    values = ml.interpolated_precision(ranking, {"a", "b", "c", "d"})
    # targets lround(p * 4): 0,0,1,1,2,2,2,3,3,4,4 -> 1, 1, 1, 1, 2/3, ... 0.
    expected = [1, 1, 1, 1, 2 / 3, 2 / 3, 2 / 3, 0.5, 0.5, 0, 0]
    np.testing.assert_array_equal(values, expected)
    assert isinstance(values, np.ndarray) and values.shape == (11,)
    # Halves round up (lround): 0.125 * 4 = 0.5 -> the first relevant item.
    assert ml.interpolated_precision(["x", "a"], {"a", "b", "c", "d"}, [0.125])[0] == 0.5
    # Nothing relevant, or nothing retrieved: zeros.
    np.testing.assert_array_equal(ml.interpolated_precision(["a"], {}), np.zeros(11))
    np.testing.assert_array_equal(ml.interpolated_precision([], {"a"}), np.zeros(11))
    # A later, better precision lifts an earlier level (interpolation).
    assert ml.interpolated_precision(["a", "x", "b", "c"], {"a", "b", "c"}, [0.3])[0] == 1.0


def test_gm_map_floor_and_helper():
    lists, truth = [["a"], ["x"]], [{"a"}, {"b"}]  # AP 1 and 0
    expected = math.sqrt(1.0 * 1e-5)
    assert ml.geometric_mean_average_precision(lists, truth) == pytest.approx(expected)
    assert ml.floored_geometric_mean([1.0, 0.0]) == pytest.approx(expected)
    assert ml.floored_geometric_mean([0.25, 0.0], floor=0.01) == pytest.approx(0.05)
    # No relevant item at all: AP 0, floored, counted (as trec_eval counts it).
    assert ml.geometric_mean_average_precision([["a"], ["a"]], [{"a"}, {"z": 0}]) \
        == pytest.approx(expected)


def test_empty_policies():
    for function in (ml.r_precision, ml.bpref):
        assert function(["a"], {"a": 0}) == 0.0
        assert math.isnan(function(["a"], {"a": 0}, empty="nan"))
        with pytest.raises(ValueError, match="empty='raise'"):
            function(["a"], set(), empty="raise")


def test_inputs_are_not_mutated():
    ranking, grades = ["a", "b", "c"], {"a": 1, "b": -1, "c": 0}
    levels = np.array([0.5, 0.1])
    for call in (lambda: ml.r_precision(ranking, grades),
                 lambda: ml.bpref(ranking, grades),
                 lambda: ml.interpolated_precision(ranking, grades, levels)):
        call()
    assert ranking == ["a", "b", "c"] and grades == {"a": 1, "b": -1, "c": 0}
    np.testing.assert_array_equal(levels, [0.5, 0.1])


@pytest.mark.parametrize("call, error, message", [
    (lambda: ml.bpref(["a", "a"], {"a"}), ValueError, "twice"),
    (lambda: ml.bpref("abc", {"a"}), TypeError, "recommended"),
    (lambda: ml.bpref(["a"], {"a": float("nan")}), ValueError, "non-finite"),
    (lambda: ml.r_precision(["a"], {"a": "1"}), TypeError, "numeric grades"),
    (lambda: ml.r_precision(["a"], {"a"}, relevance_level=-1), ValueError, "relevance_level"),
    (lambda: ml.r_precision(["a"], {"a"}, empty="none"), ValueError, "empty"),
    (lambda: ml.interpolated_precision(["a"], {"a"}, [0.5, 1.5]), ValueError, r"\[0, 1\]"),
    (lambda: ml.interpolated_precision(["a"], {"a"}, 0.5), TypeError, "recall_levels"),
    (lambda: ml.interpolated_precision(["a"], {"a"}, []), ValueError, "recall_levels"),
    (lambda: ml.geometric_mean_average_precision([["a"]], []), ValueError, "one entry per user"),
    (lambda: ml.geometric_mean_average_precision([], []), ValueError, "empty"),
    (lambda: ml.floored_geometric_mean([0.5, float("nan")]), ValueError, "non-finite"),
    (lambda: ml.floored_geometric_mean([0.5, -0.1]), ValueError, ">= 0"),
    (lambda: ml.floored_geometric_mean([0.5], floor=0), ValueError, "floor"),
])
def test_bad_input_is_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()


# -- metric names --------------------------------------------------------------
@pytest.mark.parametrize("name, parsed", [
    ("rprec", ("rprec", None)), ("Rprec", ("rprec", None)),
    ("r_precision", ("rprec", None)), ("R-Precision", ("rprec", None)),
    ("bpref", ("bpref", None)), ("num_ret", ("num_ret", None)),
    ("num_rel", ("num_rel", None)), ("num_rel_ret", ("num_rel_ret", None)),
    ("iprec_at_recall_0.50", ("iprec_at_recall", 0.5)),
    ("iprec_at_recall_0.00", ("iprec_at_recall", 0.0)),
    ("iprec_at_recall_1.00", ("iprec_at_recall", 1.0)),
    ("iprec_at_recall@0.25", ("iprec_at_recall", 0.25)),
    # existing names keep their meaning
    ("P_5", ("precision", 5)), ("r_10", ("recall", 10)), ("map", ("ap", None)),
    ("ndcg_cut_10", ("ndcg", 10)), ("recall", ("recall", None)),
])
def test_parse_metric_names(name, parsed):
    assert ml.parse_metric(name) == parsed


@pytest.mark.parametrize("name, message", [
    ("gm_map", "floored_geometric_mean"), ("bpref@10", "no cut-off"),
    ("num_ret_5", "no cut-off"), ("num_rel@3", "no cut-off"),
    ("iprec_at_recall", "recall level"), ("iprec_at_recall_1.5", r"\[0, 1\]"),
])
def test_parse_metric_refusals(name, message):
    with pytest.raises(ValueError, match=message):
        ml.parse_metric(name)


# -- the kernels with negative grades ------------------------------------------
def trec_table(run, qrels, queries):
    """The kernels' table built directly from the arrays (grades unchecked)."""
    from metrics_lib._kernels import lookup_grades
    from metrics_lib._trec_kernels import TrecTable

    ids = {doc: n for n, doc in enumerate(sorted({d for _, d, _ in run + qrels}))}
    order = list(queries)
    lengths = np.array([len(queries[q][0]) for q in order], dtype=np.int64)
    item_key = np.array([ids[d] for q in order for d in queries[q][0]], dtype=np.int64)
    truth = [(order.index(q), ids[d], float(g)) for q, d, g in qrels if q in queries]
    truth_code = np.array([t[0] for t in truth], dtype=np.int64)
    truth_key = np.array([t[1] for t in truth], dtype=np.int64)
    truth_grade = np.array([t[2] for t in truth])
    hit_rows, hit_grades, _, _ = lookup_grades(item_key, lengths, truth_code,
                                               truth_key, truth_grade)
    return order, TrecTable(lengths, lengths, hit_rows, hit_grades, truth_code,
                            truth_grade, len(order))


@needs_trec_eval
@pytest.mark.parametrize("seed", SEEDS)
def test_kernels_at_relevance_level_zero_equal_trec_eval(tmp_path, seed):
    # trec_eval -l 0: every judged item with a grade >= 0 is relevant (the
    # per-list functions at relevance_level=0: test_per_list_functions_equal_trec_eval)
    run, qrels = make_case(seed)
    queries = per_query(run, qrels, complete=True)
    order, table = trec_table(run, qrels, queries)
    tables = run_trec_eval(*write_files(tmp_path, run, qrels), 0,
                           ["Rprec", "bpref", "num_rel", "num_rel_ret", "iprec_at_recall"])
    values = {name: table.measure(kind, param, 0.0)[0] for name, kind, param in [
        ("Rprec", "rprec", None), ("bpref", "bpref", None), ("num_rel", "num_rel", None),
        ("num_rel_ret", "num_rel_ret", None), ("iprec_at_recall_0.00", "iprec_at_recall", 0.0),
        ("iprec_at_recall_1.00", "iprec_at_recall", 1.0)]}
    for code, qid in enumerate(order):
        for name, column in values.items():
            expected = tables[qid][name]
            if name.startswith("num_"):
                assert column[code] == int(expected), (qid, name)
            else:
                assert fmt(column[code]) == expected, (qid, name)


def test_kernels_treat_negative_grades_as_unjudged():
    # evaluate's DataFrame path refuses negative grades today; the kernels
    # already treat them as trec_eval does, should that rule ever change.
    run, qrels = make_case(11)
    queries = per_query(run, qrels, complete=True)
    order, table = trec_table(run, qrels, queries)
    truth_grade = table.truth_grade
    assert (truth_grade < 0).any()
    for level in (1, 2):
        bprefs, rprecs = table.bpref(level), table.rprec(level)
        iprec = table.iprec(0.3, level)
        for code, qid in enumerate(order):
            ranking, grades = queries[qid]
            assert bprefs[code] == ml.bpref(ranking, grades, relevance_level=level)
            assert rprecs[code] == ml.r_precision(ranking, grades, relevance_level=level)
            assert iprec[code] == ml.interpolated_precision(
                ranking, grades, [0.3], relevance_level=level)[0]


def test_evaluate_dask_equals_pandas():
    dd = pytest.importorskip("dask.dataframe")
    run, qrels = make_case(2)
    recs, truth = frames(run, qrels)
    expected = ml.evaluate(recs, truth, EVAL_METRICS)
    lazy = ml.evaluate(dd.from_pandas(recs, npartitions=3),
                       dd.from_pandas(truth, npartitions=2), EVAL_METRICS)
    pd.testing.assert_frame_equal(lazy.compute().sort_index(), expected,
                                  check_index_type=False)
