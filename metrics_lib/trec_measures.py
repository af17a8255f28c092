"""trec_eval's standard measures that :mod:`metrics_lib.ranking` lacks.

R-precision (``Rprec``), binary preference (``bpref``), interpolated
precision at recall levels (``iprec_at_recall``) and the geometric mean of
average precision (``gm_map``), for one ranked list (or, for ``gm_map``, a
set of lists), computed exactly as trec_eval 10.0 computes them. The batch
twins are the :func:`metrics_lib.evaluate` metrics ``"rprec"``,
``"bpref"``, ``"iprec_at_recall_0.50"`` (any level) and the counts
``"num_ret"``, ``"num_rel"``, ``"num_rel_ret"``.

Judgements follow trec_eval's qrels. ``relevant`` maps an id to a grade:

- grade ``>= relevance_level``: relevant;
- ``0 <= grade < relevance_level``: judged non-relevant;
- grade ``< 0``: not relevant, and, for bpref, *not judged* either. trec_eval
  gives a negative qrels grade the status "in the pool but unjudged"
  (``RELVALUE_UNJUDGED`` in ``form_res_rels.c``): only bpref tells it apart
  from a non-relevant item, and bpref skips it;
- an id absent from ``relevant``: not relevant, not judged.

A plain collection of ids (a set) makes each of them relevant with grade 1;
it has no judged non-relevant item.
"""

from __future__ import annotations

import math

import numpy as np

from ._validation import (
    show,
    check_choice,
    check_empty,
    check_k,
    check_parallel_lists,
    check_real,
    check_real_array,
    check_recommended,
    check_relevance_level,
    check_relevant,
    check_trec_eval_version,
    handle_empty,
)
from .ranking._common import _condensed, _tied_call, ordered_by_scores

__all__ = [
    "r_precision",
    "bpref",
    "interpolated_precision",
    "geometric_mean_average_precision",
    "floored_geometric_mean",
    "IPREC_RECALL_LEVELS",
    "GM_FLOOR",
]

#: trec_eval's default recall levels of ``iprec_at_recall`` (0.0, 0.1, ..., 1.0),
#: written as the literals of ``m_iprec_at_recall.c`` so that each is the same double.
IPREC_RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

#: trec_eval's ``MIN_GEO_MEAN`` (trec_eval.h): the floor of a value before its log
#: in a geometric mean, so that one query with AP 0 does not make gm_map 0.
GM_FLOOR = 0.00001


def _judged(recommended, relevant, relevance_level):
    """Validated list, grades (negative allowed) and relevance level."""
    items, kind = check_recommended(recommended, with_kind=True)
    grades = check_relevant(relevant, allow_negative=True, recommended=items,
                            recommended_kind=kind)
    level = check_relevance_level(relevance_level)
    return items, grades, level


def _n_relevant(grades: dict, level: float) -> int:
    return sum(1 for grade in grades.values() if grade >= level)


def _relevant_flags(items, grades, level) -> np.ndarray:
    return np.fromiter((grades.get(item, -math.inf) >= level for item in items),
                       dtype=bool, count=len(items))


def _no_relevant(empty: str) -> float:
    return handle_empty(empty, "relevant has no item at or above relevance_level")


def lround(x: float) -> int:
    """C's ``lround`` for ``x >= 0``: nearest integer, halves away from zero."""
    whole = math.floor(x)
    return int(whole) + (1 if x - whole >= 0.5 else 0)  # x - floor(x) is exact


def iprec_target(recall_level: float, n_rel: int, version: int = 10) -> int:
    """Which relevant item (1-based; 0: before the first) a recall level aims at.

    trec_eval 10.0 (``m_iprec_at_recall.c``): ``lround(p * R)``; 9.0.8:
    ``(long) (p * R + 0.9)``, a truncation (``p * R >= 0``, so the floor).
    """
    scaled = float(recall_level) * n_rel
    return lround(scaled) if version == 10 else math.floor(scaled + 0.9)


