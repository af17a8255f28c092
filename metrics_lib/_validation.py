"""Input checks shared by every metric.

The metric modules call these helpers first and then do arithmetic on clean,
immutable copies, so that the maths never has to guess what a caller meant.
Every failure is a ``TypeError`` (wrong kind of object) or a ``ValueError``
(right kind, impossible value) whose message names the argument.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Hashable, Iterable, Mapping, Sequence, Set

import numpy as np

EMPTY_POLICIES = ("zero", "nan", "raise")


def check_choice(name: str, value, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise raise."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}; got {value!r}")
    return value


def check_k(k, name: str = "k", allow_none: bool = True) -> int | None:
    """Validate a cut-off: a positive integer, or ``None`` for 'no cut-off'."""
    if k is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be a positive integer; got None")
    # bool is an int subclass; k=True is almost certainly a bug, not k=1.
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(
            f"{name} must be a positive integer or None; got {type(k).__name__} {k!r}"
        )
    if k <= 0:
        raise ValueError(f"{name} must be a positive integer; got {k}")
    return int(k)


def _check_hashable(name: str, item, position: int) -> None:
    if not isinstance(item, Hashable):
        raise TypeError(
            f"{name} contains an unhashable id {item!r} of type "
            f"{type(item).__name__} at position {position}; ids must be hashable "
            "(str, int, tuple, ...)"
        )
    # numpy arrays and lists inside a list pass isinstance(Hashable) for some
    # types only at hash time, so try it.
    try:
        hash(item)
    except TypeError:
        raise TypeError(
            f"{name} contains an unhashable id {item!r} at position {position}"
        ) from None


def _as_python_id(item):
    """numpy scalars hash like their Python twins, but keep ids plain."""
    return item.item() if isinstance(item, np.generic) else item


def check_recommended(recommended, name: str = "recommended") -> tuple:
    """Validate a ranked list and return it as a tuple.

    A ranked list must have an order, so sets and mappings are refused, and
    an id may appear only once (trec_eval refuses duplicate documents too).
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
    elif isinstance(recommended, Iterable):
        items = list(recommended)
    else:
        raise TypeError(
            f"{name} must be a sequence of item ids; got {type(recommended).__name__}"
        )
    seen: dict = {}
    for position, item in enumerate(items, start=1):
        _check_hashable(name, item, position)
        item = _as_python_id(item)
        if item in seen:
            raise ValueError(
                f"{name} contains the id {item!r} twice, at ranks {seen[item]} "
                f"and {position}; a ranking lists each item once"
            )
        seen[item] = position
    return tuple(_as_python_id(i) for i in items)


def check_grade(name: str, item, grade, *, allow_negative: bool = False) -> float:
    if isinstance(grade, (bool, np.bool_)) or not isinstance(grade, numbers.Real):
        raise TypeError(
            f"{name} must map ids to numeric grades; the grade of {item!r} is "
            f"{type(grade).__name__} {grade!r}"
        )
    value = float(grade)
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{name} has a non-finite grade {grade!r} for {item!r}")
    if value < 0 and not allow_negative:
        raise ValueError(
            f"{name} has a negative grade {grade!r} for {item!r}; grades must be >= 0"
        )
    return value


def check_relevant(relevant, name: str = "relevant", *,
                   allow_negative: bool = False) -> dict:
    """Validate relevance judgements and return a new ``{id: grade}`` dict.

    ``relevant`` is either a mapping of id to a non-negative grade (any
    finite grade with ``allow_negative=True``), or a collection of ids (each
    then has grade 1).
    """
    if relevant is None:
        raise TypeError(
            f"{name} must be a collection of relevant ids or a mapping of id to "
            "grade; got None (use an empty set for 'nothing is relevant')"
        )
    if isinstance(relevant, (str, bytes)):
        raise TypeError(
            f"{name} must be a collection of ids, not a {type(relevant).__name__}; "
            f"{relevant!r} would be read letter by letter. Use [{relevant!r}]"
        )
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
    if not isinstance(relevant, Iterable):
        raise TypeError(
            f"{name} must be a collection of relevant ids or a mapping of id to "
            f"grade; got {type(relevant).__name__} {relevant!r}"
        )
    grades = {}
    for position, item in enumerate(relevant, start=1):
        _check_hashable(name, item, position)
        grades[_as_python_id(item)] = 1.0
    return grades


