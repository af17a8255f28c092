"""Steck's miscalibration: how far the genre mix of a list is from the genre
mix of the user's history (``miscalibration``, ``miscalibration_batch``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from .._validation import (check_choice, check_k, check_real, check_recommended,
                           check_same_kind, id_list, show)
from ._long import as_result, check_ranks, check_unique_pairs, read_table, shared_codes

RANK_WEIGHTS = ("equal", "reciprocal", "log")


# ------------------------------------------------------------------ maths
def _rank_weight(ranks: np.ndarray, rank_weights: str) -> np.ndarray:
    """Steck's rank weight w_r(i) of q(g|u), for 1-based ranks."""
    if rank_weights == "equal":
        return np.ones(len(ranks))
    if rank_weights == "reciprocal":  # as in MRR
        return 1.0 / ranks
    return 1.0 / np.log2(ranks + 1.0)  # as in DCG


# p(g|i) as a dense items x genres array up to this many cells (32 MB)
_DENSE_SHARES = 1 << 22


def _share_table(matrix):
    """p(g|i) for :func:`_genre_mix`: dense when small, else the sparse matrix.

    Both give the same sums: scipy's sparse times dense product adds each
    user's terms in the same order as its sparse times sparse product (the
    user's items in increasing code), and a zero share adds +0.0, which
    changes no sum; the dense one is several times faster.
    """
    if matrix.shape[0] * matrix.shape[1] <= _DENSE_SHARES:
        return matrix.toarray()
    return matrix.tocsr()


def _genre_mix(users, items, weights, shares, n_users):
    """Rows of sum_i w_i p(g|i) / sum_i w_i (Steck's p(g|u) and q(g|u)) as a dense
    users x genres array; ``shares`` is the items x genres p(g|i), sparse or dense
    (:func:`_share_table`)."""
    from scipy import sparse

    n_items = shares.shape[0]
    weighted = sparse.csr_matrix((weights, (users, items)), shape=(n_users, n_items))
    mix = weighted @ shares
    mix = mix if isinstance(mix, np.ndarray) else mix.toarray()
    totals = np.bincount(users, weights=weights, minlength=n_users)
    with np.errstate(invalid="ignore", divide="ignore"):
        return mix / totals[:, None]


def _kl(p: np.ndarray, q: np.ndarray, alpha: float) -> np.ndarray:
    """KL(p || (1 - alpha) q + alpha p) per row (Steck's C_KL), natural log;
    a genre with p = 0 adds 0 (the limit of p log p)."""
    smoothed = (1.0 - alpha) * q + alpha * p
    positive = p > 0
    # on whole arrays, not on copies of the positive entries: where p == 0 the
    # term stays log(1) = 0
    ratio = np.divide(p, smoothed, out=np.ones_like(p), where=positive)
    terms = np.log(ratio, out=ratio)
    np.multiply(terms, p, out=terms, where=positive)
    # rounding can leave -1e-17 where p == q: KL is >= 0 by Gibbs' inequality
    return np.maximum(terms.sum(axis=1), 0.0)


def _miscalibration(hist, recs, shares, n_users, alpha, rank_weights, k):
    """The core shared by both entry points; arrays of codes, no loop over users.

    ``hist`` = (user, item, weight) codes, ``recs`` = (user, item, rank).
    """
    h_user, h_item, h_weight = hist
    r_user, r_item, r_rank = recs
    if k is not None:
        keep = r_rank <= k
        r_user, r_item, r_rank = r_user[keep], r_item[keep], r_rank[keep]
    p = _genre_mix(h_user, h_item, h_weight, shares, n_users)
    q = _genre_mix(r_user, r_item, _rank_weight(r_rank, rank_weights), shares, n_users)
    return _kl(p, q, alpha)


# -------------------------------------------------------------- checking
def _check_options(alpha, rank_weights, k):
    alpha = check_real("alpha", alpha, low=0.0, high=1.0, low_open=True)
    check_choice("rank_weights", rank_weights, RANK_WEIGHTS)
    return alpha, check_k(k)


def _share_matrix(item_codes, genre_codes, share, n_items):
    """p(g|i): each item's genre shares divided by their sum (rows sum to 1)."""
    from scipy import sparse

    n_genres = int(genre_codes.max()) + 1
    matrix = sparse.csr_matrix((share, (item_codes, genre_codes)),
                               shape=(n_items, n_genres))
    totals = np.asarray(matrix.sum(axis=1)).ravel()
    return sparse.diags(np.divide(1.0, totals, out=np.zeros(n_items),
                                  where=totals > 0)) @ matrix, totals > 0


