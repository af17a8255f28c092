"""How the recommendations cover the catalogue (``catalog_coverage``) and how
unequally they spread exposure over its items (``gini_index``).
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np

from .._validation import (show, check_choice, check_k, check_relevant, check_same_kind, id_list,
                           ids_kind)
from ._lists import _iter_lists


GINI_DENOMINATORS = ("n", "n-1")


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
