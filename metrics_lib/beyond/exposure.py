"""Exposure of items: expected exposure of a stochastic ranker (Diaz et al.
2020) and the share of exposure each item group gets under a position-based
user model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from .._validation import (check_choice, check_k, check_open_unit, check_recommended,
                           check_relevant, check_same_kind, show)
from ._long import as_result, check_ranks, check_unique_pairs, read_table, shared_codes

POSITION_WEIGHTS = ("log", "geometric", "equal")


# ------------------------------------------------------------------ maths
def _target(t_user, t_grade, n_users, gamma):
    """Diaz et al.'s target exposure of each judged (user, item) row.

    Items are ranked by grade, a grade's m items in random order after the b
    items of higher grades, so each gets (gamma^b - gamma^(b+m)) / (m (1 -
    gamma)), the mean of gamma^j over the m positions j = b, ..., b+m-1.
    """
    groups = pd.DataFrame({"user": t_user, "grade": -t_grade})
    size = groups.groupby(["user", "grade"], sort=True).size()
    before = size.groupby(level=0).cumsum() - size  # sorted by -grade within user
    m, b = size.to_numpy(dtype=float), before.to_numpy(dtype=float)
    per_group = (gamma ** b - gamma ** (b + m)) / (m * (1.0 - gamma))
    lookup = pd.Series(per_group, index=size.index)
    return lookup.reindex(pd.MultiIndex.from_arrays([t_user, -t_grade])).to_numpy()


def _expected_exposure(runs, truth, n_users, n_items, gamma):
    """Per-user (loss, disparity, relevance) from codes.

    ``runs`` = (user, sample, item, rank); ``truth`` = (user, item, grade),
    the items that have a place in the ideal ranking.
    """
    r_user, r_sample, r_item, r_rank = runs
    t_user, t_item, t_grade = truth
    # distinct samples per user, one int64 key per (user, sample) (np.unique
    # with axis=1 is slow)
    width = int(r_sample.max()) + 1
    runs_of = np.unique(r_user.astype(np.int64) * width + r_sample) // width
    samples = np.bincount(runs_of, minlength=n_users).astype(float)
    key = r_user.astype(np.int64) * n_items + r_item
    pairs, pair_of_row = np.unique(key, return_inverse=True)
    exposure = np.bincount(pair_of_row, weights=gamma ** (r_rank - 1.0) / samples[r_user])
    pair_user = pairs // n_items
    target = _target(t_user, t_grade, n_users, gamma)
    t_key = t_user.astype(np.int64) * n_items + t_item
    order = np.argsort(t_key)
    at = np.searchsorted(t_key[order], pairs).clip(max=len(t_key) - 1)
    matched = t_key[order][at] == pairs
    target_of_pair = np.where(matched, target[order][at], 0.0)
    disparity = np.bincount(pair_user, weights=exposure ** 2, minlength=n_users)
    relevance = np.bincount(pair_user, weights=exposure * target_of_pair, minlength=n_users)
    ideal = np.bincount(t_user, weights=target ** 2, minlength=n_users)
    loss = disparity - 2.0 * relevance + ideal
    return np.maximum(loss, 0.0), disparity, relevance


def _position_weight(ranks, weights, patience):
    if weights == "log":  # the DCG discount (Singh and Joachims 2018)
        return 1.0 / np.log2(ranks + 1.0)
    if weights == "geometric":  # RBP's
        return patience ** (ranks - 1.0)
    return np.ones(len(ranks))


def _group_exposure(recs, groups, n_groups, weights, patience, relevance=None):
    """Per-group exposure, its share, the share of items and of relevance."""
    r_item, r_rank = recs
    exposure = np.bincount(groups[r_item], weights=_position_weight(r_rank, weights,
                                                                    patience),
                           minlength=n_groups)
    items = np.bincount(groups, minlength=n_groups).astype(float)
    columns = {"exposure": exposure, "exposure_share": exposure / exposure.sum(),
               "item_share": items / items.sum()}
    if relevance is not None:
        t_item, t_grade = relevance
        gain = np.bincount(groups[t_item], weights=t_grade, minlength=n_groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            columns["relevance_share"] = gain / gain.sum()
    return columns


# -------------------------------------------------------------- per user
def _check_runs(sampled_rankings):
    if isinstance(sampled_rankings, (str, bytes, Mapping)) or not isinstance(
            sampled_rankings, Iterable):
        raise TypeError("sampled_rankings must be a sequence of rankings (one per "
                        f"sample); got {type(sampled_rankings).__name__}")
    runs = [check_recommended(r, name=f"sampled_rankings[{s}]")
            for s, r in enumerate(sampled_rankings)]
    if not runs:
        raise ValueError("sampled_rankings is empty: there is no sample")
    return runs


def _placed(grades: np.ndarray, complete) -> np.ndarray:
    """Which judged rows have a place in the ideal ranking (expeval's -C)."""
    if not isinstance(complete, (bool, np.bool_)):
        raise TypeError(f"complete must be True or False; got {show(complete)}")
    return np.ones(len(grades), bool) if complete else grades > 0


def expected_exposure(sampled_rankings, relevant, *, patience=0.5, complete=False):
    """Expected exposure loss, disparity and relevance of one user's
    stochastic ranking (Diaz et al. 2020).

    An item at 1-based rank :math:`r` of a ranking gets exposure
    :math:`\\gamma^{r-1}` (the RBP browsing model: the user goes on to the
    next rank with probability :math:`\\gamma`). The expected exposure
    :math:`\\epsilon_i` is the mean over the sampled rankings (0 for a sample
    that does not list :math:`i`). The target :math:`\\epsilon^*_i` is the
    expected exposure under the ideal stochastic ranker that orders items by
    grade and shuffles items of equal grade: with :math:`m` items of
    :math:`i`'s grade and :math:`b` of higher grades,
    :math:`\\epsilon^*_i = (\\gamma^b - \\gamma^{b+m}) / (m(1-\\gamma))`.
    Then

    .. math::
       \\text{EE-L} = \\lVert\\epsilon - \\epsilon^*\\rVert_2^2
       = \\underbrace{\\lVert\\epsilon\\rVert_2^2}_{\\text{EE-D}}
       - 2\\,\\underbrace{\\epsilon^\\top\\epsilon^*}_{\\text{EE-R}}
       + \\lVert\\epsilon^*\\rVert_2^2 .

    Parameters
    ----------
    sampled_rankings : sequence of sequences
        The rankings sampled from the stochastic ranker for this user, one
        per sample (lengths may differ).
    relevant : collection or mapping
        The judged items: ids (grade 1) or id -> grade (>= 0).
    patience : float, default=0.5
        :math:`\\gamma` in (0, 1).
    complete : bool, default=False
        ``False``: only items of positive grade have a place in the ideal
        ranking; grade 0 and unjudged items have target 0 (expeval's
        default, for incomplete judgements). ``True``: every judged item,
        grade 0 included, is placed after the relevant ones (expeval's
        ``-C``, for a fully judged candidate set).

    Returns
    -------
    dict
        ``{"loss": EE-L, "disparity": EE-D, "relevance": EE-R}``; lower loss
        and disparity and higher relevance are better.

    Raises
    ------
    ValueError
        For no sample, an item twice in one sample, no item with a place in
        the ideal ranking (no positive grade unless ``complete``), or a
        negative grade.

    See Also
    --------
    expected_exposure_batch, group_exposure

    Notes
    -----
    The targets follow ``target`` in ``exposure.py`` of Diaz's ``expeval``
    (github.com/diazf/expeval), whose ``-U`` output (unnormalised) is these
    three quantities: ``disparity``, ``relevance`` and ``difference`` (the
    loss). expeval can also normalise them by bounds, which is not done
    here; it requires the ranks of a sample to be 1, 2, ..., n, while here
    a rank is a position and gaps are allowed. A deterministic ranker is
    one sample. EE-D lies in :math:`(0, 1/(1-\\gamma^2)]`.

    References
    ----------
    .. [1] Fernando Diaz, Bhaskar Mitra, Michael D. Ekstrand, Asia J. Biega
       and Ben Carterette, "Evaluating stochastically ranked retrieval"
       ("Evaluating stochastic rankings with expected exposure"), CIKM 2020.

    Examples
    --------
    >>> from metrics_lib import expected_exposure
    >>> # two relevant items swapped between two samples get equal exposure
    >>> ee = expected_exposure([["a", "b"], ["b", "a"]], {"a", "b"})
    >>> ee["loss"], ee["disparity"], ee["relevance"]
    (0.0, 1.125, 1.125)
    """
    gamma = check_open_unit("patience", patience)
    runs = _check_runs(sampled_rankings)
    grades = check_relevant(relevant, name="relevant")
    if grades and min(grades.values()) < 0:
        raise ValueError("relevant holds a negative grade; grades must be >= 0")
    placed = _placed(np.array(list(grades.values()), dtype=float), complete)
    grades = {i: g for (i, g), keep in zip(grades.items(), placed) if keep}
    if not grades:
        raise ValueError("relevant has no item with a place in the ideal ranking (no "
                         "positive grade, or nothing judged with complete=True); the "
                         "target exposure is undefined")
    check_same_kind("sampled_rankings", [i for run in runs for i in run], "relevant",
                    list(grades))
    items = [i for run in runs for i in run] + list(grades)
    codes, ids = pd.factorize(pd.Series(items, dtype=object))
    n_rows = len(items) - len(grades)
    sample = np.repeat(np.arange(len(runs)), [len(r) for r in runs])
    rank = np.concatenate([np.arange(1.0, len(r) + 1) for r in runs])
    zeros = np.zeros(n_rows, dtype=np.int64)
    loss, disparity, relevance = _expected_exposure(
        (zeros, sample, codes[:n_rows], rank),
        (np.zeros(len(grades), dtype=np.int64), codes[n_rows:],
         np.array(list(grades.values()), dtype=float)), 1, len(ids), gamma)
    return {"loss": float(loss[0]), "disparity": float(disparity[0]),
            "relevance": float(relevance[0])}


def group_exposure(recommended_lists, item_groups, *, relevant_lists=None,
                   weights="log", patience=0.5, k=None):
    """Each item group's share of exposure under a position-based user model,
    next to its share of the items and of the relevance.

    Rank :math:`r` of every list gets attention :math:`w(r)`
    (``weights``); group :math:`G` gets :math:`E_G = \\sum_u \\sum_{i \\in
    L_u \\cap G} w(r_u(i))` and the share :math:`E_G / \\sum_{G'} E_{G'}`.
    Equal treatment would give each group its share of the catalogue
    (``item_share``, the share of ``item_groups``' items in it) or, meritocratically, its
    share of the relevance (``relevance_share``: the grades of the
    ``relevant_lists`` summed over users and items of the group).

    Parameters
    ----------
    recommended_lists : sequence of sequences
        One ranked list of item ids per user.
    item_groups : mapping
        item -> group, for every catalogue item (one group per item).
    relevant_lists : sequence of collections or mappings, optional
        One judgement per user (ids, or id -> grade >= 0); adds
        ``relevance_share``.
    weights : {"log", "geometric", "equal"}, default="log"
        :math:`w(r)`: :math:`1/\\log_2(r+1)` (the DCG discount, as in Singh
        and Joachims' exposure), :math:`\\gamma^{r-1}` (RBP) or 1.
    patience : float, default=0.5
        :math:`\\gamma` for ``"geometric"``.
    k : int or None, default=None
        Cut-off applied to every list.

    Returns
    -------
    pandas.DataFrame
        Indexed by group: ``exposure`` (the sums :math:`E_G`, which add up to
        :math:`\\sum_u \\sum_{r=1}^{|L_u|} w(r)`), ``exposure_share``,
        ``item_share`` and, with ``relevant_lists``, ``relevance_share``
        (NaN when every grade is 0).

    Raises
    ------
    ValueError
        For an item without a group, an empty list, or no user.

    See Also
    --------
    group_exposure_batch, expected_exposure

    Notes
    -----
    Exposure here is deterministic (one list per user) and summed over
    users; for a stochastic ranker give one list per sample. Ties in the
    recommender's scores are whatever order the lists have. A group with no
    recommended item has exposure 0; a catalogue item never recommended
    still counts in ``item_share``.

    References
    ----------
    .. [1] Ashudeep Singh and Thorsten Joachims, "Fairness of exposure in
       rankings", KDD 2018.

    Examples
    --------
    >>> from metrics_lib import group_exposure
    >>> groups = {"a": "head", "b": "tail", "c": "tail"}
    >>> group_exposure([["a", "b"]], groups, weights="equal")
          exposure  exposure_share  item_share
    head       1.0             0.5    0.333333
    tail       1.0             0.5    0.666667
    """
    from ._lists import _iter_lists

    check_choice("weights", weights, POSITION_WEIGHTS)
    gamma, k = check_open_unit("patience", patience), check_k(k)
    if not isinstance(item_groups, Mapping) or not item_groups:
        raise TypeError("item_groups must be a non-empty mapping item -> group")
    lists = [items for _, items in _iter_lists(recommended_lists, k)]
    catalogue = list(item_groups)
    check_same_kind("recommended_lists", [i for items in lists for i in items],
                    "item_groups", catalogue)
    rec_items = [i for items in lists for i in items]
    judged = []
    if relevant_lists is not None:
        rels = list(relevant_lists)
        if len(rels) != len(lists):
            raise ValueError(f"relevant_lists has {len(rels)} entries for {len(lists)} "
                             "users")
        judged = [check_relevant(r, name=f"relevant_lists[{u}]").items()
                  for u, r in enumerate(rels)]
        judged = [pair for pairs in judged for pair in pairs]
    codes, _ = pd.factorize(pd.Series(catalogue + rec_items + [i for i, _ in judged],
                                      dtype=object))
    n_cat = len(catalogue)
    if codes[n_cat:].max(initial=-1) >= n_cat:
        at = int(np.argmax(codes[n_cat:] >= n_cat))
        raise ValueError(f"item {show((rec_items + [i for i, _ in judged])[at])} has no "
                         "group in item_groups")
    group_codes, group_ids = pd.factorize(pd.Series(list(item_groups.values()),
                                                    dtype=object))
    ranks = np.concatenate([np.arange(1.0, len(items) + 1) for items in lists])
    relevance = None
    if relevant_lists is not None:
        grade = np.array([g for _, g in judged], dtype=float)
        if (grade < 0).any():
            raise ValueError("relevant_lists holds a negative grade")
        relevance = (codes[n_cat + len(rec_items):], grade)
    columns = _group_exposure((codes[n_cat:n_cat + len(rec_items)], ranks), group_codes,
                              len(group_ids), weights, gamma, relevance)
    return pd.DataFrame(columns, index=pd.Index(group_ids, name=None))


# ------------------------------------------------------------------ batch
def expected_exposure_batch(rankings, truth, *, patience=0.5, complete=False,
                            user_col="user",
                            sample_col="sample", item_col="item", rank_col="rank",
                            relevance_col="relevance"):
    """:func:`expected_exposure` for every user of a long table, vectorised.

    Parameters
    ----------
    rankings : pandas or Polars DataFrame, Polars LazyFrame or pyarrow Table
        One row per (user, sample, item) with the item's rank (1 = top) in
        that sampled ranking.
    truth : table of the same kinds
        The judged (user, item) pairs and their grades (>= 0).
    patience, complete
        As in :func:`expected_exposure`.
    user_col, sample_col, item_col, rank_col, relevance_col : str
        Column names.

    Returns
    -------
    DataFrame
        One row per user of ``rankings``: ``ee_loss``, ``ee_disparity``,
        ``ee_relevance`` (pandas indexed by user, or the input's library).

    Raises
    ------
    ValueError
        If a user of ``rankings`` has no item with a place in the ideal
        ranking (no positive grade unless ``complete``), an item or a rank
        occurs twice in one sample, or a grade is negative.

    See Also
    --------
    expected_exposure

    Notes
    -----
    Exposures are summed per (user, item) with ``numpy.bincount`` and the
    targets computed per (user, grade) group, so there is no loop over
    users; each user's values equal :func:`expected_exposure` on their
    samples. Users of ``truth`` without rankings are left out. ``sample_col``
    may hold any ids; a user's number of samples is the number of distinct
    ones. With one deterministic list per user, ``evaluate``'s
    ``ee_loss@k``, ``ee_disparity@k`` and ``ee_relevance@k`` give the same
    values next to the other metrics (``metrics_lib.ranking.exposure``).

    References
    ----------
    .. [1] Fernando Diaz, Bhaskar Mitra, Michael D. Ekstrand, Asia J. Biega
       and Ben Carterette, "Evaluating stochastic rankings with expected
       exposure", CIKM 2020.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics_lib import expected_exposure_batch
    >>> runs = pd.DataFrame({"user": [1, 1, 1, 1], "sample": [0, 0, 1, 1],
    ...                      "item": ["a", "b", "b", "a"], "rank": [1, 2, 1, 2]})
    >>> truth = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "relevance": [1, 1]})
    >>> expected_exposure_batch(runs, truth)
          ee_loss  ee_disparity  ee_relevance
    user
    1         0.0         1.125         1.125
    """
    gamma = check_open_unit("patience", patience)
    run = read_table("rankings", rankings, ids={"user_col": user_col,
                                                 "sample_col": sample_col,
                                                 "item_col": item_col},
                     values={"rank_col": rank_col})
    judged = read_table("truth", truth, ids={"user_col": user_col, "item_col": item_col},
                        values={"relevance_col": relevance_col})
    r_user, t_user, user_ids = shared_codes(("rankings", run["user_col"]),
                                            ("truth", judged["user_col"]))
    r_item, t_item, item_ids = shared_codes(("rankings", run["item_col"]),
                                            ("truth", judged["item_col"]))
    r_sample, _ = shared_codes(("rankings", run["sample_col"]))
    rank = check_ranks("rankings", run["rank_col"])
    run_key = r_user.astype(np.int64) * (int(r_sample.max()) + 1) + r_sample
    check_unique_pairs("rankings", run_key, r_item, "an item within one sample")
    check_unique_pairs("rankings", run_key, rank, "a rank within one sample")
    check_unique_pairs("truth", t_user, t_item, "a (user, item) pair")
    grade = judged["relevance_col"]
    if (grade < 0).any():
        raise ValueError(f"truth column {show(relevance_col)} holds a negative grade")
    placed = _placed(grade, complete)
    t_user, t_item, grade = t_user[placed], t_item[placed], grade[placed]
    without = np.setdiff1d(np.unique(r_user), np.unique(t_user))
    if len(without):
        raise ValueError(f"user {show(user_ids[without[0]])} has rankings but no item "
                         "with a place in the ideal ranking in truth (no positive "
                         "grade, unless complete=True)")
    loss, disparity, relevance = _expected_exposure(
        (r_user, r_sample, r_item, rank), (t_user, t_item, grade), len(user_ids),
        len(item_ids), gamma)
    listed = np.unique(r_user)
    return as_result(rankings, user_ids[listed],
                     {"ee_loss": loss[listed], "ee_disparity": disparity[listed],
                      "ee_relevance": relevance[listed]}, user_col)


def group_exposure_batch(recommendations, item_groups, *, truth=None, weights="log",
                         patience=0.5, k=None, user_col="user", item_col="item",
                         rank_col="rank", group_col="group", relevance_col="relevance"):
    """:func:`group_exposure` from long tables, vectorised.

    Parameters
    ----------
    recommendations : pandas or Polars DataFrame, Polars LazyFrame or pyarrow Table
        One row per recommended (user, item) with its rank (1 = top).
    item_groups : table of the same kinds
        One row per catalogue item with its group.
    truth : table of the same kinds, optional
        Judged (user, item) pairs with grades (>= 0); adds ``relevance_share``.
    weights, patience, k
        As in :func:`group_exposure`.
    user_col, item_col, rank_col, group_col, relevance_col : str
        Column names.

    Returns
    -------
    pandas.DataFrame
        As :func:`group_exposure`, indexed by group.

    Raises
    ------
    ValueError
        For an item without a group or with two, or a missing column.

    See Also
    --------
    group_exposure

    Notes
    -----
    The same numbers as :func:`group_exposure` on the lists ordered by
    ``rank_col``, from ``numpy.bincount`` over group codes; a rank is a
    position, so gaps in ``rank_col`` change the weights. ``evaluate``'s
    ``group_exposure@k`` gives one group's share per user instead
    (``metrics_lib.ranking.exposure``); its mean is ``exposure_share`` only
    when every list has the same length.

    References
    ----------
    .. [1] Ashudeep Singh and Thorsten Joachims, "Fairness of exposure in
       rankings", KDD 2018.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics_lib import group_exposure_batch
    >>> recs = pd.DataFrame({"user": [1, 1], "item": ["a", "b"], "rank": [1, 2]})
    >>> groups = pd.DataFrame({"item": ["a", "b", "c"],
    ...                        "group": ["head", "tail", "tail"]})
    >>> group_exposure_batch(recs, groups, weights="equal")
          exposure  exposure_share  item_share
    head       1.0             0.5    0.333333
    tail       1.0             0.5    0.666667
    """
    check_choice("weights", weights, POSITION_WEIGHTS)
    gamma, k = check_open_unit("patience", patience), check_k(k)
    rec = read_table("recommendations", recommendations,
                     ids={"user_col": user_col, "item_col": item_col},
                     values={"rank_col": rank_col})
    cat = read_table("item_groups", item_groups, ids={"item_col": item_col,
                                                      "group_col": group_col})
    tables = [("item_groups", cat["item_col"]), ("recommendations", rec["item_col"])]
    if truth is not None:
        judged = read_table("truth", truth, ids={"user_col": user_col,
                                                 "item_col": item_col},
                            values={"relevance_col": relevance_col})
        tables.append(("truth", judged["item_col"]))
    codes = shared_codes(*tables)
    c_item, r_item, n_cat = codes[0], codes[1], len(cat["item_col"][1])
    if len(np.unique(c_item)) != n_cat:
        check_unique_pairs("item_groups", c_item, np.zeros(n_cat), "an item")
    n_items = len(codes[-1])
    for where, item in zip(["recommendations", "truth"], codes[1:-1]):
        if item.max(initial=-1) >= n_cat or len(np.setdiff1d(item, c_item)):
            at = int(np.flatnonzero(~np.isin(item, c_item))[0])
            raise ValueError(f"{where}: item {show(codes[-1][item[at]])} has no group in "
                             "item_groups")
    group_codes, group_ids = pd.factorize(pd.Series(cat["group_col"][1]))
    groups = np.zeros(n_items, dtype=np.int64)
    groups[c_item] = group_codes
    rank = check_ranks("recommendations", rec["rank_col"])
    keep = np.ones(len(rank), bool) if k is None else rank <= k
    relevance = None
    if truth is not None:
        if (judged["relevance_col"] < 0).any():
            raise ValueError("truth holds a negative grade")
        relevance = (codes[2], judged["relevance_col"])
    columns = _group_exposure((r_item[keep], rank[keep]), groups, len(group_ids),
                              weights, gamma, relevance)
    # item_share counts catalogue items: groups[] covers every coded item
    columns["item_share"] = np.bincount(group_codes, minlength=len(group_ids)) / n_cat
    return pd.DataFrame(columns, index=pd.Index(group_ids, name=None))
