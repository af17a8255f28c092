"""Reciprocal rank of the first relevant item (trec_eval ``m_recip_rank.c``).

Definition, for one user: ``1 / r`` where ``r`` is the rank (1-based) of the
first item of the list whose grade is at or above ``relevance_level``, 0 when
none is in the top ``k`` (trec_eval's ``recip_rank`` takes no cut-off;
``mrr@k`` cuts the list at ``k``). MRR is its mean over users.

Edge cases: a user with no relevant item judged gets the ``empty`` policy (0
by default, as trec_eval).
"""

from __future__ import annotations

import numpy as np

from ._common import (_binary_batch, _binary_inputs, _mean_over_users, _no_relevant,
                      ordered_by_scores)
from ._docstrings import shared_parameters
from .registry import Metric, TrecMeasure, register


@shared_parameters
@ordered_by_scores("rr")
def reciprocal_rank(recommended, relevant, k=None, *, relevance_level=1,
                    empty="zero", judged_only=False, truncate=None,
                    candidates="all",
                    scores=None, ties="input", score_threshold=None):
    """One over the rank of the first relevant item in the top ``k``.

    Parameters
    ----------
    {{recommended relevant}}
    k : int or None, default=None
        Cut-off; a first hit below rank ``k`` scores 0.
    {{relevance_level empty judged_only truncate candidates scores ties score_threshold}}

    Returns
    -------
    float
        ``1 / rank`` of the first hit, or 0.0 when there is none.

    See Also
    --------
    mean_reciprocal_rank, mean_reciprocal_rank_from_ranks

    Notes
    -----
    Equals trec_eval's ``recip_rank`` (without a cut-off). Only the first hit
    counts; the rest of the list is ignored.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] Voorhees, "The TREC-8 Question Answering Track Report", TREC 1999.
    .. [2] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import reciprocal_rank
    >>> reciprocal_rank(["A", "B", "C", "L", "Y"], {"C", "K", "B", "Z"}, k=5)
    0.5

    Three items tie and only the last one listed is relevant: the list's
    order gives 1/3, the expectation over the six orders 11/18, and the
    bounds are 1 and 1/3:

    >>> tied = dict(scores=[0.7, 0.7, 0.7])
    >>> reciprocal_rank(["a", "b", "c"], {"c"}, **tied)
    0.3333333333333333
    >>> round(reciprocal_rank(["a", "b", "c"], {"c"}, ties="average", **tied), 4)
    0.6111
    >>> [reciprocal_rank(["a", "b", "c"], {"c"}, ties=t, **tied)
    ...  for t in ("best", "worst")]
    [1.0, 0.3333333333333333]
    """
    hits, n_relevant, _, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    positions = np.flatnonzero(hits)
    return float(1.0 / (positions[0] + 1)) if positions.size else 0.0


@shared_parameters
def mean_reciprocal_rank(recommended_lists, relevant_lists, k=None, *,
                         relevance_level=1, empty="zero",
                         scores_lists=None, ties="input"):
    """Mean of :func:`reciprocal_rank` over users.

    Parameters
    ----------
    {{recommended_lists relevant_lists k_lists relevance_level}}
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Users with nothing relevant count as 0 (``"zero"``, trec_eval), are
        left out of the mean (``"nan"``), or raise. If every user is left
        out the result is ``nan``.
    {{scores_lists ties_lists}}

    Returns
    -------
    float
        MRR in ``[0, 1]``.

    See Also
    --------
    reciprocal_rank, mean_reciprocal_rank_from_ranks

    Notes
    -----
    Macro average: every user weighs the same.

    References
    ----------
    .. [1] Voorhees, "The TREC-8 Question Answering Track Report", TREC 1999.

    Examples
    --------
    >>> from metrics_lib import mean_reciprocal_rank
    >>> lists = [["A", "B", "C", "L", "Y", "U", "F", "Z"], ["N", "X", "Y", "B", "M"]]
    >>> truth = [{"C", "K", "B", "Z"}, {"E", "B"}]
    >>> mean_reciprocal_rank(lists, truth)
    0.375
    """
    return _mean_over_users(reciprocal_rank, recommended_lists, relevant_lists,
                            scores_lists, k=k, relevance_level=relevance_level,
                            empty=empty, ties=ties)


# -- the declaration (metrics_lib/ranking/registry.py) --------------------------------

register(Metric(
    name="rr", aliases=("mrr", "rr", "recip_rank", "reciprocal_rank"),
    per_list=reciprocal_rank, batch=_binary_batch("rr"), keywords=("empty",),
    trec_eval=(TrecMeasure("recip_rank", "mrr"),)))
