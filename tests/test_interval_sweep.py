"""Finite, honest statistics (issue 22, point 6).

Every public function with a confidence, alpha or power parameter is found
through ``metrics_lib.__all__`` (a new one is covered automatically, and
fails here until it gets inputs in ``INPUTS``), and called across the whole
range of its level: a level strictly inside (0, 1) gives finite numbers with
``ci_low <= estimate <= ci_high``, even within 1e-16 of 1; a level outside
(0, 1), or one that rounds to 1.0, raises a ValueError naming the
parameter. A second sweep feeds degenerate data (constant samples, one
user, zero variance, all ties) to every function that reports a p-value or
an interval: it either refuses with ValueError or reports no NaN.
"""

import dataclasses
import inspect
import math
import re

import numpy as np
import pandas as pd
import pytest

import metrics_lib

# names of a probability-level parameter; relevance_level is a grade, not one
LEVEL_PARAMETER = re.compile(r"(^|_)(confidence|alpha|power|significance)($|_)|^level$")

INSIDE = [0.5, 0.95, 1 - 1e-12, 1 - 1e-15, 0.9999999999999999, 1e-12, 1e-300]
OUTSIDE = [1 - 1e-17, 1.0, 0, 0.0, -0.1, 1.5, math.nan, math.inf]


def _public_functions():
    for name in metrics_lib.__all__:
        obj = getattr(metrics_lib, name)
        if inspect.isfunction(obj):
            yield name, obj


# parameters named alpha that are a model's weight in [0, 1], not a confidence
# or significance level: 0 and 1 are valid values, so the sweep's "outside"
# list does not apply; their bounds are tested with the metric
MODEL_WEIGHTS = {
    # alpha-nDCG's redundancy penalty and ERR-IA's stop probability (ndeval)
    ("alpha_ndcg_at_k", "alpha"): "tests/test_intent_metrics.py",
    ("err_ia_at_k", "alpha"): "tests/test_intent_metrics.py",
    # Steck's smoothing of the list's genre mix, in (0, 1]
    ("miscalibration", "alpha"): "tests/test_calibration_exposure.py",
    ("miscalibration_batch", "alpha"): "tests/test_calibration_exposure.py",
}


def _discovered():
    found = []
    for name, function in _public_functions():
        for parameter in inspect.signature(function).parameters:
            if LEVEL_PARAMETER.search(parameter) and (name, parameter) not in MODEL_WEIGHTS:
                found.append((name, parameter))
    return found


