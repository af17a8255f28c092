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

from ._validation import check_k, check_open_unit, check_real

__all__ = ["SimulatedWorld", "simulate_world"]

_CHUNK = 4096  # users per block when a users x items matrix is built


def _check_seed(seed) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be a non-negative integer; got "
                        f"{type(seed).__name__} {seed!r}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed}")
    return int(seed)


def _check_thresholds(thresholds) -> tuple:
    if isinstance(thresholds, (str, bytes)) or np.isscalar(thresholds):
        raise TypeError("grade_thresholds must be a sequence of probabilities, "
                        f"got {thresholds!r}")
    values = tuple(check_open_unit("grade_thresholds", t) for t in thresholds)
    if not values:
        raise ValueError("grade_thresholds is empty; give at least one probability")
    if any(b <= a for a, b in zip(values, values[1:])):
        raise ValueError(f"grade_thresholds must be strictly increasing; got {values}")
    return values


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
    _grade_cut: np.ndarray = field(init=False)

    def __post_init__(self):
        logits = (np.log(np.array(self.grade_thresholds))
                  - np.log1p(-np.array(self.grade_thresholds)))
        object.__setattr__(self, "_grade_cut", _readonly(logits))

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
            ``sigmoid(preference_strength * affinity + baseline_logit)``, in
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
        return _sigmoid(self.preference_strength * a + self.baseline_logit)

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
        return _sigmoid(self.preference_strength * logits + self.baseline_logit)

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
        logit = (self.preference_strength * self.true_affinity(users, items)
                 + self.baseline_logit)
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
                         session_size=self.session_size, seed=seed)


def _populate(rng, n_users, item_factors, item_appeal, item_exposure, *,
              preference_strength, baseline_logit, grade_thresholds, n_days,
              test_start, sessions_per_user, session_size, seed) -> SimulatedWorld:
    """Draw users, their sessions and clicks for fixed items."""
    n_items, n_factors = item_factors.shape
    scale = n_factors ** -0.25  # so that x_u . y_i has variance 1
    user_factors = rng.normal(0.0, scale, size=(n_users, n_factors))

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
                 + baseline_logit)
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
                   seed=0) -> SimulatedWorld:
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

    .. math:: p(u, i) = \\sigma\\big(s\\,(x_u^\\top y_i + b_i) + c\\big)

    with ``s = preference_strength`` and ``c = baseline_logit``. Clicks
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
                     seed=seed)
