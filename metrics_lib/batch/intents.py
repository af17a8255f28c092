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
    order = _sorted_rows(user_code, item_code, intent_code, n_items, n_intents)
    # each column in (user, item, intent) order, taken once
    s_user, s_item, s_intent = user_code[order], item_code[order], intent_code[order]
    same_pair = ~(_first_in_run(s_user) | _first_in_run(s_item))
    repeated = same_pair & ~_first_in_run(s_intent)
    if repeated.any():
        row = int(order[np.flatnonzero(repeated)[0]])
        raise ValueError(
            f"truth judges item {show(items[row])} of user {show(users[row])} for "
            f"intent {show(intents[row])} more than once (rows with equal user, item "
            f"and {intent_series.name!s}); keep one judgement each")
    group = np.cumsum(~same_pair) - 1
    relevant = np.asarray(grades)[order] >= level
    n_groups = int(group[-1]) + 1 if group.size else 0
    ptr = np.zeros(n_groups + 1, dtype=np.int64)
    np.cumsum(np.bincount(group[relevant], minlength=n_groups), out=ptr[1:])
    first = order[~same_pair]
    codes = s_intent[relevant]
    per_user = _intents_per_user(s_user[relevant], codes, n_users, n_intents)
    keys = np.arange(1, n_groups + 1, dtype=np.float64)
    return (users[first], items[first], keys, ptr, codes,
            per_user[user_code[first]].astype(np.float64))


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
