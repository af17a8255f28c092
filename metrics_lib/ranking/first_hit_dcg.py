"""Discounted gain of the first relevant item (a toy metric: issue 24's recipe check).

Definition, for one user: ``1 / log2(1 + r)`` where ``r`` is the rank
(1-based) of the first item of the list whose grade is at or above
``relevance_level``, 0 when none is in the top ``k``.

Edge cases: a user with no relevant item judged gets the ``empty`` policy (0
by default); a list shorter than ``k`` is scored as it is.
"""

from __future__ import annotations

import numpy as np

from ._common import _binary_inputs, _no_relevant, _tied
from .registry import Metric, register


def first_hit_dcg_at_k(recommended, relevant, k=None, *, relevance_level=1,
                       empty="zero", judged_only=False, truncate=None,
                       candidates="all", scores=None, ties="input",
                       score_threshold=None):
    """``1 / log2(1 + r)`` for the rank ``r`` of the first relevant item in the top ``k``.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; a first hit below rank ``k`` scores 0.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    judged_only, truncate, candidates, scores, ties, score_threshold
        As in :func:`metrics_lib.reciprocal_rank`.

    Returns
    -------
    float
        In ``[0, 1]``.

    Examples
    --------
    >>> from metrics_lib.ranking.first_hit_dcg import first_hit_dcg_at_k
    >>> first_hit_dcg_at_k(["a", "b", "c"], {"c"}, k=5)
    0.5
    >>> first_hit_dcg_at_k(["a", "b", "c"], {"c"}, k=2)
    0.0
    """
    tied = _tied(first_hit_dcg_at_k, "first_hit_dcg", recommended, relevant, k,
                 scores, ties, score_threshold=score_threshold,
                 relevance_level=relevance_level, empty=empty,
                 judged_only=judged_only, truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
    hits, n_relevant, _, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    positions = np.flatnonzero(hits)
    return float(1.0 / np.log2(positions[0] + 2.0)) if positions.size else 0.0


def _batch(tables, k, options):
    """One value per user of the chunk, from the hits of ``tables.binary``."""
    table = tables.binary
    level = options["relevance_level"]
    keep = table.hit_grade >= level
    if k is not None and not tables.truncated:
        keep &= table.hit_pos <= k
    users, pos = table.hit_user[keep], table.hit_pos[keep]
    # hit rows are in list order, so a user's first row is its first hit
    first_users, first = np.unique(users, return_index=True)
    values = np.zeros(table.n_users, dtype=np.float64)
    values[first_users] = 1.0 / np.log2(pos[first] + 1.0)
    return values, table.n_relevant(level) == 0


register(Metric(
    name="first_hit_dcg", aliases=("first_hit_dcg",), per_list=first_hit_dcg_at_k,
    batch=_batch, keywords=("empty",)))