def check_relevance_level(level) -> float:
    return check_real("relevance_level", level, low=0, low_open=True)


def check_empty(empty) -> str:
    return check_choice("empty", empty, EMPTY_POLICIES)


def handle_empty(empty: str, what: str) -> float:
    """Return the value the ``empty`` policy assigns to an undefined metric."""
    if empty == "zero":
        return 0.0
    if empty == "nan":
        return math.nan
    raise ValueError(f"{what}, and empty='raise' was requested")


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


def check_real_array(name: str, values, *, min_size: int = 1) -> np.ndarray:
    """A 1-D float array copy with finite values only."""
    if isinstance(values, (str, bytes, Mapping)) or values is None:
        raise TypeError(f"{name} must be a 1-D sequence of numbers; got "
                        f"{type(values).__name__}")
    if np.isscalar(values):
        raise TypeError(f"{name} must be a 1-D sequence of numbers; got the "
                        f"scalar {values!r}")
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
        raise ValueError(f"{name} contains a non-finite value {array[bad]!r} at "
                         f"index {bad}")
    return array


def check_same_length(name_a: str, a: np.ndarray, name_b: str, b: np.ndarray) -> None:
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{name_a} and {name_b} must have the same length; got {a.shape[0]} "
            f"and {b.shape[0]}"
        )


def check_binary_labels(name: str, values) -> np.ndarray:
    """Binary labels (0/1 or False/True) as an int array copy."""
    array = check_real_array(name, values)
    if not np.all((array == 0) | (array == 1)):
        bad = array[(array != 0) & (array != 1)][0]
        raise ValueError(f"{name} must contain only 0/1 (or False/True) labels; "
                         f"found {bad!r}")
    return array.astype(np.int64)


def check_count(name: str, value) -> int:
    """A count of events: a non-negative integer (bool and float refused).

    ``3.0`` is refused too: a float where a count is expected usually means a
    rate or a mean was passed by mistake, so the caller must convert on purpose.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be a non-negative integer count; got "
            f"{type(value).__name__} {value!r}"
        )
    if value < 0:
        raise ValueError(f"{name} must be a non-negative count; got {value}")
    return int(value)


def check_n_jobs(n_jobs) -> int:
    """Validate a thread count: a positive integer, or -1 for every CPU.

    Returns the number of threads to use (``os.cpu_count()`` for -1).
    """
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError("n_jobs must be a positive integer or -1 (all CPUs); got "
                        f"{type(n_jobs).__name__} {n_jobs!r}")
    if n_jobs == -1:
        return os.cpu_count() or 1
    if n_jobs <= 0:
        raise ValueError("n_jobs must be a positive integer or -1 (all CPUs); got "
                         f"{int(n_jobs)}")
    return int(n_jobs)


def check_open_unit(name: str, value) -> float:
    """A real number strictly between 0 and 1 (a rate, a level, a power)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a number strictly between 0 and 1; got "
            f"{type(value).__name__} {value!r}"
        )
    result = float(value)
    if not 0.0 < result < 1.0:  # also refuses nan
        raise ValueError(f"{name} must be strictly between 0 and 1; got {value!r}")
    return result



