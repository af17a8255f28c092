"""metrics_lib.evaluate on Dask DataFrames equals the pandas path."""

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from metrics_lib import evaluate  # noqa: E402

from test_evaluate import METRICS, random_tables  # noqa: E402


def same(dask_result, pandas_result):
    got = dask_result.compute(scheduler="sync").sort_index()
    assert list(got.index) == list(pandas_result.index)
    assert list(got.columns) == list(pandas_result.columns)
    np.testing.assert_allclose(got.to_numpy(), pandas_result.to_numpy(),
                               rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.parametrize("string_ids", [False, True])
@pytest.mark.parametrize("kwargs", [{}, {"missing": "skip", "empty": "nan",
                                         "ties": "item_asc", "gain": "exponential"}])
def test_dask_equals_pandas(string_ids, kwargs):
    recs, truth = random_tables(21, string_ids=string_ids, n_users=120)
    expected = evaluate(recs, truth, METRICS, **kwargs)
    lazy = evaluate(dd.from_pandas(recs, npartitions=4),
                    dd.from_pandas(truth, npartitions=3), METRICS, **kwargs)
    assert isinstance(lazy, dd.DataFrame)
    same(lazy, expected)
    np.testing.assert_allclose(lazy.mean().compute(scheduler="sync").to_numpy(),
                               expected.mean().to_numpy(), rtol=1e-12)


def test_mixed_pandas_and_dask_inputs():
    recs, truth = random_tables(4, n_users=40)
    expected = evaluate(recs, truth, ["ndcg@3", "map"])
    same(evaluate(dd.from_pandas(recs, npartitions=2), truth, ["ndcg@3", "map"]),
         expected)


def test_user_id_width_differs_between_tables():
    recs, truth = random_tables(8, n_users=40)
    truth = truth.astype({"user": "int32"})
    expected = evaluate(recs, truth, ["mrr"])
    same(evaluate(dd.from_pandas(recs, npartitions=3),
                  dd.from_pandas(truth, npartitions=2), ["mrr"]), expected)


def test_errors_surface_at_compute_or_earlier():
    recs, truth = random_tables(2, n_users=30)
    with pytest.raises(ValueError, match="no column 'score'"):
        evaluate(dd.from_pandas(recs.drop(columns="score"), npartitions=2), truth, "mrr")
    doubled = dd.from_pandas(pd.concat([recs, recs.iloc[:1]]), npartitions=2)
    with pytest.raises(ValueError, match="twice for user"):
        evaluate(doubled, truth, "mrr").compute(scheduler="sync")


def test_on_a_local_distributed_cluster():
    distributed = pytest.importorskip("distributed")
    recs, truth = random_tables(9, n_users=80)
    expected = evaluate(recs, truth, METRICS)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        lazy = evaluate(dd.from_pandas(recs, npartitions=4),
                        dd.from_pandas(truth, npartitions=2), METRICS)
        got = lazy.compute().sort_index()
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=1e-12)
    assert list(got.index) == list(expected.index)
