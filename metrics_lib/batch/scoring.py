"""Scoring: every metric's values, chunk by chunk of users, by the batch kernels.

Each chunk's recommendations are joined with its judgements
(:func:`metrics_lib._kernels.lookup_grades`), the lists are condensed,
truncated or re-ordered as the options say, and each metric's batch kernel
(declared with the metric, :mod:`metrics_lib.ranking.registry`) reads the
chunk's tables (:class:`ChunkTables`). Chunks run in threads when ``n_jobs``
asks for them; a user's values depend on that user's rows only, so chunking
cannot change them.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np

from .._kernels import UserTable, block_starts, grade_levels, lookup_grades
from .._tie_kernels import (EXPECTATION_MODES, GROUP_BOUNDS, TIE_MODES, TieGroups,
                            refuse_unknown_options, reorder_hits)
from .._trec_kernels import TrecTable
from ..ranking import gain_grades, registry
from .chunks import _as_float, _chunk_inputs


class ChunkTables(NamedTuple):
    """What a metric's batch kernel reads for one chunk of users.

    ``binary``: the joined lists and judgements (:class:`UserTable`);
    ``graded``: the same with the grades as ``gain`` / ``min_grade`` turn
    them into gains (``binary`` itself when they do not); ``trec``: the table
    of trec_eval's whole-list measures (:class:`TrecTable`, ``None`` unless a
    metric reads it); ``gain``: the gain that applies to ``graded``;
    ``truncated``: whether ``truncate=`` cut the lists; ``rows``: the
    chunk's recommended rows before any cut, as ``(lengths, popularity)``
    (each user's number of rows, and each row's item popularity in rank
    order), when a metric reads ``item_popularity=`` (else ``None``; the
    popularity is ``None`` when only ``item_genres=`` or ``item_groups=`` is
    read); ``first_row``: the global index of the chunk's first recommended
    row (the rows of ``options["genre_rows"]`` and ``options["group_rows"]``
    from there are the chunk's).
    """

    binary: UserTable
    graded: UserTable
    trec: TrecTable | None
    gain: object
    truncated: bool
    rows: tuple | None = None
    first_row: int = 0


def _score_chunk(rec_keys, lengths, truth_code, truth_keys, grades, n_users,
                 row_offset, truth_index, *, levels, options):
    """Join and metric values of one chunk of users (runs in a worker thread).

    Returns a dict with the first duplicate recommendation row and judgement
    (global indices, or -1; the values are skipped when there is one) and,
    per metric name, ``(values, empty_users)`` over the chunk's user codes.
    """
    hit_rows, hit_grades, dup_row, dup_truth = lookup_grades(
        rec_keys, lengths, truth_code, truth_keys, grades)
    out = {"dup_row": dup_row + row_offset if dup_row >= 0 else -1,
           "dup_truth": (-1 if dup_truth < 0
                         else dup_truth + truth_index if np.isscalar(truth_index)
                         else int(truth_index[dup_truth])),
           # the chunk's users with at least one judgement
           "judged": np.bincount(truth_code, minlength=n_users) > 0,
           "values": {}}
    if dup_row >= 0 or dup_truth >= 0:
        return out
    if options["candidates"] == "recommended":
        # the judgements of listed items only: exactly the joined rows
        truth_code = np.searchsorted(block_starts(lengths), hit_rows, side="right") - 1
        grades = hit_grades
    if options["score_threshold"] is not None:
        # rows scored at or below the threshold stay in the list but are no hits;
        # the judgements (truth_code, grades) keep them: |R| does not change
        below = options["score_below"][row_offset:row_offset + rec_keys.size]
        # (a negative grade, in the pool but unjudged, stays unjudged)
        hit_grades = np.where(below[hit_rows], np.minimum(hit_grades, 0.0), hit_grades)
    mode = options["ties"]
    if mode in TIE_MODES:  # tie groups of this chunk's rows (see _tie_kernels)
        first = options["tie_first"][row_offset:row_offset + rec_keys.size]
        if mode in EXPECTATION_MODES:
            refuse_unknown_options(mode, options)
            groups = TieGroups(lengths, first, hit_rows, hit_grades, truth_code,
                               grades, n_users)
            for name, kind, k in options["metrics"]:
                out["values"][name] = groups.measure(mode, kind, k, _own(options, name))
            return out
        bounded = [metric for metric in options["metrics"] if metric[1] in GROUP_BOUNDS]
        if bounded:  # bounds that are no re-ordering by grade (see _tie_kernels)
            groups = TieGroups(lengths, first, hit_rows, hit_grades, truth_code,
                               grades, n_users)
            for name, kind, k in bounded:
                out["values"][name] = groups.measure(mode, kind, k, _own(options, name))
        hit_rows, hit_grades = reorder_hits(first, hit_rows, hit_grades, mode)
    rows = None
    if "popularity_rows" in options:  # item data of every row, before any cut
        rows = (lengths, options["popularity_rows"][row_offset:row_offset + rec_keys.size])
    elif "genre_rows" in options or "group_rows" in options:  # read from first_row
        rows = (lengths, None)
    truncate = options["truncate"]
    if options["judged_only"] or truncate is not None:
        lengths, hit_rows, hit_grades = _reshape_lists(
            lengths, hit_rows, hit_grades, options["judged_only"], truncate)
    metrics = [(name, registry.get(kind), k) for name, kind, k in options["metrics"]
               if name not in out["values"]]
    table = UserTable(lengths, hit_rows, hit_grades, truth_code, grades, n_users,
                      levels=levels)
    gain, gain_table = options["gain"], table
    if options["gain_transform"] and any(metric.graded for _, metric, _ in metrics):
        # NDCG and DCG of the transformed grades (binary, a gain map, min_grade)
        args = (gain, options["relevance_level"], options["min_grade"])
        hit_gains, gain = gain_grades(hit_grades, None, *args)
        truth_gains, _ = gain_grades(grades, None, *args)
        gain_table = UserTable(lengths, hit_rows, hit_gains, truth_code, truth_gains,
                               n_users, levels=options["gain_levels"])
    trec = (TrecTable(table.list_len, lengths, hit_rows, hit_grades, truth_code,
                      grades, n_users)
            if any(metric.table == "trec" for _, metric, _ in metrics) else None)
    del hit_rows, hit_grades
    tables = ChunkTables(binary=table, graded=gain_table, trec=trec, gain=gain,
                         truncated=truncate is not None, rows=rows, first_row=row_offset)
    for name, metric, k in metrics:  # each metric's batch kernel (its module)
        out["values"][name] = metric.batch(tables, k, _own(options, name))
    return out


def _own(options, name):
    """The options as metric ``name``'s kernel sees them: its named parameters
    (``rbp(p=0.8)``) as ``options["parameters"]``."""
    return dict(options, parameters=options["metric_parameters"][name])


def _reshape_lists(lengths, hit_rows, hit_grades, judged_only, truncate):
    """Block layout of the condensed (``judged_only``) and truncated lists.

    Only the judged rows carry information, so both operations act on the
    block lengths and on the positions of the judged rows: condensing keeps
    just those rows (each user's new length is their count), truncating
    drops the rows past ``truncate`` and caps the lengths.
    """
    if judged_only:
        if hit_grades.size and hit_grades.min() < 0:  # in the pool but unjudged: dropped
            judged = hit_grades >= 0
            hit_rows, hit_grades = hit_rows[judged], hit_grades[judged]
        owner = np.searchsorted(block_starts(lengths), hit_rows, side="right") - 1
        lengths = np.bincount(owner, minlength=lengths.size).astype(np.int64)
        hit_rows = np.arange(hit_rows.size, dtype=np.int64)
    if truncate is not None:
        starts = block_starts(lengths)
        owner = np.searchsorted(starts, hit_rows, side="right") - 1
        offset = hit_rows - starts[owner]
        keep = offset < truncate
        lengths = np.minimum(lengths, truncate)
        hit_rows = block_starts(lengths)[owner[keep]] + offset[keep]
        hit_grades = hit_grades[keep]
    return lengths, hit_rows, hit_grades


def score_users(rec_keys, lengths, truth_runs, truth_keys, grades, options, *, n_extra,
                n_jobs, span):
    """The scored chunks (see :func:`_score_chunk`), in user order."""
    levels = grade_levels(grades)
    if options["gain_transform"]:
        # checks every grade against a gain map, and fixes the levels of the
        # transformed grades once for all chunks
        options = dict(options, gain_levels=grade_levels(gain_grades(
            _as_float(grades), None, options["gain"], options["relevance_level"],
            options["min_grade"])[0]))
    n_chunks, chunks = _chunk_inputs(rec_keys, lengths, truth_runs, truth_keys, grades,
                                     n_extra=n_extra, n_jobs=n_jobs, span=span)
    if n_chunks == 1 or n_jobs == 1:
        return [_score_chunk(*chunk, levels=levels, options=options) for chunk in chunks]
    with ThreadPoolExecutor(max_workers=min(n_jobs, n_chunks)) as pool:
        return list(pool.map(
            lambda chunk: _score_chunk(*chunk, levels=levels, options=options), chunks))
