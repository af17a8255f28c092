"""Cross-check: the torchmetrics preset against torchmetrics itself on logits.

    PYTHONPATH=. .venv/bin/python benchmarks/peers/check_score_threshold.py \
        [--python /tmp/peer-venvs/peers-torchmetrics/bin/python] [--users 300]

The golden corpus has positive scores except for the appended judged items;
this script draws lists of logits (negative, zero, positive and tiny values
that are 0 in float32), untied, and compares every user's value of
``evaluate(..., convention="torchmetrics")`` and of the per-list functions
(``scores=`` as float32, ``convention="torchmetrics"``) with torchmetrics'
module classes, run in the torchmetrics venv (one call per user, as
``torchmetrics_peer.py`` does). torchmetrics 1.9.0 filters
``torch.where(preds > 0, target, 0)`` in AP, precision, recall and RR
(``functional/retrieval/*.py``): the preset's ``score_threshold=0``. Prints the
number of (metric, user) values compared and the largest difference; exits 1
on a difference above 1e-6.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

import numpy as np
import pandas as pd

PEER = r"""
import json, sys, warnings
import torch
from torchmetrics import retrieval as R
torch.use_deterministic_algorithms(True)
data = json.load(sys.stdin)
out = {}
for name, cls, graded, k in data["specs"]:
    kw = {} if k is None else {"top_k": k}
    m = getattr(R, cls)(empty_target_action="neg", **kw)
    values = {}
    for user, (scores, grades) in data["users"].items():
        m.reset()
        target = torch.tensor(grades)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = m(torch.tensor(scores), target if graded else target > 0,
                  indexes=torch.zeros(len(scores), dtype=torch.long))
        values[user] = float(v)
    out[name] = values
import torchmetrics
json.dump({"version": torchmetrics.__version__, "values": out}, sys.stdout)
"""

SPECS = [(f"{cls}@{k}" if k else cls, cls, cls == "RetrievalNormalizedDCG", k)
         for cls in ("RetrievalPrecision", "RetrievalRecall", "RetrievalMRR",
                     "RetrievalMAP", "RetrievalNormalizedDCG", "RetrievalHitRate")
         for k in (None, 1, 3, 5)] + [("RetrievalRPrecision", "RetrievalRPrecision",
                                        False, None)]


def corpus(n_users: int, seed: int = 12):
    rng = np.random.default_rng(seed)
    users = {}
    for user in range(1, n_users + 1):
        n = int(rng.integers(1, 12))
        # distinct logits around 0 (torch orders ties arbitrarily): some exactly 0,
        # some 1e-50 instead (0 in float32, as torchmetrics stores preds)
        scores = rng.permutation(np.linspace(-2.0, 2.0, 41))[:n]
        if rng.random() < 0.5:
            scores[scores == 0.0] = 1e-50
        grades = rng.integers(0, 4, size=n) * (rng.random(n) < 0.6)
        users[user] = (scores.tolist(), grades.astype(int).tolist())
    return users


def main(argv) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default="/tmp/peer-venvs/peers-torchmetrics/bin/python")
    parser.add_argument("--users", type=int, default=300)
    args = parser.parse_args(argv)

    import metrics_lib as ml

    users = corpus(args.users)
    payload = {"specs": SPECS, "users": {str(u): v for u, v in users.items()}}
    run = subprocess.run([args.python, "-c", PEER], input=json.dumps(payload),
                         capture_output=True, text=True, check=True)
    peer = json.loads(run.stdout)
    recs = pd.DataFrame([(u, i, s) for u, (scores, _) in users.items()
                         for i, s in enumerate(scores)], columns=["user", "item", "score"])
    truth = pd.DataFrame([(u, i, g) for u, (_, grades) in users.items()
                          for i, g in enumerate(grades)],
                         columns=["user", "item", "relevance"])
    names = [name for name, *_ in SPECS]
    ours = ml.evaluate(recs, truth, names, convention="torchmetrics")
    per_list = {"RetrievalPrecision": ml.precision_at_k, "RetrievalRecall": ml.recall_at_k,
                "RetrievalMRR": ml.reciprocal_rank, "RetrievalMAP": ml.average_precision,
                "RetrievalNormalizedDCG": ml.ndcg_at_k, "RetrievalHitRate": ml.hit_at_k}
    worst, n, bad = 0.0, 0, []
    for name, cls, _graded, k in SPECS:
        for user, (scores, grades) in users.items():
            want = peer["values"][name][str(user)]
            got = [float(ours.loc[user, name])]
            if cls in per_list:
                order = np.argsort(-np.asarray(scores), kind="stable")
                items = [int(i) for i in order]
                s32 = np.asarray(scores, dtype=np.float32)[order].astype(float).tolist()
                got.append(per_list[cls](items, dict(enumerate(grades)), k, scores=s32,
                                         convention="torchmetrics"))
            for value in got:
                n += 1
                diff = abs(value - want)
                worst = max(worst, diff)
                if diff > 1e-6:
                    bad.append((name, user, want, value))
    print(f"torchmetrics {peer['version']}: {n} values compared over {len(users)} users, "
          f"largest difference {worst:.3g}, {len(bad)} above 1e-6")
    for row in bad[:10]:
        print("  ", row)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
