"""What each metric of issue 29 adds to an evaluate call, next to what NDCG adds (point 5).

Issue 29 asks that adding its metrics to an ``evaluate`` call cost no more per
metric than NDCG does. For each workload this times ``evaluate`` with a base
metric alone and with one more metric, and reports the median extra time of
each added metric (paired with the base call of the same round), in wall
and in CPU time:

* ``recs``: the benchmark workload (``workload.py``: top-100 lists, 1-50
  graded judgements per user), at 1,000 and 10,000 users (100,000 and
  1,000,000 recommendation rows); base ``precision@10``; the reference is
  what ``ndcg@10`` adds to it; ``arp@10``, ``aplt@10`` and
  ``group_exposure@10`` are timed with their item tables
  (:func:`item_data`), ``ee_loss@10`` with the graded truth alone;
* ``intents``: the same lists with a truth by intent (``intent_col=``): 50
  judged items per user (half of them in the list), each judged for 5 of 8
  intents, relevant with probability 0.3: 250 judgements per user, 2.5
  million at 10,000 users. An intent metric cannot share a call with
  ``ndcg@10`` (``intent_col`` changes what a truth row is), so the base is
  ``p_ia@10``; each intent metric's added time is compared with what
  ``ndcg@10`` adds on the plain workload of the same size, and a first row
  times an ``ndcg@10`` call on the same lists and truth without intents;
* ``calibration:N`` (``calibration:N:str``: user ids as strings):
  MovieLens-like data for ``miscalibration@10``
  (:func:`calibration_workload`): 50,000 users with 10-20 recommendations
  each, 1,500,000 history rows, ``N`` items (1,700 as in MovieLens 100K, or
  10,000) of 19 genres, 1-3 genres per item; base ``precision@10``, and
  ``item_genres=`` and ``history=`` are passed to the miscalibration call
  only (they are refused where no metric reads them), so its added time
  includes reading them.

Each size runs in ``--processes`` fresh child processes (a warm-up call, then
``--rounds`` rounds of every call, interleaved, so load changes hit all
alike); the medians are over every round of every process. The 1-minute load
average is printed before and after. ``gm_bpref`` is a geometric mean over
users, not a per-user column: ``bpref``, which it averages, is timed::

    .venv/bin/python benchmarks/metric_cost.py            # writes results/metric_cost.md
    .venv/bin/python benchmarks/metric_cost.py --quick    # small, prints only
    git worktree add /tmp/main-copy main                  # then, to compare:
    .venv/bin/python benchmarks/metric_cost.py --before /tmp/main-copy
    .venv/bin/python benchmarks/metric_cost.py --kinds calibration:1700   # prints only
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

REFERENCE = "ndcg@10"
PLAIN_BASE = "precision@10"
PLAIN_ADDED = [REFERENCE, "err@10", "rbp(p=0.8)", "rbp_resid(p=0.8)", "judged@10",
               "set_p", "set_recall", "set_f", "set_map", "set_relative_p",
               "relative_p@10", "num_nonrel_judged_ret", "bpref"]
INTENT_BASE = "p_ia@10"
INTENT_ADDED = ["alpha_ndcg@10", "err_ia@10", "s_recall@10"]


def intent_truth(recs, n_users, seed=29):
    """A truth by intent for the lists of ``recs`` (see the module docstring)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    per_user, per_item, n_intents = 50, 5, 8
    items = recs["item"].to_numpy().reshape(n_users, -1)
    listed = items[:, rng.permutation(items.shape[1])[:per_user // 2]]
    missed = items.max() + 1 + np.arange(n_users * (per_user - per_user // 2)).reshape(
        n_users, -1)  # ids no list holds
    judged = np.concatenate([listed, missed], axis=1)
    intents = np.argsort(rng.random((judged.size, n_intents)), axis=1)[:, :per_item] + 1
    return pd.DataFrame({
        "user": np.repeat(np.arange(n_users, dtype=np.int64), per_user * per_item),
        "item": np.repeat(judged.ravel(), per_item),
        "intent": intents.ravel(),
        "relevance": (rng.random(intents.size) < 0.3).astype(np.int64)})


def item_data(recs):
    """The exposure and popularity metrics of the ``recs`` workload, each with its input.

    ``item_popularity``: how many lists hold each recommended item (a Series
    over every item of the lists, as a catalogue's would be); ``item_groups``:
    every fifth item id in the group "tail", the others "head". ``ee_loss``
    reads only the graded truth. Each call pays for reading its input, as a
    user's call would.
    """
    import numpy as np
    import pandas as pd

    popularity = recs["item"].value_counts()
    groups = pd.Series(np.where(popularity.index.to_numpy() % 5 == 0, "tail", "head"),
                       index=popularity.index)
    return {"ee_loss@10": {}, "arp@10": {"item_popularity": popularity},
            "aplt@10": {"item_popularity": popularity},
            "group_exposure@10": {"item_groups": groups, "exposure_group": "tail"}}


CALIBRATION_ADDED = [REFERENCE, "miscalibration@10"]
GENRES = ["Action", "Adventure", "Animation", "Children's", "Comedy", "Crime",
          "Documentary", "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery",
          "Romance", "Sci-Fi", "Thriller", "War", "Western", "unknown"]


def calibration_workload(n_users, n_items, n_history=1_500_000, seed=29, text_users=False):
    """(recommendations, truth, item_genres, history) for ``miscalibration``.

    10-20 distinct items per user with distinct scores; 5 judged items per
    user (grades 0-2); item genres as ``movies.explode("genres")`` gives them
    (a Series item -> genre, 1-3 of 19 genres per item); ``n_history`` rows of
    (user, item) in random order, users drawn with lognormal weights (a few
    heavy users), items with Zipf-like popularity, repeated rows left in.
    ``text_users=True``: user ids are strings ("u17") in all three tables.
    """
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    lengths = rng.integers(10, 21, n_users)
    start = rng.integers(0, n_items, n_users)
    steps = rng.integers(1, max(2, n_items // 25), (n_users, 20)).cumsum(axis=1)
    lists = (start[:, None] + steps) % n_items  # distinct: steps sum below n_items
    items = lists[np.arange(20)[None, :] < lengths[:, None]]
    users = np.repeat(np.arange(n_users, dtype=np.int64), lengths)
    recs = pd.DataFrame({"user": users, "item": items, "score": rng.random(items.size)})
    judged = lists[:, :5] + rng.integers(0, 2, (n_users, 1)) * 3  # some outside the list
    truth = pd.DataFrame({"user": np.repeat(np.arange(n_users, dtype=np.int64), 5),
                          "item": (judged % n_items).ravel(),
                          "relevance": rng.integers(0, 3, 5 * n_users)})
    count = rng.choice([1, 2, 3], size=n_items, p=[0.5, 0.35, 0.15])
    genre = np.concatenate([rng.choice(len(GENRES), c, replace=False) for c in count])
    item_genres = pd.Series(np.array(GENRES, dtype=object)[genre],
                            index=np.repeat(np.arange(n_items, dtype=np.int64), count))
    heavy = rng.lognormal(0, 1, n_users)
    popular = 1 / (np.arange(n_items) + 10.0)
    history = pd.DataFrame({
        "user": rng.choice(n_users, n_history, p=heavy / heavy.sum()).astype(np.int64),
        "item": rng.choice(n_items, n_history, p=popular / popular.sum()).astype(np.int64)})
    if text_users:
        for frame in (recs, truth, history):
            frame["user"] = np.array([f"u{user}" for user in frame["user"].tolist()],
                                     dtype=object)
    return recs, truth, item_genres, history


def child(kind: str, n_users: int, rounds: int) -> dict:
    """Times of every call in this process: {label: [(wall s, CPU s) per round]}."""
    from workload import make_workload

    from metrics_lib import evaluate

    if kind.startswith("calibration"):
        recs, truth, item_genres, history = calibration_workload(
            n_users, int(kind.split(":")[1]), text_users=kind.endswith(":str"))
        base = [PLAIN_BASE]
        calls = {"base": lambda: evaluate(recs, truth, base)}
        for name in CALIBRATION_ADDED:
            data = (dict(item_genres=item_genres, history=history)
                    if name.startswith("miscalibration") else {})
            calls[name] = lambda m=name, d=data: evaluate(recs, truth, base + [m], **d)
    else:
        recs, truth = make_workload(n_users)
    if kind == "intents":
        truth = intent_truth(recs, n_users)
        plain = truth.drop_duplicates(["user", "item"])[["user", "item", "relevance"]]
        base, added = [INTENT_BASE], INTENT_ADDED
        calls = {"ndcg@10 alone, truth without intents":
                 lambda: evaluate(recs, plain, [REFERENCE]),
                 "base": lambda: evaluate(recs, truth, base, intent_col="intent")}
        for name in added:
            calls[name] = (lambda m=name: evaluate(recs, truth, base + [m],
                                                   intent_col="intent"))
    elif kind == "recs":
        base, added = [PLAIN_BASE], PLAIN_ADDED
        calls = {"base": lambda: evaluate(recs, truth, base)}
        for name in added:
            calls[name] = lambda m=name: evaluate(recs, truth, base + [m])
        for name, data in item_data(recs).items():
            calls[name] = lambda m=name, d=data: evaluate(recs, truth, base + [m], **d)
    for call in calls.values():  # warm-up: imports, caches
        call()
    times = {label: [] for label in calls}
    for _ in range(rounds):
        for label, call in calls.items():
            start, cpu = time.perf_counter(), time.process_time()
            call()
            times[label].append((time.perf_counter() - start, time.process_time() - cpu))
    return times


def measure(kind, n_users, processes, rounds, before=None):
    """Every round of ``processes`` fresh children, merged, and the load around them.

    ``before``: the root of another checkout (e.g. a worktree of main); its
    ``metrics_lib`` is timed too, in children that alternate with this one's.
    Returns ``({"now": times, "before": times or None}, load)``.
    """
    load = [os.getloadavg()[0]]
    merged = {"now": {}, "before": {} if before else None}
    for _ in range(processes):
        for which, root in (("before", before), ("now", str(HERE.parent))):
            if root is None:
                continue
            done = subprocess.run([sys.executable, __file__, "--child", kind, str(n_users),
                                   str(rounds), root], capture_output=True, text=True,
                                  check=True)
            for label, values in json.loads(done.stdout).items():
                merged[which].setdefault(label, []).extend(values)
    load.append(os.getloadavg()[0])
    return merged, load


def summarise(times):
    """{label: (median wall s, median CPU s, median added CPU s)} per call.

    "added": the call's CPU time minus the base call's of the same round.
    """
    base = times["base"]
    return {label: (statistics.median(v[0] for v in values),
                    statistics.median(v[1] for v in values),
                    statistics.median(v[1] - b[1] for v, b in zip(values, base)))
            for label, values in times.items()}


def table(kind, n_users, processes, rounds, merged, load, reference=None):
    """The markdown table of one workload; ``reference``: ndcg@10's added CPU s
    (for the intents, that of the plain workload of the same size)."""
    now = summarise(merged["now"])
    old = summarise(merged["before"]) if merged["before"] else None
    reference = now.get(REFERENCE, (None, None, reference))[2]
    base = INTENT_BASE if kind == "intents" else PLAIN_BASE
    rows = (f"{n_users:,} users with 10-20 recommendations, 1,500,000 history rows, "
            f"{int(kind.split(':')[1]):,} items of 19 genres"
            + (", user ids as strings" if kind.endswith(":str") else "")
            if kind.startswith("calibration")
            else f"{n_users:,} users ({n_users * 100:,} recommendation rows"
            + (f", {n_users * 250:,} judgements by intent)" if kind == "intents" else ")"))
    lines = [f"### {kind}: {rows}",
             "", f"{processes} fresh processes x {rounds} rounds"
             + (" for each version, alternating" if old else "") + f"; load average "
             f"{load[0]:.2f} before, {load[1]:.2f} after; base call: `{base}`.", ""]
    head = ["call", "median wall s", "median CPU ms", "added CPU ms"]
    if old:
        head[2:2] = ["median CPU ms, before"]
        head[4:4] = ["added CPU ms, before"]
    lines += ["| " + " | ".join(head + ["added CPU / ndcg@10's"]) + " |",
              "|---" + "|---:" * len(head) + "|"]
    for label, (wall, cpu, added) in now.items():
        shown = (f"`{base}` alone" if label == "base" else label
                 if label.startswith("ndcg@10 alone") else f"+ `{label}`")
        extra = label == "base" or label.startswith("ndcg@10 alone")
        # CPU times in ms: what ndcg@10 adds at a million rows is about one
        cells = [shown, f"{wall:.3f}", f"{1e3 * cpu:.1f}",
                 "" if extra else f"{1e3 * added:.2f}"]
        if old:
            cells[2:2] = [f"{1e3 * old[label][1]:.1f}"]
            cells[4:4] = ["" if extra else f"{1e3 * old[label][2]:.2f}"]
        ratio = "" if extra or not reference or reference <= 0 else f"{added / reference:.2f}"
        lines.append("| " + " | ".join(cells + [ratio]) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", nargs=4, metavar=("KIND", "USERS", "ROUNDS", "ROOT"))
    parser.add_argument("--processes", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--before", metavar="ROOT",
                        help="another checkout whose metrics_lib is timed alongside")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--kinds", nargs="+", metavar="KIND",
                        help="only these workloads (recs, intents, calibration:ITEMS), at "
                        "their default sizes; prints the tables, writes nothing")
    args = parser.parse_args()
    if args.child:
        kind, n_users, rounds, root = args.child
        sys.path.insert(0, root)  # the metrics_lib to time
        print(json.dumps(child(kind, int(n_users), int(rounds))))
        return
    sizes = ([("recs", 300), ("intents", 300)] if args.quick else  # recs before intents
             [("recs", 1_000), ("recs", 10_000), ("intents", 10_000),
              ("calibration:1700", 50_000), ("calibration:10000", 50_000),
              ("calibration:1700:str", 50_000)])
    if args.kinds:
        sizes = [(kind, n) for kind, n in sizes if kind in args.kinds] or [
            (kind, 50_000 if kind.startswith("calibration") else 10_000)
            for kind in args.kinds]
    processes, rounds = (1, 2) if args.quick else (args.processes, args.rounds)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                            capture_output=True, text=True).stdout.strip()
    parts, references = [], {}
    for kind, n_users in sizes:
        merged, load = measure(kind, n_users, processes, rounds, args.before)
        if kind == "recs":
            references[n_users] = summarise(merged["now"])[REFERENCE][2]
        parts.append(table(kind, n_users, processes, rounds, merged, load,
                           references.get(n_users)))
        print(parts[-1], flush=True)
    if not args.quick and not args.kinds:
        before = ""
        if args.before:
            old = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=args.before,
                                 capture_output=True, text=True).stdout.strip()
            before = f" \"before\": the same calls with `metrics_lib` at commit {old}."
        head = (f"# What each metric of issue 29 adds to an evaluate call (point 5)\n\n"
                f"`benchmarks/metric_cost.py` at commit {commit}, "
                f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} "
                "CPUs shared with other jobs, so times are CPU time of the process "
                "(`time.process_time`), which the other jobs disturb far less than wall "
                "time. \"added\" is the median over all rounds of the call's CPU time "
                "minus the base call's of the same round; the last column divides it by "
                "what `ndcg@10` adds to the same base." + before + "\n\n")
        (HERE / "results" / "metric_cost.md").write_text(head + "\n".join(parts))


if __name__ == "__main__":
    main()
