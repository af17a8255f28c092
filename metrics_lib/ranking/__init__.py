"""Metrics of one ranked list: precision, recall, F1, hit, RR, AP, DCG, NDCG.

One module per metric family (``precision_recall``, ``hit_rate``,
``reciprocal_rank``, ``average_precision``, ``ndcg``, ``trec_standard``), each
opening with its definition and declaring its metrics in the registry
(``metrics_lib.ranking.registry``); this package re-exports the per-list
functions.

Each function takes the same three inputs:

``recommended``
    item ids in rank order (``recommended[0]`` is rank 1);
``relevant``
    the judged items: a collection of ids (binary relevance) or a mapping
    ``id -> grade`` (graded relevance, grades >= 0);
``k``
    a positive cut-off, or ``None`` for the whole list.

Ids are of one kind in both, as in :func:`~metrics_lib.evaluate`: integers
(Python, numpy of any width, pandas nullable, pyarrow) are one kind and are
compared exactly; strings are another, booleans and floats two more. A
``recommended`` of strings with a ``relevant`` of integers would match
nothing, so a mix is refused with a ``TypeError`` that names both kinds.

Defaults follow trec_eval, so that numbers can be checked against the tool
that most papers report. Every other convention in use is a keyword.

Ties
----
Every function also takes ``scores`` (one per recommended item, higher is
better) and ``ties``. With scores the list is sorted by them, stably, and
items of equal score form a *tie group*, ranked as ``ties`` says:

``"input"`` (default)
    the list's own order (without scores, the list as given);
``"average"``
    the expectation of the metric over all orders of every tie group, all
    equally likely, in closed form (McSherry and Najork [1]_). For DCG and
    NDCG this is scikit-learn's ``dcg_score`` / ``ndcg_score`` with
    ``ignore_ties=False`` (scikit-learn 1.9.1, ``sklearn/metrics/_ranking.py``,
    ``_tie_averaged_dcg``): every item of a group gets the group's mean gain,
    and a cut-off ``k`` through a group keeps the group's share of
    discounts inside ``k``. Precision, recall, F1 and hit rate use the
    expected number of hits (hit@k: the probability of at least one),
    reciprocal rank the distribution of the first relevant item's position
    (hypergeometric), AP the exact expectation (see
    ``metrics_lib._tie_kernels.TieGroups``). RBP, its residual and
    Judged@k are sums of weights of the ranks, so each tied item takes its
    group's mean weight, exactly. NDCG with ``ideal="retrieved"`` is
    refused: its ideal list is random too; so are ERR and the intent
    metrics, whose value is not linear in the order;
``"block"``
    every item of a tie group gets the group's *last* rank, i.e. one
    threshold per distinct score; an item is in the top ``k`` when that rank
    is at most ``k``. AP without cut-off and ``denominator="relevant"`` is
    then scikit-learn's ``average_precision_score`` and
    ``label_ranking_average_precision_score`` over the items passed. DCG and
    NDCG are refused (no order and no reference library gives that DCG),
    and RBP for the same reason;
``"best"`` / ``"worst"``
    the order in which, inside every tie group, higher grades come first /
    last: the largest and smallest value over all tie orders, which is the
    honest report when an order was never specified. (One exception: AP
    with ``denominator="retrieved"`` averages over the hits only, so fewer
    relevant items in the top ``k`` can score higher; there ``"best"`` and
    ``"worst"`` are the two orders, not the bounds. Judged@k puts the
    judged items first / last, whatever their grades, which gives its
    bounds.)

Orders that are accidents of an implementation cannot be reproduced, and no
mode tries: ranx (0.3.21, ``ranx/data_structures/common.py``,
``sort_dict_by_value``) orders a run by ``np.argsort`` of the negated scores
inside a Numba function, whose quicksort (numba 0.68.1,
``numba/misc/quicksort.py``, ``SMALL_QUICKSORT = 15``) is an insertion sort,
stable, for up to 15 items and unstable beyond (16 equal scores already come
back reordered); ``torch.topk``'s documentation (its page at
https://docs.pytorch.org/docs/stable/generated/torch.topk.html, the Note)
says the indices of tied elements "are not guaranteed to be stable and may
vary across different invocations"; and ``np.argsort(scores)[::-1]`` uses
numpy's default ``kind="quicksort"``, which is not stable (numpy 2.4.6
on the machine this was checked on reorders equal scores already in
lists of 10 items), then reverses that
order. Report ``"best"`` and ``"worst"`` (and ``"average"``) instead.

References
----------
.. [1] McSherry and Najork, "Computing information retrieval performance
   measures efficiently in the presence of tied scores", ECIR 2008,
   LNCS 4956, pp. 414-421.
"""

from ._common import (AP_DENOMINATORS, CANDIDATES, GAINS, IDEAL_K_MAX, IDEALS,
                      PER_LIST_TIES, PRECISION_DENOMINATORS, RECALL_DENOMINATORS,
                      _BelowThreshold, _binary_inputs, _check_log_base, _condensed,
                      _mean_over_users, _tied, _tied_call)
# (in this order, which is the order of the registry and of the API page's table)
from .precision_recall import f1_at_k, precision_at_k, recall_at_k  # isort: skip
from .hit_rate import hit_at_k, hit_count_at_k  # isort: skip
from .reciprocal_rank import mean_reciprocal_rank, reciprocal_rank  # isort: skip
from .average_precision import average_precision, mean_average_precision  # isort: skip
from .ndcg import dcg_at_k, gain_grades, ndcg_at_k  # isort: skip
from .user_models import err_at_k, rank_biased_precision  # isort: skip
from .judgements import judged_at_k  # isort: skip
from .intents import (alpha_ndcg_at_k, err_ia_at_k, precision_ia_at_k,  # isort: skip
                      subtopic_recall_at_k)

__all__ = [
    "precision_at_k",
    "recall_at_k",
    "f1_at_k",
    "hit_at_k",
    "hit_count_at_k",
    "reciprocal_rank",
    "average_precision",
    "dcg_at_k",
    "ndcg_at_k",
    "err_at_k",
    "rank_biased_precision",
    "judged_at_k",
    "alpha_ndcg_at_k",
    "err_ia_at_k",
    "precision_ia_at_k",
    "subtopic_recall_at_k",
    "mean_reciprocal_rank",
    "mean_average_precision",
]
