"""A small simulated world whose true user preferences are known.

Real interaction logs never tell us what a user *would* have liked: only what
they were shown and then clicked. That makes it impossible to check whether an
offline metric computed on logged data predicts the online result of a
recommender. :func:`simulate_world` builds a world in which the truth is known,
so the book can compare offline metrics with a simulated A/B test.

The simulator lives in ``metrics_lib`` (not in a helper script next to the
notebooks) for three reasons: several chapters (beyond-accuracy metrics, the
offline protocol, the capstone) use the *same* world, so it must be importable
from any of them; the unit tests in ``tests/`` can check its promises
(determinism, shapes, consistency of grades and probabilities); and readers can
reuse it with ``pip install`` to try their own recommenders. It depends on
numpy and pandas only.

The generative story
--------------------
1. Every user ``u`` and item ``i`` gets a latent vector (``n_factors``
   normal entries); every item also gets an appeal ``b_i`` shared by all
   users. The true affinity is ``a(u, i) = x_u . y_i + b_i``.
2. The probability that ``u`` clicks ``i`` *when shown it* is
   ``sigmoid(preference_strength * a(u, i) + baseline_logit)``.
3. Exposure is biased: the platform shows item ``i`` with a probability
   proportional to ``rank_i ** -popularity_bias`` (a Zipf law), where the
   exposure ranks depend on item appeal only through
   ``exposure_appeal_correlation``. Popular items are shown a lot whether or
   not users like them.
4. Each user has a Poisson number of sessions on random days ``0 .. n_days-1``;
   each session shows ``session_size`` items drawn from the exposure law, and
   the user clicks each with its true probability. The first click on an item
   is an interaction ``(user, item, timestamp)``.
5. Days from ``test_start`` on form the test period. For every user and every
   item the user did not interact with before ``test_start``, the graded
   relevance is known exactly: the number of ``grade_thresholds`` that the
   true click probability reaches (0 to 3 with the defaults).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._movielens import MovieLens100K
from ._validation import check_k, check_open_unit, check_real, show

__all__ = ["SimulatedWorld", "simulate_world", "LoggedRankings", "sample_rankings",
           "load_movielens_100k", "MovieLens100K"]

_CHUNK = 4096  # users per block when a users x items matrix is built


def _check_seed(seed) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be a non-negative integer; got "
                        f"{type(seed).__name__} {show(seed)}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed}")
    return int(seed)


def _check_thresholds(thresholds) -> tuple:
    if isinstance(thresholds, (str, bytes)) or np.isscalar(thresholds):
        raise TypeError("grade_thresholds must be a sequence of probabilities, "
                        f"got {show(thresholds)}")
    values = tuple(check_open_unit("grade_thresholds", t) for t in thresholds)
    if not values:
        raise ValueError("grade_thresholds is empty; give at least one probability")
    if any(b <= a for a, b in zip(values, values[1:])):
        raise ValueError(f"grade_thresholds must be strictly increasing; got {values}")
    return values


# -- common random numbers ----------------------------------------------------
# Counter-based uniforms: a hash of (seed, stream, a, b) instead of a sequential
# generator, so that the draw of user u at rank r (or for item i) is the same
# whichever other users or lists are simulated in the same call.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _splitmix64(x):
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _keyed_uniform(seed, stream, a, b):
    """Uniform(0, 1) numbers that depend only on (seed, stream, a, b)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    h = _splitmix64(np.full(a.shape, seed, dtype=np.uint64) * np.uint64(4) + np.uint64(stream))
    h = _splitmix64(h ^ a.astype(np.uint64))
    h = _splitmix64(h ^ b.astype(np.uint64))
    return (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # overflow-free logistic


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array)  # a private copy
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False, repr=False)
class SimulatedWorld:
    """Users, items, their true preferences and the interactions they produced.

    Build one with :func:`simulate_world`; a second population of users for
    the same items comes from :meth:`new_users`. Users and items are the
    integers ``0 .. n_users-1`` and ``0 .. n_items-1``.

    Attributes
    ----------
    user_factors : ndarray of shape (n_users, n_factors)
        Latent user vectors ``x_u`` (read-only).
    item_factors : ndarray of shape (n_items, n_factors)
        Latent item vectors ``y_i`` (read-only).
    item_appeal : ndarray of shape (n_items,)
        Appeal ``b_i`` of each item to every user (read-only).
    item_exposure : ndarray of shape (n_items,)
        Probability that one shown slot holds item ``i`` (sums to 1,
        read-only). This is the popularity bias of the platform, not taste.
    interactions : pandas.DataFrame
        Columns ``user``, ``item``, ``timestamp`` (int day), one row per first
        click on an item, sorted by timestamp, user, item.
    test_start : int
        First day of the test period.
    test_relevance : pandas.DataFrame
        Columns ``user``, ``item``, ``grade``: the exact graded relevance
        (grade >= 1 only; every missing pair has grade 0) of the items each
        user had not interacted with before ``test_start``.
    preference_strength, baseline_logit : float
        Slope and intercept of the click model.
    grade_thresholds : tuple of float
        Click probabilities at which the grade goes up by one.
    n_days, sessions_per_user, session_size, seed :
        The settings the interactions were drawn with.
    user_activity : ndarray of shape (n_users,)
        Each user's offset on the click logit (read-only; all 0 unless
        ``user_activity_scale`` was set): some users click more than others
        whatever they are shown, in every period.
    user_activity_scale : float
        Standard deviation the offsets were drawn with.
    """

    user_factors: np.ndarray
    item_factors: np.ndarray
    item_appeal: np.ndarray
    item_exposure: np.ndarray
    interactions: pd.DataFrame
    test_start: int
    test_relevance: pd.DataFrame
    preference_strength: float
    baseline_logit: float
    grade_thresholds: tuple
    n_days: int
    sessions_per_user: float
    session_size: int
    seed: int
    user_activity: np.ndarray = None
    user_activity_scale: float = 0.0
    _grade_cut: np.ndarray = field(init=False)

    def __post_init__(self):
        logits = (np.log(np.array(self.grade_thresholds))
                  - np.log1p(-np.array(self.grade_thresholds)))
        object.__setattr__(self, "_grade_cut", _readonly(logits))
        if self.user_activity is None:
            object.__setattr__(self, "user_activity",
                               _readonly(np.zeros(self.user_factors.shape[0])))

    # -- sizes and splits ---------------------------------------------------
    @property
    def n_users(self) -> int:
        """Number of users."""
        return int(self.user_factors.shape[0])

    @property
    def n_items(self) -> int:
        """Number of items."""
        return int(self.item_factors.shape[0])

    @property
    def n_factors(self) -> int:
        """Length of the latent vectors."""
        return int(self.item_factors.shape[1])

    @property
    def train_interactions(self) -> pd.DataFrame:
        """Interactions before ``test_start`` (a copy)."""
        return self.interactions[self.interactions["timestamp"] < self.test_start] \
            .reset_index(drop=True)

    @property
    def test_interactions(self) -> pd.DataFrame:
        """Interactions from ``test_start`` on (a copy): the logged test set."""
        return self.interactions[self.interactions["timestamp"] >= self.test_start] \
            .reset_index(drop=True)

    @property
    def item_popularity(self) -> np.ndarray:
        """Number of training-period interactions of each item (int array)."""
        items = self.train_interactions["item"].to_numpy()
        return np.bincount(items, minlength=self.n_items).astype(np.int64)

    def __repr__(self) -> str:
        return (f"SimulatedWorld(n_users={self.n_users}, n_items={self.n_items}, "
                f"n_factors={self.n_factors}, n_interactions={len(self.interactions)}, "
                f"test_start={self.test_start}, seed={self.seed})")

    # -- the truth ------------------------------------------------------------
    def _indices(self, users, items):
        checked = []
        for name, values, size in (("users", users, self.n_users),
                                   ("items", items, self.n_items)):
            idx = np.asarray(values)
            if idx.size == 0:
                idx = idx.astype(np.int64)
            if idx.dtype == bool or not np.issubdtype(idx.dtype, np.integer):
                raise TypeError(f"{name} must hold integer indices; got dtype "
                                f"{idx.dtype}")
            if idx.size and (idx.min() < 0 or idx.max() >= size):
                bad = idx[(idx < 0) | (idx >= size)].flat[0]
                raise ValueError(f"{name} contains {bad}, outside 0 .. {size - 1}")
            checked.append(idx.astype(np.int64))
        try:
            u, i = np.broadcast_arrays(*checked)
        except ValueError:
            raise ValueError(f"users of shape {np.shape(users)} and items of shape "
                             f"{np.shape(items)} do not broadcast") from None
        return u, i

    def true_affinity(self, users, items) -> np.ndarray:
        """True affinity ``x_u . y_i + b_i`` of user-item pairs.

        Parameters
        ----------
        users, items : array-like of int
            User and item indices; broadcast against each other like numpy
            arrays (``users[:, None]`` with an ``(n, k)`` array of items gives
            the affinities of ``n`` lists of ``k`` items).

        Returns
        -------
        ndarray of float
            The affinities, in the broadcast shape.

        Examples
        --------
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> world.true_affinity([0, 1], [5, 5]).shape
        (2,)
        """
        u, i = self._indices(users, items)
        flat_u, flat_i = u.ravel(), i.ravel()
        out = np.empty(flat_u.size)
        step = 1 << 16
        for start in range(0, flat_u.size, step):
            su, si = flat_u[start:start + step], flat_i[start:start + step]
            out[start:start + step] = np.einsum(
                "nf,nf->n", self.user_factors[su], self.item_factors[si])
        out += self.item_appeal[flat_i]
        return out.reshape(u.shape)

    def true_click_probability(self, users, items) -> np.ndarray:
        """Probability that a user clicks an item when it is examined.

        Parameters
        ----------
        users, items : array-like of int
            User and item indices, broadcast like numpy arrays.

        Returns
        -------
        ndarray of float
            ``sigmoid(preference_strength * affinity + baseline_logit
            + user_activity[u])``, in
            the broadcast shape.

        See Also
        --------
        click_probability_matrix : every item for a block of users.
        simulate_clicks : draw clicks on ranked lists.

        Examples
        --------
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> p = world.true_click_probability([[0], [1]], [[0, 1, 2]])
        >>> p.shape, bool(((p > 0) & (p < 1)).all())
        ((2, 3), True)
        """
        a = self.true_affinity(users, items)
        u, _ = self._indices(users, items)
        return _sigmoid(self.preference_strength * a + self.baseline_logit
                        + self.user_activity[u])

    def click_probability_matrix(self, users=None) -> np.ndarray:
        """True click probabilities of users (rows) for every item (columns).

        Parameters
        ----------
        users : array-like of int, optional
            Row indices; all users when omitted.

        Returns
        -------
        ndarray of shape (len(users), n_items)

        Examples
        --------
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> world.click_probability_matrix().shape
        (20, 30)
        """
        if users is None:
            rows = np.arange(self.n_users)
        else:
            rows, _ = self._indices(users, 0)
            if rows.ndim != 1:
                raise ValueError(f"users must be one-dimensional; got shape {rows.shape}")
        logits = self.user_factors[rows] @ self.item_factors.T + self.item_appeal
        return _sigmoid(self.preference_strength * logits + self.baseline_logit
                        + self.user_activity[rows][:, None])

    def true_grade(self, users, items) -> np.ndarray:
        """Exact graded relevance (0 .. len(grade_thresholds)) of pairs.

        Parameters
        ----------
        users, items : array-like of int
            User and item indices, broadcast like numpy arrays.

        Returns
        -------
        ndarray of int
            How many of ``grade_thresholds`` the true click probability
            reaches.

        Examples
        --------
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> int(world.true_grade(0, 0)) in (0, 1, 2, 3)
        True
        """
        u, _ = self._indices(users, items)
        logit = (self.preference_strength * self.true_affinity(users, items)
                 + self.baseline_logit + self.user_activity[u])
        # compare on the logit scale: no rounding at the edges of the sigmoid
        return (logit[..., None] >= self._grade_cut).sum(axis=-1).astype(np.int64)

    # -- online simulation ----------------------------------------------------
    def simulate_clicks(self, users, recommended, *, position_bias=1.0, seed=0):
        """Clicks of users on ranked lists under a position-based model.

        A user examines rank ``r`` (1-based) with probability
        ``r ** -position_bias`` and, if examined, clicks with the true click
        probability. Examination and attraction are independent.

        Parameters
        ----------
        users : array-like of int, shape (n,)
            One user per list.
        recommended : array-like of int, shape (n, k)
            Item indices in rank order, one row per user.
        position_bias : float, default=1.0
            Exponent of the examination curve; 0 means every slot is seen.
        seed : int, default=0
            Seed of the random clicks.

        Returns
        -------
        ndarray of bool, shape (n, k)
            ``True`` where the user clicked.

        Examples
        --------
        >>> import numpy as np
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> lists = np.tile(np.arange(5), (20, 1))
        >>> world.simulate_clicks(np.arange(20), lists, seed=3).shape
        (20, 5)
        """
        eta = check_real("position_bias", position_bias, low=0)
        seed = _check_seed(seed)
        u = np.asarray(users)
        rec = np.asarray(recommended)
        if u.ndim != 1:
            raise ValueError(f"users must be one-dimensional; got shape {u.shape}")
        if rec.ndim != 2 or rec.shape[0] != u.shape[0]:
            raise ValueError("recommended must have shape (len(users), k); got "
                             f"{rec.shape} for {u.shape[0]} users")
        p = self.true_click_probability(u[:, None], rec)
        examine = np.arange(1, rec.shape[1] + 1, dtype=float) ** -eta
        rng = np.random.default_rng(seed)
        return rng.random(p.shape) < p * examine

    def examination_probability(self, n_positions, *, position_bias=1.0):
        """Probability that a user examines each rank of a list.

        Parameters
        ----------
        n_positions : int
            Length of the list (positive).
        position_bias : float, default=1.0
            Exponent ``eta`` of the curve ``r ** -eta`` (>= 0; 0 means every
            rank is examined).

        Returns
        -------
        ndarray of shape (n_positions,)
            ``e_r = r ** -position_bias`` for ranks ``r = 1 .. n_positions``.

        Notes
        -----
        This is the examination curve of the position-based click model used
        by :meth:`simulate_clicks`, :meth:`position_based_clicks` and
        :meth:`expected_clicks`; the power law is the examination model of
        the simulation experiments of Joachims et al. [1]_.

        References
        ----------
        .. [1] T. Joachims, A. Swaminathan and T. Schnabel, "Unbiased
           learning-to-rank with biased feedback", WSDM 2017.

        Examples
        --------
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> world.examination_probability(4).round(3).tolist()
        [1.0, 0.5, 0.333, 0.25]
        """
        n_positions = check_k(n_positions, "n_positions", allow_none=False)
        eta = check_real("position_bias", position_bias, low=0)
        return np.arange(1, n_positions + 1, dtype=float) ** -eta

    def _check_lists(self, users, recommended):
        u = np.asarray(users)
        rec = np.asarray(recommended)
        if u.ndim != 1:
            raise ValueError(f"users must be one-dimensional; got shape {u.shape}")
        if rec.ndim != 2 or rec.shape[0] != u.shape[0]:
            raise ValueError("recommended must have shape (len(users), k); got "
                             f"{rec.shape} for {u.shape[0]} users")
        u, rec = self._indices(u[:, None], rec)
        return u[:, 0], rec

    def expected_clicks(self, users, recommended, *, position_bias=1.0):
        """Exact click probability of every slot under the position-based model.

        Parameters
        ----------
        users : array-like of int, shape (n,)
            One user per list.
        recommended : array-like of int, shape (n, k)
            Item indices in rank order, one row per user.
        position_bias : float, default=1.0
            Exponent of the examination curve (see
            :meth:`examination_probability`).

        Returns
        -------
        ndarray of shape (n, k)
            ``e_r * p(u, i)``: examination of the rank times the true click
            probability of the item. Its mean is the list's true online CTR
            per shown slot, without simulation noise.

        Notes
        -----
        The position-based model [1]_: a click needs the slot to be examined
        (probability depending on the rank only) and the item to attract the
        user (probability depending on the user and the item only), and the
        two are independent.

        References
        ----------
        .. [1] N. Craswell, O. Zoeter, M. Taylor and B. Ramsey, "An
           experimental comparison of click position-bias models", WSDM 2008.

        Examples
        --------
        >>> import numpy as np
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> lists = np.tile(np.arange(5), (20, 1))
        >>> world.expected_clicks(np.arange(20), lists).shape
        (20, 5)
        """
        u, rec = self._check_lists(users, recommended)
        examine = self.examination_probability(rec.shape[1], position_bias=position_bias)
        return self.true_click_probability(u[:, None], rec) * examine

    def position_based_clicks(self, users, recommended, *, position_bias=1.0, seed=0):
        """Clicks under the position-based model with common random numbers.

        Like :meth:`simulate_clicks`, but every random number is tied to what
        it decides: the examination of rank ``r`` by user ``u`` uses a uniform
        number keyed by ``(seed, u, r)`` and the attraction of ``u`` to item
        ``i`` one keyed by ``(seed, u, i)``. Two recommenders shown to the
        same users with the same seed therefore get identical clicks wherever
        their lists agree, and differ only through their lists.

        Parameters
        ----------
        users : array-like of int, shape (n,)
            One user per list (a user may appear several times: the draws
            are then the same, as for the same person seeing two lists).
        recommended : array-like of int, shape (n, k)
            Item indices in rank order, one row per user.
        position_bias : float, default=1.0
            Exponent of the examination curve ``r ** -position_bias``.
        seed : int, default=0
            Seed of the click noise (non-negative).

        Returns
        -------
        ndarray of bool, shape (n, k)
            ``True`` where the user clicked: ``U_exam(u, r) < e_r`` and
            ``U_attr(u, i) < p(u, i)``.

        Notes
        -----
        Common random numbers (the same noise for every system compared) are
        the standard variance-reduction device of simulation studies [1]_;
        keying the numbers by unit (a counter-based generator, here a
        SplitMix64 hash [2]_) keeps them common when the lists differ. Each
        slot is clicked with probability ``e_r * p(u, i)``
        (:meth:`expected_clicks`), the position-based model [3]_. Within a
        list the same item never appears twice, so the attraction draws of a
        list are independent.

        References
        ----------
        .. [1] A. M. Law, *Simulation Modeling and Analysis*, 5th ed.,
           McGraw-Hill, 2015, section 11.2 (common random numbers).
        .. [2] G. L. Steele, D. Lea and C. H. Flood, "Fast splittable
           pseudorandom number generators", OOPSLA 2014.
        .. [3] N. Craswell, O. Zoeter, M. Taylor and B. Ramsey, "An
           experimental comparison of click position-bias models", WSDM 2008.

        Examples
        --------
        >>> import numpy as np
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> users = np.arange(20)
        >>> a = np.tile(np.arange(5), (20, 1))
        >>> b = a.copy(); b[:, 4] = 7          # the lists differ in the last slot only
        >>> ca = world.position_based_clicks(users, a, seed=3)
        >>> cb = world.position_based_clicks(users, b, seed=3)
        >>> bool((ca[:, :4] == cb[:, :4]).all())
        True
        """
        seed = _check_seed(seed)
        u, rec = self._check_lists(users, recommended)
        examine = self.examination_probability(rec.shape[1], position_bias=position_bias)
        ranks = np.arange(rec.shape[1])[None, :]
        u_exam = _keyed_uniform(seed, 1, u[:, None], ranks)
        u_attr = _keyed_uniform(seed, 2, u[:, None], rec)
        p = self.true_click_probability(u[:, None], rec)
        return (u_exam < examine) & (u_attr < p)

    def pre_period(self, users=None, *, sessions_per_user=None, seed=0):
        """Clicks and impressions of users in a period before an experiment.

        Each user has ``1 + Poisson(sessions_per_user - 1)`` sessions; each
        session shows ``session_size`` items drawn from the platform's
        exposure law (``item_exposure``), and the user clicks each with the
        true click probability, as in the world's own history. The counts
        are the covariate of CUPED: they share the user's taste with the
        experiment's outcome but not its random noise.

        Parameters
        ----------
        users : array-like of int, optional
            Users (default: all), one row each in the result.
        sessions_per_user : float, optional
            Mean sessions per user (>= 1); default: the world's.
        seed : int, default=0
            Seed (non-negative). A user's counts depend on the seed and the
            user only, not on which other users are asked for.

        Returns
        -------
        pandas.DataFrame
            Columns ``user``, ``impressions``, ``clicks`` (int64), one row per
            requested user in the given order.

        Notes
        -----
        The regression adjustment of Deng et al. [1]_ removes from the
        experiment metric the part predicted by a pre-experiment covariate;
        the more the two correlate, the more variance is removed.

        References
        ----------
        .. [1] A. Deng, Y. Xu, R. Kohavi and T. Walker, "Improving the
           sensitivity of online controlled experiments by utilizing
           pre-experiment data", WSDM 2013.

        Examples
        --------
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> pre = world.pre_period(seed=5)
        >>> list(pre.columns), len(pre)
        (['user', 'impressions', 'clicks'], 20)
        >>> bool((pre["clicks"] <= pre["impressions"]).all())
        True
        """
        seed = _check_seed(seed)
        if users is None:
            u = np.arange(self.n_users)
        else:
            u, _ = self._indices(users, 0)
            if u.ndim != 1:
                raise ValueError(f"users must be one-dimensional; got shape {u.shape}")
        mean = (self.sessions_per_user if sessions_per_user is None
                else check_real("sessions_per_user", sessions_per_user, low=1))
        impressions = np.zeros(u.size, dtype=np.int64)
        clicks = np.zeros(u.size, dtype=np.int64)
        cumulative = np.cumsum(self.item_exposure)
        for row, user in enumerate(u):
            # one generator per (seed, user): the same user gets the same history
            rng = np.random.default_rng([seed, 2, int(user)])
            n_shown = (1 + rng.poisson(mean - 1.0)) * self.session_size
            items = np.minimum(np.searchsorted(cumulative, rng.random(n_shown), side="right"),
                               self.n_items - 1)
            p = self.true_click_probability(user, items)
            impressions[row] = n_shown
            clicks[row] = int((rng.random(n_shown) < p).sum())
        return pd.DataFrame({"user": u.astype(np.int64), "impressions": impressions,
                             "clicks": clicks})

    def new_users(self, n_users, seed):
        """A fresh population of users for the same items and platform.

        The new users' vectors and interactions are drawn exactly as in
        :func:`simulate_world`, with the same items, exposure law, click
        model, days and grade thresholds.

        Parameters
        ----------
        n_users : int
            Number of new users (positive).
        seed : int
            Seed of the new population (non-negative).

        Returns
        -------
        SimulatedWorld
            Same ``item_factors``, ``item_appeal`` and ``item_exposure``; new
            users, interactions and test relevance.

        Examples
        --------
        >>> from metrics_lib import simulate_world
        >>> world = simulate_world(n_users=20, n_items=30, seed=1)
        >>> fresh = world.new_users(10, seed=2)
        >>> fresh.n_users, fresh.n_items, bool((fresh.item_factors == world.item_factors).all())
        (10, 30, True)
        """
        n_users = check_k(n_users, "n_users", allow_none=False)
        seed = _check_seed(seed)
        rng = np.random.default_rng([seed, 1])  # streams differ from simulate_world's
        return _populate(rng, n_users, self.item_factors, self.item_appeal,
                         self.item_exposure, preference_strength=self.preference_strength,
                         baseline_logit=self.baseline_logit,
                         grade_thresholds=self.grade_thresholds, n_days=self.n_days,
                         test_start=self.test_start,
                         sessions_per_user=self.sessions_per_user,
                         session_size=self.session_size, seed=seed,
                         activity_scale=self.user_activity_scale, activity_stream=1)