def _refuse_genreless(has_genre, where, codes, ids):
    missing = ~has_genre[codes]
    if missing.any():
        at = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{where}: item {show(ids[codes[at]])} has no genre in "
                         "item_genres; every listed and history item needs one, "
                         "p(g|i) is undefined otherwise")


def _refuse_without_history(rec_users, hist_users, user_ids):
    without = np.setdiff1d(np.unique(rec_users), np.unique(hist_users))
    if len(without):
        raise ValueError(f"user {show(user_ids[without[0]])} has recommendations but "
                         "no history; the genre mix p(g|u) of an empty history is "
                         "undefined")


# --------------------------------------------------------------- per list
def _history_pairs(history):
    if isinstance(history, Mapping):
        items = list(history)
        weights = [check_real(f"history weight of {show(i)}", w, low=0.0, low_open=True)
                   for i, w in history.items()]
        return items, weights
    if isinstance(history, (str, bytes)) or not isinstance(history, Iterable):
        raise TypeError("history must be a sequence of item ids or a mapping "
                        f"item -> weight; got {type(history).__name__}")
    items = id_list(history)  # numpy, pandas and pyarrow values as Python ids
    return items, [1.0] * len(items)


def _genre_rows(item_genres, needed):
    """(item, genre, share) rows for the items in ``needed``."""
    if not isinstance(item_genres, Mapping):
        raise TypeError("item_genres must be a mapping item -> genres (a collection, "
                        "or a mapping genre -> share); got "
                        f"{type(item_genres).__name__}")
    rows = []
    for item in dict.fromkeys(needed):
        genres = item_genres.get(item)
        if genres is None:
            continue  # reported as "no genre" by the caller
        if isinstance(genres, Mapping):
            pairs = [(g, check_real(f"item_genres[{show(item)}][{show(g)}]", s, low=0.0))
                     for g, s in genres.items()]
        elif isinstance(genres, (str, bytes)) or not isinstance(genres, Iterable):
            raise TypeError(f"item_genres[{show(item)}] must be a collection of genres "
                            f"or a mapping genre -> share; got {show(genres)}")
        else:
            pairs = [(g, 1.0) for g in dict.fromkeys(genres)]
        rows.extend((item, g, s) for g, s in pairs)
    return rows


