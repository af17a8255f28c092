"""Intents: a truth with one row per (user, item, intent), folded for the kernels.

``evaluate(..., intent_col="intent")`` reads judgements by intent (subtopic),
as ndeval's qrels hold them (``topic subtopic docno judgment``). The join of
the batch pipeline matches each recommended row with at most one judgement,
so the truth is folded into one row per (user, item) whose grade is a
1-based key into the item's relevant intents (grade at or above
``relevance_level``), kept as compressed rows in ``options``
(``intent_ptr``, ``intent_codes``) for the kernels of
:mod:`metrics_lib.ranking.intents`. The keys of each user increase with the
item id, the order in which ndeval breaks ties in its ideal list.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._kernels import _first_in_run
from .._validation import check_id_column, show
from ..ranking import registry


def check_intent_metrics(metrics, intent_col) -> str | None:
    """``intent_col`` and the metrics asked for: the intent metrics need it, the others refuse it."""
    if intent_col is not None and not isinstance(intent_col, str):
        raise TypeError(f"intent_col must be a column name (str) or None; got "
                        f"{type(intent_col).__name__} {show(intent_col)}")
    needs = [name for name, kind, _ in metrics if registry.get(kind).intents]
    others = [name for name, kind, _ in metrics if not registry.get(kind).intents]
    if needs and intent_col is None:
        raise ValueError(f"metric {show(needs[0])} reads the intent of each judgement: "
                         "pass intent_col=, the truth column of intent (subtopic) ids, "
                         "one truth row per (user, item, intent)")
    if intent_col is not None and others:
        raise ValueError(f"intent_col={show(intent_col)} makes truth hold one row per "
                         f"intent, which metric {show(others[0])} does not read: "
                         "evaluate it in a call without intent_col (on a truth with "
                         "one row per user and item)")
    return intent_col


def fold_intents(intent_series, users, items, grades, level):
    """Fold the truth into one row per (user, item); return its arrays and the intents.

    Returns ``(users, items, keys, intent_ptr, intent_codes, intent_count)``:
    the first three are the folded truth (``keys`` are floats 1, 2, ... in
    place of the grades); the relevant intents of key ``g`` are
    ``intent_codes[intent_ptr[g - 1]:intent_ptr[g]]``, in increasing order,
    and ``intent_count[g - 1]`` is the number of intents of that row's user
    with a relevant item (``S``).
    """
    _, intents = check_id_column("truth", intent_series, needs="an intent id")
    user_code, n_users = _codes(users, dense=True)
    item_code, n_items = _codes(items, sort=True)  # key order = item order
    intent_code, n_intents = _codes(intents, dense=True)
    relevant = np.asarray(grades) >= level
    sizes = n_users, n_items, n_intents
    folded = _fold_by_table(user_code, item_code, intent_code, relevant, sizes)
    if folded is None:  # a large table of flags, or a repeated judgement to name
        folded = _fold_by_sort(user_code, item_code, intent_code, relevant, sizes,
                               (users, items, intents, intent_series.name))
    first, ptr, codes, count = folded
    keys = np.arange(1, ptr.size, dtype=np.float64)
    return users[first], items[first], keys, ptr, codes, count


def _fold_by_sort(user_code, item_code, intent_code, relevant, sizes, shown):
    """:func:`_fold_by_table`'s result by sorting every row by (user, item, intent).

    ``sizes``: the numbers of user, item and intent codes; ``shown``: the
    users, items and intents as given and the intent column's name, for the
    message that names a repeated judgement.
    """
    n_users, n_items, n_intents = sizes
    order = _sorted_rows(user_code, item_code, intent_code, n_items, n_intents)
    # each column in (user, item, intent) order, taken once
    s_user, s_item, s_intent = user_code[order], item_code[order], intent_code[order]
    same_pair = ~(_first_in_run(s_user) | _first_in_run(s_item))
    repeated = same_pair & ~_first_in_run(s_intent)
    if repeated.any():
        users, items, intents, column = shown
        row = int(order[np.flatnonzero(repeated)[0]])
        raise ValueError(
            f"truth judges item {show(items[row])} of user {show(users[row])} for "
            f"intent {show(intents[row])} more than once (rows with equal user, item "
            f"and {column!s}); keep one judgement each")
    group = np.cumsum(~same_pair) - 1
    relevant = relevant[order]
    n_groups = int(group[-1]) + 1 if group.size else 0
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(group[relevant], minlength=n_groups), out=ptr[1:])
    first = order[~same_pair]
    codes = s_intent[relevant]
    per_user = _intents_per_user(s_user[relevant], codes, n_users, n_intents)
    return first, ptr, codes, per_user[user_code[first]].astype(np.float64)


# the fold counts through a table of (pair, intent) flags while it holds at most
# _TABLE_FACTOR cells per truth row (+ _TABLE_SLACK); else it sorts every row
_TABLE_FACTOR, _TABLE_SLACK = 4, 4096


def _fold_by_table(user_code, item_code, intent_code, relevant, sizes):
    """The truth's (user, item) pairs in order, their relevant intents and S.

    Returns ``(first, ptr, codes, count)``: ``first`` is a row of each pair,
    pairs in (user, item) order; the relevant intent codes of pair ``g`` are
    ``codes[ptr[g]:ptr[g + 1]]``, increasing, and ``count[g]`` is ``S`` of
    its user. Only the pairs are put in order (usually without sorting rows:
    a pair's rows tend to come together, and qrels in order); the intents
    of each pair are ordered, and repeated judgements found, with a table of
    one cell per (pair, intent). Returns None when that table would be large
    or a judgement is repeated.
    """
    n_users, n_items, n_intents = sizes
    n_rows = user_code.size
    if not n_rows or n_users * max(n_items, 1) >= 2**62:
        return None
    pair = user_code * n_items + item_code
    starts, order = _pair_runs(pair)
    if starts is None:  # a pair's rows apart: sort the rows by pair
        rows = np.argsort(pair, kind="stable")
        starts, _ = _pair_runs(pair[rows])
        intent_code, relevant = intent_code[rows], relevant[rows]
        first, rank = rows[starts], None
    elif order is None:
        first, rank = starts, None
    else:
        first, rank = starts[order], np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
    n_pairs = starts.size
    if n_pairs * n_intents > _TABLE_FACTOR * n_rows + _TABLE_SLACK:
        return None
    # the table's cell of each row: its pair (the rank of its run), its intent
    cell = np.repeat(np.arange(n_pairs) if rank is None else rank,
                     np.diff(np.r_[starts, n_rows]))
    cell *= n_intents
    cell += intent_code
    # 0: not judged, 1: judged not relevant, 2: relevant
    mark = np.zeros(n_pairs * n_intents, dtype=np.uint8)
    mark[cell] = relevant.astype(np.uint8) + 1
    if np.count_nonzero(mark) != n_rows:
        return None  # a repeated judgement: the sort names it
    mark = mark == 2
    pair_of, codes = np.divmod(np.flatnonzero(mark), n_intents)
    ptr = np.zeros(n_pairs + 1, dtype=np.int64)
    np.cumsum(np.bincount(pair_of, minlength=n_pairs), out=ptr[1:])
    # S: the intents relevant for some pair of the user (pairs in user order)
    pair_user = user_code[first]
    user_start = np.flatnonzero(_first_in_run(pair_user))
    per_user = np.logical_or.reduceat(mark.reshape(n_pairs, max(n_intents, 1)),
                                      user_start, axis=0).sum(axis=1)
    return first, ptr, codes, np.repeat(per_user.astype(np.float64),
                                        np.diff(np.r_[user_start, n_pairs]))


def _pair_runs(pair):
    """First row of each run of equal pairs, and the runs' order by pair.

    Returns ``(starts, order)``, ``order`` None when the runs are in order
    already, or ``(None, None)`` when a pair has rows in two runs or the
    runs are too many (fewer than two rows each on average) to be worth
    sorting apart from the rows.
    """
    starts = np.flatnonzero(_first_in_run(pair))
    values = pair[starts]
    if values.size < 2 or np.all(values[1:] > values[:-1]):
        return starts, None
    if 2 * starts.size > pair.size:
        return None, None
    order = np.argsort(values, kind="stable")
    values = values[order]
    if not np.all(values[1:] > values[:-1]):
        return None, None
    return starts, order


def _intents_per_user(user_code, intent_code, n_users, n_intents):
    """S of each user: its distinct intents among the relevant rows given."""
    n_intents = max(n_intents, 1)
    if n_users * n_intents <= 4 * user_code.size + 4096:
        # a table of (user, intent) flags is no larger than the rows: no sort
        seen = np.zeros(n_users * n_intents, dtype=bool)
        seen[user_code * n_intents + intent_code] = True
        return seen.reshape(n_users, n_intents).sum(axis=1)
    pairs = np.unique(user_code * n_intents + intent_code)
    return np.bincount(pairs // n_intents, minlength=n_users)


def _codes(values, sort=False, dense=False):
    """Integer codes of an id array and their count (an upper bound of the codes).

    Integer ids in a narrow range are their offset from the smallest, which
    keeps their order and needs no hashing; ``dense`` asks for a range of
    at most about twice the rows (the codes then size tables). Other ids are
    hashed (``sort``: codes in the ids' order).
    """
    if values.dtype.kind in "iu" and values.size:
        low, high = int(values.min()), int(values.max())
        limit = 2 * values.size + 1024 if dense else 2**40
        if high - low < limit:
            offset = values - values.dtype.type(low)  # exact: no wrap-around
            return offset.astype(np.int64, copy=False), high - low + 1
    codes, uniques = pd.factorize(values, sort=sort)
    return codes.astype(np.int64), len(uniques)


def _sorted_rows(user_code, item_code, intent_code, n_items, n_intents):
    """Row order by (user, item, intent): one int64 key when it fits, else lexsort."""
    n_users = int(user_code.max(initial=0)) + 1
    if n_users * max(n_items, 1) * max(n_intents, 1) < 2**62:
        key = (user_code * n_items + item_code) * n_intents + intent_code
        if key.size < 2 or np.all(key[1:] > key[:-1]):
            return np.arange(key.size)  # sorted already (qrels usually are)
        return np.argsort(key, kind="stable")
    return np.lexsort((intent_code, item_code, user_code))