def check_real(name: str, value, *, low=None, high=None, low_open: bool = False,
               high_open: bool = False) -> float:
    """A finite real number inside ``[low, high]`` (either end open on request).

    ``None`` for ``low`` or ``high`` leaves that side unbounded. bool is refused:
    ``True`` where a number is expected is almost always a mistake.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got "
                        f"{type(value).__name__} {value!r}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite; got {value!r}")
    too_low = low is not None and (result <= low if low_open else result < low)
    too_high = high is not None and (result >= high if high_open else result > high)
    if too_low or too_high:
        left = "(" if low_open or low is None else "["
        right = ")" if high_open or high is None else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must lie in {left}{lo}, {hi}{right}; got {value!r}")
    return result

# -- DataFrame inputs (metrics_lib.evaluate, metrics_lib.trec) ---------------

def check_frame_columns(name: str, frame, columns, *, hint: str | None = None) -> None:
    """``frame`` must be a pandas DataFrame holding every one of ``columns``."""
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas (or Dask) DataFrame; got "
                        f"{type(frame).__name__}")
    for column in columns:
        if not isinstance(column, str) and not isinstance(column, Hashable):
            raise TypeError(f"column names must be hashable; got {column!r}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        message = (f"{name} has no column {missing[0]!r} (its columns are "
                   f"{list(frame.columns)!r})")
        if hint:
            message += f"; {hint}"
        raise ValueError(message)


def check_id_column(name: str, series):
    """An id column: no missing values. Returns the Series itself."""
    import pandas as pd

    if series.dtype.kind not in "iub" and len(series) and series.isna().any():
        row = series.index[int(np.argmax(series.isna().to_numpy()))]
        raise ValueError(f"{name} column {series.name!r} has a missing id at "
                         f"row {row!r}")
    if isinstance(series.dtype, pd.CategoricalDtype):
        raise TypeError(f"{name} column {series.name!r} is categorical; convert "
                        "it with .astype(...) to the ids' own type")
    return series


def check_value_column(name: str, series, *, minimum: float | None = None) -> np.ndarray:
    """A numeric score/rank/grade column as a finite float64 array."""
    import pandas as pd

    dtype = series.dtype
    if (pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype)):
        raise TypeError(f"{name} column {series.name!r} must be numeric; it has "
                        f"dtype {dtype}")
    if dtype == np.float64:
        values = series.to_numpy()  # no copy; nothing below writes to it
    else:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    finite = np.isfinite(values)
    if not finite.all():
        at = int(np.argmin(finite))
        raise ValueError(f"{name} column {series.name!r} has a non-finite value "
                         f"{values[at]!r} at row {series.index[at]!r}")
    if minimum is not None and len(values):
        at = int(np.argmin(values))
        if values[at] < minimum:
            raise ValueError(f"{name} column {series.name!r} has the value "
                             f"{values[at]!r} at row {series.index[at]!r}; values "
                             f"must be >= {minimum:g}")
    return values


# -- online experiments, interleaving, off-policy evaluation -----------------

def check_rng(seed, name: str = "seed") -> np.random.Generator:
    """``None``, a non-negative int or a ``numpy.random.Generator`` -> Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name} must be None, a non-negative integer or a "
                        f"numpy.random.Generator; got {type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {seed}")
    return np.random.default_rng(int(seed))


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
        raise ValueError(f"{name} contains a non-finite value {array[bad]!r} at "
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
        raise ValueError(f"{name} must be probabilities {need}; got {float(array[at])!r} at "
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
                         f"sums to {float(sums[at])!r}")
    return array


def check_int_array(name: str, values, *, low: int = 0, high: int | None = None,
                    ndim: int = 1) -> np.ndarray:
    """Integer indices in ``[low, high)`` as an int64 array copy."""
    if isinstance(values, (str, bytes, Mapping)) or values is None or np.isscalar(values):
        raise TypeError(f"{name} must be an array of integers; got {type(values).__name__}")
    array = np.array(values)
    if array.dtype.kind == "b" or array.dtype.kind not in "iu":
        if array.dtype.kind == "f" and array.size and np.all(np.isfinite(array)) \
                and np.all(array == np.round(array)):
            array = array.astype(np.int64)
        else:
            raise TypeError(f"{name} must contain integers; got dtype {array.dtype}")
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional; got shape {array.shape}")
    if array.size == 0:
        raise ValueError(f"{name} is empty")
    array = array.astype(np.int64)
    out = (array < low) | ((array >= high) if high is not None else False)
    if np.any(out):
        at = tuple(int(i) for i in np.argwhere(out)[0])
        raise ValueError(f"{name} must lie in [{low}, {high}); got {array[at]} at index "
                         f"{at[0] if len(at) == 1 else at}")
    return array
