"""The Dask path of :func:`metrics_lib.evaluate`: partition by user, then map.

Every metric of a user depends only on that user's rows. So both tables are
shuffled on the user column into the same number of partitions: Dask sends a
row to partition ``hash(user) % n``, the same function for both tables, so
partition ``i`` of the recommendations and partition ``i`` of the truth hold
all the rows of the same users. The pandas :func:`~metrics_lib.evaluate`
then runs on each pair of partitions, independently, wherever the scheduler
places it: threads of one process, a ``LocalCluster``, or the workers of a
real cluster. The per-user results need no further reduction; their mean is
one more (cheap) Dask reduction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._missing import report_missing
from ._validation import _as_python_id as _plain
from ._validation import check_frame_columns, check_same_id_kind
from .batch.pipeline import evaluate_frames
from .batch.reading import _TRUTH_HINT, _column_keywords, _ids
from .batch.users import _user_codes

__all__ = ["evaluate_dask"]


def _as_dask(frame, name):
    import dask.dataframe as dd

    if isinstance(frame, pd.DataFrame):
        import dask

        # Dask would turn object columns into strings (its "convert-string"
        # option): Python int ids would become text, and an empty table
        # without dtypes a table of strings. The pandas table stays as it is.
        with dask.config.set({"dataframe.convert-string": False}):
            return dd.from_pandas(frame, npartitions=1)
    if not hasattr(frame, "map_partitions") or not hasattr(frame, "shuffle"):
        raise TypeError(f"{name} must be a pandas or Dask DataFrame; got "
                        f"{type(frame).__name__}")
    return frame


# Helper columns added before the shuffle: the row's original position (so
# that each partition can restore the input order of a user's rows, which
# ties="input" and equal ranks depend on) and a hash of the user id written
# as text (so that equal ids of different dtypes, int32 and int64, int64 and
# uint64, reach the same partition without casting one table to the other's
# dtype).
_ROW, _HASH = "__metrics_lib_row__", "__metrics_lib_user_hash__"
# Rows per partition are counted in the low bits of the position.
_ROW_BITS = 40


def _tag(frame, user_col, partition_info=None):
    number = partition_info["number"] if partition_info else 0
    if len(frame) >= 1 << _ROW_BITS:  # pragma: no cover - a trillion rows
        raise ValueError("a partition holds too many rows to number them")
    users = frame[user_col]
    if isinstance(users.dtype, pd.CategoricalDtype):
        users = pd.Series(users.cat.categories.take(users.cat.codes.to_numpy()),
                          index=users.index)
    values = users.to_numpy()
    if values.dtype.kind in "iub":  # vectorised, and exact for every width
        text = values.astype(str)
    else:  # missing ids get a hash too ("nan", "<NA>"): evaluate refuses them later
        text = np.array([str(user) for user in values.tolist()], dtype=str)
    text = pd.Series(text, index=frame.index, dtype=object)
    return frame.assign(**{
        _ROW: (np.int64(number) << _ROW_BITS) + np.arange(len(frame), dtype=np.int64),
        _HASH: pd.util.hash_pandas_object(text, index=False).to_numpy()})


def _untag(frame):
    frame = frame.sort_values(_ROW, kind="stable")
    return frame.drop(columns=[_ROW, _HASH])


def _partition(recs, truth, options, columns, index_dtype=None):
    result = evaluate_frames(_untag(recs), _untag(truth), options, **columns)
    if index_dtype is not None:
        # every partition must give the same index dtype, or Dask's concat
        # would turn int64 and uint64 ids into (inexact) float64
        result.index = result.index.astype(index_dtype)
    return result


def _int_dtype(dtype):
    if isinstance(dtype, pd.CategoricalDtype):
        dtype = dtype.categories.dtype
    if getattr(dtype, "kind", "O") not in "iu":
        return None
    numpy_dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype.numpy_dtype)
    return np.dtype(np.uint64) if numpy_dtype == np.uint64 else np.dtype(np.int64)


def _index_dtype(rec_dtype, truth_dtype):
    """Result index dtype for integer user ids, decided by the dtypes alone."""
    a, b = _int_dtype(rec_dtype), _int_dtype(truth_dtype)
    if a is None or b is None:
        return None
    return a if a == b else np.dtype(object)  # int64 with uint64: exact Python ints


def _meta_kind(dtype):
    """Id kind a dtype announces (None: object, decided by the values later)."""
    if isinstance(dtype, pd.CategoricalDtype):
        return _meta_kind(dtype.categories.dtype)
    kind = getattr(dtype, "kind", "O")
    if kind in "iu":
        return "int"
    if kind == "b":
        return "bool"
    if pd.api.types.is_string_dtype(dtype) and kind != "O":
        return "str"
    if isinstance(dtype, pd.StringDtype):
        return "str"
    return None


def _report_missing(recs, judged, user_col, policy):
    """Count the judged users without recommendations (one pass over the ids)."""
    import dask


    rec_users, truth_users = dask.compute(recs[user_col].drop_duplicates(),
                                          judged[user_col].drop_duplicates())
    try:
        _, rec, tru = _ids(user_col, rec_users, truth_users)
    except (TypeError, ValueError):
        return  # bad ids: every partition refuses them, with the row, when computed
    # drop_duplicates per partition may leave repeats across partitions
    rec, tru = pd.unique(rec), pd.unique(tru)
    unseen = tru[_user_codes(pd.Index(rec), tru) < 0]
    if unseen.size:
        report_missing(policy, unseen.size, tru.size, _plain(unseen[0]))


def evaluate_dask(recommendations, truth, options, *, user_col, item_col,
                  score_col, rank_col, relevance_col, npartitions=None):
    """Lazy per-user metrics of two Dask DataFrames (see :func:`evaluate`).

    Returns a Dask DataFrame with one row per user and one column per metric,
    partitioned by user (rows are not globally sorted: call
    ``.compute().sort_index()`` to compare with the pandas result).
    """
    import dask.dataframe as dd

    recs = _as_dask(recommendations, "recommendations")
    judged = _as_dask(truth, "truth")
    value_col = score_col if rank_col is None else rank_col
    # The checks that need data run inside every partition; the column
    # checks can run now, on the (empty) metadata frames.
    rec_keywords, truth_keywords = _column_keywords(user_col, item_col, score_col,
                                                    rank_col, relevance_col,
                                                    options.get("intent_col"))
    check_frame_columns("recommendations", recs._meta, rec_keywords)
    check_frame_columns("truth", judged._meta, truth_keywords,
                        hint=None if relevance_col is None else _TRUTH_HINT)
    for column in (user_col, item_col):
        kinds = _meta_kind(recs._meta[column].dtype), _meta_kind(judged._meta[column].dtype)
        if None not in kinds:  # object columns are checked on their values
            check_same_id_kind(column, *kinds)
    if options["missing"] in ("warn", "raise"):
        # once for the whole call, on the client: the partitions score such
        # users 0 silently (a partition's count is not the call's, and the
        # warnings of a cluster's workers never reach the caller)
        _report_missing(recs, judged, user_col, options["missing"])
        options = dict(options, missing="zero")
    n = npartitions or max(recs.npartitions, judged.npartitions)
    # Never cast one table's ids to the other's dtype: both are shuffled on a
    # hash of the ids' text, which equal ids share whatever their dtype.
    recs = recs.map_partitions(_tag, user_col, meta=_tag(recs._meta, user_col))
    judged = judged.map_partitions(_tag, user_col, meta=_tag(judged._meta, user_col))
    recs = recs.shuffle(on=_HASH, npartitions=n)
    judged = judged.shuffle(on=_HASH, npartitions=n)
    columns = {"user_col": user_col, "item_col": item_col, "score_col": score_col,
               "rank_col": rank_col, "relevance_col": relevance_col}
    index_dtype = _index_dtype(recs._meta[user_col].dtype, judged._meta[user_col].dtype)
    meta = _partition(recs._meta, judged._meta, options, columns, index_dtype)
    return dd.map_partitions(_partition, recs, judged, options, columns, index_dtype,
                             meta=meta, align_dataframes=False)
