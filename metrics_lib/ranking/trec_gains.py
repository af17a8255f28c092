"""trec_eval's experimental gain measures: G, binG, ideal_dcg, ndcg_rel and Rndcg.

Definitions, for one user with the gains ``g_1, g_2, ...`` of the listed
items in rank order (``gain`` of the grade, 0 for an unjudged item) and the
*ideal walk* ``w_1 >= w_2 >= ... >= w_L > 0``, the positive gains of every
judged item sorted in decreasing order (``L`` of them):

* ``ideal_dcg`` (``m_ndcg.c``, trec_eval's ``ideal_dcg``): ``sum over j of
  w_j / log2(j + 1)``, the DCG of the ideal walk; 0 when ``L = 0``.
* ``ndcg_rel`` (``m_ndcg_rel.c``): NDCG averaged over the ``L`` relevant
  items (positive gain). A retrieved item of positive gain at rank ``i``
  adds ``DCG@i / IDCG@min(i, L)``; each of the ``L - h`` relevant items not
  retrieved (``h`` retrieved) adds ``DCG@N / IDCG@L`` (``N``: list length);
  the sum is divided by ``L``. 0 when ``L = 0``.
* ``rndcg`` (``m_Rndcg.c``, ``Rndcg``): NDCG averaged over the *R levels*,
  the ranks ``c`` where the ideal walk changes gain (after its last item
  too): ``DCG@min(c, N) / IDCG@c`` each, plus ``DCG@N / IDCG@L`` when the
  list is longer than ``L + 1`` (trec_eval skips this last point when
  ``N = L + 1``). No item at or above ``relevance_level``: the ``empty``
  policy (trec_eval: 0); relevant items but no positive gain: ``nan``
  (trec_eval divides 0 by 0).
* ``trec_g`` (``m_G.c``, ``G``): with ``S_i = g_1 + ... + g_i`` and the cost
  ``C_i = c_1 + ... + c_i``, ``c_j = max(w_j, 1)`` (1 beyond the walk),
  ``G = sum over i with g_i != 0 of g_i / log2(2 + C_i - S_i)`` over
  ``w_1 + ... + w_L``: a retrieved item is worth more when the items before
  it already had nearly the best gains possible. ``L = 0``: the ``empty``
  policy (trec_eval: 0).
* ``bin_g`` (``m_binG.c``, ``binG``): binary G, the sum over the retrieved
  relevant items (grade at or above ``relevance_level``) of
  ``1 / log2(2 + n)``, ``n`` the items (unjudged included) ranked above it
  that are not relevant, over the number of relevant items. No relevant item:
  the ``empty`` policy (trec_eval: 0).

trec_eval's gain of a grade is the grade (``gain="linear"``); its command line
``-m G.1=3.5,2=9`` gives grades their own gains, which is ``gain={0: 0,
1: 3.5, 2: 9, ...}`` here (every judged grade listed). trec_eval sorts the
gains with a comparator that truncates their difference to an integer
(``gain_init.c``, ``comp_rel_gain``), so gains less than 1 apart can come
out of order in its ideal walk; this library sorts them exactly (the command
line refuses the gains where the two orders differ).

The per-list functions follow trec_eval's loops; the batch kernels compute
the same sums in the same order for every user at once.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels import _rank_in_run
from .._validation import check_empty, check_relevant, handle_empty
from ._common import _check_log_base
from ._docstrings import shared_parameters
from .ndcg import _gains, _graded_inputs
from .registry import Metric, TrecMeasure, register

__all__ = ["trec_g", "bin_g", "ideal_dcg", "ndcg_rel", "rndcg"]


def _walks(recommended, relevant, gain, min_grade, relevance_level, log_base=2):
    """Gains of the list in rank order and the ideal walk (positive gains, descending)."""
    top, judged, _, base, name = _graded_inputs(
        recommended, relevant, None, gain, "zero", log_base,
        relevance_level=relevance_level, min_grade=min_grade)
    ideal = _gains(judged, name)
    return _gains(top, name).tolist(), ideal[ideal > 0].tolist(), base


def _dcgs(values):
    """Running DCG, added one rank at a time as trec_eval does (log2(rank + 1))."""
    out, total = [], 0.0
    for rank, value in enumerate(values, start=1):
        if value != 0:
            total += value / math.log2(rank + 1)
        out.append(total)
    return out


@shared_parameters
def ideal_dcg(relevant, *, gain="linear", min_grade=None, relevance_level=1,
              log_base=2):
    """DCG of the ideal list: every positive gain of ``relevant``, best first.

    ``sum over j of w_j / log_b(j + 1)`` with ``w_1 >= w_2 >= ...`` the
    positive gains of the judged items; 0 when none is positive. trec_eval
    10.0's ``ideal_dcg`` (``m_ndcg.c``), the denominator of its ``ndcg``.

    Parameters
    ----------
    {{relevant_gains gain_trec min_grade_dcg relevance_level_binary_gain}}
    log_base : float, default=2
        Base of the discount logarithm.

    Returns
    -------
    float
        The ideal DCG (>= 0).

    Raises
    ------
    {{raises_ndcg_checks}}

    Notes
    -----
    trec_eval 10.0, ``m_ndcg.c``, ``te_calc_ndcg`` (measure ``ideal_dcg``): the
    ideal walk over the relevance levels sorted by gain (``gain_init.c``,
    ``setup_gains``), stopped at the first gain that is not positive. The
    :func:`evaluate` metric ``"ideal_dcg"`` computes the same per user.

    References
    ----------
    .. [1] trec_eval 10.0, https://github.com/usnistgov/trec_eval
    .. [2] Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from metrics_lib import ideal_dcg
    >>> round(ideal_dcg({"a": 2, "b": 1, "c": 0}), 4)  # 2 / 1 + 1 / log2(3)
    2.6309
    """
    _, walk, base = _walks([], relevant, gain, min_grade, relevance_level, log_base)
    if base == 2:
        return _dcgs(walk)[-1] if walk else 0.0
    return float(sum(w / (math.log(j + 1) / math.log(base))
                     for j, w in enumerate(walk, start=1)))


@shared_parameters
def ndcg_rel(recommended, relevant, *, gain="linear", min_grade=None,
             relevance_level=1, empty="zero"):
    """NDCG averaged over the relevant items (trec_eval ``ndcg_rel``, ``m_ndcg_rel.c``).

    With ``L`` items of positive gain in ``relevant``: a listed one at rank
    ``i`` adds ``DCG@i / IDCG@min(i, L)``, each missing one adds
    ``DCG@N / IDCG@L`` (``N`` the list length), and the sum is divided by
    ``L``. Gains as in :func:`ideal_dcg`. ``L = 0``: the ``empty`` policy
    (trec_eval: 0).

    Parameters
    ----------
    {{recommended relevant_gains gain_trec min_grade_dcg relevance_level_binary_gain}}
    {{empty_positive_gain}}

    Returns
    -------
    float
        ndcg_rel in ``[0, 1]``.

    Raises
    ------
    {{raises_ndcg_checks}}

    Notes
    -----
    trec_eval 10.0, ``m_ndcg_rel.c``, ``te_calc_ndcg_rel``, an experimental
    measure: NDCG is not monotone in the rank, so its value at any one
    cut-off depends on where the user's ideal list changes gain; averaging
    it at the relevant items smooths that. The :func:`evaluate` metric
    ``"ndcg_rel"`` computes the same per user.

    References
    ----------
    .. [1] trec_eval 10.0, https://github.com/usnistgov/trec_eval
    .. [2] Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from metrics_lib import ndcg_rel
    >>> round(ndcg_rel(["a", "c", "x"], {"a": 1, "b": 2, "c": 0}), 4)
    0.44
    """
    check_empty(empty)
    top, walk, _ = _walks(recommended, relevant, gain, min_grade, relevance_level)
    if len(walk) == 0:
        return handle_empty(empty, "relevant has no item with a positive gain")
    dcg, best = _dcgs(top), _dcgs(walk)
    total, found = 0.0, 0
    for i, value in enumerate(top):
        if value > 0:
            total += dcg[i] / best[min(i, len(walk) - 1)]
            found += 1
    total += float(len(walk) - found) * (dcg[-1] if dcg else 0.0) / best[-1]
    return total / len(walk) if total > 0 else 0.0


@shared_parameters
def rndcg(recommended, relevant, *, gain="linear", min_grade=None, relevance_level=1,
          empty="zero"):
    """NDCG averaged over the R levels (trec_eval ``Rndcg``, ``m_Rndcg.c``).

    The R levels are the ranks ``c`` at which the ideal walk (the positive
    gains, descending; ``L`` of them) changes gain, its end included; each
    adds ``DCG@min(c, N) / IDCG@c``, and a list longer than ``L + 1`` adds
    ``DCG@N / IDCG@L`` as well (trec_eval's "final implied R-level change at
    num_retrieved", skipped by its loops when ``N = L + 1``). The value is
    the mean of these ratios. No item at or above ``relevance_level``: the
    ``empty`` policy (trec_eval: 0); relevant items whose gains are all 0:
    ``nan`` (trec_eval's 0 / 0).

    Parameters
    ----------
    {{recommended relevant_gains gain_trec min_grade_dcg}}
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant: a user with none
        gets the ``empty`` policy (also the level of ``gain="binary"``).
    {{empty}}

    Returns
    -------
    float
        Rndcg in ``[0, 1]``, or ``nan``.

    Raises
    ------
    {{raises_ndcg_checks}}

    Notes
    -----
    trec_eval 10.0, ``m_Rndcg.c``, ``te_calc_Rndcg``, an experimental measure
    (its help text: ``Rndcg = 1/4 (ndcg_at_5 + ndcg_at_8 + ndcg_at_18 +
    ndcg_at_68)`` for 5, 3, 10 and 50 documents of gains 3, 2, 1 and 0).
    The :func:`evaluate` metric ``"rndcg"`` computes the same per user.

    References
    ----------
    .. [1] trec_eval 10.0, https://github.com/usnistgov/trec_eval
    .. [2] Järvelin and Kekäläinen, "Cumulated gain-based evaluation of IR
       techniques", ACM TOIS 20(4), 2002.

    Examples
    --------
    >>> from metrics_lib import rndcg
    >>> round(rndcg(["a", "c", "x"], {"a": 1, "b": 2, "c": 0}), 4)
    0.44
    """
    check_empty(empty)
    grades = check_relevant(relevant)
    top, walk, _ = _walks(recommended, relevant, gain, min_grade, relevance_level)
    if not any(grade >= relevance_level for grade in grades.values()):
        return handle_empty(empty, "relevant has no item at or above relevance_level")
    if len(walk) == 0:
        return math.nan
    dcg, best = [0.0, *_dcgs(top)], [0.0, *_dcgs(walk)]
    n, size = len(top), len(walk)
    ratios = [dcg[min(c, n)] / best[c] for c in range(1, size + 1)
              if c == size or walk[c] != walk[c - 1]]
    if n > size + 1:
        ratios.append(dcg[n] / best[size])
    total = 0.0
    for ratio in ratios:
        total += ratio
    return total / len(ratios)


@shared_parameters
def trec_g(recommended, relevant, *, gain="linear", min_grade=None, relevance_level=1,
           empty="zero"):
    """trec_eval's normalised gain ``G`` (``m_G.c``).

    ``G = sum over ranks i with g_i != 0 of g_i / log2(2 + C_i - S_i)`` over
    the sum of the positive gains, where ``S_i`` is the gain of the first
    ``i`` items and ``C_i`` the sum of ``max(w_j, 1)`` over the first ``i``
    steps of the ideal walk (1 per step beyond it): an item is discounted by
    how far the list so far falls behind the best list, not by its rank.
    Gains as in :func:`ideal_dcg`. No positive gain: the ``empty`` policy
    (trec_eval: 0).

    Parameters
    ----------
    {{recommended relevant_gains gain_trec min_grade_dcg relevance_level_binary_gain}}
    {{empty_positive_gain}}

    Returns
    -------
    float
        G in ``[0, 1]``.

    Raises
    ------
    {{raises_ndcg_checks}}

    Notes
    -----
    trec_eval 10.0, ``m_G.c``, ``te_calc_G`` ("Experimental measure
    4/10/2008"): the discount of an item is the gain the list still lacks
    behind the ideal list, so an item retrieved after items of high gain
    loses less than one retrieved after misses. The :func:`evaluate`
    metric ``"trec_g"`` (also ``"g"``) computes the same per user.

    References
    ----------
    .. [1] trec_eval 10.0, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import trec_g
    >>> trec_g(["b", "a"], {"a": 1, "b": 2})  # the best order: 1
    1.0
    >>> round(trec_g(["a", "b"], {"a": 1, "b": 2}), 4)  # (1/log2(3) + 2/log2(2)) / 3
    0.877
    """
    check_empty(empty)
    top, walk, _ = _walks(recommended, relevant, gain, min_grade, relevance_level)
    if len(walk) == 0:
        return handle_empty(empty, "relevant has no item with a positive gain")
    value, results, cost = 0.0, 0.0, 0.0
    for i, g in enumerate(top):
        results += g
        cost += max(walk[i], 1.0) if i < len(walk) else 1.0
        if g != 0:
            value += g / math.log2(2 + cost - results)
    ideal = 0.0
    for w in walk:
        ideal += w
    return value / ideal


@shared_parameters
def bin_g(recommended, relevant, *, relevance_level=1, empty="zero"):
    """Binary G (trec_eval ``binG``, ``m_binG.c``).

    ``sum over the listed relevant items of 1 / log2(2 + n)`` over the number
    of relevant items, ``n`` being the items ranked above it that are not
    relevant (unjudged ones included). No relevant item: the ``empty``
    policy (trec_eval: 0).

    Parameters
    ----------
    {{recommended}}
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids (grade 1 each), or judged ids with their grades.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant.
    {{empty}}

    Returns
    -------
    float
        binG in ``[0, 1]``.

    Raises
    ------
    {{raises_ndcg_checks}}

    Notes
    -----
    trec_eval 10.0, ``m_binG.c``, ``te_calc_binG``: G with gains 0 or 1, the
    discount counting the non-relevant items above, not the rank. The
    :func:`evaluate` metric ``"bin_g"`` (also ``"bing"``) computes the
    same per user.

    References
    ----------
    .. [1] trec_eval 10.0, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import bin_g
    >>> round(bin_g(["x", "a", "b"], {"a", "b", "c"}), 4)  # (1/log2(3) * 2) / 3
    0.4206
    """
    check_empty(empty)
    top, _, _ = _walks(recommended, relevant, "binary", None, relevance_level)
    n_rel = sum(1 for grade in check_relevant(relevant).values()
                if grade >= relevance_level)
    if n_rel == 0:
        return handle_empty(empty, "relevant has no item at or above relevance_level")
    total, found = 0.0, 0
    for i, flag in enumerate(top):
        if flag:
            found += 1
            total += 1.0 / math.log2(3 + i - found)
    return total / n_rel


# -- batch kernels (metrics_lib/ranking/registry.py) ----------------------------------

# Above this many cells, running sums come from one cumulative sum over all
# users (exact to the last bits only within the padded table's limit).
_PADDED_CELLS = 1 << 24


def _running(users, values, n_users):
    """Cumulative sum of ``values`` within each run of equal ``users`` (sorted).

    Each user's values are added one at a time, as trec_eval's loops add
    them, through a padded users x rows table; a table too large for memory
    falls back on one cumulative sum minus its value at each run start.
    """
    if users.size == 0:
        return np.zeros(0)
    rank = _rank_in_run(users) - 1
    width = int(rank.max()) + 1
    if n_users * width <= _PADDED_CELLS:
        table = np.zeros((n_users, width))
        table[users, rank] = values
        np.cumsum(table, axis=1, out=table)
        return table[users, rank]
    running = np.cumsum(values)
    return running - (running - values)[np.flatnonzero(rank == 0)][np.cumsum(rank == 0) - 1]


class _Walk:
    """One chunk's listed gains and ideal walks, with their running sums."""

    def __init__(self, table, gain):
        self.n_users = table.n_users
        self.list_len = table.list_len
        self.user, self.pos = table.hit_user, table.hit_pos
        self.gain = _gains(table.hit_grade, gain)
        codes, ranks, grades = table._judged_ideal()
        walk = _gains(grades, gain)
        positive = walk > 0
        self.ideal_user, self.ideal_rank = codes[positive], ranks[positive]
        self.walk = walk[positive]
        self.size = np.bincount(self.ideal_user, minlength=self.n_users)
        self.first = np.searchsorted(self.ideal_user, np.arange(self.n_users))
        self.dcg_terms = self.gain / np.log2(self.pos + 1.0)
        ideal_terms = self.walk / np.log2(self.ideal_rank + 1.0)
        self.ideal_running = _running(self.ideal_user, ideal_terms, self.n_users)
        self.ideal_total = np.bincount(self.ideal_user, weights=ideal_terms,
                                       minlength=self.n_users)
        self.dcg_total = np.bincount(self.user, weights=self.dcg_terms,
                                     minlength=self.n_users)

    def ideal_at(self, users, count):
        """Index of the ``count``-th step (>= 1) of each user's walk."""
        return self.first[users] + count - 1

    def dcg_at(self, users, cut):
        """DCG of the first ``cut`` ranks of each listed user (``cut`` >= 0)."""
        if self.user.size == 0:
            return np.zeros(users.size)
        running = _running(self.user, self.dcg_terms, self.n_users)
        span = int(max(self.pos.max(), np.max(cut, initial=0))) + 1
        keys = self.user.astype(np.int64) * span + self.pos
        at = np.searchsorted(keys, users.astype(np.int64) * span + cut, side="right") - 1
        found = at >= 0  # a row of this user at or before the cut
        at = np.maximum(at, 0)
        return np.where(found & (self.user[at] == users), running[at], 0.0)


def _graded_walk(tables, options):
    return _Walk(tables.graded, tables.gain)


def _ideal_dcg_batch(tables, k, options):
    table, base = tables.graded, options["log_base"]
    codes, ranks, grades = table._judged_ideal()
    walk = _gains(grades, tables.gain)
    keep = walk > 0
    discount = np.log2(ranks[keep] + 1.0)
    if base != 2:
        discount = np.log(ranks[keep] + 1.0) / math.log(base)
    return np.bincount(codes[keep], weights=walk[keep] / discount,
                       minlength=table.n_users), None


def _ndcg_rel_batch(tables, k, options):
    w = _graded_walk(tables, options)
    rel = w.gain > 0
    users, pos = w.user[rel], w.pos[rel]
    running = _running(w.user, w.dcg_terms, w.n_users)[rel]
    best = w.ideal_running[w.ideal_at(users, np.minimum(pos, w.size[users]))]
    total = np.bincount(users, weights=running / best, minlength=w.n_users)
    found = np.bincount(users, minlength=w.n_users)
    empty = w.size == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        total = total + (w.size - found) * w.dcg_total / w.ideal_total
        return np.where(~empty & (total > 0), total / w.size, 0.0), empty


def _rndcg_batch(tables, k, options):
    w = _graded_walk(tables, options)
    # the R levels: the last step of each run of equal gains in a user's walk
    last = np.ones(w.walk.size, bool)
    last[:-1] = (w.ideal_user[1:] != w.ideal_user[:-1]) | (w.walk[1:] != w.walk[:-1])
    users, count = w.ideal_user[last], w.ideal_rank[last]
    ratios = w.dcg_at(users, np.minimum(count, w.list_len[users])) \
        / w.ideal_running[np.flatnonzero(last)]
    # the final implied level at the list's end, when the list outruns the walk
    longer = np.flatnonzero((w.size > 0) & (w.list_len > w.size + 1))
    users = np.concatenate([users, longer])
    ratios = np.concatenate([ratios, w.dcg_total[longer] / w.ideal_total[longer]])
    order = np.argsort(users, kind="stable")
    total = np.bincount(users[order], weights=ratios[order], minlength=w.n_users)
    points = np.bincount(users, minlength=w.n_users)
    # relevance_level=0 reaches the graded metrics as level 1 on the grades as
    # they are (batch/pipeline.py, _at_level_zero), flagged level_zero
    level = 0.0 if options.get("level_zero") else options["relevance_level"]
    empty = tables.binary.n_relevant(level) == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(empty, 0.0, total / points), empty


def _g_batch(tables, k, options):
    w = _graded_walk(tables, options)
    cost = _running(w.ideal_user, np.maximum(w.walk, 1.0), w.n_users)
    steps = np.minimum(w.pos, w.size[w.user])
    paid = np.where(steps > 0, cost[np.maximum(w.ideal_at(w.user, steps), 0)], 0.0)
    paid = paid + (w.pos - steps)
    so_far = _running(w.user, w.gain, w.n_users)
    terms = w.gain / np.log2(2.0 + paid - so_far)
    value = np.bincount(w.user, weights=terms, minlength=w.n_users)
    ideal = np.bincount(w.ideal_user, weights=w.walk, minlength=w.n_users)
    empty = ideal == 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(empty, 0.0, value / ideal), empty


def _bin_g_batch(tables, k, options):
    level = options["relevance_level"]
    users, pos = tables.trec._relevant_rows(level)
    nth = _rank_in_run(users)
    total = np.bincount(users, weights=1.0 / np.log2((2 + pos - nth).astype(np.float64)),
                        minlength=tables.trec.n_users)
    n_rel = tables.trec.n_relevant(level)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n_rel > 0, total / n_rel, 0.0), n_rel == 0


_GAIN_KEYWORDS = ("gain", "min_grade", "empty")
_REASON = "no judged item with a positive gain"
register(Metric(
    name="trec_g", aliases=("trec_g", "g"), per_list=trec_g, batch=_g_batch,
    cutoff="none", table="graded", empty_reason=_REASON, keywords=_GAIN_KEYWORDS,
    trec_eval=(TrecMeasure("G", "trec_g", gains=True),)))
register(Metric(
    name="bin_g", aliases=("bin_g", "bing"), per_list=bin_g, batch=_bin_g_batch,
    cutoff="none", table="trec", keywords=("empty",),
    trec_eval=(TrecMeasure("binG", "bin_g"),)))
register(Metric(
    name="ideal_dcg", aliases=("ideal_dcg",), per_list=ideal_dcg, batch=_ideal_dcg_batch,
    cutoff="none", table="graded", can_be_empty=False,
    keywords=("gain", "log_base", "min_grade"),
    trec_eval=(TrecMeasure("ideal_dcg", "ideal_dcg", gains=True),)))
register(Metric(
    name="ndcg_rel", aliases=("ndcg_rel",), per_list=ndcg_rel, batch=_ndcg_rel_batch,
    cutoff="none", table="graded", empty_reason=_REASON, keywords=_GAIN_KEYWORDS,
    trec_eval=(TrecMeasure("ndcg_rel", "ndcg_rel", gains=True),)))
register(Metric(
    name="rndcg", aliases=("rndcg",), per_list=rndcg, batch=_rndcg_batch,
    cutoff="none", table="graded", keywords=_GAIN_KEYWORDS,
    trec_eval=(TrecMeasure("Rndcg", "rndcg", gains=True),)))
