"""How complete the judgements of a list are: Judged@k.

Definition, for one user: the share of the list's top ``k`` items that the
truth judges (any grade, 0 included): ``|judged items among the first
min(k, n)| / min(k, n)`` for a list of ``n`` items, the whole list without a
cut-off. This is ir-measures 0.4.3's ``Judged@k``
(``ir_measures/providers/judged_provider.py``, ``JudgedEvaluator``: the
denominator is the cut-off, lowered to the list's length when the list is
shorter). A low value warns that the other metrics of the list rest on
unjudged items counted as non-relevant.

Edge cases: an empty list scores 0 (nothing in it is judged; ir-measures never
scores one, as a user in its run has at least one item); a user without any
judgement scores 0 (``evaluate`` reports only users with judgements). Ties:
ir-measures orders equal scores by document id ascending (``key=lambda x:
(-x[1], x[0])``), which is ``evaluate(..., ties="item_asc")``; evaluate's
default, trec_eval's order, is ``"item_desc"``. With ``judged_only=True``
every listed item is judged and the value is 1.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_k, check_recommended, check_relevant, show
from ._common import _condensed, _tied
from .registry import Metric, register


def judged_at_k(recommended, relevant, k=None, *, judged_only=False, truncate=None,
                candidates="all", scores=None, ties="input"):
    """Share of the top ``k`` items of the list that are judged (ir-measures Judged@k).

    ``judged@k = |{judged items among the first m}| / m`` with
    ``m = min(k, len(list))`` (the whole list when ``k`` is None); an item is
    judged when ``relevant`` has it, whatever its grade. An empty list scores
    0; a ``k`` beyond the list divides by the list's length; ties follow
    ``scores`` and ``ties``.

    Parameters
    ----------
    recommended : sequence of hashable
        Item ids in rank order, best first.
    relevant : collection of hashable or mapping of hashable to float
        The judged ids (with grades, which do not matter here).
    k : int or None, default=None
        Cut-off; ``None`` uses the whole list.
    judged_only : bool, default=False
        ``True`` removes the unjudged items first: the value is then 1 for a
        non-empty list.
    truncate : int or None, default=None
        Keep the first ``truncate`` items and count them all, whatever ``k``,
        which then only sets the denominator ``min(k, len(list))``.
    candidates : {"all", "recommended"}, default="all"
        Does not change the value (the listed items are all it reads).
    scores : sequence of float, optional
        Model scores parallel to ``recommended``; the list is sorted by them,
        stably.
    ties : {"input", "best", "worst", "average", "block"}, default="input"
        Order of tied scores: the list's order; ``"best"`` / ``"worst"``,
        the judged items of every tie group first / last, whatever their
        grades: the largest and smallest Judged@k over the orders of tied
        items; ``"average"``, the expectation over those orders (exact: each
        tied item is in the top ``k`` with probability ``m / n`` when ``k``
        cuts ``m`` of its group's ``n`` ranks); ``"block"``, every tied item
        at its group's last rank.

    Returns
    -------
    float
        A share in ``[0, 1]``.

    Raises
    ------
    TypeError, ValueError
        For a bad ``k``, list or judgements (as :func:`precision_at_k`).

    See Also
    --------
    precision_at_k

    Notes
    -----
    Judged@k is ``precision@k`` with every judged item counted relevant,
    except for its denominator ``min(k, n)``: ``precision@k`` with
    ``relevance_level=0`` and ``denominator="retrieved"``.

    References
    ----------
    .. [1] MacAvaney et al., ir-measures (ECIR 2022), ``Judged@k``; Sakai,
       "Alternatives to bpref", SIGIR 2007, on scoring lists with unjudged
       items.

    Examples
    --------
    >>> from metrics_lib import judged_at_k
    >>> judged_at_k(["a", "x", "b", "y"], {"a": 2, "b": 0}, k=3)
    0.6666666666666666
    >>> judged_at_k(["a", "x"], {"a": 2}, k=10)
    0.5
    >>> judged_at_k(["a", "x"], {"a": 2}, k=1, scores=[1, 1], ties="average")
    0.5
    """
    if ties in ("best", "worst") and scores is not None:
        # the bounds over tie orders: judged items first / last, whatever their
        # grades (grade 1 for every judged item, and the best / worst order)
        items, kind = check_recommended(recommended, with_kind=True)
        relevant = dict.fromkeys(
            check_relevant(relevant, recommended=items, recommended_kind=kind), 1.0)
    tied = _tied(judged_at_k, "judged", recommended, relevant, k, scores, ties,
                 judged_only=judged_only, truncate=truncate, candidates=candidates)
    if tied is not None:
        return tied
    items, kind = check_recommended(recommended, with_kind=True)
    grades = check_relevant(relevant, recommended=items, recommended_kind=kind)
    k = check_k(k)
    items, truncate, grades = _condensed(items, grades, judged_only, truncate, candidates)
    shown = items if k is None or truncate is not None else items[:k]
    size = len(shown) if k is None else min(k, len(shown))
    if size == 0:
        return 0.0
    return sum(item in grades for item in shown) / size


def _refuse_bounds(name, ties):
    """ties='best'/'worst' order tied items by grade, which leaves the judged
    items of grade 0 and the unjudged ones in no defined order."""
    if ties in ("best", "worst"):
        raise ValueError(f"{name} is not available with ties={show(ties)}: the best "
                         "and worst orders rank tied items by grade, not by whether "
                         "they are judged; use a fixed order (ties='item_desc', "
                         "'item_asc', 'numeric_desc', ...)")


def _judged_batch(tables, k, options):
    # ties='best' / 'worst' / 'average' / 'block': TieGroups.judged instead
    trec = tables.trec
    keep = slice(None) if k is None or tables.truncated else trec.pos <= k
    judged = np.bincount(trec.user[keep], minlength=trec.n_users)
    size = trec.list_len if k is None else np.minimum(trec.list_len, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(size > 0, judged / size, 0.0), None


register(Metric(
    name="judged", aliases=("judged",), per_list=judged_at_k, batch=_judged_batch,
    table="trec", can_be_empty=False))
