"""Tests of metrics_lib.compare (issue 28) against references on random data.

References: scipy.stats ttest_rel, wilcoxon, permutation_test
(permutation_type="samples"), bootstrap (paired), tukey_hsd and
studentized_range; statsmodels multipletests and the two-way ANOVA of
statsmodels' OLS; an exact enumeration of the randomised Tukey HSD written
here; ranx's Fisher randomisation test when ranx is installed in
/tmp/ranx-venv (a separate environment, run in a subprocess).
"""

import itertools
import json
import math
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import metrics_lib as ml
from metrics_lib.comparison.paired_tests import tukey_p_values

ID_KINDS = ["int", "uint64", "str", "arrow"]


def _ids(kind, n, rng):
    raw = rng.choice(10 * n, n, replace=False)
    if kind == "int":
        return [int(v) - 5 * n for v in raw]  # negative ids too
    if kind == "uint64":
        return np.array(raw, dtype=np.uint64) + np.uint64(2 ** 63)
    if kind == "str":
        return [f"u{v}" for v in raw]
    return pd.array(raw.astype(np.int64), dtype="int64[pyarrow]")


def _world(seed, n, m, kind="int", digits=1):
    """``m`` systems' per-user results (rows shuffled per system) and the
    reference matrix, built by a dict lookup per user (users sorted)."""
    rng = np.random.default_rng(seed)
    ids = _ids(kind, n, rng)
    base = rng.beta(0.8, 1.5, n)
    values = {}
    results = {}
    for j in range(m):
        shift = rng.normal(0, 0.05)
        v = np.clip(base + shift + rng.normal(0, 0.1, n), 0, 1)
        v = np.round(v, digits) if digits is not None else v  # rounding makes ties
        name = f"sys{j}"
        values[name] = dict(zip(list(ids), v))
        order = rng.permutation(n)
        index = pd.Index(pd.Series(ids).iloc[order].to_numpy()
                         if kind != "arrow" else ids[order], name="user")
        results[name] = pd.DataFrame({"ndcg@10": v[order], "recall@10": v[order] ** 2},
                                     index=index)
    users = sorted(values["sys0"])
    matrix = {"ndcg@10": np.array([[values[f"sys{j}"][u] for j in range(m)]
                                   for u in users])}
    matrix["recall@10"] = matrix["ndcg@10"] ** 2
    return results, matrix


def _rows(report):
    """``(metric, system index, baseline index, row)`` of each row."""
    for row in report.table.itertuples(index=False):
        yield row.metric, int(row.system[3:]), int(row.baseline[3:]), row


# ------------------------------------------------------------------ t-test
@pytest.mark.parametrize("kind", ID_KINDS)
@pytest.mark.parametrize("seed", range(6))
def test_t_matches_ttest_rel(seed, kind):
    n, m = [(3, 2), (25, 3), (200, 4), (7, 5), (60, 2), (11, 3)][seed]
    results, matrix = _world(seed, n, m, kind)
    report = ml.compare(results, baseline="sys0" if seed % 2 else None, test="t",
                        correction=None, confidence=0.9)
    assert len(report.table) == 2 * (m - 1 if seed % 2 else m * (m - 1) // 2)
    for metric, s, b, row in _rows(report):
        x, y = matrix[metric][:, s], matrix[metric][:, b]
        if np.all(x - y == (x - y)[0]):
            continue  # constant differences: scipy gives nan, the report 0 or 1
        ref = stats.ttest_rel(x, y)
        ci = ref.confidence_interval(confidence_level=0.9)
        assert row.p_value == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-300)
        assert (row.diff_low, row.diff_high) == pytest.approx((ci.low, ci.high), rel=1e-10)
        mean_ci = stats.ttest_1samp(x, 0).confidence_interval(confidence_level=0.9)
        assert (row.mean_low, row.mean_high) == pytest.approx((mean_ci.low, mean_ci.high))
        d = x - y
        assert row.difference == pytest.approx(d.mean(), abs=1e-15)
        assert row.effect_dz == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-12)
        assert (row.wins, row.ties, row.losses) == (
            (d > 0).sum(), (d == 0).sum(), (d < 0).sum())
        assert row.n_users == n


# ------------------------------------------------------------------ Wilcoxon
@pytest.mark.parametrize("seed", range(8))
def test_wilcoxon_matches_scipy(seed):
    n, m = [(6, 2), (30, 3), (80, 2), (15, 4), (49, 2), (51, 3), (10, 2), (120, 3)][seed]
    results, matrix = _world(seed, n, m, ID_KINDS[seed % 4], digits=seed % 3 + 1)
    report = ml.compare(results, test="wilcoxon", correction=None)
    for metric, s, b, row in _rows(report):
        x, y = matrix[metric][:, s], matrix[metric][:, b]
        if np.all(x == y):
            assert row.p_value == 1.0
            continue
        assert row.p_value == pytest.approx(stats.wilcoxon(x, y).pvalue, rel=1e-12)


# ------------------------------------------------------------------ permutation
def _mean_diff(x, y, axis=-1):
    return np.mean(x - y, axis=axis)


def _exact_decimal_p(x, y):
    """Two-sided sign-flip p-value over every pattern, in exact decimal
    arithmetic (the values are decimals with a few digits: 0.3, 0.09)."""
    from fractions import Fraction
    d = [Fraction(str(round(float(u), 10))) - Fraction(str(round(float(v), 10)))
         for u, v in zip(x, y)]
    observed, n = sum(d), len(d)
    less = greater = 0
    for code in range(2 ** n):
        total = sum(-v if (code >> i) & 1 else v for i, v in enumerate(d))
        less += total <= observed
        greater += total >= observed
    return min(1.0, 2 * min(less, greater) / 2 ** n)


