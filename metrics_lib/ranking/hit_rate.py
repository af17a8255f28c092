"""Hit rate and hit count of the top ``k`` (trec_eval ``m_success.c``).

Definitions, for one user: hit@k is 1 if at least one item among the first
``k`` of the list is relevant (grade at or above ``relevance_level``), else 0
(trec_eval ``success_k``); hit_count@k is the number of such items (ranx's
``hits@k``; trec_eval's ``num_rel_ret`` cut at ``k``), declared in
``trec_standard`` as ``num_rel_ret``.

Edge cases: a user with no relevant item gets the ``empty`` policy for
hit@k (0 by default); without ``k`` the whole list counts.
"""

from __future__ import annotations

from ._common import _binary_batch, _binary_inputs, _no_relevant, ordered_by_scores
from ._docstrings import shared_parameters
from .registry import Metric, TrecMeasure, register


@shared_parameters
@ordered_by_scores("hit")
def hit_at_k(recommended, relevant, k=None, *, relevance_level=1, empty="zero",
             judged_only=False, truncate=None, candidates="all",
             scores=None, ties="input", score_threshold=None):
    """1.0 if at least one relevant item is in the top ``k``, else 0.0.

    Parameters
    ----------
    {{recommended relevant k relevance_level empty judged_only truncate candidates scores}}
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. With ``"average"`` the value is the probability of a hit.
    {{score_threshold}}

    Returns
    -------
    float
        0.0 or 1.0. Its mean over users is the "hit rate".

    See Also
    --------
    hits_at_k : the same quantity from the rank of a single answer.

    Notes
    -----
    Also called HR@k or Success@k (trec_eval ``success_k``). It is not
    recall: with ten relevant items, one hit already gives 1.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] trec_eval, measure ``success``, https://github.com/usnistgov/trec_eval
    .. [2] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import hit_at_k
    >>> hit_at_k(["x", "y", "a"], {"a"}, k=2), hit_at_k(["x", "y", "a"], {"a"}, k=3)
    (0.0, 1.0)
    """
    hits, n_relevant, _, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    return 1.0 if hits.any() else 0.0


@shared_parameters
def hit_count_at_k(recommended, relevant, k=None, *, relevance_level=1,
                   judged_only=False, truncate=None, candidates="all"):
    """Number of relevant items in the top ``k`` (a count, not a rate).

    Parameters
    ----------
    {{recommended relevant k relevance_level judged_only truncate candidates}}

    Returns
    -------
    float
        The count (a float, as every metric here), 0.0 when nothing is
        relevant: a count is defined for every user, so there is no
        ``empty`` policy.

    See Also
    --------
    hit_at_k : 1.0 if the count is positive.
    precision_at_k : the count divided by ``k``.

    Notes
    -----
    ranx 0.3.21 calls this ``hits@k`` (``ranx/metrics/hits.py``,
    ``_hits``: it adds 1 per top-k item found in the qrels kept by
    ``clean_qrels(qrels, rel_lvl)``), and trec_eval's ``num_rel_ret`` is the
    uncut count. In :func:`evaluate` it is the metric ``"num_rel_ret@k"``;
    the name ``"hits@k"`` is refused there, because this library's
    ``"hit@k"`` is the 0/1 :func:`hit_at_k`.

    References
    ----------
    .. [1] ranx, ``ranx/metrics/hits.py``, https://github.com/AmenRa/ranx

    Examples
    --------
    >>> from metrics_lib import hit_count_at_k
    >>> hit_count_at_k(["a", "x", "b", "c"], {"a", "b", "c"}, k=3)
    2.0
    """
    hits, _, _, _ = _binary_inputs(recommended, relevant, k, relevance_level,
                                   "zero", judged_only, truncate, candidates)
    return float(hits.sum())


# -- the declaration (metrics_lib/ranking/registry.py) --------------------------------

register(Metric(
    name="hit", aliases=("hit", "hr", "hit_rate", "hitrate", "success"), per_list=hit_at_k,
    batch=_binary_batch("hit"), keywords=("empty",),
    trec_eval=(TrecMeasure("success", "hit@{}", (1, 5, 10)),)))  # m_success.c
