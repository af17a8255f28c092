"""What one user-model metric (or judged@10) adds to an evaluate call, next to what NDCG adds (issue 29).

Times ``evaluate`` on the benchmark workload (``workload.py``: top-100 lists,
1-50 graded judgements per user) with a base metric alone and with one more
metric, calls interleaved, and prints the median and the fastest of each and
the median extra time per added metric (paired with the base call of its round)::

    .venv/bin/python benchmarks/user_model_cost.py [n_users] [repeats]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parents[1])]

from workload import make_workload  # noqa: E402

from metrics_lib import evaluate  # noqa: E402

BASE = ["precision@10"]
ADDED = ["ndcg@10", "err@10", "judged@10", "ndcg", "err", "rbp(p=0.8)", "rbp_resid(p=0.8)"]


def main(n_users: int = 20_000, repeats: int = 9) -> None:
    recs, truth = make_workload(n_users)
    calls = {"base": BASE, **{name: BASE + [name] for name in ADDED}}
    times = {label: [] for label in calls}
    evaluate(recs, truth, BASE + ADDED)  # warm-up (imports, caches)
    for _ in range(repeats):
        for label, metrics in calls.items():  # interleaved: load changes hit all alike
            start = time.perf_counter()
            evaluate(recs, truth, metrics)
            times[label].append(time.perf_counter() - start)
    print(f"{n_users} users x 100 rows, {repeats} runs each, medians")
    print(f"{'call':<22}{'median s':>10}{'min s':>10}{'added s':>10}")
    for label, values in times.items():
        median = statistics.median(values)
        extra = statistics.median(v - b for v, b in zip(values, times["base"]))
        shown = "base: " + ",".join(BASE) if label == "base" else "+ " + label
        print(f"{shown:<22}{median:>10.3f}{min(values):>10.3f}"
              f"{(extra if label != 'base' else 0):>10.3f}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
