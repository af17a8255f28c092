"""Metrics of a query with several intents: alpha-nDCG, ERR-IA, P-IA, subtopic recall.

A user (a query) has intents (subtopics) ``i = 1..m``; an item is relevant to
intent ``i`` when its grade for ``i`` is at least ``relevance_level`` (grades
are read as relevant / not relevant, as ndeval reads them). ``S`` is the
number of the user's intents that have at least one relevant item: intents
never judged relevant are left out of every mean, and a user with ``S = 0``
gets the ``empty`` policy (0 by default, ndeval's value). ``J_i(r)`` is 1 when
the item at rank ``r`` is relevant to intent ``i``, and ``c_i(r)`` counts the
items above rank ``r`` relevant to it. With the redundancy intolerance
``alpha`` (0.5), the novelty gain of rank ``r`` is
``G(r) = sum over i of J_i(r) * (1 - alpha)**c_i(r)``::

    alpha-DCG@k   = sum_{r<=k} G(r) / log2(r + 1)
    alpha-nDCG@k  = alpha-DCG@k / alpha-DCG@k of the ideal list
    ERR-IA@k      = sum_{r<=k} G(r) / r  /  (S * sum_{r<=k} (1 - alpha)**(r - 1) / r)
    P-IA@k        = sum_{r<=k} sum_i J_i(r)  /  (k * S)
    S-recall@k    = (number of intents i with J_i(r) = 1 for some r <= k) / S

Clarke et al. (SIGIR 2008) define alpha-nDCG; Agrawal et al. (WSDM 2009)
the intent-aware metrics as ``sum_i P(i | q) * metric_i``; Zhai, Cohen and
Lafferty (SIGIR 2003) subtopic recall. The conventions are those of ndeval
(TREC Web track, version 4.5 of 29 April 2013; the copy that the PyPI package
pyndeval 0.0.8 compiles, ``src/ndeval.c``, which ir-measures 0.4.3 calls for
``alpha_nDCG``, ``ERR_IA``, ``P_IA`` and ``StRecall``):

* the intents weigh the same, ``P(i | q) = 1 / S`` over the intents with a
  relevant item (``actualSubtopics``);
* ERR-IA is ndeval's ``computeERR``: each intent's ERR has stopping
  probability ``alpha`` at a relevant item, and the mean over intents is
  divided by the ERR of a list relevant at every rank (its "ideal ideal"
  normalisation), which makes it lie in [0, 1]. ndeval skips that division
  at rank 1 (its loop starts at ``i = 1``), so its ``ERR-IA@1`` is ``G(1)``,
  up to ``S``; here ``err_ia@1`` is divided like every other cut-off;
* the ideal list of alpha-nDCG is ndeval's greedy approximation
  (``idealResult``): rank by rank, the judged item of largest ``G``, a tie
  going to the largest item id (ndeval: the largest docno, in ``strcmp``
  order, which is the order of string ids and, for integer ids, the order
  of ids of the same number of digits). The exact ideal is NP-hard to find;
  the greedy one can fall short of it, so alpha-nDCG can exceed 1 in
  principle (Clarke et al. 2008, section 5);
* P-IA divides by ``k`` even when the list is shorter, counting each (item,
  intent) pair once.

ndeval ranks a run by the rank column, pyndeval by score and then docno
ascending: ``evaluate(..., ties="item_asc")`` is pyndeval's order (the
default ``"item_desc"`` is trec_eval's and ndeval ``-traditional``'s).
ndeval stops at rank 20 (``DEPTH``); these functions take any ``k``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .._kernels import _first_in_run
from .._validation.lists import _as_python_id
from .._validation import (check_empty, check_k, check_real, check_recommended,
                           check_relevance_level, check_same_kind, handle_empty, show)
from ._docstrings import shared_parameters
from .judgements import _refuse_bounds
from .registry import Metric, Parameter, register

# ndeval's ALPHA, Clarke et al.'s value
ALPHA = 0.5


# -- validation -----------------------------------------------------------------------

def _intent_inputs(recommended, relevant, k, alpha, relevance_level):
    """Checked inputs: the top k as sets of relevant intents, and every judged item's."""
    items, kind = check_recommended(recommended, with_kind=True)
    k = check_k(k, allow_none=False)
    alpha = check_real("alpha", alpha, low=0.0, high=1.0)
    level = check_relevance_level(relevance_level)
    if not isinstance(relevant, Mapping):
        raise TypeError("relevant must be a mapping item -> {intent: grade}; got "
                        f"{type(relevant).__name__}")
    judged = {}
    for item, grades in relevant.items():
        if not isinstance(grades, Mapping):
            raise TypeError(f"relevant[{show(item)}] must be a mapping intent -> grade; "
                            f"got {type(grades).__name__} {show(grades)}")
        # an Arrow scalar key is the id it holds, as in check_relevant
        judged[_as_python_id(item)] = frozenset(
            intent for intent, grade in grades.items()
            if check_real(f"the grade of item {show(item)} for intent {show(intent)}",
                          grade, low=0.0) >= level)
    # the ids of relevant must be of the list's kind (a str list never matches int ids)
    check_same_kind("recommended", kind, "relevant", judged)
    top = [judged.get(item, frozenset()) for item in items[:k]]
    return top, judged, k, alpha


