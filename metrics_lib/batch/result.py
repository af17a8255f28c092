"""Result: the scored chunks as one table of metric values per user.

Duplicate rows found by the join are reported here (the first in user
order), the ``empty``, ``no_hit``, ``missing`` and ``unjudged`` policies
choose the users and their values, and the columns become a pandas table
indexed by user id in sorted order.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._passes import neighbours_where
from .._validation import _as_python_id as _plain
from .._validation import show
from ..ranking import registry
from .chunks import _code_of_row, _concat


_MAX_UNCOPIED_COLUMNS = 16  # above: one copied block (see _result_frame)


def _result_frame(columns: dict, ids: pd.Index, user_col: str) -> pd.DataFrame:
    """The result table: one column per metric, indexed by user id in sorted order.

    Up to ``_MAX_UNCOPIED_COLUMNS`` metrics, the value arrays become the
    table's columns without a copy (one block each): a table of a million
    users would otherwise be copied into one fresh block, and copied again
    when it is sorted. Arrays that overlap in memory are copied so that no two
    columns share their values. More metrics than that get one copied block,
    so that users can still add columns without pandas' warning about
    fragmented tables. Integer ids already in increasing order (the usual
    case) skip the sort.
    """
    # pandas warns when a column is added to a table of over 100 blocks: tables
    # of many metrics get one copied block, as before, so that users can add
    # columns; a copy is cheap next to computing that many metrics
    copy = len(columns) > _MAX_UNCOPIED_COLUMNS
    if not copy:  # the columns keep their arrays: no two may overlap
        kept = []
        for name, values in columns.items():
            if any(np.may_share_memory(values, other) for other in kept):
                values = columns[name] = values.copy()
            kept.append(values)
    frame = pd.DataFrame(columns, index=ids.rename(user_col), copy=copy)
    frame.columns.name = None
    keys = ids.to_numpy()
    if keys.dtype.kind in "iu" and not neighbours_where(keys, np.greater).size:
        return frame
    try:
        frame = frame.iloc[np.argsort(keys, kind="stable")]
    except TypeError:  # ids of mixed types: keep first-seen order
        pass
    return frame


def raise_duplicates(parts, lengths, rec_keys, truth_keys, truth_runs, decode_item,
                     user_ids) -> None:
    """A ``ValueError`` for the first (user, item) pair listed or judged twice."""
    for part in parts:  # the first duplicate in user order, as one pass finds
        if part["dup_row"] >= 0:
            dup_row = part["dup_row"]
            block = int(np.searchsorted(np.cumsum(lengths), dup_row, side="right"))
            raise ValueError(
                f"recommendations lists item {show(_plain(decode_item(rec_keys[dup_row])))} "
                f"twice for user {show(_plain(user_ids[block]))}; each (user, item) pair "
                "may appear once (drop_duplicates before evaluating)")
    for part in parts:
        if part["dup_truth"] >= 0:
            dup_truth = part["dup_truth"]
            raise ValueError(
                f"truth judges item {show(_plain(decode_item(truth_keys[dup_truth])))} twice "
                f"for user {show(_plain(user_ids[_code_of_row(truth_runs, dup_truth)]))}; "
                "each (user, "
                "item) pair may appear once")


def result_table(parts, options, n_blocks, user_ids, user_col) -> pd.DataFrame:
    """The users to report and their values, over all chunks at once."""
    selected = _concat([part["judged"] for part in parts])
    if options["missing"] == "skip":
        selected[n_blocks:] = False
    if options["unjudged"] == "empty":  # users only in recommendations
        selected[:n_blocks] = True
    every_user = bool(selected.all())
    columns = {}
    for name, kind, k in options["metrics"]:
        result = _concat([part["values"][name][0] for part in parts])
        metric = registry.get(kind)
        empty_users = (None if not metric.can_be_empty
                       else _concat([part["values"][name][1] for part in parts]))
        if empty_users is not None and options["no_hit"] == "nan":
            result[(result == 0.0) & ~empty_users] = np.nan
        if empty_users is not None:
            empty_users &= selected
            if empty_users.any():
                if options["empty"] == "raise":
                    user = _plain(user_ids[int(np.argmax(empty_users))])
                    raise ValueError(f"{name}: user {show(user)} has "
                                     f"{metric.empty_reason}, and "
                                     "empty='raise' was requested")
                result[empty_users] = {"zero": 0.0, "one": 1.0}.get(options["empty"],
                                                                     np.nan)
        columns[name] = result if every_user else result[selected]
    return _result_frame(columns, user_ids if every_user else user_ids[selected],
                         user_col)
