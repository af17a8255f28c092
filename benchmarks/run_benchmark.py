"""Time metrics_lib.evaluate against pytrec_eval, ranx and Microsoft Recommenders.

Workload (benchmarks/workload.py): N users x a top-100 list, 1..50 graded
relevant items each; metrics NDCG@10, MAP@100, MRR, P@10, Recall@10, computed
from two pandas DataFrames with integer ids; every tool's conversion from
those DataFrames to its own input format is inside the timed section.

Every measurement runs in a fresh subprocess (same interpreter) that imports
the tool (untimed), rebuilds the workload from the seed, resets the kernel's peak-RSS counter
(/proc/self/clear_refs) and reports seconds and peak extra resident memory
of the timed call. ranx's Numba compilation is timed separately on a tiny
input first (its "JIT warm-up") and excluded. The parent checks that all
tools agree on the values before it writes anything.

``evaluate`` is timed twice on each 100,000-user input: with ``n_jobs=1``
(one thread, like pytrec_eval) and with ``n_jobs=2`` (two threads, the CPUs
of the machine this was written on). Every row's ``speedup_vs_fastest_peer``
divides the fastest peer's time on the same users by that row's time.

Run from the repo root, in the benchmark venv (see benchmarks/requirements.txt):

    .venv-bench/bin/python benchmarks/run_benchmark.py            # full run
    .venv-bench/bin/python benchmarks/run_benchmark.py --quick    # smoke test

Writes metrics_lib/data/benchmarks/comparison.csv, scaling.csv and environment.csv
(package data: the chapter book/at_scale.ipynb reads them from the installed package).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workload import LIST_LENGTH, MAX_RELEVANT, make_workload  # noqa: E402

METRICS = ["ndcg@10", "map@100", "mrr", "precision@10", "recall@10"]
PYTREC = {"ndcg@10": "ndcg_cut_10", "map@100": "map_cut_100", "mrr": "recip_rank",
          "precision@10": "P_10", "recall@10": "recall_10"}
RANX = {"ndcg@10": "ndcg@10", "map@100": "map@100", "mrr": "mrr",
        "precision@10": "precision@10", "recall@10": "recall@10"}
TOLERANCE = 1e-9


# -- memory: peak resident set of the timed call ------------------------------

def _status(field: str) -> int:
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"{field} not in /proc/self/status")


def _reset_peak() -> int:
    """Reset VmHWM to the current RSS; return the current RSS in bytes."""
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    return _status("VmRSS")


# -- the tools: each returns (per-user frame or means Series, convert seconds) --

def run_evaluate(recs, truth, n_jobs=1):
    import metrics_lib

    return metrics_lib.evaluate(recs, truth, METRICS, n_jobs=n_jobs), 0.0


def run_numpy(recs, truth):
    """The same five metrics written by hand with numpy, for this workload.

    What one writes without a library, knowing the data: integer ids, so the
    (user, item) join is one int64 key and a binary search in the sorted
    judgement keys; the rows come grouped by user and best first, so ranks
    are positions inside each user's block (nothing is checked or sorted and
    no tie rule is applied); every metric is a ``np.bincount`` over user
    codes. No input validation. Its "conversion" is reading the columns as
    numpy arrays.
    """
    start = time.perf_counter()
    user, item = recs["user"].to_numpy(), recs["item"].to_numpy()
    t_user, t_item = truth["user"].to_numpy(), truth["item"].to_numpy()
    t_grade = truth["relevance"].to_numpy(np.float64)
    convert = time.perf_counter() - start
    # the join: (user, item) as one int64 key, judgements sorted once
    span = int(max(item.max(), t_item.max())) + 1
    t_key = t_user * span + t_item
    by_key = np.argsort(t_key)
    t_key_sorted = t_key[by_key]
    where = np.minimum(np.searchsorted(t_key_sorted, user * span + item), t_key.size - 1)
    found = t_key_sorted[where] == user * span + item
    grade = np.where(found, t_grade[by_key[where]], 0.0)
    # user blocks and ranks
    starts = np.flatnonzero(np.r_[True, user[1:] != user[:-1]])
    users = user[starts]
    code = np.repeat(np.arange(users.size), np.diff(np.r_[starts, user.size]))
    rank = np.arange(user.size) - starts[code] + 1
    t_code = np.searchsorted(users, t_user)
    n_rel = np.bincount(t_code, minlength=users.size).astype(np.float64)
    hit = grade >= 1
    hit_code, hit_rank = code[hit], rank[hit]
    top10 = hit_rank <= 10
    count10 = np.bincount(hit_code[top10], minlength=users.size)
    first = np.r_[True, hit_code[1:] != hit_code[:-1]]
    rr = np.zeros(users.size)
    rr[hit_code[first]] = 1.0 / hit_rank[first]
    # hits so far inside each user: a running count restarted at each user
    so_far = np.arange(hit_code.size) + 1
    so_far -= np.maximum.accumulate(np.where(first, so_far - 1, 0))
    top100 = hit_rank <= 100
    ap = np.bincount(hit_code[top100], weights=so_far[top100] / hit_rank[top100],
                     minlength=users.size) / n_rel
    cut = rank <= 10
    dcg = np.bincount(code[cut], weights=grade[cut] / np.log2(rank[cut] + 1),
                      minlength=users.size)
    # ideal DCG: each user's grades in decreasing order
    order = np.lexsort((-t_grade, t_code))
    s_code, s_grade = t_code[order], t_grade[order]
    s_start = np.flatnonzero(np.r_[True, s_code[1:] != s_code[:-1]])
    s_rank = np.arange(s_code.size) - np.repeat(s_start, np.diff(np.r_[s_start, s_code.size])) + 1
    cut = s_rank <= 10
    ideal = np.bincount(s_code[cut], weights=s_grade[cut] / np.log2(s_rank[cut] + 1),
                        minlength=users.size)
    frame = pd.DataFrame({"ndcg@10": dcg / ideal, "map@100": ap, "mrr": rr,
                          "precision@10": count10 / 10, "recall@10": count10 / n_rel},
                         index=pd.Index(users, name="user"))
    return frame, convert


def run_pytrec_eval(recs, truth):
    import pytrec_eval

    start = time.perf_counter()
    qrels, run = {}, {}
    for user, item, grade in zip(truth["user"].astype(str).tolist(),
                                 truth["item"].astype(str).tolist(),
                                 truth["relevance"].tolist()):
        qrels.setdefault(user, {})[item] = grade
    for user, item, score in zip(recs["user"].astype(str).tolist(),
                                 recs["item"].astype(str).tolist(),
                                 recs["score"].tolist()):
        run.setdefault(user, {})[item] = score
    convert = time.perf_counter() - start
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values()))
    result = evaluator.evaluate(run)
    return result, convert


def run_ranx(recs, truth):
    from ranx import Qrels, Run, evaluate

    start = time.perf_counter()
    q = truth.assign(user=truth["user"].astype(str).astype(object),
                     item=truth["item"].astype(str).astype(object),
                     relevance=truth["relevance"].astype(np.int64))
    r = recs.assign(user=recs["user"].astype(str).astype(object),
                    item=recs["item"].astype(str).astype(object))
    qrels = Qrels.from_df(q, q_id_col="user", doc_id_col="item", score_col="relevance")
    run = Run.from_df(r, q_id_col="user", doc_id_col="item", score_col="score")
    convert = time.perf_counter() - start
    values = evaluate(qrels, run, list(RANX.values()), return_mean=False)
    return (list(run.keys()), values), convert


def ranx_warmup() -> float:
    """Compile ranx's Numba code: the same calls on a 20-user input; seconds."""
    recs, truth = make_workload(20, seed=1)
    start = time.perf_counter()
    run_ranx(recs, truth)
    return time.perf_counter() - start


