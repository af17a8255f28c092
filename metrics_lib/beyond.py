"""Beyond-accuracy metrics: coverage, diversity, novelty, serendipity, personalization, Gini.

Accuracy metrics compare one user's list with that user's relevant items.
The metrics here look at other properties of the lists:

``catalog_coverage``
    how much of the catalogue is ever recommended;
``gini_index``
    how unequally the recommendations (the *exposure*) are spread over items;
``intra_list_diversity``
    how different the items inside one list are from each other;
``novelty``
    how unknown (unpopular) the recommended items are;
``serendipity``
    how many recommendations are relevant *and* unexpected;
``personalization``
    how different the lists of different users are.

Every function takes ``recommended_lists``: one ranked list of item ids per
user (a sequence of sequences, or a 2-D array with one row per user), and an
optional cut-off ``k`` applied to every list. Libraries disagree on several
of these definitions; each docstring says where, and a keyword picks the
variant.

Item ids are of one kind across all lists and the other arguments that
hold ids (``catalog``, ``interactions``, ``relevant_lists``,
``baseline_lists``, ``history_lists``, the keys of ``features``), as in
:func:`~metrics_lib.evaluate`: the string ``"1"`` and the integer ``1`` would
count as two items, so a mix is refused with a ``TypeError``.
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

import numpy as np

from ._validation import (
    show,
    check_choice,
    check_k,
    check_recommended,
    check_relevance_level,
    check_relevant,
    check_same_kind,
    id_list,
    ids_kind,
)

__all__ = [
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "novelty",
    "serendipity",
    "personalization",
]

GINI_DENOMINATORS = ("n", "n-1")
POPULARITY_KINDS = ("interactions", "users")
AVERAGES = ("users", "recommendations")


# ---------------------------------------------------------------------------
# validation helpers (private: only this module reads lists of lists)
# ---------------------------------------------------------------------------

def _check_outer(recommended_lists, name: str = "recommended_lists"):
    """Refuse things that are not one entry per user."""
    if isinstance(recommended_lists, np.ndarray):
        if recommended_lists.ndim != 2:
            raise ValueError(
                f"{name} as an array must be 2-D (one row per user); got shape "
                f"{recommended_lists.shape}"
            )
        if recommended_lists.shape[0] == 0:
            raise ValueError(f"{name} is empty: there is no user")
        return recommended_lists
    if isinstance(recommended_lists, (str, bytes, Mapping)) or not isinstance(
            recommended_lists, Iterable):
        raise TypeError(
            f"{name} must be a sequence with one ranked list per user; got "
            f"{type(recommended_lists).__name__}"
        )
    return recommended_lists


def _iter_lists(recommended_lists, k, name: str = "recommended_lists"):
    """Yield ``(user, tuple_of_ids)`` for every user, cut at ``k``.

    Lists are validated one at a time and not kept, so that memory stays
    bounded by one list when the caller streams.
    """
    outer = _check_outer(recommended_lists, name)
    n_users = 0
    first = kind = None  # every list's ids of one kind, as in one evaluate column
    for user, items in enumerate(outer):
        try:
            items = check_recommended(items, name=f"{name}[{user}]")
            if items and kind is None:
                first, kind = user, ids_kind(name, items)
            elif items:
                check_same_kind(f"{name}[{first}]", kind, f"{name}[{user}]", items)
        except (TypeError, ValueError) as error:
            raise type(error)(f"user {user}: {error}") from None
        if k is not None:
            items = items[:k]
        if not items:
            raise ValueError(
                f"user {user}: {name}[{user}] is empty; every user needs at least "
                "one recommended item"
            )
        n_users += 1
        yield user, items
    if n_users == 0:
        raise ValueError(f"{name} is empty: there is no user")


def _int_matrix(recommended_lists, k):
    """A 2-D integer array of lists, cut at ``k``, checked for duplicates.

    Returns ``None`` when the input is not an integer array (then the
    generic, list-by-list path is used).
    """
    if not (isinstance(recommended_lists, np.ndarray)
            and recommended_lists.ndim == 2
            and np.issubdtype(recommended_lists.dtype, np.integer)):
        return None
    matrix = recommended_lists if k is None else recommended_lists[:, :k]
    if matrix.shape[0] == 0:
        raise ValueError("recommended_lists is empty: there is no user")
    if matrix.shape[1] == 0:
        raise ValueError("recommended_lists has empty rows; every user needs at "
                         "least one recommended item")
    ordered = np.sort(matrix, axis=1)
    repeated = ordered[:, 1:] == ordered[:, :-1]
    if repeated.any():
        user = int(np.flatnonzero(repeated.any(axis=1))[0])
        raise ValueError(
            f"user {user}: recommended_lists[{user}] contains an id twice; a "
            "ranking lists each item once"
        )
    return matrix


def _check_catalog(catalog) -> set | int:
    """A catalogue: a collection of ids, or an int n (ids 0..n-1)."""
    if isinstance(catalog, (bool, np.bool_)):
        raise TypeError("catalog must be a collection of item ids or a positive "
                        "number of items; got a bool")
    if isinstance(catalog, numbers.Integral):
        if catalog <= 0:
            raise ValueError(f"catalog must be a positive number of items; got {catalog}")
        return int(catalog)
    if isinstance(catalog, (str, bytes, Mapping)) or not isinstance(catalog, Iterable):
        raise TypeError(
            "catalog must be a collection of item ids or a positive number of "
            f"items (ids 0..n-1); got {type(catalog).__name__}"
        )
    ids = set(check_relevant(id_list(catalog), name="catalog"))
    if not ids:
        raise ValueError("catalog is empty; the catalogue needs at least one item")
    return ids


def _in_catalog(item, catalog) -> bool:
    if isinstance(catalog, int):
        return (isinstance(item, numbers.Integral) and not isinstance(item, bool)
                and 0 <= item < catalog)
    return item in catalog


def _exposure_counts(recommended_lists, k, catalog):
    """Counter of how often each item is recommended (validated)."""
    counts: Counter = Counter()
    if catalog is not None:
        kind = "int" if isinstance(catalog, int) else ids_kind("catalog", catalog)
    for user, items in _iter_lists(recommended_lists, k):
        if catalog is not None:
            check_same_kind(f"recommended_lists[{user}]", items, "catalog", kind)
            for item in items:
                if not _in_catalog(item, catalog):
                    raise ValueError(
                        f"user {user}: item {show(item)} is not in the catalog"
                    )
        counts.update(items)
    return counts


def _check_per_user(per_user) -> bool:
    if not isinstance(per_user, (bool, np.bool_)):
        raise TypeError(f"per_user must be True or False; got {show(per_user)}")
    return bool(per_user)


# ---------------------------------------------------------------------------
# item similarity (features -> cosine, a square matrix, or a callable)
# ---------------------------------------------------------------------------

class _Similarity:
    """Similarity between two items, from exactly one of three sources."""

    def __init__(self, features=None, similarity=None):
        if (features is None) == (similarity is None):
            raise TypeError("give exactly one of features= (item feature vectors, "
                            "compared by cosine) or similarity= (a square matrix "
                            "or a callable)")
        self._matrix = None     # square similarity matrix, ids 0..n-1
        self._unit = None       # unit feature rows, ids 0..n-1
        self._unit_map = None   # id -> unit feature vector
        self._zero_rows = None  # rows of _unit that were all zeros
        self._zero_ids: set = set()
        self._func = None
        if features is not None:
            self._init_features(features)
        elif callable(similarity) and not isinstance(similarity, np.ndarray):
            self._func = similarity
        else:
            self._init_matrix(similarity)

    @staticmethod
    def _unit_rows(array):
        """Rows scaled to length 1; all-zero rows stay zero (checked on use)."""
        norms = np.linalg.norm(array, axis=1)
        safe = np.where(norms == 0, 1.0, norms)
        return array / safe[:, None], norms == 0

    def _init_features(self, features):
        if isinstance(features, Mapping):
            if not features:
                raise ValueError("features is empty")
            keys = list(features)
            ids = id_list(keys)
            try:
                rows = [np.asarray(features[i], dtype=float) for i in keys]
            except (TypeError, ValueError):
                raise TypeError("features must map item ids to numeric vectors") from None
            dims = {row.shape for row in rows}
            if len(dims) != 1 or rows[0].ndim != 1:
                raise ValueError("features must map every item to a 1-D vector of "
                                 f"the same length; got shapes {sorted(dims)}")
            array = np.vstack(rows)
            if not np.all(np.isfinite(array)):
                raise ValueError("features contains a non-finite value")
            unit, zero = self._unit_rows(array)
            self._kind = ids_kind("features", ids)
            self._unit_map = {item: unit[row] for row, item in enumerate(ids)}
            self._zero_ids = {item for row, item in enumerate(ids) if zero[row]}
            return
        try:
            array = np.array(features, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("features must be a 2-D numeric array (one row per item "
                            "id 0..n-1) or a mapping of id to vector") from None
        if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
            raise ValueError("features must be a non-empty 2-D array with one row per "
                             f"item id 0..n-1; got shape {array.shape}")
        if not np.all(np.isfinite(array)):
            raise ValueError("features contains a non-finite value")
        self._unit, self._zero_rows = self._unit_rows(array)

    def _init_matrix(self, similarity):
        try:
            matrix = np.array(similarity, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("similarity must be a square numeric matrix or a "
                            "callable sim(item_a, item_b)") from None
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.size == 0:
            raise ValueError("similarity must be a square (n_items, n_items) matrix; "
                             f"got shape {matrix.shape}")
        if not np.all(np.isfinite(matrix)):
            raise ValueError("similarity contains a non-finite value")
        if not np.allclose(matrix, matrix.T):
            raise ValueError("similarity must be symmetric: sim(a, b) == sim(b, a)")
        self._matrix = matrix

    # -- lookups ------------------------------------------------------------
    def _indices(self, items, size):
        index = []
        for item in items:
            if (not isinstance(item, numbers.Integral) or isinstance(item, bool)
                    or not 0 <= item < size):
                raise ValueError(f"item {show(item)} is unknown: ids must be integers "
                                 f"0..{size - 1} (one row of the matrix per item)")
            index.append(int(item))
        return np.array(index, dtype=np.intp)

    def _vectors(self, items):
        if self._unit is not None:
            index = self._indices(items, self._unit.shape[0])
            zero = self._zero_rows[index]
            bad = items[int(np.flatnonzero(zero)[0])] if zero.any() else None
            vectors = self._unit[index]
        else:
            check_same_kind("recommended_lists", items, "features", self._kind)
            try:
                vectors = np.vstack([self._unit_map[item] for item in items])
            except KeyError as error:
                raise ValueError(f"item {show(error.args[0])} is unknown: it has no "
                                 "feature vector") from None
            bad = next((item for item in items if item in self._zero_ids), None)
        if bad is not None:
            raise ValueError(f"the features of item {show(bad)} are an all-zero vector; "
                             "its cosine similarity is undefined")
        return vectors

    def _call(self, a, b) -> float:
        value = self._func(a, b)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"similarity({show(a)}, {show(b)}) must return a number; got "
                            f"{type(value).__name__}")
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"similarity({show(a)}, {show(b)}) returned {value}")
        return value

    def pair_mean(self, items) -> float:
        """Mean similarity over the unordered pairs of ``items`` (len >= 2)."""
        n = len(items)
        if self._func is not None:
            total = sum(self._call(items[i], items[j])
                        for i in range(n) for j in range(i + 1, n))
            return total / (n * (n - 1) / 2)
        if self._matrix is not None:
            idx = self._indices(items, self._matrix.shape[0])
            block = self._matrix[np.ix_(idx, idx)]
            return float((block.sum() - np.trace(block)) / (n * (n - 1)))
        vectors = self._vectors(items)
        # sum_{i != j} v_i . v_j = |sum v|^2 - sum |v_i|^2, and |v_i| = 1
        total = vectors.sum(axis=0)
        return float((total @ total - n) / (n * (n - 1)))

    def cross_mean(self, item, others) -> float:
        """Mean similarity between ``item`` and each of ``others``."""
        if self._func is not None:
            return sum(self._call(item, other) for other in others) / len(others)
        if self._matrix is not None:
            size = self._matrix.shape[0]
            i = self._indices([item], size)[0]
            return float(self._matrix[i, self._indices(others, size)].mean())
        vectors = self._vectors([item, *others])
        return float((vectors[1:] @ vectors[0]).mean())


# ---------------------------------------------------------------------------
# public metrics
# ---------------------------------------------------------------------------

def catalog_coverage(recommended_lists, catalog, *, k=None):
    """Share of the catalogue that appears in at least one recommended list.

    Parameters
    ----------
    recommended_lists : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    catalog : collection of hashable, or int
        The items that could have been recommended. An ``int`` ``n`` means
        the ids ``0, 1, ..., n - 1``.
    k : int or None, default=None
        Cut-off applied to every list.

    Returns
    -------
    float
        Coverage in ``[0, 1]``.

    Raises
    ------
    ValueError
        If a recommended item is not in ``catalog``, a list is empty, or
        there is no user.

    See Also
    --------
    gini_index : how evenly the covered items are recommended.

    Notes
    -----
    :math:`\\text{coverage} = |\\bigcup_u L_u| / |I|`. The libraries differ
    in the denominator :math:`I` and the scale, not in the formula:

    - Microsoft Recommenders ``catalog_coverage``: the distinct items of the
      *training* data, so items nobody interacted with do not count;
    - RecBole ``ItemCoverage``: every item of the dataset;
    - recmetrics ``prediction_coverage``: the catalogue passed in, as a
      percentage rounded to two decimals; its ``catalog_coverage`` first
      draws a random sample of lists (so it is not deterministic).

    Pass the catalogue you mean; report which one it was.

    References
    ----------
    .. [1] Ge, Delgado-Battenfeld and Jannach, "Beyond accuracy: evaluating
       recommender systems by coverage and serendipity", RecSys 2010.

    Examples
    --------
    >>> from metrics_lib import catalog_coverage
    >>> catalog_coverage([["a", "b"], ["a", "c"]], {"a", "b", "c", "d"})
    0.75
    >>> catalog_coverage([[0, 1], [0, 2]], 8)  # ids 0..7
    0.375
    """
    k = check_k(k)
    catalog = _check_catalog(catalog)
    counts = _exposure_counts(recommended_lists, k, catalog)
    size = catalog if isinstance(catalog, int) else len(catalog)
    return float(len(counts) / size)


def gini_index(recommended_lists, catalog=None, *, k=None, denominator="n"):
    """Gini index of item exposure: 0 = every item shown equally often.

    Parameters
    ----------
    recommended_lists : sequence of sequences, or 2-D array
        One ranked list of item ids per user.
    catalog : collection of hashable, int or None, default=None
        If given, every catalogue item counts, with exposure 0 when it was
        never recommended (RecBole). If ``None``, only the items that were
        recommended at least once count.
    k : int or None, default=None
        Cut-off applied to every list.
    denominator : {"n", "n-1"}, default="n"
        ``"n"`` divides by the number of items (RecBole ``GiniIndex``, whose
        item count also includes its padding id 0);
        ``"n-1"`` divides by one less, so that all exposure on one item gives
        exactly 1 (the divisor of Elliot ``Gini``, which then reports
        ``1 - G``).

    Returns
    -------
    float
        Gini index in ``[0, 1]`` (for ``"n"``, at most ``1 - 1/n``).

    See Also
    --------
    catalog_coverage

    Notes
    -----
    With the exposures :math:`x_{(1)} \\le \\dots \\le x_{(n)}` (how often
    each item was recommended) sorted in increasing order,

    .. math::
       G = \\frac{\\sum_{i=1}^{n} (2i - n - 1)\\, x_{(i)}}{d \\sum_i x_{(i)}},
       \\qquad d = n \\text{ or } n - 1.

    Two choices move the number: which items count (the whole catalogue or
    only the recommended ones: leaving out never-recommended items hides the
    worst inequality) and ``d``. Elliot reports ``1 - G`` (``d = n - 1``),
    so there higher means *more* equal. Lower is more equal here.

    References
    ----------
    .. [1] Adomavicius and Kwon, "Improving aggregate recommendation diversity
       using ranking-based techniques", IEEE TKDE 24(5), 2012.

    Examples
    --------
    >>> from metrics_lib import gini_index
    >>> lists = [["a", "b"], ["a", "c"]]
    >>> gini_index(lists, {"a", "b", "c", "d"})   # exposures 0, 1, 1, 2
    0.375
    >>> gini_index(lists, {"a", "b", "c", "d"}, denominator="n-1")
    0.5
    >>> round(gini_index(lists), 4)   # only the recommended a, b, c
    0.1667
    """
    k = check_k(k)
    check_choice("denominator", denominator, GINI_DENOMINATORS)
    if catalog is not None:
        catalog = _check_catalog(catalog)
    counts = _exposure_counts(recommended_lists, k, catalog)
    exposure = np.array(sorted(counts.values()), dtype=float)
    if catalog is not None:
        size = catalog if isinstance(catalog, int) else len(catalog)
        exposure = np.concatenate([np.zeros(size - exposure.size), exposure])
    n = exposure.size
    if n == 1:
        if denominator == "n-1":
            raise ValueError("gini_index with denominator='n-1' needs at least two "
                             "items; only one item counts")
        return 0.0
    rank = np.arange(1, n + 1, dtype=float)
    d = n if denominator == "n" else n - 1
    return float(np.sum((2 * rank - n - 1) * exposure) / (d * exposure.sum()))


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
