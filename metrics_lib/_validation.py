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

from ._passes import min_max

EMPTY_POLICIES = ("zero", "nan", "one", "raise")


def show(value) -> str:
    """``repr`` of a value for a message, numpy scalars written as Python's.

    numpy 2 writes ``repr(np.float64(-1.0))`` as ``np.float64(-1.0)``; a
    message shows the value the user knows, ``-1.0``. Containers are shown
    element by element (a tuple of numpy ints as ``(1, 2)``).
    """
    if isinstance(value, np.generic):
        return repr(value.item())
    if type(value) in (tuple, list):
        inner = ", ".join(show(item) for item in value)
        if type(value) is tuple:
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    return repr(value)


def did_you_mean(word: str, candidates, *, suffix: str = "", cutoff: float = 0.6) -> str:
    """``did you mean 'a' or 'b'?`` for the closest ``candidates``, or ``""``.

    Closeness is difflib's ratio of matching characters (at least
    ``cutoff``); at most three names, the closest first, each followed by
    ``suffix`` (a cut-off such as ``"@5"``). ``candidates`` may be a mapping
    of the text compared (lower case, say) to the name shown.
    """
    import difflib

    shown = dict(candidates) if isinstance(candidates, Mapping) \
        else {name: name for name in candidates}
    close = difflib.get_close_matches(word, list(shown), n=3, cutoff=cutoff)
    if not close:
        return ""
    return f"did you mean {' or '.join(repr(shown[c] + suffix) for c in close)}?"


def check_choice(name: str, value, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise raise."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}; got {show(value)}")
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
            f"{name} must be a positive integer or None; got {type(k).__name__} {show(k)}"
        )
    if k <= 0:
        raise ValueError(f"{name} must be a positive integer; got {k}")
    return int(k)


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


def check_relevance_level(level) -> float:
    """relevance_level: a grade >= it is relevant; 0 (trec_eval ``-l 0``) makes
    every judged item relevant, grade 0 included, and no unjudged one."""
    value = check_real("relevance_level", level)
    if value < 0:
        # trec_eval marks unjudged retrieved documents -1: a negative -l counts
        # them as relevant but not in num_rel, so AP and recall exceed 1
        raise ValueError(f"relevance_level must be >= 0; got {show(level)} (trec_eval "
                         "then counts unjudged items as relevant and gives AP "
                         "above 1)")
    return value


def check_empty(empty) -> str:
    return check_choice("empty", empty, EMPTY_POLICIES)


def handle_empty(empty: str, what: str) -> float:
    """Return the value the ``empty`` policy assigns to an undefined metric."""
    if empty == "zero":
        return 0.0
    if empty == "nan":
        return math.nan
    if empty == "one":  # torchmetrics empty_target_action="pos"; sklearn zero_division=1
        return 1.0
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


def check_count(name: str, value) -> int:
    """A count of events: a non-negative integer (bool and float refused).

    ``3.0`` is refused too: a float where a count is expected usually means a
    rate or a mean was passed by mistake, so the caller must convert on purpose.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be a non-negative integer count; got "
            f"{type(value).__name__} {show(value)}"
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
                        f"{type(n_jobs).__name__} {show(n_jobs)}")
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
            f"{type(value).__name__} {show(value)}"
        )
    result = float(value)
    if not 0.0 < result < 1.0:  # also refuses nan
        raise ValueError(f"{name} must be strictly between 0 and 1; got {show(value)}")
    return result



def check_real(name: str, value, *, low=None, high=None, low_open: bool = False,
               high_open: bool = False) -> float:
    """A finite real number inside ``[low, high]`` (either end open on request).

    ``None`` for ``low`` or ``high`` leaves that side unbounded. bool is refused:
    ``True`` where a number is expected is almost always a mistake.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got "
                        f"{type(value).__name__} {show(value)}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite; got {show(value)}")
    too_low = low is not None and (result <= low if low_open else result < low)
    too_high = high is not None and (result >= high if high_open else result > high)
    if too_low or too_high:
        left = "(" if low_open or low is None else "["
        right = ")" if high_open or high is None else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must lie in {left}{lo}, {hi}{right}; got {show(value)}")
    return result

