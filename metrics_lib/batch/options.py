"""Checking: the metric names and the keywords of evaluate, before any data is read.

Every keyword is checked against its accepted values, and the combinations
that a metric cannot take are refused here (each metric's own refusals are
its ``check`` in the registry, :mod:`metrics_lib.ranking.registry`). The
result is the ``options`` dict that the rest of the pipeline reads.
"""

from __future__ import annotations


from .._missing import MISSING_POLICIES
from .._tie_kernels import EXPECTATION_MODES, TIE_MODES, refuse_unsupported
from .._validation import (check_trec_eval_version, check_choice, check_empty, check_bool, check_gain,
                           check_min_grade, check_relevance_level,
                           check_score_threshold, check_truncate, show)
from ..ranking import (AP_DENOMINATORS, CANDIDATES, GAINS, IDEALS,
                       PRECISION_DENOMINATORS, RECALL_DENOMINATORS, _check_log_base)
from ..beyond.calibration import RANK_WEIGHTS
from ..ranking import registry


# Fixed orders of equal scores (the tie-breaking rules)...
TIES = ("item_desc", "item_asc", "numeric_desc", "numeric_asc", "input")


# ...and every accepted value of ties=: those plus the modes that do not
# depend on the order inside a tie group (metrics_lib/_tie_kernels.py).
ALL_TIES = TIES + TIE_MODES


UNJUDGED_POLICIES = ("skip", "empty")


NO_HIT_POLICIES = ("zero", "nan")
# rbp_resid: whether the ranks after the list count only when the list has an
# unjudged item (trec_eval 10.0) or always (cwl_eval 1.0.12)
RESIDUAL_TAILS = ("unjudged", "always")


def _parse_metrics(metrics) -> tuple[list[tuple[str, str, int | None]], dict]:
    """``[(column, kind, k)]`` and each column's named parameters (``rbp(p=0.8)``)."""
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        names = list(metrics)
    except TypeError:
        raise TypeError("metrics must be a metric name or a list of names; got "
                        f"{type(metrics).__name__}") from None
    if not names:
        raise ValueError("metrics is empty: name at least one metric")
    parsed, parameters, spelt = [], {}, {}
    for written in names:
        # trec_eval's map_cut.5,10 is two columns (registry.expand_metric)
        for name, metric in registry.expand_metric_names(written):
            if name in parameters:
                raise ValueError(f"metric {show(name)} is listed twice")
            shown = show(name) if name == written else f"{show(name)} (from {show(written)})"
            if metric.canonical in spelt:
                # two spellings of one metric would be two columns of the same numbers
                raise ValueError(f"metrics {spelt[metric.canonical]} and {shown} are one "
                                 f"metric, {show(metric.canonical)}: list it once")
            spelt[metric.canonical] = shown
            parameters[name] = metric.parameters
            parsed.append((name, metric.kind, metric.k))
    return parsed, parameters


def _check_options(metrics, relevance_level, denominator, gain, ideal, log_base,
                   empty, missing, ties) -> dict:
    parsed, parameters = _parse_metrics(metrics)
    for name, kind, _ in parsed:
        refuse_unsupported(ties, kind, ideal=ideal, name=name)
    return {
        "metrics": parsed,
        # column -> its named parameters; each kernel sees its own as
        # options["parameters"] (batch/scoring.py)
        "metric_parameters": parameters,
        "relevance_level": check_relevance_level(relevance_level),
        "denominator": check_choice("denominator", denominator, AP_DENOMINATORS),
        "gain": check_gain(gain, GAINS),
        "ideal": check_choice("ideal", ideal, IDEALS),
        "log_base": _check_log_base(log_base),
        "empty": check_empty(empty),
        "missing": check_choice("missing", missing, MISSING_POLICIES),
        "ties": check_choice("ties", ties, ALL_TIES),
    }


def _check_conventions(metrics, *, precision_denominator, recall_denominator,
                       min_grade, judged_only, unjudged, truncate, no_hit,
                       denominator, ideal, gain, candidates, score_threshold,
                       residual_tail="unjudged", rank_weights="equal",
                       trec_eval_version=10) -> dict:
    """The convention keywords of issue 12, checked against the metrics asked for."""
    for name, kind, k in metrics:  # each metric's own refusals (its module's check)
        check = registry.get(kind).check
        if check is not None:
            check(name, k, {"denominator": denominator, "ideal": ideal})
    min_grade = check_min_grade(min_grade)
    return {
        "precision_denominator": check_choice("precision_denominator",
                                              precision_denominator,
                                              PRECISION_DENOMINATORS),
        "recall_denominator": check_choice("recall_denominator", recall_denominator,
                                           RECALL_DENOMINATORS),
        "min_grade": min_grade,
        "judged_only": check_bool("judged_only", judged_only),
        "unjudged": check_choice("unjudged", unjudged, UNJUDGED_POLICIES),
        "truncate": check_truncate(truncate),
        "no_hit": check_choice("no_hit", no_hit, NO_HIT_POLICIES),
        "candidates": check_choice("candidates", candidates, CANDIDATES),
        "score_threshold": check_score_threshold(score_threshold),
        "residual_tail": check_choice("residual_tail", residual_tail, RESIDUAL_TAILS),
        "rank_weights": check_choice("rank_weights", rank_weights, RANK_WEIGHTS),
        "trec_eval_version": check_trec_eval_version(trec_eval_version),
        # NDCG and DCG then run on transformed grades (see gain_grades)
        "gain_transform": min_grade is not None or gain not in ("linear", "exponential"),
    }


def _refuse_expectation_combinations(options) -> None:
    """ties='average' / 'block' with a keyword of issue 12 that their kernels lack.

    The expectation kernels (metrics_lib/_tie_kernels.py) and the convention
    keywords were written side by side; until the kernels take those keywords,
    a combination is refused rather than computed without the keyword.
    """
    mode = options["ties"]
    if mode not in EXPECTATION_MODES:
        return
    unsupported = []
    for key, neutral in (("precision_denominator", "k"), ("recall_denominator", "relevant"),
                         ("min_grade", None), ("judged_only", False), ("truncate", None),
                         ("no_hit", "zero"), ("score_threshold", None)):
        if options[key] != neutral:
            unsupported.append(f"{key}={show(options[key])}")
    if options["denominator"] == "k":
        unsupported.append("denominator='k'")
    if options["ideal"] == "k":
        unsupported.append("ideal='k'")
    if options["gain_transform"] and options["min_grade"] is None:
        unsupported.append(f"gain={show(options['gain'])}")
    for name, kind, k in options["metrics"]:
        if kind in ("num_rel_ret", "rprec") and k is not None:
            unsupported.append(f"metric {show(name)}")
    if unsupported:
        raise ValueError(f"ties={show(mode)} is not available with "
                         f"{', '.join(unsupported)} (not implemented yet); use "
                         "ties='best' / ties='worst' for the bounds, or a fixed order")
