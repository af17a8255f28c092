"""Vectorised kernels behind :func:`metrics_lib.evaluate` (numpy only).

The batch pipeline (``metrics_lib/batch/``) turns two DataFrames into plain arrays in a
*block layout*: the recommendation rows of one user form one contiguous
block, blocks are numbered ``0 .. B-1`` in order, and inside a block the rows
are in rank order (rank 1 first). Users that only appear in the judgements
get the codes ``B, B+1, ...``. Every function here works on whole arrays:
there is no Python loop over users. Per-user results come from
``np.bincount`` over user codes, per-row ranks from block offsets, and the
(user, item) join from one sort per user of the user's recommended and judged
items together (:func:`_join_in_rows`), or, for very uneven lists, from one
sort inside each block plus ``np.searchsorted``.
"""

from __future__ import annotations

import math

import numpy as np

from ._passes import all_integral, neighbours_where

__all__ = [
    "block_starts",
    "segment_argsort",
    "in_block_order",
    "lookup_grades",
    "grade_levels",
    "UserTable",
]

# Padding a ragged layout into a (blocks x longest block) matrix is worth it
# while the matrix stays within this factor of the number of rows.
_PAD_FACTOR = 3

# Matrix entries per chunk of users in the row join (_join_in_rows): small
# enough for a core's cache, large enough that the loop over chunks costs
# little.
_JOIN_CHUNK = 1 << 17

# From this highest grade on, exponential gains are scaled per user (see
# UserTable._gain): 2**1024 overflows float64, and a sum of gains overflows
# earlier. Below it, the plain gains are exact enough and cheaper.
_EXP_SCALE_FROM = 512


def block_starts(lengths: np.ndarray) -> np.ndarray:
    """Offset of the first row of each block."""
    starts = np.zeros(lengths.size, dtype=np.int64)
    if lengths.size > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    return starts


def segment_argsort(keys: tuple[np.ndarray, ...], lengths: np.ndarray, *,
                    stable: bool = True) -> np.ndarray:
    """Permutation that sorts every block by ``keys`` (``np.lexsort`` order).

    The last key is the primary one, as in :func:`numpy.lexsort`; the sort is
    stable, so rows equal on every key keep their input order. With
    ``stable=False`` (one key only) the order of equal keys is unspecified,
    which is faster; then no key may equal the largest value of its dtype. Blocks keep
    their place. Short blocks of equal (or similar) length are sorted as the
    rows of a 2-D matrix, which costs O(n log L) for blocks of length L
    instead of O(n log n) for one global sort.
    """
    n = int(lengths.sum())
    n_blocks = lengths.size
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = block_starts(lengths)
    longest = int(lengths.max())
    if n_blocks * longest <= _PAD_FACTOR * n:
        if np.all(lengths == longest):
            matrices = [key.reshape(n_blocks, longest) for key in keys]
            valid = None
        else:
            # Pad every block to the longest one; padding sits after the real
            # rows and the sort is stable, so real rows stay in front even if
            # they equal the padding value.
            row = np.repeat(np.arange(n_blocks), lengths)
            col = np.arange(n) - starts[row]
            flat = row * longest + col
            del row, col
            matrices = []
            for key in keys:
                fill = (np.iinfo(key.dtype).max if key.dtype.kind in "iu"
                        else np.inf)
                matrix = np.full(n_blocks * longest, fill, dtype=key.dtype)
                matrix[flat] = key
                matrices.append(matrix.reshape(n_blocks, longest))
            del flat
            valid = np.arange(longest)[None, :] < lengths[:, None]
        if len(matrices) == 1:
            order = np.argsort(matrices[0], axis=1,
                               kind="stable" if stable else "quicksort")
        else:
            order = np.lexsort(matrices, axis=-1)
        del matrices
        order += starts[:, None]
        return order.ravel() if valid is None else order[valid]
    # Very ragged blocks: one global sort with the block number as primary key.
    block = np.repeat(np.arange(n_blocks), lengths)
    return np.lexsort(tuple(keys) + (block,))


