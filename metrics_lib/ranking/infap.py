"""Inferred average precision (infAP): AP when only a sample of the pool is judged.

Definition (Yilmaz and Aslam, CIKM 2006; trec_eval 10.0 ``m_infap.c``,
``te_calc_infap``), for one user whose truth sorts every item into one of four
kinds: *unpooled* (absent from the truth), *pooled but unjudged* (a negative
grade), *judged non-relevant* (``0 <= grade < relevance_level``) and *judged
relevant* (``grade >= relevance_level``). With ``R`` the number of judged
relevant items and, for the relevant item at rank ``j + 1`` (``j`` items
above it),

* ``r``: judged relevant items above it,
* ``n``: judged non-relevant items above it,
* ``u``: pooled but unjudged items above it,

the item adds 1 when ``j = 0`` and otherwise

``1/(j+1) + j/(j+1) * ((r + n + u)/j) * ((r + eps)/(r + n + 2 eps))``

with ``eps = 1e-5``: the expected precision at its rank when the unpooled
items above it are non-relevant and the pooled unjudged ones are relevant in
the proportion of the judged ones. infAP is the sum over the retrieved
relevant items, over ``R``. Relevant items that are not retrieved add 0.
``R = 0``: the ``empty`` policy (trec_eval: 0). With complete judgements
(every retrieved item judged) the terms are the precisions at the relevant
ranks up to the ``eps`` terms, so infAP is AP to about five decimals.

Negative grades: trec_eval reads a negative qrels grade as "in the pool but
unjudged" (``form_res_rels.c``, ``RELVALUE_UNJUDGED``) and an absent item as
unpooled (``RELVALUE_NONPOOL``); infAP is the one measure of trec_eval that
tells the two apart. This library's other metrics refuse negative grades in
:func:`metrics_lib.evaluate`, except those that declare them (``bpref`` and
``num_nonrel_judged_ret``, for which a negative grade is the same as an
absent item, as in trec_eval); ``judged_only=True`` (trec_eval ``-J``)
removes the pooled unjudged items with the unpooled ones.
"""

from __future__ import annotations

import numpy as np

from .._trec_kernels import _run_start_values
from .._validation import check_empty
from ..trec_measures import _judged, _n_relevant, _no_relevant
from ._common import ordered_by_scores
from .registry import Metric, TrecMeasure, register

__all__ = ["infap"]

# trec_eval.h INFAP_EPSILON
_EPSILON = .00001


