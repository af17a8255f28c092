"""``compare``: is system A better than system B, on every metric, with the
multiple comparisons corrected."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import check_bool, check_choice, check_open_unit, check_rng, show
from ._inputs import MISSING, paired_matrices, per_user_tables
from .corrections import CORRECTIONS, correct_p_values
from .paired_tests import (MANY_TESTS, TESTS, pair_test, randomised_tukey_hsd,
                           t_interval, tukey_hsd, tukey_hsd_intervals)
from .report import ComparisonReport

__all__ = ["compare"]

BOOTSTRAP_METHODS = ("percentile", "basic", "bca")
SIMULTANEOUS = ("Tukey HSD simultaneous (all pairs of the metric at once; MSE of the "
                "two-way ANOVA systems x users)")
MAX_RESAMPLES = 1_000_000


def _check_options(test, correction, alpha, confidence, n_resamples, bootstrap_method,
                   missing):
    check_choice("test", test, TESTS)
    if correction is not None:
        check_choice("correction", correction, CORRECTIONS)
    check_open_unit("alpha", alpha)
    check_open_unit("confidence", confidence)
    check_choice("bootstrap_method", bootstrap_method, BOOTSTRAP_METHODS)
    check_choice("missing", missing, MISSING + ("zero",))
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(n_resamples,
                                                                     numbers.Integral):
        raise TypeError(f"n_resamples must be a positive integer; got {show(n_resamples)}")
    if not 1 <= n_resamples <= MAX_RESAMPLES:
        raise ValueError(f"n_resamples must be from 1 to {MAX_RESAMPLES:,}; got "
                         f"{int(n_resamples)}")


def _pairs(names: list, baseline):
    """``(system index, baseline index)`` of every comparison."""
    if baseline is None:  # every pair; the earlier system is the baseline
        return [(j, i) for i in range(len(names)) for j in range(i + 1, len(names))]
    if baseline not in names:
        raise ValueError(f"baseline must be one of the systems {show(names)}; got "
                         f"{show(baseline)}")
    b = names.index(baseline)
    return [(j, b) for j in range(len(names)) if j != b]


def _effect_dz(d: np.ndarray) -> float:
    """Standardised paired difference ``mean(d) / sd(d)`` (NaN if sd is 0)."""
    sd = float(d.std(ddof=1))
    return float(d.mean()) / sd if sd > 0 else math.nan


def _metric_rows(metric, names, matrix, pairs, test, options, rng) -> list[dict]:
    """The rows of one metric, raw p-values included."""
    confidence = options["confidence"]
    if test == "tukey_hsd":
        many = tukey_hsd(matrix, pairs)
    elif test == "randomised_tukey_hsd":
        many = randomised_tukey_hsd(matrix, pairs, options["n_resamples"], rng)
    if test in MANY_TESTS:  # simultaneous intervals, matching the family-wise p-values
        intervals = tukey_hsd_intervals(matrix, pairs, confidence)
    rows = []
    for k, (s, b) in enumerate(pairs):
        x, y = matrix[:, s], matrix[:, b]
        d = x - y
        if test in MANY_TESTS:
            p = float(many[k])
            low, high = intervals[k]
        else:
            p, low, high = pair_test(x, y, test, confidence=confidence,
                                     n_resamples=options["n_resamples"], rng=rng,
                                     bootstrap_method=options["bootstrap_method"])
        mean_low, mean_high = t_interval(x, confidence)
        rows.append({
            "metric": metric, "system": names[s], "baseline": names[b],
            "n_users": d.size, "mean": float(x.mean()), "mean_low": mean_low,
            "mean_high": mean_high, "baseline_mean": float(y.mean()),
            "difference": float(d.mean()), "diff_low": low, "diff_high": high,
            "effect_dz": _effect_dz(d), "wins": int(np.count_nonzero(d > 0)),
            "ties": int(np.count_nonzero(d == 0)), "losses": int(np.count_nonzero(d < 0)),
            "p_value": p})
    return rows


def _verdicts(table: pd.DataFrame, alpha: float) -> list[str]:
    return ["no evidence" if not p < alpha else ("better" if diff > 0 else "worse")
            for p, diff in zip(table["p_corrected"], table["difference"])]


def _table(results, metrics, baseline, test, correction, options, rng):
    """The comparison table of per-user results, and the number of users."""
    missing = "raise" if options["missing"] == "zero" else options["missing"]
    names, metrics, users, matrices = paired_matrices(results, metrics, missing,
                                                      options["user_col"])
    pairs = _pairs(names, baseline)
    rows = []
    for metric in metrics:
        rows += _metric_rows(metric, names, matrices[metric], pairs, test, options, rng)
    table = pd.DataFrame(rows)
    table["p_corrected"] = correct_p_values(table["p_value"].to_numpy(), correction)
    table["verdict"] = _verdicts(table, options["alpha"])
    return table, len(users)


def _evaluated(results, truth, metrics, options, ties=None):
    """Each system's recommendations evaluated against ``truth``."""
    from ..evaluate import evaluate

    if metrics is None:
        raise ValueError("metrics= is needed with truth=: name the metrics to evaluate "
                         "each system's recommendations on (e.g. ['ndcg@10'])")
    keywords = dict(options["evaluate_options"])
    if ties is not None:
        keywords["ties"] = ties
    missing = options["missing"]
    return {name: evaluate(recs, truth, metrics, user_col=options["user_col"],
                           missing=missing, **keywords)
            for name, recs in per_user_tables(results).items()}


