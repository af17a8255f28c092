"""Cross-check metrics_lib's off-policy estimators against Open Bandit Pipeline.

One seeded synthetic log is evaluated by both libraries: a contextual bandit
(IPS, self-normalised IPS, doubly robust) and a slate log (item-position IPS,
obp's ``SlateIndependentIPS``). The point estimates must agree to 1e-10
(relative); the script exits with status 1 otherwise. It also prints the
normal-approximation interval of metrics_lib next to obp's bootstrap interval
(obp has no normal interval), which should be close for a log this size, and
the true value of the target policy, known here by construction.

Run it in the virtualenv described in requirements.txt beside this file:

    PYTHONPATH=. .venv-ope/bin/python benchmarks/ope/compare_obp.py

Sources (obp 0.5.7): obp/ope/estimators.py, InverseProbabilityWeighting,
SelfNormalizedInverseProbabilityWeighting and DoublyRobust (``lambda_=inf``:
no weight clipping, the default); obp/ope/estimators_slate.py,
SlateIndependentIPS.estimate_policy_value (sum of reward * weight over all
positions divided by the number of slates).
"""

from __future__ import annotations

import itertools
import sys

import numpy as np
from obp.ope import (
    DoublyRobust,
    InverseProbabilityWeighting,
    SelfNormalizedInverseProbabilityWeighting,
    SlateIndependentIPS,
)

import metrics_lib as ml

RTOL = 1e-10