_rng = np.random.default_rng(22)
_IMP_A, _IMP_B = _rng.poisson(20, 60) + 1, _rng.poisson(20, 60) + 1
_CLICKS_A, _CLICKS_B = _rng.binomial(_IMP_A, 0.05), _rng.binomial(_IMP_B, 0.07)
_PRE_A, _PRE_B = _rng.gamma(2, 5, 60), _rng.gamma(2, 5, 60)
_Y_A, _Y_B = _PRE_A + _rng.normal(0, 3, 60), _PRE_B + 0.5 + _rng.normal(0, 3, 60)
_LOG = [[0.5, 0.5], [0.8, 0.2], [0.25, 0.75], [0.6, 0.4]]
_TARGET = [[0.0, 1.0], [0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]
_SLATE_LOG = np.full((3, 2, 2), 0.5)
_SLATE_TARGET = np.array([[[0.0, 1.0], [1.0, 0.0]]] * 3)
_A = [0.5, 0.7, 0.2, 0.9, 0.1, 0.4]
_B = [0.4, 0.5, 0.2, 0.6, 0.3, 0.4]

# three systems' per-user results (users as a named index), and the online
# results that online_report puts next to a report of them
_USERS = pd.Index(range(1, 13), name="user")
_SYSTEMS = {name: pd.DataFrame({"ndcg@10": _rng.uniform(0, 1, 12) + shift,
                                "recall@10": _rng.uniform(0, 1, 12)}, index=_USERS)
            for name, shift in (("A", 0.0), ("B", 0.2), ("C", 0.1))}
_OFFLINE = metrics_lib.compare({"A": _SYSTEMS["A"], "B": _SYSTEMS["B"]}, baseline="A")
_ONLINE = {"CTR": metrics_lib.two_proportion_test(200, 10_000, 250, 10_000),
           "dwell": metrics_lib.cuped_test(_Y_B, _PRE_B, _Y_A, _PRE_A),
           "clicks/view": metrics_lib.ratio_metric_test(_CLICKS_A, _IMP_A, _CLICKS_B, _IMP_B),
           "interleaved clicks": metrics_lib.interleaving_test(_rng.poisson(1.2, 80),
                                                               _rng.poisson(1.0, 80))}
_COMPARE_OPTIONS = ([{"test": t} for t in ("t", "wilcoxon", "tukey_hsd")]
                    + [{"test": t, "n_resamples": 999, "random_state": 0}
                       for t in ("permutation", "randomised_tukey_hsd")]
                    + [{"test": "bootstrap", "bootstrap_method": m, "n_resamples": 999,
                        "random_state": 0} for m in ("percentile", "basic", "bca")])

# the off-policy estimators' interval options: normal, bootstrap (seeded, so
# that the widening test compares the same resamples), clipped weights
_OPE_OPTIONS = [{}, {"interval": "bootstrap", "n_resamples": 999, "seed": 0},
                {"clip": 3.0}, {"clip": 3.0, "interval": "bootstrap", "n_resamples": 999,
                                "seed": 1}]

# Minimal valid inputs of each discovered function: a list of variants, each
# (args, kwargs, estimate): estimate names the field that a ``ci_low``/``ci_high``
# pair must contain (None: no interval, or a scalar result).
INPUTS = {
    "click_through_rate": [((30, 1000), {"method": m}, "rate")
                           for m in ("wilson", "wald", "jeffreys", "clopper_pearson")]
                          + [((0, 20), {}, "rate"), ((20, 20), {}, "rate")],
    "two_proportion_test": [((200, 10_000, 250, 10_000), {}, "absolute_lift")],
    "power_two_proportions": [((0.02, 0.005, 10_000), {}, None)],
    "sample_size_per_group": [((0.05, 0.005), {}, None)],
    "ratio_metric": [((_CLICKS_A, _IMP_A), {}, "ratio")],
    "ratio_metric_test": [((_CLICKS_A, _IMP_A, _CLICKS_B, _IMP_B), {}, "absolute_lift")],
    "cuped_test": [((_Y_A, _PRE_A, _Y_B, _PRE_B), {}, "difference")],
    "group_sequential_boundaries": [(([0.5, 1.0],), {"spending": s, "alternative": a}, None)
                                    for s in ("obrien-fleming", "pocock")
                                    for a in ("two-sided", "greater")],
    "ips_estimate": [(([1, 1, 0, 1], [1, 1, 0, 0], _LOG, _TARGET), kw, "value")
                     for kw in _OPE_OPTIONS],
    "snips_estimate": [(([1, 1, 0, 1], [1, 1, 0, 0], _LOG, _TARGET), kw, "value")
                       for kw in _OPE_OPTIONS],
    "doubly_robust_estimate": [(([1, 1, 0, 1], [1, 1, 0, 0], _LOG, _TARGET,
                                 [[0.2, 0.6]] * 4), kw, "value") for kw in _OPE_OPTIONS],
    "slate_ips_estimate": [(([[1, 0], [1, 1], [0, 1]], [[0, 1], [1, 0], [1, 0]],
                             _SLATE_LOG, _SLATE_TARGET), kw, "value") for kw in _OPE_OPTIONS],
    "paired_t_test": [((_A, _B), {}, "mean_difference")],
    "paired_bootstrap_ci": [((_A, _B), {"method": m, "n_resamples": 999, "seed": 1},
                             "mean_difference") for m in ("percentile", "basic", "bca")],
    # a ComparisonReport: every row's difference and mean inside their intervals
    "compare": [((_SYSTEMS,), kw, "difference") for kw in _COMPARE_OPTIONS]
               + [((_SYSTEMS,), {"baseline": "A", "correction": c}, "difference")
                  for c in ("bh", "bonferroni", None)],
    "online_report": [((_ONLINE,), {"system": "B", "baseline": "A", "offline": o},
                       "difference") for o in (None, _OFFLINE)],
    "users_needed": [((0.05,), {"variance": 0.01}, None),
                     ((0.05,), {"design": "two_sample", "variance": 0.04}, None),
                     ((0.05,), {"design": "interleaving"}, None),
                     ((0.005,), {"design": "proportions", "baseline_rate": 0.05}, None),
                     ((0.05,), {"variance": 0.01, "method": "sakai"}, None)],
    "detectable_difference": [((100,), {"variance": 0.01}, None),
                              ((100,), {"design": "two_sample", "variance": 0.04}, None),
                              ((5000,), {"design": "interleaving"}, None),
                              ((50_000,), {"design": "proportions", "baseline_rate": 0.05},
                               None)],
    "power_of": [((34, 0.05), {"variance": 0.01}, None),
                 ((34, 0.05), {"variance": 0.01, "method": "sakai"}, None),
                 ((253, 0.05), {"design": "two_sample", "variance": 0.04}, None),
                 ((786, 0.05), {"design": "interleaving"}, None),
                 ((31234, 0.005), {"design": "proportions", "baseline_rate": 0.05}, None)],
}

DISCOVERED = _discovered()

# level values a function refuses by its documentation, inside (0, 1)
DOCUMENTED_REFUSALS = {
    # more than 1e300 units per group: "no experiment can run that"
    ("sample_size_per_group", "alpha"): lambda variant, value: value < 1e-100,
    ("sample_size_per_group", "power"): lambda variant, value: value < 1e-100,
    # users_needed(design="proportions") is sample_size_per_group, refusals included
    ("users_needed", "power"):
        lambda variant, value: variant[1].get("design") == "proportions" and value < 1e-100,
    # a one-sided boundary below 0 would reject in the wrong direction
    ("group_sequential_boundaries", "alpha"):
        lambda variant, value: variant[1]["alternative"] == "greater" and value >= 0.5,
}


def test_model_weights_named_alpha_exist_and_refuse_values_outside_their_range():
    # an entry of MODEL_WEIGHTS that no longer names a public parameter would
    # hide a future level parameter of that name from the sweep
    for name, parameter in MODEL_WEIGHTS:
        assert parameter in inspect.signature(getattr(metrics_lib, name)).parameters
    calls = {"alpha_ndcg_at_k": (["a"], {"a": {1: 1}}, 1), "err_ia_at_k": (["a"], {"a": {1: 1}}, 1),
             "miscalibration": (["a"], {"a": ["g"]}, ["a"])}
    for name, args in calls.items():
        for value in (-0.1, 1.5, math.nan, math.inf):
            with pytest.raises(ValueError, match="alpha"):
                getattr(metrics_lib, name)(*args, alpha=value)


def test_discovery_finds_the_known_interval_functions():
    names = {name for name, _ in DISCOVERED}
    # a floor, so that a broken discovery cannot pass the sweep vacuously
    assert {"paired_t_test", "ratio_metric", "ips_estimate", "click_through_rate",
            "group_sequential_boundaries", "sample_size_per_group"} <= names
    assert ("sample_size_per_group", "power") in DISCOVERED


@pytest.mark.parametrize("name,parameter", DISCOVERED)
def test_every_discovered_function_has_inputs(name, parameter):
    assert name in INPUTS, (f"{name} has a level parameter {parameter!r}: add its "
                            "minimal valid inputs to INPUTS")


# the columns of a ComparisonReport every row has (the rest are NaN for a
# design that lacks them: an A/B row has no mean per system)
_REPORT_COLUMNS = ("difference", "diff_low", "diff_high", "p_value", "p_corrected")


def _numbers(result):
    """Every float of a result (dataclass fields, tuples, a ComparisonReport, a scalar)."""
    if isinstance(result, metrics_lib.ComparisonReport):
        items = [(f"{c}[{k}]", v) for c in _REPORT_COLUMNS
                 for k, v in result.table[c].items()]
    elif dataclasses.is_dataclass(result):
        items = [(f.name, getattr(result, f.name)) for f in dataclasses.fields(result)]
    else:
        items = [("result", result)]
    for field, value in items:
        for v in (value if isinstance(value, tuple) else (value,)):
            if isinstance(v, (float, int, np.floating, np.integer)) and not isinstance(v, bool):
                yield field, float(v)


def _intervals(result, estimate):
    if estimate is None:
        return []
    if isinstance(result, metrics_lib.ComparisonReport):
        t = result.table
        pairs = list(zip(t["diff_low"], t["difference"], t["diff_high"]))
        if "mean_low" in t:  # the offline rows' interval of the system's mean
            offline = t.dropna(subset=["mean_low"])
            pairs += list(zip(offline["mean_low"], offline["mean"], offline["mean_high"]))
        return pairs
    pairs = [(getattr(result, "ci_low"), getattr(result, estimate),
              getattr(result, "ci_high"))]
    if hasattr(result, "relative_ci_low"):
        pairs.append((result.relative_ci_low, result.relative_lift,
                      result.relative_ci_high))
    return pairs


def _call(name, variant, parameter, value):
    args, kwargs, _ = variant
    return getattr(metrics_lib, name)(*args, **{**kwargs, parameter: value})


CASES = [(name, parameter, i) for name, parameter in DISCOVERED
         for i in range(len(INPUTS.get(name, [None])))]


@pytest.mark.parametrize("name,parameter,i", CASES)
@pytest.mark.parametrize("value", INSIDE)
def test_levels_inside_give_finite_ordered_results(name, parameter, i, value):
    if name not in INPUTS:
        pytest.fail(f"{name} has no entry in INPUTS")
    variant = INPUTS[name][i]
    try:
        result = _call(name, variant, parameter, value)
    except ValueError as error:
        # only the documented refusals of impossible designs are allowed here
        assert (name, parameter) in DOCUMENTED_REFUSALS, error
        assert DOCUMENTED_REFUSALS[name, parameter](variant, value), error
        assert parameter in str(error)
        return
    for field, number in _numbers(result):
        if field != "z_boundaries":
            assert math.isfinite(number), f"{name}({parameter}={value!r}).{field} = {number}"
    if name == "group_sequential_boundaries":
        # an infinite boundary only for a look that spends nothing (never rejects)
        spent = np.diff(np.r_[0.0, result.cumulative_alpha])
        for k, bound in enumerate(result.z_boundaries):
            assert math.isfinite(bound) or (spent[k] == 0 and result.nominal_alpha[k] == 0)
    if value < 0.5:
        return  # a Jeffreys or bootstrap interval that narrow need not hold the estimate
    for low, estimate, high in _intervals(result, variant[2]):
        assert low <= estimate <= high, (name, value, low, estimate, high)


@pytest.mark.parametrize("name,parameter,i", CASES)
def test_intervals_widen_with_the_confidence(name, parameter, i):
    if name not in INPUTS or parameter != "confidence":
        pytest.skip("not a confidence level")
    variant = INPUTS[name][i]
    levels = [0.5, 0.95, 1 - 1e-12, 1 - 1e-15, 0.9999999999999999]
    previous = None
    for value in levels:
        bounds = _intervals(_call(name, variant, parameter, value), variant[2])
        if previous is not None:
            for (lo0, _, hi0), (lo1, _, hi1) in zip(previous, bounds):
                assert lo1 <= lo0 + 1e-12 and hi1 >= hi0 - 1e-12, (name, value)
        previous = bounds


@pytest.mark.parametrize("name,parameter,i", CASES)
@pytest.mark.parametrize("value", OUTSIDE)
def test_levels_outside_are_refused_by_name(name, parameter, i, value):
    if name not in INPUTS:
        pytest.fail(f"{name} has no entry in INPUTS")
    with pytest.raises(ValueError, match=rf"\b{parameter}\b"):
        _call(name, INPUTS[name][i], parameter, value)


# ---------------------------------------------------------------------------
# degenerate data
# ---------------------------------------------------------------------------
_ONE_LOG, _ONE_TARGET = [[0.5, 0.5]], [[1.0, 0.0]]

DEGENERATE = {
    "paired_t_test": [([1, 1, 1], [1, 1, 1]), ([2, 3, 4], [1, 2, 3]), ([1], [0]),
                      ([0.5, 0.5, 0.2], [0.5, 0.5, 0.2])],
    "paired_permutation_test": [([1, 1, 1], [1, 1, 1]), ([2, 3, 4], [1, 2, 3]), ([1], [0]),
                                ([0.5, 0.5, 0.2], [0.5, 0.5, 0.2])],
    "paired_bootstrap_ci": [([1, 1, 1], [1, 1, 1]), ([2, 3, 4], [1, 2, 3]), ([1], [0])],
    # one resample: a NaN standard error before
    "paired_bootstrap_ci_one_resample": [([0.1, 0.5, 0.3], [0.0, 0.2, 0.4])],
    "two_proportion_test": [(0, 100, 0, 100), (100, 100, 100, 100), (0, 100, 5, 100),
                            (0, 100, 100, 100), (5, 100, 5, 100), (1, 1, 0, 1)],
    "ratio_metric": [([1, 1], [2, 2]), ([0, 0], [1, 1]), ([1], [1])],
    # the issue's case: a NaN relative lift with a p-value of 0
    "ratio_metric_test": [([0, 0], [1, 1], [1, 1], [1, 1]), ([0, 0], [1, 1], [1, 2], [2, 2]),
                          ([1, 1], [1, 1], [1, 1], [1, 1]), ([1, 1], [2, 2], [1, 1], [3, 3]),
                          ([1, -1], [1, 1], [1, 2], [2, 2])],
    "cuped_test": [([1, 1], [1, 2], [1, 1], [3, 4]), ([1, 1], [1, 2], [2, 2], [3, 4]),
                   ([1, 1], [1, 1], [1, 1], [1, 1]), ([1, 2], [1, 1], [1, 2], [1, 1])],
    "interleaving_test": [([1, 1], [1, 1]), ([0, 0], [0, 0]), ([1], [0]), ([0], [0])],
    "sample_ratio_mismatch": [([0, 0],), ([5, 0],), ([5, 5],), ([1, 1], [1, 1])],
    "ips_estimate": [([1], [0], _ONE_LOG, _ONE_TARGET), ([0, 0], [0, 0], _LOG[:2], _TARGET[:2])],
    "snips_estimate": [([1], [0], _ONE_LOG, _ONE_TARGET), ([1, 1], [0, 0], _LOG[:2], _TARGET[:2])],
    "doubly_robust_estimate": [([1], [0], _ONE_LOG, _ONE_TARGET, [[0.5, 0.5]]),
                               ([0, 0], [0, 0], _LOG[:2], _TARGET[:2], [[0, 0]] * 2)],
    "slate_ips_estimate": [([[1, 0]], [[0, 1]], _SLATE_LOG[:1], _SLATE_TARGET[:1])],
    "click_through_rate": [(0, 1), (1, 1), (0, 0)],
}


def _reports_statistics(function):
    """A public function whose documented result has a p-value or an interval."""
    doc = inspect.getdoc(function) or ""
    match = re.search(r"Returns\n-------\n(\w+)", doc)
    result = getattr(metrics_lib, match.group(1), None) if match else None
    if not dataclasses.is_dataclass(result):
        return False
    fields = {f.name for f in dataclasses.fields(result)}
    return "p_value" in fields or "ci_low" in fields


STATISTICS = [name for name, function in _public_functions()
              if _reports_statistics(function)]


def test_degenerate_inputs_cover_every_statistic():
    missing = sorted(set(STATISTICS) - set(DEGENERATE))
    assert not missing, f"add degenerate inputs for {missing}"
    assert {"paired_t_test", "interleaving_test", "ratio_metric_test"} <= set(STATISTICS)


DEGENERATE_CASES = [(name, args) for name, calls in DEGENERATE.items() for args in calls]


@pytest.mark.parametrize("name,args", DEGENERATE_CASES,
                         ids=[f"{n}{a}"[:60] for n, a in DEGENERATE_CASES])
def test_degenerate_inputs_refuse_or_report_no_nan(name, args):
    function = getattr(metrics_lib, name, None)
    if name == "paired_bootstrap_ci_one_resample":
        function = lambda a, b: metrics_lib.paired_bootstrap_ci(a, b, n_resamples=1, seed=0)  # noqa: E731
    try:
        result = function(*args)
    except ValueError as error:
        assert str(error) and "np.float64(" not in str(error)
        return
    numbers = dict(_numbers(result))
    nan = [field for field, v in _numbers(result) if math.isnan(v)]
    p = numbers.get("p_value")
    if p is not None:
        assert 0.0 <= p <= 1.0
        assert not nan, f"{name}{args}: NaN {nan} next to p_value={p}"
    if "ci_low" in numbers:  # an interval's companions are not NaN either
        assert not nan, f"{name}{args}: NaN {nan} next to an interval"
    for field in ("ci_low", "ci_high", "relative_ci_low", "relative_ci_high"):
        if field in numbers:
            assert not math.isnan(numbers[field]), f"{name}{args}: {field} is NaN"


# ---------------------------------------------------------------------------
# bounded cost: what grows with precision is capped by a documented rule
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("function,minimum", [(metrics_lib.paired_bootstrap_ci, 2),
                                              (metrics_lib.paired_permutation_test, 1)])
def test_resamples_beyond_the_cap_are_refused(function, minimum):
    # more resamples only shrink a Monte Carlo error already below 0.0005; the
    # message gives the real minimum (one bootstrap resample has no spread)
    for n in (1_000_001, minimum - 1):
        with pytest.raises(ValueError, match=f"n_resamples must be an integer from "
                                             f"{minimum} to 1,000,000"):
            function([0.1, 0.5, 0.3], [0.0, 0.2, 0.4], n_resamples=n, seed=0)
    function([0.1, 0.5, 0.3], [0.0, 0.2, 0.4], n_resamples=minimum, seed=0)
    result = function([0.1, 0.5, 0.3], [0.0, 0.2, 0.4], n_resamples=1_000_000, seed=0)
    assert result.n_resamples in (1_000_000, 8)  # the exact test enumerates 2**3


@pytest.mark.parametrize("gap", [1e-4, 1e-6])
def test_looks_closer_than_the_minimum_gap_are_refused(gap):
    # a gap of 1e-8 took 75 s and 4 GB, 1e-10 ran out of memory, for a
    # boundary that moves in the fourth digit
    with pytest.raises(ValueError, match=r"information_fractions 0\.5 and .* closer than 0\.001"):
        metrics_lib.group_sequential_boundaries([0.5, 0.5 + gap, 1.0])
    close = metrics_lib.group_sequential_boundaries([0.5, 0.501, 1.0])
    assert all(math.isfinite(c) for c in close.z_boundaries)


def test_a_look_that_spends_nothing_never_rejects():
    # O'Brien-Fleming at t = 0.001 spends 2 * P(Z > 70.9), below float64:
    # the boundary was reported as 40.0 (the end of the search bracket)
    design = metrics_lib.group_sequential_boundaries([0.001, 1.0])
    assert design.z_boundaries[0] == math.inf and design.nominal_alpha[0] == 0.0
    assert design.first_crossing([39.0, 0.0]) is None
    assert design.z_boundaries[1] == pytest.approx(1.959964, abs=1e-5)


def test_one_sided_alpha_of_one_half_or_more_is_refused():
    # the boundary would be negative: scipy's root finder failed with
    # "f(a) and f(b) must have different signs"
    with pytest.raises(ValueError, match="alpha must be below 0.5 for a one-sided"):
        metrics_lib.group_sequential_boundaries([0.5, 1.0], alpha=0.6, alternative="greater")
