"""Average precision (trec_eval ``m_map.c``, ``m_map_cut.c``).

Definition, for one user: the sum of precision@i over the ranks ``i`` (at
most ``k``) that hold a relevant item, divided by ``R``, the number of
relevant items judged (trec_eval's ``map`` and ``map_cut_k``). Other
denominators are keywords: ``"min_k"`` divides by ``min(k, R)``,
``"retrieved"`` by the relevant items in the top ``k``, ``"k"`` by ``k``
(needs a cut-off). MAP is its mean over users.

Edge cases: ``R = 0`` gives the ``empty`` policy (0 by default); a list with
no hit is 0.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, show
from ._common import (_TREC_CUTOFFS, AP_DENOMINATORS, _binary_batch, _binary_inputs,
                      _mean_over_users, _no_relevant, ordered_by_scores)
from ._docstrings import shared_parameters
from .registry import Metric, TrecMeasure, register


@shared_parameters
@ordered_by_scores("ap")
def average_precision(recommended, relevant, k=None, *, denominator="relevant",
                      relevance_level=1, empty="zero", judged_only=False,
                      truncate=None, candidates="all",
                      scores=None, ties="input", score_threshold=None):
    """Average precision: precision at each relevant rank, summed, over ``|R|``.

    By default (trec_eval) the precisions at the ranks ``i <= k`` that hold a
    relevant item are summed and divided by the number of relevant items
    ``|R|``, so relevant items the list never shows count as precision 0.
    Dividing by the number of hits instead (the mean over the hit ranks) is
    the ``denominator="retrieved"`` convention.

    Parameters
    ----------
    {{recommended relevant k}}
    denominator : {"relevant", "min_k", "retrieved", "k"}, default="relevant"
        What the sum of precisions is divided by:

        - ``"relevant"``: all relevant items, ``|R|`` (trec_eval ``map`` and
          ``map_cut_k``, ranx, ir-measures, Recommenders ``map``);
        - ``"min_k"``: ``min(k, |R|)`` (Recommenders ``map_at_k``, RecBole,
          ml_metrics ``apk``); with ``k=None`` this is ``|R|``;
        - ``"retrieved"``: the relevant items found in the top ``k``
          (torchmetrics ``RetrievalMAP(top_k)``, recmetrics ``mapk``);
        - ``"k"``: the cut-off ``k`` itself (RecTools 0.19.0
          ``rectools/metrics/ranking.py``, ``MAP(divide_by_k=True)``,
          ``MAP.calc_per_user_from_fitted``); it needs a ``k``.
    {{relevance_level empty judged_only truncate candidates scores}}
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. ``"block"`` with ``denominator="relevant"`` and ``k=None`` is
        scikit-learn's ``average_precision_score``.
    {{score_threshold}}

    Returns
    -------
    float
        AP in ``[0, 1]``.

    See Also
    --------
    mean_average_precision, precision_at_k

    Notes
    -----
    .. math:: AP@k = \\frac{1}{D} \\sum_{i=1}^{k} P@i \\cdot rel_i

    For the same list the three denominators are ordered:
    ``relevant <= min_k <= retrieved``. Only ``"relevant"`` penalises a
    list for the relevant items it never shows.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] Voorhees and Harman (eds.), *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005.
    .. [2] Microsoft Recommenders, ``python_evaluation.map_at_k``.
    .. [3] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import average_precision
    >>> ranking, rel = ["A", "x", "B", "y", "z"], {"A", "B", "C", "D"}
    >>> round(average_precision(ranking, rel, k=3), 4)
    0.4167
    >>> round(average_precision(ranking, rel, k=3, denominator="min_k"), 4)
    0.5556
    >>> round(average_precision(ranking, rel, k=3, denominator="retrieved"), 4)
    0.8333

    One threshold per distinct score is scikit-learn's
    ``average_precision_score`` (here: 0.7 and 0.7 tie at rank 2):

    >>> round(average_precision(["a", "b", "c"], {"a", "c"}, scores=[0.9, 0.7, 0.7],
    ...                         ties="block"), 4)
    0.8333
    """
    check_choice("denominator", denominator, AP_DENOMINATORS)
    if denominator == "k" and k is None:
        raise ValueError("denominator='k' divides by the cut-off: give a k")
    hits, n_relevant, cutoff, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    n_hits = int(hits.sum())
    if n_hits == 0:
        return 0.0
    ranks = np.flatnonzero(hits) + 1
    precision_at_hits = np.arange(1, n_hits + 1) / ranks
    if denominator == "relevant":
        divisor = n_relevant
    elif denominator == "min_k":
        divisor = n_relevant if k is None else min(cutoff, n_relevant)
    elif denominator == "k":
        divisor = cutoff
    else:
        divisor = n_hits
    return float(precision_at_hits.sum() / divisor)


@shared_parameters
def mean_average_precision(recommended_lists, relevant_lists, k=None, *,
                           denominator="relevant", relevance_level=1,
                           empty="zero",
                           scores_lists=None, ties="input"):
    """Mean of :func:`average_precision` over users (MAP, or MAP@k).

    Parameters
    ----------
    {{recommended_lists relevant_lists k_lists}}
    denominator : {"relevant", "min_k", "retrieved"}, default="relevant"
        See :func:`average_precision`.
    {{relevance_level}}
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Users with nothing relevant count as 0, are left out of the mean
        (``"nan"``), or raise.
    {{scores_lists ties_lists}}

    Returns
    -------
    float
        MAP in ``[0, 1]``.

    See Also
    --------
    average_precision

    Notes
    -----
    trec_eval's ``map`` is this function with the defaults; ``map_cut_k`` is
    this function with ``k``.

    References
    ----------
    .. [1] Voorhees and Harman (eds.), *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005.

    Examples
    --------
    >>> from metrics_lib import mean_average_precision
    >>> lists = [["x", "a", "b"], ["y", "z", "c"]]
    >>> truth = [{"a", "b", "c", "d"}, {"a", "b", "c", "d"}]
    >>> round(mean_average_precision(lists, truth), 4)
    0.1875
    """
    return _mean_over_users(average_precision, recommended_lists, relevant_lists,
                            scores_lists, k=k, denominator=denominator,
                            relevance_level=relevance_level, empty=empty, ties=ties)


# -- the declaration (metrics_lib/ranking/registry.py) --------------------------------

def _check(name, k, keywords):
    if k is None and keywords["denominator"] == "k":
        raise ValueError(f"metric {show(name)}: denominator='k' divides by the "
                         "cut-off; ask for 'map@k'")


register(Metric(
    name="ap", aliases=("map", "ap", "average_precision"), per_list=average_precision,
    batch=_binary_batch("ap"), keywords=("denominator", "empty"),
    per_list_keywords={"denominator": "denominator"}, check=_check,
    trec_eval=(TrecMeasure("map", "map"), TrecMeasure("gm_map", "map"),
               TrecMeasure("map_cut", "map@{}", _TREC_CUTOFFS))))
