"""Helpers the test files share: pandas tables in another backend, and back; ids of every kind.

Not a test file (pytest collects ``test_*.py`` only); the test files import it
as they import each other, by module name from this folder.
"""

import numpy as np
import pandas as pd
import pytest


def convert(frame: pd.DataFrame, backend: str, npartitions: int = 2):
    """A pandas table in ``backend``, with the library's own converter.

    ``backend`` is "pandas", "arrow", "polars", "polars-lazy" or "dask"; a
    test whose backend is not installed is skipped.
    """
    if backend == "pandas":
        return frame
    if backend == "dask":
        dd = pytest.importorskip("dask.dataframe")
        return dd.from_pandas(frame, npartitions=npartitions)
    if backend == "arrow":
        pa = pytest.importorskip("pyarrow")
        return pa.Table.from_pandas(frame, preserve_index=False)
    pl = pytest.importorskip("polars")
    native = pl.from_pandas(frame)
    return native.lazy() if backend == "polars-lazy" else native


def in_library(library: str, recs: pd.DataFrame, truth: pd.DataFrame, *local: pd.DataFrame):
    """``recs``, ``truth`` and the ``local`` tables (a history, ...) in ``library``.

    "polars" (the truth lazy), "pyarrow" or "dask" (3 and 2 partitions); the
    ``local`` tables stay pandas with Dask, as ``evaluate`` reads them locally.
    """
    if library == "dask":
        return (convert(recs, "dask", 3), convert(truth, "dask", 2), *local)
    if library == "polars":
        return (convert(recs, "polars"), convert(truth, "polars-lazy"),
                *(convert(frame, "polars") for frame in local))
    return tuple(convert(frame, "arrow") for frame in (recs, truth, *local))


def as_frame(result) -> pd.DataFrame:
    """A result of ``evaluate`` on any backend as a pandas frame indexed by user."""
    result = result.compute() if hasattr(result, "compute") else result
    result = result.to_pandas() if hasattr(result, "to_pandas") else result
    return result.set_index("user") if "user" in result.columns else result


def ids_of_kind(values, kind):
    """Ids of one kind for the integers ``values`` (equal integers, equal ids)."""
    values = np.asarray(values, dtype=np.int64)
    if kind == "int64":
        return pd.Series(values)
    if kind == "negative":
        return pd.Series(-values - 3)
    if kind == "wide":  # keys too spread out for a table of every key
        return pd.Series(values * 1_000_000_007 - 2**40)
    if kind == "uint64":  # past 2**63
        return pd.Series(values.astype(np.uint64) + np.uint64(2**63 + 11))
    if kind == "str":
        return pd.Series(np.array([f"id{v}" for v in values], dtype=object))
    if kind == "Int64":
        return pd.Series(values, dtype="Int64")
    if kind == "pyarrow":
        return pd.Series([f"p{v}" for v in values], dtype="string[pyarrow]")
    raise AssertionError(kind)