# -- DataFrame inputs (metrics_lib.evaluate, metrics_lib.trec) ---------------

def check_frame_columns(name: str, frame, columns, *, hint: str | None = None) -> None:
    """``frame`` must be a pandas DataFrame holding every one of ``columns`` once.

    ``columns`` as in :func:`check_column_names`.
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas, Polars or Dask DataFrame, a "
                        f"Polars LazyFrame or a pyarrow Table; got "
                        f"{type(frame).__name__}")
    check_column_names(name, list(frame.columns), columns, hint=hint)


# What each column keyword of evaluate names, for the message of a missing column.
_COLUMN_ROLES = {"user_col": "user ids", "item_col": "item ids", "score_col": "scores",
                 "rank_col": "ranks", "relevance_col": "grades"}


def check_column_names(name: str, names: list, columns, *, hint: str | None = None
                       ) -> None:
    """A table whose column names are ``names`` must hold every one of ``columns`` once.

    Shared by pandas, Dask, Polars and Arrow tables (metrics_lib._frames), so
    that a missing or doubled column gets the same message from each.
    ``columns`` is a list of names, or a mapping ``{keyword: column}`` (such
    as ``{"user_col": "user"}``), whose keyword a missing column's message
    names as the fix; ``hint`` is a further way out.
    """
    keywords = dict(columns) if isinstance(columns, Mapping) \
        else {f"#{i}": column for i, column in enumerate(columns)}
    columns = list(keywords.values())
    for column in columns:
        if not isinstance(column, str) and not isinstance(column, Hashable):
            raise TypeError(f"column names must be hashable; got {show(column)}")
    missing = [(keyword, c) for keyword, c in keywords.items() if c not in names]
    if missing:
        keyword, column = missing[0]
        message = (f"{name} has no column {show(column)} (its columns are "
                   f"{show(names)})")
        if keyword in _COLUMN_ROLES:
            message += (f"; pass {keyword}= the name of the column of "
                        f"{_COLUMN_ROLES[keyword]}")
            if hint:
                message += f", or {hint}"
        elif hint:
            message += f"; {hint}"
        raise ValueError(message)
    for column in columns:
        # frame[column] would be a DataFrame, and which copy is meant is a guess
        count = names.count(column)
        if count > 1:
            raise ValueError(f"{name} has {count} columns named {show(column)}; rename "
                             "or drop the extra ones so that the column is unambiguous")


# Kinds of id columns. Ids of different kinds never match, and the kind fixes
# how ids are written as text for trec_eval's tie rule.
ID_KINDS = ("int", "str", "bool")
_KIND_WORDS = {"int": "integer", "str": "string", "bool": "boolean", "float": "float"}
_TYPE_KINDS: dict = {}  # type -> kind, filled on first sight of each type


def _type_kind(kind_of: type) -> str:
    """The id kind of the values of one type (see :func:`ids_kind`)."""
    kind = _TYPE_KINDS.get(kind_of)
    if kind is None:
        if issubclass(kind_of, (bool, np.bool_)):
            kind = "bool"
        elif issubclass(kind_of, numbers.Integral):  # numpy ints are registered
            kind = "int"
        elif issubclass(kind_of, (str, np.str_)):
            kind = "str"
        elif issubclass(kind_of, numbers.Real):
            kind = "float"
        else:
            kind = kind_of.__name__
        _TYPE_KINDS[kind_of] = kind
    return kind


def kind_words(kind: str) -> str:
    """A kind as a message writes it (``"int"`` -> ``"integer"``)."""
    return _KIND_WORDS.get(kind, kind)


def kinds_differ(where_a: str, kind_a: str, where_b: str, kind_b: str) -> str:
    """The message's text for ids of two kinds that should be one kind."""
    return (f"{kind_words(kind_a)} ids in {where_a} but {kind_words(kind_b)} ids in "
            f"{where_b}; ids must be of the same kind in both or nothing would match")


def mixed_ids(what: str, kinds=None) -> TypeError:
    """The error for one column or argument holding ids of several kinds."""
    which = ("e.g. numbers and strings" if kinds is None
             else " and ".join(sorted(kind_words(kind) for kind in kinds)))
    return TypeError(f"{what} mixes ids of different types ({which}); ids must be "
                     "of one comparable type (all numbers or all strings)")