def _checked(recommended, relevant, k, alpha, relevance_level, empty):
    """Every per-list function's checks: its inputs and ``S``, or the ``empty`` value.

    Returns ``(top, judged, k, alpha, S)``, or ``(None, value)`` with the
    ``empty`` policy's value when no intent has a relevant item (``S = 0``).
    """
    empty = check_empty(empty)  # checked even when S > 0 makes it unused
    top, judged, k, alpha = _intent_inputs(recommended, relevant, k, alpha,
                                           relevance_level)
    n_intents = _n_intents(judged)
    if n_intents == 0:
        return None, handle_empty(empty, "no intent has a relevant item")
    return top, judged, k, alpha, n_intents


def _novelty_gains(ranked, alpha):
    """G(r) of each rank: each intent's n-th relevant item gains (1 - alpha)**(n - 1)."""
    seen, gains = {}, []
    for intents in ranked:
        gains.append(sum((1.0 - alpha) ** seen.get(i, 0) for i in intents))
        for i in intents:
            seen[i] = seen.get(i, 0) + 1
    return gains


def _n_intents(judged):
    """S, the number of intents with at least one relevant item."""
    return len(set().union(*judged.values()))


# -- per-list functions ---------------------------------------------------------------

@shared_parameters
def alpha_ndcg_at_k(recommended, relevant, k, *, alpha=ALPHA, relevance_level=1,
                    empty="zero"):
    """alpha-nDCG@k of a list (Clarke et al. 2008), with ndeval's greedy ideal.

    ``alpha-DCG@k = sum_{r<=k} G(r) / log2(r + 1)`` with the novelty gain
    ``G(r) = sum_i J_i(r) * (1 - alpha)**c_i(r)``: ``J_i(r)`` is 1 when the
    item at rank ``r`` is relevant to intent ``i`` (grade at least
    ``relevance_level``) and ``c_i(r)`` counts the items above it relevant
    to ``i``. alpha-nDCG divides by the alpha-DCG@k of the ideal list, built
    greedily from the judged items as ndeval 4.5 builds it. A user without
    an intent that has a relevant item gets the ``empty`` policy; a list
    shorter than ``k`` is scored as it is.

    Parameters
    ----------
    {{recommended relevant_intents k_required}}
    alpha : float, default=0.5
        Redundancy intolerance in [0, 1]: 0 counts every relevant item
        fully, 1 only the first one of each intent.
    {{relevance_level_intents empty_intents}}

    Returns
    -------
    float
        alpha-nDCG@k: 0 when the top k holds no relevant item, the ``empty``
        policy's value when no intent has one; above 1 only where the greedy
        ideal falls short of the best list (see Notes).

    Raises
    ------
    {{raises_intents}}

    See Also
    --------
    err_ia_at_k, precision_ia_at_k, subtopic_recall_at_k, ndcg_at_k

    Notes
    -----
    The ideal list is ndeval's (``src/ndeval.c``, ``idealResult``): at each
    rank the remaining judged item of largest ``G``, a tie going to the
    largest item id. Finding the exact ideal is NP-hard; ``evaluate``'s
    ``alpha_ndcg@k`` equals pyndeval 0.0.8's ``alpha-nDCG@k`` user by user
    (``tests/test_intent_metrics.py``).

    References
    ----------
    .. [1] Clarke, Kolla, Cormack, Vechtomova, Ashkan, Büttcher and
       MacKinnon, "Novelty and diversity in information retrieval
       evaluation", SIGIR 2008.

    Examples
    --------
    Item ``a`` covers intents 1 and 2, ``b`` intent 1 again, ``c`` intent 3:

    >>> from metrics_lib import alpha_ndcg_at_k
    >>> truth = {"a": {1: 1, 2: 1}, "b": {1: 1}, "c": {3: 1}}
    >>> round(alpha_ndcg_at_k(["a", "b", "c"], truth, 3), 6)
    0.977276
    >>> alpha_ndcg_at_k(["a", "c", "b"], truth, 3)
    1.0
    """
    checked = _checked(recommended, relevant, k, alpha, relevance_level, empty)
    if checked[0] is None:
        return checked[1]
    top, judged, k, alpha, _ = checked
    ideal = _discounted(_greedy_ideal(judged, k, alpha))
    return _discounted(_novelty_gains(top, alpha)) / ideal


