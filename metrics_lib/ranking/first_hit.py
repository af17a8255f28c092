"""First hit: the rank of the first relevant item (a toy metric, CONTRIBUTING.md).

Definition, for one user: the rank (1-based) of the first item among the top
``k`` whose grade is at or above ``relevance_level``; 0 when there is none.
Edge case: a user with no relevant item judged gets the ``empty`` policy.
"""

from __future__ import annotations

import numpy as np

from ._common import _binary_inputs, _no_relevant
from .registry import Metric, register


def first_hit_rank(recommended, relevant, k=None, *, relevance_level=1, empty="zero"):
    """Rank of the first relevant item in the top ``k`` (0 if none).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
    relevance_level : float, default=1
        Minimum grade of a relevant item.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.

    Returns
    -------
    float

    Examples
    --------
    >>> first_hit_rank(["a", "b", "c"], {"b"})
    2.0
    """
    hits, n_relevant, _, _ = _binary_inputs(recommended, relevant, k, relevance_level,
                                            empty)
    if n_relevant == 0:
        return _no_relevant(empty)
    ranks = np.flatnonzero(hits)
    return float(ranks[0] + 1) if ranks.size else 0.0


def _batch(tables, k, options):
    table, level = tables.binary, options["relevance_level"]
    users, positions, _ = table._selected(k, level)
    values = np.full(table.n_users, np.inf)
    np.minimum.at(values, users, positions)
    values[np.isinf(values)] = 0.0
    return values, table.n_relevant(level) == 0


register(Metric(name="first_hit", aliases=("first_hit",), per_list=first_hit_rank,
                batch=_batch, keywords=("empty",)))