def _populate(rng, n_users, item_factors, item_appeal, item_exposure, *,
              preference_strength, baseline_logit, grade_thresholds, n_days,
              test_start, sessions_per_user, session_size, seed,
              activity_scale=0.0, activity_stream=0) -> SimulatedWorld:
    """Draw users, their sessions and clicks for fixed items."""
    n_items, n_factors = item_factors.shape
    scale = n_factors ** -0.25  # so that x_u . y_i has variance 1
    user_factors = rng.normal(0.0, scale, size=(n_users, n_factors))
    # A separate stream, so that worlds without activity offsets keep every number
    # they had before the option existed.
    if activity_scale > 0:
        activity = activity_scale * np.random.default_rng(
            [seed, 4 + activity_stream]).normal(size=n_users)
    else:
        activity = np.zeros(n_users)

    # Sessions: at least one per user, Poisson extra ones, on uniform days.
    n_sessions = 1 + rng.poisson(sessions_per_user - 1.0, size=n_users)
    session_user = np.repeat(np.arange(n_users), n_sessions)
    session_day = rng.integers(0, n_days, size=session_user.size)
    # Each session shows session_size items drawn from the exposure law.
    shown = rng.choice(n_items, size=(session_user.size, session_size), p=item_exposure)
    shown_user = np.repeat(session_user, session_size)
    shown_item = shown.ravel()
    shown_day = np.repeat(session_day, session_size)

    world = SimulatedWorld(
        user_factors=_readonly(user_factors),
        item_factors=_readonly(item_factors),
        item_appeal=_readonly(item_appeal),
        item_exposure=_readonly(item_exposure),
        interactions=pd.DataFrame({"user": [], "item": [], "timestamp": []}),
        test_start=int(test_start),
        test_relevance=pd.DataFrame({"user": [], "item": [], "grade": []}),
        preference_strength=float(preference_strength),
        baseline_logit=float(baseline_logit),
        grade_thresholds=tuple(grade_thresholds),
        n_days=int(n_days),
        sessions_per_user=float(sessions_per_user),
        session_size=int(session_size),
        seed=int(seed),
        user_activity=_readonly(activity),
        user_activity_scale=float(activity_scale),
    )
    p = world.true_click_probability(shown_user, shown_item)
    clicked = rng.random(p.size) < p
    log = pd.DataFrame({"user": shown_user[clicked], "item": shown_item[clicked],
                        "timestamp": shown_day[clicked]}).astype(np.int64)
    log = (log.sort_values(["user", "item", "timestamp"], kind="stable")
              .drop_duplicates(["user", "item"], keep="first")
              .sort_values(["timestamp", "user", "item"], kind="stable")
              .reset_index(drop=True))

    # Exact graded relevance of the items each user has not met in training.
    train = log[log["timestamp"] < test_start]
    seen = np.zeros((n_users, n_items), dtype=bool)
    seen[train["user"].to_numpy(), train["item"].to_numpy()] = True
    blocks = []
    for start in range(0, n_users, _CHUNK):
        rows = np.arange(start, min(start + _CHUNK, n_users))
        logit = (preference_strength
                 * (user_factors[rows] @ item_factors.T + item_appeal)
                 + baseline_logit + activity[rows][:, None])
        grade = np.zeros(logit.shape, dtype=np.int64)
        for cut in world._grade_cut:
            grade += logit >= cut
        grade[seen[rows]] = 0
        r, c = np.nonzero(grade)
        blocks.append(pd.DataFrame({"user": rows[r], "item": c,
                                    "grade": grade[r, c]}).astype(np.int64))
    relevance = pd.concat(blocks, ignore_index=True)
    object.__setattr__(world, "interactions", log)
    object.__setattr__(world, "test_relevance", relevance)
    return world


