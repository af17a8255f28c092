"""Polars and Arrow tables in and out of :func:`metrics_lib.evaluate`.

:func:`~metrics_lib.evaluate` works on a few numpy columns: the user and
item ids, the scores (or ranks) and the grades. For a Polars DataFrame or
LazyFrame or a pyarrow Table, this module reads exactly those columns, through
narwhals (a dependency-free compatibility layer over dataframe libraries), and
wraps each in a pandas Series that shares its numpy buffer, so that the
pandas path runs on them unchanged: the same checks, hence the same results
and the same error messages (the row named in a message is the row's
position, as in a pandas table with the default index). The whole table is
never converted to pandas, other columns are never read (a LazyFrame computes
only the columns selected), and nothing is converted through float64: an
integer column with nulls becomes a pandas masked integer array, which the
checks refuse at its first null, naming the table, the column and the row.

The result is then built in the library of the ``recommendations`` table: a
Polars DataFrame (also for a LazyFrame: the values are computed) or a pyarrow
Table, with the user ids as the first column.

Polars, pyarrow and narwhals are imported only when such a table arrives; a
pandas or Dask user never imports them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import show

__all__ = ["column_names", "native_library", "read_columns", "result_as"]


def native_library(frame) -> str | None:
    """``"polars"`` or ``"pyarrow"`` for a table read here, else ``None``.

    Decided by the class's module, so that neither library is imported to
    answer (a pandas user may have neither installed).
    """
    root = (type(frame).__module__ or "").split(".")[0]
    if root == "polars" and type(frame).__name__ in ("DataFrame", "LazyFrame"):
        return "polars"
    if root == "pyarrow" and type(frame).__name__ == "Table":
        return "pyarrow"
    return None


def _narwhals():
    try:
        import narwhals.stable.v2 as nw
    except ImportError:  # pragma: no cover - narwhals is a dependency
        raise ImportError("metrics_lib reads Polars and Arrow tables through "
                          "narwhals: pip install narwhals") from None
    return nw


def column_names(frame) -> list:
    """Column names of a native table, duplicates included, without reading data."""
    if type(frame).__name__ == "LazyFrame":
        return list(frame.collect_schema().names())
    if type(frame).__name__ == "Table":  # pyarrow allows a name twice
        return list(frame.column_names)
    return list(frame.columns)


def _masked(values: np.ndarray, mask: np.ndarray):
    """A pandas masked array of ``values`` with ``mask`` marking the nulls."""
    if values.dtype.kind in "iu":
        return pd.arrays.IntegerArray(values, mask)
    if values.dtype.kind == "f":
        return pd.arrays.FloatingArray(values, mask)
    return pd.arrays.BooleanArray(values, mask)


def _numpy(series) -> np.ndarray:
    """A narwhals Series as numpy, by its library's own ``to_numpy``.

    Polars' and pyarrow's ``to_numpy`` share the buffer of a numeric column
    without nulls; going through ``__array__`` (``np.asarray``) copied
    Polars strings twice (Polars 2.1).
    """
    return np.asarray(series.to_native().to_numpy())


def _as_series(nw, series, role: str, table: str, column) -> pd.Series:
    """One narwhals column as a pandas Series the pandas checks accept.

    Numbers and booleans keep their numpy dtype (int8 ... uint64, float32,
    float64, bool), zero-copy where the library allows; nulls become a pandas
    mask. Strings, categoricals and enums become their values in an object
    array, with ``None`` for nulls, which is how the pandas path reads an
    object or string column too. ``role`` is ``"id"`` or ``"value"``.
    """
    dtype = series.dtype
    nulls = series.null_count()
    if nulls == len(series) and dtype == nw.Unknown:
        # Arrow's null type (an empty or all-None object column converted by
        # pa.Table.from_pandas), Polars' Null: no values, hence no dtype to
        # check; as the pandas path reads such a column (an empty object
        # column takes the other table's id kind; a None is a missing id)
        return pd.Series(np.full(len(series), None, dtype=object), name=column,
                         copy=False)
    numeric = dtype.is_integer() or dtype.is_float() or dtype == nw.Boolean
    if dtype in (nw.Int128, nw.UInt128):
        # numpy has no 128-bit integers: Python ints, compared exactly
        values = np.empty(len(series), dtype=object)
        values[:] = series.to_list()
        return pd.Series(values, name=column, dtype=object, copy=False)
    if role == "id" and dtype == nw.Decimal:
        # whole decimals are integer ids (evaluate's Arrow results hold
        # decimal128(20, 0) user ids): Python ints, compared exactly
        values = np.empty(len(series), dtype=object)
        values[:] = series.to_list()
        if all(value is None or value == value.to_integral_value() for value in values):
            values[:] = [None if value is None else int(value) for value in values]
        # else Decimals with a fraction: refused as float ids by check_id_column
        return pd.Series(values, name=column, dtype=object, copy=False)
    if role == "value" and dtype == nw.Decimal:
        # pandas reads an Arrow decimal score as float64 too
        series, dtype, numeric = series.cast(nw.Float64), nw.Float64, True
    if numeric:
        if nulls:
            mask = _numpy(series.is_null()).astype(bool, copy=False)
            zero = False if dtype == nw.Boolean else 0
            values = _numpy(series.fill_null(zero))
            return pd.Series(_masked(values, mask), name=column, copy=False)
        return pd.Series(_numpy(series), name=column, copy=False)
    if role == "value":
        raise TypeError(f"{table} column {show(column)} must be numeric; it has dtype "
                        f"{_native_dtype(series)}")
    if dtype in (nw.String, nw.Categorical, nw.Enum, nw.Object):
        values = _numpy(series)
        if nulls:
            # Arrow decodes a null dictionary index as some category's value:
            # the mask, not the decoded values, says where the nulls are
            mask = _numpy(series.is_null()).astype(bool, copy=False)
            values = values.astype(object)
            values[mask] = None
        return pd.Series(values, name=column, dtype=object, copy=False)
    raise TypeError(f"{table} column {show(column)} has dtype {_native_dtype(series)}; "
                    "ids must be integers or strings")


def _native_dtype(series) -> str:
    """The column's type as its library writes it: ``Polars List(Int64)``, ``pyarrow string``."""
    native = series.to_native()
    if (type(native).__module__ or "").startswith("polars"):
        return f"Polars {native.dtype}"
    return f"pyarrow {getattr(native, 'type', series.dtype)}"


