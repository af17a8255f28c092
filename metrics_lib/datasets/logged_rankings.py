"""Rankings logged by an epsilon-greedy policy, with the propensities that
off-policy estimates need: :func:`sample_rankings` and
:class:`LoggedRankings`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_k, check_real
from ._random import _check_seed, _readonly


# -- a stochastic logging policy ----------------------------------------------
@dataclass(frozen=True, eq=False, repr=False)
class LoggedRankings:
    """Lists sampled by a stochastic logging policy, with their propensities.

    Made by :func:`sample_rankings`. Row ``i`` is one user's (or context's)
    list.

    Attributes
    ----------
    lists : ndarray of int, shape (n, k)
        The sampled lists, item indices in rank order (read-only).
    propensities : ndarray of float, shape (n, k)
        Marginal probability that the logged item of each slot is shown at
        that position, :math:`\\pi_0(a_{ij} \\text{ at } j)` (read-only).
    slate_propensities : ndarray of float, shape (n,)
        Probability of each whole logged list, in its order (read-only).
    epsilon : float
        Share of lists drawn uniformly at random.
    pool : int or None
        Size of the shuffled candidate pool (``None``: the greedy order).
    n_items : int
        Number of items.
    """

    lists: np.ndarray
    propensities: np.ndarray
    slate_propensities: np.ndarray
    epsilon: float
    pool: object
    n_items: int
    _eligible: np.ndarray = field(repr=False)
    _in_pool: object = field(repr=False)
    _greedy: np.ndarray = field(repr=False)

    @property
    def k(self) -> int:
        """Length of every list."""
        return int(self.lists.shape[1])

    def __repr__(self) -> str:
        return (f"LoggedRankings(n={self.lists.shape[0]}, k={self.k}, "
                f"n_items={self.n_items}, epsilon={self.epsilon}, pool={self.pool})")

    def _check_items(self, items):
        idx = np.asarray(items)
        if idx.shape != self.lists.shape:
            raise ValueError(f"items must have the shape of lists {self.lists.shape}; "
                             f"got {idx.shape}")
        if idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer):
            raise TypeError(f"items must hold integer indices; got dtype {idx.dtype}")
        if idx.size and (idx.min() < 0 or idx.max() >= self.n_items):
            raise ValueError(f"items must lie in 0 .. {self.n_items - 1}")
        return idx.astype(np.int64)

    def marginals(self, items):
        """Logging probability of given items at given positions.

        Parameters
        ----------
        items : array-like of int, shape (n, k)
            For each row and position, an item (for instance a target
            policy's list).

        Returns
        -------
        ndarray of float, shape (n, k)
            :math:`\\pi_0(\\text{items}[i, j] \\text{ at position } j \\mid i)`.

        Examples
        --------
        >>> import numpy as np
        >>> from metrics_lib.datasets import sample_rankings
        >>> log = sample_rankings(np.array([[3.0, 2.0, 1.0, 0.0]]), 2, epsilon=0.5, seed=0)
        >>> log.marginals(np.array([[0, 1]])).round(4).tolist()   # the greedy list
        [[0.625, 0.625]]
        """
        idx = self._check_items(items)
        rows = np.arange(idx.shape[0])[:, None]
        n_eligible = self._eligible.sum(axis=1)[:, None].astype(float)
        eligible = self._eligible[rows, idx]
        explore = np.where(eligible, self.epsilon / n_eligible, 0.0)
        if self.pool is None:
            exploit = (idx == self._greedy).astype(float)
        else:
            size = self._in_pool.sum(axis=1)[:, None].astype(float)
            exploit = self._in_pool[rows, idx] / size
        return (1.0 - self.epsilon) * exploit + explore

    def item_position_marginals(self):
        """The full table of marginals, every item at every position.

        Returns
        -------
        ndarray of float, shape (n, n_items, k)
            Each position's column sums to 1 over the items: the
            ``logging_marginals`` argument of
            :func:`metrics_lib.slate_ips_estimate` (memory ``n * n_items * k``
            floats: for small problems).

        Examples
        --------
        >>> import numpy as np
        >>> from metrics_lib.datasets import sample_rankings
        >>> log = sample_rankings(np.array([[3.0, 2.0, 1.0, 0.0]]), 2, epsilon=0.5, seed=0)
        >>> log.item_position_marginals().sum(axis=1).tolist()
        [[1.0, 1.0]]
        """
        n, k = self.lists.shape
        n_eligible = self._eligible.sum(axis=1)[:, None].astype(float)
        explore = np.where(self._eligible, self.epsilon / n_eligible, 0.0)
        if self.pool is None:
            exploit = np.zeros((n, self.n_items, k))
            exploit[np.arange(n)[:, None], self._greedy, np.arange(k)[None, :]] = 1.0
        else:
            size = self._in_pool.sum(axis=1)[:, None].astype(float)
            exploit = np.repeat((self._in_pool / size)[:, :, None], k, axis=2)
        return (1.0 - self.epsilon) * exploit + explore[:, :, None]

    def slate_probability(self, slates):
        """Probability that the logger shows exactly a given list.

        Parameters
        ----------
        slates : array-like of int, shape (n, k)
            One list per row, in rank order.

        Returns
        -------
        ndarray of float, shape (n,)

        Examples
        --------
        >>> import numpy as np
        >>> from metrics_lib.datasets import sample_rankings
        >>> log = sample_rankings(np.array([[3.0, 2.0, 1.0, 0.0]]), 2, epsilon=0.5, seed=0)
        >>> log.slate_probability(np.array([[0, 1]])).round(4).tolist()
        [0.5417]
        """
        idx = self._check_items(slates)
        rows = np.arange(idx.shape[0])[:, None]
        k = idx.shape[1]
        distinct = np.array([len(set(r)) == k for r in idx.tolist()])
        eligible = self._eligible[rows, idx].all(axis=1) & distinct
        n_eligible = self._eligible.sum(axis=1)
        log_perm = np.array([math.lgamma(m - k + 1) - math.lgamma(m + 1) for m in n_eligible])
        explore = np.where(eligible, self.epsilon * np.exp(log_perm), 0.0)
        if self.pool is None:
            exploit = (idx == self._greedy).all(axis=1).astype(float)
        else:
            size = self._in_pool.sum(axis=1)
            log_pool = np.array([math.lgamma(m - k + 1) - math.lgamma(m + 1) for m in size])
            exploit = np.where(self._in_pool[rows, idx].all(axis=1) & distinct,
                               np.exp(log_pool), 0.0)
        return (1.0 - self.epsilon) * exploit + explore


def sample_rankings(scores, k, *, epsilon=0.1, pool=None, seed=0):
    """Sample each row's list from a recommender's scores, with propensities.

    A stochastic logging policy of the epsilon-greedy family. For every row
    independently: with probability ``1 - epsilon`` the recommender
    *exploits*, showing its top ``k`` items in score order (``pool=None``) or
    a uniformly random ordered choice of ``k`` among its top ``pool`` items;
    with probability ``epsilon`` it *explores*, showing a uniformly random
    ordered choice of ``k`` among all eligible items.

    Parameters
    ----------
    scores : array-like of float, shape (n, n_items)
        The logging recommender's scores; higher is better. ``-inf`` marks an
        item that may not be shown to that row (for instance one the user has
        already interacted with); NaN and ``+inf`` are refused. Equal scores
        are ordered by the lower item index first.
    k : int
        Length of each list; every row needs at least ``k`` eligible items.
    epsilon : float, default=0.1
        Probability of exploring, in ``[0, 1]``. With ``epsilon=0`` and
        ``pool=None`` the policy is deterministic.
    pool : int, optional
        Number of top-scored items whose random ``k``-permutations the
        exploiting lists are (``>= k``; rows with fewer eligible items use
        them all). ``None`` keeps the greedy order.
    seed : int, default=0
        Seed (non-negative).

    Returns
    -------
    LoggedRankings
        The lists, the marginal propensity of every logged slot, the
        probability of every logged list, and methods giving the same for
        any other lists (a target policy's).

    Raises
    ------
    TypeError, ValueError
        For scores that are not a finite 2-D real array (apart from
        ``-inf``), ``k`` larger than a row's eligible items, ``epsilon``
        outside ``[0, 1]`` or ``pool < k``.

    Notes
    -----
    Every probability is exact, not estimated. With :math:`m_i` eligible
    items in row :math:`i`, greedy list :math:`g_i` and pool :math:`P_i` of
    size :math:`s_i`, the marginal of item :math:`a` at position :math:`j` is

    .. math::

        \\pi_0(a \\text{ at } j) = (1-\\varepsilon)\\,[a = g_{ij}]
        + \\frac{\\varepsilon}{m_i}

    without a pool, and :math:`(1-\\varepsilon)[a \\in P_i]/s_i +
    \\varepsilon/m_i` with one (a uniformly random ordered choice of ``k``
    among ``m`` items puts each of them at each position with probability
    ``1/m``). A list has probability :math:`(m-k)!/m!` under uniform
    exploration. These marginals are what item-position estimators need
    [1]_; randomised presentation (for instance swapping two results at
    random) is also how Joachims et al. estimate position bias [2]_. A Plackett-Luce
    (softmax) logger would be smoother, but its item-position marginals have
    no closed form.

    References
    ----------
    .. [1] S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay and
       Z. Wen, "Offline evaluation of ranking policies with click models",
       KDD 2018.
    .. [2] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased
       learning-to-rank with biased feedback", WSDM 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics_lib.datasets import sample_rankings
    >>> scores = np.array([[0.9, 0.1, 0.5, 0.3, -np.inf]])
    >>> log = sample_rankings(scores, 2, epsilon=0.0, seed=0)   # deterministic
    >>> log.lists.tolist(), log.propensities.tolist()
    ([[0, 2]], [[1.0, 1.0]])
    >>> log = sample_rankings(scores, 2, epsilon=0.2, pool=3, seed=0)
    >>> float(log.marginals(np.array([[3, 3]]))[0, 0])   # in the pool: 0.8/3 + 0.2/4
    0.31666666666666665
    """
    s = np.array(scores, dtype=float) if not isinstance(scores, np.ndarray) else scores
    if not np.issubdtype(np.asarray(s).dtype, np.number) or np.asarray(s).dtype == bool:
        raise TypeError(f"scores must be a real array; got dtype {np.asarray(s).dtype}")
    s = np.array(s, dtype=float)   # a private copy: the input is never touched
    if s.ndim != 2:
        raise ValueError(f"scores must be two-dimensional (rows x items); got shape {s.shape}")
    if np.isnan(s).any() or np.isposinf(s).any():
        raise ValueError("scores contains NaN or +inf; only -inf (not eligible) is allowed")
    n, n_items = s.shape
    k = check_k(k, "k", allow_none=False)
    eligible = np.isfinite(s)
    n_eligible = eligible.sum(axis=1)
    if n == 0:
        raise ValueError("scores has no rows")
    if (n_eligible < k).any():
        row = int(np.argmax(n_eligible < k))
        raise ValueError(f"row {row} of scores has {int(n_eligible[row])} eligible items "
                         f"(finite scores), fewer than k={k}")
    epsilon = check_real("epsilon", epsilon, low=0, high=1)
    if pool is not None:
        pool = check_k(pool, "pool", allow_none=False)
        if pool < k:
            raise ValueError(f"pool must be at least k={k}; got {pool}")
    seed = _check_seed(seed)
    rng = np.random.default_rng([seed, 3])

    order = np.argsort(-s, axis=1, kind="stable")       # ties: lower item index first
    greedy = order[:, :k]
    rows = np.arange(n)[:, None]
    in_pool = None
    if pool is not None:
        size = np.minimum(pool, n_eligible)
        in_pool = np.zeros((n, n_items), dtype=bool)
        in_pool[rows, order[:, :pool]] = np.arange(min(pool, n_items))[None, :] < size[:, None]

    explore = rng.random(n) < epsilon
    keys = rng.random((n, n_items))
    # a uniformly random ordered choice of k = the k smallest random keys, in key order
    allowed = np.where(explore[:, None], eligible,
                       eligible if pool is None else in_pool)
    keys = np.where(allowed, keys, np.inf)
    chosen = np.argpartition(keys, k - 1, axis=1)[:, :k]
    chosen = np.take_along_axis(chosen, np.argsort(np.take_along_axis(keys, chosen, axis=1),
                                                   axis=1, kind="stable"), axis=1)
    lists = np.where(explore[:, None] | (pool is not None), chosen, greedy).astype(np.int64)

    log = LoggedRankings(lists=_readonly(lists), propensities=_readonly(np.zeros((n, k))),
                         slate_propensities=_readonly(np.zeros(n)), epsilon=epsilon,
                         pool=pool, n_items=n_items, _eligible=_readonly(eligible),
                         _in_pool=None if in_pool is None else _readonly(in_pool),
                         _greedy=_readonly(greedy.astype(np.int64)))
    object.__setattr__(log, "propensities", _readonly(log.marginals(lists)))
    object.__setattr__(log, "slate_propensities", _readonly(log.slate_probability(lists)))
    return log
