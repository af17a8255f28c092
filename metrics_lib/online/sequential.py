"""Looking at an experiment several times: group-sequential boundaries
(Lan-DeMets alpha spending of O'Brien-Fleming or Pocock type), so that the
type I error over all the looks stays at alpha, and the bias of the estimate
at the look where the experiment stopped.

The sequential method is the group-sequential design rather than always-valid
p-values (mSPRT): its boundaries are the textbook design of clinical trials,
they have published values to check against, and with a handful of planned
looks they spend alpha where it is needed (an mSPRT, valid for continuous
monitoring, pays for that with less power at a fixed horizon).

``scipy.stats`` is imported inside the functions (it is slow to import).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._validation import (show, check_choice, check_count, check_open_unit, check_real,
                           check_real_array)
from ._inference import _norm


SPENDING_FUNCTIONS = ("obrien-fleming", "pocock")


@dataclass(frozen=True)
class GroupSequentialBoundaries:
    """Boundaries of a group-sequential test (Lan-DeMets alpha spending).

    Attributes
    ----------
    information_fractions : tuple of float
        Share of the final sample size at each look, increasing, last 1.
    z_boundaries : tuple of float
        Critical value of the z statistic at each look: stop and reject when
        ``|z|`` (two-sided) or ``z`` (``"greater"``) reaches it.
    nominal_alpha : tuple of float
        The same boundaries as p-value thresholds of the look's own z test.
    cumulative_alpha : tuple of float
        Type I error spent up to and including each look.
    alpha : float
        Overall significance level.
    spending : str
        ``"obrien-fleming"`` or ``"pocock"``.
    alternative : str
        ``"two-sided"`` or ``"greater"``.
    """

    information_fractions: tuple
    z_boundaries: tuple
    nominal_alpha: tuple
    cumulative_alpha: tuple
    alpha: float
    spending: str
    alternative: str

    def first_crossing(self, z_statistics):
        """Index of the first look whose z statistic crosses its boundary.

        Parameters
        ----------
        z_statistics : sequence of float
            The z statistic observed at each look so far (at most one per
            boundary).

        Returns
        -------
        int or None
            0-based index of the first look that rejects, or ``None``.

        Examples
        --------
        >>> from metrics_lib import group_sequential_boundaries
        >>> b = group_sequential_boundaries([0.5, 1.0])
        >>> b.first_crossing([2.5, 2.1]) is None, b.first_crossing([3.0])
        (False, 0)
        """
        z = check_real_array("z_statistics", z_statistics)
        if z.size > len(self.z_boundaries):
            raise ValueError(f"z_statistics has {z.size} looks but the design has "
                             f"{len(self.z_boundaries)}")
        bounds = np.asarray(self.z_boundaries[:z.size])
        crossed = (np.abs(z) if self.alternative == "two-sided" else z) >= bounds
        return int(np.argmax(crossed)) if crossed.any() else None


# ----------------------------------------------------------------------------
# group-sequential boundaries
# ----------------------------------------------------------------------------
def _spent(spending, alpha, t):
    """Lan-DeMets spending functions: one-sided type I error spent by t."""
    norm = _norm()
    t = np.asarray(t, dtype=float)
    if spending == "obrien-fleming":
        return 2.0 * norm.sf(norm.isf(alpha / 2.0) / np.sqrt(t))
    return alpha * np.log1p((math.e - 1.0) * t)


_LOWER_TRUNCATION = -9.0  # one-sided: the continuation region's far end (P < 1e-18)


# consecutive looks closer than this are refused: the grid step follows the
# spread of the increment, sqrt(gap), so a gap of 1e-12 asked for a grid of
# millions of points (gigabytes) for a boundary that barely moves
MIN_LOOK_GAP = 1e-3
_KERNEL_CELLS = 2_000_000  # transition-kernel cells held at once
_MAX_BOUNDARY = 40.0  # largest finite boundary searched (P(|Z| > 40) < 1e-300)


def _simpson(lo, hi, step):
    """Grid and Simpson weights on [lo, hi] with spacing at most ``step``."""
    m = max(2, int(math.ceil((hi - lo) / step)))
    m += m % 2  # Simpson needs an even number of intervals
    grid = np.linspace(lo, hi, m + 1)
    weights = np.full(m + 1, 2.0)
    weights[1::2] = 4.0
    weights[0] = weights[-1] = 1.0
    return grid, weights * (hi - lo) / (3.0 * m)


def _crossing_engine(t, two_sided, drift=0.0):
    """Yield the look-by-look crossing probability of the score process.

    A generator protocol keeps one implementation for three uses: given the
    boundaries of the looks so far, ``probability(c)`` is the probability of
    staying inside them and then crossing ``c`` at the next look;
    ``advance(c)`` fixes ``c`` and moves on; ``moments(c)`` gives, for the
    next look, the probabilities and partial means of Z_k that
    :func:`sequential_estimate_bias` needs. The score process has the
    given ``drift`` (0: the null hypothesis), so Z_k has mean
    ``drift * sqrt(t_k)``. The density of Z_k on the continuation region is
    carried forward by numerical integration (Armitage, McPherson & Rowe
    1969; Jennison & Turnbull 2000, chapter 19), on a Simpson grid fine
    enough for each transition kernel.
    """
    norm = _norm()
    state = {"grid": None, "h": None, "k": 0}

    def conditional():
        # mean and sd of Z_k given each grid value of Z_{k-1} (or, at the
        # first look, Z_1 itself with "density" 1 at one point)
        k = state["k"]
        if k == 0:
            return np.array([drift * math.sqrt(t[0])]), 1.0, np.array([1.0])
        t0, t1 = t[k - 1], t[k]
        mean = (state["grid"] * math.sqrt(t0) + drift * (t1 - t0)) / math.sqrt(t1)
        return mean, math.sqrt((t1 - t0) / t1), state["h"]

    def probability(c):
        mean, sd, h = conditional()
        upper = norm.sf((c - mean) / sd)
        if two_sided:
            upper = upper + norm.cdf((-c - mean) / sd)
        return float(h @ upper)

    def moments(c):
        """P(reach), E[Z 1(reach)], P(upper), E[Z 1(upper)], P(lower), E[Z 1(lower)].

        "upper" is crossing c at this look, "lower" crossing -c (two-sided
        only); the partial means use E[X 1(X >= c)] = m P + s phi((c-m)/s)
        for X ~ N(m, s^2).
        """
        mean, sd, h = conditional()
        a = (c - mean) / sd
        upper = norm.sf(a)
        out = [h.sum(), h @ mean, h @ upper, h @ (mean * upper + sd * norm.pdf(a))]
        if two_sided:
            b = (-c - mean) / sd
            lower = norm.cdf(b)
            out += [h @ lower, h @ (mean * lower - sd * norm.pdf(b))]
        else:
            out += [0.0, 0.0]
        return [float(v) for v in out]

    def advance(c):
        k = state["k"]
        hi = min(c, _MAX_BOUNDARY)  # an infinite boundary: the grid ends at 40
        # one-sided: the region below is cut where the density is negligible,
        # which moves down with a negative drift
        lo = -hi if two_sided else _LOWER_TRUNCATION + min(0.0, drift * math.sqrt(t[k]))
        if k == 0:
            grid, w = _simpson(lo, hi, 0.02)
            density = norm.pdf(grid - drift * math.sqrt(t[0]))
        else:
            t0, t1 = t[k - 1], t[k]
            sd = math.sqrt(t1 - t0)
            # kernel of Z_k given Z_{k-1} has sd sqrt((t1-t0)/t1): resolve it
            grid, w = _simpson(lo, hi, min(0.02, sd / math.sqrt(t1) / 8.0))
            old = state["grid"] * math.sqrt(t0) + drift * (t1 - t0)
            density = np.empty(grid.size)
            rows = max(1, _KERNEL_CELLS // old.size)  # bounded memory
            for start in range(0, grid.size, rows):
                part = grid[start:start + rows, None] * math.sqrt(t1)
                density[start:start + rows] = norm.pdf((part - old[None, :]) / sd) @ state["h"]
            density *= math.sqrt(t1) / sd
        state["grid"], state["h"], state["k"] = grid, density * w, k + 1

    return probability, advance, moments


def group_sequential_boundaries(information_fractions, *, alpha=0.05,
                                spending="obrien-fleming", alternative="two-sided"):
    """Critical values for a test looked at several times (alpha spending).

    Parameters
    ----------
    information_fractions : sequence of float
        Share of the planned final sample (the information) available at
        each look, strictly increasing, in (0, 1], the last one 1. Equal
        spacing ``[0.2, 0.4, 0.6, 0.8, 1.0]`` is five equally sized looks.
    alpha : float, default=0.05
        Overall type I error over all looks; below 0.5 for a one-sided
        design.
    spending : {"obrien-fleming", "pocock"}, default="obrien-fleming"
        Lan-DeMets spending function of one tail with level :math:`a`
        (:math:`a = \\alpha/2` per tail for a two-sided test, :math:`a =
        \\alpha` for a one-sided one). ``"obrien-fleming"``:
        :math:`a(t) = 2 - 2\\Phi(z_{1-a/2}/\\sqrt t)`, which spends almost
        nothing early and keeps the last boundary close to the fixed-sample
        one. ``"pocock"``: :math:`a(t) = a \\ln(1 + (e-1)t)`, nearly
        constant boundaries, more chance to stop early and a higher last
        boundary.
    alternative : {"two-sided", "greater"}, default="two-sided"
        Two-sided: reject when :math:`|Z_k|` reaches the boundary (alpha
        split between the tails). ``"greater"``: reject when :math:`Z_k`
        reaches it (for ``"less"``, flip the sign of the statistic).

    Returns
    -------
    GroupSequentialBoundaries
        The z boundary, nominal p-value threshold and cumulative alpha of
        each look. Its ``first_crossing(z_statistics)`` applies them.

    Notes
    -----
    At look :math:`k` the z statistic of the data so far is
    :math:`Z_k = S(t_k)/\\sqrt{t_k}`, where :math:`S` is (asymptotically) a
    Brownian motion in the information time :math:`t`, so
    :math:`\\operatorname{Corr}(Z_j, Z_k) = \\sqrt{t_j/t_k}` for
    :math:`j < k`. The boundary :math:`c_k` solves

    .. math::

        P_0\\left(|Z_1| < c_1, \\dots, |Z_{k-1}| < c_{k-1},
        |Z_k| \\ge c_k\\right) = \\alpha(t_k) - \\alpha(t_{k-1}),

    computed by numerical integration of the density of :math:`Z_k` on
    the continuation region [2]_ and root finding. The
    looks may be unequally spaced and need not be planned in advance
    (that is the point of a spending function [1]_), but the spending
    function must be. The boundary of look :math:`k` depends on
    :math:`t_1, \\dots, t_k` only, so at an unplanned look append 1 to the
    fractions reached so far and read the :math:`k`-th boundary (the
    information fraction is the sample so far over the planned final
    sample). Peeking at a fixed-sample test at every look instead
    (rejecting when :math:`|Z_k| \\ge 1.96`) has a type I error far above
    alpha (about 0.14 with five looks).

    The boundaries hold for a statistic whose successive values have this
    joint distribution (Jennison & Turnbull's canonical joint distribution
    [2]_, section 3.1): asymptotically normal with independent increments,
    the information fraction being the variance of the final estimate over
    that of the estimate at the look. A difference of means, of ratio
    metrics with delta-method variances, or a CUPED difference has it when
    each look adds new users whose values do not change afterwards (a
    metric over a fixed window after each user's first exposure); then the
    fraction is the share of users. With returning users whose clicks keep
    accumulating, neither holds: the activity a returning user adds
    between two looks is correlated with that user's earlier activity
    (users differ in how much they click), so the increments are not
    independent; and the information grows with each user's accumulated
    activity as well as with the users, so the fraction is not the share
    of users. There, use the variance ratio as the fraction (the final
    variance has to be predicted), or a fixed per-user window, and check
    the type I error by simulating A/A tests of the real pipeline.

    Cost: look :math:`k > 1` integrates on a grid of :math:`G_k \\le
    2\\min(c_k, 40)/s_k + 3` points, step :math:`s_k = \\min(0.02,
    \\sqrt{(t_k - t_{k-1})/t_k}/8)`; time :math:`O(\\sum_k G_k G_{k-1})`
    (plus :math:`O(G_{k-1})` per root-finding step) and memory
    :math:`O(G_k)` plus about two million kernel cells. Consecutive
    fractions closer than ``MIN_LOOK_GAP`` (0.001) raise ``ValueError`` (the
    step would shrink with the gap while the boundary barely moves), so
    :math:`G_k \\le 20{,}003`. A look that spends less than float64 resolves
    beyond :math:`|z| = 40` gets an infinite boundary: it can never reject.

    References
    ----------
    .. [1] K. K. G. Lan and D. L. DeMets, "Discrete sequential boundaries
       for clinical trials", Biometrika 70(3), 1983.
    .. [2] C. Jennison and B. W. Turnbull, *Group Sequential Methods with
       Applications to Clinical Trials*, Chapman & Hall/CRC, 2000,
       chapters 7 and 19.

    Examples
    --------
    >>> from metrics_lib import group_sequential_boundaries
    >>> obf = group_sequential_boundaries([0.2, 0.4, 0.6, 0.8, 1.0])
    >>> [round(c, 3) for c in obf.z_boundaries]
    [4.877, 3.357, 2.68, 2.29, 2.031]
    >>> pocock = group_sequential_boundaries([0.2, 0.4, 0.6, 0.8, 1.0],
    ...                                      spending="pocock")
    >>> [round(c, 3) for c in pocock.z_boundaries]
    [2.438, 2.427, 2.41, 2.397, 2.386]
    """
    a = check_open_unit("alpha", alpha)
    check_choice("spending", spending, SPENDING_FUNCTIONS)
    check_choice("alternative", alternative, ("two-sided", "greater"))
    if alternative == "greater" and a >= 0.5:
        raise ValueError(f"alpha must be below 0.5 for a one-sided design; got {show(a)} "
                         "(P(Z >= 0) is 0.5, so the boundaries would fall below 0 "
                         "and a statistic in the wrong direction would reject)")
    t = check_real_array("information_fractions", information_fractions)
    if np.any(t <= 0) or np.any(t > 1):
        raise ValueError("information_fractions must lie in (0, 1]; got "
                         f"{show(t[(t <= 0) | (t > 1)][0])}")
    if np.any(np.diff(t) <= 0):
        raise ValueError("information_fractions must be strictly increasing")
    if np.any(np.diff(t) < MIN_LOOK_GAP):
        k = int(np.argmax(np.diff(t) < MIN_LOOK_GAP))
        raise ValueError(f"information_fractions {show(float(t[k]))} and {show(float(t[k + 1]))} "
                         f"are closer than {MIN_LOOK_GAP}: looks that close are "
                         "one look (merge them); the numerical integration would "
                         "need a grid finer than the gap")
    if t[-1] != 1.0:
        raise ValueError("the last information fraction must be 1 (the final "
                         f"analysis); got {show(t[-1])}")
    from scipy.optimize import brentq  # lazy: see the module docstring

    two_sided = alternative == "two-sided"
    # A two-sided symmetric design spends alpha/2 in each tail with the
    # one-sided spending function: the symmetric two-sided design of the
    # tables (five equal looks at 0.05 give 4.877, 3.357, 2.680, 2.290, 2.031).
    cumulative = 2.0 * _spent(spending, a / 2.0, t) if two_sided else _spent(spending, a, t)
    probability, advance, _ = _crossing_engine(t, two_sided)
    bounds = []
    previous = 0.0
    for k in range(t.size):
        target = float(cumulative[k]) - previous
        if probability(_MAX_BOUNDARY) >= target:
            # the look spends (next to) nothing: below what float64 resolves
            # beyond |z| = 40, so it can never reject
            c = math.inf
        else:
            # target is tiny at an early O'Brien-Fleming look; brentq keeps a
            # relative tolerance far below it
            c = brentq(lambda c: probability(c) - target, 0.0, _MAX_BOUNDARY,
                       xtol=1e-10, rtol=1e-12)
        bounds.append(float(c))
        advance(c)
        previous = float(cumulative[k])
    norm = _norm()
    nominal = [float(2.0 * norm.sf(c) if two_sided else norm.sf(c)) for c in bounds]
    return GroupSequentialBoundaries(
        information_fractions=tuple(float(v) for v in t),
        z_boundaries=tuple(bounds),
        nominal_alpha=tuple(nominal),
        cumulative_alpha=tuple(float(v) for v in cumulative),
        alpha=a,
        spending=spending,
        alternative=alternative,
    )


def _crossing_probabilities(z_boundaries, information_fractions, two_sided=True):
    """Cumulative null probability of crossing given boundaries (for tests)."""
    t = np.asarray(information_fractions, dtype=float)
    probability, advance, _ = _crossing_engine(t, two_sided)
    out, total = [], 0.0
    for c in z_boundaries:
        total += probability(float(c))
        advance(float(c))
        out.append(total)
    return out


# ----------------------------------------------------------------------------
# the estimate at a group-sequential stop (winner's curse)
# ----------------------------------------------------------------------------
_MAX_EFFECT = 20.0  # |effect| in final standard errors handled by the grid
_NEGLIGIBLE_Z = 10.0  # Phi(-10) < 1e-23: a crossing this far off is negligible


@dataclass(frozen=True)
class SequentialEstimateBias:
    """Result of :func:`sequential_estimate_bias`.

    Estimates are in units of the standard error of the final analysis
    (multiply by it for the metric's units).

    Attributes
    ----------
    effect : float
        The true effect the design was evaluated at.
    information_fractions : tuple of float
        The looks of the design.
    stop_probability : tuple of float
        Probability that the test ends at each look: it crosses the boundary
        there (early looks), or reaches the last look (last entry).
    mean_if_stopped : tuple of float
        Expected estimate given that the test ends at each look (``nan``
        where that probability is 0).
    rejection_probability : tuple of float
        Probability of rejecting at each look (crossing its boundary);
        equal to ``stop_probability`` except at the last look.
    mean_if_rejected : tuple of float
        Expected estimate given a rejection at each look.
    power : float
        Probability of rejecting at some look.
    mean_if_rejected_anywhere : float
        Expected estimate given a rejection at some look.
    mean_estimate : float
        Expected estimate when the test ends, whatever the outcome.
    bias : float
        ``mean_estimate - effect``: the bias of the estimate at the stop.
    """

    effect: float
    information_fractions: tuple
    stop_probability: tuple
    mean_if_stopped: tuple
    rejection_probability: tuple
    mean_if_rejected: tuple
    power: float
    mean_if_rejected_anywhere: float
    mean_estimate: float
    bias: float


def _check_design(boundaries):
    if not isinstance(boundaries, GroupSequentialBoundaries):
        raise TypeError("boundaries must be the GroupSequentialBoundaries returned by "
                        f"group_sequential_boundaries; got {type(boundaries).__name__}")


def _ratio(numerator, denominator):
    return numerator / denominator if denominator > 0 else math.nan


def sequential_estimate_bias(boundaries, effect):
    """Expected estimate at each stop of a group-sequential test (winner's curse).

    Parameters
    ----------
    boundaries : GroupSequentialBoundaries
        The design, from :func:`group_sequential_boundaries`.
    effect : float
        True effect in standard errors of the final analysis, in [-20, 20]
        (the expected final z statistic; about 2.8 gives 80 % power to a
        two-sided fixed-sample test at 0.05).

    Returns
    -------
    SequentialEstimateBias
        Per look: the probability of stopping there and the expected
        estimate given a stop there; overall: power, the expected estimate
        given a rejection, and the bias of the estimate at the stop.

    Raises
    ------
    TypeError
        If ``boundaries`` is not a ``GroupSequentialBoundaries``.
    ValueError
        If ``effect`` is not finite or outside [-20, 20].

    Notes
    -----
    The estimate at look :math:`k` is the difference observed so far,
    :math:`\\hat\\delta_k = Z_k / \\sqrt{t_k}` final standard errors. It is
    unbiased at a fixed look, but a test stops at look :math:`k` only when
    :math:`|Z_k|` is large, so the estimate *given* an early stop
    overstates the effect, the more so the earlier the look and the higher
    its boundary: the winner's curse of a sequential test [1]_. The
    expected estimate over all outcomes is biased too, less [1]_.

    The expectations are exact up to numerical integration: the density of
    :math:`Z_k` on the continuation region is carried forward look by look
    with drift ``effect`` (as :func:`group_sequential_boundaries` does
    under the null), and at each look the partial means
    :math:`E[Z_k 1(Z_k \\ge c_k)]` have closed forms given :math:`Z_{k-1}`.
    A two-sided design counts crossings of either boundary (with a
    positive effect those of the lower one are rare); for one look the
    estimate given the stop is unbiased.

    Li and DeMets [2]_ evaluate the overall bias for Lan-DeMets designs
    the same way. The function computes the biases only; it does not
    correct an observed estimate. :func:`sequential_bias_adjusted_estimate`
    gives Whitehead's bias-adjusted estimate [1]_; the median-unbiased
    estimate of a stage-wise ordering [3]_ and estimates that remove the
    bias given the stopping look are not implemented.

    Cost: that of :func:`group_sequential_boundaries` for the same looks.

    References
    ----------
    .. [1] J. Whitehead, "On the bias of maximum likelihood estimation
       following a sequential test", Biometrika 73(3), 573-581, 1986.
    .. [2] Z. Li and D. L. DeMets, "On the bias of estimation of a
       Brownian motion drift following group sequential tests",
       Statistica Sinica 9, 923-937, 1999.
    .. [3] S. S. Emerson and T. R. Fleming, "Parameter estimation following
       group sequential hypothesis testing", Biometrika 77, 875-892, 1990.

    Examples
    --------
    >>> from metrics_lib import group_sequential_boundaries, sequential_estimate_bias
    >>> design = group_sequential_boundaries([0.2, 0.4, 0.6, 0.8, 1.0])
    >>> res = sequential_estimate_bias(design, 2.8)
    >>> [round(m / 2.8, 2) for m in res.mean_if_rejected]
    [4.09, 2.14, 1.48, 1.12, 0.89]
    >>> round(res.power, 3), round(res.bias, 3)
    (0.79, 0.26)
    """
    _check_design(boundaries)
    theta = check_real("effect", effect, low=-_MAX_EFFECT, high=_MAX_EFFECT)
    return _estimate_bias(boundaries, theta)


def _estimate_bias(boundaries, theta):
    """:func:`sequential_estimate_bias` for a checked design and effect."""
    t = np.asarray(boundaries.information_fractions)
    _, advance, moments = _crossing_engine(t, boundaries.alternative == "two-sided",
                                           drift=theta)
    stop_p, stop_m, reject_p, reject_m = [], [], [], []
    for k, c in enumerate(boundaries.z_boundaries):
        reach, reach_mean, up, up_mean, low, low_mean = moments(c)
        last = k == t.size - 1
        scale = 1.0 / math.sqrt(t[k])  # Z_k -> estimate in final standard errors
        reject_p.append(up + low)
        reject_m.append((up_mean + low_mean) * scale)
        stop_p.append(reach if last else up + low)
        stop_m.append((reach_mean if last else up_mean + low_mean) * scale)
        if not last:
            advance(c)
    power = float(sum(reject_p))
    mean_estimate = float(sum(stop_m))
    return SequentialEstimateBias(
        effect=theta, information_fractions=tuple(float(v) for v in t),
        stop_probability=tuple(stop_p),
        mean_if_stopped=tuple(_ratio(m, p) for m, p in zip(stop_m, stop_p)),
        rejection_probability=tuple(reject_p),
        mean_if_rejected=tuple(_ratio(m, p) for m, p in zip(reject_m, reject_p)),
        power=power, mean_if_rejected_anywhere=_ratio(sum(reject_m), power),
        mean_estimate=mean_estimate, bias=mean_estimate - theta)


def _negligible_bias_effects(boundaries):
    """Effects (final standard errors) beyond which the estimate at the stop
    is unbiased up to about 1e-23: (below, above).

    Above: the first look with a finite boundary is crossed with
    probability 1 - Phi(-10) or more. Below: two-sided, the mirror image;
    one-sided, every early boundary lies 10 standard deviations above Z_k.
    Without a finite early boundary there is no bias: an empty range.
    """
    t = boundaries.information_fractions
    c = boundaries.z_boundaries
    first = next(k for k, v in enumerate(c) if math.isfinite(v))
    if first == len(c) - 1:
        return math.inf, -math.inf
    above = (c[first] + _NEGLIGIBLE_Z) / math.sqrt(t[first])
    if boundaries.alternative == "two-sided":
        return -above, above
    early = [(v - _NEGLIGIBLE_Z) / math.sqrt(s) for v, s in zip(c[:-1], t[:-1])
             if math.isfinite(v)]
    return min(early, default=-math.inf), above


def sequential_bias_adjusted_estimate(boundaries, look, estimate, std_error):
    """Whitehead's bias-adjusted estimate after a group-sequential stop.

    Parameters
    ----------
    boundaries : GroupSequentialBoundaries
        The design, from :func:`group_sequential_boundaries`.
    look : int
        0-based index of the look at which the test ended.
    estimate : float
        The difference observed at that look (in the metric's units).
    std_error : float
        Its standard error at that look, positive.

    Returns
    -------
    float
        The bias-adjusted estimate, in the units of ``estimate``.

    Raises
    ------
    TypeError
        If ``boundaries`` is not a ``GroupSequentialBoundaries`` or ``look``
        is not an integer.
    ValueError
        If ``look`` is outside the design or ``std_error`` is not positive.

    Notes
    -----
    The estimate at the stop, :math:`\\hat\\delta`, has expectation
    :math:`\\delta + b(\\delta)` (:func:`sequential_estimate_bias`, in
    final standard errors :math:`\\sigma_K = \\sigma_k \\sqrt{t_k}`).
    Whitehead's estimate [1]_ is the :math:`\\tilde\\delta` with
    :math:`\\tilde\\delta + b(\\tilde\\delta) = \\hat\\delta`, found by
    root finding. It removes most of the overall bias of the estimate; it
    does not remove the bias *given* an early stop, which is larger
    (estimates that target that one are not implemented here). The look
    enters only through :math:`\\sigma_K`.

    The root is searched for every effect at which the bias is not
    negligible, however large. Far out it is: once
    :math:`\\delta \\sqrt{t_j} \\ge c_j + 10` at the first look :math:`j`
    with a finite boundary :math:`c_j`, the test stops there with
    probability above :math:`1 - 10^{-23}`, where the estimate is unbiased;
    a one-sided test whose effect lies below every early boundary by 10
    likewise ends at the last look. Beyond those effects the estimate is
    returned as it is. An early stop alone does not put an estimate there:
    with 14 equally spaced O'Brien-Fleming looks a stop at the first look
    means at least 31.1 final standard errors, the limit is 68.5, and at 31
    the bias is still about 0.75. A design without early boundaries has no
    bias at all.

    Cost: about 30 evaluations of :func:`sequential_estimate_bias`.

    References
    ----------
    .. [1] J. Whitehead, "On the bias of maximum likelihood estimation
       following a sequential test", Biometrika 73(3), 573-581, 1986.

    Examples
    --------
    >>> from metrics_lib import group_sequential_boundaries
    >>> from metrics_lib import sequential_bias_adjusted_estimate
    >>> design = group_sequential_boundaries([0.2, 0.4, 0.6, 0.8, 1.0])
    >>> # stopped at the third look (t = 0.6) with 0.8 +/- 0.2, z = 4
    >>> round(sequential_bias_adjusted_estimate(design, 2, 0.8, 0.2), 3)
    0.754
    """
    _check_design(boundaries)
    k = check_count("look", look)
    if k >= len(boundaries.z_boundaries):
        raise ValueError(f"look must be below the number of looks, "
                         f"{len(boundaries.z_boundaries)}; got {k}")
    se = check_real("std_error", std_error, low=0.0, low_open=True)
    observed = check_real("estimate", estimate)
    final_se = se * math.sqrt(boundaries.information_fractions[k])
    target = observed / final_se
    lo, hi = _negligible_bias_effects(boundaries)
    if not lo < target < hi:
        return observed  # the bias there is negligible (see the Notes)
    from scipy.optimize import brentq  # lazy: see the module docstring

    def excess(theta):
        return _estimate_bias(boundaries, theta).mean_estimate - target

    # E[estimate] - effect is bounded and vanishes at lo and hi, so the root
    # lies within a few standard errors of the observed value
    lo, hi = max(lo, target - 5.0), min(hi, target + 5.0)
    return brentq(excess, lo, hi, xtol=1e-8) * final_se
