"""Checks of numeric arrays: reals, integers in a range, probabilities,
binary labels, per-user arrays and their alignment.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from .ids import _type_kind, check_same_kind, id_array, kind_words
from .lists import id_list
from .messages import show


def check_real_array(name: str, values, *, min_size: int = 1) -> np.ndarray:
    """A 1-D float array copy with finite values only."""
    if isinstance(values, (str, bytes, Mapping)) or values is None:
        raise TypeError(f"{name} must be a 1-D sequence of numbers; got "
                        f"{type(values).__name__}")
    if np.isscalar(values):
        raise TypeError(f"{name} must be a 1-D sequence of numbers; got the "
                        f"scalar {show(values)}")
    try:
        array = np.array(values, dtype=float)  # np.array copies: inputs stay untouched
    except (TypeError, ValueError):
        raise TypeError(f"{name} must contain only numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}")
    if array.size < min_size:
        raise ValueError(f"{name} is empty; at least {min_size} value(s) needed")
    if not np.all(np.isfinite(array)):
        bad = int(np.flatnonzero(~np.isfinite(array))[0])
        # a Series is read by label (a user id): name the label, not the position
        series = (type(values).__module__ or "").startswith("pandas") \
            and hasattr(values, "index")
        at = f"index label {show(values.index[bad])}" if series else f"index {bad}"
        raise ValueError(f"{name} contains a non-finite value {show(array[bad])} at {at}")
    return array


def check_same_length(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{name_a} and {name_b} must have the same length; got {a.shape[0]} "
            f"and {b.shape[0]}"
        )


def check_user_index(name: str, users) -> None:
    """A pandas Index of user ids: no missing id, no user twice."""
    if users.hasnans:
        raise ValueError(f"{name} has a missing user id in its index")
    if users.has_duplicates:
        raise ValueError(f"{name} holds user {show(users[users.duplicated()].tolist()[0])} "
                         "more than once; per-user values need one row per user")


def check_same_users(name_a: str, users_a, name_b: str, users_b) -> np.ndarray:
    """Positions in ``users_b`` of each of ``users_a``; both must hold the same users.

    Both are pandas Indexes already checked by :func:`check_user_index`.
    Integer ids are matched exactly (an int64 and a uint64 index included).
    """
    where = users_b.get_indexer(users_a)
    only_a = users_a[where < 0]
    only_b = users_b[users_a.get_indexer(users_b) < 0]
    if len(only_a) or len(only_b):
        # users of two kinds ("1" and 1) never match: say so rather than list them
        check_same_kind(f"the index of {name_a}", id_list(users_a),
                        f"the index of {name_b}", id_list(users_b))
        raise ValueError(
            f"{name_a} and {name_b} must hold the same users; {len(only_a)} user(s) "
            f"of {name_a} are not in {name_b} {show(only_a[:3].tolist())} and "
            f"{len(only_b)} user(s) of {name_b} are not in {name_a} "
            f"{show(only_b[:3].tolist())}; keep the common users of both first")
    return where


def check_binary_labels(name: str, values) -> np.ndarray:
    """Binary labels (0/1 or False/True) as an int array copy."""
    array = check_real_array(name, values)
    if not np.all((array == 0) | (array == 1)):
        bad = array[(array != 0) & (array != 1)][0]
        raise ValueError(f"{name} must contain only 0/1 (or False/True) labels; "
                         f"found {show(bad)}")
    return array.astype(np.int64)


def check_real_matrix(name: str, values, *, ndim: int = 2) -> np.ndarray:
    """A float array copy of exactly ``ndim`` dimensions, finite, not empty."""
    if isinstance(values, (str, bytes, Mapping)) or values is None or np.isscalar(values):
        raise TypeError(f"{name} must be a {ndim}-D array of numbers; got "
                        f"{type(values).__name__}")
    try:
        array = np.array(values, dtype=float)  # a copy: inputs stay untouched
    except (TypeError, ValueError):
        raise TypeError(f"{name} must contain only numbers") from None
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional; got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty; got shape {array.shape}")
    if not np.all(np.isfinite(array)):
        bad = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise ValueError(f"{name} contains a non-finite value {show(array[bad])} at "
                         f"index {bad}")
    return array


def check_probabilities(name: str, array: np.ndarray, *, positive: bool = False) -> np.ndarray:
    """Every entry of a float array in [0, 1] (in (0, 1] with ``positive``)."""
    low_bad = array <= 0 if positive else array < 0
    bad = low_bad | (array > 1)
    if bad.any():
        at = tuple(int(i) for i in np.argwhere(bad)[0])
        at_text = at[0] if len(at) == 1 else at
        need = "in (0, 1]" if positive else "in [0, 1]"
        raise ValueError(f"{name} must be probabilities {need}; got {show(float(array[at]))} at "
                         f"index {at_text}")
    return array


def check_distribution_rows(name: str, array: np.ndarray, *, axis: int = -1,
                            atol: float = 1e-6) -> np.ndarray:
    """Probabilities that sum to 1 along ``axis`` (each row a distribution)."""
    check_probabilities(name, array)
    sums = array.sum(axis=axis)
    off = np.abs(sums - 1.0) > atol
    if off.any():
        at = tuple(int(i) for i in np.argwhere(off)[0])
        over = "its last axis" if axis == -1 else f"axis {axis}"
        raise ValueError(f"{name} must sum to 1 over {over} (each a probability "
                         f"distribution); entry {at[0] if len(at) == 1 else at} "
                         f"sums to {show(float(sums[at]))}")
    return array


_PLURALS = {"str": "strings", "bool": "booleans", "float": "floats", "bytes": "bytes"}


def check_int_array(name: str, values, *, low: int = 0, high: int | None = None,
                    ndim: int = 1) -> np.ndarray:
    """Integer indices in ``[low, high)`` as an int64 array copy.

    Whole floats are read as the integers they equal; indices of 2**63 and
    more (which int64 cannot hold) are refused rather than wrapped.
    """
    if isinstance(values, (str, bytes, Mapping)) or values is None or np.isscalar(values):
        raise TypeError(f"{name} must be an array of integers; got {type(values).__name__}")
    # a list is read item by item (as objects): numpy would make [True, 2]
    # the integers [1, 2] and a nullable column's missing value a NaN
    array = np.array(values, dtype=None if isinstance(values, np.ndarray) else object)
    if array.size == 0:
        raise ValueError(f"{name} is empty")
    if array.dtype == object and {_type_kind(type(value)) for value
                                  in array.ravel().tolist()} == {"int", "float"}:
        # indices written partly as floats ([1.5, 1, 0]) are read as numpy
        # reads them: whole floats are the integers they equal
        try:
            array = array.astype(np.float64)
        except OverflowError:
            raise ValueError(f"{name} holds an integer too large for any index") from None
    # the kinds of ids (id_array): uint64 and Python ints stay exact until the
    # range check, so that 2**64 + 1 is not read as 1
    kind, array = id_array(name, array) if array.dtype.kind != "f" else ("float", array)
    if kind == "float":
        whole = np.isfinite(array) & (array == np.round(array))
        if not np.all(whole):
            at = tuple(int(i) for i in np.argwhere(~whole)[0])
            raise TypeError(f"{name} must contain integers; got {show(array[at])} at "
                            f"index {at[0] if len(at) == 1 else at}")
    elif kind != "int":
        raise TypeError(f"{name} must contain integers; got "
                        f"{_PLURALS.get(kind, kind_words(kind) + ' values')}")
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional; got shape {array.shape}")
    out = (array < low) | (array >= (2**63 if high is None else high))
    if np.any(out):
        at = tuple(int(i) for i in np.argwhere(out)[0])
        bound = high if high is not None else "2**63"
        raise ValueError(f"{name} must lie in [{low}, {bound}); got {show(array[at])} "
                         f"at index {at[0] if len(at) == 1 else at}")
    return array.astype(np.int64)


def check_scores(scores, n: int, name: str = "scores") -> np.ndarray:
    """Scores parallel to a list of ``n`` items: a 1-D array copy, finite.

    Integer scores stay int64 (float64 would merge those above 2**53);
    every other real dtype becomes float64, which keeps float32 scores that
    are equal equal (and unequal ones unequal).
    """
    if isinstance(scores, (str, bytes, Mapping)) or np.isscalar(scores):
        raise TypeError(f"{name} must be a 1-D sequence of numbers, one per "
                        f"recommended item; got {type(scores).__name__}")
    array = np.array(scores)  # a copy: the input is never modified
    if array.dtype.kind == "O" and array.size and all(
            isinstance(value, (int, np.integer)) and not isinstance(value, bool)
            for value in array.ravel().tolist()):
        try:
            array = np.array(scores, dtype=np.int64)
        except OverflowError:
            raise ValueError(f"{name} holds integers beyond the int64 range; "
                             "pass them as floats or rescale them") from None
    if array.dtype.kind == "b":
        raise TypeError(f"{name} must be numbers, not booleans")
    if array.dtype.kind in "USVcmM" or (array.dtype.kind == "O" and not all(
            isinstance(value, numbers.Real) and not isinstance(value, bool)
            for value in array.ravel().tolist())):
        raise TypeError(f"{name} must contain only real numbers (no text, "
                        "booleans or complex numbers)")
    if array.dtype.kind == "u":
        if array.size and array.max() >= 2**63:
            raise ValueError(f"{name} holds integers beyond the int64 range")
        array = array.astype(np.int64)
    elif array.dtype.kind == "i":
        array = array.astype(np.int64)
    else:
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must contain only real numbers") from None
    if array.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional; got shape {array.shape}")
    if array.size != n:
        raise ValueError(f"{name} must have one score per recommended item: "
                         f"got {array.size} scores for {n} items")
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        bad = int(np.flatnonzero(~np.isfinite(array))[0])
        raise ValueError(f"{name} contains a non-finite value {show(array[bad])} at "
                         f"index {bad}")
    return array
