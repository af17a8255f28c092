"""Checks of one ranked list and its truth (the per-list metrics' inputs):
``recommended``, ``relevant`` with its grades, and lists of them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Mapping, Set

import numpy as np

from .ids import check_same_kind, ids_kind
from .messages import show


def _check_hashable(name: str, item, position: int) -> None:
    if not isinstance(item, Hashable):
        raise TypeError(
            f"{name} contains an unhashable id {show(item)} of type "
            f"{type(item).__name__} at position {position}; ids must be hashable "
            "(str, int, tuple, ...)"
        )
    # numpy arrays and lists inside a list pass isinstance(Hashable) for some
    # types only at hash time, so try it.
    try:
        hash(item)
    except TypeError:
        raise TypeError(
            f"{name} contains an unhashable id {show(item)} at position {position}"
        ) from None


def _as_python_id(item):
    """An id as a plain Python value: numpy and Arrow scalars unwrapped.

    numpy scalars hash like their Python twins, but ids are kept plain; an
    Arrow scalar (an item of ``list(pyarrow_array)``) equals no Python id.
    """
    if type(item) is int or type(item) is str:  # the common case, checked first
        return item
    if isinstance(item, np.generic):
        return item.item()
    if (type(item).__module__ or "").startswith("pyarrow") and hasattr(item, "as_py"):
        return item.as_py()
    return item


def check_recommended(recommended, name: str = "recommended", *,
                      with_kind: bool = False):
    """Validate a ranked list and return it as a tuple.

    A ranked list must have an order, so sets and mappings are refused, its
    ids must be of one kind and none missing (:func:`ids_kind`), and an id
    may appear only once (trec_eval refuses duplicate documents too). With
    ``with_kind=True`` the result is ``(tuple, kind)``, the kind for
    :func:`check_relevant` (``recommended_kind=``).
    """
    if isinstance(recommended, (str, bytes)):
        raise TypeError(
            f"{name} must be a sequence of item ids in rank order, not a "
            f"{type(recommended).__name__}; wrap a single id in a list"
        )
    if isinstance(recommended, (Set, Mapping)):
        raise TypeError(
            f"{name} must be an ordered sequence (list, tuple, array); a "
            f"{type(recommended).__name__} has no rank order"
        )
    if isinstance(recommended, np.ndarray):
        if recommended.ndim != 1:
            raise ValueError(
                f"{name} must be one-dimensional; got an array of shape "
                f"{recommended.shape}"
            )
        items = recommended.tolist()
    elif _is_arrow(recommended):
        items = recommended.to_pylist()  # Arrow scalars equal no Python id
    elif isinstance(recommended, Iterable):
        items = [_as_python_id(item) for item in recommended]
    else:
        raise TypeError(
            f"{name} must be a sequence of item ids; got {type(recommended).__name__}"
        )
    # the kind first: True and 1.0 are refused as other kinds than 1, not
    # reported as duplicates of it
    try:
        kind = ids_kind(name, items)
    except TypeError:  # an unhashable id is the clearer message
        for position, item in enumerate(items, start=1):
            _check_hashable(name, item, position)
        raise
    seen: dict = {}
    for position, item in enumerate(items, start=1):
        try:
            first = seen.setdefault(item, position)
        except TypeError:
            _check_hashable(name, item, position)
            raise
        if first != position:
            raise ValueError(
                f"{name} contains the id {show(item)} twice, at ranks {first} "
                f"and {position}; a ranking lists each item once"
            )
    return (tuple(seen), kind) if with_kind else tuple(seen)


def _is_arrow(values) -> bool:
    """A pyarrow Array or ChunkedArray (whose items are Arrow scalars)."""
    return (type(values).__module__ or "").startswith("pyarrow") \
        and hasattr(values, "to_pylist")


def id_list(values) -> list:
    """A collection of ids as a list of plain Python values (:func:`_as_python_id`)."""
    if _is_arrow(values):
        return values.to_pylist()
    return [_as_python_id(value) for value in values]


def check_grade(name: str, item, grade, *, allow_negative: bool = False) -> float:
    if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, numbers.Real):
        raise TypeError(
            f"{name} must map ids to numeric grades; the grade of {show(item)} is "
            f"{type(grade).__name__} {show(grade)}"
        )
    value = float(grade)
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{name} has a non-finite grade {show(grade)} for {show(item)}")
    if value < 0 and not allow_negative:
        raise ValueError(
            f"{name} has a negative grade {show(grade)} for {show(item)}; grades must be >= 0"
        )
    return value


def _series_grades(relevant, name: str, allow_negative: bool) -> dict:
    """A pandas Series read as id (index) -> grade (values), or refused."""
    import pandas as pd

    dtype = relevant.dtype
    if pd.api.types.is_bool_dtype(dtype):
        raise TypeError(
            f"{name} is a boolean Series; pass the ids it marks, e.g. "
            f"list({name}[{name}].index), or a Series of grades indexed by id"
        )
    if not pd.api.types.is_numeric_dtype(dtype):
        raise TypeError(
            f"{name} is a Series of {dtype} values; a Series is read as id (index) -> "
            f"grade (values), so its values must be numbers. For a list of ids, pass "
            f"{name}.tolist()"
        )
    if not relevant.index.is_unique:
        duplicated = relevant.index[relevant.index.duplicated()][0]
        raise ValueError(f"{name} (a Series of grades) has the id {show(duplicated)} twice "
                         "in its index")
    if relevant.isna().any():
        at = relevant.index[int(np.argmax(relevant.isna().to_numpy()))]
        raise ValueError(f"{name} has a missing grade for {show(at)}")
    return check_relevant(dict(zip(relevant.index.tolist(), relevant.tolist())), name,
                          allow_negative=allow_negative)


def check_relevant(relevant, name: str = "relevant", *,
                   allow_negative: bool = False, recommended: tuple | None = None,
                   recommended_name: str = "recommended",
                   recommended_kind: str | None = None) -> dict:
    """Validate relevance judgements and return a new ``{id: grade}`` dict.

    The ids must be of one kind, none missing (:func:`ids_kind`), and of the
    kind of ``recommended`` (named ``recommended_name`` in messages) when it
    is given; ``recommended_kind``, when the caller has it from
    :func:`check_recommended`, saves finding that kind again.
    """
    grades = _relevant_grades(relevant, name, allow_negative, recommended)
    if recommended is None:
        ids_kind(name, grades)
    else:
        check_same_kind(recommended_name, recommended_kind or recommended, name, grades)
    return grades


def _relevant_grades(relevant, name: str, allow_negative: bool, recommended) -> dict:
    """:func:`check_relevant` without the kind check.

    ``relevant`` is either a mapping of id to a non-negative grade (any
    finite grade with ``allow_negative=True``), a pandas Series read the same
    way (index -> grade), or a collection of ids (each then has grade 1).

    A scikit-learn-style label vector (0/1 or True/False per recommended
    item) is refused: booleans never are ids, and a 0/1 list as long as
    ``recommended`` that repeats a value cannot be a set of ids. A 0/1 list
    without repeats ([0, 1]) is ambiguous and read as the ids 0 and 1.
    """
    if relevant is None:
        raise TypeError(
            f"{name} must be a collection of relevant ids or a mapping of id to "
            "grade; got None (use an empty set for 'nothing is relevant')"
        )
    if isinstance(relevant, (str, bytes)):
        raise TypeError(
            f"{name} must be a collection of ids, not a {type(relevant).__name__}; "
            f"{show(relevant)} would be read letter by letter. Use [{show(relevant)}]"
        )
    module = type(relevant).__module__ or ""
    if module.startswith("pandas"):
        import pandas as pd

        if isinstance(relevant, pd.Series):
            return _series_grades(relevant, name, allow_negative)
        if isinstance(relevant, pd.DataFrame):
            raise TypeError(f"{name} is a DataFrame; pass a mapping of id -> grade (or a "
                            "Series indexed by id), or use metrics_lib.evaluate for tables")
    if isinstance(relevant, Mapping):
        grades = {}
        for item, grade in relevant.items():
            _check_hashable(name, item, len(grades) + 1)
            grades[_as_python_id(item)] = check_grade(name, item, grade,
                                                     allow_negative=allow_negative)
        return grades
    if isinstance(relevant, np.ndarray) and relevant.ndim != 1:
        raise ValueError(
            f"{name} must be one-dimensional; got an array of shape {relevant.shape}"
        )
    if _is_arrow(relevant):
        relevant = relevant.to_pylist()  # Arrow scalars equal no Python id
    if not isinstance(relevant, Iterable):
        raise TypeError(
            f"{name} must be a collection of relevant ids or a mapping of id to "
            f"grade; got {type(relevant).__name__} {show(relevant)}"
        )
    items = relevant.tolist() if isinstance(relevant, np.ndarray) else list(relevant)
    _refuse_label_vector(items, name, recommended)
    grades = {}
    for position, item in enumerate(items, start=1):
        _check_hashable(name, item, position)
        grades[_as_python_id(item)] = 1.0
    return grades


def _refuse_label_vector(items: list, name: str, recommended) -> None:
    """Refuse 0/1 or True/False per recommended item given as ``relevant``."""
    what = (f"{name} must be the relevant item ids (or a mapping id -> grade), not "
            "one label per recommended item")
    fix = ("; turn labels into ids with [item for item, label in zip(recommended, "
           "labels) if label]")
    if any(isinstance(item, (bool, np.bool_)) for item in items):
        raise TypeError(f"{what}: it holds booleans{fix}")
    if recommended is None or len(items) != len(recommended) or len(items) < 2:
        return
    if all(isinstance(item, numbers.Integral) and item in (0, 1) for item in items) \
            and len(set(items)) < len(items):
        raise ValueError(f"{what}: it is a 0/1 vector as long as recommended{fix}")


def check_parallel_lists(recommended_lists, relevant_lists) -> tuple[list, list]:
    """Validate the many-users form: two equally long sequences of lists."""
    for name, value in (("recommended_lists", recommended_lists),
                        ("relevant_lists", relevant_lists)):
        if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
            raise TypeError(
                f"{name} must be a sequence with one entry per user; got "
                f"{type(value).__name__}"
            )
    recs, rels = list(recommended_lists), list(relevant_lists)
    if len(recs) != len(rels):
        raise ValueError(
            f"recommended_lists and relevant_lists must have one entry per user: "
            f"got {len(recs)} and {len(rels)} entries"
        )
    if not recs:
        raise ValueError("recommended_lists is empty: there is no user to average over")
    return recs, rels