@ordered_by_scores("infap", cutoff=False, allow_negative=True)
def infap(recommended, relevant, *, relevance_level=1, empty="zero", scores=None,
          ties="input"):
    """Inferred average precision (Yilmaz and Aslam 2006; trec_eval ``infAP``).

    For the relevant item at rank ``j + 1`` with ``r`` judged relevant, ``n``
    judged non-relevant and ``u`` pooled but unjudged items above it, the term
    is 1 when ``j = 0`` and otherwise
    ``1/(j+1) + j/(j+1) * ((r + n + u)/j) * ((r + eps)/(r + n + 2 eps))``,
    ``eps = 1e-5``; infAP is the sum over the retrieved relevant items divided
    by ``R``, the number of relevant items in ``relevant``. Items absent from
    ``relevant`` (unpooled) only take a rank; items with a negative grade
    (pooled but unjudged) are assumed relevant in the proportion of the judged
    items above. ``R = 0``: the ``empty`` policy (trec_eval: 0).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first. Ids must be unique.
    relevant : collection of hashable or mapping of hashable to float
        The pool: ``>= relevance_level`` judged relevant, ``0 <= grade <
        relevance_level`` judged non-relevant, a negative grade "in the pool
        but unjudged" (trec_eval's qrels grade ``-1``). A plain collection of
        ids makes each relevant.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant (trec_eval ``-l``).
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant.
    scores : sequence of float, optional
        Model scores parallel to ``recommended`` (higher is better); the list
        is then sorted by them, stably, and equal scores are ties.
    ties : {"input", "best", "worst"}, default="input"
        Rank of tied items; all but ``"input"`` need ``scores``. ``"best"``
        puts the higher grade first (a pooled unjudged item, negative, after
        an unpooled one). ``"average"`` and ``"block"`` are refused.

    Returns
    -------
    float
        infAP, in ``[0, 1]`` up to the ``eps`` terms.

    Raises
    ------
    TypeError, ValueError
        As :func:`metrics_lib.bpref` for the list, the grades, the level and
        ``empty``.

    See Also
    --------
    metrics_lib.average_precision, metrics_lib.bpref, metrics_lib.evaluate

    Notes
    -----
    This is ``te_calc_infap`` of trec_eval 10.0 (``m_infap.c``), in the same
    double operations, so that ``evaluate(..., ["infap"])`` prints as the
    binary's ``-m infAP``. Under trec_eval ``-J`` the unjudged items of both
    kinds leave the list before ranks are counted
    (``evaluate(..., judged_only=True)``).

    References
    ----------
    .. [1] Yilmaz and Aslam, "Estimating Average Precision with Incomplete and
       Imperfect Judgments", CIKM 2006.
    .. [2] trec_eval 10.0, ``m_infap.c`` and ``form_res_rels.c``,
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import infap
    >>> infap(["a", "b", "c"], {"a": 1, "b": 0, "c": 1})  # complete: AP, (1 + 2/3) / 2
    0.8333333333333333
    >>> # "x" is unpooled (a 0 in the estimate), "u" pooled but unjudged: "a" adds
    >>> # 1/2, "c" 1/4 + 3/4 * 2/3 * (1 + eps) / (1 + 2 eps); over R = 2
    >>> infap(["x", "a", "u", "c"], {"a": 1, "c": 1, "u": -1})
    0.624997500049999
    """
    items, grades, level = _judged(recommended, relevant, relevance_level)
    check_empty(empty)
    n_rel = _n_relevant(grades, level)
    if n_rel == 0:
        return _no_relevant(empty)
    rel = nonrel = unjudged = 0
    total = 0.0
    # te_calc_infap's loop: the same sums in the same order give the same double
    for j, item in enumerate(items):
        grade = grades.get(item)
        if grade is None:
            continue
        if grade < 0:
            unjudged += 1
        elif grade < level:
            nonrel += 1
        else:
            rel += 1
            total += 1.0 if j == 0 else _term(float(j), rel - 1, nonrel, unjudged)
    return total / n_rel


def _term(j, rel_above, nonrel_above, unjudged_above):
    """One relevant item's term (``j > 0`` items above it), as ``te_calc_infap`` computes it."""
    return 1.0 / (j + 1.0) + (j / (j + 1.0)) * (
        (rel_above + nonrel_above + unjudged_above) / j) * (
        (rel_above + _EPSILON) / (rel_above + nonrel_above + 2 * _EPSILON))


def _count_above(rows, marked_rows, user_starts):
    """For each row, the ``marked_rows`` (sorted) above it in the same user's block."""
    return (np.searchsorted(marked_rows, rows)
            - np.searchsorted(marked_rows, user_starts))


def _infap_batch(tables, k, options):
    """infAP of every user of the chunk from :class:`~metrics_lib._trec_kernels.TrecTable`."""
    trec, level = tables.trec, options["relevance_level"]
    n_rel = trec.n_relevant(level)
    users, pos = trec._relevant_rows(level)
    starts = trec.starts[users]
    rows = starts + pos - 1
    nonrel = trec.grade < level
    nonrel_rows = trec.starts[trec.user[nonrel]] + trec.pos[nonrel] - 1
    nth = np.arange(1, users.size + 1)
    rel_above = nth - _run_start_values(users, nth) - 1
    j = (pos - 1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(pos == 1, 1.0, _term(j, rel_above,
                                              _count_above(rows, nonrel_rows, starts),
                                              _count_above(rows, trec.unjudged_rows,
                                                           starts)))
        sums = np.bincount(users, weights=terms, minlength=trec.n_users)
        return np.where(n_rel > 0, sums / n_rel, 0.0), n_rel == 0


register(Metric(
    name="infap", aliases=("infap",), per_list=infap, batch=_infap_batch, cutoff="none",
    table="trec", negative_grades=True,
    trec_eval=(TrecMeasure("infAP", "infap"),)))
