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

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import check_k, check_real
from ._random import _check_seed, _keyed_uniform, _readonly, _sigmoid


_CHUNK = 4096  # users per block when a users x items matrix is built


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
