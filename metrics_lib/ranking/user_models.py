"""Metrics of a user who reads down the list and may stop: ERR and RBP.

Expected reciprocal rank (Chapelle, Metzler, Zhang and Grinspan, CIKM 2009),
for one user: the item at rank ``i`` satisfies the user with probability
``R_i = (2**g_i - 1) / 2**g_max``, where ``g_i`` is its grade (0 when it is
unjudged or not positive) and ``g_max`` the largest grade of the scale; the
user reads from rank 1 and stops at the first satisfying item. ERR@k is the
expected reciprocal of the stopping rank, a stop beyond rank ``k`` counting 0::

    ERR@k = sum over ranks r <= k of  R_r / r * prod over i < r of (1 - R_i)

``g_max`` is 4 here, as in the paper's five-grade scale and in the TREC Web
track's ``gdeval.pl`` (version 1.2a, ``$MAX_JUDGMENT = 4``; shipped by
ir-measures 0.4.3 as ``ir_measures/bin/gdeval.pl``, sub ``err``), whose
per-user values ``err@k`` reproduces: a grade above 4 is refused there
(``gdeval.pl`` stops with "format error") and here (``ValueError``).

Edge cases: an empty list, or a list without a positive grade in its top
``k``, scores 0; a ``k`` beyond the list scores the whole list; a user with no
judged item of positive grade gets the ``empty`` policy (0 by default, the
value ERR has for them anyway; ``gdeval.pl`` prints no value for such a
user). Ties: ``evaluate`` orders equal scores by its ``ties=`` keyword; its
default ``"item_desc"`` (item id descending) is ``gdeval.pl``'s order
(sub ``runOrder``: score descending, then docno descending), which is
trec_eval's too.

Rank-biased precision (Moffat and Zobel, ACM TOIS 27(1), 2008), for one user
with persistence ``p`` in (0, 1): the user reads rank 1 and each next rank
with probability ``p``; RBP is the expected gain per item read::

    RBP(p) = (1 - p) * sum over ranks i of  gain_i * p**(i - 1)

The gain: ``g_i / max(1, G)`` with ``G`` the user's largest judged grade
(``gain="linear"``, trec_eval 10.0 ``m_rbp.c``, which rescales the gains into
[0, 1] when one exceeds 1), or 1 for a grade at or above ``relevance_level``
(``gain="binary"``, Moffat and Zobel's binary RBP; ir-measures 0.4.3
``RBP(rel=level)``, computed by cwl_eval). Its residual ``rbp_resid`` is what
RBP could still gain if every unjudged item of the list and every rank after
it were relevant: ``p**n + (1 - p) * sum over unjudged ranks i <= n of
p**(i - 1)`` for a list of ``n`` items, that is ``1 - (1 - p) * sum over judged
ranks of p**(i - 1)``. trec_eval 10.0 (``m_rbp_resid.c``) reports 0 instead
when the list has no unjudged item (``if (unj_so_far)``), leaving out the
ranks after the list, which cwl_eval 1.0.12 (``-r``) counts: the keyword
``residual_tail`` chooses (``"unjudged"``, trec_eval's, by default; ``"always"``).

Edge cases: an empty list scores RBP 0 and residual 1 (0 in trec_eval's
convention, which sees no unjudged item: ``residual_tail="unjudged"``,
``evaluate``'s default; ``"always"`` is cwl_eval's); a user without a positive grade gets
the ``empty`` policy for RBP; RBP takes no cut-off (``p`` is its depth).
"""

from __future__ import annotations

import numpy as np

from .._kernels import _first_in_run
from .._validation import check_choice, check_open_unit, check_real, handle_empty, show
from ._common import _tied
from .ndcg import _graded_inputs
from .judgements import _refuse_bounds
from .registry import Metric, Parameter, TrecMeasure, register

# gdeval.pl's $MAX_JUDGMENT, the top of Chapelle et al.'s five-grade scale.
ERR_MAX_GRADE = 4.0


def _stop_probability(grades: np.ndarray, max_grade: float) -> np.ndarray:
    """``(2**g - 1) / 2**g_max``, written so that no power overflows (g <= g_max)."""
    return np.exp2(grades - max_grade) - np.exp2(-max_grade)


