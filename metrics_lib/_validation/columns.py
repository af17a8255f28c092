"""Checks of tables: the named columns exist, and a value column (scores,
grades) holds numbers.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

import numpy as np

from .._passes import min_max
from .ids import _numpy_dtype, dtype_name
from .messages import show


def check_frame_columns(name: str, frame, columns, *, hint: str | None = None) -> None:
    """``frame`` must be a pandas DataFrame holding every one of ``columns`` once.

    ``columns`` as in :func:`check_column_names`.
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas, Polars or Dask DataFrame, a "
                        f"Polars LazyFrame or a pyarrow Table; got "
                        f"{type(frame).__name__}")
    check_column_names(name, list(frame.columns), columns, hint=hint)


# What each column keyword of evaluate names, for the message of a missing column.
_COLUMN_ROLES = {"user_col": "user ids", "item_col": "item ids", "score_col": "scores",
                 "rank_col": "ranks", "relevance_col": "grades",
                 "intent_col": "intent (subtopic) ids"}


def check_column_names(name: str, names: list, columns, *, hint: str | None = None
                       ) -> None:
    """A table whose column names are ``names`` must hold every one of ``columns`` once.

    Shared by pandas, Dask, Polars and Arrow tables (metrics_lib._frames), so
    that a missing or doubled column gets the same message from each.
    ``columns`` is a list of names, or a mapping ``{keyword: column}`` (such
    as ``{"user_col": "user"}``), whose keyword a missing column's message
    names as the fix; ``hint`` is a further way out.
    """
    keywords = dict(columns) if isinstance(columns, Mapping) \
        else {f"#{i}": column for i, column in enumerate(columns)}
    columns = list(keywords.values())
    for column in columns:
        if not isinstance(column, str) and not isinstance(column, Hashable):
            raise TypeError(f"column names must be hashable; got {show(column)}")
    missing = [(keyword, c) for keyword, c in keywords.items() if c not in names]
    if missing:
        keyword, column = missing[0]
        message = (f"{name} has no column {show(column)} (its columns are "
                   f"{show(names)})")
        if keyword in _COLUMN_ROLES:
            message += (f"; pass {keyword}= the name of the column of "
                        f"{_COLUMN_ROLES[keyword]}")
            if hint:
                message += f", or {hint}"
        elif hint:
            message += f"; {hint}"
        raise ValueError(message)
    for column in columns:
        # frame[column] would be a DataFrame, and which copy is meant is a guess
        count = names.count(column)
        if count > 1:
            raise ValueError(f"{name} has {count} columns named {show(column)}; rename "
                             "or drop the extra ones so that the column is unambiguous")


def check_value_column(name: str, series, *, minimum: float | None = None,
                       exact_integers: bool = False,
                       integers_as_is: bool = False) -> np.ndarray:
    """A numeric score/rank/grade column as a finite array.

    float64, or, with ``exact_integers=True`` and an integer column, int64
    with the same order as the values (float64 would merge integers above
    2**53; uint64 values are shifted by -2**63, which keeps their order).
    With ``integers_as_is=True`` a numpy integer column (not uint64) comes
    back as it is, without a float64 copy; the caller converts the parts it
    uses (to float64, which gives the values a whole-column conversion
    would).
    """
    import pandas as pd

    dtype = series.dtype
    if len(series) == 0 and dtype == object:  # an empty table built from no rows
        return np.zeros(0, dtype=np.float64)
    if (pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype)):
        raise TypeError(f"{name} column {show(series.name)} must be numeric; it has "
                        f"dtype {dtype_name(series)}")
    if (integers_as_is and isinstance(dtype, np.dtype)
            and (dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8))):
        values = series.to_numpy()  # integers are finite; no copy
        if minimum is not None and len(values) and values.min() < minimum:
            at = int(np.argmin(values))
            raise ValueError(f"{name} column {show(series.name)} has the value "
                             f"{show(np.float64(values[at]))} at row {show(series.index[at])}; "
                             f"values must be >= {minimum:g}")
        return values
    if exact_integers and getattr(dtype, "kind", "f") in "iu":
        if not isinstance(dtype, np.dtype) and len(series):
            mask = series.isna().to_numpy()
            if mask.any():
                at = int(np.argmax(mask))
                raise ValueError(f"{name} column {show(series.name)} has a missing value "
                                 f"at row {show(series.index[at])}")
        if dtype.kind == "u" and _numpy_dtype(dtype).itemsize == 8:
            values = series.to_numpy(dtype=np.uint64)
            return (values ^ np.uint64(1 << 63)).view(np.int64)
        return series.to_numpy(dtype=np.int64)
    if dtype == np.float64:
        values = series.to_numpy()  # no copy; nothing below writes to it
    else:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if not len(values):
        return values
    # min and max are finite only if every value is (NaN propagates): one pass
    # over the column instead of a boolean array its size
    low, high = min_max(values)
    if not (np.isfinite(low) and np.isfinite(high)):
        at = int(np.argmin(np.isfinite(values)))
        raise ValueError(f"{name} column {show(series.name)} has a non-finite value "
                         f"{show(values[at])} at row {show(series.index[at])}")
    if minimum is not None and low < minimum:
        at = int(np.argmin(values))
        if values[at] < minimum:
            raise ValueError(f"{name} column {show(series.name)} has the value "
                             f"{show(values[at])} at row {show(series.index[at])}; values "
                             f"must be >= {minimum:g}")
    return values