def _discounted(gains):
    # ndeval's discount(i): log(2) / log(i + 2) for the 0-based rank i
    return sum(g * (math.log(2.0) / math.log(r + 1.0)) for r, g in enumerate(gains, 1))


def _greedy_ideal(judged, k, alpha):
    """G(r) of ndeval's greedy ideal list, ranks 1..k (items of no intent left out)."""
    left = sorted((item for item, intents in judged.items() if intents), key=_id_order)
    seen, gains = {}, []
    while left and len(gains) < k:
        scores = [sum((1.0 - alpha) ** seen.get(i, 0) for i in judged[item])
                  for item in left]
        best = max(range(len(left)), key=lambda j: (scores[j], j))  # ties: largest id
        gains.append(scores[best])
        for i in judged[left.pop(best)]:
            seen[i] = seen.get(i, 0) + 1
    return gains


def _id_order(item):
    # ids of one kind compare directly; numpy integers as Python ints
    return item.item() if isinstance(item, np.generic) else item


@shared_parameters
def err_ia_at_k(recommended, relevant, k, *, alpha=ALPHA, relevance_level=1, empty="zero"):
    """Intent-aware ERR@k as ndeval computes it (Agrawal et al. 2009; Chapelle et al. 2009).

    ``ERR-IA@k = sum_{r<=k} G(r) / r / (S * sum_{r<=k} (1 - alpha)**(r - 1) / r)``
    with the novelty gain ``G(r)`` of :func:`alpha_ndcg_at_k` and ``S`` the
    number of intents that have a relevant item: the mean over those
    intents of each intent's ERR (stopping probability ``alpha`` at a
    relevant item), divided by the ERR of a list relevant at every rank.
    A user with ``S = 0`` gets the ``empty`` policy.

    Parameters
    ----------
    {{recommended relevant_intents k_required}}
    alpha : float, default=0.5
        The stopping probability at a relevant item, in [0, 1].
    {{relevance_level_intents empty_intents}}

    Returns
    -------
    {{returns_intents}}

    Raises
    ------
    {{raises_intents}}

    See Also
    --------
    alpha_ndcg_at_k, err_at_k

    Notes
    -----
    This is ndeval 4.5's ``ERR-IA@k`` (``src/ndeval.c``, ``computeERR``),
    not Agrawal et al.'s weighted sum of graded ERR: the intents weigh
    ``1 / S``, relevance is binary, and the "ideal ideal" division makes it
    independent of the collection. At ``k = 1`` ndeval leaves the division
    out (its normalising loop starts at the second rank) and reports
    ``G(1)``, which can exceed 1; here ``k = 1`` is divided too, so
    ``err_ia_at_k(..., 1)`` is ndeval's value over ``S``.

    References
    ----------
    .. [1] Agrawal, Gollapudi, Halverson and Ieong, "Diversifying search
       results", WSDM 2009.
    .. [2] Chapelle, Metzler, Zhang and Grinspan, "Expected reciprocal rank
       for graded relevance", CIKM 2009.

    Examples
    --------
    >>> from metrics_lib import err_ia_at_k
    >>> truth = {"a": {1: 1, 2: 1}, "b": {1: 1}, "c": {3: 1}}
    >>> err_ia_at_k(["a", "b", "c"], truth, 3)  # (2 + 0.5/2 + 1/3) / (3 * (1 + 0.5/2 + 0.25/3))
    0.6458333333333334
    """
    checked = _checked(recommended, relevant, k, alpha, relevance_level, empty)
    if checked[0] is None:
        return checked[1]
    top, _, k, alpha, n_intents = checked
    value = sum(g / r for r, g in enumerate(_novelty_gains(top, alpha), 1))
    return value / (n_intents * _ideal_ideal_err(k, alpha))


