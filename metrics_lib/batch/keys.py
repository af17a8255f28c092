"""Keys: items as int64 join keys, and each user's list in rank order.

Item ids of any kind become non-negative int64 keys that order items as
their values do (ranks when they would not fit the join); each user's rows
are then sorted by score (or rank) and, for equal values, by the ``ties``
rule, which needs the text order of integer ids (trec_eval's ``strcmp``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._kernels import in_block_order, segment_argsort
from .._tie_kernels import TIE_MODES, tie_starts
from .._passes import min_max, neighbours_where


def _item_keys(kind: str, rec: np.ndarray, tru: np.ndarray):
    """Non-negative int64 join keys that order items as their values do.

    Returns ``(rec_keys, truth_keys, decode, span)`` where ``decode(keys)``
    gives back the ids (a scalar or an array) and every key is below ``span``. Integer ids of a moderate span are
    shifted (cheap); wider ones, uint64 and Python ints are replaced by
    their ranks; strings by their ranks in text order (code point order,
    which is the order of their UTF-8 bytes).
    """
    if kind == "bool":
        return (rec.astype(np.int64), tru.astype(np.int64),
                lambda keys: np.asarray(keys).astype(bool), 2)
    if kind == "int" and rec.dtype == np.int64:
        ranges = [min_max(ids) for ids in (rec, tru) if ids.size]
        low = min([0] + [lo for lo, _ in ranges])
        high = max([0] + [hi for _, hi in ranges])
        if int(high) - int(low) < 2**62:
            if low < 0:
                rec, tru = rec - low, tru - low
            shift = np.int64(min(low, 0))
            return rec, tru, (lambda keys: keys + shift), int(high) - int(low) + 1
    both = np.concatenate([rec, tru])
    if kind == "int":  # exact ranks of wide, unsigned or Python integers
        uniques, codes = np.unique(both, return_inverse=True)
    else:
        try:
            codes, uniques = pd.factorize(both, sort=True)
        except TypeError:  # pragma: no cover - check_id_column refuses mixed types
            raise TypeError("ids must be of one comparable type (all numbers or "
                            "all strings)") from None
        uniques = np.asarray(uniques, dtype=object)
    codes = codes.astype(np.int64, copy=False).reshape(-1)
    return (codes[:rec.size], codes[rec.size:], (lambda keys: uniques[keys]),
            max(len(uniques), 1))


def _densify(rec_keys, truth_keys, decode, span, n_users):
    """Ranks instead of keys when (user, item) pairs would not fit in int64.

    The join packs (user code, item key) into one int64. Ids that are few but
    far apart (hashes, ids above 2**53) are replaced by their ranks, which
    keep their order; the common case (ids up to a few billion) is untouched.
    """
    if max(n_users, 1) * span < 2**62:
        return rec_keys, truth_keys, decode, span
    uniques, codes = np.unique(np.concatenate([rec_keys, truth_keys]),
                               return_inverse=True)
    codes = codes.astype(np.int64, copy=False).reshape(-1)
    return (codes[:rec_keys.size], codes[rec_keys.size:],
            lambda keys: decode(uniques[keys]), max(len(uniques), 1))


# Powers of ten up to 10**17: integers of at most 17 digits get their text key
# by arithmetic.
_POW10 = 10 ** np.arange(18, dtype=np.int64)


def text_order_key(values: np.ndarray) -> np.ndarray:
    """int64 keys that order integers as their decimal text does.

    The text of an integer is ``str(id)``; texts compare as trec_eval's
    ``strcmp`` compares them, byte by byte, so ``"10" < "9"`` and every
    negative id (``"-"`` is byte 0x2D) comes before every non-negative one
    (digits are 0x30-0x39), and ``"-12" < "-5"``. Integers of at most 17
    digits get the key by arithmetic: the digits padded with zeros on the
    right to 17 places (their text order), then the number of digits (a
    prefix comes first). Wider ones are written as text and ranked.
    """
    if values.dtype == np.int64 and (values.size == 0 or (
            values.min() > -_POW10[17] and values.max() < _POW10[17])):
        magnitude = np.abs(values)
        digits = np.searchsorted(_POW10[1:], magnitude, side="right") + 1
        key = magnitude * _POW10[17 - digits] * 18 + digits
        return np.where(values < 0, key, key + (18 * _POW10[17] + 18))
    # Digits and "-" are ASCII: code point order is the order of UTF-8 bytes.
    text = np.array([str(value) for value in values.tolist()], dtype=str)
    return np.unique(text, return_inverse=True)[1].astype(np.int64).reshape(-1)


def _has_ties(sorted_values: np.ndarray, lengths: np.ndarray) -> bool:
    """True if two neighbours inside one block are equal."""
    # the last row of a block is compared with the next block's first: skipped
    return neighbours_where(sorted_values, np.equal,
                            skip=np.cumsum(lengths[:-1]) - 1).size > 0


def _tie_key(kind: str, ties: str, rec_keys: np.ndarray, decode):
    """``rows -> keys`` ordering items as the ``ties`` rule compares them.

    The join keys already order ids by value, which is the text order of
    strings and booleans ("False" < "True"); integers under the text rule
    need :func:`text_order_key`, computed only for the rows asked for.
    """
    if kind != "int" or ties.startswith("numeric") or ties == "input":
        return lambda rows: rec_keys[rows]
    every_row = []

    def key(rows):
        if every_row:
            return every_row[0][rows]
        keys = rec_keys[rows]
        if 4 * keys.size < rec_keys.size:  # few rows: compute just these
            return text_order_key(np.asarray(decode(keys)))
        # many rows: the key of every row, once, through a table of the
        # distinct join keys when they are not too spread out
        span = int(rec_keys.max(initial=0)) + 1
        if span <= max(2 * rec_keys.size, 1 << 16):
            # as int32 ranks: a table half the size gathers much faster
            order = np.argsort(text_order_key(np.asarray(decode(np.arange(span)))))
            rank = np.empty(span, dtype=np.int32)
            rank[order] = np.arange(span, dtype=np.int32)
            every_row.append(rank.take(rec_keys))
        else:
            every_row.append(text_order_key(np.asarray(decode(rec_keys))))
        return every_row[0][rows]
    return key


def item_keys(kind, rec_items, truth_items, n_users):
    """``(rec_keys, truth_keys, decode, span)`` of both item columns (see _item_keys)."""
    rec_keys, truth_keys, decode, span = _item_keys(kind, rec_items, truth_items)
    return _densify(rec_keys, truth_keys, decode, span, n_users)


def rank_lists(rec_keys, values, order, lengths, options, *, item_kind, decode,
               descending):
    """Every user's item keys in rank order: by value, then by the ``ties`` rule.

    ``order`` groups the rows by user (``None``: they are). Returns the
    sorted keys and the options, with ``tie_first`` (the tie groups, for the
    tie modes) and ``score_below`` (for ``score_threshold``) added.
    """
    if order is not None:
        rec_keys, values = rec_keys[order], values[order]
    del order
    # The tie modes of _tie_kernels do not depend on the order inside a tie
    # group: any order will do, and the input order costs least.
    ties = "input" if options["ties"] in TIE_MODES else options["ties"]
    threshold = options["score_threshold"]
    tie_key = _tie_key(item_kind, ties, rec_keys, decode)
    if not in_block_order(values, descending, tie_key, ties, lengths):
        within = _rank_order(values, lengths, tie_key, ties, descending)
        rec_keys = rec_keys[within]
        if options["ties"] in TIE_MODES or threshold is not None:
            values = values[within]
        del within
    if options["ties"] in TIE_MODES:
        options = dict(options, tie_first=tie_starts(values, lengths))
    if threshold is not None:
        # integer scores compared exactly: v <= t is v <= floor(t) for integers
        below = (values <= np.floor(threshold).astype(np.int64)
                 if values.dtype.kind in "iu" and abs(threshold) < 2**62
                 else values <= threshold)
        options = dict(options, score_below=below)
    return rec_keys, options


def _rank_order(values, lengths, tie_key, ties, descending):
    """The permutation that sorts every block by value, then by the tie key."""
    # ~x reverses the order of integers without overflowing at the minimum
    primary = ((~values if values.dtype.kind in "iu" else -values) if descending
               else values)
    # Ties next to each other in the input are certain ties: then one sort
    # on both keys; otherwise a sort on the values first, which is final
    # unless it brings equal values together.
    within = (None if ties != "input" and _has_ties(primary, lengths)
              else segment_argsort((primary,), lengths))
    if within is None or (ties != "input" and _has_ties(primary[within], lengths)):
        # the tie key only matters (and is only computed) when values tie
        tie = tie_key(slice(None))
        sort_keys = ((tie.max(initial=0) - tie if ties.endswith("_desc") else tie),
                     primary)
        del tie
        within = segment_argsort(sort_keys, lengths)
        del sort_keys
    return within
