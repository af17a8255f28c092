"""trec_eval's set measures (the retrieved list as an unordered set) and relative_P.

Definitions, for one user with ``N`` retrieved items, ``R`` relevant items
(grade at or above ``relevance_level``) and ``h`` of them retrieved; the
rank order plays no part except in ``relative_p@k``:

* ``set_p`` (``m_set_P.c``, trec_eval's ``set_P``): ``h / N``, 0 when
  ``N = 0``. Unlike ``P@k`` there is no cut-off and no filling with
  non-relevant items: a list of 3 items with 1 relevant scores 1/3.
  Defined for every user: no ``empty`` policy.
* ``set_recall`` (``m_set_recall.c``, ``set_recall``): ``h / R``; ``R = 0``:
  the ``empty`` policy (trec_eval: 0).
* ``set_map`` (``m_set_map.c``, ``set_map``): ``h * h / (N * R)``, set
  precision times set recall; ``R = 0``: the ``empty`` policy (trec_eval: 0).
* ``set_relative_p`` (``m_set_rel_P.c``, ``set_relative_P``):
  ``h / min(N, R)``, the set precision over the largest one a list of ``N``
  items can reach; 0 when ``N = 0``; ``R = 0``: the ``empty`` policy
  (trec_eval: 0).
* ``relative_p@k`` (``m_rel_P.c``, ``relative_P``, trec_eval's default
  cut-offs 5, 10, 15, 20, 30, 100, 200, 500, 1000): relevant items in the
  top ``k`` over ``min(k, R)``, precision up to ``R`` and recall after it;
  a list shorter than ``k`` is not filled in. ``R = 0``: the ``empty``
  policy (trec_eval: 0).
* ``set_f`` (``m_set_F.c``, ``set_F``; ``set_f(beta=0.5)`` for trec_eval's
  ``-m set_F.0.5``): with ``P = h / N`` and ``Rc = h / R``,
  ``(beta + 1) * P * Rc / (beta * P + Rc)``; ``beta`` (default 1, any
  finite number >= 0) weighs recall against precision, ``beta = 0`` gives
  ``P``. 0 when ``h = 0``; ``R = 0``: the ``empty`` policy (trec_eval: 0).
* ``num_nonrel_judged_ret`` (``m_num_nonrel_judged_ret.c``): the retrieved
  items that are judged and not relevant (grade 0 up to ``relevance_level``
  excluded; items absent from the truth, or with a negative grade, are
  unjudged and not counted). A count, defined for every user.

trec_eval averages each of these measures over the queries (``te_calc_avg_meas_s``)
and sums ``num_nonrel_judged_ret`` (``te_calc_avg_meas_empty``). The per-list
functions are :func:`set_precision`, :func:`set_recall`, :func:`set_map`,
:func:`set_relative_precision`, :func:`relative_precision_at_k`, :func:`set_f`
and :func:`num_nonrel_judged_ret`; ``gm_bpref``, a mean over users, is
:func:`geometric_mean_bpref`. In all of them, as in trec_eval, a negative
grade is "in the pool but unjudged", the same as an absent item; ``evaluate``
takes one only for ``num_nonrel_judged_ret`` (and ``bpref``, ``infap``). The batch
kernels are :meth:`metrics_lib._trec_kernels.TrecTable.set_measure` and
:meth:`~metrics_lib._trec_kernels.TrecTable.measure`.
"""

from __future__ import annotations

import math

from .._validation import check_empty, check_k, check_parallel_lists, show
from ..trec_measures import _judged, _no_relevant, bpref, floored_geometric_mean
from ._common import ordered_by_scores
from ._docstrings import shared_parameters
from .registry import Metric, Parameter, TrecMeasure, register

__all__ = ["set_precision", "set_recall", "set_f", "set_map", "set_relative_precision",
           "relative_precision_at_k", "num_nonrel_judged_ret", "geometric_mean_bpref"]