def in_block_order(values: np.ndarray, descending: bool, tie_key, ties: str,
                   lengths: np.ndarray) -> bool:
    """True if every block is already in rank order.

    Rank order: ``values`` descending (scores) or ascending (ranks), and
    equal values ordered by the tie key as the ``ties`` rule says (``"..._desc"``:
    decreasing key, ``"..._asc"``: increasing, ``"input"``: any order).
    ``tie_key(rows)`` returns the keys of the given rows: it is only called
    for the neighbours that are not strictly ordered, which are few when
    scores rarely tie, so a costly key (the text order of integer ids) costs
    nothing on lists without ties.
    """
    if values.size < 2:
        return True
    # neighbours not strictly in order (the values are finite: no NaN)
    # the last row of a block is compared with the next block's first: skipped
    suspects = neighbours_where(values, np.less_equal if descending else np.greater_equal,
                                skip=np.cumsum(lengths[:-1]) - 1)
    if not suspects.size:
        return True
    if not np.all(values[suspects] == values[suspects + 1]):
        return False
    if ties == "input":
        return True
    # one call, so that keys computed as ranks are comparable
    keys = tie_key(np.concatenate([suspects, suspects + 1]))
    before, after = keys[:suspects.size], keys[suspects.size:]
    return bool(np.all(before > after) if ties.endswith("_desc") else np.all(before < after))


def _stable_order(codes: np.ndarray) -> np.ndarray:
    """``np.argsort(codes, kind="stable")`` for non-negative integer codes.

    The index is packed into the low bits of each code, so that a plain
    (unstable, vectorised) integer sort gives the stable order: several times
    faster than a stable argsort.
    """
    low = max(int(codes.size - 1).bit_length(), 1)
    top = int(codes.max(initial=0))
    if top.bit_length() + low > 62:
        return np.argsort(codes, kind="stable")
    packed = (codes.astype(np.int64) << low) | np.arange(codes.size)
    packed.sort()
    packed &= (1 << low) - 1
    return packed


def _rows_in_order(hit_rows: np.ndarray, judgement: np.ndarray, n: int, m: int):
    """``hit_rows`` sorted increasingly, with ``judgement`` carried along.

    The judgement index is packed into the low bits of the row index, so
    that a plain integer sort does the work of an argsort (much faster).
    """
    low = max(int(m - 1).bit_length(), 1)
    if int(n - 1).bit_length() + low <= 63:
        packed = (hit_rows.astype(np.int64) << low) | judgement
        # the rows arrive grouped by user (in item order inside a user): a
        # merge sort uses those runs and is several times faster here
        packed.sort(kind="stable")
        return packed >> low, packed & ((1 << low) - 1)
    by_row = np.argsort(hit_rows)  # pragma: no cover - beyond 2**63 rows and judgements
    return hit_rows[by_row], judgement[by_row]  # pragma: no cover


def _first_duplicate(keys: np.ndarray) -> int:
    """Index of the first of two equal keys in stable sorted order, or -1."""
    if keys.size < 2:
        return -1
    order = np.argsort(keys, kind="stable")
    same = keys[order[1:]] == keys[order[:-1]]
    return int(order[np.argmax(same)]) if same.any() else -1


def _fill_recommended(matrix, item_key, lengths, starts, padding, columns, bits,
                      equal_lengths):
    """Write one chunk's recommended items (packed above their column) and padding.

    ``item_key``, ``lengths`` and ``starts`` are the chunk's: its rows, its
    users' list lengths and their first rows (in the whole table).
    """
    users, rec_width = matrix.shape[0], columns.size
    if equal_lengths:  # a top-k table: one strided write
        matrix[:, rec_width:] = padding[rec_width:]
        target = matrix[:, :rec_width]
        np.left_shift(item_key.reshape(users, rec_width), bits, out=target,
                      casting="unsafe")
        target |= columns
        return
    matrix[:] = padding
    row = np.repeat(np.arange(users), lengths)
    col = np.arange(item_key.size) - (starts - starts[0])[row]
    matrix.reshape(-1)[row * matrix.shape[1] + col] = (item_key << bits) | col


