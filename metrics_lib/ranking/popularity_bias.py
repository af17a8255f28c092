"""Popularity bias of a list: ARP and APLT as ``evaluate`` metrics.

For one user's list ``L`` cut at ``k`` (its first ``m = min(k, |L|)`` items,
the whole list without a cut-off) and the popularity ``phi(i)`` of each item
(``evaluate``'s ``item_popularity=``; 0 for an item absent from it)::

    arp@k  = (1 / m) * sum over the first m items of phi(i)
    aplt@k = (1 / m) * |{i among the first m items : i is in the long tail}|

Abdollahpouri, Burke and Mobasher (FLAIRS 2019) define both (average
recommendation popularity and average percentage of long-tail items). The
long tail is every item outside the short head: the most popular items of
``item_popularity``, taken in decreasing popularity until together they hold
``head_share`` of the total (the item reaching the share included; 0.8 by
default, the "80% of the ratings" split), an item as popular as the last
head item joining the head, so that the split does not depend on the order
of the ids; an item of popularity 0 is always in the tail. Write the share in
the name: ``aplt(head_share=0.5)@10``. The word parameter ``head`` chooses
the rule that cuts the head, as :func:`metrics_lib.long_tail_share`'s
``head=`` does: ``ratings`` (the default, described above) or ``items``, the
``ceil(head_share * n)`` most popular of the ``n`` items of positive
popularity (``aplt(head=items, head_share=0.2)@10``: the top 20% of items
are the head), an item as popular as the last of them joining the head.

These are :func:`metrics_lib.average_recommendation_popularity` and
:func:`metrics_lib.long_tail_share` (with the same ``head``) of each user's list,
with the popularity given instead of counted from the interactions (the
same numbers when ``item_popularity`` is ``train.groupby("item").size()``
and ``popularity="interactions"``, or ``train.groupby("item")["user"].nunique()``
and ``popularity="users"``). Edge cases: the values do not depend on the
judgements, so no user is "empty"; a user without recommendations (kept by
``missing="zero"``) scores 0; the order inside a tie group matters only
where ``k`` cuts it, and follows ``ties`` (the bounds ``"best"`` /
``"worst"``, which order by grade, are refused, and so is
``judged_only=True``, which would drop the unjudged items).
"""

from __future__ import annotations

import numpy as np

from .._kernels import block_starts
from .._validation import show
from ..beyond.popularity import HEAD_RULES, _head
from .exposure import _leading_rows
from .judgements import _refuse_bounds
from .registry import Metric, Parameter, register


def _first_rows(tables, k, options, name):
    """(user, popularity) of every row among each user's first m, and m per user."""
    _refuse_bounds(f"metric {show(name)}", options["ties"])
    if options["judged_only"]:
        raise ValueError(f"metric {show(name)} reads every recommended item: "
                         "judged_only=True, which keeps the judged ones only, does not "
                         "apply; evaluate it in a call without judged_only")
    lengths, popularity = tables.rows
    cut = [c for c in (k, options["truncate"]) if c is not None]
    cut = min(cut) if cut else None
    shown = np.zeros(tables.binary.n_users)
    shown[:lengths.size] = lengths if cut is None else np.minimum(lengths, cut)
    if cut is None:
        return np.repeat(np.arange(lengths.size), lengths), popularity, shown
    owner, row, _ = _leading_rows(lengths, cut)
    return owner, popularity[row], shown



def _mean_per_user(owner, weights, shown):
    total = np.bincount(owner, weights=weights, minlength=shown.size)
    return np.divide(total, shown, out=np.zeros(shown.size), where=shown > 0)


def _arp_batch(tables, k, options):
    owner, popularity, shown = _first_rows(tables, k, options, "arp")
    return _mean_per_user(owner, popularity, shown), None


def _aplt_batch(tables, k, options):
    owner, popularity, shown = _first_rows(tables, k, options, "aplt")
    values = options["item_popularity"][2]
    rule, share = options["parameters"]["head"], options["parameters"]["head_share"]
    head = _head(values, rule, share) if values.size else np.zeros(0, dtype=bool)
    # the head is every item at least as popular as its least popular item
    least = values[head].min() if head.any() else np.inf
    tail = (popularity < least) | (popularity <= 0)
    return _mean_per_user(owner, tail.astype(np.float64), shown), None


register(Metric(
    name="arp", aliases=("arp",), batch=_arp_batch, can_be_empty=False,
    item_data="popularity"))
register(Metric(
    name="aplt", aliases=("aplt",), batch=_aplt_batch, can_be_empty=False,
    item_data="popularity",
    parameters=(Parameter("head_share", "(0, 1]", "share of the total popularity in the "
                          "short head", default=0.8),
                # head_share first: parse_metric's k stays the share as before
                Parameter("head", None, "short-head rule", default="ratings",
                          choices=HEAD_RULES))))
