"""Users: the recommendations grouped by user, and every user's integer code.

Blocks of rows, one per recommended user in first-seen order, get codes
``0..B-1``; users judged but never recommended get the codes after them. The
judgements' codes are kept as runs (one code per run of rows of one user),
which each chunk of users expands for itself.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._kernels import _stable_order
from .._missing import report_missing
from .._passes import min_max, neighbours_where
from .._validation import _as_python_id as _plain


def _group_by_user(users: np.ndarray):
    """Block users, block lengths and the permutation that groups the rows.

    The permutation is ``None`` when each user's rows are already
    contiguous, which the common output of a recommender (one block per
    user) is; checking that costs one comparison per row.
    """
    n = len(users)
    if users.dtype.kind in "iub" and n:
        ids = users
        starts = neighbours_where(ids, np.not_equal) + 1
        first_ids = ids[np.r_[0, starts]]
        # users in increasing order (the usual case) are unique without hashing
        if (first_ids.size < 2 or not neighbours_where(first_ids, np.greater_equal).size
                or pd.Index(first_ids).is_unique):
            block_users = pd.Index(first_ids)
            lengths = np.diff(np.r_[0, starts, n]).astype(np.int64)
            return block_users, lengths, None
    codes, block_users = pd.factorize(users)
    lengths = np.bincount(codes, minlength=block_users.size).astype(np.int64)
    order = None
    if codes.size > 1 and np.any(codes[1:] < codes[:-1]):
        order = _stable_order(codes)
    return pd.Index(block_users), lengths, order


def _user_codes(block_users: pd.Index, truth_users: np.ndarray) -> np.ndarray:
    """Block code of every judged user, -1 for users without a block.

    ``block_users.get_indexer(truth_users)``; integer ids of a moderate span
    (the usual 0..N-1 user numbers) go through a lookup table instead of a
    hash table, several times faster.
    """
    ids = block_users.to_numpy()
    if (ids.size and ids.dtype.kind in "iu" and truth_users.dtype == ids.dtype
            and truth_users.size):
        low, high = (int(bound) for bound in min_max(ids))
        if high - low < 4 * ids.size + 1024:
            if 0 < low and high < 4 * ids.size + 1024:
                low = 0  # a table from 0 spares shifting every judged id
            table = np.full(high - low + 1, -1, dtype=np.int64)
            table[ids - ids.dtype.type(low)] = np.arange(ids.size)
            truth_low, truth_high = (int(bound) for bound in min_max(truth_users))
            if truth_low >= low and truth_high <= high:
                return table.take(truth_users if low == 0
                                  else truth_users - truth_users.dtype.type(low))
            inside = (truth_users >= low) & (truth_users <= high)
            codes = np.full(truth_users.size, -1, dtype=np.int64)
            codes[inside] = table[truth_users[inside] - truth_users.dtype.type(low)]
            return codes
    return block_users.get_indexer(truth_users)


def _code_runs(block_users: pd.Index, truth_users: np.ndarray):
    """Block codes of the judged users (see :func:`_user_codes`), as runs.

    Returns ``(starts, codes)``: truth rows ``starts[i]`` up to the next
    start hold the user coded ``codes[i]`` (int64, a fresh array). A table of
    judgements usually lists each user's rows together, so there are far
    fewer runs than rows and the codes of every row need never be written out
    at once (each chunk of users expands its own, :func:`_chunk_inputs`).
    ``starts`` is ``None`` when every row is its own run (ids other than
    integers, or rows of users mixed together).
    """
    if truth_users.dtype.kind in "iub" and truth_users.size > 1:
        starts = np.r_[0, neighbours_where(truth_users, np.not_equal) + 1]
        if 4 * starts.size <= truth_users.size:
            codes = _user_codes(block_users, truth_users[starts])
            return starts, codes.astype(np.int64, copy=False)
    codes = _user_codes(block_users, truth_users)
    return None, codes.astype(np.int64, copy=False)


def code_users(rec_users, truth_users, *, kind, dtype, missing):
    """Group the recommendations by user and code every user.

    Returns ``(lengths, order, truth_runs, n_blocks, n_extra, user_ids)``:
    the block lengths, the permutation that groups the rows (``None`` when
    they already are), the judged users' codes as runs
    (:func:`_code_runs`), the numbers of recommended users and of users only
    judged, and the ids of all users in code order. Judged users without
    recommendations are reported as ``missing`` says.
    """
    # Blocks 0..B-1 in first-seen order.
    block_users, lengths, order = _group_by_user(rec_users)
    # The judged users: blocks first, then users never recommended.
    run_starts, run_codes = _code_runs(block_users, truth_users)
    extra_users = block_users[:0]
    if run_codes.size and run_codes.min() < 0:
        unseen = run_codes < 0
        run_users = truth_users if run_starts is None else truth_users[run_starts]
        extra_codes, extra_users = pd.factorize(run_users[unseen])
        run_codes[unseen] = block_users.size + extra_codes
        del run_users, unseen
    if len(extra_users) and missing in ("warn", "raise"):
        # judged users: those never recommended, and the blocks with a judgement
        n_judged = len(extra_users) + int(np.count_nonzero(
            np.bincount(run_codes[run_codes < block_users.size],
                        minlength=block_users.size)))
        report_missing(missing, len(extra_users), n_judged, _plain(extra_users[0]))
    user_ids = pd.Index(block_users).append(pd.Index(extra_users))
    if kind == "str":
        user_ids = user_ids.astype(dtype if pd.api.types.is_string_dtype(dtype)
                                   else object)
    return (lengths, order, (run_starts, run_codes), block_users.size,
            len(extra_users), user_ids)
