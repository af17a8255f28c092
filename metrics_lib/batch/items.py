"""Item data: the popularity of each recommended item, for ``arp`` and ``aplt``;
the genres of each item and the users' histories, for ``miscalibration``; the
group of each item, for ``group_exposure``.

``evaluate(..., item_popularity=...)`` takes the popularity of each item
(phi(i) of :mod:`metrics_lib.beyond.popularity`: its number of training
interactions, or of distinct users) as an explicit table, item id -> a
number >= 0; an item absent from it has popularity 0. The metrics that read
it declare ``item_data="popularity"`` in the registry. Once the lists are in
rank order, each recommended row gets its item's row of the table
(:func:`popularity_rows`); the kernels of
:mod:`metrics_lib.ranking.popularity_bias` read the rows of their chunk.

``evaluate(..., item_genres=..., history=...)`` takes the genres of each item
(item id -> genre, one row per (item, genre), or a dict item -> genres) and a
table of (user, item) history rows; the metrics that read them declare
``item_data="genres"``. Each recommended row gets its item's row of the
genre shares p(g|i), and each user the genre mix p(g|u) of their history,
once for all chunks (:func:`genre_rows`); the kernel of
:mod:`metrics_lib.ranking.calibration` reads them.

``evaluate(..., item_groups=..., exposure_group=...)`` takes the group label
of each item and the one group whose share of exposure is reported; the
metric that reads them declares ``item_data="groups"``. Each recommended row
gets a flag, whether its item is in that group, in rank order
(:func:`group_rows`); the kernel of :mod:`metrics_lib.ranking.exposure`
reads its chunk's flags.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._passes import min_max
from .._validation import check_id_column, kinds_differ, show
from ..beyond._long import check_unique_pairs, read_table
from ..beyond.calibration import _genre_mix, _genre_rows, _share_matrix, _share_table
from ..ranking import registry
from .users import _user_codes


def check_item_popularity(metrics, item_popularity):
    """``(ids kind, ids, values)`` of ``item_popularity``, or None; refused where unread."""
    readers = [name for name, kind, _ in metrics
               if registry.get(kind).item_data == "popularity"]
    if item_popularity is None:
        if readers:
            raise ValueError(f"metric {show(readers[0])} reads the popularity of each "
                             "item: pass item_popularity=, a pandas Series (or a dict) "
                             "item id -> its number of training interactions, such as "
                             "train.groupby('item').size()")
        return None
    if not readers:
        raise ValueError("item_popularity= is read by the metrics arp and aplt only; "
                         "none of them is asked for")
    if isinstance(item_popularity, Mapping):
        item_popularity = pd.Series(item_popularity, dtype=object if not item_popularity
                                    else None)
    if not isinstance(item_popularity, pd.Series):
        raise TypeError("item_popularity must be a pandas Series indexed by item id, "
                        f"or a dict item id -> popularity; got "
                        f"{type(item_popularity).__name__}")
    kind, ids = _unique_item_ids("item_popularity", item_popularity, "popularity")
    try:
        values = item_popularity.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise TypeError("item_popularity must hold numbers (a popularity per item); got "
                        f"dtype {item_popularity.dtype}") from None
    bad = ~(values >= 0) | ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"item_popularity gives item {show(ids[row])} the popularity "
                         f"{show(values[row])}; popularities must be finite numbers >= 0")
    return kind, ids, values


def _unique_item_ids(name, table, what):
    """``(kind, ids as a pd.Index)`` of the index of ``table``; refuses an item twice.

    The Index is kept for the look-ups of :func:`_positions_in`: pandas caches
    the hash table that ``is_unique`` builds on it (about 30 ms for a million
    ids), so it is built once. Integer ids of a moderate span are checked by
    counting instead, and then looked up in a table (:func:`_codes_in`) with
    no hashing at all.
    """
    kind, ids = check_id_column(name, table.index.to_series(),
                                where=f"the index of {name}", needs="an item id")
    index = pd.Index(ids)
    if not _unique(ids, index):
        duplicated = index[index.duplicated()][0]
        raise ValueError(f"{name} lists item {show(duplicated)} twice; give each item "
                         f"one {what}")
    return kind, index


def _unique(ids, index):
    """Whether ``ids`` (the values of ``index``) holds each value once."""
    if ids.dtype.kind in "iu" and ids.size:
        low, high = (int(bound) for bound in min_max(ids))
        if high - low < 4 * ids.size + 1024:
            shifted = (ids - ids.dtype.type(low)).astype(np.intp, copy=False)
            return bool(np.bincount(shifted).max() <= 1)
    return index.is_unique


def popularity_rows(options, rec_keys, decode, item_kind):
    """``options`` with ``popularity_rows``: each row's popularity, in rank order."""
    checked = options.get("item_popularity")
    if checked is None:
        return options
    # an item absent from the table (code -1) reads the popularity 0 appended
    values = np.append(checked[2], 0.0)
    rows = _table_rows("item_popularity", checked, rec_keys, decode, item_kind, values.take)
    return dict(options, popularity_rows=rows)