# cutoff=False: the closed forms of ties="average"/"block" have no cut-off, so they
# refuse a k other than None
@ordered_by_scores("rprec", cutoff=False, allow_negative=True)
def r_precision(recommended, relevant, k=None, *, relevance_level=1, empty="zero",
                no_hit="zero", judged_only=False, truncate=None, candidates="all",
                scores=None, ties="input"):
    """Precision at rank R, where R is the number of relevant items (``Rprec``).

    ``Rprec = |relevant items in the top R| / R`` with
    ``R = |{i : grade(i) >= relevance_level}|`` counted over all judgements,
    retrieved or not. A list shorter than R counts its missing ranks as
    non-relevant (the denominator stays R). At rank R precision equals recall,
    so R-precision is the point where the two meet. No relevant item (R = 0):
    the ``empty`` policy (trec_eval: 0).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first. Ids must be unique.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids (grade 1 each), or judged ids with their grades. Any
        finite grade is accepted; a grade below ``relevance_level``
        (negative ones included) is not relevant.
    k : int or None, default=None
        Cut the list at ``k`` first, so that only the top ``min(k, R)`` ranks
        count; the denominator stays R (Microsoft Recommenders 1.2.1
        ``recommenders/evaluation/python_evaluation.py``,
        ``r_precision_at_k``: it keeps the hits of ``get_top_k_items(k)``
        whose rank is at most the user's number of relevant items, and
        divides by that number). ``None``: trec_eval's ``Rprec``.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (trec_eval ``-l``).
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant: ``0.0`` (trec_eval), ``nan``, or a
        ``ValueError``.
    no_hit : {"zero", "nan"}, default="zero"
        Result when items are relevant but none is in the ranks counted.
        ``"nan"`` reproduces Recommenders' ``r_precision_at_k``, whose mean
        leaves such users out (its per-user ratio is an empty group divided
        by the user's count, ``nan``, which ``Series.mean`` skips).
    judged_only : bool, default=False
        Remove the unjudged items from the list first (trec_eval ``-J``).
    truncate : int or None, default=None
        Cut the list to its first ``truncate`` items instead of ``k``
        (Recommenders ``relevancy_method="by_threshold"``).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"``: only the judgements of listed items count, so R
        is the number of relevant items in the list (torchmetrics 1.9.0
        ``RetrievalRPrecision`` given the recommended items only), see
        :func:`precision_at_k`.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better); the list
        is then sorted by them, stably, and equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items, as in :mod:`metrics_lib.ranking` (see its notes).
        All but ``"input"`` need ``scores``. ``"average"`` is the expected
        number of relevant items in the top R over all tie orders, over R.

    Returns
    -------
    float
        R-precision in ``[0, 1]``.

    See Also
    --------
    precision_at_k, interpolated_precision

    Notes
    -----
    trec_eval 10.0, ``m_Rprec.c``, ``te_calc_Rprec``: it looks at the first
    ``min(num_ret, R)`` ranks and divides the relevant ones by R. The
    :func:`evaluate` metric ``"rprec"`` (aliases ``"r_precision"``,
    ``"r-precision"``) computes the same value per user, and ``"rprec@k"``
    the value with a cut-off (``evaluate(no_hit="nan")`` for ``no_hit``).

    The peers: ranx 0.3.21 ``r-precision`` (``ranx/metrics/r_precision.py``,
    ``_r_precision``: ``_precision`` at ``k = R``) and ir-measures 0.4.3
    ``Rprec`` (trec_eval through pytrec_eval) are the default.
    torchmetrics 1.9.0 ``RetrievalRPrecision``
    (``torchmetrics/functional/retrieval/r_precision.py``,
    ``retrieval_r_precision``) counts R over the items it is given, so it is
    the default only when every judged item is among them; given the
    recommended items alone, its R is the number of relevant items *in the
    list* (pass ``relevant`` restricted to ``recommended`` to reproduce it).

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] Buckley and Voorhees, "Retrieval System Evaluation", ch. 3 of
       Voorhees and Harman (eds.), *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005.
    .. [2] trec_eval 10.0, measure ``Rprec``, https://github.com/usnistgov/trec_eval
    .. [3] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import r_precision
    >>> r_precision(["a", "x", "b", "c"], {"a", "b", "c"})  # R = 3: a, x, b
    0.6666666666666666
    >>> r_precision(["a"], {"a": 2, "b": 1, "z": 0})  # R = 2, list of 1
    0.5
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    k = check_k(k)
    check_empty(empty)
    check_choice("no_hit", no_hit, ("zero", "nan"))
    items, truncate, grades = _condensed(items, grades, judged_only, truncate,
                                         candidates)
    n_rel = _n_relevant(grades, level)
    if n_rel == 0:
        return _no_relevant(empty)
    depth = n_rel if k is None or truncate is not None else min(k, n_rel)
    hits = int(_relevant_flags(items[:depth], grades, level).sum())
    if hits == 0 and no_hit == "nan":
        return math.nan
    return hits / n_rel


@ordered_by_scores("bpref", cutoff=False, allow_negative=True)
def bpref(recommended, relevant, *, relevance_level=1, empty="zero",
          scores=None, ties="input"):
    """Binary preference: how often judged relevant items precede judged non-relevant ones.

    With R relevant items (grade ``>= relevance_level``) and N judged
    non-relevant items (``0 <= grade < relevance_level``), both counted over
    all judgements,

    ``bpref = (1/R) * sum over retrieved relevant r of (1 - min(n_r, R) / min(N, R))``

    where ``n_r`` is the number of judged non-relevant items ranked above
    ``r``; a term with ``n_r = 0`` is 1 (also when N = 0). Unjudged items
    (absent from ``relevant``) and items with a negative grade are skipped:
    they neither count as non-relevant nor take a rank. Relevant items that
    are not retrieved add 0. No relevant item (R = 0): the ``empty`` policy
    (trec_eval: 0).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first. Ids must be unique.
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with their grades: ``>= relevance_level`` relevant,
        ``0 <= grade < relevance_level`` judged non-relevant, negative "in
        the pool but unjudged" (ignored, as trec_eval does). A plain
        collection of ids makes each relevant and judges nothing
        non-relevant, so bpref is then the fraction of relevant items
        retrieved.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (trec_eval ``-l``).
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better); the list
        is then sorted by them, stably, and equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items, as in :mod:`metrics_lib.ranking` (see its notes).
        All but ``"input"`` need ``scores``. ``"average"`` and ``"block"``
        are refused (no closed form here).

    Returns
    -------
    float
        bpref in ``[0, 1]``.

    See Also
    --------
    average_precision, r_precision

    Notes
    -----
    This is trec_eval's bpref since version 8.0 (``m_bpref.c``,
    ``te_calc_bpref``): N counts every judged non-relevant item, retrieved
    or not. Earlier versions looked only at the retrieved ones, which the
    file ``bpref_bug`` of trec_eval's source describes as a bug. Because
    bpref looks only at judged items, adding unjudged items anywhere in a
    list does not change it: it is meant for incomplete judgements, such as
    a recommender's logged feedback, where an unseen item is not a known
    bad one.

    Negative grades: trec_eval reads the qrels grade as an integer
    (``atol``) and treats a negative grade as judged-but-unassessed, not as
    non-relevant; here any negative grade does the same. A fractional grade
    is compared as it is (trec_eval would first truncate it toward 0, so
    that for instance ``-0.5`` becomes the non-relevant grade 0 there).

    References
    ----------
    .. [1] Buckley and Voorhees, "Retrieval Evaluation with Incomplete
       Information", SIGIR 2004.
    .. [2] trec_eval 10.0, measure ``bpref`` and the file ``bpref_bug``,
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import bpref
    >>> grades = {"a": 1, "b": 0, "c": 1, "d": 0, "e": -1}
    >>> # R = 2, N = 2; "a" has no judged non-relevant above it (1), "c" has
    >>> # "b" above it (1 - 1/2); "x" is unjudged and "e" is skipped.
    >>> bpref(["e", "a", "x", "b", "c"], grades)
    0.75
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    check_empty(empty)
    n_rel = _n_relevant(grades, level)
    if n_rel == 0:
        return _no_relevant(empty)
    n_nonrel = sum(1 for grade in grades.values() if 0 <= grade < level)
    nonrel_so_far = 0
    total = 0.0
    # One pass in rank order, as te_calc_bpref does (the same sums in the same
    # order give the same double).
    for item in items:
        grade = grades.get(item)
        if grade is None or grade < 0:
            continue
        if grade < level:
            nonrel_so_far += 1
        elif nonrel_so_far > 0:
            total += 1.0 - min(nonrel_so_far, n_rel) / min(n_nonrel, n_rel)
        else:
            total += 1.0
    return total / n_rel