_PLAIN_KINDS = frozenset(("int", "str", "bool"))  # kinds that cannot hold a missing id
_MISSING_TYPES = frozenset(("NoneType", "NAType", "NaTType"))


def _is_missing(item) -> bool:
    """None, pandas.NA, NaT or NaN (any value unequal to itself), also inside a tuple."""
    if type(item).__name__ in _MISSING_TYPES:
        return True
    if isinstance(item, tuple):
        return any(_is_missing(part) for part in item)
    try:
        return bool(item != item)
    except (TypeError, ValueError):
        return False


def first_missing(items) -> int | None:
    """The 0-based position of the first missing id in ``items``, or None."""
    for position, item in enumerate(items):
        if _is_missing(item):
            return position
    return None


def _id_kind(item) -> str:
    """The kind of one id; a tuple's kind holds its parts' (``tuple(int, str)``)."""
    kind = _type_kind(type(item))
    if isinstance(item, tuple):
        kind += "(" + ", ".join(_id_kind(part) for part in item) + ")"
    return kind


def ids_kind(name: str, items) -> str | None:
    """The one kind of the ids ``items`` (Python or numpy values), or None if empty.

    The kinds of :func:`check_id_column`, decided per value: integers of any
    width, Python or numpy (nullable and pyarrow integers arrive as these),
    are ``"int"``; ``str`` and ``numpy.str_`` are ``"str"``; booleans
    ``"bool"``; other reals ``"float"`` (which :func:`evaluate` refuses, and
    the per-list functions accept alone); any other type is a kind of its own,
    named by its type. A tuple's kind names the kinds of its parts, so
    ``(1,)`` and ``(True,)`` or ``("1",)`` are kinds apart. A mix is refused:
    ``1`` and ``"1"`` never match, and ``1.0`` matches ``1`` only below 2**53.
    A missing id (None, ``pandas.NA``, NaT, NaN, also inside a tuple) is
    refused with a ValueError: it would match by object identity only.
    """
    types = {type(item) for item in items}
    if any(getattr(kind_of, "wraps_id", False) for kind_of in types):
        # a stand-in that carries an id (ranking._BelowThreshold) has its id's kind
        items = [item.item if getattr(type(item), "wraps_id", False) else item
                 for item in items]
        types = {type(item) for item in items}
    kinds = {_type_kind(kind_of) for kind_of in types}
    if not kinds <= _PLAIN_KINDS:
        at = first_missing(items)
        if at is not None:
            missing = list(items)[at]
            raise ValueError(f"missing id {show(missing)} at position {at + 1} of {name}; "
                             "every id must be present (drop or fill the missing ones "
                             "first)")
        if any(issubclass(kind_of, tuple) for kind_of in types):
            kinds = {_id_kind(item) for item in items}
    if len(kinds) > 1:
        raise mixed_ids(name, kinds)
    return kinds.pop() if kinds else None


def check_same_kind(name_a: str, items_a, name_b: str, items_b) -> str | None:
    """Refuse two collections of ids of different kinds; return the kind.

    ``items_a`` and ``items_b`` are ids (or their kinds, as strings from
    :func:`ids_kind`, when the caller has them already). An empty side has no
    kind and agrees with any.
    """
    kind_a = items_a if isinstance(items_a, str) or items_a is None \
        else ids_kind(name_a, items_a)
    kind_b = items_b if isinstance(items_b, str) or items_b is None \
        else ids_kind(name_b, items_b)
    if kind_a is not None and kind_b is not None and kind_a != kind_b:
        raise TypeError("the ids differ in kind: "
                        + kinds_differ(name_a, kind_a, name_b, kind_b))
    return kind_a if kind_a is not None else kind_b


def _numpy_dtype(dtype) -> np.dtype:
    """The numpy dtype behind a numpy, nullable or pyarrow integer dtype."""
    return dtype if isinstance(dtype, np.dtype) else np.dtype(dtype.numpy_dtype)


