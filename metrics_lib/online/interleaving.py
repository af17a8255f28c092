"""Team-draft interleaving: compare two rankers on the same users.

An A/B test shows each user one ranker; interleaving shows each user one list
merged from both and lets the user's clicks vote. Because every user sees both
rankers, the comparison is within-user and needs far fewer users (Chapelle,
Joachims, Radlinski & Yue 2012).

``team_draft_interleave``
    one merged list, with the team (ranker) that contributed each item;
``team_draft_interleave_many``
    the same for many users at once (vectorised over users);
``interleaving_credit``
    clicks credited to each team, and the winner of each impression;
``interleaving_test``
    a sign (binomial) test of preference over many impressions.

Randomness comes from a ``seed`` (an int, ``None`` or a
``numpy.random.Generator``), so that experiments are reproducible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import (
    show,
    check_choice,
    check_k,
    check_real_array,
    check_recommended,
    check_rng,
    check_same_kind,
    common_ints,
    id_array,
)

__all__ = [
    "TeamDraftList",
    "TeamDraftBatch",
    "InterleavingCredit",
    "InterleavingTest",
    "team_draft_interleave",
    "team_draft_interleave_many",
    "interleaving_credit",
    "interleaving_test",
]

ALTERNATIVES = ("two-sided", "greater", "less")


@dataclass(frozen=True)
class TeamDraftList:
    """One interleaved list.

    Attributes
    ----------
    items : tuple
        The merged ranking, best first.
    teams : tuple of str
        ``"A"`` or ``"B"`` for each item: the ranker whose pick it was.
    """

    items: tuple
    teams: tuple


@dataclass(frozen=True)
class TeamDraftBatch:
    """Interleaved lists of many users (one row per user).

    Attributes
    ----------
    items : numpy.ndarray
        Shape ``(n_users, length)``: the merged rankings, best first.
    teams : numpy.ndarray of int8
        Same shape: 0 where ranker A contributed the item, 1 for ranker B.
    """

    items: np.ndarray
    teams: np.ndarray


@dataclass(frozen=True)
class InterleavingCredit:
    """Clicks credited to each ranker, per impression.

    Attributes
    ----------
    clicks_a, clicks_b : numpy.ndarray of int
        Clicked items contributed by ranker A and by ranker B, one entry
        per impression (a 0-d array for a single impression).
    winner : numpy.ndarray of int
        +1 where A got more clicks, -1 where B did, 0 for a tie (including
        impressions without a click).
    """

    clicks_a: np.ndarray
    clicks_b: np.ndarray
    winner: np.ndarray


@dataclass(frozen=True)
class InterleavingTest:
    """Result of :func:`interleaving_test`.

    Attributes
    ----------
    wins_a, wins_b, ties : int
        Impressions won by each ranker, and ties (dropped from the test).
    delta : float
        ``(wins_a + ties / 2) / n - 1/2`` over all ``n`` impressions: the
        preference statistic of Chapelle et al. (2012), positive when A is
        preferred.
    share_a : float
        ``wins_a / (wins_a + wins_b)`` (an input without a decided impression
        is refused).
    p_value : float
        Exact binomial (sign) test of ``share_a = 1/2``.
    alternative : str
        ``"two-sided"``, ``"greater"`` (A preferred) or ``"less"``.
    """

    wins_a: int
    wins_b: int
    ties: int
    delta: float
    share_a: float
    p_value: float
    alternative: str


# ----------------------------------------------------------------------------
# the algorithm
# ----------------------------------------------------------------------------
def _team_draft_one(a, b, coins, length):
    """Team draft of two tuples with pre-drawn coin flips (one per round).

    Radlinski, Kurup & Joachims (2008), Algorithm 2: while both rankings still
    have an item that is not in the list, the team with fewer picks so far
    adds its best remaining item, a coin flip deciding when the teams are
    equal (which happens at the start of every round of two picks).
    """
    items, teams, used = [], [], set()
    size_a = size_b = 0
    ia = ib = 0
    while len(items) < length:
        while ia < len(a) and a[ia] in used:
            ia += 1
        while ib < len(b) and b[ib] in used:
            ib += 1
        if ia == len(a) or ib == len(b):
            break
        if size_a < size_b or (size_a == size_b and coins[len(items) // 2]):
            items.append(a[ia])
            teams.append("A")
            used.add(a[ia])
            size_a += 1
        else:
            items.append(b[ib])
            teams.append("B")
            used.add(b[ib])
            size_b += 1
    return items, teams


def team_draft_interleave(ranking_a, ranking_b, *, length=None, seed=None):
    """Merge two rankings by team-draft interleaving.

    Parameters
    ----------
    ranking_a, ranking_b : sequence of hashable
        The two rankers' lists for one user, best first; each lists an item
        at most once (the two may share items).
    length : int, optional
        Stop after this many items. Default: go on while both rankings still
        have an item not yet in the list (the algorithm's own end).
    seed : int, numpy.random.Generator or None, default=None
        Source of the coin flips. Pass a Generator to draw many lists from
        one stream.

    Returns
    -------
    TeamDraftList
        The merged ``items`` and the ``teams`` (``"A"``/``"B"``) that
        contributed them.

    See Also
    --------
    team_draft_interleave_many : many users at once.
    interleaving_credit : score the clicks on the merged list.

    Notes
    -----
    In each round of two picks a fair coin decides which ranker picks first;
    each ranker then adds its highest-ranked item that is not already in the
    list [1]_. Both rankers thus contribute equally (up to one item) and, in
    expectation, from the same depths, so a user who clicks at random
    credits neither. The list is at least ``min(len(ranking_a),
    len(ranking_b))`` long: until then both rankings always have an unused
    item. One coin is drawn per round (``ceil(length / 2)`` of them, or
    ``ceil((len(a) + len(b)) / 2)`` without a ``length``) whether or not
    the round is reached, so that the stream of random numbers does not
    depend on the rankings.

    References
    ----------
    .. [1] F. Radlinski, M. Kurup and T. Joachims, "How does clickthrough
       data reflect retrieval quality?", CIKM 2008.
    .. [2] O. Chapelle, T. Joachims, F. Radlinski and Y. Yue, "Large-scale
       validation and analysis of interleaved search evaluation", ACM TOIS
       30(1), 2012.

    Examples
    --------
    >>> from metrics_lib import team_draft_interleave
    >>> merged = team_draft_interleave(["a", "b", "c", "d"], ["b", "e", "a", "f"],
    ...                                length=4, seed=3)
    >>> len(merged.items), sorted(merged.teams)
    (4, ['A', 'A', 'B', 'B'])
    >>> set(merged.items) <= set("abcdef")
    True
    """
    a, kind_a = check_recommended(ranking_a, "ranking_a", with_kind=True)
    b, kind_b = check_recommended(ranking_b, "ranking_b", with_kind=True)
    check_same_kind("ranking_a", kind_a, "ranking_b", kind_b)
    limit = check_k(length, "length")
    if limit is None:
        limit = len(a) + len(b)
    rng = check_rng(seed)
    coins = rng.random(math.ceil(limit / 2)) < 0.5
    items, teams = _team_draft_one(a, b, coins, limit)
    return TeamDraftList(items=tuple(items), teams=tuple(teams))


def _team_draft_many(a, b, coins, length):
    """Vectorised team draft over rows; ``coins`` has shape (n, rounds)."""
    n, la = a.shape
    lb = b.shape[1]
    rows = np.arange(n)
    # where each item of A sits in B (and back), to mark an item used in both
    match = a[:, :, None] == b[:, None, :]
    a_in_b = np.where(match.any(2), match.argmax(2), -1)
    b_in_a = np.where(match.any(1), match.argmax(1), -1)
    used_a = np.zeros((n, la + 1), dtype=bool)  # a sentinel column, never used
    used_b = np.zeros((n, lb + 1), dtype=bool)
    ia = np.zeros(n, dtype=np.int64)
    ib = np.zeros(n, dtype=np.int64)
    size_a = np.zeros(n, dtype=np.int64)
    size_b = np.zeros(n, dtype=np.int64)
    items = np.empty((n, length), dtype=a.dtype)
    teams = np.empty((n, length), dtype=np.int8)
    for step in range(length):
        # advance each pointer past items already in the list
        while True:
            skip = used_a[rows, ia] & (ia < la)
            if not skip.any():
                break
            ia += skip
        while True:
            skip = used_b[rows, ib] & (ib < lb)
            if not skip.any():
                break
            ib += skip
        pick_a = (size_a < size_b) | ((size_a == size_b) & coins[:, step // 2])
        # length <= min(la, lb), so neither pointer has run off its ranking
        chosen_a = np.flatnonzero(pick_a)
        chosen_b = np.flatnonzero(~pick_a)
        pa, pb = ia[chosen_a], ib[chosen_b]
        items[chosen_a, step] = a[chosen_a, pa]
        items[chosen_b, step] = b[chosen_b, pb]
        teams[:, step] = np.where(pick_a, 0, 1)
        used_a[chosen_a, pa] = True
        twin = a_in_b[chosen_a, pa]
        used_b[chosen_a[twin >= 0], twin[twin >= 0]] = True
        used_b[chosen_b, pb] = True
        twin = b_in_a[chosen_b, pb]
        used_a[chosen_b[twin >= 0], twin[twin >= 0]] = True
        size_a += pick_a
        size_b += ~pick_a
    return items, teams


def _check_rankings_matrix(name, values):
    """``(kind, array)`` of one side's rankings (see ``_validation.id_array``)."""
    if isinstance(values, (str, bytes)) or values is None or np.isscalar(values):
        raise TypeError(f"{name} must be a 2-D array (one ranking per row); got "
                        f"{type(values).__name__}")
    array = np.array(values)  # a copy: the caller's array is never touched
    if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (users x ranks); "
                         f"got shape {array.shape}")
    kind, array = id_array(name, array)  # object arrays of floats become float64
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        at = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        what = "a missing id" if np.isnan(array[at]) else "a non-finite id"
        raise ValueError(f"{name} has {what} {show(array[at])} at index {at}")
    ordered = np.sort(array, axis=1)
    dup = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
    if dup.any():
        row = int(np.argmax(dup))
        raise ValueError(f"{name} row {row} lists an item twice; a ranking lists "
                         "each item once")
    return kind, array