def softmax(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def bandit_log(seed=2024, n=20_000, n_contexts=20, n_actions=6):
    rng = np.random.default_rng(seed)
    q = rng.uniform(0.02, 0.3, (n_contexts, n_actions))
    logger = softmax(rng.normal(0, 0.7, (n_contexts, n_actions)))
    target = softmax(8.0 * q + rng.normal(0, 0.3, (n_contexts, n_actions)))
    model = q + rng.normal(0, 0.03, q.shape)
    x = rng.integers(0, n_contexts, n)
    a = (rng.random(n)[:, None] > logger[x].cumsum(axis=1)).sum(axis=1)
    r = (rng.random(n) < q[x, a]).astype(float)
    true_value = float(np.mean((target * q).sum(axis=1)))
    return x, a, r, logger, target, model, true_value


def slate_log(seed=7, n=20_000, n_items=5, length=3):
    rng = np.random.default_rng(seed)

    def plackett_luce(weights):
        slates = list(itertools.permutations(range(n_items), length))
        probs = []
        for s in slates:
            remaining, p = weights.sum(), 1.0
            for item in s:
                p *= weights[item] / remaining
                remaining -= weights[item]
            probs.append(p)
        return np.array(slates), np.array(probs)

    slates, p_log = plackett_luce(np.array([1.0, 1.5, 2.0, 2.5, 3.0]))
    _, p_target = plackett_luce(np.array([5.0, 3.0, 1.5, 1.0, 0.5]))

    def marginals(probs):
        m = np.zeros((n_items, length))
        for s, p in zip(slates, probs):
            m[s, np.arange(length)] += p
        return m

    m_log, m_target = marginals(p_log), marginals(p_target)
    click_prob = np.array([0.6, 0.45, 0.3, 0.2, 0.1])[slates] * np.array([1.0, 0.6, 0.35])
    drawn = rng.choice(len(slates), size=n, p=p_log)
    clicks = (rng.random((n, length)) < click_prob[drawn]).astype(int)
    true_value = float(p_target @ click_prob.sum(axis=1))
    return slates[drawn], clicks, m_log, m_target, true_value


def random_logs(n_logs=300, seed=23):
    """Clipped IPS and DR (obp's ``lambda_``) and SNIPS on random logs.

    Sizes from 2 to 3,000 records and 2 to 8 actions; Dirichlet policies,
    a third of the targets deterministic; rewards 0/1, real or negative;
    the cap drawn between the 10th and the 100th percentile of the weights
    (or none). Returns (comparisons, failures, largest relative difference).
    """
    rng = np.random.default_rng(seed)
    count = failures = 0
    largest = 0.0
    for i in range(n_logs):
        n, k = int(rng.integers(2, 3001)), int(rng.integers(2, 9))
        logger = rng.dirichlet(np.full(k, 0.5), n)
        logger = np.maximum(logger, 1e-3)
        logger /= logger.sum(axis=1, keepdims=True)
        if i % 3 == 0:
            target = np.eye(k)[rng.integers(0, k, n)]
        else:
            target = rng.dirichlet(np.full(k, 0.3), n)
        a = (rng.random(n)[:, None] > logger.cumsum(axis=1)).sum(axis=1)
        a = np.minimum(a, k - 1)  # a cumulative sum may end just below 1
        kind = i % 3
        r = (rng.random(n) < 0.3).astype(float) if kind == 0 else rng.normal(kind - 1, 1, n)
        model = rng.normal(0.2, 0.3, (n, k))
        w = target[np.arange(n), a] / logger[np.arange(n), a]
        clip = None if i % 4 == 0 else float(np.quantile(w, rng.uniform(0.1, 1.0)))
        if clip is not None and clip <= 0:
            clip = None
        lam = np.inf if clip is None else clip
        kwargs = dict(reward=r, action=a, pscore=logger[np.arange(n), a],
                      action_dist=target[:, :, None])
        pairs = [(ml.ips_estimate(r, a, logger, target, clip=clip).value,
                  InverseProbabilityWeighting(lambda_=lam).estimate_policy_value(**kwargs)),
                 (ml.doubly_robust_estimate(r, a, logger, target, model, clip=clip).value,
                  DoublyRobust(lambda_=lam).estimate_policy_value(
                      **kwargs, estimated_rewards_by_reg_model=model[:, :, None]))]
        if w.sum() > 0:
            pairs.append((ml.snips_estimate(r, a, logger, target).value,
                          SelfNormalizedInverseProbabilityWeighting()
                          .estimate_policy_value(**kwargs)))
        for ours, theirs in pairs:
            diff = abs(ours - float(theirs)) / max(1.0, abs(float(theirs)))
            largest = max(largest, diff)
            count += 1
            failures += diff > 1e-12
    return count, failures, largest


def main() -> int:
    failures = 0
    count, wrong, largest = random_logs()
    failures += wrong
    print(f"random logs: {count} values (clipped IPS, clipped DR, SNIPS) against obp, "
          f"{wrong} differ by more than 1e-12; largest difference {largest:.1e}\n")
    x, a, r, logger, target, model, truth = bandit_log()
    n = r.size
    pscore = logger[x, a]
    action_dist = target[x][:, :, None]
    ours = {
        "IPS": ml.ips_estimate(r, a, logger[x], target[x]),
        "SNIPS": ml.snips_estimate(r, a, logger[x], target[x]),
        "DR": ml.doubly_robust_estimate(r, a, logger[x], target[x], model[x]),
    }
    theirs = {
        "IPS": InverseProbabilityWeighting(),
        "SNIPS": SelfNormalizedInverseProbabilityWeighting(),
        "DR": DoublyRobust(),
    }
    print(f"contextual bandit: n = {n}, true value of the target = {truth:.6f}")
    print(f"{'estimator':10} {'metrics_lib':>12} {'obp':>12} {'rel. diff':>10} "
          f"{'normal 95% CI':>21} {'obp bootstrap 95% CI':>22}")
    for name, estimator in theirs.items():
        kwargs = dict(reward=r, action=a, pscore=pscore, action_dist=action_dist)
        if name == "DR":
            kwargs["estimated_rewards_by_reg_model"] = model[x][:, :, None]
        value = float(estimator.estimate_policy_value(**kwargs))
        interval = estimator.estimate_interval(**kwargs, alpha=0.05,
                                               n_bootstrap_samples=2000, random_state=0)
        low, high = interval["95.0% CI (lower)"], interval["95.0% CI (upper)"]
        est = ours[name]
        diff = abs(est.value - value) / abs(value)
        failures += diff > RTOL
        print(f"{name:10} {est.value:12.6f} {value:12.6f} {diff:10.1e} "
              f"[{est.ci_low:.5f}, {est.ci_high:.5f}] [{low:.5f}, {high:.5f}]")

    shown, clicks, m_log, m_target, truth = slate_log()
    n, length = clicks.shape
    positions = np.arange(length)
    ours_slate = ml.slate_ips_estimate(clicks, shown, np.broadcast_to(m_log, (n, *m_log.shape)),
                                       np.broadcast_to(m_target, (n, *m_target.shape)))
    value = float(SlateIndependentIPS(len_list=length).estimate_policy_value(
        slate_id=np.repeat(np.arange(n), length),
        reward=clicks.ravel(),
        position=np.tile(positions, n),
        pscore_item_position=m_log[shown, positions].ravel(),
        evaluation_policy_pscore_item_position=m_target[shown, positions].ravel(),
    ))
    diff = abs(ours_slate.value - value) / abs(value)
    failures += diff > RTOL
    print(f"\nslates: n = {n} lists of {length}, true clicks per list of the target = "
          f"{truth:.6f}")
    print(f"{'item-position IPS':18} metrics_lib {ours_slate.value:.6f}  obp IIPS {value:.6f}  "
          f"rel. diff {diff:.1e}  normal 95% CI [{ours_slate.ci_low:.5f}, "
          f"{ours_slate.ci_high:.5f}]")
    print("\nall point estimates agree" if not failures else f"\n{failures} DISAGREEMENT(S)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
