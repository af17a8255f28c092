"""Users judged in truth without recommendations are never averaged in silently.

issue 22, point 3: ``evaluate`` used to score them 0 without a word, so a sample
of users evaluated against the whole truth table came back diluted by every
judged user outside the sample. Now the default scores them 0 and warns once per
call (every backend, every chunking), ``missing="zero"`` is the silent trec_eval
``-c``, ``"skip"`` leaves them out and ``"raise"`` stops as trec_eval 10.0 does
without ``-c`` (checked against the binary).
"""

import importlib
import os
import pathlib
import subprocess
import warnings

import numpy as np
import pandas as pd
import pytest

import metrics_lib
from metrics_lib import MissingUsersWarning, evaluate

ROOT = pathlib.Path(__file__).resolve().parents[1]
TREC_EVAL = pathlib.Path(os.environ.get("TREC_EVAL", ROOT / "_build" / "trec_eval" / "trec_eval"))
METRICS = ["ndcg@10", "precision@5", "map", "mrr"]


def tables(seed, n_users=60, n_without=None, n_unjudged=5):
    """Random tables: some judged users without a list, some lists without judgements."""
    rng = np.random.default_rng(seed)
    users = rng.choice(10**6, size=n_users + n_unjudged, replace=False)
    judged, only_recs = users[:n_users], users[n_users:]
    if n_without is None:
        n_without = int(rng.integers(1, n_users))
    listed = np.concatenate([judged[n_without:], only_recs])
    recs = pd.DataFrame([(u, i, float(rng.integers(0, 4)))
                         for u in listed
                         for i in rng.choice(40, size=rng.integers(1, 12), replace=False)],
                        columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, int(rng.integers(0, 3)))
                          for u in judged
                          for i in rng.choice(40, size=rng.integers(1, 6), replace=False)],
                         columns=["user", "item", "relevance"])
    return recs, truth, set(judged[:n_without].tolist())


def caught(call):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in seen if issubclass(w.category, MissingUsersWarning)]


def test_the_warning_is_public_and_a_user_warning():
    assert metrics_lib.MissingUsersWarning is MissingUsersWarning
    assert issubclass(MissingUsersWarning, UserWarning)
    assert "MissingUsersWarning" in metrics_lib.__all__


@pytest.mark.parametrize("seed", range(8))
def test_default_scores_them_zero_and_warns_once_with_the_count(seed):
    recs, truth, without = tables(seed)
    result, seen = caught(lambda: evaluate(recs, truth, METRICS))
    assert len(seen) == 1
    message = str(seen[0].message)
    n_truth = truth["user"].nunique()
    assert f"{len(without):,} of the {n_truth:,} users in truth" in message
    assert "missing='zero'" in message and "missing='skip'" in message
    assert "missing='raise'" in message and "trec_eval -c" in message
    assert seen[0].filename == __file__   # points at the caller's line
    # the values: those of missing="zero", which is silent
    zero, quiet = caught(lambda: evaluate(recs, truth, METRICS, missing="zero"))
    assert not quiet
    pd.testing.assert_frame_equal(result, zero)
    assert (result.loc[sorted(without)] == 0).all().all()
    assert len(result) == n_truth


@pytest.mark.parametrize("seed", range(4))
def test_skip_leaves_them_out_and_raise_refuses(seed):
    recs, truth, without = tables(seed)
    skip, seen = caught(lambda: evaluate(recs, truth, METRICS, missing="skip"))
    assert not seen and not without & set(skip.index)
    zero = evaluate(recs, truth, METRICS, missing="zero")
    pd.testing.assert_frame_equal(skip, zero.drop(index=sorted(without)))
    with pytest.raises(ValueError, match=rf"^{len(without)} of the "
                       rf"{truth['user'].nunique()} users in truth have no "
                       r"recommendations \(user \d+, for one\).*missing='zero'"):
        evaluate(recs, truth, METRICS, missing="raise")


def test_no_warning_when_every_judged_user_has_a_list():
    recs, truth, _ = tables(3, n_without=0)
    for missing in ("warn", "zero", "skip", "raise"):
        _, seen = caught(lambda: evaluate(recs, truth, METRICS, missing=missing))
        assert not seen