def _too_high(grade: float, max_grade: float, where: str) -> ValueError:
    return ValueError(
        f"{where}: grade {grade:g} is above g_max = {max_grade:g}; ERR's "
        f"satisfaction probability (2**g - 1) / 2**g_max exceeds 1 above it "
        "(gdeval.pl refuses such grades too). Map the grades onto 0..g_max first"
        + (", or pass max_grade" if where == "err_at_k" else
           " (for example grade - 1 for grades 1-5), or use the per-list "
           "err_at_k(..., max_grade=...)"))


def err_at_k(recommended, relevant, k=None, *, max_grade=ERR_MAX_GRADE, empty="zero",
             min_grade=None, judged_only=False, truncate=None, candidates="all",
             scores=None, ties="input", score_threshold=None):
    """Expected reciprocal rank of the top ``k`` (Chapelle et al. 2009).

    ``ERR@k = sum_{r<=k} R_r / r * prod_{i<r} (1 - R_i)`` with
    ``R_i = (2**g_i - 1) / 2**max_grade`` and ``g_i`` the grade of the item at
    rank ``i`` (0 when unjudged or negative). An empty list, or one without a
    positive grade in the top ``k``, scores 0; a ``k`` beyond the list scores
    the whole list; a user whose judgements have no positive grade gets the
    ``empty`` policy.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with grades (a plain collection means grade 1 each).
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
    max_grade : float, default=4
        ``g_max``, the top of the grade scale: 4 is Chapelle et al.'s scale
        and ``gdeval.pl``'s ``$MAX_JUDGMENT``, the value ``evaluate``'s
        ``err@k`` uses. Every grade must be at most ``max_grade``.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no judged item has a positive grade.
    min_grade : float or None, default=None
        Grades below ``min_grade`` count as 0 before ``R`` is computed.
    judged_only : bool, default=False
        ``True`` removes the unjudged items from the list first (a condensed
        list, trec_eval 10.0 ``-J``).
    truncate : int or None, default=None
        Keep the first ``truncate`` items and score all of them, whatever
        ``k`` (ERR has no denominator for ``k`` to set).
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the listed items (ERR
        does not read the others, so only the ``empty`` policy can change).
    scores : sequence of float, optional
        Model scores parallel to ``recommended``; the list is sorted by them,
        stably.
    ties : {"input", "best", "worst"}, default="input"
        Order of tied scores: the list's order, or the best / worst order.
        ``"average"`` and ``"block"`` are refused: ERR is not linear in the
        order (a tied item's share depends on the items above it), so its
        expectation over tie orders has no closed form; the best and worst
        orders bound it.
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below it satisfies no one.

    Returns
    -------
    float
        ERR in ``[0, 1)``.

    Raises
    ------
    ValueError
        For a grade above ``max_grade``, a ``max_grade`` that is not a
        positive number up to 1000, and the checks of :func:`ndcg_at_k`.

    See Also
    --------
    ndcg_at_k, reciprocal_rank

    Notes
    -----
    ERR is reciprocal rank under a cascade user model: with every ``R_i`` in
    {0, 1} it is :func:`reciprocal_rank`. Unlike NDCG it is not divided by
    an ideal list: a user whose best item has grade 2 scores at most 3/16.
    ``evaluate``'s ``err@k`` equals ir-measures 0.4.3's ``ERR@k`` (computed
    by ``gdeval.pl``) user by user, to the 5 decimals gdeval prints
    (``tests/test_user_model_metrics.py``).

    References
    ----------
    .. [1] Chapelle, Metzler, Zhang and Grinspan, "Expected reciprocal rank
       for graded relevance", CIKM 2009.

    Examples
    --------
    Grades 4, 0, 2: the user stops at rank 1 with probability 15/16, and at
    rank 3 with probability 1/16 * 3/16:

    >>> from metrics_lib import err_at_k
    >>> err_at_k(["a", "b", "c"], {"a": 4, "c": 2})
    0.94140625
    >>> err_at_k(["b", "c"], {"a": 4, "c": 2}, k=1)
    0.0
    """
    tied = _tied(err_at_k, "err", recommended, relevant, k, scores, ties,
                 score_threshold=score_threshold, max_grade=max_grade, empty=empty,
                 min_grade=min_grade, judged_only=judged_only, truncate=truncate,
                 candidates=candidates)
    if tied is not None:
        return tied
    max_grade = check_real("max_grade", max_grade, low=0.0, high=1000.0, low_open=True)
    top, judged, _, _, _ = _graded_inputs(
        recommended, relevant, k, "linear", empty, 2, min_grade=min_grade,
        judged_only=judged_only, truncate=truncate, candidates=candidates)
    if judged.size and judged[0] > max_grade:
        raise _too_high(float(judged[0]), max_grade, "err_at_k")
    if not np.any(judged > 0):
        return handle_empty(empty, "relevant has no item with a positive grade")
    value, still_reading = 0.0, 1.0
    for rank, grade in enumerate(np.maximum(top, 0.0), start=1):
        satisfied = float(_stop_probability(grade, max_grade))
        value += satisfied * still_reading / rank
        still_reading *= 1.0 - satisfied
    return value


