"""Metrics computed from the rank of one correct answer per query.

Knowledge-graph completion and single-answer retrieval report, for each test
query, the rank at which the one true answer was placed. Mean Rank, MRR and
Hits@k are then plain averages over those ranks.
"""

from __future__ import annotations

import numpy as np

from ._validation import check_choice, check_k, check_real_array, show

__all__ = [
    "mean_rank",
    "hits_at_k",
    "mean_reciprocal_rank_from_ranks",
    "rank_with_ties",
]

TIE_METHODS = ("optimistic", "pessimistic", "average")


def _check_ranks(ranks) -> np.ndarray:
    values = check_real_array("ranks", ranks)
    if np.any(values < 1):
        bad = values[values < 1][0]
        raise ValueError(f"ranks must be >= 1 (rank 1 is the top); found {show(bad)}")
    return values


def mean_rank(ranks):
    """Average rank of the correct answers (lower is better).

    Parameters
    ----------
    ranks : sequence of float
        One rank per query, each >= 1. Average ranks of tied answers (such as
        2.5) are allowed.

    Returns
    -------
    float
        Mean rank, >= 1.

    See Also
    --------
    mean_reciprocal_rank_from_ranks, hits_at_k, rank_with_ties

    Notes
    -----
    Mean Rank is dominated by the worst queries: one answer at rank 10,000
    outweighs a hundred answers at rank 1. MRR and Hits@k are more robust.

    References
    ----------
    .. [1] Bordes et al., "Translating embeddings for modeling
       multi-relational data", NeurIPS 2013.

    Examples
    --------
    >>> from metrics_lib import mean_rank
    >>> mean_rank([1, 3, 3, 5, 2])
    2.8
    """
    return float(np.mean(_check_ranks(ranks)))


def hits_at_k(ranks, k):
    """Fraction of queries whose correct answer is ranked ``k`` or better.

    Parameters
    ----------
    ranks : sequence of float
        One rank per query, each >= 1.
    k : int
        Cut-off (positive).

    Returns
    -------
    float
        Hits@k in ``[0, 1]``.

    See Also
    --------
    hit_at_k : the same indicator for one ranked list and a relevant set.

    Notes
    -----
    :math:`Hits@k = \\frac{1}{N} \\sum_i \\mathbb{1}[rank_i \\le k]`.

    References
    ----------
    .. [1] Bordes et al., "Translating embeddings for modeling
       multi-relational data", NeurIPS 2013.

    Examples
    --------
    >>> from metrics_lib import hits_at_k
    >>> hits_at_k([3, 2, 1], k=1), hits_at_k([3, 2, 1], k=3)
    (0.3333333333333333, 1.0)
    """
    k = check_k(k, allow_none=False)
    return float(np.mean(_check_ranks(ranks) <= k))


def mean_reciprocal_rank_from_ranks(ranks):
    """Mean of ``1 / rank`` over queries.

    Parameters
    ----------
    ranks : sequence of float
        One rank per query, each >= 1.

    Returns
    -------
    float
        MRR in ``(0, 1]``.

    See Also
    --------
    mean_reciprocal_rank : the same from ranked lists and relevant sets.

    Notes
    -----
    With ties, pass the tie-aware rank of :func:`rank_with_ties`; note that
    ``1 / average rank`` is not the expected reciprocal rank under random
    tie-breaking (the mean of ``1 / r`` over the tied positions), so the
    rule used should be reported.

    References
    ----------
    .. [1] Voorhees, "The TREC-8 Question Answering Track Report", TREC 1999.

    Examples
    --------
    >>> from metrics_lib import mean_reciprocal_rank_from_ranks
    >>> round(mean_reciprocal_rank_from_ranks([3, 2, 1]), 4)
    0.6111
    """
    return float(np.mean(1.0 / _check_ranks(ranks)))


def rank_with_ties(scores, target, *, ties="average"):
    """Rank of ``scores[target]`` among ``scores`` (higher score = better).

    Parameters
    ----------
    scores : sequence of float
        Scores of all candidates, the correct one included.
    target : int
        Index of the correct candidate in ``scores``.
    ties : {"optimistic", "pessimistic", "average"}, default="average"
        How candidates with exactly the target's score are counted:
        ``"optimistic"`` puts the target first among them, ``"pessimistic"``
        last, and ``"average"`` takes the mean of the two (the expected rank
        under a random tie-break).

    Returns
    -------
    float
        The rank, 1 for the best.

    Notes
    -----
    A model that gives every candidate the same score gets rank 1 under the
    optimistic rule: reporting that rule lets a broken model look perfect.
    The average rule is the fair default.

    References
    ----------
    .. [1] Berrendorf et al., "On the Ambiguity of Rank-Based Evaluation of
       Entity Alignment or Link Prediction Methods", 2020.

    Examples
    --------
    >>> from metrics_lib import rank_with_ties
    >>> scores = [0.9, 0.5, 0.5, 0.5, 0.1]
    >>> [rank_with_ties(scores, 2, ties=t) for t in ("optimistic", "pessimistic", "average")]
    [2.0, 4.0, 3.0]
    """
    check_choice("ties", ties, TIE_METHODS)
    values = check_real_array("scores", scores)
    if isinstance(target, (bool, np.bool_)) or not isinstance(target, (int, np.integer)):
        raise TypeError(f"target must be an integer index; got {show(target)}")
    if not 0 <= target < values.size:
        raise ValueError(f"target must be an index into scores (0..{values.size - 1}); "
                         f"got {target}")
    better = int(np.sum(values > values[target]))
    tied_others = int(np.sum(values == values[target])) - 1
    optimistic, pessimistic = better + 1, better + 1 + tied_others
    if ties == "optimistic":
        return float(optimistic)
    if ties == "pessimistic":
        return float(pessimistic)
    return (optimistic + pessimistic) / 2.0
