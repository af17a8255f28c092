"""Normal-theory intervals and p-values shared by the user-level tests.

``scipy.stats`` is imported inside the functions (it is slow to import).
"""

from __future__ import annotations

import math


ALTERNATIVES = ("two-sided", "greater", "less")


def _norm():
    from scipy.stats import norm  # lazy: see the module docstring

    return norm


# ----------------------------------------------------------------------------
# shared pieces
# ----------------------------------------------------------------------------
def _interval(estimate, se, gamma, alternative):
    """Normal confidence interval of ``estimate`` with standard error ``se``.

    The quantile is the inverse survival function of the tail: ``1 - tail``
    rounds to 1 for a confidence within 1e-16 of 1, where ``ppf`` gives an
    infinite bound, while ``isf(tail)`` stays finite (about 8.3 at 1e-16).
    """
    norm = _norm()
    if alternative == "two-sided":
        q = float(norm.isf((1.0 - gamma) / 2.0))
        return estimate - q * se, estimate + q * se
    q = float(norm.isf(1.0 - gamma))
    if alternative == "greater":
        return estimate - q * se, math.inf
    return -math.inf, estimate + q * se


def _p_value_and_interval(estimate, se, gamma, alternative, why):
    """Normal p-value of estimate/se and the matching confidence interval.

    ``why`` says, for the message, what a zero standard error means.
    """
    if not se > 0:
        # z = estimate / 0 would give a p-value of 0 (or 1) with no evidence
        # behind it; the t-test and two_proportion_test refuse this case too
        raise ValueError(f"the standard error is 0 ({why}), so the z statistic is "
                         "undefined; there is no evidence either way")
    norm = _norm()
    z = estimate / se
    if alternative == "two-sided":
        p = 2.0 * float(norm.sf(abs(z)))
    elif alternative == "greater":
        p = float(norm.sf(z))
    else:
        p = float(norm.cdf(z))
    low, high = _interval(estimate, se, gamma, alternative)
    return z, min(p, 1.0), low, high
