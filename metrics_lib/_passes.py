"""Whole-column passes done in cache-sized pieces.

:func:`metrics_lib.evaluate` reads every input column a few times before it
scores the users (finiteness, id ranges, user blocks, rank order). Written
as plain numpy expressions over a column of a hundred million rows, each of
those passes allocates a temporary as long as the column (a boolean mask, a
difference) that goes out to main memory and back, and a fresh allocation
that large costs page faults on every call. Done piece by piece, the
temporaries stay in the processor's cache and are reused, and two
reductions over one piece read the column from memory once. The results
are exactly those of the one-expression forms; for columns shorter than one
piece the functions are those expressions.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PIECE", "min_max", "neighbours_where", "all_integral"]

# Elements per piece: 1 MiB of int64 or float64, small enough that a piece
# and its temporaries stay in a core's cache.
PIECE = 1 << 17


def min_max(values: np.ndarray):
    """``(values.min(), values.max())`` in one pass over memory.

    NaN propagates as in ``ndarray.min``/``max``. ``values`` must not be
    empty.
    """
    n = values.size
    if n <= PIECE:
        return values.min(), values.max()
    starts = range(0, n, PIECE)
    lows = np.empty(len(starts), dtype=values.dtype)
    highs = np.empty(len(starts), dtype=values.dtype)
    for j, start in enumerate(starts):
        piece = values[start:start + PIECE]
        lows[j] = piece.min()
        highs[j] = piece.max()
    return lows.min(), highs.max()


def neighbours_where(values: np.ndarray, compare, skip=None) -> np.ndarray:
    """``np.flatnonzero(compare(values[:-1], values[1:]))`` piece by piece.

    ``compare`` is an element-wise numpy comparison such as ``np.not_equal``.
    Returns the positions ``i`` (int64) where ``compare(values[i],
    values[i + 1])`` holds, in increasing order, leaving out the positions in
    ``skip`` (sorted, distinct, each in ``0 .. len(values) - 2``; the last rows
    of blocks, whose next row belongs to another block).
    """
    n = values.size - 1
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    if skip is None:
        skip = np.zeros(0, dtype=np.int64)
    found = []
    for start in range(0, n, PIECE):
        stop = min(start + PIECE, n)
        holds = compare(values[start:stop], values[start + 1:stop + 1])
        inside = skip[np.searchsorted(skip, start):np.searchsorted(skip, stop)]
        holds[inside - start] = False
        hits = np.flatnonzero(holds)
        if hits.size:
            found.append(hits + start)
    return (np.concatenate(found) if len(found) > 1 else found[0] if found
            else np.zeros(0, dtype=np.int64))


def all_integral(values: np.ndarray) -> bool:
    """``bool(np.all(values == np.floor(values)))`` for a float array."""
    for start in range(0, values.size, PIECE):
        piece = values[start:start + PIECE]
        if not np.array_equal(piece, np.floor(piece)):
            return False
    return True