def rank_biased_precision(recommended, relevant, p, *, gain="linear", relevance_level=1,
                          empty="zero", residual=False, residual_tail="unjudged",
                          min_grade=None,
                          judged_only=False, truncate=None, candidates="all",
                          scores=None, ties="input", score_threshold=None):
    """Rank-biased precision of a list, or its residual (Moffat and Zobel 2008).

    ``RBP = (1 - p) * sum_i gain_i * p**(i - 1)`` over the ranks ``i`` of the
    whole list, with ``gain_i = g_i / max(1, G)`` (``G`` the user's largest
    judged grade; trec_eval 10.0) or, with ``gain="binary"``, 1 for a grade
    at or above ``relevance_level`` and 0 otherwise. ``residual=True``
    returns ``1 - (1 - p) * sum over judged ranks i of p**(i - 1)``, the most
    RBP could still rise, or 0 when every listed item is judged (trec_eval
    10.0's ``rbp_resid``; ``residual_tail="always"`` keeps ``p**n``, cwl_eval). An empty list scores 0 (residual 1); a user whose
    judgements have no positive grade gets the ``empty`` policy (RBP only).

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        Judged ids with grades (a plain collection means grade 1 each).
    p : float
        Persistence, strictly between 0 and 1: the probability of reading on.
    gain : {"linear", "binary"}, default="linear"
        ``"linear"``: the grade over ``max(1, G)`` (trec_eval 10.0);
        ``"binary"``: 1 at or above ``relevance_level`` (cwl_eval through
        ir-measures ``RBP(rel=...)``).
    relevance_level : float, default=1
        Only used by ``gain="binary"``.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        RBP when no judged item has a positive grade.
    residual : bool, default=False
        Return the residual instead of RBP.
    residual_tail : {"unjudged", "always"}, default="unjudged"
        With ``residual``: a list whose items are all judged has residual 0
        (``"unjudged"``, trec_eval 10.0) or ``p**n``, the ranks after it
        (``"always"``, cwl_eval 1.0.12).
    min_grade, judged_only, truncate, candidates
        As in :func:`ndcg_at_k`.
    scores : sequence of float, optional
        Model scores parallel to ``recommended``; the list is sorted by them.
    ties : {"input", "best", "worst", "average"}, default="input"
        Order of tied scores; ``"best"`` / ``"worst"`` are refused with
        ``residual=True`` (they order ties by grade, not by judgement).
        ``"average"`` is the expectation over the orders of tied items,
        exact: RBP and its residual are sums of ``p**(rank - 1)`` weights, and
        each tied item takes its group's mean weight. ``"block"`` is refused
        (the weight of a group's last rank for all is the RBP of no order).
    score_threshold : float or None, default=None
        With ``scores``: an item scored at or below it gains nothing.

    Returns
    -------
    float
        RBP in ``[0, 1)``, or the residual in ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        For a ``p`` that is not a number strictly between 0 and 1, a
        ``gain`` other than ``"linear"`` / ``"binary"``, and the checks of
        :func:`ndcg_at_k`.

    Notes
    -----
    trec_eval 10.0's ``m_rbp.c`` rescales the gains by reading two variables
    (``min``, ``max``) that it never initialises; the built binary behaves as
    ``g / max(1, G)`` when rbp is its only measure, which
    ``tests/test_user_model_metrics.py`` checks against it user by user.
    Next to other measures (``-m map -m ndcg``, ``-m yaap``, ``-m all_trec``)
    or with a negative ``-l`` its value changes with the memory they leave
    (0.2262 alone, 0.0916 after map and ndcg, on one user of
    ``tests/test_trec_measures_trec1.py``). ``evaluate`` names: ``rbp(p=0.8)`` and
    ``rbp_resid(p=0.8)``.

    References
    ----------
    .. [1] Moffat and Zobel, "Rank-biased precision for measurement of
       retrieval effectiveness", ACM TOIS 27(1), 2008.

    Examples
    --------
    Grades 3, unjudged, 1, 0 with ``p = 0.8``: gains 1, 0, 1/3, 0:

    >>> from metrics_lib import rank_biased_precision
    >>> truth = {"a": 3, "b": 1, "c": 0, "z": 2}
    >>> round(rank_biased_precision(["a", "x", "b", "c"], truth, 0.8), 6)
    0.242667
    >>> round(rank_biased_precision(["a", "x", "b", "c"], truth, 0.8, gain="binary"), 6)
    0.328
    >>> round(rank_biased_precision(["a", "x", "b", "c"], truth, 0.8, residual=True), 6)
    0.5696

    ``a`` and ``x`` tied: on average ``a`` takes the mean weight of ranks 1
    and 2, ``(1 + 0.8) / 2``:

    >>> round(rank_biased_precision(["a", "x"], truth, 0.8, scores=[1, 1],
    ...                             ties="average"), 6)
    0.18
    """
    if residual:
        _refuse_bounds("rank_biased_precision(residual=True)", ties)
    tied = _tied(rank_biased_precision, "rbp_resid" if residual else "rbp", recommended,
                 relevant, p, scores, ties,
                 score_threshold=score_threshold, gain=gain,
                 relevance_level=relevance_level, empty=empty, residual=residual,
                 residual_tail=residual_tail,
                 min_grade=min_grade, judged_only=judged_only, truncate=truncate,
                 candidates=candidates)
    if tied is not None:
        return tied
    p = check_open_unit("p", p)
    if gain not in ("linear", "binary"):
        raise ValueError(f"gain must be 'linear' or 'binary' for RBP; got {show(gain)}")
    top, judged, _, _, _ = _graded_inputs(
        recommended, relevant, None, gain, empty, 2, relevance_level=relevance_level,
        min_grade=min_grade, judged_only=judged_only, truncate=truncate,
        candidates=candidates)
    weights = p ** np.arange(top.size)
    if residual:
        listed = _judged_flags(recommended, relevant, judged_only, truncate, candidates)
        check_choice("residual_tail", residual_tail, ("unjudged", "always"))
        if residual_tail == "unjudged" and listed.all():
            return 0.0  # trec_eval: no unjudged item, no residual
        return float(1.0 - (1.0 - p) * weights[listed].sum())
    if not np.any(judged > 0):
        return handle_empty(empty, "relevant has no item with a positive grade")
    return float((1.0 - p) * np.sum(top / max(1.0, judged[0]) * weights))