def _check_recall_levels(recall_levels) -> np.ndarray:
    if recall_levels is None:
        return np.array(IPREC_RECALL_LEVELS)
    levels = check_real_array("recall_levels", recall_levels)
    outside = (levels < 0) | (levels > 1)
    if outside.any():
        raise ValueError("recall_levels must lie in [0, 1]; got "
                         f"{show(levels[outside][0])}")
    return levels


def interpolated_precision(recommended, relevant, recall_levels=None, *,
                           relevance_level=1,
                           scores=None, ties="input", trec_eval_version=10):
    """Interpolated precision at recall levels (``iprec_at_recall``).

    For a recall level ``p`` the target is the ``c``-th relevant item with
    ``c = round(p * R)`` (halves rounded up, C's ``lround``), R being the
    number of relevant items. The value is the highest precision at any rank
    at or after the rank of that item:

    ``iprec(p) = max {P@j : j >= rank of the c-th relevant item}``

    ``c = 0`` (for instance ``p = 0``) takes the maximum over every rank;
    ``c`` larger than the number of relevant items retrieved gives 0. No
    relevant item (R = 0), or no relevant item retrieved, gives 0 at every
    level.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first. Ids must be unique.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids (grade 1 each), or judged ids with their grades; a grade
        below ``relevance_level`` (negative ones included) is not relevant.
    recall_levels : sequence of float in [0, 1] or None, default=None
        Recall levels; ``None`` means trec_eval's eleven levels 0.0, 0.1,
        ..., 1.0 (``metrics_lib.trec_measures.IPREC_RECALL_LEVELS``). Each level is computed on its
        own, in the order given.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (trec_eval ``-l``).
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better); the list
        is then sorted by them, stably, and equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items, as in :mod:`metrics_lib.ranking` (see its notes).
        All but ``"input"`` need ``scores``. ``"average"`` and ``"block"``
        are refused (no closed form here).
    trec_eval_version : {10, 9}, default=10
        Whose target item: 10.0's ``lround(p * R)`` or 9.0.8's
        ``(long) (p * R + 0.9)`` (see Notes).

    Returns
    -------
    numpy.ndarray
        One interpolated precision (in ``[0, 1]``) per recall level.

    See Also
    --------
    r_precision, average_precision

    Notes
    -----
    trec_eval 10.0, ``m_iprec_at_recall.c``: the cut-off is
    ``lround(p * R)``. trec_eval 9.0.8 and earlier (and pytrec_eval 0.5,
    built on it) used ``(long)(p * R + 0.9)`` instead, which gives another
    target item whenever the fractional part of ``p * R`` lies in
    ``[0.1, 0.5)``: with R = 7, level 0.2 targets the first relevant item
    here and the second one there. These are the points of the standard
    (interpolated) recall-precision curve, which makes curves of queries
    with different R comparable; ``trec_eval_version=9`` computes 9.0.8's
    target (``m_iprec_at_recall.c`` of tag v9.0.8, ``te_calc_iprec_at_recall``;
    10.0's CHANGELOG: "Breaking fix: change uses of int truncation to
    round/floor"). Average precision summarises the
    un-interpolated curve. The :func:`evaluate` metric
    ``"iprec_at_recall_0.50"`` computes one level per user; there a user
    with no relevant item gets the value of its ``empty`` policy (0 by
    default, as here and in trec_eval).

    References
    ----------
    .. [1] Manning, Raghavan and Schütze, *Introduction to Information
       Retrieval*, Cambridge University Press, 2008, section 8.4.
    .. [2] trec_eval 10.0, measure ``iprec_at_recall``,
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import interpolated_precision
    >>> ranking = ["a", "x", "b", "y", "z", "c"]
    >>> interpolated_precision(ranking, {"a", "b", "c", "d"}, [0.0, 0.5, 0.75, 1.0]).round(4)
    array([1.    , 0.6667, 0.5   , 0.    ])
    """
    version = check_trec_eval_version(trec_eval_version)

    def score(ranked):
        return interpolated_precision(ranked, relevant, recall_levels,
                                      relevance_level=relevance_level,
                                      trec_eval_version=version)

    tied = _tied_call(score, "interpolated_precision", "iprec_at_recall", recommended,
                      relevant, None, scores, ties, {"relevance_level": relevance_level},
                      allow_negative=True)
    if tied is not None:
        return tied
    items, grades, level = _judged(recommended, relevant, relevance_level)
    levels = _check_recall_levels(recall_levels)
    n_rel = _n_relevant(grades, level)
    hits = _relevant_flags(items, grades, level)
    values = np.zeros(levels.size)
    ranks = np.flatnonzero(hits) + 1
    if n_rel == 0 or ranks.size == 0:
        return values
    # Precision at each relevant rank, then the running maximum from the
    # bottom: the best precision at or below each relevant item. (Between two
    # relevant ranks precision only falls, so the maxima sit on relevant ranks.)
    precision = np.arange(1, ranks.size + 1) / ranks
    best_below = np.maximum.accumulate(precision[::-1])[::-1]
    for index, p in enumerate(levels):
        target = iprec_target(p, n_rel, version)
        if target <= ranks.size:
            values[index] = best_below[max(target, 1) - 1]
    return values