def _ideal_ideal_err(k, alpha):
    """sum_{r<=k} (1 - alpha)**(r - 1) / r: the ERR of a list relevant at every rank.

    Terms past ``(1 - alpha)**(r - 1) < 1e-320`` are 0 in floating point, so
    the sum stops there (alpha = 0 sums all k terms).
    """
    if alpha > 0:
        k = min(k, 2 + int(740.0 / -math.log1p(-alpha)) if alpha < 1 else 1)
    ranks = np.arange(1, k + 1, dtype=np.float64)
    return float(np.sum(np.power(1.0 - alpha, ranks - 1.0) / ranks))


@shared_parameters
def precision_ia_at_k(recommended, relevant, k, *, relevance_level=1, empty="zero"):
    """Intent-aware precision@k (Agrawal et al. 2009) with ndeval's weights.

    ``P-IA@k = sum_{r<=k} sum_i J_i(r) / (k * S)``: the mean over the ``S``
    intents that have a relevant item of each intent's precision@k, the
    denominator ``k`` even when the list is shorter. A user with ``S = 0``
    gets the ``empty`` policy.

    Parameters
    ----------
    {{recommended relevant_intents k_required relevance_level_intents empty_intents}}

    Returns
    -------
    {{returns_intents}}

    Raises
    ------
    {{raises_intents}}

    See Also
    --------
    subtopic_recall_at_k, precision_at_k

    Notes
    -----
    ndeval 4.5, ``src/ndeval.c``, ``computePrecision``: intents weigh
    ``1 / S``, not a query's intent distribution ``P(i | q)`` (which ndeval
    has no input for).

    References
    ----------
    .. [1] Agrawal, Gollapudi, Halverson and Ieong, "Diversifying search
       results", WSDM 2009.

    Examples
    --------
    >>> from metrics_lib import precision_ia_at_k
    >>> truth = {"a": {1: 1, 2: 1}, "b": {1: 1}, "c": {3: 1}}
    >>> precision_ia_at_k(["a", "x"], truth, 2)
    0.3333333333333333
    """
    checked = _checked(recommended, relevant, k, ALPHA, relevance_level, empty)
    if checked[0] is None:
        return checked[1]
    top, _, k, _, n_intents = checked
    return sum(len(intents) for intents in top) / (k * n_intents)


@shared_parameters
def subtopic_recall_at_k(recommended, relevant, k, *, relevance_level=1, empty="zero"):
    """Subtopic recall@k (Zhai, Cohen and Lafferty 2003): the share of intents covered.

    ``S-recall@k`` is the number of intents with a relevant item in the top
    ``k`` over ``S``, the number of intents that have a relevant item at
    all. A user with ``S = 0`` gets the ``empty`` policy.

    Parameters
    ----------
    {{recommended relevant_intents k_required relevance_level_intents empty_intents}}

    Returns
    -------
    {{returns_intents}}

    Raises
    ------
    {{raises_intents}}

    See Also
    --------
    precision_ia_at_k, recall_at_k

    Notes
    -----
    ndeval 4.5's ``strec@k`` (``src/ndeval.c``, ``computeSTRecall``).

    References
    ----------
    .. [1] Zhai, Cohen and Lafferty, "Beyond independent relevance: methods
       and evaluation metrics for subtopic retrieval", SIGIR 2003.

    Examples
    --------
    >>> from metrics_lib import subtopic_recall_at_k
    >>> truth = {"a": {1: 1, 2: 1}, "b": {1: 1}, "c": {3: 1}}
    >>> subtopic_recall_at_k(["b", "a"], truth, 2)
    0.6666666666666666
    """
    checked = _checked(recommended, relevant, k, ALPHA, relevance_level, empty)
    if checked[0] is None:
        return checked[1]
    top, _, k, _, n_intents = checked
    return len(set().union(*top)) / n_intents