def run_recommenders(recs, truth):
    from recommenders.evaluation import python_evaluation as pe

    common = {"col_user": "user", "col_item": "item", "col_prediction": "score"}
    start = time.perf_counter()
    # python_evaluation expects a rating column in both tables.
    true = truth.rename(columns={"relevance": "rating"})
    convert = time.perf_counter() - start
    means = {
        "ndcg@10": pe.ndcg_at_k(true, recs, col_rating="rating", k=10,
                                score_type="raw", discfun_type="log2", **common),
        "map@100": pe.map(true, recs, col_rating="rating", k=100, **common),
        "precision@10": pe.precision_at_k(true, recs, col_rating="rating", k=10,
                                          **common),
        "recall@10": pe.recall_at_k(true, recs, col_rating="rating", k=10, **common),
    }
    return pd.Series(means), convert


# Not a peer library: the baseline of code written by hand (never the "fastest peer").
BY_HAND = "numpy (by hand)"
TOOLS = {"metrics_lib.evaluate": run_evaluate, BY_HAND: run_numpy,
         "pytrec_eval": run_pytrec_eval,
         "ranx": run_ranx, "recommenders": run_recommenders}


def to_frame(tool, result, users) -> pd.DataFrame | pd.Series:
    """Per-user values indexed by int user id (or a Series of means)."""
    if tool in ("metrics_lib.evaluate", BY_HAND):
        return result
    if tool == "pytrec_eval":
        frame = pd.DataFrame({m: {int(q): v[PYTREC[m]] for q, v in result.items()}
                              for m in METRICS})
        return frame.sort_index()
    if tool == "ranx":
        ids, values = result
        frame = pd.DataFrame({m: values[RANX[m]] for m in METRICS},
                             index=[int(q) for q in ids])
        return frame.sort_index()
    return result  # recommenders: means only


