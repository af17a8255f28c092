"""Multiple-testing corrections of a family of p-values.

Each function takes the raw p-values of one family (every comparison a
report makes) and returns the corrected ones, in the same order.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, show

__all__ = ["CORRECTIONS", "correct_p_values"]

CORRECTIONS = ("holm", "bh", "bonferroni")


def _check_p_values(p_values) -> np.ndarray:
    try:
        p = np.array(p_values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError("p_values must be a sequence of numbers") from None
    if p.ndim != 1:
        raise ValueError(f"p_values must be one-dimensional; got shape {p.shape}")
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        raise ValueError(f"p_values must lie in [0, 1]; got {show(p[bad][0])}")
    return p


def correct_p_values(p_values, correction="holm"):
    """Corrected p-values of a family of tests.

    Parameters
    ----------
    p_values : sequence of float
        Raw p-values in [0, 1], one per test of the family.
    correction : {"holm", "bh", "bonferroni"} or None, default="holm"
        Holm's step-down correction (controls the family-wise error rate),
        Benjamini-Hochberg's step-up correction (controls the false
        discovery rate under independence or positive dependence),
        Bonferroni's (family-wise), or ``None`` (the p-values unchanged).

    Returns
    -------
    numpy.ndarray
        Corrected p-values, in the order of ``p_values``, capped at 1.

    Raises
    ------
    ValueError
        On an unknown ``correction`` or a p-value outside [0, 1] (NaN
        included).
    TypeError
        If ``p_values`` holds something else than numbers.

    Notes
    -----
    With :math:`m` tests and the p-values sorted increasingly
    :math:`p_{(1)} \\le \\dots \\le p_{(m)}`:

    * Bonferroni: :math:`\\min(1, m p_i)`;
    * Holm: :math:`\\tilde p_{(i)} = \\max_{j \\le i} \\min(1, (m - j + 1) p_{(j)})`;
    * Benjamini-Hochberg: :math:`\\tilde p_{(i)} = \\min_{j \\ge i}
      \\min(1, m p_{(j)} / j)`.

    These are ``statsmodels.stats.multitest.multipletests`` with
    ``method="bonferroni"``, ``"holm"`` and ``"fdr_bh"`` (checked in
    ``tests/test_compare.py``).

    References
    ----------
    .. [1] S. Holm, "A simple sequentially rejective multiple test procedure",
       Scandinavian Journal of Statistics 6(2), 1979.
    .. [2] Y. Benjamini and Y. Hochberg, "Controlling the false discovery rate",
       Journal of the Royal Statistical Society B 57(1), 1995.

    Examples
    --------
    >>> from metrics_lib.comparison.corrections import correct_p_values
    >>> correct_p_values([0.01, 0.04, 0.03], "holm").round(4).tolist()
    [0.03, 0.06, 0.06]
    >>> correct_p_values([0.01, 0.04, 0.03], "bh").round(4).tolist()
    [0.03, 0.04, 0.04]
    """
    if correction is not None:
        check_choice("correction", correction, CORRECTIONS)
    p = _check_p_values(p_values)
    m = p.size
    if correction is None or m == 0:
        return p.copy()
    if correction == "bonferroni":
        return np.minimum(1.0, p * m)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if correction == "holm":
        steps = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:  # Benjamini-Hochberg: running minimum from the largest p-value down
        steps = np.minimum.accumulate((m * ranked / np.arange(1, m + 1))[::-1])[::-1]
    corrected = np.empty(m)
    corrected[order] = np.minimum(1.0, steps)
    return corrected