def _equal_neighbours(matrix, bits, key_buffer, same_buffer):
    """Neighbours with equal item keys in the sorted rows: hits and duplicates.

    Returns ``(row, first, second)``: the row (user in the chunk) of each
    pair and the columns of its left and right entries.
    """
    users, width = matrix.shape
    keys = np.right_shift(matrix, bits, out=key_buffer[:users * width].reshape(
        users, width))
    same = np.equal(keys[:, 1:], keys[:, :-1],
                    out=same_buffer[:users * (width - 1)].reshape(users, width - 1))
    pairs = np.flatnonzero(same)
    row = pairs // (width - 1)
    pairs += row  # the left neighbour's index in the flat matrix
    flat = matrix.reshape(-1)
    mask = (1 << bits) - 1
    first = flat[pairs] & mask
    pairs += 1
    second = flat[pairs] & mask
    return row, first, second


def _join_in_rows(item_key, lengths, truth_code, truth_item_key, truth_grade, span):
    """:func:`lookup_grades` by one sort per user of both sides together, or None.

    Every user gets one row of a matrix: the recommended item keys, then the
    judged ones, then padding. Each entry packs the item key above the
    column index (columns below the longest list hold recommendations, the
    others judgements). Sorting the rows brings equal items next to each
    other: a recommended item next to a judged one is a hit, two recommended
    (or two judged) ones a duplicate. One sort of short rows replaces a sort
    of the recommendations, a sort of the judgements and a binary search over
    all rows, and the entries fit in 32 bits when the item keys span fewer
    than about 2**31 / (longest list + most judgements of a user) values,
    which halves the memory traffic. Returns None when padding would waste
    too much memory (very uneven lists) or the packed keys would not fit in
    64 bits; the caller then joins by binary search.
    """
    n, n_blocks, m = item_key.size, lengths.size, truth_code.size
    if n == 0 or m == 0:
        return None
    in_blocks = truth_code < n_blocks
    judged = None if in_blocks.all() else np.flatnonzero(in_blocks)
    codes = truth_code if judged is None else truth_code[judged]
    per_user = np.bincount(codes, minlength=n_blocks)
    rec_width = int(lengths.max())
    width = rec_width + int(per_user.max(initial=0))
    if codes.size == 0 or n_blocks * width > _PAD_FACTOR * (n + codes.size):
        return None
    bits = max(int(width - 1).bit_length(), 1)
    # padding: item keys span .. span + width - 1, distinct, after every real key
    top = (span + width) << bits
    dtype = np.int32 if top <= 2**31 else np.int64 if top <= 2**62 else None
    if dtype is None:
        return None
    # Judgements grouped by user, in their input order inside a user.
    if codes.size > 1 and np.any(codes[1:] < codes[:-1]):
        order = _stable_order(codes)
        codes = codes[order]
        judged = order if judged is None else judged[order]
    truth_starts = block_starts(per_user)
    # (the judgements' columns and packed keys are computed chunk by chunk
    # below: no array of the size of the judgements is made here)
    padding = ((span + np.arange(width)) << bits).astype(dtype)
    columns = np.arange(rec_width, dtype=dtype)
    equal_lengths = bool(np.all(lengths == rec_width))
    starts = block_starts(lengths)
    # Users in chunks whose matrix fits in a core's cache: every pass over it
    # then reads cache instead of memory, and no large temporary is mapped.
    step = max(1, _JOIN_CHUNK // width)
    buffer = np.empty(min(step, n_blocks) * width, dtype=dtype)
    key_buffer = np.empty_like(buffer)
    same_buffer = np.empty(buffer.size, dtype=bool)
    # the judgement of each row of a piece (-1: none), to put hits in row order
    slot_buffer = np.empty(min(step, n_blocks) * rec_width, dtype=np.int64)

    def judgement_of(rows, cols):
        position = truth_starts[rows] + cols - rec_width
        return position if judged is None else judged[position]

    dup_row = dup_truth = -1
    found = []
    for user in range(0, n_blocks, step):
        stop = min(user + step, n_blocks)
        users = stop - user
        matrix = buffer[:users * width].reshape(users, width)
        row_start = int(starts[user])
        row_stop = int(starts[stop - 1] + lengths[stop - 1])
        _fill_recommended(matrix, item_key[row_start:row_stop], lengths[user:stop],
                          starts[user:stop], padding, columns, bits, equal_lengths)
        first_judged, stop_judged = int(truth_starts[user]), int(
            truth_starts[stop - 1] + per_user[stop - 1])
        local = codes[first_judged:stop_judged] - user  # row in this chunk
        col = np.arange(first_judged, stop_judged) - truth_starts[user:stop][local]
        col += rec_width
        items = (truth_item_key[first_judged:stop_judged] if judged is None
                 else truth_item_key[judged[first_judged:stop_judged]])
        local *= width
        local += col
        matrix.reshape(-1)[local] = (items << bits) | col
        del local, col, items
        matrix.sort(axis=1)
        row, first, second = _equal_neighbours(matrix, bits, key_buffer, same_buffer)
        row += user
        # columns ascend among equal keys: recommended ones come first
        rec_dup = second < rec_width     # two recommended rows
        truth_dup = first >= rec_width   # two judgements
        if dup_row < 0 and rec_dup.any():
            at = int(np.argmax(rec_dup))
            dup_row = int(starts[row[at]] + first[at])
        if dup_truth < 0 and truth_dup.any():
            at = int(np.argmax(truth_dup))
            dup_truth = int(judgement_of(row[at:at + 1], first[at:at + 1])[0])
        if dup_row >= 0 or dup_truth >= 0:
            continue  # no values are computed; keep looking for the first ones
        # Hits, back in block-layout order (by user, then rank): each hit row
        # is distinct (no duplicates were found), so writing the judgements
        # at their rows and reading the rows that got one sorts them, in one
        # pass over the piece's rows while they are in cache.
        slots = slot_buffer[:row_stop - row_start]
        slots.fill(-1)
        slots[(starts[row] - row_start) + first] = judgement_of(row, second)
        rows = np.flatnonzero(slots >= 0)
        found.append((rows + row_start, slots[rows]))
    del buffer, key_buffer, same_buffer, slot_buffer

    if dup_truth < 0 and judged is not None:
        # judgements of users without recommendations: not in the matrix
        others = np.flatnonzero(~in_blocks)
        first = _first_duplicate(truth_code[others].astype(np.int64) * span
                                 + truth_item_key[others])
        dup_truth = -1 if first < 0 else int(others[first])
    if dup_row >= 0 or dup_truth >= 0:
        return (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64), dup_row,
                dup_truth)
    hit_rows = np.concatenate([rows for rows, _ in found])
    judgement = np.concatenate([judgements for _, judgements in found])
    del found
    return hit_rows, truth_grade[judgement], dup_row, dup_truth