# -- worker: one measurement in a fresh process -------------------------------

PRELOAD = {"metrics_lib.evaluate": ["metrics_lib"], BY_HAND: [],
           "pytrec_eval": ["pytrec_eval"],
           "ranx": ["ranx"], "recommenders": ["recommenders.evaluation.python_evaluation"]}


def worker(args) -> None:
    import importlib

    for module in PRELOAD[args.tool]:  # imports are not part of any tool's time
        importlib.import_module(module)
    recs, truth = make_workload(args.users, shuffle=args.shuffle)
    input_bytes = int(recs.memory_usage(deep=True).sum()
                      + truth.memory_usage(deep=True).sum())
    warmup = ranx_warmup() if args.tool == "ranx" else float("nan")
    repeats = []
    for _ in range(args.repeat):
        import gc

        gc.collect()
        before = _reset_peak()
        start = time.perf_counter()
        extra = {"n_jobs": args.n_jobs} if args.tool == "metrics_lib.evaluate" else {}
        result, convert = TOOLS[args.tool](recs, truth, **extra)
        seconds = time.perf_counter() - start
        peak = _status("VmHWM") - before
        repeats.append({"seconds": seconds, "convert_seconds": convert,
                        "peak_bytes": peak})
        if args.repeat > 1:
            del result
            result = None
    if result is not None and args.values:
        values = to_frame(args.tool, result, recs)
        if isinstance(values, pd.Series):
            values.to_frame("mean").to_parquet(args.values)
        else:
            values.to_parquet(args.values)
    json.dump({"repeats": repeats, "input_bytes": input_bytes,
               "rows": int(len(recs) + len(truth)), "warmup_seconds": warmup,
               "python": sys.version.split()[0]}, open(args.out, "w"))


def measure(tool, users, *, shuffle=False, repeat=1, values=None, n_jobs=1):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        out = handle.name
    command = [sys.executable, __file__, "--worker", tool, "--users", str(users),
               "--out", out, "--repeat", str(repeat), "--n-jobs", str(n_jobs)]
    if shuffle:
        command.append("--shuffle")
    if values:
        command += ["--values", values]
    subprocess.run(command, check=True)
    report = json.load(open(out))
    os.unlink(out)
    return report


def check_agreement(reference: pd.DataFrame, other, tool: str) -> float:
    """Largest absolute difference; raise if above TOLERANCE."""
    if isinstance(other, pd.DataFrame) and "mean" not in other.columns:
        other = other.loc[reference.index, METRICS]
        if len(other) != len(reference):
            raise AssertionError(f"{tool}: different users")
        diff = float(np.max(np.abs(other.to_numpy() - reference.to_numpy())))
    else:
        means = other["mean"]
        diff = float(max(abs(means[m] - reference[m].mean()) for m in means.index))
    if not diff <= TOLERANCE:
        raise AssertionError(f"{tool} disagrees with metrics_lib.evaluate by {diff:g}")
    return diff


