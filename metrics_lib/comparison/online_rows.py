"""One report for offline and online: interleaving and A/B test results as rows
of a :class:`ComparisonReport`, next to the rows of :func:`compare`."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import check_open_unit, show
from .corrections import CORRECTIONS, correct_p_values
from .report import CORRECTION_NAMES, ComparisonReport

__all__ = ["online_report"]

_COLUMNS = ["metric", "design", "system", "baseline", "n_users", "mean", "mean_low",
            "mean_high", "baseline_mean", "difference", "diff_low", "diff_high",
            "effect_dz", "wins", "ties", "losses", "p_value"]


def _row(label: str, result, system: str, baseline: str, confidence: float) -> dict:
    """One result of the library's online tests as a row of the report."""
    kind = type(result).__name__
    if kind not in ("InterleavingTest", "TwoProportionTest", "CupedTest", "RatioTest"):
        raise TypeError(f"online[{show(label)}] must be the result of interleaving_test, "
                        "two_proportion_test, cuped_test or ratio_metric_test; got "
                        f"{kind}")
    if getattr(result, "alternative", "two-sided") != "two-sided":
        raise ValueError(f"online[{show(label)}] is a one-sided test "
                         f"(alternative={show(result.alternative)}); the report's "
                         "verdicts need two-sided p-values")
    row = dict.fromkeys(_COLUMNS, math.nan)
    row.update(metric=label, system=system, baseline=baseline, p_value=result.p_value)
    if kind == "InterleavingTest":
        from scipy.stats import binomtest

        decided = result.wins_a + result.wins_b
        ci = binomtest(result.wins_a, decided).proportion_ci(confidence, method="exact")
        # the share of decided impressions won by the system, minus 1/2: the
        # difference users_needed(design="interleaving") plans for
        row.update(design="interleaving", n_users=decided + result.ties,
                   mean=result.share_a, difference=result.share_a - 0.5,
                   diff_low=ci.low - 0.5, diff_high=ci.high - 0.5, wins=result.wins_a,
                   ties=result.ties, losses=result.wins_b)
    elif kind == "TwoProportionTest":
        row.update(design="A/B (proportions)", mean=result.rate_treatment,
                   baseline_mean=result.rate_control, difference=result.absolute_lift,
                   diff_low=result.ci_low, diff_high=result.ci_high)
    elif kind == "CupedTest":
        row.update(design="A/B (CUPED)", mean=result.adjusted_mean_treatment,
                   baseline_mean=result.adjusted_mean_control,
                   difference=result.difference, diff_low=result.ci_low,
                   diff_high=result.ci_high)
    else:  # RatioTest
        row.update(design="A/B (ratio metric)", mean=result.ratio_treatment,
                   baseline_mean=result.ratio_control, difference=result.absolute_lift,
                   diff_low=result.ci_low, diff_high=result.ci_high)
    return row


def online_report(online, *, system, baseline, offline=None, correction="holm",
                  alpha=0.05, confidence=0.95):
    """One report of offline comparisons, interleaving experiments and A/B tests.

    Parameters
    ----------
    online : mapping of str to test result
        Label (the metric, e.g. ``"CTR"``) -> the result of
        :func:`~metrics_lib.interleaving_test` (``clicks_a`` being
        ``system``'s), :func:`~metrics_lib.two_proportion_test`,
        :func:`~metrics_lib.cuped_test` or :func:`~metrics_lib.ratio_metric_test`
        (treatment = ``system``, control = ``baseline``), each two-sided.
    system, baseline : str
        Names of the treatment and of the control in the report.
    offline : ComparisonReport, optional
        A report of :func:`compare`; its rows come first.
    correction : {"holm", "bh", "bonferroni"} or None, default="holm"
        Correction across the family of *all* rows, offline and online.
    alpha : float, default=0.05
        Level of the verdicts.
    confidence : float, default=0.95
        Level of the interleaving interval (the A/B intervals are those of
        the results).

    Returns
    -------
    ComparisonReport
        Its ``table`` has the columns of :func:`compare` plus ``design``
        (``"offline"``, ``"interleaving"``, ``"A/B (proportions)"``, ``"A/B
        (CUPED)"``, ``"A/B (ratio metric)"``); columns a design lacks are NaN.

    Raises
    ------
    TypeError
        If a value of ``online`` is not one of those results.
    ValueError
        On a one-sided result, an empty report, or a bad option.

    Notes
    -----
    The difference of an interleaving row is the share of decided (not
    tied) impressions the system won, minus 1/2, with the exact
    Clopper-Pearson interval of the share; its wins and losses are
    impressions won and lost. A/B rows carry the results' own differences,
    intervals and p-values unchanged. The p-values of every row are then
    corrected together and the verdicts recomputed ("better" when the
    corrected p-value is below ``alpha`` and the difference positive).

    References
    ----------
    .. [1] R. Kohavi, D. Tang and Y. Xu, *Trustworthy Online Controlled
       Experiments*, Cambridge University Press, 2020.
    .. [2] O. Chapelle, T. Joachims, F. Radlinski and Y. Yue, "Large-scale
       validation and analysis of interleaved search evaluation", ACM TOIS
       30(1), 2012.

    Examples
    --------
    >>> from metrics_lib import interleaving_test, online_report, two_proportion_test
    >>> ab = two_proportion_test(480, 10_000, 560, 10_000)
    >>> il = interleaving_test([3, 1, 2, 0, 4] * 40, [1, 1, 0, 2, 1] * 40)
    >>> report = online_report({"CTR": ab, "clicks": il}, system="B", baseline="A")
    >>> report.table[["metric", "design", "verdict"]]
       metric             design  verdict
    0     CTR  A/B (proportions)   better
    1  clicks       interleaving   better
    """
    if not isinstance(online, Mapping) or not online:
        raise TypeError("online must be a non-empty mapping of labels to test results; "
                        f"got {type(online).__name__}")
    if correction is not None and correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {', '.join(map(repr, CORRECTIONS))} "
                         f"or None; got {show(correction)}")
    alpha = check_open_unit("alpha", alpha)
    confidence = check_open_unit("confidence", confidence)
    rows = [_row(str(label), result, system, baseline, confidence)
            for label, result in online.items()]
    frames = []
    if offline is not None:
        if not isinstance(offline, ComparisonReport):
            raise TypeError("offline must be a ComparisonReport (the result of compare); "
                            f"got {type(offline).__name__}")
        first = offline.table.drop(columns=["p_corrected", "verdict"], errors="ignore")
        frames.append(first.assign(design=first.get("design", "offline")))
    frames.append(pd.DataFrame(rows))
    table = pd.concat(frames, ignore_index=True)
    table["p_corrected"] = correct_p_values(table["p_value"].to_numpy(float), correction)
    table["verdict"] = np.where(table["p_corrected"] < alpha,
                                np.where(table["difference"] > 0, "better", "worse"),
                                "no evidence")
    description = (f"Offline rows as in compare(); online rows carry their test's "
                   f"difference, interval and p-value (interleaving: share of decided "
                   f"impressions won minus 1/2, exact {confidence:.0%} interval). p "
                   f"corrected by {CORRECTION_NAMES[correction]} across the family of "
                   f"{len(table)} rows; verdict at alpha = {alpha:g}.")
    return ComparisonReport(table, test=offline.test if offline is not None else "t",
                            correction=correction, alpha=alpha, confidence=confidence,
                            interval="", n_users=offline.n_users if offline else 0,
                            description=description)