def test_users_only_in_recommendations_are_left_out_without_a_warning():
    recs = pd.DataFrame({"user": [1, 2, 2], "item": [1, 1, 2], "score": [1.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [1], "relevance": [1]})
    result, seen = caught(lambda: evaluate(recs, truth, ["mrr"]))
    assert not seen and list(result.index) == [1]
    result = evaluate(recs, truth, ["mrr"], unjudged="empty")
    assert list(result.index) == [1, 2]


def test_a_sample_against_the_whole_truth_table():
    # the issue's trap: 10 sampled users scored against 200 users' judgements
    recs, truth, _ = tables(11, n_users=200, n_without=0, n_unjudged=0)
    sample = recs["user"].drop_duplicates().iloc[:10]
    sampled = recs[recs["user"].isin(sample)]
    result, seen = caught(lambda: evaluate(sampled, truth, ["ndcg@10"]))
    assert len(seen) == 1 and "190 of the 200 users in truth" in str(seen[0].message)
    honest = evaluate(sampled, truth[truth["user"].isin(sample)], ["ndcg@10"])
    assert len(result) == 200 and len(honest) == 10
    assert result["ndcg@10"].mean() == pytest.approx(honest["ndcg@10"].sum() / 200)


def test_an_unknown_value_names_the_choices():
    recs, truth, _ = tables(1)
    with pytest.raises(ValueError, match="missing.*'warn'.*'zero'.*'skip'.*'raise'"):
        evaluate(recs, truth, METRICS, missing="drop")


def test_once_per_call_when_the_users_are_scored_in_chunks(monkeypatch):
    module = importlib.import_module("metrics_lib.batch.chunks")

    recs, truth, without = tables(5, n_users=80)
    expected = evaluate(recs, truth, METRICS, missing="zero")
    # chunks of a few hundred rows: several chunks, in threads and in one thread
    monkeypatch.setattr(module, "_MIN_ROWS_PER_THREAD", 50)
    monkeypatch.setattr(module, "_ROWS_PER_CHUNK", 120)
    for n_jobs in (1, 3):
        result, seen = caught(lambda: evaluate(recs, truth, METRICS, n_jobs=n_jobs))
        assert len(seen) == 1 and str(seen[0].message).startswith(f"{len(without)} of")
        pd.testing.assert_frame_equal(result, expected)


@pytest.mark.parametrize("backend", ["polars", "polars_lazy", "arrow"])
def test_native_backends_warn_once(backend):
    recs, truth, without = tables(6)
    if backend == "arrow":
        pa = pytest.importorskip("pyarrow")
        native = pa.Table.from_pandas(recs), pa.Table.from_pandas(truth)
    else:
        pl = pytest.importorskip("polars")
        native = pl.from_pandas(recs), pl.from_pandas(truth)
        if backend == "polars_lazy":
            native = native[0].lazy(), native[1].lazy()
    _, seen = caught(lambda: evaluate(*native, METRICS))
    assert len(seen) == 1 and str(seen[0].message).startswith(f"{len(without)} of")
    skipped, seen = caught(lambda: evaluate(*native, METRICS, missing="skip"))
    assert not seen and len(skipped) == truth["user"].nunique() - len(without)
    with pytest.raises(ValueError, match=f"^{len(without)} of"):
        evaluate(*native, METRICS, missing="raise")


def test_dask_warns_once_per_call_with_the_whole_count():
    dd = pytest.importorskip("dask.dataframe")
    recs, truth, without = tables(7, n_users=90)
    expected = evaluate(recs, truth, METRICS, missing="zero")
    lazy, seen = caught(lambda: evaluate(dd.from_pandas(recs, npartitions=4),
                                         dd.from_pandas(truth, npartitions=3), METRICS))
    assert len(seen) == 1 and str(seen[0].message).startswith(
        f"{len(without)} of the {truth['user'].nunique()} users")
    computed, seen = caught(lambda: lazy.compute(scheduler="sync").sort_index())
    assert not seen     # no partition warns again
    pd.testing.assert_frame_equal(computed, expected, check_index_type=False)
    with pytest.raises(ValueError, match=f"^{len(without)} of"):
        evaluate(dd.from_pandas(recs, npartitions=2), truth, METRICS, missing="raise")
    for missing in ("zero", "skip"):
        _, seen = caught(lambda: evaluate(dd.from_pandas(recs, npartitions=2), truth,
                                          METRICS, missing=missing))
        assert not seen


def trec_eval(qrels, run, *options):
    if not TREC_EVAL.is_file():
        pytest.skip("the trec_eval binary is not built (make trec_eval)")
    return subprocess.run([str(TREC_EVAL), *options, "-q", "-m", "P.5", "-m", "map",
                           str(qrels), str(run)], capture_output=True, text=True)


@pytest.mark.parametrize("seed", range(6))
def test_raise_and_zero_are_trec_eval_10_without_and_with_c(tmp_path, seed):
    recs, truth, without = tables(20 + seed, n_users=30)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    run.write_text("".join(f"{u} Q0 {i} 0 {s} r\n" for u, i, s in recs.itertuples(index=False)))
    plain = trec_eval(qrels, run)
    assert plain.returncode == 4          # trec_eval.c, main: exit(4)
    with pytest.raises(ValueError):
        evaluate(recs, truth, ["precision@5", "map"], missing="raise", ties="item_desc")
    with pytest.raises(ValueError):
        evaluate(recs, truth, ["P_5", "map"], convention="trec_eval", missing="raise")
    # the preset itself leaves them out, as pytrec_eval does (its note says so)
    skipped, seen = caught(lambda: evaluate(recs, truth, ["P_5"], convention="trec_eval"))
    assert not seen and not without & set(skipped.index)
    complete = trec_eval(qrels, run, "-c")
    assert complete.returncode == 0
    values, means = {}, {}
    for line in complete.stdout.splitlines():
        measure, user, value = line.split()
        if user == "all":
            means[measure] = float(value)
        else:
            values[(measure, int(user))] = float(value)
    for call in (lambda: evaluate(recs, truth, ["precision@5", "map"]),
                 lambda: evaluate(recs, truth, ["P_5", "map"], convention="trec_eval",
                                  missing="zero")):
        ours, _ = caught(call)
        assert set(ours.index) == set(truth["user"])
        for user, row in ours.iterrows():
            assert row.iloc[0] == pytest.approx(values[("P_5", user)], abs=5e-5)
            assert row.iloc[1] == pytest.approx(values[("map", user)], abs=5e-5)
        # the means over every judged user, the missing ones as 0
        assert ours.iloc[:, 0].mean() == pytest.approx(means["P_5"], abs=5e-5)
        assert ours.iloc[:, 1].mean() == pytest.approx(means["map"], abs=5e-5)
