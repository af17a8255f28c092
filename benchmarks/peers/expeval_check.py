"""Cross-check: metrics_lib.expected_exposure against Diaz's expeval.

    git clone https://github.com/diazf/expeval /tmp/expeval   # 69ab070 checked
    PYTHONPATH=. .venv/bin/python benchmarks/peers/expeval_check.py /tmp/expeval

expeval is not on PyPI, so this is a script, not a test. It draws random
users (string and integer ids, 1 to 12 items, 1 to 5 sampled rankings,
grades 0 to 3, random patience, both judgement modes) and compares EE-D,
EE-R and EE-L per user with expeval's own functions under the RBP model:
``exposure.expected`` and ``exposure.target`` (with expeval's rule of
``data.read_qrels``: grade 0 kept only with ``-C``), then the raw metric
values of ``metrics.Disparity``, ``Relevance`` and ``Difference`` (its
``-U`` output, unnormalised). Prints the count and the largest relative
difference; exits 1 above 1e-12.
"""
import random
import sys

sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "/tmp/expeval")
import exposure as ex  # noqa: E402  (expeval's modules)
from permutation import Permutation  # noqa: E402

from metrics_lib import expected_exposure  # noqa: E402

rng = random.Random(29)
cases, worst = 0, 0.0
for trial in range(3000):
    n_items = rng.randint(1, 12)
    items = [f"d{j}" for j in range(n_items)] if rng.random() < .5 else list(range(n_items))
    gamma = rng.choice([0.5, 0.8, 0.9, rng.uniform(0.01, 0.99)])
    complete = rng.random() < .5
    qrels = {i: rng.choice([0, 0, 1, 1, 2, 3]) for i in rng.sample(items, rng.randint(1, n_items))}
    placed = {i: g for i, g in qrels.items() if complete or g > 0}
    if not placed:
        continue
    samples = []
    perms = {}
    for s in range(rng.randint(1, 6)):
        run = rng.sample(items, rng.randint(1, n_items))
        samples.append(run)
        p = Permutation()
        for r, d in enumerate(run):
            p.add(r + 1, d)
        perms[str(s)] = p
    mine = expected_exposure(samples, qrels, patience=gamma, complete=complete)
    target, disp, rel, diff = ex.target(placed, "rbp", gamma, 0.5, complete)
    run_exp = ex.expected(perms, placed, "rbp", gamma, 0.5)
    for metric in (disp, rel, diff):
        metric.compute(run_exp)
    ref = {"disparity": disp.value, "relevance": rel.value, "loss": diff.value}
    for key in ref:
        worst = max(worst, abs(ref[key] - mine[key]) / max(1.0, abs(ref[key])))
    cases += 1
print(f"{cases} random users compared; largest relative difference {worst:.3g}")
sys.exit(1 if worst > 1e-12 else 0)
