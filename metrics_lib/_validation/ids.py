"""Id kinds (integer, string, boolean), missing ids, and the id columns of
tables: one kind per argument, the same kind on both sides of a join.
"""

from __future__ import annotations

import numbers

import numpy as np

from .messages import show


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
