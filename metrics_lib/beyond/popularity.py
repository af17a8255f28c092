"""Popularity bias of the lists: average recommendation popularity (ARP) and
the share of long-tail items (APLT) of Abdollahpouri et al. (2019).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from ..ranking._docstrings import shared_parameters
from .._validation import (check_choice, check_k, check_real, check_recommended,
                           check_same_kind, show)
from ._long import as_result, check_ranks, check_unique_pairs, read_table, shared_codes
from .novelty_serendipity import POPULARITY_KINDS, _check_interactions

HEAD_RULES = ("ratings", "items")


# ------------------------------------------------------------------ maths
def _item_popularity(i_user, i_item, n_items, popularity):
    """phi(i): interactions with i, or distinct users who interacted with i."""
    if popularity == "users":
        # one int64 key per (user, item) pair; np.unique(axis=1) is slow
        i_item = np.unique(i_user.astype(np.int64) * n_items + i_item) % n_items
    return np.bincount(i_item, minlength=n_items).astype(float)


def _head(counts: np.ndarray, head: str, head_share: float) -> np.ndarray:
    """Boolean mask of the short head; every other item is long tail.

    ``"ratings"``: the most popular items taken one by one until together
    they hold ``head_share`` of all interactions (the item that reaches the
    share is in the head). ``"items"``: the ``ceil(head_share * n)`` most
    popular of the ``n`` items with any interaction. Either way an item tied
    in popularity with the last head item joins the head, so the split does
    not depend on the order of the ids; items never interacted with are tail.
    """
    order = np.argsort(-counts, kind="stable")
    ranked = counts[order]
    if head == "ratings":
        before = np.cumsum(ranked) - ranked
        n_head = int(np.count_nonzero(before < round(head_share * ranked.sum(), 9)))
    else:
        # rounded first: 0.28 * 25 is 7.000000000000001 in floats, whose ceil is 8
        n_head = math.ceil(round(head_share * np.count_nonzero(counts), 9))
    threshold = ranked[max(n_head, 1) - 1]
    return (counts >= threshold) & (counts > 0)


def _popularity_core(inter, recs, n_users, n_items, popularity, head, head_share):
    """Per-user (ARP, APLT) from codes; ``recs`` = (user, item) after the cut-off."""
    counts = _item_popularity(*inter, n_items, popularity)
    tail = ~_head(counts, head, head_share)
    r_user, r_item = recs
    length = np.bincount(r_user, minlength=n_users).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        arp = np.bincount(r_user, weights=counts[r_item], minlength=n_users) / length
        aplt = np.bincount(r_user, weights=tail[r_item], minlength=n_users) / length
    return arp, aplt


# -------------------------------------------------------------- checking
def _check_options(popularity, head, head_share, k):
    check_choice("popularity", popularity, POPULARITY_KINDS)
    check_choice("head", head, HEAD_RULES)
    share = check_real("head_share", head_share, low=0.0, high=1.0, low_open=True)
    return share, check_k(k)


def _one_list(recommended, interactions, k, popularity, head, head_share):
    recommended = check_recommended(recommended, name="recommended")
    if k is not None:
        recommended = recommended[:k]
    if not recommended:
        raise ValueError("recommended is empty; the mean popularity of no item is "
                         "undefined")
    pairs = _check_interactions(interactions)
    check_same_kind("recommended", recommended, "interactions (its items)",
                    [i for _, i in pairs])
    ids = [i for _, i in pairs] + list(recommended)
    codes, _ = pd.factorize(pd.Series(ids, dtype=object))
    users, _ = pd.factorize(pd.Series([u for u, _ in pairs], dtype=object))
    n = len(pairs)
    arp, aplt = _popularity_core((users, codes[:n]),
                                 (np.zeros(len(recommended), dtype=np.int64), codes[n:]),
                                 1, int(codes.max()) + 1, popularity, head, head_share)
    return float(arp[0]), float(aplt[0])


@shared_parameters
def average_recommendation_popularity(recommended, interactions, *,
                                      popularity="interactions", k=None):
    """Average recommendation popularity (ARP) of one list: the mean training
    popularity of its items.

    .. math::
       \\text{ARP}(L) = \\frac{1}{|L|} \\sum_{i \\in L} \\phi(i),

    :math:`\\phi(i)` being the number of training interactions with
    :math:`i` (0 for an item never seen). Abdollahpouri et al. average this
    over the test users; :func:`popularity_bias_batch` gives every user's.

    Parameters
    ----------
    recommended : sequence
        One user's ranked list of item ids.
    {{training_interactions}}
    {{item_popularity list_cutoff}}

    Returns
    -------
    float
        ARP (>= 0); higher means more popular items.

    Raises
    ------
    ValueError
        If the list (after ``k``) or ``interactions`` is empty.

    See Also
    --------
    long_tail_share, popularity_bias_batch, novelty

    Notes
    -----
    An item never seen in training has :math:`\\phi = 0`. RecBole's
    ``AveragePopularity`` (``recbole/evaluator/metrics.py``) counts
    interactions (its ``data.count_items``), as the default here; Elliot's
    ARP (``elliot/evaluation/metrics/bias/arp/arp.py``) counts distinct users
    (``popularity="users"``: its ``Popularity.get_pop_items`` sums the
    training matrix cast to bool). Positions and ties in the recommender's scores
    play no part beyond the cut-off ``k``.

    References
    ----------
    .. [1] Himan Abdollahpouri, Robin Burke and Bamshad Mobasher, "Managing
       popularity bias in recommender systems with personalized re-ranking",
       FLAIRS 2019.

    Examples
    --------
    >>> from metrics_lib import average_recommendation_popularity
    >>> train = [(1, "a"), (2, "a"), (3, "a"), (1, "b")]
    >>> average_recommendation_popularity(["a", "b"], train)   # (3 + 1) / 2
    2.0
    """
    _check_options(popularity, "ratings", 1.0, k)
    return _one_list(recommended, interactions, check_k(k), popularity, "ratings", 1.0)[0]


@shared_parameters
def long_tail_share(recommended, interactions, *, head="ratings", head_share=0.8,
                    popularity="interactions", k=None):
    """Share of long-tail items in one list (APLT, Abdollahpouri et al. 2019).

    .. math::
       \\text{APLT}(L) = \\frac{|\\{i \\in L : i \\in \\Gamma\\}|}{|L|},

    :math:`\\Gamma` being the long tail: every item outside the short head.

    Parameters
    ----------
    recommended : sequence
        One user's ranked list of item ids.
    {{training_interactions}}
    head : {"ratings", "items"}, default="ratings"
        How the short head is cut. ``"ratings"``: the most popular items,
        taken in order of popularity until they hold ``head_share`` of all
        interactions (the item reaching the share included): the "short head
        accounts for 80% of the ratings" split, as Elliot's
        ``Popularity.get_short_head`` codes it. ``"items"``: the
        ``ceil(head_share * n)`` most popular of the ``n`` items with an
        interaction (``head_share=0.2``: the top 20% of items).
    head_share : float, default=0.8
        The share in (0, 1] for ``head``.
    {{item_popularity list_cutoff}}

    Returns
    -------
    float
        APLT in [0, 1]; higher means more long-tail items.

    Raises
    ------
    ValueError
        If the list (after ``k``) or ``interactions`` is empty, or
        ``head_share`` is outside (0, 1].

    See Also
    --------
    average_recommendation_popularity, popularity_bias_batch

    Notes
    -----
    Ties: an item as popular as the last head item is in the head, so the
    split never depends on the order of the ids (Elliot's loop stops at the
    first item that reaches the share, whichever of the tied items that is;
    RecBole's ``TailPercentage`` takes the ``int(tail_ratio * n)`` least
    popular items as the tail, ties broken by item id, in
    ``recbole/evaluator/metrics.py``). An item absent from ``interactions``
    has popularity 0 and is in the tail; Elliot's APLT
    (``elliot/evaluation/metrics/bias/aplt/aplt.py``) takes its long tail
    from ``Popularity.get_long_tail``, which lists only items seen in
    training, so such an item counts as not long-tail there. Without ties
    and unseen items, ``head="ratings"`` with ``popularity="users"`` is
    Elliot's split and ``head="items"`` with ``head_share = 1 - tail_ratio``
    is RecBole's (a test checks both against transcriptions of their code).

    References
    ----------
    .. [1] Himan Abdollahpouri, Robin Burke and Bamshad Mobasher, "Managing
       popularity bias in recommender systems with personalized re-ranking",
       FLAIRS 2019.

    Examples
    --------
    >>> from metrics_lib import long_tail_share
    >>> train = [(1, "a"), (2, "a"), (3, "a"), (1, "b"), (2, "c")]
    >>> long_tail_share(["a", "b", "d"], train)   # head a, b (4 of 5) and c (tied with b)
    0.3333333333333333
    """
    share, k = _check_options(popularity, head, head_share, k)
    return _one_list(recommended, interactions, k, popularity, head, share)[1]


def popularity_bias_batch(recommendations, interactions, *, head="ratings",
                          head_share=0.8, popularity="interactions", k=None,
                          user_col="user", item_col="item", rank_col=None):
    """ARP and APLT of every user of a long table, vectorised.

    Parameters
    ----------
    recommendations : pandas or Polars DataFrame, Polars LazyFrame or pyarrow Table
        One row per recommended (user, item).
    interactions : table of the same kinds
        One row per training (user, item) interaction.
    head, head_share, popularity, k
        As in :func:`long_tail_share`.
    user_col, item_col, rank_col : str
        Column names; ``rank_col`` (positions, 1 = top) is needed with ``k``.

    Returns
    -------
    DataFrame
        One row per user of ``recommendations`` with the columns ``arp`` and
        ``aplt``: pandas indexed by user, or a table of the input's library.

    Raises
    ------
    ValueError
        For a (user, item) pair recommended twice, a user with nothing at
        rank <= ``k``, or a missing column.

    See Also
    --------
    average_recommendation_popularity, long_tail_share

    Notes
    -----
    Popularity and the head/tail split are computed once from all of
    ``interactions``, then every user's values with ``numpy.bincount`` over
    item codes shared by both tables: no loop over users. A user's value is
    that of :func:`average_recommendation_popularity` and
    :func:`long_tail_share` on their list, ordered by ``rank_col``.

    References
    ----------
    .. [1] Himan Abdollahpouri, Robin Burke and Bamshad Mobasher, "Managing
       popularity bias in recommender systems with personalized re-ranking",
       FLAIRS 2019.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics_lib import popularity_bias_batch
    >>> recs = pd.DataFrame({"user": [7, 7, 8], "item": ["a", "d", "b"]})
    >>> train = pd.DataFrame({"user": [1, 2, 3, 1, 2], "item": ["a", "a", "a", "b", "c"]})
    >>> popularity_bias_batch(recs, train)
          arp  aplt
    user
    7     1.5   0.5
    8     1.0   0.0
    """
    share, k = _check_options(popularity, head, head_share, k)
    if k is not None and rank_col is None:
        raise ValueError("rank_col is needed with k=; name the column of positions")
    rec = read_table("recommendations", recommendations,
                     ids={"user_col": user_col, "item_col": item_col},
                     values={"rank_col": rank_col})
    inter = read_table("interactions", interactions,
                       ids={"user_col": user_col, "item_col": item_col})
    r_user, user_ids = shared_codes(("recommendations", rec["user_col"]))
    i_user, _ = shared_codes(("interactions", inter["user_col"]))
    r_item, i_item, item_ids = shared_codes(("recommendations", rec["item_col"]),
                                            ("interactions", inter["item_col"]))
    check_unique_pairs("recommendations", r_user, r_item, "a (user, item) pair")
    if k is not None:
        keep = check_ranks("recommendations", rec["rank_col"]) <= k
        missing = np.setdiff1d(np.unique(r_user), np.unique(r_user[keep]))
        if len(missing):
            raise ValueError(f"user {show(user_ids[missing[0]])} has no recommendation "
                             f"at rank <= {k}")
        r_user, r_item = r_user[keep], r_item[keep]
    arp, aplt = _popularity_core((i_user, i_item), (r_user, r_item), len(user_ids),
                                 len(item_ids), popularity, head, share)
    return as_result(recommendations, user_ids, {"arp": arp, "aplt": aplt}, user_col)