def _table_rows(name, checked, rec_keys, decode, item_kind, per_code):
    """``per_code`` of where each recommended row's item is in the ids of a
    checked item table (-1: absent), row by row; the id kinds must agree."""
    kind, ids = checked[0], checked[1]
    if len(ids) and len(rec_keys) and kind != item_kind:
        raise TypeError("item ids: " + kinds_differ("recommendations", item_kind, name,
                                                    kind))
    return _key_codes(ids, rec_keys, decode, per_code)


def _key_codes(index: pd.Index, rec_keys: np.ndarray, decode, per_code=None):
    """``per_code(index.get_indexer(decode(rec_keys)))``, each distinct key looked up once.

    ``per_code`` maps codes elementwise (None: the codes themselves). Keys
    of a moderate span (shifted integers, ranks of other ids) are looked up
    in a table of every key's value, built from the distinct ids once, then
    gathered row by row, instead of decoding and hashing every row.
    """
    per_code = per_code or (lambda codes: codes)
    span = int(rec_keys.max(initial=-1)) + 1
    if 0 < span <= 2 * rec_keys.size + (1 << 16):
        return per_code(_codes_in(index, np.asarray(decode(np.arange(span))))).take(
            rec_keys)
    return per_code(_codes_in(index, np.asarray(decode(rec_keys))))


# ------------------------------------------------- genres and history (miscalibration)
def _readers(metrics, data):
    return [name for name, kind, _ in metrics if registry.get(kind).item_data == data]


def _genre_table(item_genres):
    """(items as a Series, genres, shares) of ``item_genres``, one row per (item, genre)."""
    if isinstance(item_genres, Mapping):
        rows = _genre_rows(item_genres, list(item_genres))
        items = pd.Series([row[0] for row in rows], dtype=None if rows else object)
        return items, [row[1] for row in rows], np.array([row[2] for row in rows], float)
    if not isinstance(item_genres, pd.Series):
        raise TypeError("item_genres must be a pandas Series indexed by item id whose "
                        "values are genres (one row per (item, genre)), or a dict item "
                        f"-> genres; got {type(item_genres).__name__}")
    genres = item_genres.to_numpy(dtype=object)
    if pd.isna(item_genres).any():
        row = int(np.flatnonzero(pd.isna(item_genres).to_numpy())[0])
        raise ValueError(f"item_genres gives item {show(item_genres.index[row])} a missing "
                         "genre; leave the item out instead")
    return item_genres.index.to_series(), list(genres), np.ones(len(genres))


def _given_together(readers, keywords, purpose, what, reader):
    """Whether a pair of keywords read by one metric is given: False if neither
    is and no metric of the call reads them; ValueError if one is missing for a
    metric that reads them, or they are given and no metric reads them."""
    (first, a), (second, b) = keywords.items()
    if a is None or b is None:
        if readers:
            missing = first if a is None else second
            raise ValueError(f"metric {show(readers[0])} {purpose}: pass {missing} "
                             f"({what})")
        if a is None and b is None:
            return False
    if not readers:
        raise ValueError(f"{first} and {second} are read by the metric {reader} only, "
                         "which is not asked for")
    return True