@pytest.mark.parametrize("seed", range(8))
def test_exact_permutation_matches_exact_arithmetic(seed):
    """Grid values (rounded to tenths) tie often; the reference counts ties in
    exact decimal arithmetic. scipy's permutation_test is not the reference
    here: its tie tolerance is relative to the observed mean, so when that
    mean is zero up to rounding it misses exact ties (0.9375 where the exact
    p-value is 1 on seed 4)."""
    n = 4 + seed  # 2**n <= 9999: every sign pattern enumerated
    results, matrix = _world(seed, n, 3, ID_KINDS[seed % 4])
    report = ml.compare(results, test="permutation", correction=None, random_state=seed)
    for metric, s, b, row in _rows(report):
        x, y = matrix[metric][:, s], matrix[metric][:, b]
        if np.all(x == y):
            continue
        assert row.p_value == pytest.approx(_exact_decimal_p(x, y), rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_exact_permutation_matches_scipy_without_ties(seed):
    n = 6 + seed
    results, matrix = _world(seed, n, 3, ID_KINDS[seed % 4], digits=None)
    report = ml.compare(results, test="permutation", correction=None, random_state=seed)
    for metric, s, b, row in _rows(report):
        x, y = matrix[metric][:, s], matrix[metric][:, b]
        ref = stats.permutation_test((x, y), _mean_diff, permutation_type="samples",
                                     n_resamples=np.inf, vectorized=True)
        assert row.p_value == pytest.approx(ref.pvalue, rel=1e-12)


def test_monte_carlo_permutation_matches_scipy():
    results, matrix = _world(3, 40, 2, "int", digits=None)
    report = ml.compare(results, test="permutation", correction=None,
                        n_resamples=40_000, random_state=1)
    for metric, s, b, row in _rows(report):
        x, y = matrix[metric][:, s], matrix[metric][:, b]
        ref = stats.permutation_test((x, y), _mean_diff, permutation_type="samples",
                                     n_resamples=40_000, vectorized=True, random_state=2)
        # two Monte Carlo estimates: 5 standard errors of their difference
        se = math.sqrt(2 * ref.pvalue * (1 - ref.pvalue) / 40_000) + 1e-4
        assert abs(row.p_value - ref.pvalue) < 5 * se


def test_permutation_is_reproducible_and_row_order_free():
    results, _ = _world(5, 30, 3, "str", digits=None)
    shuffled = {k: v.sample(frac=1, random_state=3) for k, v in results.items()}
    one = ml.compare(results, test="permutation", random_state=7).table
    two = ml.compare(shuffled, test="permutation", random_state=7).table
    pd.testing.assert_frame_equal(one, two)


# ------------------------------------------------------------------ bootstrap
@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_interval_matches_scipy(seed, method):
    results, matrix = _world(seed, 60, 2, ID_KINDS[seed], digits=None)
    report = ml.compare(results, test="bootstrap", bootstrap_method=method,
                        n_resamples=20_000, random_state=seed, correction=None)
    for metric, s, b, row in _rows(report):
        x, y = matrix[metric][:, s], matrix[metric][:, b]
        ref = stats.bootstrap((x, y), _mean_diff, paired=True, vectorized=True,
                              n_resamples=20_000, method=method, random_state=seed + 100)
        se = ref.standard_error
        # two Monte Carlo quantiles of the same distribution: within a tenth of its sd
        assert abs(row.diff_low - ref.confidence_interval.low) < 0.1 * se
        assert abs(row.diff_high - ref.confidence_interval.high) < 0.1 * se


def test_bootstrap_p_value_matches_a_plain_reimplementation():
    results, matrix = _world(8, 50, 2, "int", digits=None)
    report = ml.compare(results, test="bootstrap", n_resamples=40_000, random_state=0,
                        correction=None)
    rng = np.random.default_rng(123)
    for metric, s, b, row in _rows(report):
        d = matrix[metric][:, s] - matrix[metric][:, b]
        centred = d - d.mean()
        count = 0
        for _ in range(40):  # 40 x 1000 resamples, one loop per batch
            means = centred[rng.integers(0, d.size, (1000, d.size))].mean(axis=1)
            count += np.sum(np.abs(means) >= abs(d.mean()))
        ref = (count + 1) / 40_001
        se = math.sqrt(2 * ref * (1 - ref) / 40_000) + 1e-4
        assert abs(row.p_value - ref) < 5 * se


# ------------------------------------------------------------------ Tukey HSD
@pytest.mark.parametrize("seed", range(6))
def test_tukey_core_matches_scipy_tukey_hsd(seed):
    """With the one-way ANOVA's MSE, the p-values are scipy.stats.tukey_hsd's
    (and ranx's "tukey", which calls it: ranx 0.3.21,
    ranx/statistical_tests/tukey_hsd_test.py, tukey_hsd_test)."""
    rng = np.random.default_rng(seed)
    k, n = 2 + seed, 5 + 7 * seed
    groups = [np.round(rng.normal(rng.normal(0, 0.3), 1, n), 2) for _ in range(k)]
    means = np.array([g.mean() for g in groups])
    mse = sum(((g - g.mean()) ** 2).sum() for g in groups) / (k * n - k)
    pairs = list(itertools.combinations(range(k), 2))
    ours = tukey_p_values(means, mse, n, k * n - k, pairs)
    ref = stats.tukey_hsd(*groups).pvalue
    assert np.max(np.abs(ours - [ref[i, j] for i, j in pairs])) < 1e-12


@pytest.mark.parametrize("seed", range(5))
def test_tukey_hsd_matches_two_way_anova(seed):
    """The paired Tukey HSD: MSE of statsmodels' two-way ANOVA (system + user
    factors, no interaction), studentised range of scipy."""
    import statsmodels.formula.api as smf

    n, m = [(10, 3), (25, 4), (8, 2), (40, 5), (15, 3)][seed]
    results, matrix = _world(seed, n, m, ID_KINDS[seed % 4])
    report = ml.compare(results, test="tukey_hsd", correction=None)
    for metric in matrix:
        X = matrix[metric]
        long = pd.DataFrame({"y": X.ravel(), "user": np.repeat(np.arange(n), m).astype(str),
                             "system": np.tile(np.arange(m), n).astype(str)})
        fit = smf.ols("y ~ C(system) + C(user)", data=long).fit()
        assert fit.df_resid == (n - 1) * (m - 1)
        for met, s, b, row in _rows(report):
            if met != metric:
                continue
            q = abs(X[:, s].mean() - X[:, b].mean()) / math.sqrt(fit.mse_resid / n)
            ref = stats.studentized_range.sf(q, m, fit.df_resid)
            assert row.p_value == pytest.approx(ref, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_tukey_interval_core_matches_scipy_tukey_hsd(seed):
    """With the one-way ANOVA's MSE and degrees of freedom, the simultaneous
    intervals are scipy.stats.tukey_hsd(...).confidence_interval()'s."""
    from metrics_lib.comparison.paired_tests import tukey_intervals

    rng = np.random.default_rng(100 + seed)
    k, n = 2 + seed, 4 + 9 * seed
    groups = [np.round(rng.normal(rng.normal(0, 0.3), 1, n), 2) for _ in range(k)]
    means = np.array([g.mean() for g in groups])
    mse = sum(((g - g.mean()) ** 2).sum() for g in groups) / (k * n - k)
    pairs = list(itertools.permutations(range(k), 2))
    for confidence in (0.95, 0.9, 0.99):
        ours = np.array(tukey_intervals(means, mse, n, k * n - k, pairs, confidence))
        ref = stats.tukey_hsd(*groups).confidence_interval(confidence)
        assert np.max(np.abs(ours[:, 0] - [ref.low[i, j] for i, j in pairs])) < 1e-10
        assert np.max(np.abs(ours[:, 1] - [ref.high[i, j] for i, j in pairs])) < 1e-10


@pytest.mark.parametrize("test", ["tukey_hsd", "randomised_tukey_hsd"])
@pytest.mark.parametrize("seed", range(5))
def test_tukey_intervals_match_two_way_anova(seed, test):
    """The difference interval of the Tukey tests is the simultaneous HSD
    interval of the blocked design: statsmodels' OLS (system + user factors)
    for the MSE and its degrees of freedom, scipy's studentised range quantile."""
    import statsmodels.formula.api as smf

    n, m = [(10, 3), (25, 4), (8, 2), (40, 5), (15, 3)][seed]
    results, matrix = _world(seed, n, m, ID_KINDS[seed % 4])
    confidence = [0.95, 0.9, 0.99, 0.8, 0.95][seed]
    report = ml.compare(results, test=test, correction=None, confidence=confidence,
                        n_resamples=50, random_state=seed)
    for metric, s, b, row in _rows(report):
        X = matrix[metric]
        long = pd.DataFrame({"y": X.ravel(), "user": np.repeat(np.arange(n), m).astype(str),
                             "system": np.tile(np.arange(m), n).astype(str)})
        fit = smf.ols("y ~ C(system) + C(user)", data=long).fit()
        half = stats.studentized_range.ppf(confidence, m, fit.df_resid) \
            * math.sqrt(fit.mse_resid / n)
        diff = X[:, s].mean() - X[:, b].mean()
        assert row.diff_low == pytest.approx(diff - half, abs=1e-10)
        assert row.diff_high == pytest.approx(diff + half, abs=1e-10)
    assert "Tukey HSD simultaneous" in report.describe()


@pytest.mark.parametrize("seed", range(4))
def test_tukey_interval_of_two_systems_is_the_paired_t_interval(seed):
    """With two systems the studentised range of two means is sqrt(2) times a
    t variable: the HSD interval is scipy ttest_rel's confidence interval."""
    results, matrix = _world(seed, [5, 30, 12, 80][seed], 2, ID_KINDS[seed])
    report = ml.compare(results, test="tukey_hsd", confidence=0.9, correction=None)
    for metric, s, b, row in _rows(report):
        X = matrix[metric]
        ref = stats.ttest_rel(X[:, s], X[:, b]).confidence_interval(0.9)
        assert row.diff_low == pytest.approx(ref.low, abs=1e-10)
        assert row.diff_high == pytest.approx(ref.high, abs=1e-10)


def test_tukey_intervals_cover_every_pair_at_once():
    """Simulated blocked experiments: all six HSD intervals cover their true
    differences together in about 90 % of runs; per-pair t intervals do less."""
    rng = np.random.default_rng(2028)
    n, m, runs, shifts = 20, 4, 200, np.array([0.0, 0.1, 0.1, 0.3])
    users = pd.Index(np.arange(n), name="user")
    covered = {"tukey_hsd": 0, "t": 0}
    for _ in range(runs):
        X = rng.normal(0, 1, (n, 1)) + shifts + rng.normal(0, 0.5, (n, m))
        results = {f"sys{j}": pd.DataFrame({"v": X[:, j]}, index=users) for j in range(m)}
        for test in covered:
            t = ml.compare(results, test=test, correction=None, confidence=0.9).table
            truth = shifts[[int(s[3:]) for s in t["system"]]] \
                - shifts[[int(b[3:]) for b in t["baseline"]]]
            covered[test] += bool(np.all((t["diff_low"] <= truth) & (truth <= t["diff_high"])))
    se = math.sqrt(0.9 * 0.1 / runs)
    assert abs(covered["tukey_hsd"] / runs - 0.9) < 4 * se
    assert covered["t"] / runs < 0.9 - 4 * se


def _exact_randomised_tukey(X):
    """Every arrangement of every user's values among the systems: the exact
    p-value of the range statistic, written plainly."""
    n, m = X.shape
    perms = list(itertools.permutations(range(m)))
    ranges = []
    for choice in itertools.product(range(len(perms)), repeat=n):
        Y = np.array([X[u, list(perms[c])] for u, c in enumerate(choice)])
        means = Y.mean(axis=0)
        ranges.append(means.max() - means.min())
    ranges = np.array(ranges)
    p = {}
    for i, j in itertools.combinations(range(m), 2):
        observed = abs(X[:, i].mean() - X[:, j].mean())
        p[i, j] = p[j, i] = np.mean(ranges >= observed - 1e-12)
    return p


@pytest.mark.parametrize("seed", range(3))
def test_randomised_tukey_matches_exact_enumeration(seed):
    results, matrix = _world(seed, 5, 3, ID_KINDS[seed], digits=2)
    B = 60_000
    report = ml.compare(results, test="randomised_tukey_hsd", n_resamples=B,
                        random_state=seed, correction=None, metrics="ndcg@10")
    exact = _exact_randomised_tukey(matrix["ndcg@10"])
    for _, s, b, row in _rows(report):
        ref = exact[s, b]
        se = math.sqrt(ref * (1 - ref) / B) + 1 / B
        assert abs(row.p_value - ref) < 5 * se


# ------------------------------------------------------------------ corrections
@pytest.mark.parametrize("correction,sm", [("holm", "holm"), ("bh", "fdr_bh"),
                                           ("bonferroni", "bonferroni")])
def test_corrections_match_statsmodels(correction, sm):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(0)
    worst = 0.0
    for case in range(80):
        size = int(rng.integers(1, 60))
        p = rng.beta(0.3, 1, size)
        if case % 3 == 0:
            p = np.round(p, 2)  # ties and exact zeros
        ours = ml.correct_p_values(p, correction)
        worst = max(worst, np.max(np.abs(ours - multipletests(p, method=sm)[1])))
    assert worst <= 1e-12


@pytest.mark.parametrize("correction,sm", [("holm", "holm"), ("bh", "fdr_bh"),
                                           ("bonferroni", "bonferroni")])
def test_report_corrects_across_the_whole_family(correction, sm):
    from statsmodels.stats.multitest import multipletests

    results, _ = _world(11, 40, 4, "int")
    table = ml.compare(results, test="t", correction=correction).table
    assert len(table) == 12  # 6 pairs x 2 metrics
    ref = multipletests(table["p_value"], method=sm)[1]
    assert np.max(np.abs(table["p_corrected"] - ref)) <= 1e-12
    expected = np.where(ref < 0.05, np.where(table["difference"] > 0, "better", "worse"),
                        "no evidence")
    assert table["verdict"].tolist() == expected.tolist()


# ------------------------------------------------------------------ ranx
RANX_PYTHON = Path("/tmp/ranx-venv/bin/python")


def _ranx_fisher(cases, n_permutations=100_000):
    """ranx's p-values of ``cases`` ([(x, y), ...]), one thread (with more, the
    same seed gives other p-values)."""
    code = ("import json, sys, numpy as np\n"
            "from ranx.statistical_tests import fisher_randomization_test as f\n"
            "cases = json.load(sys.stdin)\n"
            f"print(json.dumps([f(np.array(y), np.array(x), {n_permutations}, 0.05, 1)[0] "
            "for x, y in cases]))\n")
    out = subprocess.run([str(RANX_PYTHON), "-c", code], input=json.dumps(cases),
                         capture_output=True, text=True, check=True, timeout=600,
                         env={"NUMBA_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"})
    return json.loads(out.stdout)


def _exact_sign_flip(x, y, *, tolerance, sequential):
    """Exact two-sided sign-flip p-value, |mean difference| >= observed,
    means summed sequentially (as numba does) or by numpy (pairwise)."""
    def mean(v):
        if not sequential:
            return v.mean()
        total = 0.0
        for value in v:
            total += value
        return total / v.size
    X = np.column_stack((x, y))
    observed = abs(mean(X[:, 0]) - mean(X[:, 1]))
    count = 0
    for flips in itertools.product([False, True], repeat=len(x)):
        P = X.copy()
        P[list(flips)] = P[list(flips)][:, ::-1]
        count += abs(mean(P[:, 0]) - mean(P[:, 1])) >= observed - tolerance
    return count / 2 ** len(x)


def _ranx_cases(digits):
    cases, ours = [], []
    for seed in range(4):
        results, matrix = _world(seed, 12, 2, "int", digits=digits)
        cases.append((matrix["ndcg@10"][:, 1].tolist(), matrix["ndcg@10"][:, 0].tolist()))
        ours.append(ml.compare(results, test="permutation", correction=None,
                               metrics="ndcg@10").table["p_value"].iloc[0])
    return cases, ours


@pytest.mark.skipif(not RANX_PYTHON.exists(), reason="ranx not installed in /tmp/ranx-venv")
def test_permutation_matches_ranx_fisher_randomisation():
    """ranx 0.3.21's Fisher randomisation test (ranx/statistical_tests/
    fisher_randomization_test.py, fisher_randomization_test) swaps each user's
    pair at random and counts |mean difference| >= the observed one: the
    sign-flip test. On values without ties its Monte Carlo p-value agrees with
    the exact one of compare(test="permutation")."""
    cases, ours = _ranx_cases(digits=None)
    for mine, theirs in zip(ours, _ranx_fisher(cases)):
        se = math.sqrt(mine * (1 - mine) / 100_000) + 1e-5
        assert abs(mine - theirs) < 5 * se


@pytest.mark.skipif(not RANX_PYTHON.exists(), reason="ranx not installed in /tmp/ranx-venv")
def test_ranx_fisher_misses_floating_point_ties():
    """With metric values on a grid (ties), ranx counts ``permuted_diff >=
    control_treatment_diff`` with no tolerance, so sign patterns whose |mean
    difference| equals the observed one but is summed to a rounding error
    below it are not counted: its p-value is the exact one of a strict
    comparison of sequential sums, below the exact p-value (scipy's
    permutation_test, with a tolerance, agrees with compare)."""
    cases, ours = _ranx_cases(digits=2)
    theirs = _ranx_fisher(cases)
    x, y = (np.array(v) for v in cases[2])
    strict = _exact_sign_flip(x, y, tolerance=0.0, sequential=True)
    assert ours[2] == pytest.approx(_exact_sign_flip(x, y, tolerance=1e-12,
                                                     sequential=False))
    se = math.sqrt(strict * (1 - strict) / 100_000)
    assert abs(theirs[2] - strict) < 5 * se
    assert ours[2] - theirs[2] > 5 * se  # 0.8066 exact, ranx about 0.796


# ------------------------------------------------------------------ input forms
def _evaluations(seed=0, n_users=40, tied=("B",)):
    """Recommendations of three systems (``tied`` ones score every item 1),
    a truth table, and users 38, 39 judged but never recommended to."""
    rng = np.random.default_rng(seed)
    users = np.arange(n_users)
    truth = pd.DataFrame({"user": np.repeat(users, 3),
                          "item": rng.integers(0, 20, 3 * n_users), "relevance": 1}
                         ).drop_duplicates(["user", "item"], ignore_index=True)
    recs = {}
    for name in "ABC":
        rows = []
        for u in users[:-2]:
            items = rng.choice(20, 10, replace=False)
            scores = np.ones(10) if name in tied else rng.random(10)
            rows += list(zip([u] * 10, items, scores))
        recs[name] = pd.DataFrame(rows, columns=["user", "item", "score"])
    return recs, truth


def test_polars_arrow_and_pandas_results_give_one_table():
    import polars as pl
    import pyarrow as pa

    recs, truth = _evaluations()
    evaluated = {k: ml.evaluate(v, truth, ["ndcg@5", "hit@5"], missing="zero")
                 for k, v in recs.items()}
    ref = ml.compare(evaluated, test="t").table
    keyed = {k: v.reset_index() for k, v in evaluated.items()}  # users as a column
    forms = [keyed, {k: pl.from_pandas(v) for k, v in keyed.items()},
             {k: pl.from_pandas(v).lazy() for k, v in keyed.items()},
             {k: pa.Table.from_pandas(v) for k, v in keyed.items()},
             {k: ml.evaluate(pl.from_pandas(v), pl.from_pandas(truth), ["ndcg@5", "hit@5"],
                             missing="zero") for k, v in recs.items()}]
    for results in forms:
        pd.testing.assert_frame_equal(ml.compare(results, test="t").table, ref)
    direct = ml.compare(recs, truth=truth, metrics=["ndcg@5", "hit@5"], missing="zero")
    pd.testing.assert_frame_equal(direct.table, ref)


def test_user_ids_of_64_bits_pair_exactly():
    users = pd.Index(np.array([2 ** 63, 2 ** 63 + 1, 2 ** 64 - 1], dtype=np.uint64),
                     name="user")
    a = pd.DataFrame({"m": [0.1, 0.2, 0.3]}, index=users)
    # as float64 these ids collapse to two values: pairing must not go through floats
    b = pd.DataFrame({"m": [0.3, 0.1, 0.2]}, index=users[[2, 0, 1]])
    row = ml.compare({"a": a, "b": b}, correction=None).table.iloc[0]
    assert (row.wins, row.ties, row.losses) == (0, 3, 0)


def test_missing_users_policies():
    users = pd.Index([1, 2, 3, 4, 5], name="user")
    a = pd.DataFrame({"m": [0.1, 0.5, 0.2, 0.4, 0.3]}, index=users)
    b = pd.DataFrame({"m": [0.2, 0.4, 0.1, 0.5]}, index=users[:4])
    with pytest.warns(ml.MissingUsersWarning, match=r"a: 1.*4 users are paired"):
        warned = ml.compare({"a": a, "b": b}).table
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        skipped = ml.compare({"a": a, "b": b}, missing="skip").table
    pd.testing.assert_frame_equal(warned, skipped)
    assert skipped.loc[0, "n_users"] == 4
    ref = stats.ttest_rel([0.2, 0.4, 0.1, 0.5], [0.1, 0.5, 0.2, 0.4])
    assert skipped.loc[0, "p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
    with pytest.raises(ValueError, match="missing='raise'"):
        ml.compare({"a": a, "b": b}, missing="raise")
    with pytest.raises(ValueError, match="needs truth="):
        ml.compare({"a": a, "b": b}, missing="zero")


def test_inputs_are_not_mutated():
    results, _ = _world(2, 20, 3, "str")
    before = {k: v.copy(deep=True) for k, v in results.items()}
    ml.compare(results, test="bootstrap", random_state=0, n_resamples=99)
    for name in results:
        pd.testing.assert_frame_equal(results[name], before[name])


@pytest.mark.parametrize("call,error,words", [
    (lambda r: ml.compare([1, 2]), TypeError, "results must be a mapping"),
    (lambda r: ml.compare({"a": r["sys0"]}), ValueError, "at least two systems"),
    (lambda r: ml.compare(r, test="z"), ValueError, "test must be one of"),
    (lambda r: ml.compare(r, correction="fdr"), ValueError, "correction must be one of"),
    (lambda r: ml.compare(r, baseline="nope"), ValueError, "baseline must be one of"),
    (lambda r: ml.compare(r, alpha=5), ValueError, "alpha"),
    (lambda r: ml.compare(r, n_resamples=0), ValueError, "n_resamples"),
    (lambda r: ml.compare(r, n_resamples=1.5), TypeError, "n_resamples"),
    (lambda r: ml.compare(r, metrics="map"), ValueError, "map"),
    (lambda r: ml.compare(r, missing="drop"), ValueError, "missing must be one of"),
    (lambda r: ml.compare(r, random_state="x"), TypeError, "random_state"),
    (lambda r: ml.compare(r, tie_orders=True), ValueError, "tie_orders=True needs"),
    (lambda r: ml.compare(r, tie_orders="yes"), TypeError, "tie_orders"),
    (lambda r: ml.compare({"a": r["sys0"], "b": [1, 2]}), TypeError, "results\\['b'\\]"),
    (lambda r: ml.compare({**r, "sys1": r["sys1"].reset_index(drop=True)}), ValueError,
     "user_col"),
    (lambda r: ml.compare(r, metrics=["ndcg@10"], truth=None, evaluate_options=[1]),
     TypeError, "evaluate_options"),
])
def test_bad_input_is_named(call, error, words):
    results, _ = _world(0, 10, 2, "int")
    with pytest.raises(error, match=words):
        call(results)


def test_nan_and_mixed_id_kinds_are_refused():
    users = pd.Index([1, 2, 3], name="user")
    a = pd.DataFrame({"m": [0.1, np.nan, 0.3]}, index=users)
    b = pd.DataFrame({"m": [0.2, 0.1, 0.2]}, index=users)
    with pytest.raises(ValueError, match=r"results\['a'\].*non-finite.*user 2"):
        ml.compare({"a": a, "b": b})
    c = pd.DataFrame({"m": [0.2, 0.1, 0.2]}, index=pd.Index(["1", "2", "3"], name="user"))
    with pytest.raises(TypeError, match="different kinds"):
        ml.compare({"b": b, "c": c})
    named = b.assign(label=["x", "y", "z"])  # a text column is fine when not compared
    assert ml.compare({"a": named, "b": b.assign(label="w")}, metrics="m").table.shape[0] == 1
    with pytest.raises(TypeError, match=r"results\['a'\] column 'label' is not numeric"):
        ml.compare({"a": named, "b": b.assign(label="w")})
    nullable = b.astype({"m": "Float64"})
    nullable.loc[3, "m"] = pd.NA
    with pytest.raises(ValueError, match=r"results\['n'\].*non-finite.*user 3"):
        ml.compare({"n": nullable, "b": b})


# ------------------------------------------------------------------ tie orders
def test_tie_orders_flag_a_verdict_that_flips():
    recs, truth = _evaluations(seed=1)
    report = ml.compare(recs, truth=truth, metrics=["ndcg@5"], baseline="A",
                        tie_orders=True, missing="zero", correction=None)
    table = report.table.set_index("system")
    for order in ("best", "worst"):
        per_order = {k: ml.evaluate(v, truth, ["ndcg@5"], missing="zero", ties=order)
                     for k, v in recs.items()}
        ref = ml.compare(per_order, baseline="A", correction=None).table.set_index("system")
        assert table[f"verdict_{order}"].tolist() == ref["verdict"].tolist()
    # B scores every item 1: its best order ranks the relevant items first
    assert table.loc["B", "verdict_best"] == "better"
    assert table.loc["B", "verdict_worst"] == "worse"
    assert table.loc["B", "tie_flip"]
    # C has no tied scores (nor has A): its verdict is the same under every order
    assert not table.loc["C", "tie_flip"]
    assert "FLIPS" in repr(report) and "FLIPS" in report.to_markdown()


# ------------------------------------------------------------------ rendering
def test_markdown_latex_and_html_show_every_row():
    results, _ = _world(4, 30, 3, "int")
    report = ml.compare(results, baseline="sys0", test="wilcoxon", correction="bh")
    md = report.to_markdown().splitlines()
    assert len([line for line in md if line.startswith("| ")]) == 1 + len(report.table)
    assert "Benjamini-Hochberg across the family of 4 comparisons" in report.to_markdown()
    latex = report.to_latex(caption="A & B", label="tab:cmp")
    assert latex.count("\\\\\n") == 1 + len(report.table) and "A \\& B" in latex
    marks = latex.count("$^{\\dagger}$") + latex.count("$^{\\ddagger}$")
    assert marks == (report.table["verdict"] != "no evidence").sum() + 2  # + the note
    assert report._repr_html_().count("<tr") == 1 + len(report.table)
    assert "d_z" in repr(report) and "Wilcoxon" in repr(report)


# ------------------------------------------------------------------ planning
@pytest.mark.parametrize("delta,variance,alpha,power", [
    (0.05, 0.01, 0.05, 0.8), (0.1, 0.05, 0.05, 0.8), (0.02, 0.03, 0.01, 0.9),
    (0.1, 0.1, 0.05, 0.5), (0.3, 0.02, 0.05, 0.8), (0.01, 0.004, 0.1, 0.95)])
def test_paired_and_two_sample_plans_match_statsmodels(delta, variance, alpha, power):
    from statsmodels.stats.power import TTestIndPower, TTestPower

    effect = delta / math.sqrt(variance)
    n = ml.users_needed(delta, variance=variance, alpha=alpha, power=power)
    assert n == max(2, math.ceil(TTestPower().solve_power(effect_size=effect, alpha=alpha,
                                                          power=power)))
    for size in (n - 1, n, n + 7):
        ours = ml.power_of(size, delta, variance=variance, alpha=alpha)
        ref = TTestPower().power(effect_size=effect, nobs=size, alpha=alpha)
        assert ours == pytest.approx(ref, rel=1e-9)
    m = ml.users_needed(delta, design="two_sample", variance=variance, alpha=alpha,
                        power=power)
    ref = TTestIndPower().solve_power(effect_size=effect / math.sqrt(1), alpha=alpha,
                                      power=power)
    assert m == math.ceil(ref)
    d = ml.detectable_difference(n, variance=variance, alpha=alpha, power=power)
    assert d <= delta and TTestPower().power(effect_size=d / math.sqrt(variance), nobs=n,
                                             alpha=alpha) == pytest.approx(power, abs=1e-9)


def _sakai_excel_n(alpha, beta, min_delta):
    """Sakai's samplesizeTTEST2 as ported by jerome-white/sakai-book
    (chapters/06/samplesizeTTEST2.py, class Sample): start from
    ((z_{a/2} - z_b) / Delta)^2 + z_{a/2}^2 / 2 and take the first n whose
    approximate power exceeds 1 - beta, written independently here."""
    z_a, z_b = stats.norm.ppf(1 - alpha / 2), stats.norm.ppf(beta)
    n = max(2, math.ceil(((z_a - z_b) / min_delta) ** 2 + z_a ** 2 / 2) - 5)
    while True:
        phi, lam = n - 1, math.sqrt(n) * min_delta
        w = stats.t.ppf(1 - alpha / 2, phi)
        norm_ = math.sqrt(1 + w ** 2 / (2 * phi))
        f = lambda x: (x * (1 - 1 / (4 * phi)) - lam) / norm_  # noqa: E731
        if stats.norm.cdf(f(-w)) + 1 - stats.norm.cdf(f(w)) > 1 - beta:
            return n
        n += 1


@pytest.mark.parametrize("alpha,beta,delta", [(0.05, 0.2, 0.1), (0.01, 0.2, 0.2),
                                              (0.05, 0.1, 0.5), (0.05, 0.2, 1.0)])
def test_sakai_method_is_his_excel_tool(alpha, beta, delta):
    n = ml.users_needed(delta, variance=1.0, alpha=alpha, power=1 - beta, method="sakai")
    assert n == _sakai_excel_n(alpha, beta, delta)
    exact = ml.users_needed(delta, variance=1.0, alpha=alpha, power=1 - beta)
    assert abs(n - exact) <= 1  # Nagata's approximation is that close here


def test_paired_power_by_simulation():
    """Simulated paired experiments at the planned size reject as often as planned."""
    rng = np.random.default_rng(0)
    delta, sd = 0.04, 0.15
    n = ml.users_needed(delta, variance=sd ** 2)
    planned = ml.power_of(n, delta, variance=sd ** 2)
    runs = 4000
    d = rng.normal(delta, sd, (runs, n))
    rejected = np.mean(stats.ttest_1samp(d, 0, axis=1).pvalue < 0.05)
    assert abs(rejected - planned) < 4 * math.sqrt(planned * (1 - planned) / runs)
    assert ml.power_of(n - 1, delta, variance=sd ** 2) < 0.8 <= planned


@pytest.mark.parametrize("difference", [0.05, 0.1, -0.08, 0.2])
def test_interleaving_plan_matches_scipy_binomtest(difference):
    """The power of the exact binomial test counted with scipy.stats.binomtest
    itself, outcome by outcome, and checked by simulation."""
    n = ml.users_needed(difference, design="interleaving")
    share = 0.5 + difference

    def power(size):
        k = np.arange(size + 1)
        reject = np.array([stats.binomtest(int(j), size, 0.5).pvalue <= 0.05 for j in k])
        return stats.binom.pmf(k[reject], size, share).sum()

    assert ml.power_of(n, difference, design="interleaving") == pytest.approx(power(n),
                                                                             rel=1e-9)
    assert power(n) >= 0.8
    # the first size reaching 0.8: none of the 10 sizes below does
    assert all(power(size) < 0.8 for size in range(max(1, n - 10), n))
    rng = np.random.default_rng(1)
    wins = rng.binomial(n, share, 3000)
    rate = np.mean([stats.binomtest(int(w), n, 0.5).pvalue <= 0.05 for w in wins])
    assert abs(rate - power(n)) < 4 * math.sqrt(0.2 * 0.8 / 3000)


def test_proportions_reuse_the_ab_test_planning():
    assert ml.users_needed(0.005, design="proportions", baseline_rate=0.05) == \
        ml.sample_size_per_group(0.05, 0.005)
    d = ml.detectable_difference(31234, design="proportions", baseline_rate=0.05)
    assert ml.power_two_proportions(0.05, d, 31234) == pytest.approx(0.8, abs=1e-9)


@pytest.mark.parametrize("call,error,words", [
    (lambda: ml.users_needed(0.1), ValueError, "needs variance="),
    (lambda: ml.users_needed(0, variance=1), ValueError, "difference must be non-zero"),
    (lambda: ml.users_needed(0.1, variance=-1), ValueError, "variance"),
    (lambda: ml.users_needed(0.1, design="ab"), ValueError, "design must be one of"),
    (lambda: ml.users_needed(0.6, design="interleaving"), ValueError, "< 0.5"),
    (lambda: ml.users_needed(0.1, design="interleaving", variance=1), ValueError,
     "variance= is not used"),
    (lambda: ml.users_needed(0.01, design="proportions"), ValueError, "baseline_rate"),
    (lambda: ml.users_needed(0.1, variance=1, power=80), ValueError, "power"),
    (lambda: ml.users_needed(0.1, variance=1, method="sakai", design="two_sample"),
     ValueError, "method='sakai'"),
    (lambda: ml.detectable_difference(2.5, variance=1), TypeError, "n must be"),
    (lambda: ml.detectable_difference(3, design="interleaving"), ValueError, "too small"),
    (lambda: ml.users_needed("0.1", variance=1), TypeError, "difference"),
])
def test_planning_bad_input(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_readme_block_runs():
    """The README's comparison example, on the tables its examples take."""
    import re

    from test_wheel_install import PRELUDE

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"^```python\n(.*?)^```", readme, re.S | re.M)
                 if "ml.compare(" in b)
    namespace = {"ml": ml}
    exec(PRELUDE + block, namespace)
    assert len(namespace["report"].table) == 2 and namespace["n"] > 2


# ------------------------------------------------------------------ one report
def test_online_report_puts_offline_interleaving_and_ab_side_by_side():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(3)
    results, _ = _world(1, 40, 2, "int")
    offline = ml.compare(results, baseline="sys0")
    ab = ml.two_proportion_test(480, 10_000, 545, 10_000)
    pre_c, pre_t = rng.normal(5, 1, 500), rng.normal(5, 1, 500)
    cuped = ml.cuped_test(pre_c + rng.normal(0, .5, 500), pre_c,
                          pre_t + 0.1 + rng.normal(0, .5, 500), pre_t)
    clicks_c, clicks_t = rng.poisson(2, 300), rng.poisson(2.2, 300)
    ratio = ml.ratio_metric_test(clicks_c, clicks_c + 10, clicks_t, clicks_t + 10)
    il = ml.interleaving_test(rng.poisson(1.1, 400), rng.poisson(1.0, 400))
    report = ml.online_report({"CTR": ab, "dwell": cuped, "clicks/view": ratio,
                               "interleaved clicks": il},
                              system="sys1", baseline="sys0", offline=offline,
                              correction="bh")
    t = report.table
    assert t["design"].tolist() == ["offline", "offline", "A/B (proportions)",
                                    "A/B (CUPED)", "A/B (ratio metric)", "interleaving"]
    for k, result, diff in [(2, ab, ab.absolute_lift), (3, cuped, cuped.difference),
                            (4, ratio, ratio.absolute_lift)]:
        assert (t.loc[k, "difference"], t.loc[k, "diff_low"], t.loc[k, "diff_high"],
                t.loc[k, "p_value"]) == (diff, result.ci_low, result.ci_high,
                                         result.p_value)
    decided = il.wins_a + il.wins_b
    ci = stats.binomtest(il.wins_a, decided).proportion_ci(0.95, method="exact")
    assert t.loc[5, "difference"] == pytest.approx(il.wins_a / decided - 0.5, abs=1e-15)
    assert (t.loc[5, "diff_low"], t.loc[5, "diff_high"]) == pytest.approx(
        (ci.low - 0.5, ci.high - 0.5), abs=1e-15)
    assert t.loc[:1, "p_value"].tolist() == offline.table["p_value"].tolist()
    ref = multipletests(t["p_value"], method="fdr_bh")[1]
    assert np.max(np.abs(t["p_corrected"] - ref)) <= 1e-12
    for text in (repr(report), report.to_markdown(), report.to_latex()):
        assert "interleaving" in text and "CUPED" in text and "Benjamini" in text


def test_online_report_bad_input():
    ab = ml.two_proportion_test(480, 10_000, 545, 10_000)
    one_sided = ml.two_proportion_test(480, 10_000, 545, 10_000, alternative="greater")
    with pytest.raises(ValueError, match="one-sided"):
        ml.online_report({"CTR": one_sided}, system="B", baseline="A")
    with pytest.raises(TypeError, match=r"online\['x'\] must be the result"):
        ml.online_report({"x": 0.5}, system="B", baseline="A")
    with pytest.raises(TypeError, match="offline must be a ComparisonReport"):
        ml.online_report({"CTR": ab}, system="B", baseline="A", offline=pd.DataFrame())
    with pytest.raises(ValueError, match="correction"):
        ml.online_report({"CTR": ab}, system="B", baseline="A", correction="fdr")