def _average_precision_trec(items, grades, level) -> float:
    """trec_eval's AP (``te_calc_map``): a running sum in rank order, over R."""
    n_rel = _n_relevant(grades, level)
    total, found = 0.0, 0
    for rank, item in enumerate(items, start=1):
        if grades.get(item, -math.inf) >= level:
            found += 1
            total += found / rank
    return total / n_rel if found else 0.0


def floored_geometric_mean(values, *, floor=GM_FLOOR):
    """Geometric mean of non-negative values, each first raised to ``floor``.

    ``exp(mean(log(max(v, floor))))``: trec_eval's way of averaging a
    per-query measure geometrically (``gm_map``, ``gm_bpref``), where the
    floor keeps one query scored 0 from making the mean 0. Applied to the
    per-user average precisions that :func:`evaluate` returns for ``"map"``,
    it gives trec_eval's ``gm_map``.

    Parameters
    ----------
    values : sequence of float
        Per-user values, finite and ``>= 0`` (a pandas Series works; use
        ``empty="zero"`` in :func:`evaluate`, since ``nan`` is refused).
    floor : float, default=1e-5
        Lower bound applied before the logarithm (trec_eval ``MIN_GEO_MEAN``,
        ``metrics_lib.trec_measures.GM_FLOOR``); must be positive.

    Returns
    -------
    float
        The floored geometric mean, in ``[floor, max(values)]`` when the
        values are at least ``floor``.

    See Also
    --------
    geometric_mean_average_precision, evaluate

    Notes
    -----
    trec_eval 10.0 (``meas_avg.c``, ``te_calc_avg_meas_s_gm``) adds the
    logarithms query by query and takes ``exp`` of their mean; with ``-c``
    the queries without a run count as ``log(MIN_GEO_MEAN)``, which is what
    a user scored 0 by ``evaluate(..., missing="zero")`` contributes here.

    References
    ----------
    .. [1] Robertson, "On GMAP: and other transformations", CIKM 2006.
    .. [2] trec_eval 10.0, measure ``gm_map``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import floored_geometric_mean
    >>> round(floored_geometric_mean([0.5, 0.2, 0.0]), 6)  # (0.5 * 0.2 * 1e-5) ** (1/3)
    0.01
    """
    array = check_real_array("values", values)
    if (array < 0).any():
        raise ValueError("values must be >= 0 (they are per-user scores); got "
                         f"{show(array[array < 0][0])}")
    low = check_real("floor", floor, low=0, low_open=True)
    total = 0.0
    for value in array.tolist():  # in order, as trec_eval accumulates
        total += math.log(max(value, low))
    return math.exp(total / array.size)


