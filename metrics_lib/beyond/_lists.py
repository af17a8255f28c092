"""Reading the lists of lists that every beyond-accuracy metric takes (private:
only this package reads them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from .._validation import show, check_recommended, check_same_kind, ids_kind


def _check_outer(recommended_lists, name: str = "recommended_lists"):
    """Refuse things that are not one entry per user."""
    if isinstance(recommended_lists, np.ndarray):
        if recommended_lists.ndim != 2:
            raise ValueError(
                f"{name} as an array must be 2-D (one row per user); got shape "
                f"{recommended_lists.shape}"
            )
        if recommended_lists.shape[0] == 0:
            raise ValueError(f"{name} is empty: there is no user")
        return recommended_lists
    if isinstance(recommended_lists, (str, bytes, Mapping)) or not isinstance(
            recommended_lists, Iterable):
        raise TypeError(
            f"{name} must be a sequence with one ranked list per user; got "
            f"{type(recommended_lists).__name__}"
        )
    return recommended_lists


def _iter_lists(recommended_lists, k, name: str = "recommended_lists"):
    """Yield ``(user, tuple_of_ids)`` for every user, cut at ``k``.

    Lists are validated one at a time and not kept, so that memory stays
    bounded by one list when the caller streams.
    """
    outer = _check_outer(recommended_lists, name)
    n_users = 0
    first = kind = None  # every list's ids of one kind, as in one evaluate column
    for user, items in enumerate(outer):
        try:
            items = check_recommended(items, name=f"{name}[{user}]")
            if items and kind is None:
                first, kind = user, ids_kind(name, items)
            elif items:
                check_same_kind(f"{name}[{first}]", kind, f"{name}[{user}]", items)
        except (TypeError, ValueError) as error:
            raise type(error)(f"user {user}: {error}") from None
        if k is not None:
            items = items[:k]
        if not items:
            raise ValueError(
                f"user {user}: {name}[{user}] is empty; every user needs at least "
                "one recommended item"
            )
        n_users += 1
        yield user, items
    if n_users == 0:
        raise ValueError(f"{name} is empty: there is no user")


def _int_matrix(recommended_lists, k):
    """A 2-D integer array of lists, cut at ``k``, checked for duplicates.

    Returns ``None`` when the input is not an integer array (then the
    generic, list-by-list path is used).
    """
    if not (isinstance(recommended_lists, np.ndarray)
            and recommended_lists.ndim == 2
            and np.issubdtype(recommended_lists.dtype, np.integer)):
        return None
    matrix = recommended_lists if k is None else recommended_lists[:, :k]
    if matrix.shape[0] == 0:
        raise ValueError("recommended_lists is empty: there is no user")
    if matrix.shape[1] == 0:
        raise ValueError("recommended_lists has empty rows; every user needs at "
                         "least one recommended item")
    ordered = np.sort(matrix, axis=1)
    repeated = ordered[:, 1:] == ordered[:, :-1]
    if repeated.any():
        user = int(np.flatnonzero(repeated.any(axis=1))[0])
        raise ValueError(
            f"user {user}: recommended_lists[{user}] contains an id twice; a "
            "ranking lists each item once"
        )
    return matrix


def _check_per_user(per_user) -> bool:
    if not isinstance(per_user, (bool, np.bool_)):
        raise TypeError(f"per_user must be True or False; got {show(per_user)}")
    return bool(per_user)