def miscalibration(recommended, history, item_genres, *, alpha=0.01,
                   rank_weights="equal", k=None):
    """Steck's miscalibration :math:`C_{KL}`: KL divergence from the genre mix
    of a user's history to the (smoothed) genre mix of the list.

    .. math::
       C_{KL} = \\sum_g p(g|u) \\log \\frac{p(g|u)}{\\tilde q(g|u)}, \\qquad
       \\tilde q = (1-\\alpha)\\, q + \\alpha\\, p,

    with (Steck 2018, his definitions of :math:`p(g|u)`, :math:`q(g|u)` and
    :math:`C_{KL}`)

    .. math::
       p(g|u) = \\frac{\\sum_{i \\in H} w_{u,i}\\, p(g|i)}{\\sum_{i \\in H} w_{u,i}},
       \\qquad
       q(g|u) = \\frac{\\sum_{i \\in L} w_{r(i)}\\, p(g|i)}{\\sum_{i \\in L} w_{r(i)}},

    where :math:`H` is the history, :math:`L` the list, :math:`w_{u,i}` a
    history weight (1 unless given), :math:`w_{r(i)}` a weight of the rank
    :math:`r(i)` (``rank_weights``) and :math:`p(g|i)` the share of genre
    :math:`g` in item :math:`i` (equal shares of its genres unless given).
    Natural logarithm (nats).

    Parameters
    ----------
    recommended : sequence
        One user's ranked list of item ids (best first).
    history : sequence or mapping
        The user's past items; a mapping item -> weight gives :math:`w_{u,i}`
        (Steck weights plays by recency, for example). A repeated id counts again.
    item_genres : mapping
        item -> its genres (a collection: equal shares), or item -> mapping
        genre -> share (divided by the item's total, so any scale works).
    alpha : float, default=0.01
        Smoothing weight in (0, 1]; Steck's value. It keeps :math:`\\tilde q`
        positive wherever :math:`p` is, so a genre of the history that is
        absent from the list gives a finite, large term.
    rank_weights : {"equal", "reciprocal", "log"}, default="equal"
        :math:`w_{r(i)}`: 1, :math:`1/r` (as in MRR) or
        :math:`1/\\log_2(r+1)` (as in DCG); Steck names these choices.
    k : int or None, default=None
        Cut-off applied to the list.

    Returns
    -------
    float
        :math:`C_{KL}` in :math:`[0, \\log(1/\\alpha)]`; 0 when the two genre
        mixes are equal.

    Raises
    ------
    ValueError
        For an empty list or history (their genre mix is undefined), an item
        without a genre, an id listed twice in ``recommended``, or ``alpha``
        outside (0, 1].

    See Also
    --------
    miscalibration_batch : the same for a table of many users.

    Notes
    -----
    A genre of the list absent from the history adds nothing (:math:`p=0`);
    one of the history absent from the list adds
    :math:`p \\log(1/\\alpha)`. The upper bound follows from
    :math:`\\tilde q \\ge \\alpha p`, and :math:`C_{KL}` decreases as
    ``alpha`` grows, reaching 0 at 1. Ties in the recommender's scores do not
    matter here unless ``rank_weights`` is not ``"equal"``; the positions are
    those of ``recommended``.

    LibRec's ``CalibrationEvaluator``
    (that-recsys-lab/librec, ``core/src/main/java/net/librec/eval/ranking/
    CalibrationEvaluator.java``) differs in four ways: its log is base 2;
    an item counts 1 for each of its genres, divided by the number of
    items, so a multi-genre item's mix does not sum to 1; its :math:`p` is
    the mix of the recommended list and its :math:`q` that of the user's
    test items (the other way round from Steck, whose :math:`p` is the
    history); and it takes the list as a set (no rank weights).

    References
    ----------
    .. [1] Harald Steck, "Calibrated recommendations", RecSys 2018.

    Examples
    --------
    >>> from metrics_lib import miscalibration
    >>> genres = {"a": ["drama"], "b": ["comedy"], "c": ["drama", "comedy"]}
    >>> miscalibration(["a", "b"], ["c"], genres)      # both mixes half and half
    0.0
    >>> round(miscalibration(["a"], ["a", "b"], genres), 4)   # comedy missing
    1.9585
    """
    alpha, k = _check_options(alpha, rank_weights, k)
    recommended = check_recommended(recommended, name="recommended")
    if k is not None:
        recommended = recommended[:k]
    if not recommended:
        raise ValueError("recommended is empty; the genre mix q(g|u) of an empty list "
                         "is undefined")
    h_items, h_weights = _history_pairs(history)
    if not h_items:
        raise ValueError("history is empty; the genre mix p(g|u) of an empty history "
                         "is undefined")
    check_same_kind("recommended", recommended, "history", h_items)
    rows = _genre_rows(item_genres, list(recommended) + h_items)
    g_items = [r[0] for r in rows]
    genre_codes, _ = pd.factorize(pd.Series([r[1] for r in rows], dtype=object))
    all_items = list(recommended) + h_items + g_items
    codes, ids = pd.factorize(pd.Series(all_items, dtype=object))
    n_rec, n_hist = len(recommended), len(h_items)
    rec_codes, hist_codes = codes[:n_rec], codes[n_rec:n_rec + n_hist]
    if not rows:
        raise ValueError(f"item {show(recommended[0])} has no genre in item_genres")
    shares, has_genre = _share_matrix(codes[n_rec + n_hist:], genre_codes,
                                      np.array([r[2] for r in rows]), len(ids))
    _refuse_genreless(has_genre, "recommended", rec_codes, ids)
    _refuse_genreless(has_genre, "history", hist_codes, ids)
    hist = (np.zeros(n_hist, dtype=np.int64), hist_codes, np.array(h_weights, float))
    recs = (np.zeros(n_rec, dtype=np.int64), rec_codes, np.arange(1.0, n_rec + 1))
    return float(_miscalibration(hist, recs, shares, 1, alpha, rank_weights, None)[0])


