"""How unknown (unpopular) the recommended items are (``novelty``) and how many
recommendations are relevant *and* unexpected (``serendipity``).
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np

from .._validation import (show, check_choice, check_k, check_recommended, check_relevance_level,
                           check_relevant, check_same_kind, id_list, ids_kind)
from ._lists import _check_outer, _check_per_user, _iter_lists
from ._similarity import _Similarity


POPULARITY_KINDS = ("interactions", "users")
AVERAGES = ("users", "recommendations")


def _check_interactions(interactions):
    """(user, item) pairs as a list of tuples."""
    if isinstance(interactions, np.ndarray):
        if interactions.ndim != 2 or interactions.shape[1] != 2:
            raise ValueError("interactions must have shape (n, 2): one (user, item) "
                             f"pair per row; got {interactions.shape}")
        pairs = [tuple(row) for row in interactions.tolist()]
    elif isinstance(interactions, (str, bytes, Mapping)) or not isinstance(
            interactions, Iterable):
        raise TypeError("interactions must be a sequence of (user, item) pairs; got "
                        f"{type(interactions).__name__}")
    else:
        pairs = []
        for row, pair in enumerate(interactions):
            if isinstance(pair, (str, bytes)) or not isinstance(pair, Iterable):
                raise TypeError(f"interactions[{row}] must be a (user, item) pair; "
                                f"got {show(pair)}")
            pair = tuple(id_list(pair))
            if len(pair) != 2:
                raise ValueError(f"interactions[{row}] must be a (user, item) pair; "
                                 f"got {len(pair)} values")
            pairs.append(pair)
    if not pairs:
        raise ValueError("interactions is empty: popularity needs training data")
    return pairs


def novelty(recommended_lists, interactions, *, popularity="interactions", k=None,
            average="users", base=2, per_user=False):
    """Mean self-information :math:`-\\log_2 p(i)` of the recommended items.

    Parameters
    ----------
    recommended_lists : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    interactions : sequence of (user, item) pairs, or array of shape (n, 2)
        The training interactions that define popularity. Repeated pairs
        count again under ``popularity="interactions"``.
    popularity : {"interactions", "users"}, default="interactions"
        ``"interactions"``: :math:`p(i)` = interactions with :math:`i` /
        all interactions (Castells et al.'s item-choice model; Microsoft
        Recommenders ``novelty``). ``"users"``: :math:`p(i)` = distinct users
        who interacted with :math:`i` / distinct users (Zhou et al.;
        recmetrics ``novelty``, which takes the counts from the caller and
        divides them by the number of users).
    k : int or None, default=None
        Cut-off applied to every list.
    average : {"users", "recommendations"}, default="users"
        ``"users"``: mean over users of each list's mean (recmetrics).
        ``"recommendations"``: mean over all recommended (user, item) pairs,
        so longer lists weigh more (Recommenders). Equal for equal-length
        lists.
    base : float, default=2
        Logarithm base; 2 gives bits.
    per_user : bool, default=False
        Return each list's mean self-information instead of the average.

    Returns
    -------
    float or numpy.ndarray
        Novelty (>= 0; higher means less popular items).

    Raises
    ------
    ValueError
        If a recommended item never occurs in ``interactions`` (its
        self-information would be infinite).

    See Also
    --------
    serendipity

    Notes
    -----
    An item everybody has seen carries no information (0 bits); an item
    one interaction in a million carries about 20 bits. Microsoft
    Recommenders (``python_evaluation.novelty``) drops recommended items
    absent from the training data from the sum (an inner join) but still
    divides by the number of all recommendations, so each such item counts
    as 0 bits; this function raises instead.

    References
    ----------
    .. [1] Castells, Vargas and Wang, "Novelty and diversity metrics for
       recommender systems: choice, discovery and relevance", DDR workshop at
       ECIR 2011.
    .. [2] Zhou et al., "Solving the apparent diversity-accuracy dilemma of
       recommender systems", PNAS 107(10), 2010.

    Examples
    --------
    >>> from metrics_lib import novelty
    >>> train = [("u1", "a"), ("u2", "a"), ("u2", "b"), ("u3", "a")]
    >>> novelty([["b"]], train)                          # p(b) = 1/4
    2.0
    >>> round(novelty([["b"]], train, popularity="users"), 4)   # p(b) = 1/3
    1.585
    """
    k = check_k(k)
    check_choice("popularity", popularity, POPULARITY_KINDS)
    check_choice("average", average, AVERAGES)
    per_user = _check_per_user(per_user)
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real) \
            or not math.isfinite(base) or base <= 0 or base == 1:
        raise ValueError(f"base must be a positive number other than 1; got {show(base)}")
    pairs = _check_interactions(interactions)
    for row, (user, item) in enumerate(pairs):
        for name, value in (("user", user), ("item", item)):
            try:
                hash(value)
            except TypeError:
                raise TypeError(f"interactions[{row}] has an unhashable {name} "
                                f"{show(value)}") from None
    ids_kind("interactions (its users)", [user for user, _ in pairs])
    item_kind = ids_kind("interactions (its items)", [item for _, item in pairs])
    if popularity == "interactions":
        counts = Counter(item for _, item in pairs)
        total = len(pairs)
    else:
        distinct = set(pairs)
        counts = Counter(item for _, item in distinct)
        total = len({user for user, _ in distinct})
    log_base = math.log(base)
    sums, lengths = [], []
    for user, items in _iter_lists(recommended_lists, k):
        check_same_kind(f"recommended_lists[{user}]", items, "interactions", item_kind)
        info = 0.0
        for item in items:
            count = counts.get(item, 0)
            if count == 0:
                raise ValueError(f"user {user}: item {show(item)} never occurs in "
                                 "interactions; its popularity is 0 and its "
                                 "self-information infinite")
            info -= math.log(count / total) / log_base
        sums.append(info)
        lengths.append(len(items))
    sums, lengths = np.array(sums), np.array(lengths, dtype=float)
    values = sums / lengths
    if per_user:
        return values
    if average == "users":
        return float(values.mean())
    return float(sums.sum() / lengths.sum())


def serendipity(recommended_lists, relevant_lists, *, baseline_lists=None,
                history_lists=None, features=None, similarity=None, k=None,
                relevance_level=1, per_user=False):
    """Share of recommendations that are both relevant and unexpected.

    Parameters
    ----------
    recommended_lists : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    relevant_lists : sequence of collections or mappings
        One relevance judgement per user (ids, or id -> grade).
    baseline_lists : sequence of sequences, optional
        The lists of a *primitive* recommender (for example most-popular),
        one per user. An item is unexpected when the baseline did not
        recommend it to that user (Ge et al.). The baseline lists are cut at
        ``k`` too.
    history_lists : sequence of collections, optional
        Each user's past items. Then an item's unexpectedness is ``1 -`` its
        mean similarity to the user's history (Microsoft Recommenders,
        after Zhang et al.); requires ``features`` or ``similarity``.
        Give exactly one of ``baseline_lists`` and ``history_lists``.
    features, similarity : optional
        Item similarity for ``history_lists``; see
        :func:`intra_list_diversity`.
    k : int or None, default=None
        Cut-off applied to every list.
    relevance_level : float, default=1
        Minimum grade for an item to count as relevant.
    per_user : bool, default=False
        Return one value per user instead of their mean.

    Returns
    -------
    float or numpy.ndarray
        Serendipity in ``[0, 1]`` (with non-negative similarities).

    See Also
    --------
    novelty, intra_list_diversity

    Notes
    -----
    With a baseline (Ge et al.), for a user with list :math:`L`, baseline
    list :math:`B` and relevant set :math:`R`:

    .. math::
       \\text{SRDP} = \\frac{|(L \\setminus B) \\cap R|}{|L|}.

    With a history :math:`H` (Recommenders):

    .. math::
       \\text{SRDP} = \\frac{1}{|L|} \\sum_{i \\in L}
       \\Big(1 - \\frac{1}{|H|}\\sum_{h \\in H} \\text{sim}(i, h)\\Big)\\,
       \\text{rel}(i).

    Recommenders counts *every* recommended item as relevant unless a
    relevance column is given, which turns its serendipity into pure
    unexpectedness; here relevance is required. :math:`|L|` is the length of
    the list after the cut-off.

    References
    ----------
    .. [1] Ge, Delgado-Battenfeld and Jannach, "Beyond accuracy: evaluating
       recommender systems by coverage and serendipity", RecSys 2010.

    Examples
    --------
    >>> from metrics_lib import serendipity
    >>> recs, baseline, liked = [["a", "b", "c"]], [["a", "x", "y"]], [{"a", "c"}]
    >>> round(serendipity(recs, liked, baseline_lists=baseline), 4)  # only c
    0.3333
    """
    k = check_k(k)
    per_user = _check_per_user(per_user)
    level = check_relevance_level(relevance_level)
    if (baseline_lists is None) == (history_lists is None):
        raise TypeError("give exactly one of baseline_lists= (Ge et al.) or "
                        "history_lists= (similarity to the user's history)")
    sim = None
    if history_lists is not None:
        sim = _Similarity(features, similarity)
        others = _check_outer(history_lists, "history_lists")
    else:
        if features is not None or similarity is not None:
            raise TypeError("features/similarity are used with history_lists only")
        others = _check_outer(baseline_lists, "baseline_lists")
    rels = list(_check_outer(relevant_lists, "relevant_lists"))
    others = list(others)
    values = []
    for user, items in _iter_lists(recommended_lists, k):
        if user >= len(rels) or user >= len(others):
            raise ValueError("relevant_lists and the baseline/history lists need "
                             "one entry per user of recommended_lists")
        listed = f"recommended_lists[{user}]"
        grades = check_relevant(rels[user], name=f"relevant_lists[{user}]",
                                recommended=items, recommended_name=listed)
        relevant = {i for i, g in grades.items() if g >= level}
        if sim is None:
            baseline = check_recommended(others[user], name=f"baseline_lists[{user}]")
            check_same_kind(listed, items, f"baseline_lists[{user}]", baseline)
            if k is not None:
                baseline = baseline[:k]
            baseline = set(baseline)
            hits = sum(1 for i in items if i in relevant and i not in baseline)
            values.append(hits / len(items))
        else:
            history = list(check_relevant(others[user], name=f"history_lists[{user}]"))
            check_same_kind(listed, items, f"history_lists[{user}]", history)
            if not history:
                raise ValueError(f"user {user}: history_lists[{user}] is empty; "
                                 "unexpectedness needs a history")
            try:
                total = sum(1.0 - sim.cross_mean(i, history)
                            for i in items if i in relevant)
            except (TypeError, ValueError) as error:
                raise type(error)(f"user {user}: {error}") from None
            values.append(total / len(items))
    if len(values) != len(rels) or len(values) != len(others):
        raise ValueError(
            f"recommended_lists has {len(values)} users but relevant_lists has "
            f"{len(rels)} and the baseline/history lists {len(others)}"
        )
    values = np.array(values, dtype=float)
    return values if per_user else float(values.mean())
