"""trec_eval 10.0's remaining single-list measures: yaap, unj, 11pt_avg, Rprec_mult, utility.

Definitions, for one user with a ranked list of ``N`` items, ``R`` relevant
items (grade at or above ``relevance_level``, counted over all judgements)
and ``h`` of them in the list:

* ``yaap`` (``m_yaap.c``, Robertson's "yet another average precision",
  ECIR 2012): with ``S`` the sum, over the relevant items of the list, of
  (relevant items up to its rank) / (its rank), ``log((1 + S) / (1 + R - S))``.
  Unbounded: a perfect list tends to ``log(1 + R)``, an empty one is
  ``-log(1 + R)``; ``R = 0`` gives 0 (the ``empty`` policy here, trec_eval: 0).
* ``unj@k`` (``m_unjudged.c``): the unjudged items among the first ``k``,
  over ``k``; an item is unjudged when the truth does not have it or gives it
  a negative grade. A list shorter than ``k`` counts its missing ranks as
  judged (the denominator stays ``k``). Defined for every user. trec_eval's
  default cut-offs: 5, 10, 20.
* ``rprec_mult@m`` (``m_Rprec_mult.c``, printed ``Rprec_mult_0.20``): the
  precision at rank ``c = (long) (m * R + 0.9)``, a multiple ``m`` of R
  rounded up from 0.1 above; a list shorter than ``c`` is filled with
  non-relevant items, and ``c = 0`` (``R = 0``) gives 0. trec_eval's default
  multipliers: 0.2, 0.4, ..., 2.0. ``R = 0``: the ``empty`` policy.
* ``11pt_avg`` (``m_11pt_avg.c``): the interpolated precision at recall
  levels 0.0, 0.1, ..., 1.0 (any levels with ``11pt_avg.0.2,0.5,0.8``),
  averaged. trec_eval 10.0 aims each level ``p`` at the ``lround(p * R)``-th
  relevant item, 9.0.x at the ``(long) (p * R + 0.9)``-th
  (``trec_eval_version=9``), the same rule as ``iprec_at_recall``. Levels
  are taken in trec_eval's order (``te_calc_11ptavg`` walks them from the
  last given to the first while it walks up the list): given in increasing
  order they give the plain average of ``iprec_at_recall`` at each; once a
  level's target lies below the previous one's, it and the levels before it
  get the best precision of the whole list. A list without any item gives
  0/0 for a target of 0 (NaN, as trec_eval). ``R = 0``: the ``empty``
  policy.
* ``utility`` (``m_utility.c``): ``a * h + b * (N - h) + c * (R - h) +
  d * (D + h - N - R)``, a weighted count of the contingency table, with
  trec_eval's default ``a, b, c, d = 1, -1, 0, 0`` and ``D`` the number of
  items in the collection (trec_eval's ``-N``); ``utility.a,b,c,d`` names
  other weights, and ``evaluate`` refuses ``d != 0`` (it does not know
  ``D``; the command line's ``-N`` gives it). ``evaluate`` also takes the
  weights by name, ``utility(a=2, c=-0.5)`` (the others at their defaults).
  Defined for every user.

trec_eval averages each over the queries (``te_calc_avg_meas_s``,
``te_calc_avg_meas_a_cut``). Its ``relstring`` (``m_relstring.c``), the
grades of the top ten as a string, is printed by the command line only (see
``metrics_lib._cli_measures``): ``evaluate`` returns numbers, which it
averages and compares, and a string has no mean.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_empty, check_k, check_trec_eval_version, handle_empty, show
from ..trec_measures import _judged, _n_relevant, _relevant_flags, iprec_target
from .registry import Metric, Parameter, TrecMeasure, register

__all__ = ["yaap", "unjudged_at_k", "eleven_point_average", "r_precision_multiple",
           "set_utility", "ELEVEN_POINTS", "UTILITY_WEIGHTS"]

#: ``m_11pt_avg.c``'s default recall levels, the same doubles.
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: ``m_utility.c``'s default weights ``a, b, c, d``.
UTILITY_WEIGHTS = (1.0, -1.0, 0.0, 0.0)


def _no_relevant(empty):
    return handle_empty(empty, "relevant has no item at or above relevance_level")


def yaap(recommended, relevant, *, relevance_level=1, empty="zero"):
    """Yet another average precision (Robertson 2012; trec_eval's ``yaap``).

    ``yaap = log((1 + S) / (1 + R - S))`` with ``S`` the sum, over the
    relevant items of the list, of (relevant items up to its rank) / (its
    rank), and ``R`` the relevant items of the truth. ``S / R`` is average
    precision; the logit-like form spreads values near 0 and 1. ``R = 0``:
    the ``empty`` policy (trec_eval: 0, which ``log(1 / 1)`` gives too).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with their grades (a plain collection: grade 1 each).
    relevance_level : float, default=1
        Minimum grade of a relevant item (trec_eval ``-l``).
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.

    Returns
    -------
    float
        A real number in ``(-log(1 + R), log(1 + R))``.

    Raises
    ------
    TypeError, ValueError
        For a bad list, judgements, level or ``empty``.

    Notes
    -----
    ``S / R`` is trec_eval's average precision of the list; the sum is taken
    in rank order, as ``m_yaap.c`` adds it, so the value is trec_eval's to the
    last bit. A negative ``-l`` on the command line counts the unjudged
    items as relevant in the list, which this function does not take.

    References
    ----------
    .. [1] Robertson, "On smoothing average precision", ECIR 2012.

    Examples
    --------
    >>> from metrics_lib import yaap
    >>> round(yaap(["a", "x", "b"], {"a", "b", "c"}), 6)  # S = 1 + 2/3: log(8/7)
    0.133531
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    check_empty(empty)
    n_rel = _n_relevant(grades, level)
    if n_rel == 0:
        return _no_relevant(empty)
    ranks = np.flatnonzero(_relevant_flags(items, grades, level)) + 1
    total = 0.0
    for nth, rank in enumerate(ranks.tolist(), start=1):  # m_yaap.c's order of sums
        total += nth / rank
    return math.log((1.0 + total) / (1.0 + n_rel - total))


def unjudged_at_k(recommended, relevant, k):
    """Share of the first ``k`` ranks holding an unjudged item (trec_eval's ``unj``).

    ``unj@k = |unjudged items among the first k| / k``; an item is unjudged
    when ``relevant`` lacks it or gives it a negative grade. A list shorter
    than ``k`` counts its missing ranks as judged: the denominator stays
    ``k`` (``m_unjudged.c``). An empty list scores 0.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        The judged ids and their grades.
    k : int
        Cut-off, a positive integer.

    Returns
    -------
    float
        A share in ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        For a bad list, judgements or ``k``.

    Notes
    -----
    A warning sign rather than a quality: a high share means the list's
    precision rests on items nobody judged (counted as non-relevant).
    ``judged_at_k`` divides by the ranks the list fills instead of ``k``.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_unjudged.c`` (``te_calc_unj``, Ian Soboroff,
       2023), default cut-offs 5, 10 and 20.

    See Also
    --------
    judged_at_k : the judged share, over ``min(k, n)``.

    Examples
    --------
    >>> from metrics_lib import unjudged_at_k
    >>> unjudged_at_k(["a", "x", "b", "y"], {"a": 1, "b": 0, "y": -1}, 5)
    0.4
    """
    items, grades, _ = _judged(recommended, relevant, 1)
    k = check_k(k)
    if k is None:
        raise ValueError("unjudged_at_k needs a cut-off k, a positive integer")
    return sum(1 for item in items[:k] if grades.get(item, -1) < 0) / k


def r_precision_multiple(recommended, relevant, multiple, *, relevance_level=1,
                         empty="zero"):
    """Precision at a multiple of R (trec_eval's ``Rprec_mult``).

    The precision of the first ``c = floor(multiple * R + 0.9)`` ranks
    (``m_Rprec_mult.c``: ``(long) (m * R + 0.9)``), with ``R`` the relevant
    items of the truth; a list shorter than ``c`` is filled with
    non-relevant items. ``multiple = 1`` is R-precision. ``R = 0``: the
    ``empty`` policy (trec_eval: 0).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with their grades.
    multiple : float
        The multiple of R, a finite number >= 0 (0 gives 0).
    relevance_level : float, default=1
        Minimum grade of a relevant item.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.

    Returns
    -------
    float
        A precision in ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        For a multiple that is not a finite number >= 0, and bad inputs.

    Notes
    -----
    The rank is rounded as trec_eval 10.0 rounds it, ``(long) (m * R +
    0.9)``, not to the nearest integer: ``m * R = 2.5`` gives rank 3 and
    ``2.05`` rank 2.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_Rprec_mult.c`` (``te_calc_Rprec_mult``),
       default multiples 0.2, 0.4, ..., 2.0.

    Examples
    --------
    >>> from metrics_lib import r_precision_multiple
    >>> # R = 3: c = floor(2 * 3 + 0.9) = 6; 2 relevant in the first 6
    >>> round(r_precision_multiple(["a", "x", "b"], {"a", "b", "c"}, 2.0), 6)
    0.333333
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    check_empty(empty)
    multiple = _check_multiple(multiple)
    n_rel = _n_relevant(grades, level)
    if n_rel == 0:
        return _no_relevant(empty)
    cut = math.floor(multiple * n_rel + 0.9)
    if cut <= 0:
        return 0.0
    return int(_relevant_flags(items[:cut], grades, level).sum()) / cut


def _check_multiple(multiple) -> float:
    if isinstance(multiple, bool) or not isinstance(multiple, (int, float, np.number)) \
            or not (math.isfinite(multiple) and multiple >= 0):
        raise ValueError(f"multiple must be a finite number >= 0; got {show(multiple)}")
    return float(multiple)


def eleven_point_average(recommended, relevant, levels=ELEVEN_POINTS, *, relevance_level=1,
                         empty="zero", trec_eval_version=10):
    """Interpolated precision averaged over recall levels (trec_eval's ``11pt_avg``).

    The mean, over ``levels``, of the best precision at any rank whose recall
    reaches the level, exactly as ``m_11pt_avg.c`` computes it: level ``p``
    aims at the ``lround(p * R)``-th relevant item (``(long) (p * R + 0.9)``
    with ``trec_eval_version=9``); a target beyond the relevant items listed
    gives 0 and a target of 0 the best precision of the list. Levels are
    walked from the last to the first, as trec_eval does; in increasing order
    (the default) this is the average of :func:`interpolated_precision` at
    each level, otherwise a level whose target lies above the previous
    one's, and every level before it, gets the best precision of the list.
    ``R = 0``: the ``empty`` policy (trec_eval: 0). An empty list gives NaN
    (trec_eval's 0/0) when a target is 0, else 0.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with their grades.
    levels : sequence of float, default=ELEVEN_POINTS
        Recall levels, finite and >= 0 (0.0, 0.1, ..., 1.0 by default);
        repeats count twice.
    relevance_level : float, default=1
        Minimum grade of a relevant item.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    trec_eval_version : {10, 9}, default=10
        Which trec_eval's rounding of ``p * R`` to use.

    Returns
    -------
    float
        A precision in ``[0, 1]`` (NaN for an empty list, see above).

    Raises
    ------
    TypeError, ValueError
        For levels that are not finite numbers >= 0, and bad inputs.

    Notes
    -----
    The 11-point interpolated average precision as trec_eval computes it;
    the walk from the last level matters only for levels not in increasing
    order.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_11pt_avg.c`` (``te_calc_11ptavg``); 9.0.8's
       rounding of the targets differs (``trec_eval_version``).

    Examples
    --------
    >>> from metrics_lib import eleven_point_average
    >>> # levels 0-0.7 aim at the first relevant item (precision 1), 0.8-1 at
    >>> # the second (2/3): (8 * 1 + 3 * 2/3) / 11
    >>> round(eleven_point_average(["a", "x", "b"], {"a", "b"}), 6)
    0.909091
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    check_empty(empty)
    version = check_trec_eval_version(trec_eval_version)
    levels = _check_levels(levels)
    n_rel = _n_relevant(grades, level)
    if n_rel == 0:
        return _no_relevant(empty)
    flags = _relevant_flags(items, grades, level)
    ranks = (np.flatnonzero(flags) + 1).tolist()
    best = [nth / rank for nth, rank in enumerate(ranks, start=1)]
    for i in range(len(best) - 2, -1, -1):
        best[i] = max(best[i], best[i + 1])
    final = best[0] if best else (0.0 if items else math.nan)
    targets = [iprec_target(p, n_rel, version) for p in levels]
    return _walk_levels(targets, len(ranks), best, final) / len(levels)


def _walk_levels(targets, n_rel_ret, best, final):
    """The sum of ``te_calc_11ptavg`` for one list, levels walked from the last."""
    total, skipping, previous = 0.0, True, n_rel_ret
    for target in reversed(targets):
        if skipping and target > n_rel_ret:
            continue  # aimed beyond the relevant items listed: adds nothing
        skipping = False
        if 1 <= target <= previous:
            total += best[target - 1]
            previous = target
        else:
            total += final
            previous = -1  # the walk has passed: every level left gets `final`
    return total


def _check_levels(levels) -> tuple:
    values = tuple(levels)
    if not values or any(isinstance(v, bool) or not isinstance(v, (int, float, np.number))
                         or not (math.isfinite(v) and v >= 0) for v in values):
        raise ValueError(f"levels must be a non-empty sequence of finite numbers >= 0; "
                         f"got {show(levels)}")
    return tuple(float(v) for v in values)


def set_utility(recommended, relevant, weights=UTILITY_WEIGHTS, *, relevance_level=1,
            n_items=None):
    """Set utility, a weighted count of the contingency table (trec_eval's ``utility``).

    ``a * h + b * (N - h) + c * (R - h) + d * (D + h - N - R)`` with ``N``
    the listed items, ``R`` the relevant items of the truth, ``h`` the
    relevant items listed and ``D`` the items of the collection:
    relevant listed, non-relevant listed, relevant missed, non-relevant not
    listed. trec_eval's default weights ``1, -1, 0, 0`` give ``h - (N - h)``.
    Defined for every list (an empty list gives ``c * R + d * (D - R)``).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids (their order does not matter).
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with their grades.
    weights : sequence of 4 float, default=(1, -1, 0, 0)
        ``a, b, c, d``.
    relevance_level : float, default=1
        Minimum grade of a relevant item.
    n_items : int or None, default=None
        ``D``, needed when ``d != 0`` (trec_eval's ``-N``, whose default 0
        would make the last term meaningless).

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        For weights that are not four finite numbers, ``d != 0`` without
        ``n_items``, and bad inputs.

    Notes
    -----
    The order of ``recommended`` does not matter: the measure sees the set.
    The weights say what a retrieved relevant item gains and what a
    retrieved non-relevant one costs (``m_utility.c``'s help text).

    References
    ----------
    .. [1] trec_eval 10.0, ``m_utility.c`` (``te_calc_utility``): the
       contingency table and its four parameters, default 1, -1, 0, 0.

    Examples
    --------
    >>> from metrics_lib import set_utility
    >>> set_utility(["a", "x", "b"], {"a", "b", "c"})  # 2 relevant, 1 not
    1.0
    >>> set_utility(["a", "x", "b"], {"a", "b", "c"}, (1, -1, -0.5, 0.1), n_items=10)
    1.1
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    weights = _check_weights(weights, n_items)
    hits = int(_relevant_flags(items, grades, level).sum())
    return float(utility_values(weights, float(hits), float(len(items)),
                                float(_n_relevant(grades, level)), n_items or 0))


def _check_weights(weights, n_items, name="weights"):
    values = tuple(weights) if not isinstance(weights, (str, bytes)) else ()
    if len(values) != 4 or any(isinstance(v, bool) or not isinstance(
            v, (int, float, np.number)) or not math.isfinite(v) for v in values):
        raise ValueError(f"{name} must be four finite numbers a, b, c, d; got "
                         f"{show(weights)}")
    if values[3] != 0 and n_items is None:
        raise ValueError(f"{name}: d = {values[3]!r} weighs the non-relevant items not "
                         "listed, which needs the number of items of the collection "
                         "(n_items=; trec_eval's -N)")
    return tuple(float(v) for v in values)


def utility_values(weights, hits, n_ret, n_rel, n_items):
    """``m_utility.c``'s sum, term by term in its order (arrays or floats)."""
    a, b, c, d = weights
    return a * hits + b * (n_ret - hits) + c * (n_rel - hits) \
        + d * (n_items + hits - n_ret - n_rel)


# -- batch kernels (metrics_lib._trec_kernels.TrecTable) and the declarations ----------

def _first_rows(trec, users):
    """Index of each user's first row in ``users`` (sorted user codes)."""
    return np.searchsorted(users, np.arange(trec.n_users))


def _yaap_batch(tables, k, options):
    trec, level = tables.trec, options["relevance_level"]
    users, pos = trec._relevant_rows(level)
    nth = np.arange(1, users.size + 1) - _first_rows(trec, users)[users]
    # bincount adds each user's terms in row (rank) order, as m_yaap.c does
    total = np.bincount(users, weights=nth / pos, minlength=trec.n_users)
    n_rel = trec.n_relevant(level)
    return np.log((1.0 + total) / (1.0 + n_rel - total)), n_rel == 0


def _unj_batch(tables, k, options):
    trec = tables.trec
    judged = np.bincount(trec.user[trec.pos <= k], minlength=trec.n_users)
    return (np.minimum(trec.list_len, k) - judged) / k, None


def _rprec_mult_batch(tables, multiple, options):
    trec, level = tables.trec, options["relevance_level"]
    n_rel = trec.n_relevant(level)
    cut = np.floor(multiple * n_rel + 0.9).astype(np.int64)  # (long) (m * R + 0.9)
    users, pos = trec._relevant_rows(level)
    found = np.bincount(users[pos <= cut[users]], minlength=trec.n_users)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(cut > 0, found / cut, 0.0), n_rel == 0


def eleven_point_values(trec, levels, level, version=10):
    """``te_calc_11ptavg`` for every user of ``trec`` (a ``TrecTable``).

    The levels are walked as :func:`_walk_levels` walks them, one level at a
    time for all users (a loop over the levels, not the users).
    """
    n_rel = trec.n_relevant(level)
    n_rel_ret = trec.n_relevant_retrieved(level)
    users, _ = trec._relevant_rows(level)
    best = trec._best_below(level) if users.size else np.zeros(1)
    first = np.minimum(_first_rows(trec, users), max(users.size - 1, 0))
    with np.errstate(divide="ignore", invalid="ignore"):
        final = np.where(n_rel_ret > 0, best[first], 0.0 / trec.list_len)
    total = np.zeros(trec.n_users)
    skipping = np.ones(trec.n_users, dtype=bool)
    previous = n_rel_ret.astype(np.int64)
    for p in reversed(levels):
        scaled = p * n_rel.astype(np.float64)
        whole = np.floor(scaled)  # lround, exactly: halves up (p * R >= 0)
        target = (np.floor(scaled + 0.9) if version == 9
                  else whole + (scaled - whole >= 0.5)).astype(np.int64)
        skip = skipping & (target > n_rel_ret)
        skipping = skip
        match = ~skip & (target >= 1) & (target <= previous)
        at = np.where(match, first + target - 1, 0)
        total += np.where(skip, 0.0, np.where(match, best[np.minimum(at, best.size - 1)],
                                              final))
        previous = np.where(match, target, np.where(skip, previous, -1))
    return total / len(levels)


def _eleven_batch(tables, levels, options):
    version = options.get("trec_eval_version", 10)
    level = options["relevance_level"]
    values = eleven_point_values(tables.trec, ELEVEN_POINTS if levels is None else levels,
                                 level, version)
    return values, tables.trec.n_relevant(level) == 0


def _utility_batch(tables, k, options):
    trec, level = tables.trec, options["relevance_level"]
    # utility.2,-1,0,0 (trec_eval's spelling) gives a tuple; utility(a=2) the parameters
    weights = k if isinstance(k, tuple) else tuple(options["parameters"][w] for w in "abcd")
    if weights[3] != 0:
        raise ValueError(f"metric 'utility': d = {weights[3]!r} weighs the non-relevant "
                         "items not listed, which needs the number of items of the "
                         "collection; evaluate does not know it (the command line's -N "
                         "gives it; per list: set_utility(..., n_items=))")
    return utility_values(weights, trec.n_relevant_retrieved(level).astype(np.float64),
                          trec.list_len.astype(np.float64),
                          trec.n_relevant(level).astype(np.float64), 0.0), None


register(Metric(
    name="yaap", aliases=("yaap",), per_list=yaap, batch=_yaap_batch, cutoff="none",
    table="trec", keywords=("empty",), trec_eval=(TrecMeasure("yaap", "yaap"),)))
register(Metric(
    name="unj", aliases=("unj", "unjudged"), per_list=unjudged_at_k, batch=_unj_batch,
    cutoff="required", table="trec", can_be_empty=False,
    trec_eval=(TrecMeasure("unj", "unj@{}", (5, 10, 20)),)))
register(Metric(
    name="rprec_mult", aliases=("rprec_mult",), per_list=r_precision_multiple,
    batch=_rprec_mult_batch, cutoff="level", level_max=math.inf, table="trec",
    keywords=("empty",),
    trec_eval=(TrecMeasure("Rprec_mult", "rprec_mult_{}",
                           (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)),)))
register(Metric(
    name="11pt_avg", aliases=("11pt_avg",), per_list=eleven_point_average,
    batch=_eleven_batch, cutoff="params", table="trec",
    keywords=("empty", "trec_eval_version"),
    trec_eval=(TrecMeasure("11pt_avg", "11pt_avg"),)))
register(Metric(
    name="utility", aliases=("utility",), per_list=set_utility, batch=_utility_batch,
    cutoff="params", table="trec", can_be_empty=False,
    trec_eval=(TrecMeasure("utility", "utility"),),
    parameters=tuple(Parameter(name, "(-inf, inf)", meaning, default=default)
                     for name, meaning, default in zip(
                         "abcd", ("weight of a relevant item listed",
                                  "weight of a non-relevant item listed",
                                  "weight of a relevant item missed",
                                  "weight of a non-relevant item not listed"),
                         UTILITY_WEIGHTS))))