def check_genre_data(metrics, item_genres, history, user_col, item_col):
    """The checked ``item_genres`` and ``history`` for miscalibration, or None."""
    if not _given_together(
            _readers(metrics, "genres"), {"item_genres=": item_genres, "history=": history},
            "compares the genre mix of each list with that of the user's history",
            "item_genres: a Series item id -> genre, one row per (item, genre); history: "
            "a table of (user, item) rows", "miscalibration"):
        return None
    items, genres, shares = _genre_table(item_genres)
    if not len(items):
        raise ValueError("item_genres gives no genre to any item")
    kind, ids = check_id_column("item_genres", items, where="the items of item_genres",
                                needs="an item id")
    item_codes, item_ids = pd.factorize(pd.Series(ids, dtype=ids.dtype))
    genre_codes, _ = pd.factorize(pd.Series(genres, dtype=object))
    check_unique_pairs("item_genres", item_codes, genre_codes, "an (item, genre) pair")
    matrix, has_genre = _share_matrix(item_codes, genre_codes, shares, len(item_ids))
    hist = read_table("history", history, ids={"user_col": user_col, "item_col": item_col})
    return {"items": (kind, pd.Index(item_ids)), "shares": _share_table(matrix),
            "has_genre": has_genre, "users": hist["user_col"], "hist_items": hist["item_col"]}


def _codes_in(index: pd.Index, values: np.ndarray) -> np.ndarray:
    """``index.get_indexer(values)`` (-1 where absent), hashing each distinct value once.

    Integer ids of a moderate span go through a lookup table
    (:func:`metrics_lib.batch.users._user_codes`); other ids, when there are
    more values than ``index`` holds (a history of many rows), are factorized
    first and only the distinct ones looked up: with pandas 3.1, looking up
    1,500,000 object strings in an index of 50,000 took 350 ms or more, the
    factorizing about 100.
    """
    if values.dtype.kind in "iub" or len(values) <= 2 * len(index):
        return _user_codes(index, values)
    codes, uniques = pd.factorize(values)
    return index.get_indexer(uniques).take(codes)


def _refuse_genreless(where, genre_data, codes, id_at):
    """Refuse the first row whose item has no genre; ``id_at(row)`` names its item."""
    # one gather: code -1 (an item absent from item_genres) reads the False appended
    genreless = ~np.append(genre_data["has_genre"], False).take(codes)
    if genreless.any():
        item = id_at(int(np.argmax(genreless)))
        raise ValueError(f"item {show(item)} of {where} has no genre in item_genres "
                         "(or only shares of 0); every recommended and history item needs "
                         "one, p(g|i) is undefined otherwise")
    return codes


def _same_item_kind(where, genre_data, kind, n):
    """Refuse items of ``where`` (``n`` of them) of another kind than item_genres'."""
    genre_kind = genre_data["items"][0]
    if n and kind != genre_kind:
        raise TypeError("item ids: " + kinds_differ(where, kind, "item_genres", genre_kind))


def _rec_genre_codes(genre_data, rec_keys, decode, item_kind):
    """Each recommended row's row of the share matrix, from its item key
    (:func:`_key_codes`)."""
    _same_item_kind("the recommendations", genre_data, item_kind, len(rec_keys))
    codes = _key_codes(genre_data["items"][1], rec_keys, decode)
    return _refuse_genreless("the recommendations", genre_data, codes,
                             lambda row: decode(rec_keys[row]))


def genre_rows(options, rec_keys, decode, item_kind, lengths, user_ids, user_kind):
    """``options`` with each row's item code and the history's genre mix per user.

    ``genre_rows``: each recommended row's row of the share matrix, in rank
    order, and its user code; ``history_mix``: p(g|u) of every user code (users x genres, ``nan``
    rows for users without history), computed once for all chunks.
    """
    data = options.get("genre_data")
    if data is None:
        return options
    rows = _rec_genre_codes(data, rec_keys, decode, item_kind)
    hist_kind, hist_users = data["users"]
    if len(hist_users) and len(user_ids) and hist_kind != user_kind:
        raise TypeError("user ids: " + kinds_differ("recommendations", user_kind,
                                                    "history", hist_kind))
    kind, items = data["hist_items"]
    _same_item_kind("history", data, kind, len(items))
    hist_items = _refuse_genreless("history", data, _codes_in(data["items"][1], items),
                                   items.__getitem__)
    owner = _codes_in(pd.Index(user_ids), hist_users)
    mine = owner >= 0  # history of users that evaluate does not report is not read
    if not mine.all():
        owner, hist_items = owner[mine], hist_items[mine]
    mix = _genre_mix(owner, hist_items, np.ones(owner.size), data["shares"], len(user_ids))
    owners = np.repeat(np.arange(lengths.size), lengths)
    return dict(options, genre_rows=(rows, owners), history_mix=mix)


