"""What the per-list metrics share: tie handling, the condensed list, binary inputs.

The definitions live in one module per metric family (``precision_recall``,
``hit_rate``, ``reciprocal_rank``, ``average_precision``, ``ndcg``); this
module holds the machinery they have in common and nothing else.
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from .._tie_kernels import (EXPECTATION_MODES, TIE_MODES, TieGroups, refuse_unsupported,
                            tie_starts)
from .._validation import (show, check_bool, check_choice, check_empty, check_truncate,
                           check_k, check_parallel_lists, check_real, check_recommended,
                           check_relevance_level, check_relevant, check_score_threshold,
                           check_scores, handle_empty)


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
    "rbp": ("gain", "relevance_level", "empty", "residual", "residual_tail"),
    "rbp_resid": ("gain", "relevance_level", "empty", "residual", "residual_tail"),
    "judged": (),
    "relative_p": ("relevance_level", "empty"),
}
# Metrics that read the grades as they are, not as grade >= relevance_level
_OWN_GRADES = ("ndcg", "dcg", "rbp")
# Metrics defined for a user without a relevant item (no empty policy)
_NO_EMPTY = ("dcg", "judged", "rbp_resid")
# Keywords the closed forms support only at the value that changes nothing.
_TIE_NEUTRAL = {"judged_only": False, "truncate": None, "candidates": "all",
                "min_grade": None, "no_hit": "zero", "k": None}
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


def _tied(metric, kind, recommended, relevant, k, scores, ties, /, score_threshold=None, *,
          cutoff=True, allow_negative=False, **options):
    """Value of ``metric`` under ``scores`` and ``ties``, or None for the plain path.

    None means: no scores and ``ties="input"``, the list's order as given.
    ``"input"``, ``"best"`` and ``"worst"`` re-order the list and call
    ``metric`` on it; ``"average"`` and ``"block"`` call ``metric`` once (for
    its checks and its ``empty`` policy, which do not depend on the order)
    and then the closed forms of :mod:`metrics_lib._tie_kernels`.
    ``cutoff=False``: ``metric`` takes no third argument (``k`` is None; a
    ``k`` among ``options`` is the metric's own keyword); ``allow_negative``:
    as in :func:`_tied_call`.
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
    cut = (k,) if cutoff else ()
    return _tied_call(lambda ranked: metric(ranked, relevant, *cut, **options),
                      metric.__name__, kind, recommended, relevant, k, scores, ties,
                      options, allow_negative=allow_negative)


def ordered_by_scores(kind, *, cutoff=True, allow_negative=False):
    """Give a per-list metric its ``scores=`` and ``ties=`` (and ``score_threshold=``).

    The decorated function computes one list in its given order; the wrapper
    re-orders it by ``scores`` under ``ties`` (or takes the closed forms of
    ``ties="average"``/``"block"``) through :func:`_tied`, passing every other
    keyword on, so no metric writes its keyword list out twice. ``kind``
    names the metric for :mod:`metrics_lib._tie_kernels`. ``cutoff=False``:
    the closed forms take no cut-off from the metric (any third parameter is
    passed on as a keyword); ``allow_negative``: negative grades are valid
    (pooled but unjudged items, as trec_eval's qrels grade -1).
    """
    def decorate(metric):
        signature = inspect.signature(metric)
        cutoff_name = list(signature.parameters)[2] if cutoff else None  # k, or p for RBP

        @functools.wraps(metric)
        def with_scores(*args, **kwargs):
            try:
                options = signature.bind(*args, **kwargs)
            except TypeError:  # Python's own message, which names the function
                return metric(*args, **kwargs)
            options.apply_defaults()
            options = dict(options.arguments)
            recommended, relevant = options.pop("recommended"), options.pop("relevant")
            k = options.pop(cutoff_name) if cutoff else None
            scores, ties = options.pop("scores"), options.pop("ties")
            threshold = options.pop("score_threshold", None)
            tied = _tied(metric, kind, recommended, relevant, k, scores, ties,
                         score_threshold=threshold, cutoff=cutoff,
                         allow_negative=allow_negative, **options)
            if tied is not None:
                return tied
            return metric(recommended, relevant, *((k,) if cutoff else ()), **options)
        return with_scores
    return decorate


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
    if level == 0 and kind not in _OWN_GRADES:
        # the closed forms count positive grades only: grade >= 0 is grade + 1
        # >= 1 (evaluate does the same at trec_eval's -l 0)
        grades = {item: grade + 1.0 if grade >= 0 else grade
                  for item, grade in grades.items()}
        level = 1.0
    if kind in ("ndcg", "rbp"):
        if not any(grade > 0 for grade in grades.values()):
            return plain  # the empty policy, already applied
    elif kind not in _NO_EMPTY and not any(grade >= level for grade in grades.values()):
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
                      "log_base": _check_log_base(options.get("log_base", 2)),
                      "residual_tail": options.get("residual_tail", "unjudged")}
    if kind in ("rbp", "rbp_resid"):
        # RBP's third argument is its persistence p (checked by the call above),
        # which evaluate's kernels read as the parameter of rbp(p=...)
        kernel_options["parameters"] = {"p": k}
        k = None
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


def _check_log_base(log_base) -> float:
    return check_real("log_base", log_base, low=1, low_open=True)


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


# -- shared by the metric declarations (metrics_lib/ranking/registry.py) -----------

def _binary_batch(kind):
    """The batch kernel of a binary-relevance metric (``UserTable.binary``)."""
    def batch(tables, k, options):
        return tables.binary.binary(
            kind, k, options["relevance_level"], options["denominator"],
            precision_denominator=options["precision_denominator"],
            recall_denominator=options["recall_denominator"], truncated=tables.truncated)
    return batch


_TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # m_P.c, m_recall.c, ...
