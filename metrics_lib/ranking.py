"""Metrics of one ranked list: precision, recall, F1, hit, RR, AP, DCG, NDCG.

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
    ``metrics_lib._tie_kernels.TieGroups``). NDCG with
    ``ideal="retrieved"`` is refused: its ideal list is random too;
``"block"``
    every item of a tie group gets the group's *last* rank, i.e. one
    threshold per distinct score; an item is in the top ``k`` when that rank
    is at most ``k``. AP without cut-off and ``denominator="relevant"`` is
    then scikit-learn's ``average_precision_score`` and
    ``label_ranking_average_precision_score`` over the items passed. DCG and
    NDCG are refused (no order and no reference library gives that DCG);
``"best"`` / ``"worst"``
    the order in which, inside every tie group, higher grades come first /
    last: the largest and smallest value over all tie orders, which is the
    honest report when an order was never specified. (One exception: AP
    with ``denominator="retrieved"`` averages over the hits only, so fewer
    relevant items in the top ``k`` can score higher; there ``"best"`` and
    ``"worst"`` are the two orders, not the bounds.)

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

from __future__ import annotations

import math

import numpy as np

from ._tie_kernels import (EXPECTATION_MODES, TIE_MODES, TieGroups,
                           refuse_unsupported, tie_starts)
from ._validation import (
    show,
    check_bool,
    check_choice,
    check_empty,
    check_gain,
    check_min_grade,
    check_truncate,
    check_k,
    check_parallel_lists,
    check_real,
    check_recommended,
    check_relevance_level,
    check_relevant,
    check_score_threshold,
    check_scores,
    handle_empty,
)

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
    "mean_reciprocal_rank",
    "mean_average_precision",
]

AP_DENOMINATORS = ("relevant", "min_k", "retrieved", "k")
PRECISION_DENOMINATORS = ("k", "min_k", "retrieved")
RECALL_DENOMINATORS = ("relevant", "min_k")
GAINS = ("linear", "exponential", "binary")
IDEALS = ("judged", "retrieved", "k")
#: Largest k that ideal="k" accepts: its ideal list has k entries.
IDEAL_K_MAX = 1 << 24
# ties= of the per-list functions; evaluate has its own list (evaluate.TIES).
PER_LIST_TIES = ("input",) + TIE_MODES
# The keywords the closed forms of ties="average"/"block" know about, per
# metric; any other keyword (one added later, say) is refused there rather
# than silently ignored.
_TIE_OPTIONS = {
    "precision": ("relevance_level", "empty"),
    "recall": ("relevance_level", "empty"),
    "f1": ("relevance_level", "empty"),
    "hit": ("relevance_level", "empty"),
    "rr": ("relevance_level", "empty"),
    "ap": ("relevance_level", "empty", "denominator"),
    "dcg": ("gain", "log_base", "relevance_level"),
    "ndcg": ("gain", "log_base", "ideal", "empty", "relevance_level"),
    "rprec": ("relevance_level", "empty"),
}
# Keywords the closed forms support only at the value that changes nothing.
_TIE_NEUTRAL = {"judged_only": False, "truncate": None, "candidates": "all",
                "min_grade": None, "no_hit": "zero"}
_TIE_NEUTRAL_BY_KIND = {"precision": {"denominator": "k"},
                        "recall": {"denominator": "relevant"}}


class _BelowThreshold:
    """Stands in the ranked list for an item scored at or below ``score_threshold``.

    It takes the item's rank and is judged (grade 0) when the item is, so that
    the item counts as a non-relevant recommendation, while the item itself
    keeps its grade among the judgements (|R| and the ideal list are unchanged).
    """

    __slots__ = ("item",)
    wraps_id = True  # its id kind is the item's (_validation.ids_kind)

    def __init__(self, item):
        self.item = item

    def __eq__(self, other):
        return isinstance(other, _BelowThreshold) and other.item == self.item

    def __hash__(self):
        return hash((_BelowThreshold, self.item))

    def __repr__(self):
        return f"{show(self.item)} (scored at or below score_threshold)"


def _tied(metric, kind, recommended, relevant, k, scores, ties, score_threshold=None,
          **options):
    """Value of ``metric`` under ``scores`` and ``ties``, or None for the plain path.

    None means: no scores and ``ties="input"``, the list's order as given.
    ``"input"``, ``"best"`` and ``"worst"`` re-order the list and call
    ``metric`` on it; ``"average"`` and ``"block"`` call ``metric`` once (for
    its checks and its ``empty`` policy, which do not depend on the order)
    and then the closed forms of :mod:`metrics_lib._tie_kernels`.
    """
    threshold = check_score_threshold(score_threshold)
    if threshold is not None:
        check_choice("ties", ties, PER_LIST_TIES)
        if scores is None:
            raise ValueError("score_threshold needs scores: pass scores=[...], one per "
                             "recommended item")
        if ties in EXPECTATION_MODES:
            raise ValueError(f"{metric.__name__}: score_threshold is not available with "
                             f"ties={show(ties)}; use a fixed order or ties='best' / 'worst'")
        items, kind_ids = check_recommended(recommended, with_kind=True)
        values = check_scores(scores, len(items))
        grades = check_relevant(relevant, recommended=items, recommended_kind=kind_ids)
        if check_choice("candidates", options.get("candidates", "all"),
                        CANDIDATES) == "recommended":
            # the judgements of the listed items, taken before the stand-ins
            # replace them in the list
            listed = set(items)
            grades = {item: grade for item, grade in grades.items() if item in listed}
            options = dict(options, candidates="all")
        # Python compares an int score and a float threshold exactly
        below = [value <= threshold for value in values.tolist()]
        recommended = [_BelowThreshold(item) if low else item
                       for item, low in zip(items, below)]
        relevant = dict(grades)
        for item, low in zip(items, below):
            if low and item in grades:
                relevant[_BelowThreshold(item)] = 0.0
    return _tied_call(lambda ranked: metric(ranked, relevant, k, **options),
                      metric.__name__, kind, recommended, relevant, k, scores, ties,
                      options)


def _tied_call(call, name, kind, recommended, relevant, k, scores, ties, options, *,
               allow_negative=False):
    """:func:`_tied` for any signature: ``call(ranked_list)`` scores one order."""
    check_choice("ties", ties, PER_LIST_TIES)
    if scores is None:
        if ties != "input":
            raise ValueError(f"ties={show(ties)} needs scores: pass scores=[...], one "
                             "per recommended item, so that equal scores can be "
                             "recognised as ties")
        return None
    items = check_recommended(recommended)
    values = check_scores(scores, len(items))
    refuse_unsupported(ties, kind, ideal=options.get("ideal", "judged"), name=name)
    # ~x reverses the order of int64 without overflow; floats are negated
    primary = ~values if values.dtype.kind == "i" else -values
    if ties in ("best", "worst"):
        grades = check_relevant(relevant, allow_negative=allow_negative,
                                recommended=items)
        grade = np.array([grades.get(item, 0.0) for item in items], dtype=float)
        order = np.lexsort((-grade if ties == "best" else grade, primary))
    else:
        order = np.argsort(primary, kind="stable")
    ranked = [items[i] for i in order]
    plain = call(ranked)
    if ties not in EXPECTATION_MODES:
        return plain
    neutral = {**_TIE_NEUTRAL, **_TIE_NEUTRAL_BY_KIND.get(kind, {})}
    unknown = sorted(key for key, value in options.items()
                     if key not in _TIE_OPTIONS[kind]
                     and not (key in neutral and value == neutral[key]))
    if unknown:
        raise ValueError(f"{name}: keyword(s) {unknown} are not "
                         f"supported with ties={show(ties)}")
    grades = check_relevant(relevant, allow_negative=allow_negative,
                            recommended=items)
    level = options.get("relevance_level", 1)
    if level == 0 and kind not in ("ndcg", "dcg"):
        # the closed forms count positive grades only: grade >= 0 is grade + 1
        # >= 1 (evaluate does the same at trec_eval's -l 0)
        grades = {item: grade + 1.0 if grade >= 0 else grade
                  for item, grade in grades.items()}
        level = 1.0
    if kind == "ndcg":
        if not any(grade > 0 for grade in grades.values()):
            return plain  # the empty policy, already applied
    elif kind != "dcg" and not any(grade >= level for grade in grades.values()):
        return plain
    position = {item: i for i, item in enumerate(ranked)}
    judged = sorted((position[item], grade) for item, grade in grades.items()
                    if item in position)
    hit_rows = np.array([row for row, _ in judged], dtype=np.int64)
    hit_grades = np.array([grade for _, grade in judged], dtype=float)
    lengths = np.array([len(ranked)], dtype=np.int64)
    truth_grade = np.array(list(grades.values()), dtype=float)
    groups = TieGroups(lengths, tie_starts(values[order], lengths), hit_rows,
                       hit_grades, np.zeros(truth_grade.size, dtype=np.int64),
                       truth_grade, 1)
    kernel_options = {"relevance_level": level,
                      "denominator": options.get("denominator", "relevant"),
                      "gain": options.get("gain", "linear"),
                      "log_base": _check_log_base(options.get("log_base", 2))}
    value, _ = groups.measure(ties, kind, check_k(k), kernel_options)
    return float(value[0])


CANDIDATES = ("all", "recommended")


def _condensed(items: tuple, grades: dict, judged_only, truncate,
               candidates="all") -> tuple:
    """The list and judgements as the metric sees them.

    ``candidates="recommended"`` keeps only the judgements of listed items
    (a peer that is given the scored items only); ``judged_only=True`` drops
    the items absent from ``relevant`` (trec_eval ``-J``); ``truncate`` keeps
    the first ``truncate`` items (Recommenders
    ``relevancy_method="by_threshold"``). Returns ``(items, truncate,
    grades)``.
    """
    if check_choice("candidates", candidates, CANDIDATES) == "recommended":
        listed = set(items)
        grades = {item: grade for item, grade in grades.items() if item in listed}
    if check_bool("judged_only", judged_only):
        items = tuple(item for item in items if item in grades)
    truncate = check_truncate(truncate)
    return items if truncate is None else items[:truncate], truncate, grades


def _binary_inputs(recommended, relevant, k, relevance_level, empty,
                   judged_only=False, truncate=None, candidates="all"):
    """Validate and return (hits in the top k as a bool array, |R|, k used, list length).

    ``k`` used is the cut-off itself, or the list length when ``k`` is None.
    With ``truncate``, the hits are those of the truncated list, whatever
    ``k`` (which then only enters the denominators).
    """
    items, kind = check_recommended(recommended, with_kind=True)
    grades = check_relevant(relevant, recommended=items, recommended_kind=kind)
    k = check_k(k)
    level = check_relevance_level(relevance_level)
    check_empty(empty)
    items, truncate, grades = _condensed(items, grades, judged_only, truncate,
                                         candidates)
    relevant_ids = {item for item, grade in grades.items() if grade >= level}
    cutoff = len(items) if k is None else k
    scan = len(items) if truncate is not None else cutoff
    hits = np.fromiter((item in relevant_ids for item in items[:scan]),
                       dtype=bool, count=min(scan, len(items)))
    return hits, len(relevant_ids), cutoff, len(items)


def _no_relevant(empty: str) -> float:
    return handle_empty(empty, "relevant has no item at or above relevance_level")


def precision_at_k(recommended, relevant, k=None, *, denominator="k",
                   relevance_level=1, empty="zero", judged_only=False,
                   truncate=None, candidates="all",
                   scores=None, ties="input", score_threshold=None):
    """Fraction of the top ``k`` recommendations that are relevant.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first. Ids must be unique.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades (>= 0).
    k : int or None, default=None
        Cut-off. ``None`` uses the whole list, so the denominator is
        ``len(recommended)``.
    denominator : {"k", "min_k", "retrieved"}, default="k"
        What the hits are divided by:

        - ``"k"``: ``k`` even when the list is shorter (trec_eval ``P_k``,
          ranx, RecBole, Recommenders, RecTools ``Precision``);
        - ``"min_k"``: ``min(k, |R|)``, so that a perfect list scores 1 when
          fewer than ``k`` items are relevant (RecTools 0.19.0
          ``rectools/metrics/classification.py``,
          ``Precision(r_precision=True)``);
        - ``"retrieved"``: ``min(k, len(recommended))``, the items actually
          shown (torchmetrics 1.9.0
          ``torchmetrics/functional/retrieval/precision.py``,
          ``retrieval_precision(adaptive_k=True)``).

        With ``k=None``, ``k`` stands for the list length.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        What to return when no item is relevant: ``0.0`` (trec_eval),
        ``nan`` (leave the user out of a later ``nanmean``), ``1.0``
        (``"one"``: torchmetrics ``empty_target_action="pos"``), or raise a
        ``ValueError``.
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

    Returns
    -------
    float
        Precision in ``[0, 1]``.

    See Also
    --------
    recall_at_k, f1_at_k, hit_at_k

    Notes
    -----
    :math:`P@k = |\\{\\text{relevant in top } k\\}| / k`. As in trec_eval's
    ``P_k``, the denominator is ``k`` even when fewer than ``k`` items were
    recommended: the missing slots count as non-relevant. Libraries that
    divide by the list length instead (torchmetrics ``adaptive_k=True``)
    reward short lists.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] Manning, Raghavan and Schütze, *Introduction to Information
       Retrieval*, Cambridge University Press, 2008, ch. 8.
    .. [2] trec_eval, measure ``P``, https://github.com/usnistgov/trec_eval
    .. [3] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import precision_at_k
    >>> precision_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=3)
    0.6666666666666666
    >>> precision_at_k(["a"], {"a"}, k=2)  # short list: divides by k
    0.5
    >>> precision_at_k(["a"], {"a"}, k=2, denominator="retrieved")
    1.0
    >>> precision_at_k(["a", "x", "y"], {"a"}, k=3, denominator="min_k")
    1.0
    """
    tied = _tied(precision_at_k, "precision", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  denominator=denominator, relevance_level=relevance_level, empty=empty,
                  judged_only=judged_only, truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
    check_choice("denominator", denominator, PRECISION_DENOMINATORS)
    hits, n_relevant, cutoff, n_items = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    if denominator == "min_k":
        cutoff = min(cutoff, n_relevant)
    elif denominator == "retrieved":
        cutoff = min(cutoff, n_items)
    if cutoff == 0:  # an empty list: nothing recommended, nothing right
        return 0.0
    return float(hits.sum() / cutoff)


def recall_at_k(recommended, relevant, k=None, *, denominator="relevant",
                relevance_level=1, empty="zero", judged_only=False, truncate=None,
                candidates="all",
                scores=None, ties="input", score_threshold=None):
    """Fraction of the relevant items that appear in the top ``k``.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first. Ids must be unique.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
    denominator : {"relevant", "min_k"}, default="relevant"
        ``"relevant"``: all relevant items ``|R|`` (trec_eval and most
        libraries); ``"min_k"``: ``min(k, |R|)`` ("capped recall"; with
        ``k=None``, ``k`` stands for the list length).
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant (the ratio is 0/0).
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

    Returns
    -------
    float
        Recall in ``[0, 1]``.

    See Also
    --------
    precision_at_k, hit_at_k

    Notes
    -----
    :math:`R@k = |\\{\\text{relevant in top } k\\}| / |R|`, the denominator
    being all relevant items (trec_eval ``recall_k``, ranx, RecBole,
    Microsoft Recommenders). Some metric-learning code divides by
    ``min(k, |R|)`` ("capped recall") so that a perfect list scores 1 even
    when ``|R| > k``.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] trec_eval, measure ``recall``, https://github.com/usnistgov/trec_eval
    .. [2] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import recall_at_k
    >>> recall_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=3)
    0.5
    >>> recall_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=2, denominator="min_k")
    0.5
    """
    tied = _tied(recall_at_k, "recall", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  denominator=denominator, relevance_level=relevance_level, empty=empty,
                  judged_only=judged_only, truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
    check_choice("denominator", denominator, RECALL_DENOMINATORS)
    hits, n_relevant, cutoff, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    divisor = n_relevant if denominator == "relevant" else min(cutoff, n_relevant)
    if divisor == 0:  # min_k on an empty list with k=None
        return 0.0
    return float(hits.sum() / divisor)


def f1_at_k(recommended, relevant, k=None, *, relevance_level=1, empty="zero",
            judged_only=False, truncate=None, candidates="all",
            scores=None, ties="input", score_threshold=None):
    """Harmonic mean of precision@k and recall@k.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

    Returns
    -------
    float
        F1 in ``[0, 1]``; 0 when there is no hit.

    See Also
    --------
    precision_at_k, recall_at_k

    Notes
    -----
    :math:`F1@k = 2 P R / (P + R)` with ``P`` and ``R`` as in
    :func:`precision_at_k` and :func:`recall_at_k` (both trec_eval style).
    Equivalently ``2 * hits / (k + |R|)``.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] van Rijsbergen, *Information Retrieval*, 2nd ed., 1979, ch. 7.
    .. [2] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import f1_at_k
    >>> round(f1_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=3), 4)
    0.5714
    """
    tied = _tied(f1_at_k, "f1", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  relevance_level=relevance_level, empty=empty, judged_only=judged_only,
                  truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
    hits, n_relevant, cutoff, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    n_hits = int(hits.sum())
    if n_hits == 0:
        return 0.0
    return float(2 * n_hits / (cutoff + n_relevant))


def hit_at_k(recommended, relevant, k=None, *, relevance_level=1, empty="zero",
             judged_only=False, truncate=None, candidates="all",
             scores=None, ties="input", score_threshold=None):
    """1.0 if at least one relevant item is in the top ``k``, else 0.0.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. With ``"average"`` the value is the probability of a hit.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

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
    tied = _tied(hit_at_k, "hit", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  relevance_level=relevance_level, empty=empty, judged_only=judged_only,
                  truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
    hits, n_relevant, _, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    return 1.0 if hits.any() else 0.0


def hit_count_at_k(recommended, relevant, k=None, *, relevance_level=1,
                   judged_only=False, truncate=None, candidates="all"):
    """Number of relevant items in the top ``k`` (a count, not a rate).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.

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


def reciprocal_rank(recommended, relevant, k=None, *, relevance_level=1,
                    empty="zero", judged_only=False, truncate=None,
                    candidates="all",
                    scores=None, ties="input", score_threshold=None):
    """One over the rank of the first relevant item in the top ``k``.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; a first hit below rank ``k`` scores 0.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

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
    tied = _tied(reciprocal_rank, "rr", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  relevance_level=relevance_level, empty=empty, judged_only=judged_only,
                  truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
    hits, n_relevant, _, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    positions = np.flatnonzero(hits)
    return float(1.0 / (positions[0] + 1)) if positions.size else 0.0


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
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades.
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
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
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. ``"block"`` with ``denominator="relevant"`` and ``k=None`` is
        scikit-learn's ``average_precision_score``.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

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
    tied = _tied(average_precision, "ap", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  denominator=denominator,
                  relevance_level=relevance_level, empty=empty,
                  judged_only=judged_only, truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
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


def _check_log_base(log_base) -> float:
    return check_real("log_base", log_base, low=1, low_open=True)


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


def dcg_at_k(recommended, relevant, k=None, *, gain="linear", log_base=2,
             relevance_level=1, min_grade=None, judged_only=False, truncate=None,
             candidates="all",
             scores=None, ties="input", score_threshold=None):
    """Discounted cumulative gain of the top ``k`` items.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with grades (a plain collection means grade 1 each).
        Items not in ``relevant`` have grade 0.
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
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
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. ``"average"`` is scikit-learn's ``dcg_score`` (default
        ``ignore_ties=False``); ``"block"`` is refused.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

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
    tied = _tied(dcg_at_k, "dcg", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  gain=gain, log_base=log_base, relevance_level=relevance_level,
                  min_grade=min_grade, judged_only=judged_only, truncate=truncate,
                  candidates=candidates)
    if tied is not None:
        return tied
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


def ndcg_at_k(recommended, relevant, k=None, *, gain="linear", ideal="judged",
              log_base=2, empty="zero", relevance_level=1, min_grade=None,
              judged_only=False, truncate=None, candidates="all",
              scores=None, ties="input", score_threshold=None):
    """DCG of the list divided by the DCG of an ideal list (in ``[0, 1]``).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
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
    judged_only : bool, default=False
        ``True`` removes the items that ``relevant`` does not judge from the
        list before anything is counted: a "condensed" list (trec_eval 10.0
        ``-J``; ir-measures 0.4.3 ``judged_only=True``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items of the list and count the hits in
        all of them, whatever ``k``; ``k`` then only sets the denominator.
        Microsoft Recommenders 1.2.1 ``relevancy_method="by_threshold"``
        (``recommenders/evaluation/python_evaluation.py``,
        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,
        default 10).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in the list,
        as a peer does that is given the scored items only: torchmetrics
        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the
        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides
        by the relevant items passed and ``RetrievalRPrecision`` takes R
        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``
        given the recommended items.
    empty : {"zero", "nan", "raise"}, default="zero"
        Result when no judged item has a positive grade (ideal DCG is 0).
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better). The list
        is then sorted by them, stably; equal scores are ties.
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; see
        the module notes (:mod:`metrics_lib.ranking`). All but ``"input"``
        need ``scores``. ``"average"`` is scikit-learn's ``ndcg_score`` (default
        ``ignore_ties=False``) when every judged item is passed;
        ``"block"`` is refused.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below this value is never a
        hit. It keeps its rank but counts as judged non-relevant, while
        ``relevant`` is unchanged (the number of relevant items and the
        ideal list still include it): torchmetrics 1.9.0's
        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and
        reciprocal rank is ``score_threshold=0``. Not available with
        ``ties="average"`` or ``"block"``.

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
    tied = _tied(ndcg_at_k, "ndcg", recommended, relevant, k, scores, ties,
                  score_threshold=score_threshold,
                  gain=gain, ideal=ideal, log_base=log_base, empty=empty,
                  relevance_level=relevance_level, min_grade=min_grade,
                  judged_only=judged_only, truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
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


def _mean_over_users(metric, recommended_lists, relevant_lists, scores_lists=None,
                     **kwargs):
    recs, rels = check_parallel_lists(recommended_lists, relevant_lists)
    if scores_lists is None:
        scores = [None] * len(recs)
    else:
        if isinstance(scores_lists, (str, bytes)) or np.isscalar(scores_lists):
            raise TypeError("scores_lists must be a sequence with one score list per "
                            f"user; got {type(scores_lists).__name__}")
        scores = list(scores_lists)
        if len(scores) != len(recs):
            raise ValueError("scores_lists must have one entry per user: got "
                             f"{len(scores)} for {len(recs)} users")
    values = []
    for user, (rec, rel, user_scores) in enumerate(zip(recs, rels, scores)):
        try:
            values.append(metric(rec, rel, scores=user_scores, **kwargs))
        except (TypeError, ValueError) as error:
            raise type(error)(f"user {user}: {error}") from None
    values = np.array(values, dtype=float)
    if np.all(np.isnan(values)):
        return math.nan
    return float(np.nanmean(values))


def mean_reciprocal_rank(recommended_lists, relevant_lists, k=None, *,
                         relevance_level=1, empty="zero",
                         scores_lists=None, ties="input"):
    """Mean of :func:`reciprocal_rank` over users.

    Parameters
    ----------
    recommended_lists : sequence of sequences
        One ranked list per user.
    relevant_lists : sequence of collections or mappings
        One relevance judgement per user, aligned with ``recommended_lists``.
    k : int or None, default=None
        Cut-off applied to every list.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Users with nothing relevant count as 0 (``"zero"``, trec_eval), are
        left out of the mean (``"nan"``), or raise. If every user is left
        out the result is ``nan``.
    scores_lists : sequence of sequences of float, optional
        One score list per user, parallel to ``recommended_lists`` (see the
        ``scores`` of the per-list function).
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items in every list, as in the per-list function.

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


def mean_average_precision(recommended_lists, relevant_lists, k=None, *,
                           denominator="relevant", relevance_level=1,
                           empty="zero",
                           scores_lists=None, ties="input"):
    """Mean of :func:`average_precision` over users (MAP, or MAP@k).

    Parameters
    ----------
    recommended_lists : sequence of sequences
        One ranked list per user.
    relevant_lists : sequence of collections or mappings
        One relevance judgement per user, aligned with ``recommended_lists``.
    k : int or None, default=None
        Cut-off applied to every list.
    denominator : {"relevant", "min_k", "retrieved"}, default="relevant"
        See :func:`average_precision`.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (``>= 0``); 0, as
        trec_eval's ``-l 0``, makes every judged item relevant, grade 0
        included, and no unjudged one.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Users with nothing relevant count as 0, are left out of the mean
        (``"nan"``), or raise.
    scores_lists : sequence of sequences of float, optional
        One score list per user, parallel to ``recommended_lists`` (see the
        ``scores`` of the per-list function).
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items in every list, as in the per-list function.

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
