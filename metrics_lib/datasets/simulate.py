"""Drawing a simulated world: latent factors, biased exposure, sessions and
clicks (:func:`simulate_world`; the generative story is in
:mod:`metrics_lib.datasets.simulated_world`).
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_k, check_open_unit, check_real
from ._random import _check_seed, _check_thresholds
from .simulated_world import SimulatedWorld, _populate


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