def _tie_columns(table, results, truth, metrics, baseline, test, correction, options,
                 rng):
    """Verdicts under the best and the worst tie orders, and whether one flips."""
    for order in ("best", "worst"):
        evaluated = _evaluated(results, truth, metrics, options, ties=order)
        other, _ = _table(evaluated, metrics, baseline, test, correction, options, rng)
        table[f"verdict_{order}"] = other["verdict"].to_numpy()
    table["tie_flip"] = ((table["verdict_best"] != table["verdict"])
                         | (table["verdict_worst"] != table["verdict"]))
    return table


def compare(results, *, baseline=None, test="t", correction="holm", metrics=None,
            truth=None, alpha=0.05, confidence=0.95, n_resamples=9999,
            random_state=None, bootstrap_method="percentile", missing="warn",
            user_col="user", tie_orders=False, evaluate_options=None):
    """Compare systems user by user: intervals, effect sizes, corrected tests, verdicts.

    Parameters
    ----------
    results : mapping of str to table
        System name -> its per-user results, as :func:`metrics_lib.evaluate`
        returns them: a pandas DataFrame indexed by user (a named index) or
        with a ``user_col`` column, or a Polars DataFrame / LazyFrame or
        pyarrow Table with a ``user_col`` column; one numeric column per
        metric. With ``truth=``, each value is instead a recommendations
        table, evaluated here with :func:`~metrics_lib.evaluate`. At least
        two systems; the systems are paired by user.
    baseline : str, optional
        The system every other one is compared to. ``None`` compares every
        pair; the system listed first in ``results`` is then the baseline of
        each pair.
    test : {"t", "wilcoxon", "permutation", "bootstrap", "tukey_hsd", "randomised_tukey_hsd"}, default="t"
        The two-sided test of each comparison (see Notes).
    correction : {"holm", "bh", "bonferroni"} or None, default="holm"
        Correction of the p-values across the family: every row of the
        table (every compared pair of systems times every metric).
    metrics : str or list of str, optional
        Metric columns to compare (default: every column all systems share).
        Required with ``truth=`` (the metrics to evaluate).
    truth : table, optional
        The judgements: ``results`` then holds recommendations tables.
    alpha : float, default=0.05
        Level of the verdicts: "better" or "worse" when the corrected p-value
        is below it.
    confidence : float, default=0.95
        Level of the intervals.
    n_resamples : int, default=9999
        Resamples of the permutation, bootstrap and randomised Tukey tests
        (1 to 1,000,000). The permutation test enumerates all ``2**n`` sign
        patterns when that is not more (exact test).
    random_state : int, numpy.random.Generator or None, default=None
        Source of randomness of the resampling tests; an int makes the report
        reproducible.
    bootstrap_method : {"percentile", "basic", "bca"}, default="percentile"
        Interval of the difference with ``test="bootstrap"``.
    missing : {"warn", "skip", "raise", "zero"}, default="warn"
        Users that some system has and another has not: left out with a
        :class:`~metrics_lib.MissingUsersWarning`, left out silently, or
        refused. With ``truth=`` it is also :func:`evaluate`'s ``missing=``
        for a judged user without recommendations (scored 0 with a warning,
        left out, refused); ``"zero"`` (only with ``truth=``) scores such a
        user 0 silently (trec_eval ``-c``), so every system has every judged
        user.
    user_col : str, default="user"
        Column of user ids.
    tie_orders : bool, default=False
        With ``truth=``: evaluate every system again with ``ties="best"``
        and ``ties="worst"`` and add the verdicts under both orders and a
        ``tie_flip`` column, True when one of them differs from the verdict.
    evaluate_options : dict, optional
        Further keywords of :func:`~metrics_lib.evaluate` (with ``truth=``).

    Returns
    -------
    ComparisonReport
        ``.table`` has one row per system and metric with: ``metric,
        system, baseline, n_users, mean, mean_low, mean_high,
        baseline_mean, difference, diff_low, diff_high, effect_dz, wins,
        ties, losses, p_value, p_corrected, verdict`` (and ``verdict_best,
        verdict_worst, tie_flip`` with ``tie_orders=True``). It renders with
        ``repr``, ``.to_markdown()``, ``.to_latex()`` and in notebooks.

    Raises
    ------
    TypeError
        If ``results`` is not a mapping of names to tables, or an option has
        the wrong type.
    ValueError
        On an unknown option, fewer than two systems or paired users, a
        missing metric or baseline, NaN values, or unpaired users with
        ``missing="raise"``.

    Notes
    -----
    For each user :math:`u` the difference is :math:`d_u = x_u - y_u`
    (system minus baseline); wins, ties and losses count :math:`d_u > 0`,
    :math:`= 0` and :math:`< 0` exactly. The effect size is
    :math:`d_z = \\bar d / s_d`, the standardised mean paired difference
    (Cohen's :math:`d_z`; NaN when every difference is the same). The mean
    of each system has a Student-t interval; the difference has a paired
    Student-t interval, or the paired bootstrap interval of
    :func:`~metrics_lib.paired_bootstrap_ci` with ``test="bootstrap"``. With
    the two Tukey tests it is the simultaneous Tukey HSD interval
    :math:`\\bar x_i - \\bar x_j \\pm q_{c;\\,m,\\,(n-1)(m-1)}\\sqrt{MSE/n}`
    (:math:`q_{c}` the ``confidence`` quantile of the studentised range of the
    ``m`` systems, MSE as below): every pair of a metric is covered at once
    with probability ``confidence``, as the Tukey p-values hold for all pairs
    at once; with two systems it is the paired Student-t interval.

    Tests (all two-sided): ``"t"`` is :func:`~metrics_lib.paired_t_test`
    (scipy ``ttest_rel``); ``"wilcoxon"`` is
    ``scipy.stats.wilcoxon(x, y, zero_method="wilcox")`` (zero differences
    dropped); ``"permutation"`` is
    :func:`~metrics_lib.paired_permutation_test` (scipy ``permutation_test``
    with ``permutation_type="samples"``); ``"bootstrap"`` resamples the
    centred differences and counts resampled means at least as far from 0
    as the observed one. ``"tukey_hsd"`` compares the studentised range
    :math:`|\\bar x_i - \\bar x_j| / \\sqrt{MSE/n}` with the distribution of
    the range of all ``m`` systems, the MSE being the residual of the
    two-way ANOVA without replication (systems x users, :math:`(n-1)(m-1)`
    degrees of freedom). ``"randomised_tukey_hsd"`` permutes the ``m``
    values of each user among the systems, ``n_resamples`` times, and
    counts trials whose range of system means reaches the pair's absolute
    difference (Carterette 2012; Sakai 2014). The Tukey p-values hold for
    all pairs of a metric at once; correcting them again across the family
    is conservative (pass ``correction=None`` to keep them). When every
    difference of a pair is the same the p-value is 1 (all zero) or 0.

    References
    ----------
    .. [1] T. Sakai, *Laboratory Experiments in Information Retrieval*,
       Springer, 2018, chapters 2-4.
    .. [2] B. Carterette, "Multiple testing in statistical analysis of
       systems-based information retrieval experiments", ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics_lib import compare
    >>> users = pd.Index([1, 2, 3, 4, 5, 6, 7, 8], name="user")
    >>> bm25 = pd.DataFrame({"ndcg@10": [.2, .3, .1, .4, .3, .2, .5, .1],
    ...                      "recall@10": [.1, .2, .2, .3, .1, .0, .4, .1]}, index=users)
    >>> neural = pd.DataFrame({"ndcg@10": [.4, .5, .2, .6, .5, .3, .6, .3],
    ...                        "recall@10": [.1, .3, .1, .3, .2, .1, .4, .1]}, index=users)
    >>> report = compare({"bm25": bm25, "neural": neural}, baseline="bm25")
    >>> report.table[["metric", "wins", "ties", "losses", "verdict"]]
          metric  wins  ties  losses      verdict
    0    ndcg@10     8     0       0       better
    1  recall@10     3     4       1  no evidence
    >>> print(report.to_markdown().splitlines()[0])
    | metric | system | baseline | mean [CI] | diff [CI] | d_z | W/T/L | p | p corr. | verdict |
    """
    _check_options(test, correction, alpha, confidence, n_resamples, bootstrap_method,
                   missing)
    tie_orders = check_bool("tie_orders", tie_orders)
    if evaluate_options is not None and not isinstance(evaluate_options, Mapping):
        raise TypeError("evaluate_options must be a dict of evaluate keywords; got "
                        f"{type(evaluate_options).__name__}")
    options = {"alpha": alpha, "confidence": confidence, "n_resamples": int(n_resamples),
               "bootstrap_method": bootstrap_method, "missing": missing,
               "user_col": user_col, "evaluate_options": dict(evaluate_options or {})}
    rng = check_rng(random_state, "random_state")
    if tie_orders and truth is None:
        raise ValueError("tie_orders=True needs recommendations and truth= (the tie "
                         "orders are evaluate's ties='best' and ties='worst')")
    if missing == "zero" and truth is None:
        raise ValueError("missing='zero' scores a judged user without recommendations 0 "
                         "and needs truth=; per-user results are paired with "
                         "missing='warn', 'skip' or 'raise'")
    per_user = results if truth is None else _evaluated(results, truth, metrics, options)
    table, n_users = _table(per_user, metrics, baseline, test, correction, options, rng)
    if tie_orders:
        table = _tie_columns(table, results, truth, metrics, baseline, test, correction,
                             options, rng)
    interval = {"bootstrap": f"paired bootstrap ({bootstrap_method})",
                "tukey_hsd": SIMULTANEOUS,
                "randomised_tukey_hsd": SIMULTANEOUS}.get(test, "paired Student-t")
    notes = ["Tie orders: every system evaluated with ties='best' and with "
             "ties='worst'; FLIPS marks a verdict that changes."] if tie_orders else []
    return ComparisonReport(table, test=test, correction=correction, alpha=alpha,
                            confidence=confidence, interval=interval, n_users=n_users,
                            notes=notes)