# ------------------------------------------------------------ item groups (exposure)
def check_item_groups(metrics, item_groups, exposure_group):
    """``(ids kind, ids, in the group?)`` of ``item_groups``, or None; refused where unread.

    ``item_groups`` is a Series (or dict) item id -> group label, every label
    not null; ``exposure_group`` one of its labels, the group whose share of
    exposure ``group_exposure`` reports.
    """
    if not _given_together(
            _readers(metrics, "groups"),
            {"item_groups=": item_groups, "exposure_group=": exposure_group},
            "reports the share of exposure that one group of items gets",
            "item_groups: a Series item id -> group label; exposure_group: one of its "
            "labels", "group_exposure"):
        return None
    if isinstance(item_groups, Mapping):
        item_groups = pd.Series(item_groups, dtype=object if not item_groups else None)
    if not isinstance(item_groups, pd.Series):
        raise TypeError("item_groups must be a pandas Series indexed by item id whose "
                        "values are group labels, or a dict item id -> label; got "
                        f"{type(item_groups).__name__}")
    kind, ids = _unique_item_ids("item_groups", item_groups, "group")
    missing_label = pd.isna(item_groups).to_numpy()
    if missing_label.any():
        row = int(np.argmax(missing_label))
        raise ValueError(f"item_groups gives item {show(ids[row])} a missing label; every "
                         "item needs a group")
    if not pd.api.types.is_scalar(exposure_group) or pd.isna(exposure_group):
        raise TypeError("exposure_group must be one label of item_groups; got "
                        f"{show(exposure_group)}")
    in_group = _in_group(item_groups, exposure_group)
    if not in_group.any():
        known = pd.unique(item_groups.to_numpy(dtype=object))[:10].tolist()
        raise ValueError(f"exposure_group {show(exposure_group)} is not a label of "
                         f"item_groups (its labels include {show(known)})")
    return kind, ids, in_group


def _in_group(item_groups, exposure_group):
    """Whether each label of ``item_groups`` equals ``exposure_group``, as bools.

    A column of strings compared with a string needs no Python object per
    label (``to_numpy(dtype=object)`` of a million Arrow strings took about
    50 ms); any other label is compared as a Python object, ``==``.
    """
    dtype = item_groups.dtype
    if isinstance(exposure_group, str) and (isinstance(dtype, pd.StringDtype) or (
            hasattr(dtype, "pyarrow_dtype") and "string" in str(dtype))):
        return (item_groups == exposure_group).to_numpy(dtype=bool, na_value=False)
    return np.asarray(item_groups.to_numpy(dtype=object) == exposure_group, dtype=bool)


def group_rows(options, rec_keys, decode, item_kind):
    """``options`` with ``group_rows``: whether each row's item is in the group, in rank order."""
    checked = options.get("item_groups")
    if checked is None:
        return options
    # 1 in the group, 0 not, -1 absent from item_groups (code -1 reads the -1 appended)
    flags = np.append(checked[2].astype(np.int8), np.int8(-1))
    rows = _table_rows("item_groups", checked, rec_keys, decode, item_kind, flags.take)
    if (rows < 0).any():
        row = int(np.argmax(rows < 0))
        item = np.asarray(decode(rec_keys[row:row + 1]))[0]
        raise ValueError(f"item {show(item)} of the recommendations has no group in "
                         "item_groups; every recommended item needs one (its share of "
                         "exposure is undefined otherwise)")
    return dict(options, group_rows=rows > 0)