def _judged_flags(recommended, relevant, judged_only, truncate, candidates):
    """Whether each item of the (condensed, truncated) list is judged."""
    from .._validation import check_recommended, check_relevant
    from ._common import _condensed
    items = check_recommended(recommended)
    grades = check_relevant(relevant, recommended=items)
    items, _, grades = _condensed(items, grades, judged_only, truncate, candidates)
    return np.array([item in grades for item in items], dtype=bool)


def _rbp_batch(tables, k, options):
    p, gain = options["parameters"]["p"], options["gain"]
    if gain not in ("linear", "binary"):
        raise ValueError(f"metric 'rbp' is not available with gain={show(gain)}: RBP "
                         "takes gain='linear' (trec_eval 10.0) or 'binary' (cwl_eval)")
    table = tables.graded
    top = _largest_grade(table.truth_code, table.truth_grade, table.n_users)
    weights = table.hit_grade / np.maximum(top, 1.0)[table.hit_user] \
        * np.power(p, table.hit_pos - 1.0)
    return (1.0 - p) * np.bincount(table.hit_user, weights=weights,
                                   minlength=table.n_users), ~table.has_positive


def _largest_grade(codes, grades, n_users):
    """Each user's largest grade (0 without judgements); ufunc.at is slow, so the
    judgements are grouped by user (they usually are already) and reduced."""
    top = np.zeros(n_users)
    if codes.size == 0:
        return top
    if np.any(codes[1:] < codes[:-1]):
        order = np.argsort(codes, kind="stable")
        codes, grades = codes[order], grades[order]
    starts = np.flatnonzero(_first_in_run(codes))
    top[codes[starts]] = np.maximum.reduceat(grades, starts)
    return np.maximum(top, 0.0)