def team_draft_interleave_many(rankings_a, rankings_b, *, length=None, seed=None):
    """Team-draft interleaving for many users at once.

    Parameters
    ----------
    rankings_a, rankings_b : array-like, shape (n_users, k_a) and (n_users, k_b)
        One ranking per row, best first, item ids of one kind in both
        (integers are the fast case; strings and integers together are
        refused); no id twice in a row. Row ``u`` of both is the same user.
        Integer ids of any width meet exactly (int64 with uint64 in uint64,
        or as Python ints), never through float64.
    length : int, optional
        Length of every merged list, at most ``min(k_a, k_b)`` (the length
        every row is guaranteed to reach). Default: ``min(k_a, k_b)``.
    seed : int, numpy.random.Generator or None, default=None
        Source of the coin flips.

    Returns
    -------
    TeamDraftBatch
        ``items`` and ``teams`` (0 for A, 1 for B), shape ``(n_users,
        length)``.

    See Also
    --------
    team_draft_interleave : one user, any lengths, the algorithm's own end.

    Notes
    -----
    The same algorithm as :func:`team_draft_interleave` [1]_, one step per
    rank for all users together. The coins are an ``(n_users,
    ceil(length / 2))`` array of fair coin flips, one per user and round; row
    ``u`` of the result is what :func:`team_draft_interleave` produces from
    the same coins (the tests check this). Memory is
    ``O(n_users * k_a * k_b)`` for finding the items the two rankings share.

    References
    ----------
    .. [1] F. Radlinski, M. Kurup and T. Joachims, "How does clickthrough
       data reflect retrieval quality?", CIKM 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics_lib import team_draft_interleave_many
    >>> a = np.array([[1, 2, 3], [7, 8, 9]])
    >>> b = np.array([[2, 1, 4], [9, 8, 7]])
    >>> batch = team_draft_interleave_many(a, b, seed=0)
    >>> batch.items.shape, batch.teams.shape
    ((2, 3), (2, 3))
    >>> [sorted(row) for row in batch.items.tolist()]
    [[1, 2, 3], [7, 8, 9]]
    """
    kind, a = _check_rankings_matrix("rankings_a", rankings_a)
    kind_b, b = _check_rankings_matrix("rankings_b", rankings_b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("rankings_a and rankings_b must have one row per user: got "
                         f"{a.shape[0]} and {b.shape[0]} rows")
    check_same_kind("rankings_a", kind, "rankings_b", kind_b)
    if kind == "int":  # exact: int64 and uint64 never meet in float64
        a, b = common_ints(a, b)
    elif a.dtype != b.dtype:  # strings of two widths, say
        common = np.result_type(a.dtype, b.dtype)
        a, b = a.astype(common), b.astype(common)
    shortest = min(a.shape[1], b.shape[1])
    limit = check_k(length, "length")
    if limit is None:
        limit = shortest
    if limit > shortest:
        raise ValueError(f"length must be at most {shortest} (the shorter ranking), "
                         "the length every user's list is sure to reach; got "
                         f"{limit}")
    rng = check_rng(seed)
    coins = rng.random((a.shape[0], math.ceil(limit / 2))) < 0.5
    items, teams = _team_draft_many(a, b, coins, limit)
    return TeamDraftBatch(items=items, teams=teams)


# ----------------------------------------------------------------------------
# credit and test
# ----------------------------------------------------------------------------
def _teams_as_codes(teams):
    array = np.array(teams)
    if array.dtype.kind in "US":
        bad = ~np.isin(array, ["A", "B"])
        if bad.any():
            raise ValueError(f"teams must contain only 'A' and 'B' (or 0 and 1); got "
                             f"{show(array[bad].flat[0])}")
        return np.where(array == "B", 1, 0).astype(np.int8)
    if array.dtype.kind in "iub" and np.isin(array, [0, 1]).all():
        return array.astype(np.int8)
    raise ValueError("teams must contain only 'A' and 'B' (or 0 and 1)")


def interleaving_credit(teams, clicks):
    """Credit the clicks on interleaved lists to the two rankers.

    Parameters
    ----------
    teams : array-like, shape (length,) or (n_impressions, length)
        The team of each position (``"A"``/``"B"``, or 0/1 as in
        :class:`TeamDraftBatch`).
    clicks : array-like of 0/1 or bool, same shape as ``teams``
        1 where the user clicked the item at that position.

    Returns
    -------
    InterleavingCredit
        Clicks of each team and the winner (+1 A, -1 B, 0 tie) of each
        impression.

    Notes
    -----
    Team draft credits a click to the ranker that contributed the clicked
    item, and the ranker with more credited clicks wins the impression [1]_.
    An impression without clicks is a tie.

    References
    ----------
    .. [1] F. Radlinski, M. Kurup and T. Joachims, "How does clickthrough
       data reflect retrieval quality?", CIKM 2008.

    Examples
    --------
    >>> from metrics_lib import interleaving_credit
    >>> credit = interleaving_credit(["A", "B", "B", "A"], [0, 1, 1, 1])
    >>> int(credit.clicks_a), int(credit.clicks_b), int(credit.winner)
    (1, 2, -1)
    """
    codes = _teams_as_codes(teams)
    if codes.ndim not in (1, 2) or codes.size == 0:
        raise ValueError("teams must be a non-empty 1-D or 2-D array; got shape "
                         f"{codes.shape}")
    raw = np.array(clicks)
    if raw.shape != codes.shape:
        raise ValueError(f"clicks and teams must have the same shape; got {raw.shape} "
                         f"and {codes.shape}")
    if raw.dtype.kind not in "biuf":
        raise TypeError(f"clicks must contain 0/1 or booleans; got dtype {raw.dtype}")
    flat = check_real_array("clicks", raw.reshape(-1).astype(float))
    if not np.all((flat == 0) | (flat == 1)):
        raise ValueError("clicks must contain only 0/1 (or False/True)")
    c = flat.reshape(raw.shape).astype(np.int64)
    clicks_a = (c * (codes == 0)).sum(axis=-1)
    clicks_b = (c * (codes == 1)).sum(axis=-1)
    return InterleavingCredit(clicks_a=clicks_a, clicks_b=clicks_b,
                              winner=np.sign(clicks_a - clicks_b).astype(np.int64))


def interleaving_test(clicks_a, clicks_b, *, alternative="two-sided"):
    """Sign test of a preference between two rankers over many impressions.

    Parameters
    ----------
    clicks_a, clicks_b : array-like of float
        Credited clicks of each ranker, one entry per impression (the fields
        of :class:`InterleavingCredit`). Non-negative, same length.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        ``"greater"``: A is preferred (wins more than half of the decided
        impressions).

    Returns
    -------
    InterleavingTest
        Wins, ties, the preference statistic ``delta`` and the p-value.

    Raises
    ------
    ValueError
        If the arrays are empty, differ in length or hold a negative or
        non-finite value; if every impression ties (no winner: the share of
        wins is 0 / 0 and there is no evidence either way).
    TypeError
        If an array holds something other than numbers.

    Notes
    -----
    Each impression with a winner is one Bernoulli trial; under "no
    preference" A wins with probability 1/2. Ties carry no information about
    the direction and are dropped; the exact binomial test of the wins is
    ``scipy.stats.binomtest(wins_a, wins_a + wins_b)``. It treats
    impressions as independent: when one user contributes many impressions,
    aggregate per user first (the user's winner by the sum of the user's
    credits, say) and test over users. ``delta`` follows [1]_.

    Cost: :math:`O(n)` time and memory for :math:`n` impressions.

    References
    ----------
    .. [1] O. Chapelle, T. Joachims, F. Radlinski and Y. Yue, "Large-scale
       validation and analysis of interleaved search evaluation", ACM TOIS
       30(1), 2012.

    Examples
    --------
    >>> from metrics_lib import interleaving_test
    >>> res = interleaving_test([2, 1, 0, 1, 1, 0, 3, 1], [0, 1, 0, 0, 2, 0, 1, 0])
    >>> res.wins_a, res.wins_b, res.ties
    (4, 1, 3)
    >>> round(res.p_value, 3), round(res.delta, 4)
    (0.375, 0.1875)
    """
    check_choice("alternative", alternative, ALTERNATIVES)
    a = check_real_array("clicks_a", clicks_a)
    b = check_real_array("clicks_b", clicks_b)
    if a.shape != b.shape:
        raise ValueError(f"clicks_a and clicks_b must have the same length; got "
                         f"{a.size} and {b.size}")
    for name, v in (("clicks_a", a), ("clicks_b", b)):
        if np.any(v < 0):
            raise ValueError(f"{name} must be non-negative click counts")
    wins_a = int(np.sum(a > b))
    wins_b = int(np.sum(b > a))
    ties = int(a.size - wins_a - wins_b)
    decided = wins_a + wins_b
    if not decided:
        # share_a would be 0/0: refuse rather than pair a NaN with a p-value
        raise ValueError(f"no impression has a winner (all {a.size} tie), so the "
                         "share of wins is undefined and there is no evidence "
                         "either way")
    from scipy.stats import binomtest  # lazy: scipy is slow to import

    p = float(binomtest(wins_a, decided, 0.5, alternative=alternative).pvalue)
    share = wins_a / decided
    return InterleavingTest(wins_a=wins_a, wins_b=wins_b, ties=ties,
                            delta=(wins_a + 0.5 * ties) / a.size - 0.5,
                            share_a=share, p_value=p, alternative=alternative)