def simulate_world(n_users=1000, n_items=500, n_factors=16, *, popularity_bias=1.0,
                   exposure_appeal_correlation=0.5, appeal_scale=0.5,
                   preference_strength=2.5, baseline_logit=-4.0,
                   grade_thresholds=(0.1, 0.25, 0.5), n_days=100,
                   test_fraction=0.2, sessions_per_user=10.0, session_size=20,
                   user_activity_scale=0.0, seed=0) -> SimulatedWorld:
    """Simulate users, items, biased exposure, clicks and exact relevance.

    Parameters
    ----------
    n_users, n_items, n_factors : int, default=1000, 500, 16
        Sizes of the world (positive integers).
    popularity_bias : float, default=1.0
        Zipf exponent of exposure: the item of exposure rank ``r`` is shown
        with probability proportional to ``r ** -popularity_bias``. 0 shows
        every item equally often.
    exposure_appeal_correlation : float, default=0.5
        Correlation, in ``[-1, 1]``, between an item's appeal and the score
        that sets its exposure rank. 0: the platform promotes items at random.
    appeal_scale : float, default=0.5
        Standard deviation of the item appeal ``b_i`` (>= 0).
    preference_strength : float, default=2.5
        Slope of the click model on the affinity (> 0).
    baseline_logit : float, default=-4.0
        Intercept of the click model; lower means fewer clicks.
    grade_thresholds : sequence of float, default=(0.1, 0.25, 0.5)
        Strictly increasing click probabilities in ``(0, 1)``; an item's grade
        is the number of them its true click probability reaches.
    n_days : int, default=100
        Length of the log in days; timestamps are ``0 .. n_days-1``.
    test_fraction : float, default=0.2
        Share of the days, at the end, that forms the test period, in
        ``(0, 1)``.
    sessions_per_user : float, default=10.0
        Mean number of sessions per user (>= 1; one plus a Poisson number).
    session_size : int, default=20
        Items shown per session (drawn with replacement from the exposure
        law).
    user_activity_scale : float, default=0.0
        Standard deviation (>= 0) of a per-user offset ``o_u`` added to the
        click logit: heavy and light clickers, the same in every period, so
        that pre-period activity (:meth:`SimulatedWorld.pre_period`) predicts
        the experiment's outcome as in real platforms. 0 (the default) keeps
        the world exactly as without the option.
    seed : int, default=0
        Seed; the same arguments and seed give the same world.

    Returns
    -------
    SimulatedWorld

    Raises
    ------
    TypeError
        If an argument has the wrong type (for example a float size).
    ValueError
        If an argument is out of range.

    See Also
    --------
    SimulatedWorld.new_users : fresh users for an A/B test.
    SimulatedWorld.simulate_clicks : clicks on ranked lists.

    Notes
    -----
    With ``f = n_factors``, user and item vectors have independent
    :math:`N(0, 1/\\sqrt{f})` entries, so the dot product has variance about
    1, and the appeal is :math:`N(0, \\text{appeal\\_scale}^2)`. The click
    probability of a shown item is

    .. math:: p(u, i) = \\sigma\\big(s\\,(x_u^\\top y_i + b_i) + c + o_u\\big)

    with ``s = preference_strength``, ``c = baseline_logit`` and the user
    offset :math:`o_u \\sim N(0, \\text{user\\_activity\\_scale}^2)` (0 by
    default). Clicks
    depend on taste; *which* items get the chance to be clicked depends on
    exposure. Observed popularity therefore mixes appeal with the platform's
    bias, as in real logs.

    ``test_start = n_days - round(test_fraction * n_days)`` (at least one
    day on each side). ``test_relevance`` excludes the items a user
    interacted with before ``test_start``, since recommenders filter them.

    References
    ----------
    .. [1] Koren, Bell and Volinsky, "Matrix factorization techniques for
       recommender systems", IEEE Computer 42(8), 2009.
    .. [2] Chaney, Stewart and Engelhardt, "How algorithmic confounding in
       recommendation systems increases homogeneity and decreases utility",
       RecSys 2018.

    Examples
    --------
    >>> from metrics_lib import simulate_world
    >>> world = simulate_world(n_users=200, n_items=100, seed=42)
    >>> world
    SimulatedWorld(n_users=200, n_items=100, n_factors=16, n_interactions=..., test_start=80, seed=42)
    >>> list(world.interactions.columns), list(world.test_relevance.columns)
    (['user', 'item', 'timestamp'], ['user', 'item', 'grade'])
    >>> same = simulate_world(n_users=200, n_items=100, seed=42)
    >>> same.interactions.equals(world.interactions)
    True
    """
    n_users = check_k(n_users, "n_users", allow_none=False)
    n_items = check_k(n_items, "n_items", allow_none=False)
    n_factors = check_k(n_factors, "n_factors", allow_none=False)
    popularity_bias = check_real("popularity_bias", popularity_bias, low=0)
    rho = check_real("exposure_appeal_correlation", exposure_appeal_correlation,
                      low=-1, high=1)
    appeal_scale = check_real("appeal_scale", appeal_scale, low=0)
    preference_strength = check_real("preference_strength", preference_strength,
                                      low=0, low_open=True)
    baseline_logit = check_real("baseline_logit", baseline_logit)
    grade_thresholds = _check_thresholds(grade_thresholds)
    n_days = check_k(n_days, "n_days", allow_none=False)
    if n_days < 2:
        raise ValueError(f"n_days must be at least 2 (a training and a test day); "
                         f"got {n_days}")
    test_fraction = check_open_unit("test_fraction", test_fraction)
    sessions_per_user = check_real("sessions_per_user", sessions_per_user, low=1)
    session_size = check_k(session_size, "session_size", allow_none=False)
    user_activity_scale = check_real("user_activity_scale", user_activity_scale, low=0)
    seed = _check_seed(seed)

    rng = np.random.default_rng([seed, 0])
    scale = n_factors ** -0.25
    item_factors = rng.normal(0.0, scale, size=(n_items, n_factors))
    appeal_z = rng.normal(size=n_items)
    item_appeal = appeal_scale * appeal_z
    # Exposure rank from a score correlated with appeal.
    promo = rho * appeal_z + math.sqrt(1.0 - rho * rho) * rng.normal(size=n_items)
    exposure_rank = np.empty(n_items, dtype=np.int64)
    exposure_rank[np.argsort(-promo, kind="stable")] = np.arange(1, n_items + 1)
    weights = exposure_rank.astype(float) ** -popularity_bias
    item_exposure = weights / weights.sum()

    n_test_days = min(max(int(round(test_fraction * n_days)), 1), n_days - 1)
    test_start = n_days - n_test_days
    return _populate(rng, n_users, item_factors, item_appeal, item_exposure,
                     preference_strength=preference_strength,
                     baseline_logit=baseline_logit, grade_thresholds=grade_thresholds,
                     n_days=n_days, test_start=test_start,
                     sessions_per_user=sessions_per_user, session_size=session_size,
                     seed=seed, activity_scale=user_activity_scale)


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


