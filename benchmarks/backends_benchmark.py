"""Time metrics_lib.evaluate on the same workload held by pandas, Polars and Arrow.

The benchmark workload (benchmarks/workload.py) is built as pandas
DataFrames and converted, untimed, to a Polars DataFrame, a Polars LazyFrame
and a pyarrow Table. Each input is then evaluated ``--repeat`` times in this
process (``n_jobs=1``) and the median is printed; the results must equal the
pandas result exactly before anything is timed. Backends whose library is
not installed are skipped.

    python benchmarks/backends_benchmark.py --users 20000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from workload import make_workload  # noqa: E402

import metrics_lib  # noqa: E402

METRICS = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@10"]


def inputs(recs, truth, backends):
    yield "pandas", recs, truth
    if "polars" in backends or "polars-lazy" in backends:
        try:
            import polars as pl
        except ImportError:
            print("polars is not installed: skipped")
        else:
            if "polars" in backends:
                yield "polars", pl.from_pandas(recs), pl.from_pandas(truth)
            if "polars-lazy" in backends:
                yield ("polars-lazy", pl.from_pandas(recs).lazy(),
                       pl.from_pandas(truth).lazy())
    if "arrow" in backends:
        try:
            import pyarrow as pa
        except ImportError:
            print("pyarrow is not installed: skipped")
        else:
            yield ("arrow", pa.Table.from_pandas(recs, preserve_index=False),
                   pa.Table.from_pandas(truth, preserve_index=False))


def values(result, user_col="user"):
    """Metric values as a (users x metrics) array, whatever the result type."""
    module = type(result).__module__
    if module.startswith("pandas"):
        return result.index.to_numpy(), result[METRICS].to_numpy()
    if module.startswith("polars"):
        return result[user_col].to_numpy(), result.select(METRICS).to_numpy()
    return (result.column(user_col).to_numpy(),
            np.column_stack([result.column(m).to_numpy() for m in METRICS]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--shuffle", action="store_true")
    parser.add_argument("--backends", default="pandas,polars,polars-lazy,arrow")
    args = parser.parse_args()
    recs, truth = make_workload(args.users, shuffle=args.shuffle)
    backends = args.backends.split(",")
    reference = None
    for name, r, t in inputs(recs, truth, backends):
        if name not in backends:
            continue
        users, got = values(metrics_lib.evaluate(r, t, METRICS))
        if reference is None:
            reference = users, got
        else:
            np.testing.assert_array_equal(users, reference[0])
            np.testing.assert_array_equal(got, reference[1])
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            metrics_lib.evaluate(r, t, METRICS)
            times.append(time.perf_counter() - start)
        print(f"{name:12s} {len(recs):>10,d} rows  median {statistics.median(times):.3f} s"
              f"  (min {min(times):.3f}, max {max(times):.3f})", flush=True)


if __name__ == "__main__":
    main()
