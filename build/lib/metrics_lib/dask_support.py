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

import pandas as pd

__all__ = ["evaluate_dask"]


def _as_dask(frame, name):
    import dask.dataframe as dd

    if isinstance(frame, pd.DataFrame):
        return dd.from_pandas(frame, npartitions=1)
    if not hasattr(frame, "map_partitions") or not hasattr(frame, "shuffle"):
        raise TypeError(f"{name} must be a pandas or Dask DataFrame; got "
                        f"{type(frame).__name__}")
    return frame


def _partition(recs, truth, options, columns, index_dtype):
    from .evaluate import _evaluate_frames

    result = _evaluate_frames(recs, truth, options, **columns)
    result.index = result.index.astype(index_dtype)
    return result


def evaluate_dask(recommendations, truth, options, *, user_col, item_col,
                  score_col, rank_col, relevance_col, npartitions=None):
    """Lazy per-user metrics of two Dask DataFrames (see :func:`evaluate`).

    Returns a Dask DataFrame with one row per user and one column per metric,
    partitioned by user (rows are not globally sorted: call
    ``.compute().sort_index()`` to compare with the pandas result).
    """
    import dask.dataframe as dd

    from ._validation import check_frame_columns

    recs = _as_dask(recommendations, "recommendations")
    judged = _as_dask(truth, "truth")
    value_col = score_col if rank_col is None else rank_col
    # The checks that need data run inside every partition; the column
    # checks can run now, on the (empty) metadata frames.
    check_frame_columns("recommendations", recs._meta, [user_col, item_col, value_col])
    check_frame_columns("truth", judged._meta,
                        [user_col, item_col]
                        + ([] if relevance_col is None else [relevance_col]),
                        hint=None if relevance_col is None else
                        "pass relevance_col=None if every row of truth is a "
                        "relevant item of grade 1")
    rec_dtype, truth_dtype = recs[user_col].dtype, judged[user_col].dtype
    if rec_dtype != truth_dtype:
        # Equal ids must hash equally: give both tables one id type.
        try:
            judged = judged.astype({user_col: rec_dtype})
        except (TypeError, ValueError):
            raise TypeError(f"column {user_col!r} holds {rec_dtype} ids in "
                            f"recommendations but {truth_dtype} ids in truth") from None
    n = npartitions or max(recs.npartitions, judged.npartitions)
    recs = recs.shuffle(on=user_col, npartitions=n)
    judged = judged.shuffle(on=user_col, npartitions=n)
    columns = {"user_col": user_col, "item_col": item_col, "score_col": score_col,
               "rank_col": rank_col, "relevance_col": relevance_col}
    index_dtype = rec_dtype
    meta = pd.DataFrame({name: pd.Series(dtype="float64")
                         for name, _, _ in options["metrics"]},
                        index=pd.Index([], dtype=index_dtype, name=user_col))
    return dd.map_partitions(_partition, recs, judged, options, columns, index_dtype,
                             meta=meta, align_dataframes=False)