def _missing_id(where: str, series, mask, needs: str) -> ValueError:
    row = series.index[int(np.argmax(mask))]
    return ValueError(f"{where} has a missing id at row {show(row)}; every row needs "
                      f"{needs} (drop or fill the missing ones first)")


def _object_ints(name: str, series, values: np.ndarray) -> np.ndarray:
    """Python ints of an object column as int64, uint64 or (exact) object."""
    for dtype in (np.int64, np.uint64):
        try:
            return np.array(values.tolist(), dtype=dtype)
        except OverflowError:
            continue
    return values  # negative ids and ids >= 2**63 together: Python ints stay exact


def dtype_name(series) -> str:
    """A column's dtype as its own library writes it, for messages.

    A Polars or Arrow column reaches the checks as a pandas Series
    (:mod:`metrics_lib._frames`), whose dtype (``object``, ``bool``) is not
    the one the user sees; ``_frames`` records the real one (``Polars
    String``, ``pyarrow large_string``) in the table's ``attrs``, which pandas
    passes on to the column.
    """
    return series.attrs.get("native_dtypes", {}).get(series.name, str(series.dtype))


def check_id_column(name: str, series, *, where: str | None = None,
                    needs: str = "a user and an item id") -> tuple[str, np.ndarray]:
    """An id column as ``(kind, values)``; refuses missing and unusable ids.

    ``where`` names the ids in messages (default: column ``series.name`` of
    ``name``); ``needs`` says which ids every row must have.

    ``kind`` is ``"int"``, ``"str"`` or ``"bool"``, decided by the values (an
    object column of Python ints is ``"int"``). ``values`` is a new numpy array:
    int64 or uint64 for integers (object, of Python ints, only when one
    column mixes negative ids with ids of 2**63 and more), object for
    strings, bool for booleans. Categorical columns give their categories'
    values. Floats are refused: ``str(1.0)`` is ``"1.0"``, not ``"1"``, so a
    float id would not tie-break like the integer it stands for, and floats
    above 2**53 are not exact.
    """
    import pandas as pd

    where = where or f"{name} column {show(series.name)}"
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = series.cat.codes.to_numpy()
        if (codes < 0).any():
            raise _missing_id(where, series, codes < 0, needs)
        values = pd.Series(series.cat.categories.take(codes), index=series.index,
                           name=series.name)
        return check_id_column(name, values, where=where, needs=needs)
    plain_numpy = isinstance(dtype, np.dtype) and dtype.kind in "iub"
    if not plain_numpy and len(series):
        mask = series.isna().to_numpy()
        if mask.any():
            raise _missing_id(where, series, mask, needs)
    kind = getattr(dtype, "kind", "O")
    if kind == "b":
        return "bool", series.to_numpy(dtype=bool)
    if kind in "iu":
        wide = kind == "u" and _numpy_dtype(dtype).itemsize == 8
        return "int", series.to_numpy(dtype=np.uint64 if wide else np.int64)
    if kind == "f" and not len(series):
        # no values, so no kind: pd.DataFrame({"user": []}) is float64 in
        # pandas 3; the caller takes the other table's kind (evaluate's _ids)
        return "str", np.empty(0, dtype=object)
    if kind == "f":
        raise TypeError(f"{where} holds floats "
                        f"({dtype_name(series)}); ids "
                        "must be integers or strings: convert it with "
                        ".astype('int64') (a float id such as 1.0 is not the id 1 "
                        "when ties are ordered by id text, and floats lose digits "
                        "above 2**53)")
    if isinstance(dtype, pd.StringDtype) or (hasattr(dtype, "pyarrow_dtype")
                                             and "string" in str(dtype)):
        return "str", series.to_numpy(dtype=object)
    if kind == "O":
        values = series.to_numpy(dtype=object)
        inferred = pd.api.types.infer_dtype(values, skipna=False)
        if inferred == "string" or inferred == "empty":
            return "str", values
        if inferred == "integer":
            return "int", _object_ints(name, series, values)
        if inferred == "boolean":
            return "bool", values.astype(bool)
        if inferred == "mixed-integer":
            raise mixed_ids(where)
        if inferred == "decimal" and all(value == value.to_integral_value()
                                         for value in values):
            # whole Decimals: the decimal128(20, 0) user ids of evaluate's
            # Arrow results, read back through to_pandas()
            return "int", _object_ints(name, series,
                                       np.array([int(v) for v in values], dtype=object))
        if inferred in ("floating", "mixed-integer-float", "decimal"):
            raise TypeError(f"{where} holds float ids "
                            f"({dtype_name(series)}); ids must be integers or strings")
        raise TypeError(f"{where} holds {inferred} ids "
                        f"({dtype_name(series)}); ids must be integers or strings")
    raise TypeError(f"{where} has dtype {dtype_name(series)}; "
                    "ids must be integers or strings")


