"""Chunks: the block layout split into contiguous chunks of users.

Chunks hold about equal numbers of recommendation rows, one per thread, or
about ``_ROWS_PER_CHUNK`` rows in one thread so that each chunk's arrays stay
in the processor's cache; a user's values depend on that user's rows only,
so chunking cannot change them.
"""

from __future__ import annotations

import numpy as np

from .._kernels import _stable_order
from .._passes import neighbours_where


# Below this many recommendation rows per thread, a thread costs more than it
# saves: the input is scored in the calling thread.
_MIN_ROWS_PER_THREAD = 50_000


# Above this many recommendation rows, the users are scored in chunks of
# about this many rows even in one thread: each chunk's judgements and hits
# then stay in the processor's cache, so that the cost per row does not grow
# with the table (a user's values depend on the user's rows only, so the
# result is the same bit for bit).
_ROWS_PER_CHUNK = 1_000_000


def _concat(arrays):
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _as_float(grades: np.ndarray) -> np.ndarray:
    """Grades as float64 (integer grades are converted part by part)."""
    return grades.astype(np.float64, copy=False)


def _expand_runs(truth_runs, n_rows: int) -> np.ndarray:
    """The code of every truth row from ``(starts, codes)`` runs."""
    starts, codes = truth_runs
    if starts is None:
        return codes
    return np.repeat(codes, np.diff(np.r_[starts, n_rows]))


def _code_of_row(truth_runs, row: int) -> int:
    """The code of one truth row from ``(starts, codes)`` runs."""
    starts, codes = truth_runs
    run = row if starts is None else int(np.searchsorted(starts, row, side="right")) - 1
    return int(codes[run])


def _chunk_inputs(rec_keys, lengths, truth_runs, truth_keys, grades, *, n_extra,
                  n_jobs, span):
    """Split the block layout into contiguous chunks of users.

    Returns ``(n_chunks, chunks)``, where ``chunks`` yields one tuple
    ``(rec_keys, lengths, truth_code, truth_keys, grades, n_users,
    row_offset, truth_index)`` per chunk: the chunk's arrays with user
    codes counted from 0, where ``row_offset`` and ``truth_index`` (an offset
    when the chunk's judgements are a slice, else their indices) map its row
    and judgement indices back. Chunks hold
    about equal numbers of recommendation rows and keep the users' order;
    users without recommendations (codes from ``len(lengths)`` on) go with
    the last chunk. A single chunk is the input itself, untouched. Each
    chunk's arrays are made only when it is asked for, so that in one thread
    they are still in the processor's cache when the chunk is scored.
    ``span`` bounds every item key (``keys < span``); ``truth_runs`` are the
    judged users' codes as runs (:func:`_code_runs`).
    """
    n_blocks = lengths.size
    n_truth = truth_keys.size
    n_chunks = min(max(min(n_jobs, rec_keys.size // _MIN_ROWS_PER_THREAD),
                       rec_keys.size // _ROWS_PER_CHUNK), n_blocks)
    if n_chunks <= 1:
        return 1, iter([(rec_keys, lengths, _expand_runs(truth_runs, n_truth),
                         truth_keys, _as_float(grades), n_blocks + n_extra, 0, 0)])
    # The join keys must fit for the whole table, as without chunks.
    if (n_blocks + n_extra) * span >= 2**62:
        raise OverflowError("too many (user, item) pairs for 64-bit join keys")
    ends = np.cumsum(lengths)
    targets = rec_keys.size * np.arange(1, n_chunks) / n_chunks
    cuts = np.unique(np.searchsorted(ends, targets, side="left") + 1)
    bounds = np.r_[0, cuts[cuts < n_blocks], n_blocks]
    # Judgements grouped by user in block order (the usual case) split into
    # slices; otherwise each chunk gathers its own, in their original order.
    starts, codes = truth_runs
    grouped = not neighbours_where(codes, np.greater).size
    if grouped:  # chunk j holds the runs run_bounds[j] .. run_bounds[j + 1] - 1
        run_bounds = np.r_[0, np.searchsorted(codes, bounds[1:-1]), codes.size]
        row_of_run = (np.arange(n_truth + 1) if starts is None
                      else np.r_[starts, n_truth])
    else:  # each chunk's judgements, in their original order
        truth_code = _expand_runs(truth_runs, n_truth)
        owner = np.searchsorted(bounds[1:-1], truth_code, side="right")
        by_owner = _stable_order(owner)
        owner_bounds = np.r_[0, np.cumsum(np.bincount(owner, minlength=bounds.size - 1))]
        del owner

    def chunks():
        for j in range(bounds.size - 1):
            first, stop = int(bounds[j]), int(bounds[j + 1])
            row_start = int(ends[first - 1]) if first else 0
            row_stop = int(ends[stop - 1])
            if grouped:
                run_start, run_stop = int(run_bounds[j]), int(run_bounds[j + 1])
                index = slice(int(row_of_run[run_start]), int(row_of_run[run_stop]))
                mapping = index.start
                chunk_codes = codes[run_start:run_stop] - first
                if starts is not None:
                    chunk_codes = np.repeat(
                        chunk_codes, np.diff(row_of_run[run_start:run_stop + 1]))
            else:
                index = mapping = by_owner[owner_bounds[j]:owner_bounds[j + 1]]
                chunk_codes = truth_code[index] - first
            last = j == bounds.size - 2
            yield (rec_keys[row_start:row_stop], lengths[first:stop],
                   chunk_codes, truth_keys[index], _as_float(grades[index]),
                   stop - first + (n_extra if last else 0), row_start, mapping)
    return bounds.size - 1, chunks()