# -- the batch kernels (evaluate's intent_col=) -------------------------------------
#
# evaluate reads a truth with one row per (user, item, intent) and folds it into
# one row per (user, item) whose "grade" is a 1-based key into the item's
# relevant intents (metrics_lib/batch/intents.py): options["intent_ptr"] and
# options["intent_codes"] hold them, as compressed rows. The keys of one user
# increase with the item id, which gives the greedy ideal its tie order.

def _intents_of(keys, options):
    """(row, intent) of every relevant intent of the items of 1-based ``keys``."""
    ptr, codes = options["intent_ptr"], options["intent_codes"]
    group = keys.astype(np.int64) - 1
    counts = ptr[group + 1] - ptr[group]
    row = np.repeat(np.arange(group.size), counts)
    within = np.arange(row.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return row, codes[ptr[group][row] + within]


def _run_rank(keys, order=None):
    """How many equal keys come before each one (keys in any order, stable).

    ``order``: a stable order that brings equal keys together (default: by key).
    """
    if order is None:
        order = np.argsort(keys, kind="stable")
    first = _first_in_run(keys[order])
    starts = np.flatnonzero(first)
    rank = np.empty(keys.size, dtype=np.int64)
    rank[order] = np.arange(keys.size) - starts[np.cumsum(first) - 1]
    return rank


def _seen_before(user, intent, n_codes):
    """How many earlier (user, intent) pairs are equal to each one: ``c_i(r)``."""
    key = user.astype(np.int64) * n_codes + intent
    if n_codes <= 2**16 and bool(np.all(user[1:] >= user[:-1])):
        # users in order: a stable sort by intent alone (a radix sort on 16
        # bits) brings equal pairs together, in their order
        return _run_rank(key, np.argsort(intent.astype(np.uint16), kind="stable"))
    return _run_rank(key)


def _n_codes(options):
    return int(options["intent_codes"].max(initial=-1)) + 1


def _intent_hits(tables, k, options):
    """(user, rank, seen) of every (hit, relevant intent) pair in the top k, and S.

    ``seen`` is ``c_i(r)``: the earlier ranks of the user's list relevant to
    the same intent (the hits come in rank order within each user). The
    pairs of the whole lists are worked out once per chunk, for all the
    intent metrics of the call (kept on the chunk's table), then cut at k.
    """
    _refuse_bounds("the intent metrics", options["ties"])
    table = tables.binary
    pairs = getattr(table, "_intent_pairs", None)
    if pairs is None:
        row, intent = _intents_of(table.hit_grade, options)
        user, pos = table.hit_user[row], table.hit_pos[row]
        seen = _seen_before(user, intent, _n_codes(options))
        pairs = (user, pos.astype(np.float64), seen, _n_intents_per_user(table, options))
        table._intent_pairs = pairs  # the table lives for one chunk of one call
    user, pos, seen, n_intents = pairs
    if k is not None and not tables.truncated:
        keep = pos <= k
        user, pos, seen = user[keep], pos[keep], seen[keep]
    return user, pos, seen, n_intents


def _n_intents_per_user(table, options):
    """S of each user of the chunk: the distinct intents with a relevant item."""
    n_intents = np.zeros(table.n_users)
    if options["candidates"] != "recommended":  # counted once, when truth was folded
        n_intents[table.truth_code] = options["intent_count"][
            table.truth_grade.astype(np.int64) - 1]
        return n_intents
    # the judgements of the listed items only: counted from them
    n_codes = _n_codes(options)
    row, intent = _intents_of(table.truth_grade, options)
    pairs = np.unique(table.truth_code[row].astype(np.int64) * n_codes + intent)
    return np.bincount(pairs // max(n_codes, 1), minlength=table.n_users).astype(float)


def _per_user(user, weights, n_users):
    return np.bincount(user, weights=weights, minlength=n_users)


def _mean_over_intents(total, n_intents, scale=1.0):
    return np.divide(total, n_intents * scale, out=np.zeros(total.size),
                     where=n_intents > 0)


def _s_recall_batch(tables, k, options):
    user, _, seen, n_intents = _intent_hits(tables, k, options)
    covered = _per_user(user[seen == 0], None, tables.binary.n_users)
    return _mean_over_intents(covered, n_intents), n_intents == 0


def _p_ia_batch(tables, k, options):
    user, _, _, n_intents = _intent_hits(tables, k, options)
    pairs = _per_user(user, None, tables.binary.n_users)
    return _mean_over_intents(pairs, n_intents, float(k)), n_intents == 0


def _err_ia_batch(tables, k, options):
    user, pos, seen, n_intents = _intent_hits(tables, k, options)
    alpha = options["parameters"]["alpha"]
    gains = _per_user(user, np.power(1.0 - alpha, seen) / pos, tables.binary.n_users)
    return (_mean_over_intents(gains, n_intents, _ideal_ideal_err(k, alpha)),
            n_intents == 0)


def _discount(pos):
    return np.log(2.0) / np.log(pos + 1.0)  # ndeval's discount(rank - 1)


def _alpha_ndcg_batch(tables, k, options):
    user, pos, seen, n_intents = _intent_hits(tables, k, options)
    alpha = options["parameters"]["alpha"]
    dcg = _per_user(user, np.power(1.0 - alpha, seen) * _discount(pos),
                    tables.binary.n_users)
    ideal = _greedy_ideal_dcg(tables.binary, k, alpha, options)
    return (np.divide(dcg, ideal, out=np.zeros(dcg.size), where=ideal > 0),
            n_intents == 0)


def _greedy_ideal_dcg(table, k, alpha, options):
    """ndeval's greedy ideal alpha-DCG@k of every user, one rank at a time for all.

    Candidates are each user's judged items relevant to some intent, in
    (user, key) order (the key increases with the item id). At each rank,
    each user takes the candidate of largest score (the sum of the gains its
    intents still have, in intent order), the one of largest item id among
    equals (ndeval's tie rule), and its intents' gains are multiplied by
    ``1 - alpha``.
    """
    cand_user, counts, intent = _candidates(table, options)
    pair_ptr = np.zeros(counts.size + 1, dtype=np.int64)  # candidate -> its pairs
    np.cumsum(counts, out=pair_ptr[1:])
    slot, n_slots = _pair_slots(np.repeat(cand_user.astype(np.int64), counts), intent,
                                _n_codes(options))
    gain = np.ones(n_slots)
    starts = np.flatnonzero(_first_in_run(cand_user))
    sizes = np.diff(np.r_[starts, cand_user.size])
    if starts.size * sizes.max(initial=0) <= _GRID_FACTOR * cand_user.size + _GRID_SLACK:
        picks = _grid_picks(counts, slot, gain, starts, sizes, k)
    else:
        picks = _picks_by_passes(counts, slot, gain, starts, sizes, k)
    ideal = np.zeros(table.n_users)
    for rank, (user_start, best, pick) in enumerate(picks, 1):
        ideal[cand_user[user_start]] += best * _discount(float(rank))
        # the picked items' intents: distinct slots (one user each); the
        # generator reads the new gains when it resumes
        gain[slot[_ranges(pair_ptr, pick)]] *= 1.0 - alpha
    return ideal


# the greedy lays the candidates out in a padded table, one row per user, while
# it holds at most _GRID_FACTOR cells per candidate (+ _GRID_SLACK)
_GRID_FACTOR, _GRID_SLACK = 2, 4096


def _grid_picks(counts, slot, gain, starts, sizes, k):
    """Each rank's picks as :func:`_picks_by_passes`, on a padded table of candidates.

    Row ``u`` of the table holds user ``u``'s candidates, largest key first,
    so that the first maximum of a row (``argmax``) is ndeval's choice; the
    scores are summed straight into the table's cells (each candidate's
    gains in the same order as there), then its padding and the picked
    candidates are set to -1.
    """
    n_rows, width = starts.size, int(sizes.max(initial=0))
    end = np.repeat(starts + sizes, sizes)
    cell = (np.repeat(np.arange(n_rows) * width, sizes)
            + end - 1 - np.arange(end.size))  # largest key first
    candidate = np.zeros(n_rows * width, dtype=np.int64)
    candidate[cell] = np.arange(end.size)
    filled = np.zeros(n_rows * width, dtype=bool)
    filled[cell] = True
    out = np.flatnonzero(~filled)  # padding, then each rank's picks
    pair_cell = np.repeat(cell, counts)
    row_start = np.arange(n_rows) * width
    for rank in range(1, min(k, width) + 1):
        # rank 1: every gain is 1 and sums of ones are exact: the counts
        score = np.bincount(pair_cell, weights=None if rank == 1 else gain.take(slot),
                            minlength=n_rows * width).astype(np.float64, copy=False)
        score[out] = -1.0
        cells = row_start + score.reshape(n_rows, width).argmax(axis=1)
        best = score[cells]
        alive = best >= 0.0  # -1: nothing left
        cells = cells[alive]
        out = np.concatenate([out, cells])
        yield starts[alive], best[alive], candidate[cells]


def _picks_by_passes(counts, slot, gain, starts, sizes, k):
    """Each rank's ``(user's first candidate, best score, candidate picked)``.

    Every candidate left is scored with the current ``gain`` (which the
    caller updates between ranks); a user's pick is its last candidate of
    largest score: the largest key.
    """
    row = np.repeat(np.arange(counts.size), counts)
    left = np.ones(counts.size, dtype=bool)
    index = np.arange(counts.size)
    for _ in range(min(k, int(sizes.max(initial=0)))):
        score = np.where(left, np.bincount(row, weights=gain[slot], minlength=counts.size),
                         -1.0)
        best = np.maximum.reduceat(score, starts)
        pick = np.maximum.reduceat(np.where(score == np.repeat(best, sizes), index, -1),
                                   starts)
        alive = best >= 0.0
        left[pick[alive]] = False
        yield starts[alive], best[alive], pick[alive]


def _candidates(table, options):
    """User code, intent count and intents of the judged items relevant to some intent.

    The candidates come in (user, key) order, their relevant intents in that
    order too (each item's in increasing code).
    """
    code, key = table.truth_code, table.truth_grade
    increasing = key.size < 2 or bool(np.all(key[1:] > key[:-1]))
    if not (increasing and np.all(code[1:] >= code[:-1])):
        order = np.lexsort((key, code))
        code, key = code[order], key[order]
        increasing = key.size < 2 or bool(np.all(key[1:] > key[:-1]))
    ptr, group = options["intent_ptr"], key.astype(np.int64) - 1
    counts = ptr[group + 1] - ptr[group]
    if increasing and group.size and group[-1] - group[0] + 1 == group.size:
        # consecutive keys (a chunk's whole truth): their intents are one slice
        intents = options["intent_codes"][ptr[group[0]]:ptr[group[-1] + 1]]
    else:
        intents = options["intent_codes"][_ranges(ptr, group)]
    keep = counts > 0
    return code[keep], counts[keep], intents


def _pair_slots(user, intent, n_codes):
    """Index of each (user, intent) pair among all pairs, and their number."""
    n_users = int(user.max(initial=-1)) + 1
    if n_users * n_codes <= 4 * user.size + 4096:
        return user * n_codes + intent, n_users * n_codes  # a table no larger than the pairs
    uniques, slot = np.unique(user * n_codes + intent, return_inverse=True)
    return slot, uniques.size


def _ranges(ptr, which):
    """The indices ``ptr[w] .. ptr[w + 1] - 1`` of every ``w`` of ``which``, in order."""
    low, counts = ptr[which], ptr[which + 1] - ptr[which]
    ends = np.cumsum(counts)
    return np.arange(ends[-1] if ends.size else 0) + np.repeat(low - ends + counts, counts)


# alpha_ndcg(alpha=0.3)@10: the per-list functions' alpha= keyword, in the name
_ALPHA = (Parameter("alpha", "[0, 1]", "redundancy intolerance", default=ALPHA),)
for _name, _aliases, _per_list, _batch, _parameters in (
        ("alpha_ndcg", ("alpha_ndcg", "alpha-ndcg"), alpha_ndcg_at_k, _alpha_ndcg_batch,
         _ALPHA),
        ("err_ia", ("err_ia", "err-ia"), err_ia_at_k, _err_ia_batch, _ALPHA),
        ("p_ia", ("p_ia", "p-ia", "precision_ia"), precision_ia_at_k, _p_ia_batch, ()),
        ("s_recall", ("s_recall", "s-recall", "strec", "subtopic_recall"),
         subtopic_recall_at_k, _s_recall_batch, ())):
    register(Metric(
        name=_name, aliases=_aliases, per_list=_per_list, batch=_batch,
        cutoff="required", intents=True, parameters=_parameters,
        empty_reason="no intent with a relevant item"))
del _name, _aliases, _per_list, _batch, _parameters