def lookup_grades(item_key: np.ndarray, lengths: np.ndarray, truth_code: np.ndarray,
                  truth_item_key: np.ndarray, truth_grade: np.ndarray):
    """The judged recommendation rows and their grades, by an in-block join.

    ``item_key`` holds non-negative integer item keys in block layout;
    ``truth_code`` the block code of each judgement (codes >= ``len(lengths)``
    are users without recommendations). Returns ``(hit_rows, hit_grades,
    dup_row, dup_truth)``: the block-layout indices of the recommendation rows
    that are judged (in increasing order) and their grades; ``dup_row`` is the
    index of a recommendation row whose (user, item) pair occurs twice (or
    -1), ``dup_truth`` the same for the judgements (an index into the truth
    arrays, or -1). The first duplicate in the order (user, item key) is
    reported.

    Two strategies give the same result: one sort per user of both sides
    together (:func:`_join_in_rows`, when every user's rows fit a matrix
    without much padding), else a sort of the recommendation keys inside each
    block and one binary search for every judgement.
    """
    n = item_key.size
    n_blocks = lengths.size
    span = int(max(item_key.max(initial=0), truth_item_key.max(initial=0))) + 1
    n_codes = int(max(n_blocks, truth_code.max(initial=-1) + 1))
    if n_codes * span >= 2**62:
        raise OverflowError("too many (user, item) pairs for 64-bit join keys")
    joined = _join_in_rows(item_key, lengths, truth_code, truth_item_key,
                           truth_grade, span)
    if joined is not None:
        return joined
    # (user code, item key) as one int64: sorted keys sort by user, then item.
    offsets = np.arange(n_blocks, dtype=np.int64) * span
    width = int(lengths[0]) if n else 0
    bits = max(int(width - 1).bit_length(), 1)
    if n and np.all(lengths == width) and (n_codes * span) << bits < 2**62:
        # Lists of equal length (a top-k table): sort (item key, column)
        # pairs packed into one integer along the rows of a matrix. A plain
        # sort is about twice as fast as an argsort, and the column that
        # comes back in the low bits locates each sorted key in its list.
        packed = (item_key.reshape(n_blocks, width) << bits) | np.arange(width)
        packed.sort(axis=1)
        column = (packed & ((1 << bits) - 1)).astype(np.min_scalar_type(width))
        packed >>= bits
        packed += offsets[:, None]
        keys = packed.reshape(-1)
        column = column.reshape(-1)

        def row_of(sorted_position):
            return (sorted_position // width) * width + column[sorted_position]
    else:
        order = segment_argsort((item_key,), lengths, stable=False)
        keys = item_key[order]
        keys += np.repeat(offsets, lengths)

        def row_of(sorted_position):
            return order[sorted_position]
    del offsets
    dup_row = -1
    if n > 1:
        same = keys[1:] == keys[:-1]
        if same.any():
            dup_row = int(row_of(np.argmax(same)))
        del same
    truth_keys = truth_code.astype(np.int64) * span + truth_item_key
    truth_order = _stable_order(truth_keys)
    truth_keys = truth_keys[truth_order]
    dup_truth = -1
    if truth_keys.size > 1:
        same = truth_keys[1:] == truth_keys[:-1]
        if same.any():
            dup_truth = int(truth_order[np.argmax(same)])
    hit_rows = np.zeros(0, dtype=np.int64)
    hit_grades = np.zeros(0, dtype=np.float64)
    if n and truth_keys.size:
        where = np.searchsorted(keys, truth_keys)
        found = where < n
        found[found] = keys[where[found]] == truth_keys[found]
        hit_rows, judgement = _rows_in_order(row_of(where[found]),
                                             truth_order[found], n, truth_keys.size)
        hit_grades = truth_grade[judgement]
    return hit_rows, hit_grades, dup_row, dup_truth


def grade_levels(grades: np.ndarray) -> int:
    """Highest grade if the grades are small integers (<= 64), else -1.

    Small integer grades let :class:`UserTable` compute the ideal DCG by
    counting instead of sorting. The caller decides once for the whole truth
    table, so that every chunk of users takes the same path.
    """
    top = grades.max(initial=0)
    if top > 64 or (grades.dtype.kind == "f" and not all_integral(grades)):
        return -1
    return int(top)


def _fit_int64(k):
    """A cut-off numpy can compare with: any k past int64 acts as no cut-off.

    No list or ideal list has 2**62 rows, so capping there changes no value
    (precision@k still divides by the k asked for).
    """
    return k if k is None or k < 2**62 else 2**62


def _first_in_run(codes: np.ndarray) -> np.ndarray:
    """Mask of the first element of every run of equal (sorted) codes."""
    first = np.ones(codes.size, dtype=bool)
    if codes.size > 1:
        first[1:] = codes[1:] != codes[:-1]
    return first


def _rank_in_run(codes: np.ndarray) -> np.ndarray:
    """1-based index of each element inside its run of equal codes."""
    index = np.arange(codes.size)
    run_start = np.maximum.accumulate(np.where(_first_in_run(codes), index, 0))
    return index - run_start + 1


def block_positions(lengths: np.ndarray, rows: np.ndarray):
    """Block (user code) and 1-based position of block-layout ``rows`` (increasing)."""
    width = int(lengths[0]) if lengths.size else 0
    if width and np.all(lengths == width):  # a top-k table: blocks of one length
        users, pos = np.divmod(rows, width)
        return users, pos + 1
    starts = block_starts(lengths)
    users = np.searchsorted(starts, rows, side="right") - 1
    return users, rows - starts[users] + 1


class UserTable:
    """Per-user quantities shared by all metrics, computed once.

    Parameters
    ----------
    lengths : int array (B,)
        Recommendation rows per block.
    hit_rows, hit_grades : arrays
        Block-layout indices (increasing) of the judged recommendation rows,
        and their grades.
    truth_code, truth_grade : arrays (m,)
        Block code and grade of every judgement.
    n_users : int
        Number of user codes (blocks plus users without recommendations).
    levels : int or None
        :func:`grade_levels` of the whole truth table (``None``: of
        ``truth_grade``). Fixing it makes a user's values independent of
        which other users share the table.
    """

    def __init__(self, lengths, hit_rows, hit_grades, truth_code, truth_grade,
                 n_users, levels=None):
        self.n_users = n_users
        self.levels = grade_levels(truth_grade) if levels is None else levels
        self.list_len = np.zeros(n_users, dtype=np.int64)
        self.list_len[:lengths.size] = lengths
        # The rows that can score: a positive grade (levels are > 0).
        positive = hit_grades > 0
        if positive.all():  # the usual case: no copies
            positive = slice(None)
        self.hit_user, self.hit_pos = block_positions(lengths, hit_rows[positive])
        self.hit_grade = hit_grades[positive]
        self.truth_code = truth_code
        self.truth_grade = truth_grade
        self.has_positive = np.bincount(truth_code[truth_grade > 0],
                                        minlength=n_users) > 0
        self._ideal_pos = None
        self._runs = None
        self._n_relevant = {}
        self._selections = {}

    # -- binary relevance -------------------------------------------------
    def n_relevant(self, level: float) -> np.ndarray:
        if level not in self._n_relevant:
            self._n_relevant[level] = np.bincount(
                self.truth_code[self.truth_grade >= level], minlength=self.n_users)
        return self._n_relevant[level]

    def _selected(self, k, level):
        """Users and positions of the hits at or above ``level`` within the
        first ``k`` rows, and the count per user; computed once per ``(k,
        level)`` (P@k and R@k share it). The arrays are shared: read only."""
        if (k, level) not in self._selections:
            keep = self.hit_grade >= level
            if k is not None:
                keep &= self.hit_pos <= k
            if keep.all():  # e.g. every hit within k: no copies
                users, pos = self.hit_user, self.hit_pos
            else:
                users, pos = self.hit_user[keep], self.hit_pos[keep]
            hits = np.bincount(users, minlength=self.n_users).astype(np.float64)
            self._selections[(k, level)] = users, pos, hits
        return self._selections[(k, level)]

    def binary(self, kind: str, k: int | None, level: float, denominator: str, *,
               precision_denominator: str = "k", recall_denominator: str = "relevant",
               truncated: bool = False):
        """Values of a binary-relevance metric and the mask of empty users.

        ``truncated``: the lists were cut to a fixed length beforehand
        (``evaluate(truncate=...)``); every hit of the cut list counts and
        ``k`` only enters the denominators.
        """
        # P@k divides by k as given; everything else compares positions with
        # k, where any k beyond int64 means "the whole list"
        cutoff = self.list_len.astype(np.float64) if k is None else float(k)
        k = _fit_int64(k)
        n_rel = self.n_relevant(level)
        users, pos, hits = self._selected(None if truncated else k, level)
        values = np.zeros(self.n_users, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            if kind == "count":  # num_rel_ret@k, never empty
                return hits.copy(), None
            if kind == "precision":
                if precision_denominator == "min_k":
                    cutoff = np.minimum(cutoff, n_rel)
                elif precision_denominator == "retrieved":
                    cutoff = np.minimum(cutoff, self.list_len)
                values = np.where(cutoff > 0, hits / cutoff, 0.0)
            elif kind == "recall":
                if recall_denominator == "min_k":
                    divisor = np.minimum(cutoff, n_rel)
                    values = np.where(divisor > 0, hits / divisor, 0.0)
                else:
                    values = hits / n_rel
            elif kind == "f1":
                values = np.where(hits > 0, 2.0 * hits / (cutoff + n_rel), 0.0)
            elif kind == "hit":
                values = (hits > 0).astype(np.float64)
            elif kind == "rr":
                first = _first_in_run(users)
                values[users[first]] = 1.0 / pos[first]
            elif kind == "ap":
                sums = np.bincount(users, weights=_rank_in_run(users) / pos,
                                   minlength=self.n_users)
                if denominator == "relevant":
                    divisor = n_rel.astype(np.float64)
                elif denominator == "min_k":
                    divisor = (n_rel.astype(np.float64) if k is None
                               else np.minimum(n_rel, k).astype(np.float64))
                elif denominator == "k":  # the front end makes sure k is given
                    divisor = cutoff
                else:
                    divisor = hits
                values = np.where(hits > 0, sums / divisor, 0.0)
            else:  # pragma: no cover - the front end only sends known kinds
                raise ValueError(f"unknown binary metric {kind!r}")
        empty_users = n_rel == 0
        return values, empty_users

    # -- graded relevance -------------------------------------------------
    @staticmethod
    def _gain(grades, gain, shift=None):
        """Linear or exponential gain; ``shift`` (per grade) scales by 2**-shift.

        ``2**grade - 1`` overflows float64 from grade 1024 on, and sums of such
        gains earlier. NDCG is a ratio of two sums over the same user, so both
        may be multiplied by ``2**-m`` (m: the user's highest grade): the gains
        become ``2**(grade - m) - 2**-m``, at most 1, and the ratio is unchanged.
        """
        if gain == "linear":
            return grades
        if shift is None:
            return np.exp2(grades) - 1.0
        return np.exp2(grades - shift) - np.exp2(-shift)

    @staticmethod
    def _discount(pos, log_base):
        return np.log(pos + 1.0) / math.log(log_base)

    def _dcg(self, k, gain, log_base, user_shift=None):
        keep = slice(None) if k is None else self.hit_pos <= k
        users, pos, grades = (self.hit_user[keep], self.hit_pos[keep],
                              self.hit_grade[keep])
        shift = None if user_shift is None else user_shift[users]
        return np.bincount(users, weights=self._gain(grades, gain, shift)
                           / self._discount(pos, log_base), minlength=self.n_users)

    def dcg(self, k, gain, log_base, truncated=False):
        k = None if truncated else _fit_int64(k)
        with np.errstate(over="ignore"):  # an overflow is reported just below
            values = self._dcg(k, gain, log_base)
        if not np.all(np.isfinite(values)):
            top = float(self.hit_grade.max(initial=0.0))
            raise ValueError(
                f"dcg with gain='exponential' exceeds the largest float64 (a grade of "
                f"{top:g} gives 2**{top:g} - 1); use gain='linear', smaller grades, "
                "or ndcg, which is scaled per user and stays finite")
        return values

    def _user_shift(self, gain):
        """Per-user highest grade when exponential gains need scaling, else None."""
        if gain != "exponential" or self.truth_grade.max(initial=0.0) < _EXP_SCALE_FROM:
            return None  # the common case keeps the plain (unscaled) gains
        top = np.zeros(self.n_users)
        np.maximum.at(top, self.truth_code, self.truth_grade)
        return top

    def _judged_ideal(self):
        """Codes, ideal positions and grades of the positive judgements."""
        if self._ideal_pos is None:
            positive = self.truth_grade > 0
            codes = self.truth_code[positive]
            grades = self.truth_grade[positive]
            order = np.lexsort((-grades, codes))
            codes, grades = codes[order], grades[order]
            self._ideal_pos = (codes, _rank_in_run(codes), grades)
        return self._ideal_pos

    def _ideal_by_counting(self, k, gain, log_base):
        """Ideal DCG without sorting grades, for small integer grades (or None).

        In the ideal list the c(u, g) items of grade g occupy one run of
        ranks, right after the items of higher grades; a run's discounts sum
        to a difference of the cumulative discount table. The counts c(u, g)
        come from a dense users x levels table while that table is no larger
        than the judgements; beyond (many users, many levels, few judgements
        each) from the distinct (user, grade) pairs, so that memory stays
        proportional to the input.
        """
        levels = self.levels
        if levels < 0:
            return None
        if levels == 0:  # no positive grade anywhere: every ideal DCG is 0
            return np.zeros(self.n_users)
        codes, grades = self.truth_code, self.truth_grade
        if self.n_users * (levels + 1) > max(grades.size, 1 << 16):
            return self._ideal_by_pairs(k, gain, log_base)
        counts = np.bincount(codes * (levels + 1) + grades.astype(np.int64),
                             minlength=self.n_users * (levels + 1))
        counts = counts.reshape(self.n_users, levels + 1)[:, :0:-1]  # grade top..1
        end = np.cumsum(counts, axis=1)
        start = end - counts
        longest = int(end[:, -1].max(initial=0))
        if k is not None:
            end, start, longest = np.minimum(end, k), np.minimum(start, k), min(longest, k)
        table = self._discount_table(longest, log_base)
        gains = self._gain(np.arange(levels, 0, -1, dtype=np.float64), gain)
        return (gains[None, :] * (table[end] - table[start])).sum(axis=1)

    def _discount_table(self, longest, log_base):
        """``table[n]``: sum of the first ``n`` discount weights."""
        table = np.zeros(longest + 1)
        table[1:] = np.cumsum(1.0 / self._discount(np.arange(1, longest + 1), log_base))
        return table

    def _grade_runs(self):
        """Distinct (user, grade) pairs of the positive judgements, computed once.

        Returns ``(users, grades, start, end)``: user ascending, grade
        descending, and the ranks ``start + 1 .. end`` that the pair's items
        take in the user's ideal list.
        """
        if self._runs is None:
            levels = self.levels
            positive = self.truth_grade > 0
            pair = np.sort(self.truth_code[positive] * (levels + 1)
                           + (levels - self.truth_grade[positive].astype(np.int64)))
            run_start = np.flatnonzero(_first_in_run(pair))
            counts = np.diff(np.r_[run_start, pair.size])
            pair = pair[run_start]
            users, grades = pair // (levels + 1), levels - pair % (levels + 1)
            del pair, run_start
            end = np.cumsum(counts)
            # cumulative count inside each user: subtract the earlier users' items
            end -= np.maximum.accumulate(np.where(_first_in_run(users), end - counts, 0))
            self._runs = (users, grades, end - counts, end)
        return self._runs

    def _ideal_by_pairs(self, k, gain, log_base):
        """The counting ideal DCG over the distinct (user, grade) pairs only."""
        users, grades, start, end = self._grade_runs()
        longest = int(end.max(initial=0))
        if k is not None:
            end, start, longest = np.minimum(end, k), np.minimum(start, k), min(longest, k)
        table = self._discount_table(longest, log_base)
        gains = self._gain(np.arange(self.levels + 1, dtype=np.float64), gain)
        return np.bincount(users, weights=gains[grades] * (table[end] - table[start]),
                           minlength=self.n_users)

    def ndcg(self, k, gain, log_base, ideal, truncated=False):
        """NDCG values and empty users; ``truncated`` as in :meth:`binary`."""
        k = _fit_int64(k)
        shift = self._user_shift(gain)
        dcg = self._dcg(None if truncated else k, gain, log_base, shift)
        if ideal == "k":
            # k items of the user's highest grade (RecTools' ideal; the front
            # end makes sure k is given)
            top = np.zeros(self.n_users)
            np.maximum.at(top, self.truth_code, self.truth_grade)
            weight = float(self._discount_table(k, log_base)[-1])
            ideal_dcg = self._gain(top, gain, shift) * weight
            with np.errstate(divide="ignore", invalid="ignore"):
                values = np.where(ideal_dcg > 0, dcg / ideal_dcg, 0.0)
            return values, ~self.has_positive
        ideal_dcg = (self._ideal_by_counting(k, gain, log_base)
                     if ideal == "judged" and shift is None else None)
        if ideal_dcg is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                values = np.where(ideal_dcg > 0, dcg / ideal_dcg, 0.0)
            return values, ~self.has_positive
        if ideal == "judged":
            codes, pos, grades = self._judged_ideal()
        else:
            keep = np.ones(self.hit_pos.size, dtype=bool) if k is None \
                else self.hit_pos <= k
            codes, grades = self.hit_user[keep], self.hit_grade[keep]
            order = np.lexsort((-grades, codes))
            codes, grades = codes[order], grades[order]
            pos = _rank_in_run(codes)
        if k is not None:
            keep = pos <= k
            codes, pos, grades = codes[keep], pos[keep], grades[keep]
        ideal_dcg = np.bincount(codes, weights=self._gain(
                                    grades, gain, None if shift is None else shift[codes])
                                / self._discount(pos, log_base),
                                minlength=self.n_users)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(ideal_dcg > 0, dcg / ideal_dcg, 0.0)
        return values, ~self.has_positive
