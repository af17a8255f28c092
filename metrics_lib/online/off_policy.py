"""Counterfactual (off-policy) evaluation from logged data.

A recommender in production logs, for every impression, the context, the
action it took (the item or list shown), the reward (a click) and the
probability with which it took that action (the propensity). From such logs
one can estimate the reward a *different* policy would have earned, without
showing it to anyone: the offline answer to "what would the online CTR of the
new model be?".

``ips_estimate``
    inverse propensity scoring (Horvitz-Thompson): unbiased when the logger
    gave every action the target policy takes a positive probability;
``snips_estimate``
    self-normalised IPS: divides by the sum of the weights, a little bias
    for much less variance;
``doubly_robust_estimate``
    a reward model's prediction corrected by IPS on its residuals: unbiased
    if either the propensities or the reward model are right;
``slate_ips_estimate``
    item-position IPS for ranked lists: unbiased under a click model in
    which the click on a position depends on the item and the position only.

Each returns an :class:`OffPolicyEstimate` with a confidence interval: the
normal approximation built from the per-record terms, or on request
(``interval="bootstrap"``) a percentile bootstrap over the logged records.
Each also takes ``clip=``, a cap on the importance weights that trades a
known downward bias for a bounded variance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import (
    show,
    check_distribution_rows,
    check_int_array,
    check_open_unit,
    check_probabilities,
    check_real_array,
    check_real,
    check_real_matrix,
    check_choice,
    check_rng,
)
from .significance import _BATCH_CELLS, _check_resamples

INTERVALS = ("normal", "bootstrap")

__all__ = [
    "OffPolicyEstimate",
    "ips_estimate",
    "snips_estimate",
    "doubly_robust_estimate",
    "slate_ips_estimate",
]


@dataclass(frozen=True)
class OffPolicyEstimate:
    """An estimate of a target policy's expected reward from logged data.

    Attributes
    ----------
    value : float
        Estimated expected reward per logged record (per impression for a
        bandit log; per list, summed over positions, for a slate log).
    std_error : float
        Standard error from the per-record terms (see each estimator).
    ci_low, ci_high : float
        Confidence interval: ``value +/- z * std_error`` for
        ``interval="normal"``, the percentile bootstrap interval for
        ``interval="bootstrap"``.
    n : int
        Number of logged records.
    effective_sample_size : float
        Kish's :math:`(\\sum w)^2 / \\sum w^2` of the importance weights: how
        many records of an on-policy sample the estimate is worth. Much
        smaller than ``n`` means a few large weights dominate.
    max_weight : float
        Largest importance weight used (after clipping).
    confidence : float
        Confidence level of the interval.
    method : str
        ``"ips"``, ``"snips"``, ``"dr"`` or ``"slate-ips"``.
    interval : str
        ``"normal"`` or ``"bootstrap"``: how ``ci_low``, ``ci_high`` were made.
    n_resamples : int or None
        Number of bootstrap resamples (``None`` for the normal interval).
    clip : float or None
        The cap on the importance weights (``None``: no clipping).
    n_clipped : int
        Number of importance weights the cap lowered.
    """

    value: float
    std_error: float
    ci_low: float
    ci_high: float
    n: int
    effective_sample_size: float
    max_weight: float
    confidence: float
    method: str
    interval: str = "normal"
    n_resamples: int | None = None
    clip: float | None = None
    n_clipped: int = 0


@dataclass(frozen=True)
class _Options:
    """Validated options shared by every estimator."""

    confidence: float
    clip: float | None
    interval: str
    n_resamples: int
    rng: np.random.Generator


# ----------------------------------------------------------------------------
# validation
# ----------------------------------------------------------------------------
def _check_bandit_log(rewards, actions, logging_policy, target_policy):
    """Validated arrays: rewards, actions, logged propensities, target matrix."""
    r = check_real_array("rewards", rewards)
    target = check_real_matrix("target_policy", target_policy)
    check_distribution_rows("target_policy", target)
    n, k = target.shape
    if r.size != n:
        raise ValueError(f"rewards and target_policy must have one row per logged "
                         f"record; got {r.size} rewards and {n} rows")
    a = check_int_array("actions", actions, low=0, high=k)
    if a.size != n:
        raise ValueError(f"actions must have one entry per logged record; got "
                         f"{a.size} actions and {n} rewards")
    rows = np.arange(n)
    if np.ndim(logging_policy) == 1:
        propensity = check_real_array("logging_policy", logging_policy)
        if propensity.size != n:
            raise ValueError(f"logging_policy (the propensities of the logged actions) "
                             f"must have one entry per record; got {propensity.size} "
                             f"for {n} records")
        check_probabilities("logging_policy", propensity, positive=True)
    else:
        logging = check_real_matrix("logging_policy", logging_policy)
        check_distribution_rows("logging_policy", logging)
        if logging.shape != target.shape:
            raise ValueError(f"logging_policy and target_policy must have the same "
                             f"shape (records x actions); got {logging.shape} and "
                             f"{target.shape}")
        propensity = logging[rows, a]
        if np.any(propensity <= 0):
            i = int(np.argmax(propensity <= 0))
            raise ValueError(f"record {i}: the logged action {a[i]} has probability 0 "
                             "under logging_policy, so the log contradicts its own "
                             "propensities")
        _check_overlap(logging, target, "action")
    return r, a, propensity, target


def _check_overlap(logging, target, what, target_name="target_policy"):
    unsupported = (target > 0) & (logging <= 0)
    if unsupported.any():
        at = tuple(int(i) for i in np.argwhere(unsupported)[0])
        where = f"record {at[0]}, {what} {at[1]}" + (f", position {at[2]}" if len(at) > 2 else "")
        raise ValueError(
            f"no overlap: {target_name} gives probability {show(float(target[at]))} to {where}, "
            "which the logging policy never takes (probability 0); no reweighting "
            "of these logs can estimate that part of the target's value")


def _check_options(confidence, clip, interval, n_resamples, seed) -> _Options:
    gamma = check_open_unit("confidence", confidence)
    if clip is not None:
        clip = check_real("clip", clip, low=0, low_open=True)
    check_choice("interval", interval, INTERVALS)
    n_resamples = _check_resamples(n_resamples)
    if n_resamples < 2:  # one resample has no spread and no quantiles
        raise ValueError("n_resamples must be at least 2 for a bootstrap interval; "
                         f"got {n_resamples}")
    rng = check_rng(seed)  # checked even when unused: a bad seed is a mistake anyway
    return _Options(gamma, clip, interval, n_resamples, rng)


def _clipped(weights, clip):
    """The weights capped at ``clip`` (if given) and how many the cap lowered."""
    if clip is None:
        return weights, 0
    return np.minimum(weights, clip), int(np.count_nonzero(weights > clip))


def _bootstrap(numerator, denominator, options):
    """Percentile bootstrap interval of mean(numerator) [/ mean(denominator)]."""
    n = numerator.size
    batch = max(1, _BATCH_CELLS // n)
    values = np.empty(options.n_resamples)
    for start in range(0, options.n_resamples, batch):
        stop = min(start + batch, options.n_resamples)
        index = options.rng.integers(0, n, (stop - start, n))
        values[start:stop] = numerator[index].sum(axis=-1)
        if denominator is not None:
            total = denominator[index].sum(axis=-1)
            if np.any(total <= 0):
                raise ValueError("a bootstrap resample has every importance weight 0, "
                                 "so its self-normalised estimate is undefined; use "
                                 "interval='normal' or a larger log")
            values[start:stop] /= total
    if denominator is None:
        values /= n
    alpha = (1.0 - options.confidence) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha])
    return float(low), float(high)


def _estimate(terms, weights, options, method, *, value=None, scale=1.0,
              ratio=None, n_clipped=0):
    """Mean of the per-record terms (or a given value) with its interval.

    ``ratio`` (numerator, denominator) makes the bootstrap recompute a ratio
    of sums in every resample, as self-normalised IPS needs.
    """
    n = terms.size
    if n < 2:  # a NaN interval is no interval: refuse instead
        raise ValueError(f"{'clicks' if method == 'slate-ips' else 'rewards'} has "
                         "one record; the standard error and the interval need at "
                         "least two")
    est = float(terms.mean()) if value is None else value
    se = float(terms.std(ddof=1) / math.sqrt(n) / scale)
    if options.interval == "bootstrap":
        numerator, denominator = ratio if ratio is not None else (terms, None)
        low, high = _bootstrap(numerator, denominator, options)
    else:
        from scipy.stats import norm  # lazy: scipy is slow to import

        # isf of the tail: 1 - tail rounds to 1 (ppf to infinity) within 1e-16 of 1
        q = float(norm.isf((1.0 - options.confidence) / 2.0))
        low, high = est - q * se, est + q * se
    total, square = float(weights.sum()), float(weights @ weights)
    bootstrap = options.interval == "bootstrap"
    return OffPolicyEstimate(value=est, std_error=se, ci_low=low, ci_high=high, n=n,
                             effective_sample_size=total * total / square if square else 0.0,
                             max_weight=float(weights.max()),
                             confidence=options.confidence, method=method,
                             interval=options.interval,
                             n_resamples=options.n_resamples if bootstrap else None,
                             clip=options.clip, n_clipped=n_clipped)


# ----------------------------------------------------------------------------
# bandit estimators
# ----------------------------------------------------------------------------
_PARAMETERS = """rewards : array-like of float, shape (n,)
        Observed reward of each logged record (1/0 for a click). Finite;
        negative values are allowed (a cost is a negative reward).
    actions : array-like of int, shape (n,)
        The logged action of each record, an index in ``[0, n_actions)``.
    logging_policy : array-like of float, shape (n, n_actions) or (n,)
        Either the logging policy's full action distribution of each record
        (rows sum to 1), or only the propensities of the logged actions, in
        (0, 1]. With the full distribution the function checks overlap: a
        target policy that puts mass on an action the logger never takes
        raises ``ValueError``. With propensities alone that check is
        impossible, and an estimate under missing overlap is silently
        biased (IPS downwards for non-negative rewards; SNIPS and DR in
        either direction).
    target_policy : array-like of float, shape (n, n_actions)
        The target policy's action distribution for each record's context
        (rows sum to 1); a deterministic policy has a single 1 per row.
{options}"""

_OPTIONS = """    confidence : float, default=0.95
        Confidence level of the interval.
    clip : float, optional
        Cap on the importance weights: each weight :math:`w_i` is replaced
        by :math:`\\min(w_i, \\text{clip})` (a positive number). Clipping
        bounds the variance at the price of a bias (see Notes). Default: no
        clipping.
    interval : {"normal", "bootstrap"}, default="normal"
        ``"normal"``: ``value +/- z * std_error``. ``"bootstrap"``: the
        percentile bootstrap over the logged records, which recomputes the
        estimator on ``n_resamples`` resamples; it follows a skewed sampling
        distribution where the normal interval is symmetric by construction.
    n_resamples : int, default=9999
        Number of bootstrap resamples, from 2 to 1,000,000 (used only by
        ``interval="bootstrap"``).
    seed : int, numpy.random.Generator or None, default=None
        Source of randomness of the bootstrap; an int makes it reproducible."""


def ips_estimate(rewards, actions, logging_policy, target_policy, *, confidence=0.95,
                 clip=None, interval="normal", n_resamples=9999, seed=None):
    """Inverse propensity scoring estimate of a target policy's value.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    OffPolicyEstimate
        The estimate with its standard error and confidence interval.

    See Also
    --------
    snips_estimate, doubly_robust_estimate

    Notes
    -----
    With importance weights
    :math:`w_i = \\pi(a_i \\mid x_i) / \\pi_0(a_i \\mid x_i)`,

    .. math::

        \\hat V_{\\mathrm{IPS}} = \\frac1n \\sum_i w_i r_i,

    unbiased for :math:`V(\\pi) = E_x E_{a\\sim\\pi}[r]` whenever
    :math:`\\pi_0(a \\mid x) > 0` wherever :math:`\\pi(a \\mid x) > 0` [1]_ [2]_.
    The standard error is the sample standard deviation of the terms
    :math:`w_i r_i` over :math:`\\sqrt n`. Large weights (a target far from
    the logger) make the variance large; ``effective_sample_size`` shows it.

    *Heavy-tailed weights.* Far from the logger a few records carry most of
    the weight, the terms are strongly skewed, and the normal interval
    under-covers: the sample standard deviation understates the spread
    whenever the log holds fewer of the rare large weights than expected,
    and the symmetric interval ignores the skew. Two remedies, alone or
    together:

    - ``clip=M`` replaces :math:`w_i` by :math:`\\min(w_i, M)` [3]_ [4]_ [5]_.
      The variance is then at most :math:`M^2 E[r^2] / n`, but the estimate
      is biased by :math:`-E[(w - M)_+ r]`: downwards for non-negative
      rewards, the more so the more weight lies above :math:`M`, and the
      interval is centred on the clipped value, not on :math:`V(\\pi)`.
      Ionides shows that a cap growing like :math:`\\sqrt n` keeps the
      estimate consistent [3]_; Strehl et al. bound the propensity from
      below, which for a deterministic target is the same cap [4]_.
      ``n_clipped`` reports how many weights the cap lowered.
    - ``interval="bootstrap"`` resamples the records with replacement and
      takes the percentile interval of the re-computed estimates [6]_. It
      follows the skew of the sampling distribution, but it too can only
      see the weights the log contains. The records are assumed
      independent. ``std_error`` stays the analytic one.

    Cost: :math:`O(n \\cdot \\text{n\\_actions})` time and memory (the size
    of the policies); the bootstrap adds :math:`O(\\text{n\\_resamples}
    \\cdot n)` time and batches of about two million cells of memory.
    ``n_resamples`` is at most 1,000,000 (larger requests raise
    ``ValueError``, as in :func:`~metrics_lib.paired_bootstrap_ci`).

    References
    ----------
    .. [1] D. G. Horvitz and D. J. Thompson, "A generalization of sampling
       without replacement from a finite universe", JASA 47(260), 1952.
    .. [2] L. Li, W. Chu, J. Langford and X. Wang, "Unbiased offline
       evaluation of contextual-bandit-based news article recommendation
       algorithms", WSDM 2011.
    .. [3] E. L. Ionides, "Truncated importance sampling", Journal of
       Computational and Graphical Statistics 17(2), 2008.
    .. [4] A. Strehl, J. Langford, L. Li and S. Kakade, "Learning from logged
       implicit exploration data", NeurIPS 2010.
    .. [5] A. Swaminathan and T. Joachims, "Batch learning from logged bandit
       feedback through counterfactual risk minimization", JMLR 16, 2015.
    .. [6] B. Efron and R. J. Tibshirani, *An Introduction to the
       Bootstrap*, Chapman & Hall, 1993.

    Examples
    --------
    >>> from metrics_lib import ips_estimate
    >>> logging = [[0.5, 0.5], [0.8, 0.2], [0.25, 0.75]]
    >>> target = [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
    >>> est = ips_estimate([1, 1, 0], [1, 1, 0], logging, target)
    >>> round(est.value, 4)
    2.3333
    >>> round(est.effective_sample_size, 3)
    2.689
    >>> clipped = ips_estimate([1, 1, 0], [1, 1, 0], logging, target, clip=3.0)
    >>> round(clipped.value, 4), clipped.n_clipped
    (1.6667, 2)
    >>> boot = ips_estimate([1, 1, 0], [1, 1, 0], logging, target,
    ...                     interval="bootstrap", n_resamples=999, seed=0)
    >>> boot.interval, boot.ci_low <= boot.value <= boot.ci_high
    ('bootstrap', True)
    """
    options = _check_options(confidence, clip, interval, n_resamples, seed)
    r, a, propensity, target = _check_bandit_log(rewards, actions, logging_policy,
                                                 target_policy)
    w, n_clipped = _clipped(target[np.arange(r.size), a] / propensity, options.clip)
    return _estimate(w * r, w, options, "ips", n_clipped=n_clipped)


def snips_estimate(rewards, actions, logging_policy, target_policy, *, confidence=0.95,
                   clip=None, interval="normal", n_resamples=9999, seed=None):
    """Self-normalised inverse propensity scoring estimate.

    Parameters
    ----------
    {parameters}

    Returns
    -------
    OffPolicyEstimate
        The estimate with its delta-method standard error and interval.

    See Also
    --------
    ips_estimate, doubly_robust_estimate

    Notes
    -----
    .. math::

        \\hat V_{\\mathrm{SNIPS}} = \\frac{\\sum_i w_i r_i}{\\sum_i w_i}.

    The weights have expectation 1, so dividing by their sum instead of
    :math:`n` changes the estimate by a factor close to 1 that cancels much
    of the variance of the weights; adding a constant :math:`c` to every
    reward moves the estimate by exactly :math:`c` (IPS moves by
    :math:`c\\,\\bar w`) [1]_. The bias is of order :math:`1/n`.
    The standard error is the delta method for a ratio of means,
    :math:`\\sqrt{\\sum_i w_i^2 (r_i - \\hat V)^2/(n-1)} / (\\sqrt n\\,\\bar w)`.
    When every weight is 0 (the target never takes a logged action) the
    estimate is undefined and a ``ValueError`` says so.

    With ``clip`` the capped weights are both summed and divided by, so the
    cap's downward pull on the numerator is partly undone by the smaller
    denominator (Open Bandit Pipeline 0.5.7's
    ``SelfNormalizedInverseProbabilityWeighting`` has no cap: its
    ``_estimate_round_rewards`` in ``obp/ope/estimators.py`` ignores
    ``lambda_``). The bootstrap
    recomputes the ratio in every resample (not the mean of fixed terms), so
    it includes the randomness of the denominator; a resample whose weights
    are all 0 makes it refuse. See :func:`ips_estimate` for the bias of
    clipping and the cost of the bootstrap.

    Cost: :math:`O(n \\cdot \\text{n\\_actions})` time and memory (the size
    of the policies), plus the bootstrap's.

    References
    ----------
    .. [1] A. Swaminathan and T. Joachims, "The self-normalized estimator for
       counterfactual learning", NeurIPS 2015.

    Examples
    --------
    >>> from metrics_lib import snips_estimate
    >>> logging = [[0.5, 0.5], [0.8, 0.2], [0.25, 0.75]]
    >>> target = [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
    >>> round(snips_estimate([1, 1, 0], [1, 1, 0], logging, target).value, 4)
    0.6364
    """
    options = _check_options(confidence, clip, interval, n_resamples, seed)
    r, a, propensity, target = _check_bandit_log(rewards, actions, logging_policy,
                                                 target_policy)
    w, n_clipped = _clipped(target[np.arange(r.size), a] / propensity, options.clip)
    total = w.sum()
    if total <= 0:
        raise ValueError("every importance weight is 0: the target policy never takes "
                         "a logged action, so the self-normalised estimate is undefined")
    value = float(w @ r / total)
    return _estimate(w * (r - value), w, options, "snips", value=value,
                     scale=float(w.mean()), ratio=(w * r, w), n_clipped=n_clipped)


def doubly_robust_estimate(rewards, actions, logging_policy, target_policy,
                           reward_model, *, confidence=0.95, clip=None,
                           interval="normal", n_resamples=9999, seed=None):
    """Doubly robust estimate: a reward model corrected by IPS on its residuals.

    Parameters
    ----------
    {parameters}
    reward_model : array-like of float, shape (n, n_actions)
        The caller's predicted expected reward of every action in each
        record's context, :math:`\\hat q(x_i, a)`; fitted on other data than
        the log being evaluated (or cross-fitted), finite.

    Returns
    -------
    OffPolicyEstimate
        The estimate with its standard error and interval.

    See Also
    --------
    ips_estimate, snips_estimate

    Notes
    -----
    .. math::

        \\hat V_{\\mathrm{DR}} = \\frac1n \\sum_i \\Big[\\sum_a
        \\pi(a \\mid x_i)\\,\\hat q(x_i, a) + w_i\\,\\big(r_i - \\hat q(x_i, a_i)\\big)
        \\Big].

    The first term is the direct method (the model's value of the target);
    the second removes its bias in expectation. The estimate is unbiased
    when the propensities are right, whatever the model, and its variance
    is smaller than IPS's the better the model predicts [1]_. With
    ``reward_model`` all zeros it equals :func:`ips_estimate`. The standard
    error is that of the per-record terms in brackets.

    ``clip`` caps the weight of the correction term only, as ``lambda_``
    does in ``DoublyRobust._estimate_round_rewards`` of Open Bandit Pipeline
    0.5.7 (``obp/ope/estimators.py``). The bias it adds,
    :math:`-E[(w - M)_+ (r - \\hat q(x, a))]`, is small when the model's
    residuals are small where the weights exceed the cap, and its sign is
    opposite to theirs there. See
    :func:`ips_estimate` for the bootstrap and its cost. The bootstrap
    resamples the per-record terms with ``reward_model`` held fixed: the
    model is not refitted on each resample, so its interval leaves out the
    uncertainty of the model's own fit (small when the model was fitted on
    much more data than the log, as the parameter asks).

    Cost: :math:`O(n \\cdot \\text{n\\_actions})` time and memory (the size
    of the policies), plus the bootstrap's.

    References
    ----------
    .. [1] M. Dudik, J. Langford and L. Li, "Doubly robust policy evaluation
       and learning", ICML 2011.

    Examples
    --------
    >>> from metrics_lib import doubly_robust_estimate
    >>> logging = [[0.5, 0.5], [0.8, 0.2], [0.25, 0.75]]
    >>> target = [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0]]
    >>> model = [[0.2, 0.6], [0.2, 0.6], [0.2, 0.6]]
    >>> est = doubly_robust_estimate([1, 1, 0], [1, 1, 0], logging, target, model)
    >>> round(est.value, 4)
    1.1333
    """
    options = _check_options(confidence, clip, interval, n_resamples, seed)
    r, a, propensity, target = _check_bandit_log(rewards, actions, logging_policy,
                                                 target_policy)
    q = check_real_matrix("reward_model", reward_model)
    if q.shape != target.shape:
        raise ValueError(f"reward_model must have the shape of target_policy (records "
                         f"x actions); got {q.shape} and {target.shape}")
    rows = np.arange(r.size)
    w, n_clipped = _clipped(target[rows, a] / propensity, options.clip)
    terms = (target * q).sum(axis=1) + w * (r - q[rows, a])
    return _estimate(terms, w, options, "dr", n_clipped=n_clipped)


for _function in (ips_estimate, snips_estimate, doubly_robust_estimate):
    _function.__doc__ = _function.__doc__.replace("{parameters}", _PARAMETERS)


# ----------------------------------------------------------------------------
# slates
# ----------------------------------------------------------------------------
def slate_ips_estimate(clicks, slates, logging_marginals, target_marginals, *,
                       position_weights=None, confidence=0.95, clip=None,
                       interval="normal", n_resamples=9999, seed=None):
    """Item-position IPS estimate of a ranking policy's clicks per list.

    Parameters
    ----------
    clicks : array-like of 0/1, shape (n, n_positions)
        Logged clicks of each list at each position.
    slates : array-like of int, shape (n, n_positions)
        The logged lists: the index (in ``[0, n_items)``) of the item shown
        at each position.
    logging_marginals : array-like of float, shape (n, n_items, n_positions) or (n, n_positions)
        Either the logging policy's marginal probabilities
        :math:`\\pi_0(\\text{item } a \\text{ at position } k \\mid x_i)` for
        every item and position (each position's column sums to 1 over the
        items), or only those of the logged item at each position, in
        (0, 1]. The full form lets the function check overlap.
    target_marginals : array-like of float, shape (n, n_items, n_positions)
        The same marginals for the target policy.
    position_weights : array-like of float, shape (n_positions,), optional
        Weight of a click at each position in the value (default 1 each:
        the value is the expected number of clicks per list; ``1 /
        n_positions`` each gives the CTR per shown item).
{options}

    Returns
    -------
    OffPolicyEstimate
        The estimate, its standard error and interval; the weights reported
        are the per-position weights.

    See Also
    --------
    ips_estimate : one action per record.

    Notes
    -----
    Under the item-position click model, where the probability of a click
    at position :math:`k` depends on the context, the item shown there and
    :math:`k` only (not on the rest of the list),

    .. math::

        \\hat V = \\frac1n \\sum_i \\sum_k \\lambda_k\\, c_{ik}\\,
        \\frac{\\pi(a_{ik} \\text{ at } k \\mid x_i)}
             {\\pi_0(a_{ik} \\text{ at } k \\mid x_i)}

    is unbiased for the target's expected weighted clicks per list
    :math:`E\\,\\sum_k \\lambda_k c_k` [1]_. Its weights are ratios of
    marginal probabilities, far smaller than the ratios of whole-list
    probabilities that plain IPS over lists would need. When clicks also
    depend on the other items of the list (a cascade), the estimate is
    biased. The standard error is that of the per-list sums, and the
    bootstrap resamples whole lists; ``clip`` caps each position's weight
    (see :func:`ips_estimate` for the bias this adds).

    Cost: :math:`O(n \\cdot \\text{n\\_items} \\cdot \\text{n\\_positions})`
    time and memory (the size of the marginals), plus the bootstrap's.

    References
    ----------
    .. [1] S. Li, Y. Abbasi-Yadkori, B. Kveton, S. Muthukrishnan, V. Vinay and
       Z. Wen, "Offline evaluation of ranking policies with click models",
       KDD 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics_lib import slate_ips_estimate
    >>> # two items, two positions; the logger shows [0, 1] or [1, 0] at random,
    >>> # the target always shows [1, 0]
    >>> logging = np.full((2, 2, 2), 0.5)
    >>> target = np.array([[[0.0, 1.0], [1.0, 0.0]]] * 2)
    >>> est = slate_ips_estimate([[1, 0], [1, 1]], [[0, 1], [1, 0]], logging, target)
    >>> est.value
    2.0
    """
    options = _check_options(confidence, clip, interval, n_resamples, seed)
    c = check_real_matrix("clicks", clicks)
    if not np.all((c == 0) | (c == 1)):
        raise ValueError("clicks must contain only 0/1 (or False/True); got "
                         f"{show(c[(c != 0) & (c != 1)][0])}")
    target = check_real_matrix("target_marginals", target_marginals, ndim=3)
    n, n_items, n_positions = target.shape
    if c.shape != (n, n_positions):
        raise ValueError(f"clicks must have shape (n, n_positions) = {(n, n_positions)} "
                         f"to match target_marginals; got {c.shape}")
    check_distribution_rows("target_marginals", target, axis=1)
    s = check_int_array("slates", slates, low=0, high=n_items, ndim=2)
    if s.shape != c.shape:
        raise ValueError(f"slates and clicks must have the same shape; got {s.shape} "
                         f"and {c.shape}")
    rows = np.arange(n)[:, None]
    positions = np.arange(n_positions)[None, :]
    if np.ndim(logging_marginals) == 2:
        propensity = check_real_matrix("logging_marginals", logging_marginals)
        if propensity.shape != c.shape:
            raise ValueError(f"logging_marginals (the logged items' marginals) must "
                             f"have the shape of clicks; got {propensity.shape} and "
                             f"{c.shape}")
        check_probabilities("logging_marginals", propensity, positive=True)
    else:
        logging = check_real_matrix("logging_marginals", logging_marginals, ndim=3)
        if logging.shape != target.shape:
            raise ValueError(f"logging_marginals and target_marginals must have the "
                             f"same shape; got {logging.shape} and {target.shape}")
        check_distribution_rows("logging_marginals", logging, axis=1)
        propensity = logging[rows, s, positions]
        if np.any(propensity <= 0):
            i, k = (int(v) for v in np.argwhere(propensity <= 0)[0])
            raise ValueError(f"record {i}, position {k}: the logged item {s[i, k]} has "
                             "marginal probability 0 under logging_marginals")
        _check_overlap(logging, target, "item", "target_marginals")
    if position_weights is None:
        lam = np.ones(n_positions)
    else:
        lam = check_real_array("position_weights", position_weights)
        if lam.size != n_positions:
            raise ValueError(f"position_weights must have one entry per position "
                             f"({n_positions}); got {lam.size}")
    w, n_clipped = _clipped(target[rows, s, positions] / propensity, options.clip)
    terms = (w * c) @ lam
    return _estimate(terms, w.reshape(-1), options, "slate-ips", n_clipped=n_clipped)


for _function in (ips_estimate, snips_estimate, doubly_robust_estimate,
                  slate_ips_estimate):
    _function.__doc__ = _function.__doc__.replace("{options}", _OPTIONS)
del _function