def comparison(users, recommenders_users, runs, scratch) -> list[dict]:
    rows = []
    evaluate = "metrics_lib.evaluate"
    plan = [(evaluate, users, False, 1,
             "n_jobs=1 (one thread); workload as emitted (user blocks, best first)"),
            (evaluate, users, False, 2,
             "n_jobs=2 (two threads); workload as emitted (user blocks, best first)"),
            (evaluate, users, True, 1, "n_jobs=1 (one thread); same rows shuffled"),
            (evaluate, users, True, 2, "n_jobs=2 (two threads); same rows shuffled"),
            (BY_HAND, users, False, None,
             "baseline, not a peer: int64 key join by binary search, then numpy (one "
             "thread); relies on the rows being grouped and sorted, no checks"),
            ("pytrec_eval", users, False, None, "one thread"),
            ("ranx", users, False, None,
             "JIT warm-up excluded; conversion in one thread, Numba metric loops parallel"),
            (evaluate, recommenders_users, False, 1,
             f"n_jobs=1 (one thread); subset: first {recommenders_users:,} users"),
            ("recommenders", recommenders_users, False, None,
             f"subset: first {recommenders_users:,} users; no MRR function; one thread")]
    references = {}
    for tool, n, shuffle, n_jobs, note in plan:
        reports, values_file = [], None
        name = f"{tool}-{n}-{shuffle}-{n_jobs}.parquet"
        for run in range(runs):
            values_file = str(scratch / name) if run == 0 else None
            print(f"  {tool:22s} users={n:>9,} shuffle={shuffle!s:5s} n_jobs={n_jobs} "
                  f"run {run + 1}/{runs}", flush=True)
            reports.append(measure(tool, n, shuffle=shuffle, values=values_file,
                                   n_jobs=n_jobs or 1))
        seconds = [r["repeats"][0]["seconds"] for r in reports]
        converts = [r["repeats"][0]["convert_seconds"] for r in reports]
        peaks = [r["repeats"][0]["peak_bytes"] for r in reports]
        values = pd.read_parquet(scratch / name)
        if tool == evaluate and not shuffle and n_jobs == 1:
            references[n] = values
            diff = 0.0
        else:
            diff = check_agreement(references[n], values, tool)
        rows.append({
            "tool": tool, "users": n, "rows": reports[0]["rows"], "shuffled": shuffle,
            "n_jobs": "" if n_jobs is None else n_jobs, "runs": runs, "seconds_median": statistics.median(seconds),
            "seconds_all": ";".join(f"{s:.3f}" for s in seconds),
            "convert_seconds_median": statistics.median(converts),
            "jit_warmup_seconds": statistics.median(r["warmup_seconds"] for r in reports),
            "peak_extra_mb": statistics.median(peaks) / 2**20,
            "input_mb": reports[0]["input_bytes"] / 2**20,
            "metrics": ";".join(values.columns if "mean" not in values.columns
                                else values.index),
            "max_abs_diff": diff, "note": note})
    for row in rows:
        base = next(r for r in rows if r["tool"] == evaluate and r["users"] == row["users"]
                    and not r["shuffled"] and r["n_jobs"] == 1)
        fastest_peer = min(r["seconds_median"] for r in rows
                           if r["tool"] not in (evaluate, BY_HAND)
                           and r["users"] == row["users"])
        row["ratio_to_evaluate"] = row["seconds_median"] / base["seconds_median"]
        row["speedup_vs_fastest_peer"] = fastest_peer / row["seconds_median"]
        row["peak_over_input"] = row["peak_extra_mb"] / row["input_mb"]
    return rows