def geometric_mean_average_precision(recommended_lists, relevant_lists, *,
                                     relevance_level=1):
    """Geometric mean over users of average precision, floored (``gm_map``).

    ``gm_map = exp((1/n) * sum over users u of log(max(AP_u, 1e-5)))``, AP
    being trec_eval's (divided by R, all relevant items; 0 when none is
    retrieved or none exists). The floor (trec_eval's ``MIN_GEO_MEAN``)
    keeps a user with AP 0, including one with no relevant item at all,
    from making the mean 0: such a user pulls it down by a factor
    ``1e-5 ** (1/n)`` instead.

    Parameters
    ----------
    recommended_lists : sequence of sequences
        One ranked list per user.
    relevant_lists : sequence of collections or mappings
        One judgement per user, aligned with ``recommended_lists``; grades
        below ``relevance_level`` (negative ones included) are not relevant.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (trec_eval ``-l``).

    Returns
    -------
    float
        gm_map in ``[1e-5, 1]``.

    See Also
    --------
    mean_average_precision, floored_geometric_mean

    Notes
    -----
    trec_eval 10.0, ``m_gm_map.c`` (per query ``log(MAX(ap, MIN_GEO_MEAN))``)
    and ``meas_avg.c`` (``te_calc_avg_meas_s_gm``: ``exp`` of the mean). Like
    trec_eval, every user given counts, also one with no relevant item. It
    rewards systems that do consistently well over ones that do very well on
    some users and badly on others. For a table of users use
    ``floored_geometric_mean(evaluate(recs, truth, "map")["map"])``.

    References
    ----------
    .. [1] Robertson, "On GMAP: and other transformations", CIKM 2006.
    .. [2] trec_eval 10.0, measure ``gm_map``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import geometric_mean_average_precision
    >>> lists = [["a", "x"], ["y", "b"]]
    >>> truth = [{"a"}, {"b"}]  # AP 1 and 0.5: geometric mean sqrt(0.5)
    >>> round(geometric_mean_average_precision(lists, truth), 4)
    0.7071
    """
    recs, rels = check_parallel_lists(recommended_lists, relevant_lists)
    aps = []
    for recommended, relevant in zip(recs, rels):
        items, grades, level = _judged(recommended, relevant, relevance_level)
        aps.append(_average_precision_trec(items, grades, level))
    return floored_geometric_mean(aps)
