"""Reading: the columns evaluate needs, from pandas, Polars or Arrow tables.

The first step of the batch pipeline: the column checks (whose messages name
the keyword that fixes a missing column), Polars and Arrow tables read as
pandas Series of just those columns (:mod:`metrics_lib._frames`), the id
columns of both tables as comparable arrays of one kind, and the score (or
rank) and grade columns checked. Dask tables are recognised here and sent to
:mod:`metrics_lib.dask_support` by :func:`metrics_lib.evaluate`.
"""

from __future__ import annotations


import numpy as np

from .._frames import column_names, native_library, read_columns
from .._validation import check_column_names
from .._validation import (check_frame_columns, check_id_column, check_same_id_kind,
                           check_value_column, common_ints as _common_ints)


def _is_dask(frame) -> bool:
    module = type(frame).__module__ or ""
    return module.startswith(("dask.", "dask_expr"))


_TRUTH_HINT = ("pass relevance_col=None if every row of truth is a relevant item "
               "of grade 1")


def _column_keywords(user_col, item_col, score_col, rank_col, relevance_col,
                     intent_col=None):
    """The columns each table must hold, by the keyword that names each.

    A missing column's message then names the keyword that fixes it.
    """
    value = {"score_col": score_col} if rank_col is None else {"rank_col": rank_col}
    rec = {"user_col": user_col, "item_col": item_col, **value}
    truth = {"user_col": user_col, "item_col": item_col}
    if relevance_col is not None:
        truth["relevance_col"] = relevance_col
    if intent_col is not None:
        truth["intent_col"] = intent_col
    return rec, truth


def _read_native(recommendations, truth, user_col, item_col, score_col, rank_col,
                 relevance_col, intent_col=None):
    """Each Polars or Arrow table as a pandas frame of the columns evaluate reads."""
    value_col = score_col if rank_col is None else rank_col
    truth_cols = [user_col, item_col] + ([] if relevance_col is None
                                         else [relevance_col])
    truth_ids = [user_col, item_col] + ([] if intent_col is None else [intent_col])
    hint = None if relevance_col is None else _TRUTH_HINT
    rec_keywords, truth_keywords = _column_keywords(user_col, item_col, score_col,
                                                    rank_col, relevance_col, intent_col)
    # every column check before any data is read, in the pandas path's order
    for name, frame, columns, why in (("recommendations", recommendations, rec_keywords,
                                       None), ("truth", truth, truth_keywords, hint)):
        if native_library(frame) is not None:
            check_column_names(name, column_names(frame), columns, hint=why)
        elif not _is_dask(frame):
            check_frame_columns(name, frame, columns, hint=why)
    if native_library(recommendations) is not None:
        recommendations = read_columns("recommendations", recommendations,
                                       ids=[user_col, item_col], values=[value_col])
    if native_library(truth) is not None:
        truth = read_columns("truth", truth, ids=truth_ids, values=truth_cols[2:])
    return recommendations, truth


def _ids(column, rec_series, truth_series):
    """Kind and comparable value arrays of one id column of both tables."""
    rec_kind, rec = check_id_column("recommendations", rec_series)
    truth_kind, tru = check_id_column("truth", truth_series)
    # an empty object or float column (a table built from no rows) has no kind
    # of its own
    if rec.size == 0 and getattr(rec_series.dtype, "kind", "") in "Of":
        rec_kind, rec = truth_kind, tru[:0]
    elif tru.size == 0 and getattr(truth_series.dtype, "kind", "") in "Of":
        truth_kind, tru = rec_kind, rec[:0]
    check_same_id_kind(column, rec_kind, truth_kind)
    if rec_kind == "int":
        rec, tru = _common_ints(rec, tru)
    return rec_kind, rec, tru


def read_tables(recommendations, truth, options, *, user_col, item_col, score_col,
                rank_col, relevance_col):
    """The checked columns of both tables, as numpy arrays.

    Returns ``((user_kind, rec_users, truth_users), (item_kind, rec_items,
    truth_items), values, grades)``: ``values`` the scores (or ranks) and
    ``grades`` the judgements' grades (ones when ``relevance_col`` is None).
    """
    rec_value_col = score_col if rank_col is None else rank_col
    rec_keywords, truth_keywords = _column_keywords(user_col, item_col, score_col,
                                                    rank_col, relevance_col,
                                                    options.get("intent_col"))
    check_frame_columns("recommendations", recommendations, rec_keywords)
    check_frame_columns("truth", truth, truth_keywords,
                        hint=None if relevance_col is None else _TRUTH_HINT)
    users = _ids(user_col, recommendations[user_col], truth[user_col])
    items = _ids(item_col, recommendations[item_col], truth[item_col])
    # Integer scores and ranks stay integers: float64 would merge those above 2**53.
    values = check_value_column("recommendations", recommendations[rec_value_col],
                                exact_integers=True)
    if options["score_threshold"] is not None and rank_col is not None:
        raise ValueError("score_threshold compares scores; it cannot be used with "
                         "rank_col (pass the scores in score_col)")
    if relevance_col is None:
        grades = np.ones(len(truth), dtype=np.float64)
    else:
        # integer grades stay integers until each chunk takes its part:
        # no float64 copy of the whole column
        grades = check_grades(truth[relevance_col], options, integers_as_is=True)
    return users, items, values, grades


def check_grades(column, options, **keywords) -> np.ndarray:
    """The grade column, checked: >= 0 unless every metric asked for reads negative grades.

    A negative grade is trec_eval's "in the pool but unjudged"
    (``form_res_rels.c``); only the metrics that declare ``negative_grades``
    in the registry say what it does to them, so any other metric refuses it.
    """
    from ..ranking import registry

    if all(registry.get(kind).negative_grades for _, kind, _ in options["metrics"]):
        return check_value_column("truth", column, **keywords)
    try:
        return check_value_column("truth", column, minimum=0.0, **keywords)
    except ValueError as error:
        if "must be >= 0" not in str(error):
            raise
        readers = ", ".join(sorted(metric.display_name for metric in registry.metrics()
                                   if metric.negative_grades))
        raise ValueError(f"{error}; a negative grade (trec_eval's 'in the pool but "
                         f"unjudged') is read only by {readers}: ask for those alone, "
                         "or drop the rows with negative grades") from None