# ------------------------------------------------------------------ batch
def miscalibration_batch(recommendations, history, item_genres, *, alpha=0.01,
                         rank_weights="equal", k=None, user_col="user", item_col="item",
                         rank_col=None, genre_col="genre", weight_col=None,
                         share_col=None):
    """:func:`miscalibration` for every user of a long table, vectorised.

    Parameters
    ----------
    recommendations : pandas or Polars DataFrame, Polars LazyFrame or pyarrow Table
        One row per recommended (user, item); ``rank_col`` gives the
        position (1 = top) when ``k`` or ``rank_weights`` needs it.
    history : table of the same kinds
        One row per (user, item) of the history (a repeated row counts
        again); ``weight_col`` gives :math:`w_{u,i}` (default 1).
    item_genres : table of the same kinds
        One row per (item, genre); ``share_col`` gives the share (default:
        equal shares of the item's genres).
    alpha, rank_weights, k
        As in :func:`miscalibration`.
    user_col, item_col, rank_col, genre_col, weight_col, share_col : str
        Column names; ``rank_col=None`` takes every row of a user as equal.

    Returns
    -------
    DataFrame
        One row per user of ``recommendations`` with the column
        ``miscalibration``: a pandas DataFrame indexed by user, or a table of
        the input's library with the users as first column.

    Raises
    ------
    ValueError
        If a user of ``recommendations`` has no history, an item has no
        genre, a (user, item) pair is recommended twice, or a column is
        missing or holds bad values.

    See Also
    --------
    miscalibration

    Notes
    -----
    The genre mixes of all users are two sparse products, (users x items
    weights) times (items x genres shares), so there is no loop over
    users; each user's value equals :func:`miscalibration` on their list
    (ordered by ``rank_col``) and their history with repeated rows summed
    into weights. Users of ``history`` without recommendations are left out.

    References
    ----------
    .. [1] Harald Steck, "Calibrated recommendations", RecSys 2018.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics_lib import miscalibration_batch
    >>> recs = pd.DataFrame({"user": [1, 1, 2], "item": ["a", "b", "a"]})
    >>> hist = pd.DataFrame({"user": [1, 2, 2], "item": ["c", "a", "b"]})
    >>> genres = pd.DataFrame({"item": ["a", "b", "c", "c"],
    ...                        "genre": ["drama", "comedy", "drama", "comedy"]})
    >>> miscalibration_batch(recs, hist, genres).round(4)
          miscalibration
    user
    1             0.0000
    2             1.9585
    """
    alpha, k = _check_options(alpha, rank_weights, k)
    if rank_col is None and (k is not None or rank_weights != "equal"):
        raise ValueError("rank_col is needed with k= or rank_weights other than "
                         "'equal'; name the column of positions")
    rec = read_table("recommendations", recommendations,
                     ids={"user_col": user_col, "item_col": item_col},
                     values={"rank_col": rank_col})
    hist = read_table("history", history, ids={"user_col": user_col, "item_col": item_col},
                      values={"weight_col": weight_col})
    gen = read_table("item_genres", item_genres,
                     ids={"item_col": item_col, "genre_col": genre_col},
                     values={"share_col": share_col})
    r_user, h_user, user_ids = shared_codes(("recommendations", rec["user_col"]),
                                            ("history", hist["user_col"]))
    r_item, h_item, g_item, item_ids = shared_codes(
        ("recommendations", rec["item_col"]), ("history", hist["item_col"]),
        ("item_genres", gen["item_col"]))
    check_unique_pairs("recommendations", r_user, r_item, "a (user, item) pair")
    check_unique_pairs("item_genres", g_item, gen["genre_col"][1], "an (item, genre) pair")
    h_weight = hist.get("weight_col", np.ones(len(h_user)))
    if (h_weight <= 0).any():
        raise ValueError(f"history column {show(weight_col)} must be > 0")
    share = gen.get("share_col", np.ones(len(g_item)))
    if (share < 0).any():
        raise ValueError(f"item_genres column {show(share_col)} must be >= 0")
    ranks = check_ranks("recommendations", rec["rank_col"]) if rank_col is not None \
        else np.ones(len(r_user))
    genre_codes, _ = pd.factorize(pd.Series(gen["genre_col"][1]))
    shares, has_genre = _share_matrix(g_item, genre_codes, share, len(item_ids))
    _refuse_genreless(has_genre, "recommendations", r_item, item_ids)
    _refuse_genreless(has_genre, "history", h_item, item_ids)
    _refuse_without_history(r_user, h_user, user_ids)
    n_users = len(user_ids)
    values = _miscalibration((h_user, h_item, h_weight), (r_user, r_item, ranks),
                             _share_table(shares), n_users, alpha, rank_weights, k)
    listed = np.unique(r_user if k is None else r_user[ranks <= k])
    if k is not None and len(listed) < len(np.unique(r_user)):
        lost = np.setdiff1d(np.unique(r_user), listed)[0]
        raise ValueError(f"user {show(user_ids[lost])} has no recommendation at rank "
                         f"<= {k}")
    return as_result(recommendations, user_ids[listed],
                     {"miscalibration": values[listed]}, user_col)