def load_movielens_100k(cache_dir=None, *, download=True):
    """MovieLens 100K as three pandas tables: ratings, films and users.

    943 users rated 1,682 films, 100,000 ratings from 1 to 5 stars with a
    timestamp, from September 1997 to April 1998, every user at least 20
    ratings. The files come from the RecBole 1.2.1 wheel on PyPI, which
    ships MovieLens 100K as "atomic files"; RecBole itself and its
    dependencies are not installed.

    Parameters
    ----------
    cache_dir : str or path-like, optional
        Folder for the downloaded wheel and the three extracted files.
        Default: ``$METRICS_LIB_DATA``, else ``~/.cache/metrics_lib``.
    download : bool, default=True
        When the files are neither in ``cache_dir`` nor in an installed
        ``recbole`` package, fetch the wheel with ``pip download
        recbole==1.2.1 --no-deps`` (about 2 MB, once). With ``False``, a
        missing copy raises ``FileNotFoundError`` instead.

    Returns
    -------
    MovieLens100K
        A frozen dataclass with ``ratings`` (``user``, ``item`` int32,
        ``rating`` int8, ``timestamp`` int64 seconds, ``time``
        datetime64[s]), ``items`` (``item``, ``title``, ``year`` nullable
        Int16, ``genres`` tuple of str), ``users`` (``user``, ``age`` int8,
        ``gender``, ``occupation``, ``zip_code``) and ``source`` (where the
        files were read from).

    Raises
    ------
    RuntimeError
        The data cannot be had: no installed RecBole, no cached copy, and
        the download failed (the message says how to fetch the wheel by hand).
    FileNotFoundError
        No copy and ``download=False``.
    ValueError
        A file whose SHA-256 or table shape is not the known one.

    Notes
    -----
    **Terms of use.** MovieLens data sets are published by GroupLens
    Research (University of Minnesota) for research use. They may not be
    redistributed without permission, and a publication that uses them must
    cite Harper and Konstan (2015) [1]_. This is why the book's repository does
    not contain the data: the loader fetches it from PyPI, where RecBole
    distributes it.

    Every file is checked against its SHA-256 (and the wheel against its
    own) and against the known shapes, so that a damaged download or a
    different copy is refused rather than silently evaluated. RecBole's copy
    keeps the original ``u.data`` ratings; its item file drops the IMDb URL
    and the release date but keeps the year and the genres.

    References
    ----------
    .. [1] F. Maxwell Harper and Joseph A. Konstan, "The MovieLens Datasets:
       History and Context", ACM Transactions on Interactive Intelligent
       Systems 5(4), 2015. https://doi.org/10.1145/2827872
    .. [2] RecBole 1.2.1, ``recbole/dataset_example/ml-100k/``,
       https://pypi.org/project/recbole/1.2.1/

    Examples
    --------
    >>> from metrics_lib.datasets import load_movielens_100k
    >>> ml100k = load_movielens_100k()                       # doctest: +SKIP
    >>> ml100k.ratings.shape, ml100k.users.shape, ml100k.items.shape  # doctest: +SKIP
    ((100000, 5), (943, 5), (1682, 4))
    """
    from ._movielens import load

    return load(cache_dir, download=download)
