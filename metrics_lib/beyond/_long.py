"""Reading the long tables (one row per user and item) that the batch
calibration, exposure and popularity functions take (private).

A pandas DataFrame is read directly; a Polars DataFrame or LazyFrame or a
pyarrow Table through :func:`metrics_lib._frames.read_columns`, so that the
same checks (and messages) apply to every library. Ids are turned into
integer codes shared by all tables of one call, which is what lets the maths
run on whole columns (``np.bincount``) with no loop over users.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._frames import column_names, native_library, read_columns, result_as
from .._validation import check_column_names, check_id_column, check_same_kind, show
from .._validation.columns import check_value_column


def read_table(name: str, frame, *, ids: dict, values: dict | None = None) -> dict:
    """The columns of ``frame`` as numpy arrays, keyed by keyword.

    ``ids`` and ``values`` map a keyword (``"user_col"``) to a column name;
    a value column may be ``None`` (not used). Id columns come back as
    ``(kind, array)`` from :func:`check_id_column`, value columns as finite
    float64 arrays.
    """
    values = {key: col for key, col in (values or {}).items() if col is not None}
    wanted = {**ids, **values}
    library = native_library(frame)
    if library is not None:
        check_column_names(name, column_names(frame), wanted)
        frame = read_columns(name, frame, ids=list(ids.values()),
                             values=list(values.values()))
    elif isinstance(frame, pd.DataFrame):
        check_column_names(name, list(frame.columns), wanted)
    else:
        raise TypeError(f"{name} must be a pandas or Polars DataFrame, a Polars "
                        f"LazyFrame or a pyarrow Table; got {type(frame).__name__}")
    if len(frame) == 0:
        raise ValueError(f"{name} has no rows")
    out = {}
    for key, col in ids.items():
        out[key] = check_id_column(name, frame[col])
    for key, col in values.items():
        out[key] = check_value_column(name, frame[col])
    return out


def shared_codes(*named) -> list:
    """Integer codes for ids of one kind spread over several tables.

    ``named`` are ``(where, (kind, values))`` pairs; the ids of all of them
    are coded together, so that equal ids get equal codes across tables.
    Returns the list of code arrays followed by the array of distinct ids.
    """
    kind, first = None, None
    for where, (its_kind, values) in named:
        if len(values):
            kind = check_same_kind(first or where, kind, where, its_kind)
            first = first or where
    arrays = [values for _, (_, values) in named]
    if len({a.dtype for a in arrays}) > 1:
        # int64 beside uint64 (or an empty float column): numpy would widen
        # to float64 and merge ids above 2**53, so compare as Python objects
        arrays = [a.astype(object) for a in arrays]
    codes, uniques = pd.factorize(np.concatenate(arrays))
    bounds = np.cumsum([0] + [len(a) for a in arrays])
    return [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:])] + [np.asarray(uniques)]


def check_unique_pairs(name: str, first: np.ndarray, second: np.ndarray,
                       what: str) -> None:
    """Refuse a (first, second) pair listed twice, naming its row."""
    pairs = pd.DataFrame({"a": first, "b": second})
    repeated = pairs.duplicated().to_numpy()
    if repeated.any():
        row = int(np.flatnonzero(repeated)[0])
        raise ValueError(f"{name} lists {what} twice (row {row}); each may appear once")


def check_ranks(name: str, ranks: np.ndarray) -> np.ndarray:
    """1-based integer positions."""
    if not np.all(ranks == np.floor(ranks)) or (ranks < 1).any():
        row = int(np.flatnonzero((ranks != np.floor(ranks)) | (ranks < 1))[0])
        raise ValueError(f"{name}: ranks must be whole numbers from 1 (the top); "
                         f"row {row} holds {show(ranks[row])}")
    return ranks


def as_result(frame, users: np.ndarray, columns: dict, user_col):
    """Per-user values as a pandas DataFrame indexed by user, or as a table of
    the input's library (Polars, pyarrow) with the users as first column."""
    result = pd.DataFrame(columns, index=pd.Index(users, name=user_col))
    library = native_library(frame)
    if library is None:
        return result
    return result_as(library, frame, result, user_col)
