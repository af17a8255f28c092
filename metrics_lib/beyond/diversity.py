"""How different the items inside one list are (``intra_list_diversity``) and
how different the lists of different users are (``personalization``).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np

from .._validation import check_k
from ._lists import _check_per_user, _int_matrix, _iter_lists
from ._similarity import _Similarity


def intra_list_diversity(recommended_lists, *, features=None, similarity=None,
                         k=None, per_user=False):
    """One minus the mean pairwise similarity of the items in each list.

    Parameters
    ----------
    recommended_lists : sequence of sequences, or 2-D array
        One ranked list of item ids per user; each needs at least two items.
    features : 2-D array or mapping of hashable to 1-D array, optional
        Item feature vectors (genres one-hot, embeddings, ...); items are
        compared by cosine similarity. A 2-D array has one row per item id
        ``0..n-1``. A recommended item's vector may not be all zeros.
    similarity : square 2-D array or callable, optional
        A precomputed symmetric ``(n_items, n_items)`` similarity matrix
        (ids ``0..n-1``), or a function ``sim(item_a, item_b) -> float``.
        Give exactly one of ``features`` and ``similarity``.
    k : int or None, default=None
        Cut-off applied to every list.
    per_user : bool, default=False
        Return the array of per-user values instead of their mean.

    Returns
    -------
    float or numpy.ndarray
        Mean diversity over users (or one value per user). With cosine on
        non-negative features it lies in ``[0, 1]``.

    Raises
    ------
    ValueError
        If a list has fewer than two items, an item has no feature vector or
        row, or ``similarity`` is not a square symmetric matrix.

    See Also
    --------
    personalization : diversity *between* users' lists.

    Notes
    -----
    For a list :math:`L` of :math:`n` items,

    .. math::
       \\text{ILD}(L) = 1 - \\frac{2}{n(n-1)} \\sum_{i < j} \\text{sim}(L_i, L_j).

    Ziegler et al. defined the intra-list *similarity* as the plain sum of
    the pairwise similarities; recmetrics ``intra_list_similarity`` returns
    their mean (one minus this function, per user); Microsoft Recommenders
    ``diversity`` returns this function's value. Recommenders' default
    similarity is the cosine of item *co-occurrence* in the training data:
    pass ``features=X.T`` with ``X`` the binary users-by-items interaction
    matrix to get it.

    References
    ----------
    .. [1] Ziegler, McNee, Konstan and Lausen, "Improving recommendation lists
       through topic diversification", WWW 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics_lib import intra_list_diversity
    >>> genres = np.array([[1, 0], [1, 0], [0, 1]])   # items 0, 1, 2
    >>> round(intra_list_diversity([[0, 1, 2]], features=genres), 4)
    0.6667
    >>> intra_list_diversity([[0, 1], [0, 2]], features=genres, per_user=True)
    array([0., 1.])
    """
    k = check_k(k)
    per_user = _check_per_user(per_user)
    sim = _Similarity(features, similarity)
    values = []
    for user, items in _iter_lists(recommended_lists, k):
        if len(items) < 2:
            raise ValueError(f"user {user}: intra-list diversity needs at least two "
                             f"items in a list; got {len(items)}")
        try:
            values.append(1.0 - sim.pair_mean(items))
        except (TypeError, ValueError) as error:
            raise type(error)(f"user {user}: {error}") from None
    values = np.array(values, dtype=float)
    return values if per_user else float(values.mean())


def personalization(recommended_lists, *, k=None):
    """One minus the mean cosine similarity between different users' lists.

    Parameters
    ----------
    recommended_lists : sequence of sequences, or 2-D integer array
        One list of item ids per user; at least two users. A 2-D integer
        array (users x k) takes a fast vectorised path.
    k : int or None, default=None
        Cut-off applied to every list.

    Returns
    -------
    float
        Personalization in ``[0, 1]``: 0 when everybody gets the same list,
        1 when no two users share an item.

    See Also
    --------
    intra_list_diversity : diversity *inside* one list.

    Notes
    -----
    Each list is a binary vector over items, so the cosine of two lists is
    :math:`|L_u \\cap L_v| / \\sqrt{|L_u|\\,|L_v|}` and

    .. math::
       \\text{personalization} = 1 - \\binom{U}{2}^{-1}
       \\sum_{u < v} \\frac{|L_u \\cap L_v|}{\\sqrt{|L_u|\\,|L_v|}}.

    recmetrics builds the :math:`U \\times U` similarity matrix, whose memory
    grows with the square of the number of users. The sum can be regrouped
    by item instead: with :math:`w_u = |L_u|^{-1/2}` and
    :math:`s_i = \\sum_{u \\ni i} w_u`, :math:`q_i = \\sum_{u \\ni i} w_u^2`,

    .. math::
       \\sum_{u < v} w_u w_v |L_u \\cap L_v|
       = \\sum_i \\frac{s_i^2 - q_i}{2},

    which for lists of equal length :math:`n` is
    :math:`\\frac{1}{n}\\sum_i c_i (c_i - 1)/2` with :math:`c_i` the number of
    lists containing item :math:`i`. Memory is linear in the number of
    distinct items (plus the input itself). For lists of equal length this is
    Zhou et al.'s mean inter-user (Hamming) diversity :math:`1 - |L_u \\cap
    L_v| / n`.

    References
    ----------
    .. [1] Zhou et al., "Solving the apparent diversity-accuracy dilemma of
       recommender systems", PNAS 107(10), 2010.
    .. [2] recmetrics, ``personalization``,
       https://github.com/statisticianinstilettos/recmetrics

    Examples
    --------
    >>> from metrics_lib import personalization
    >>> round(personalization([["a", "b"], ["a", "c"], ["d", "e"]]), 4)
    0.8333
    >>> personalization([["a", "b"], ["b", "a"]])   # same items: no personalization
    0.0
    """
    k = check_k(k)
    matrix = _int_matrix(recommended_lists, k)
    if matrix is not None:
        n_users, length = matrix.shape
        if n_users < 2:
            raise ValueError("personalization compares users: it needs at least two "
                             f"users; got {n_users}")
        _, counts = np.unique(matrix, return_counts=True)
        counts = counts.astype(np.float64)
        pair_sum = float(np.sum(counts * (counts - 1)) / 2 / length)
    else:
        # counts[length][item]: lists of that length containing the item
        counts: dict = {}
        n_users = 0
        for _, items in _iter_lists(recommended_lists, k):
            n_users += 1
            counts.setdefault(len(items), Counter()).update(items)
        if n_users < 2:
            raise ValueError("personalization compares users: it needs at least two "
                             f"users; got {n_users}")
        if len(counts) == 1:  # equal lengths: exact integer counts
            (length, count), = counts.items()
            pair_sum = sum(c * (c - 1) for c in count.values()) / 2 / length
        else:
            s: dict = {}
            q: dict = {}
            for length, count in counts.items():
                w = 1.0 / math.sqrt(length)
                for item, c in count.items():
                    s[item] = s.get(item, 0.0) + c * w
                    q[item] = q.get(item, 0.0) + c / length
            pair_sum = sum((s[i] * s[i] - q[i]) / 2 for i in s)
    n_pairs = n_users * (n_users - 1) / 2
    return float(1.0 - pair_sum / n_pairs)