def read_columns(table: str, frame, *, ids, values) -> pd.DataFrame:
    """The columns ``ids`` and ``values`` of a Polars or Arrow table, in pandas.

    The caller has checked that each column is there once
    (``check_column_names`` on :func:`column_names`). Returns a pandas
    DataFrame of just those columns, with a default index (row positions),
    whose numeric columns share the table's buffers when the library allows
    it.
    """
    nw = _narwhals()
    ids, values = list(ids), list(values)
    columns = ids + values
    wrapped = nw.from_native(frame)
    selected = wrapped.select(*dict.fromkeys(columns))
    if isinstance(selected, nw.LazyFrame):  # compute the selected columns only
        selected = selected.collect()
    data = {}
    for column in dict.fromkeys(columns):
        role = "id" if column in ids else "value"
        data[column] = _as_series(nw, selected.get_column(column), role, table, column)
    frame = pd.DataFrame(data, copy=False)
    # the messages of the pandas checks name the table's own dtypes
    # (_validation.dtype_name), not those of the pandas copies
    frame.attrs["native_dtypes"] = {column: _native_dtype(selected.get_column(column))
                                    for column in data}
    return frame


def _id_array(index: pd.Index) -> np.ndarray:
    values = index.to_numpy()
    return values.astype(object) if values.dtype.kind not in "iubO" else values


def _string_type(frame, user_col):
    """The Arrow string type of the input's user column (string if none)."""
    import pyarrow as pa

    field = frame.schema.field(user_col)
    kind = field.type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    is_view = getattr(pa.types, "is_string_view", None)  # pyarrow 16 and later
    if pa.types.is_large_string(kind) or (is_view is not None and is_view(kind)):
        return kind
    return pa.string()


def result_as(library: str, like, result: pd.DataFrame, user_col) -> object:
    """The pandas ``result`` of evaluate as a table of ``library``.

    One row per user, in the pandas result's order; the user ids first, in
    a column named ``user_col``, then one float64 column per metric. Integer
    ids stay exact: int64 or uint64, and when one table's ids need both
    (negative ids and ids of 2**63 or more), Polars Int128 or Arrow
    decimal128(20, 0), never float64.
    """
    ids = _id_array(result.index)
    metric_columns = [(str(name), result[name].to_numpy(dtype=np.float64))
                      for name in result.columns]
    is_text = ids.dtype == object and all(isinstance(v, str) for v in ids.tolist())
    if library == "polars":
        import polars as pl

        if is_text:
            user = pl.Series(user_col, ids.tolist(), dtype=pl.String)
        elif ids.dtype == object:  # Python ints beyond one 64-bit dtype
            if not hasattr(pl, "Int128"):  # older Polars (1.0.0 has none)
                raise TypeError(f"the user ids need both negative values and values "
                                f"of 2**63 or more, which only Polars' Int128 holds; "
                                f"this Polars ({pl.__version__}) has no Int128: "
                                "update Polars, or give both tables the same "
                                "integer dtype")
            user = pl.Series(user_col, ids.tolist(), dtype=pl.Int128)
        else:
            user = pl.Series(user_col, ids)
        return pl.DataFrame([user] + [pl.Series(name, column)
                                      for name, column in metric_columns])
    import pyarrow as pa

    if is_text:
        user = pa.array(ids.tolist(), type=_string_type(like, user_col))
    elif ids.dtype == object:  # -2**63 ... 2**64 - 1 fit in 20 decimal digits
        from decimal import Decimal

        user = pa.array([Decimal(v) for v in ids.tolist()], type=pa.decimal128(20, 0))
    else:
        user = pa.array(ids)
    return pa.table([user] + [pa.array(column) for _, column in metric_columns],
                    names=[str(user_col)] + [name for name, _ in metric_columns])