def common_ints(a: np.ndarray, b: np.ndarray):
    """Two integer id arrays in one dtype that compares their values exactly.

    int64 and uint64 meet in int64 when the uint64 ids fit, in uint64 when the
    int64 ids are non-negative, and as Python ints otherwise: never through
    float64, which merges integers above 2**53.
    """
    if a.dtype == np.uint64 and b.dtype == np.uint64:
        if max(a.max(initial=0), b.max(initial=0)) < 2**63:
            return a.astype(np.int64), b.astype(np.int64)
        return a, b
    if a.dtype == b.dtype:
        return a, b
    if object not in (a.dtype, b.dtype):
        signed, unsigned = (a, b) if a.dtype == np.int64 else (b, a)
        if unsigned.max(initial=0) < 2**63:
            unsigned = unsigned.astype(np.int64)
        elif signed.min(initial=0) >= 0:
            signed = signed.astype(np.uint64)
        else:
            signed, unsigned = signed.astype(object), unsigned.astype(object)
        return (signed, unsigned) if a.dtype == np.int64 else (unsigned, signed)
    return a.astype(object), b.astype(object)


def id_array(name: str, array: np.ndarray) -> tuple[str, np.ndarray]:
    """A numpy array of ids (any shape) as ``(kind, values)``.

    The kinds of :func:`ids_kind` and the integer dtypes of
    :func:`check_id_column`: integers of any width become int64, or uint64
    for uint64, or (an object array of Python ints beyond both) stay
    Python ints; an object array of floats becomes float64 (what numpy's
    checks need); strings, floats and booleans keep their dtype. An object
    array holding ids of several kinds, or a missing id, is refused.
    """
    kind = array.dtype.kind
    if kind in "iu":
        wide = kind == "u" and array.dtype.itemsize == 8
        return "int", array.astype(np.uint64 if wide else np.int64)
    if kind == "O":
        flat = array.ravel().tolist()
        at = first_missing(flat)
        if at is not None:
            index = np.unravel_index(at, array.shape)
            where = index[0] if array.ndim == 1 else tuple(int(i) for i in index)
            raise ValueError(f"{name} has a missing id {show(flat[at])} at index {where}; "
                             "every id must be present")
        found = ids_kind(name, flat)
        if found == "int":
            return "int", _object_ints(name, None, array)
        if found == "float":
            return "float", array.astype(np.float64)
        return found or "str", array
    kinds = {"b": "bool", "U": "str", "f": "float", "S": "bytes"}
    return kinds.get(kind, str(array.dtype)), array


def check_same_id_kind(column, rec_kind: str, truth_kind: str) -> None:
    """Ids of one column must be of one kind in both tables."""
    if rec_kind != truth_kind:
        raise TypeError(f"column {show(column)} holds "
                        + kinds_differ("recommendations", rec_kind, "truth", truth_kind))