def _rbp_resid_batch(tables, k, options):
    _refuse_bounds("metric 'rbp_resid'", options["ties"])
    p = options["parameters"]["p"]
    trec = tables.trec
    judged = np.bincount(trec.user, weights=np.power(p, trec.pos - 1.0),
                         minlength=trec.n_users)
    n_judged = np.bincount(trec.user, minlength=trec.n_users)
    residual = 1.0 - (1.0 - p) * judged
    if options["residual_tail"] == "always":
        return residual, None
    return np.where(n_judged < trec.list_len, residual, 0.0), None


# -- the batch kernel and the declaration (metrics_lib/ranking/registry.py) ----------

def err_values(table, k, max_grade=ERR_MAX_GRADE) -> np.ndarray:
    """ERR@k of every user of ``table`` (a ``UserTable``), without a loop over users.

    The hits of each user are contiguous and in rank order; the loop runs over
    the j-th hit of every user at once (j = 1, 2, ..., at most ``k`` times),
    carrying each user's probability of still reading, as the per-list sum
    does (the same operations in the same order).
    """
    keep = slice(None) if k is None else table.hit_pos <= k
    users, pos = table.hit_user[keep], table.hit_pos[keep]
    satisfied = _stop_probability(table.hit_grade[keep], max_grade)
    values, still_reading = np.zeros(table.n_users), np.ones(table.n_users)
    first = np.flatnonzero(_first_in_run(users))  # each user's first hit
    left = np.diff(np.r_[first, users.size])      # and how many hits follow
    rows = first
    while rows.size:
        who = users[rows]  # one hit per user: no index is repeated
        values[who] += satisfied[rows] * still_reading[who] / pos[rows]
        still_reading[who] *= 1.0 - satisfied[rows]
        more = left > 1
        rows, left = rows[more] + 1, left[more] - 1
    return values


def _err_batch(tables, k, options):
    if options["gain"] not in ("linear", "exponential"):
        # the graded table would hold gains, not grades; at relevance_level=0
        # gain='binary' metrics even run on grades + 1
        raise ValueError(f"metric 'err' is not available with gain={show(options['gain'])}: "
                         "ERR has its own gain, (2**g - 1) / 2**4, of the grades; "
                         "evaluate it in a call without gain=")
    table = tables.graded
    top = float(table.truth_grade.max(initial=0.0))
    if top > ERR_MAX_GRADE:
        raise _too_high(top, ERR_MAX_GRADE, "metric 'err'")
    return err_values(table, None if tables.truncated else k), ~table.has_positive


register(Metric(
    name="err", aliases=("err",), per_list=err_at_k, batch=_err_batch, table="graded",
    empty_reason="no judged item with a positive grade", keywords=("min_grade", "empty")))
# rbp(p=0.8): no default, since the peers' differ
_PERSISTENCE = Parameter(
    "p", "(0, 1)", "persistence", example=0.8,
    note="trec_eval's default is 0.9, ir-measures' 0.8: the name says which")
register(Metric(
    name="rbp", aliases=("rbp",), per_list=rank_biased_precision, batch=_rbp_batch,
    cutoff="persistence", table="graded", empty_reason="no judged item with a positive grade",
    keywords=("gain", "min_grade", "empty"), parameters=(_PERSISTENCE,),
    # trec_eval's -m rbp is p = 0.9 (m_rbp.c); -m rbp.p=0.8 is rbp(p=0.8)
    trec_eval=(TrecMeasure("rbp", "rbp(p=0.9)"),)))
register(Metric(
    # per list: rank_biased_precision(..., residual=True), declared once (rbp)
    name="rbp_resid", aliases=("rbp_resid",), batch=_rbp_resid_batch,
    cutoff="persistence", table="trec", can_be_empty=False, keywords=("residual_tail",),
    parameters=(_PERSISTENCE,),
    trec_eval=(TrecMeasure("rbp_resid", "rbp_resid(p=0.9)"),)))