def _counts(recommended, relevant, relevance_level):
    """``(N, R, h, judged non-relevant retrieved)`` of one list, as ``form_res_rels.c``.

    A negative grade is "in the pool but unjudged": neither relevant nor
    judged non-relevant, as an item absent from ``relevant``.
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    n_rel = sum(1 for grade in grades.values() if grade >= level)
    found = [grades[item] for item in items if item in grades and grades[item] >= 0]
    hits = sum(1 for grade in found if grade >= level)
    return len(items), n_rel, hits, len(found) - hits


@shared_parameters
def set_precision(recommended, relevant, *, relevance_level=1):
    """Set precision (trec_eval ``set_P``): relevant items listed over items listed.

    ``h / N`` for ``N`` listed items of which ``h`` are relevant; 0 for an
    empty list. No cut-off and no filling: a list of 3 items with 1 relevant
    scores 1/3, whatever its order. Defined for every user (no ``empty``).

    Parameters
    ----------
    {{recommended_set relevant_pool relevance_level}}

    Returns
    -------
    float
        Set precision in ``[0, 1]``.

    Raises
    ------
    {{raises_bpref_checks}}

    See Also
    --------
    metrics_lib.precision_at_k, set_recall

    Notes
    -----
    trec_eval 10.0 ``m_set_P.c`` (``te_calc_set_P``); ``evaluate(...,
    ["set_p"])`` computes it for a table of users.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_P.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import set_precision
    >>> set_precision(["a", "x", "b"], {"a": 1, "b": 2, "c": 1})
    0.6666666666666666
    """
    n_ret, _, hits, _ = _counts(recommended, relevant, relevance_level)
    return hits / n_ret if n_ret else 0.0


@shared_parameters
def set_recall(recommended, relevant, *, relevance_level=1, empty="zero"):
    """Set recall (trec_eval ``set_recall``): relevant items listed over relevant items.

    ``h / R`` for ``R`` relevant items of which ``h`` are listed; the order
    of the list plays no part. ``R = 0``: the ``empty`` policy (trec_eval: 0).

    Parameters
    ----------
    {{recommended_set relevant_pool relevance_level empty}}

    Returns
    -------
    float
        Set recall in ``[0, 1]``.

    Raises
    ------
    {{raises_bpref_checks_empty}}

    See Also
    --------
    metrics_lib.recall_at_k, set_precision

    Notes
    -----
    trec_eval 10.0 ``m_set_recall.c``; ``evaluate(..., ["set_recall"])``.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_recall.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import set_recall
    >>> set_recall(["a", "x", "b"], {"a": 1, "b": 2, "c": 1})
    0.6666666666666666
    """
    check_empty(empty)
    _, n_rel, hits, _ = _counts(recommended, relevant, relevance_level)
    return hits / n_rel if n_rel else _no_relevant(empty)


@shared_parameters
def set_map(recommended, relevant, *, relevance_level=1, empty="zero"):
    """trec_eval's ``set_map``: set precision times set recall, ``h * h / (N * R)``.

    ``N`` listed items, ``R`` relevant ones, ``h`` relevant items listed;
    0 for an empty list; ``R = 0``: the ``empty`` policy (trec_eval: 0).

    Parameters
    ----------
    {{recommended_set relevant_pool relevance_level empty}}

    Returns
    -------
    float
        ``set_map`` in ``[0, 1]``.

    Raises
    ------
    {{raises_bpref_checks_empty}}

    See Also
    --------
    set_precision, set_recall

    Notes
    -----
    trec_eval 10.0 ``m_set_map.c`` (the same double operations:
    ``h * h / (N * R)``); ``evaluate(..., ["set_map"])``.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_map.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import set_map
    >>> set_map(["a", "x", "b"], {"a": 1, "b": 2, "c": 1})  # 2 * 2 / (3 * 3)
    0.4444444444444444
    """
    check_empty(empty)
    n_ret, n_rel, hits, _ = _counts(recommended, relevant, relevance_level)
    if not n_rel:
        return _no_relevant(empty)
    return float(hits * hits) / float(n_ret * n_rel) if n_ret else 0.0


@shared_parameters
def set_relative_precision(recommended, relevant, *, relevance_level=1, empty="zero"):
    """trec_eval's ``set_relative_P``: ``h / min(N, R)``, set precision over its best value.

    ``N`` listed items, ``R`` relevant ones, ``h`` relevant items listed: a
    list of ``N`` items can hold at most ``min(N, R)`` relevant ones. 0 for an
    empty list; ``R = 0``: the ``empty`` policy (trec_eval: 0).

    Parameters
    ----------
    {{recommended_set relevant_pool relevance_level empty}}

    Returns
    -------
    float
        In ``[0, 1]``.

    Raises
    ------
    {{raises_bpref_checks_empty}}

    See Also
    --------
    set_precision, relative_precision_at_k

    Notes
    -----
    trec_eval 10.0 ``m_set_rel_P.c``; ``evaluate(..., ["set_relative_p"])``.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_rel_P.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import set_relative_precision
    >>> set_relative_precision(["a", "x"], {"a": 1, "b": 2, "c": 1})  # 1 / min(2, 3)
    0.5
    """
    check_empty(empty)
    n_ret, n_rel, hits, _ = _counts(recommended, relevant, relevance_level)
    if not n_rel:
        return _no_relevant(empty)
    return hits / min(n_ret, n_rel) if n_ret else 0.0


def _check_beta(beta) -> float:
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) \
            or not math.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be a finite number >= 0; got {show(beta)}")
    return float(beta)


@shared_parameters
def set_f(recommended, relevant, *, beta=1.0, relevance_level=1, empty="zero"):
    """trec_eval's ``set_F``: the weighted harmonic mean of set precision and set recall.

    With ``P = h / N`` and ``Rc = h / R`` (``N`` listed items, ``R``
    relevant ones, ``h`` relevant items listed):
    ``(beta + 1) * P * Rc / (beta * P + Rc)``; 0 when ``h = 0``; ``R = 0``:
    the ``empty`` policy (trec_eval: 0). ``beta = 0`` gives ``P``, a large
    ``beta`` tends to ``Rc``.

    Parameters
    ----------
    {{recommended_set relevant_pool}}
    beta : float, default=1
        Weight of recall against precision, a finite number ``>= 0``
        (trec_eval's ``-m set_F.<beta>``; ``evaluate``'s ``set_f(beta=...)``).
    {{relevance_level empty}}

    Returns
    -------
    float
        In ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        For a list or grades that :func:`metrics_lib.bpref` refuses too, a
        ``beta`` that is negative, infinite or not a number, and
        ``empty="raise"`` without a relevant item.

    See Also
    --------
    metrics_lib.f1_at_k, set_precision, set_recall

    Notes
    -----
    trec_eval 10.0 ``m_set_F.c`` (``te_calc_set_F``, the same double
    operations). Note that trec_eval's weight multiplies ``P`` in the
    denominator, where van Rijsbergen's F-beta multiplies it by
    ``beta ** 2``: ``set_F.2`` is not the usual F2.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_set_F.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import set_f
    >>> set_f(["a", "x", "b"], {"a": 1, "b": 2, "c": 1, "d": 1})  # P 2/3, Rc 1/2
    0.5714285714285715
    """
    beta = _check_beta(beta)
    check_empty(empty)
    n_ret, n_rel, hits, _ = _counts(recommended, relevant, relevance_level)
    if not n_rel:
        return _no_relevant(empty)
    if not hits:
        return 0.0
    precision, recall = hits / n_ret, hits / n_rel
    return (beta + 1.0) * precision * recall / (beta * precision + recall)


@shared_parameters
@ordered_by_scores("relative_p", allow_negative=True)
def relative_precision_at_k(recommended, relevant, k, *, relevance_level=1,
                            empty="zero", scores=None, ties="input"):
    """trec_eval's ``relative_P``: relevant items in the top ``k`` over ``min(k, R)``.

    Precision at ``k`` while ``k <= R`` and recall at ``k`` after it: the
    share of the best value a list cut at ``k`` can reach. A list shorter
    than ``k`` counts what it has (no filling). ``R = 0``: the ``empty``
    policy (trec_eval: 0).

    Parameters
    ----------
    {{recommended_unique relevant_pool k_required relevance_level empty scores}}
    ties : {"input", "average", "block", "best", "worst"}, default="input"
        Rank of tied items: the list's order, the expectation over all tie
        orders, the tie group's last rank, or the best / worst order; all but
        ``"input"`` need ``scores``.

    Returns
    -------
    float
        In ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        For a list, grades or cut-off that :func:`metrics_lib.precision_at_k`
        refuses too, and ``empty="raise"`` without a relevant item.

    See Also
    --------
    metrics_lib.precision_at_k, metrics_lib.r_precision

    Notes
    -----
    trec_eval 10.0 ``m_rel_P.c`` (default cut-offs 5, 10, 15, 20, 30, 100,
    200, 500, 1000); ``evaluate(..., ["relative_p@10"])``.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_rel_P.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import relative_precision_at_k
    >>> relative_precision_at_k(["a", "x", "b"], {"a": 1, "b": 2}, 3)  # 2 / min(3, 2)
    1.0
    """
    k = check_k(k)
    if k is None:
        raise ValueError("relative_precision_at_k needs a cut-off k (a positive integer)")
    check_empty(empty)
    items, grades, level = _judged(recommended, relevant, relevance_level)
    n_rel = sum(1 for grade in grades.values() if grade >= level)
    if not n_rel:
        return _no_relevant(empty)
    in_top = sum(1 for item in items[:k] if grades.get(item, -1) >= level)
    return in_top / min(n_rel, k)


@shared_parameters
def num_nonrel_judged_ret(recommended, relevant, *, relevance_level=1):
    """trec_eval's ``num_nonrel_judged_ret``: listed items judged non-relevant.

    The items of the list whose grade is at least 0 and below
    ``relevance_level``; items absent from ``relevant`` and items with a
    negative grade (in the pool but unjudged) are not counted. A count,
    defined for every user (no ``empty``).

    Parameters
    ----------
    {{recommended_set relevant_pool relevance_level}}

    Returns
    -------
    int
        The count.

    Raises
    ------
    {{raises_bpref_checks}}

    See Also
    --------
    metrics_lib.bpref, metrics_lib.judged_at_k

    Notes
    -----
    trec_eval 10.0 ``m_num_nonrel_judged_ret.c``, whose summary line is the
    sum over queries, not the mean; ``evaluate(..., ["num_nonrel_judged_ret"])``.

    References
    ----------
    .. [1] trec_eval 10.0, ``m_num_nonrel_judged_ret.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import num_nonrel_judged_ret
    >>> num_nonrel_judged_ret(["a", "x", "b", "u"], {"a": 1, "b": 0, "u": -1})
    1
    """
    return _counts(recommended, relevant, relevance_level)[3]


@shared_parameters
def geometric_mean_bpref(recommended_lists, relevant_lists, *, relevance_level=1):
    """Geometric mean over users of bpref, floored (trec_eval ``gm_bpref``).

    ``gm_bpref = exp((1/n) * sum over users u of log(max(bpref_u, 1e-5)))``
    with :func:`metrics_lib.bpref` of each user (0 for a user with no
    relevant item, as in trec_eval); the floor keeps one user with bpref 0
    from making the mean 0. A mean over users, like
    :func:`metrics_lib.geometric_mean_average_precision`: there is no value
    per user, and ``evaluate`` refuses the name.

    Parameters
    ----------
    {{recommended_lists relevant_lists relevance_level}}

    Returns
    -------
    float
        In ``[1e-5, 1]``.

    Raises
    ------
    TypeError, ValueError
        For lists of unequal length, no user, or a list or grades that
        :func:`metrics_lib.bpref` refuses.

    See Also
    --------
    metrics_lib.bpref, metrics_lib.floored_geometric_mean

    Notes
    -----
    trec_eval 10.0 ``m_gm_bpref.c`` and ``meas_avg.c``
    (``te_calc_avg_meas_s_gm``). For a table of users use
    ``floored_geometric_mean(evaluate(recs, truth, "bpref", empty="zero")["bpref"])``.

    References
    ----------
    .. [1] Buckley and Voorhees, "Retrieval Evaluation with Incomplete
       Information", SIGIR 2004.
    .. [2] trec_eval 10.0, ``m_gm_bpref.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import geometric_mean_bpref
    >>> lists = [["a", "n", "b"], ["y", "c"]]
    >>> truth = [{"a": 1, "b": 1, "n": 0}, {"c": 1}]  # bpref 0.5 and 1
    >>> round(geometric_mean_bpref(lists, truth), 4)
    0.7071
    """
    recs, rels = check_parallel_lists(recommended_lists, relevant_lists)
    return floored_geometric_mean([bpref(recommended, relevant, relevance_level=relevance_level)
                                   for recommended, relevant in zip(recs, rels)])


def _set_batch(kind):
    def batch(tables, k, options):  # relative_p's k is its cut-off; set_f's beta, a parameter
        param = options["parameters"]["beta"] if kind == "set_f" else k
        return tables.trec.measure(kind, param, options["relevance_level"])
    return batch


register(Metric(
    name="set_p", aliases=("set_p",), per_list=set_precision, batch=_set_batch("set_p"),
    cutoff="none", table="trec", can_be_empty=False,
    trec_eval=(TrecMeasure("set_P", "set_p"),)))
register(Metric(
    name="set_recall", aliases=("set_recall",), per_list=set_recall,
    batch=_set_batch("set_recall"), cutoff="none", table="trec",
    trec_eval=(TrecMeasure("set_recall", "set_recall"),)))
register(Metric(
    name="set_map", aliases=("set_map",), per_list=set_map, batch=_set_batch("set_map"),
    cutoff="none", table="trec", trec_eval=(TrecMeasure("set_map", "set_map"),)))
register(Metric(
    name="set_relative_p", aliases=("set_relative_p",), per_list=set_relative_precision,
    batch=_set_batch("set_relative_p"), cutoff="none", table="trec",
    trec_eval=(TrecMeasure("set_relative_P", "set_relative_p"),)))
register(Metric(
    name="relative_p", aliases=("relative_p",), per_list=relative_precision_at_k,
    batch=_set_batch("relative_p"), cutoff="required", table="trec",
    trec_eval=(TrecMeasure("relative_P", "relative_p@{}",
                           (5, 10, 15, 20, 30, 100, 200, 500, 1000)),)))
register(Metric(
    name="set_f", aliases=("set_f",), per_list=set_f, batch=_set_batch("set_f"),
    cutoff="none", table="trec", trec_eval=(TrecMeasure("set_F", "set_f"),),
    parameters=(Parameter("beta", "[0, inf)", "weight of recall against precision",
                          default=1.0),)))
register(Metric(
    name="num_nonrel_judged_ret", aliases=("num_nonrel_judged_ret",),
    per_list=num_nonrel_judged_ret, batch=_set_batch("num_nonrel_judged_ret"),
    cutoff="none", table="trec", can_be_empty=False,
    # a negative grade (in the pool, unjudged) is not judged: as an absent item
    negative_grades=True,
    trec_eval=(TrecMeasure("num_nonrel_judged_ret", "num_nonrel_judged_ret",
                           integer=True),)))
