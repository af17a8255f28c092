"""DCG and NDCG of the top ``k`` (trec_eval ``m_ndcg.c``, ``m_ndcg_cut.c``).

Definitions, for one user: DCG@k = ``sum over ranks i <= k of gain(g_i) /
log_b(i + 1)`` with ``g_i`` the grade of the item at rank ``i`` (0 when
unjudged), ``gain`` the grade itself (``"linear"``, trec_eval) or
``2**g - 1`` (``"exponential"``, Burges et al.) and ``b = log_base`` (2).
NDCG@k = DCG@k over the DCG@k of the ideal list: every judged grade sorted
in decreasing order (``ideal="judged"``, trec_eval); ``"retrieved"`` sorts
only the listed items' grades, ``"k"`` pads the ideal list to ``k`` items.

Edge cases: a user with no positive grade has an ideal DCG of 0 and gets
the ``empty`` policy for NDCG (0 by default); DCG is defined for every user.
Exponential gains are computed relative to the largest grade so that NDCG
never overflows.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import (check_choice, check_empty, check_gain, check_k,
                           check_min_grade, check_recommended, check_relevance_level,
                           check_relevant, handle_empty, show)
from ._common import (_TREC_CUTOFFS, GAINS, IDEAL_K_MAX, IDEALS, _check_log_base,
                      _condensed, ordered_by_scores)
from ._docstrings import shared_parameters
from .registry import Metric, TrecMeasure, register


def _gains(grades: np.ndarray, gain: str, scale_exponent: float = 0.0) -> np.ndarray:
    """Gains of ``grades``; exponential gains are multiplied by 2**-scale_exponent.

    ``2**grade`` overflows float64 from grade 1024 on. A ratio of DCGs (NDCG)
    does not change when every gain is multiplied by the same factor, so NDCG
    computes ``2**(grade - m) - 2**-m`` with ``m`` the largest grade, which
    never overflows.
    """
    if gain == "linear":
        return grades
    return np.exp2(grades - scale_exponent) - np.exp2(-scale_exponent)


def _discounted_sum(gains: np.ndarray, log_base: float) -> float:
    # rank i (1-based) is discounted by log_base(i + 1)
    discounts = np.log(np.arange(2, gains.size + 2)) / math.log(log_base)
    return float(np.sum(gains / discounts))


def gain_grades(grades: np.ndarray, judged: np.ndarray | None, gain, relevance_level,
                min_grade):
    """Grades as the gain keyword sees them, and the gain that then applies.

    Returns ``(values, gain_name)`` with ``gain_name`` ``"linear"`` or
    ``"exponential"``: ``min_grade`` sets the grades below it to 0;
    ``"binary"`` makes every grade 1 (at or above ``relevance_level``) or 0;
    a mapping (sorted ``(grade, gain)`` pairs from ``check_gain``) replaces
    every judged grade by its gain, so the ideal list is sorted by gain.
    ``judged`` marks the judged entries (``None``: all are judged); unjudged
    ones always get 0. Shared with :mod:`metrics_lib.evaluate`.
    """
    keep = None if min_grade is None else grades >= min_grade
    if isinstance(gain, tuple):
        keys = np.array([grade for grade, _ in gain])
        values = np.array([value for _, value in gain])
        where = np.minimum(np.searchsorted(keys, grades), keys.size - 1)
        found = keys[where] == grades
        unknown = ~found if judged is None else judged & ~found
        if unknown.any():
            missing = float(grades[np.argmax(unknown)])
            raise ValueError(f"grade {missing:g} has no entry in the gain mapping; "
                             "give a gain for every judged grade (grades: "
                             f"{', '.join(f'{key:g}' for key in keys)})")
        mask = found if judged is None else found & judged
        if keep is not None:
            mask = mask & keep
        return np.where(mask, values[where], 0.0), "linear"
    if gain == "binary":
        mask = grades >= relevance_level
        if judged is not None:
            mask &= judged  # at relevance_level=0 an unjudged 0 would pass
        if keep is not None:
            mask &= keep
        return mask.astype(np.float64), "linear"
    if keep is not None:
        return np.where(keep, grades, 0.0), gain
    return grades, gain


def _graded_inputs(recommended, relevant, k, gain, empty, log_base, *,
                   relevance_level=1, min_grade=None, judged_only=False,
                   truncate=None, candidates="all"):
    """Gains-ready grades of the scored list and of all judgements.

    Returns ``(top, judged, k, base, gain_name)``: ``top`` the (transformed)
    grades of the list's first ``k`` items (all of a truncated list),
    ``judged`` those of every judgement, sorted descending.
    """
    items, kind = check_recommended(recommended, with_kind=True)
    grades = check_relevant(relevant, recommended=items, recommended_kind=kind)
    k = check_k(k)
    gain = check_gain(gain, GAINS)
    level = check_relevance_level(relevance_level)
    min_grade = check_min_grade(min_grade)
    check_empty(empty)
    base = _check_log_base(log_base)
    items, truncate, grades = _condensed(items, grades, judged_only, truncate,
                                         candidates)
    cutoff = len(items) if k is None or truncate is not None else k
    shown = items[:cutoff]
    top = np.array([grades.get(item, 0.0) for item in shown], dtype=float)
    is_judged = np.array([item in grades for item in shown], dtype=bool)
    top, gain_name = gain_grades(top, is_judged, gain, level, min_grade)
    judged, _ = gain_grades(np.array(list(grades.values()), dtype=float), None, gain,
                            level, min_grade)
    return top, np.sort(judged)[::-1], k, base, gain_name


@shared_parameters
@ordered_by_scores("dcg")
def dcg_at_k(recommended, relevant, k=None, *, gain="linear", log_base=2,
             relevance_level=1, min_grade=None, judged_only=False, truncate=None,
             candidates="all",
             scores=None, ties="input", score_threshold=None):
    """Discounted cumulative gain of the top ``k`` items.

    Parameters
    ----------
    {{recommended}}
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with grades (a plain collection means grade 1 each).
        Items not in ``relevant`` have grade 0.
    {{k}}
    gain : {"linear", "exponential", "binary"} or mapping, default="linear"
        ``"linear"`` uses the grade itself (trec_eval, ranx ``ndcg``,
        scikit-learn); ``"exponential"`` uses ``2**grade - 1`` (Burges et al.,
        ranx ``ndcg_burges``); they agree on binary grades. ``"binary"``:
        gain 1 for a grade at or above ``relevance_level``, else 0, as the
        binary peers compute NDCG on graded truth: RecBole 1.2.1
        (``recbole/evaluator/metrics.py``, ``NDCG.metric_info``: the 0/1
        ``pos_index``), Microsoft Recommenders 1.2.1
        (``recommenders/evaluation/python_evaluation.py``, ``ndcg_at_k``
        with its default ``score_type="binary"``), RecTools 0.19.0
        (``rectools/metrics/ranking.py``, ``NDCG``). A mapping ``{grade: gain}`` gives each
        judged grade its gain; every judged grade must be a key, and the
        ideal list is sorted by gain. ir-measures 0.4.3 ``nDCG(gains={...})``
        (``ir_measures/providers/pytrec_eval_provider.py``: ``gains.get(score,
        score)``) keeps an unlisted grade as its own gain: write those
        grades into the mapping as ``{grade: grade}`` to reproduce it.
    relevance_level : float, default=1
        Only used by ``gain="binary"``.
    min_grade : float or None, default=None
        Grades below ``min_grade`` count as 0 (not relevant) in the DCG and in
        the ideal DCG, before the gain; the others keep their gain. ranx
        0.3.21 ``ndcg@k-l2`` is ``min_grade=2`` (``ranx/metrics/ndcg.py``,
        ``_dcg`` calls ``clean_qrels(qrels, rel_lvl)``, which drops the
        judgements below ``rel_lvl`` from both DCGs); ranx's default
        ``rel_lvl=1`` is ``min_grade=1`` (which differs from ``None`` only
        for grades strictly between 0 and 1).
    log_base : float, default=2
        Base of the logarithm in the discount ``log(rank + 1)``. Microsoft
        Recommenders uses ``e``. DCG depends on it; NDCG does not.
    {{judged_only truncate candidates scores}}
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. ``"average"`` is scikit-learn's ``dcg_score`` (default
        ``ignore_ties=False``); ``"block"`` is refused.
    {{score_threshold}}

    Returns
    -------
    float
        DCG (>= 0, unbounded).

    See Also
    --------
    ndcg_at_k

    Notes
    -----
    .. math:: DCG@k = \\sum_{i=1}^{k} \\frac{g(rel_i)}{\\log_b(i + 1)}

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] Burges et al., "Learning to rank using gradient descent", ICML 2005.
    .. [3] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import dcg_at_k
    >>> grades = {"C": 3, "A": 3, "B": 2, "E": 2, "D": 1}
    >>> round(dcg_at_k(["E", "A", "C", "D", "B"], grades, k=5), 4)
    6.5972
    """
    top, _, _, base, gain = _graded_inputs(
        recommended, relevant, k, gain, "zero", log_base,
        relevance_level=relevance_level, min_grade=min_grade,
        judged_only=judged_only, truncate=truncate, candidates=candidates)
    with np.errstate(over="ignore"):
        value = _discounted_sum(_gains(top, gain), base)
    if not math.isfinite(value):
        raise ValueError(
            f"dcg_at_k with gain='exponential' exceeds the largest float64 (grades up to "
            f"{top.max():g}: 2**grade overflows from 1024 on); use ndcg_at_k, whose ratio "
            "is computed without overflow, or gain='linear'")
    return value


@shared_parameters
@ordered_by_scores("ndcg")
def ndcg_at_k(recommended, relevant, k=None, *, gain="linear", ideal="judged",
              log_base=2, empty="zero", relevance_level=1, min_grade=None,
              judged_only=False, truncate=None, candidates="all",
              scores=None, ties="input", score_threshold=None):
    """DCG of the list divided by the DCG of an ideal list (in ``[0, 1]``).

    Parameters
    ----------
    {{recommended}}
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with grades; unlisted items have grade 0.
    k : int or None, default=None
        Cut-off for both the list and the ideal list. ``None`` scores the
        whole list against the whole ideal list (trec_eval ``ndcg``).
    gain : {"linear", "exponential", "binary"} or mapping, default="linear"
        See :func:`dcg_at_k`.
    ideal : {"judged", "retrieved", "k"}, default="judged"
        ``"judged"`` sorts *all* judged grades (trec_eval, ranx, RecBole,
        Recommenders; scikit-learn's ``ndcg_score`` and torchmetrics sort the
        labels the caller passes, which is the same only when every judged
        item is passed). ``"retrieved"`` re-sorts only
        the grades of the recommended top ``k``; it ignores relevant items
        the list missed and so overstates quality. It is offered to
        reproduce published numbers that use it, not as a recommendation.
        ``"k"``: ``k`` items of the user's highest gain, whatever the number
        of relevant items, so that a user with fewer than ``k`` relevant
        items cannot reach 1 (RecTools 0.19.0 ``rectools/metrics/ranking.py``,
        ``NDCG`` with ``divide_by_achievable=False``, its default: the ideal
        DCG is the sum of ``1 / log(i + 1)`` for ``i = 1..k``; RecTools is
        binary, where this is exactly its value). It needs a ``k``.
    log_base : float, default=2
        Base of the discount logarithm (cancels in the ratio).
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no judged item has a positive gain (ideal DCG is 0).
    relevance_level : float, default=1
        Only used by ``gain="binary"``, see :func:`dcg_at_k`.
    min_grade : float or None, default=None
        See :func:`dcg_at_k` (ranx ``ndcg@k-l2``).
    {{judged_only truncate candidates}}
    empty : {"zero", "nan", "raise"}, default="zero"
        Result when no judged item has a positive grade (ideal DCG is 0).
    {{scores}}
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. ``"average"`` is scikit-learn's ``ndcg_score`` (default
        ``ignore_ties=False``) when every judged item is passed;
        ``"block"`` is refused.
    {{score_threshold}}

    Returns
    -------
    float
        NDCG in ``[0, 1]``.

    See Also
    --------
    dcg_at_k

    Notes
    -----
    With ``ideal="retrieved"`` and relevant items that exist but none of which
    was retrieved, the ideal DCG is 0 as well; the result is then 0.0 (the
    list found nothing), not the ``empty`` policy, which is reserved for
    users with nothing relevant at all.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.
    .. [2] Wang et al., "A theoretical analysis of NDCG type ranking
       measures", COLT 2013.
    .. [3] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import ndcg_at_k
    >>> grades = {"parasite": 5, "gangster": 3, "avatar": 4, "tenet": 5}
    >>> ranking = ["sector7", "gangster", "parasite"]
    >>> round(ndcg_at_k(ranking, grades, k=3), 4)
    0.4326
    >>> round(ndcg_at_k(ranking, grades, k=3, ideal="retrieved"), 4)
    0.6373

    With tied scores, ``ties="average"`` is scikit-learn's ``ndcg_score``:

    >>> round(ndcg_at_k(["d1", "d2", "d3"], {"d3": 1}, scores=[1, 1, 1],
    ...                 ties="average"), 4)
    0.7103
    """
    check_choice("ideal", ideal, IDEALS)
    if ideal == "k" and k is None:
        raise ValueError("ideal='k' is an ideal list of k items: give a k")
    if ideal == "k" and check_k(k) > IDEAL_K_MAX:
        raise ValueError(f"ideal='k' builds an ideal list of k items, so k may be at "
                         f"most {IDEAL_K_MAX}; got {k}")
    top, judged, k, base, gain = _graded_inputs(
        recommended, relevant, k, gain, empty, log_base,
        relevance_level=relevance_level, min_grade=min_grade,
        judged_only=judged_only, truncate=truncate, candidates=candidates)
    if not np.any(judged > 0):
        return handle_empty(empty, "relevant has no item with a positive grade")
    if ideal == "judged":
        ideal_grades = judged if k is None else judged[:k]
    elif ideal == "k":
        ideal_grades = np.full(k, judged[0])
    else:
        ideal_grades = np.sort(top)[::-1]
    # Large exponential gains are scaled by 2**-(largest grade): same ratio, no
    # overflow (below 900 the plain gains are exact and are left alone).
    largest = float(max(judged.max(), top.max(initial=0.0)))
    scale = largest if gain == "exponential" and largest > 900 else 0.0
    ideal_dcg = _discounted_sum(_gains(ideal_grades, gain, scale), base)
    if ideal_dcg == 0.0:
        return 0.0
    return _discounted_sum(_gains(top, gain, scale), base) / ideal_dcg


# -- the declarations (metrics_lib/ranking/registry.py) -------------------------------

def _dcg_batch(tables, k, options):
    return tables.graded.dcg(k, tables.gain, options["log_base"],
                             truncated=tables.truncated), None


def _ndcg_batch(tables, k, options):
    return tables.graded.ndcg(k, tables.gain, options["log_base"], options["ideal"],
                              truncated=tables.truncated)


def _check_ndcg(name, k, keywords):
    if k is None and keywords["ideal"] == "k":
        raise ValueError(f"metric {show(name)}: ideal='k' is an ideal list of k "
                         "items; ask for 'ndcg@k'")
    if keywords["ideal"] == "k" and k > IDEAL_K_MAX:
        raise ValueError(f"metric {show(name)}: ideal='k' builds an ideal list of k "
                         f"items, so k may be at most {IDEAL_K_MAX}")


register(Metric(
    name="ndcg", aliases=("ndcg",), per_list=ndcg_at_k, batch=_ndcg_batch,
    table="graded", empty_reason="no judged item with a positive grade",
    keywords=("gain", "ideal", "log_base", "min_grade", "empty"), check=_check_ndcg,
    trec_eval=(TrecMeasure("ndcg", "ndcg", gains=True),
               TrecMeasure("ndcg_cut", "ndcg@{}", _TREC_CUTOFFS))))
register(Metric(
    name="dcg", aliases=("dcg",), per_list=dcg_at_k, batch=_dcg_batch, table="graded",
    can_be_empty=False, keywords=("gain", "log_base", "min_grade"),
    trec_eval=(TrecMeasure("dcg", "dcg", gains=True),)))