def check_value_column(name: str, series, *, minimum: float | None = None,
                       exact_integers: bool = False,
                       integers_as_is: bool = False) -> np.ndarray:
    """A numeric score/rank/grade column as a finite array.

    float64, or, with ``exact_integers=True`` and an integer column, int64
    with the same order as the values (float64 would merge integers above
    2**53; uint64 values are shifted by -2**63, which keeps their order).
    With ``integers_as_is=True`` a numpy integer column (not uint64) comes
    back as it is, without a float64 copy; the caller converts the parts it
    uses (to float64, which gives the values a whole-column conversion
    would).
    """
    import pandas as pd

    dtype = series.dtype
    if len(series) == 0 and dtype == object:  # an empty table built from no rows
        return np.zeros(0, dtype=np.float64)
    if (pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype)):
        raise TypeError(f"{name} column {show(series.name)} must be numeric; it has "
                        f"dtype {dtype_name(series)}")
    if (integers_as_is and isinstance(dtype, np.dtype)
            and (dtype.kind == "i" or (dtype.kind == "u" and dtype.itemsize < 8))):
        values = series.to_numpy()  # integers are finite; no copy
        if minimum is not None and len(values) and values.min() < minimum:
            at = int(np.argmin(values))
            raise ValueError(f"{name} column {show(series.name)} has the value "
                             f"{show(np.float64(values[at]))} at row {show(series.index[at])}; "
                             f"values must be >= {minimum:g}")
        return values
    if exact_integers and getattr(dtype, "kind", "f") in "iu":
        if not isinstance(dtype, np.dtype) and len(series):
            mask = series.isna().to_numpy()
            if mask.any():
                at = int(np.argmax(mask))
                raise ValueError(f"{name} column {show(series.name)} has a missing value "
                                 f"at row {show(series.index[at])}")
        if dtype.kind == "u" and _numpy_dtype(dtype).itemsize == 8:
            values = series.to_numpy(dtype=np.uint64)
            return (values ^ np.uint64(1 << 63)).view(np.int64)
        return series.to_numpy(dtype=np.int64)
    if dtype == np.float64:
        values = series.to_numpy()  # no copy; nothing below writes to it
    else:
        values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    if not len(values):
        return values
    # min and max are finite only if every value is (NaN propagates): one pass
    # over the column instead of a boolean array its size
    low, high = min_max(values)
    if not (np.isfinite(low) and np.isfinite(high)):
        at = int(np.argmin(np.isfinite(values)))
        raise ValueError(f"{name} column {show(series.name)} has a non-finite value "
                         f"{show(values[at])} at row {show(series.index[at])}")
    if minimum is not None and low < minimum:
        at = int(np.argmin(values))
        if values[at] < minimum:
            raise ValueError(f"{name} column {show(series.name)} has the value "
                             f"{show(values[at])} at row {show(series.index[at])}; values "
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
                        f"numpy.random.Generator; got {type(seed).__name__} {show(seed)}")
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


# -- convention keywords of the ranking metrics (issue 12) -------------------

def check_gain(gain, choices: Sequence[str]):
    """A gain name from ``choices``, or a mapping grade -> gain as sorted pairs.

    A mapping comes back as a tuple of ``(grade, gain)`` float pairs sorted by
    grade (hashable, so that it can travel in an options dict); grades and
    gains must be finite reals, gains non-negative, and no grade may appear
    twice once written as a float.
    """
    if isinstance(gain, str):
        return check_choice("gain", gain, choices)
    if not isinstance(gain, Mapping):
        options = ", ".join(repr(c) for c in choices)
        raise TypeError(f"gain must be one of {options} or a mapping {{grade: gain}}; "
                        f"got {type(gain).__name__} {show(gain)}")
    if not gain:
        raise ValueError("gain is an empty mapping: give the gain of every judged grade")
    pairs = {}
    for grade, value in gain.items():
        key = check_real("a grade (key) of the gain mapping", grade)
        if key in pairs:
            raise ValueError(f"the gain mapping lists grade {show(grade)} twice")
        pairs[key] = check_real(f"the gain of grade {show(grade)}", value, low=0)
    return tuple(sorted(pairs.items()))


def check_min_grade(min_grade) -> float | None:
    """``None`` or a finite real: grades below it count as 0 in DCG and NDCG."""
    if min_grade is None:
        return None
    return check_real("min_grade", min_grade)


def check_score_threshold(score_threshold) -> float | None:
    """``None`` or a finite real: items scored at or below it are never hits."""
    if score_threshold is None:
        return None
    return check_real("score_threshold", score_threshold)


def check_truncate(truncate) -> int | None:
    """``None`` or a positive integer: the number of items each list keeps."""
    return check_k(truncate, name="truncate")


def check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {type(value).__name__} "
                        f"{show(value)}")
    return bool(value)


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