def scaling(sizes, runs, calls=3) -> list[dict]:
    """``evaluate`` (one thread) at each size: ``runs`` fresh processes of ``calls`` calls.

    One process's calls share its memory history, and on a virtual machine the first touch
    of fresh memory can cost more than the work; the median of all calls of several
    processes is steadier than that of one process. The processes run in rounds, every
    size once per round, so that a long slow spell of the machine falls on all sizes
    alike instead of on the sizes measured during it (a short one still falls on the size
    that is running, most often the largest, which takes most of each round).
    """
    seconds = {n: [] for n in sizes}
    peaks = {n: [] for n in sizes}
    reports = {}
    for run in range(runs):
        for n in sizes:
            print(f"  scaling round {run + 1}/{runs} users={n:>9,}", flush=True)
            report = reports[n] = measure("metrics_lib.evaluate", n, repeat=calls)
            seconds[n].append([r["seconds"] for r in report["repeats"]])
            peaks[n].append(report["repeats"][0]["peak_bytes"])
    rows = []
    for n in sizes:
        every = [s for process in seconds[n] for s in process]
        rows.append({"users": n, "rows": reports[n]["rows"], "n_jobs": 1, "runs": runs,
                     "calls_per_process": calls,
                     "seconds_median": statistics.median(every),
                     "seconds_min": min(every),
                     "seconds_all": "|".join(";".join(f"{s:.4f}" for s in process)
                                             for process in seconds[n]),
                     "peak_extra_mb": max(peaks[n]) / 2**20,
                     "input_mb": reports[n]["input_bytes"] / 2**20})
    return rows


def write_csv(path: Path, rows: list[dict]) -> None:
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v)
                             for k, v in row.items()})


def environment() -> list[dict]:
    import importlib.metadata as md

    rows = [{"item": "python", "value": platform.python_version()},
            {"item": "cpu_count", "value": os.cpu_count()},
            {"item": "load_average_1min_at_start", "value": f"{os.getloadavg()[0]:.2f}"},
            {"item": "platform", "value": platform.platform()},
            # the workload's shape, so that the chapter need not import benchmarks/
            {"item": "workload_list_length", "value": LIST_LENGTH},
            {"item": "workload_max_relevant", "value": MAX_RELEVANT}]
    for package in ("numpy", "pandas", "pytrec-eval-terrier", "ranx", "numba",
                    "recommenders"):
        try:
            rows.append({"item": package, "value": md.version(package)})
        except md.PackageNotFoundError:
            rows.append({"item": package, "value": "not installed"})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worker", choices=list(TOOLS))
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument("--shuffle", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--n-jobs", type=int, default=1,
                        help="threads for metrics_lib.evaluate (worker only)")
    parser.add_argument("--out")
    parser.add_argument("--values")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--recommenders-users", type=int, default=10_000)
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes, results to a temp dir (smoke test)")
    parser.add_argument("--results", default=str(HERE.parent / "metrics_lib" / "data" / "benchmarks"))
    args = parser.parse_args()
    if args.worker:
        args.tool = args.worker
        worker(args)
        return
    sizes = [1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000]
    results = Path(args.results)
    if args.quick:
        args.users, args.recommenders_users, args.runs = 2_000, 500, 1
        sizes = [1_000, 3_000]
        results = Path(tempfile.mkdtemp())
    results.mkdir(parents=True, exist_ok=True)
    env = environment()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        print("comparison (values checked against metrics_lib.evaluate)")
        rows = comparison(args.users, args.recommenders_users, args.runs, Path(scratch))
    print("scaling of metrics_lib.evaluate")
    scale = scaling(sizes, args.runs)
    env.append({"item": "benchmark_wall_seconds", "value": f"{time.perf_counter() - start:.0f}"})
    env.append({"item": "load_average_1min_at_end", "value": f"{os.getloadavg()[0]:.2f}"})
    write_csv(results / "comparison.csv", rows)
    write_csv(results / "scaling.csv", scale)
    write_csv(results / "environment.csv", env)
    table = pd.DataFrame(rows)[["tool", "users", "shuffled", "n_jobs", "seconds_median",
                                "convert_seconds_median", "jit_warmup_seconds",
                                "ratio_to_evaluate", "speedup_vs_fastest_peer",
                                "peak_extra_mb", "peak_over_input", "max_abs_diff"]]
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3g}"))
        print(pd.DataFrame(scale).to_string(index=False))
    by_users = {row["users"]: row for row in scale}
    if 100_000 in by_users and 1_000_000 in by_users:
        ratio = by_users[1_000_000]["seconds_median"] / by_users[100_000]["seconds_median"]
        print(f"1,000,000 users / 100,000 users (medians of all calls): {ratio:.2f}")
    print(f"results written to {results}")


if __name__ == "__main__":
    main()
