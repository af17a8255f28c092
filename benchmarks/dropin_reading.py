"""How fast and how small is the drop-in's numpy reader? (issue 25, point 5).

Reads the seeded run and qrels files of ``benchmarks/dropin.py`` (same
generator, same scratch folder, so the files are shared) with

* ``new``: ``metrics_lib.dropin.reading.read_trec_arrays(run, qrels)``;
* ``old``: ``metrics_lib.trec._run_columns(run, exact=True)`` and
  ``_qrels_columns(qrels, exact=True)``, what ``python -m metrics_lib`` calls
  today;
* ``numpy``: a child that only imports numpy (the floor of the peak memory).

Each is a fresh child process, alternating, ``--repeats`` times (5 by
default); the table gives the median time of the read itself (measured in
the child around the call, imports excluded), the median wall time of the
whole child, and the median peak resident set size from ``/usr/bin/time -v``.
The two readers' results are compared once per size (every id, score, grade
and the run tag). Not part of ``make test``.

Usage: ``python benchmarks/dropin_reading.py [--sizes 50000,500000,2000000]
[--repeats 5] [--scratch DIR] [--out FILE]``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from dropin import write_files  # noqa: E402  (same folder)

ROOT = pathlib.Path(__file__).resolve().parents[1]
SIZES = (50_000, 500_000, 2_000_000)

CHILD = {
    "new": """
import sys, time
from metrics_lib.dropin.reading import read_trec_arrays
start = time.perf_counter()
arrays = read_trec_arrays(sys.argv[1], sys.argv[2])
print(time.perf_counter() - start)
assert arrays is not None, "the generated files must be plain"
""",
    "old": """
import sys, time
from metrics_lib.trec import _qrels_columns, _run_columns
start = time.perf_counter()
run = _run_columns(sys.argv[1], sys.argv[1], exact=True)
qrels = _qrels_columns(sys.argv[2], sys.argv[2], exact=True)
print(time.perf_counter() - start)
""",
    "numpy": """
import time
import numpy
print(0.0)
""",
}

SAME = """
import sys
import numpy as np
from metrics_lib.dropin.reading import read_trec_arrays
from metrics_lib.trec import _qrels_columns, _run_columns
a = read_trec_arrays(sys.argv[1], sys.argv[2])
users, items, scores, tag, _, _ = _run_columns(sys.argv[1], "run", exact=True)
q_users, q_items, grades, _, _ = _qrels_columns(sys.argv[2], "qrels", exact=True)
def same(vocab, codes, column):
    return np.array_equal(vocab[codes], np.array(column.to_pylist(), dtype=vocab.dtype))
ok = (same(a.query_ids, a.run_query, users) and same(a.doc_ids, a.run_doc, items)
      and same(a.query_ids, a.qrels_query, q_users) and same(a.doc_ids, a.qrels_doc, q_items)
      and np.array_equal(a.run_score, scores) and np.array_equal(a.qrels_grade, grades)
      and a.run_tag == tag)
print("yes" if ok else "no")
"""


def timed(command: list[str]) -> tuple[float, float, float, bytes]:
    """Wall and CPU (user + system) seconds of a fresh child, its peak RSS in MiB, stdout."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - start
    log = done.stderr.decode(errors="replace")
    if done.returncode != 0:
        raise RuntimeError(f"{command[:2]} failed ({done.returncode}):\n{log[-2000:]}")
    value = lambda label: float(re.search(label + r": ([0-9.]+)", log).group(1))  # noqa: E731
    cpu = value(r"User time \(seconds\)") + value(r"System time \(seconds\)")
    return wall, cpu, value(r"Maximum resident set size \(kbytes\)") / 1024, done.stdout


def measure(run: pathlib.Path, qrels: pathlib.Path, repeats: int) -> dict:
    """Alternating fresh children of each reader; medians of read s, wall s, peak MiB."""
    results = {tool: {"read": [], "wall": [], "cpu": [], "peak": []} for tool in CHILD}
    for repeat in range(repeats):
        order = list(CHILD) if repeat % 2 == 0 else list(CHILD)[::-1]
        for tool in order:
            wall, cpu, peak, stdout = timed([sys.executable, "-c", CHILD[tool], str(run),
                                             str(qrels)])
            results[tool]["read"].append(float(stdout.split()[-1]))
            results[tool]["wall"].append(wall)
            results[tool]["cpu"].append(cpu)
            results[tool]["peak"].append(peak)
            print(f"  {tool:5s} {repeat}: read {results[tool]['read'][-1]:.3f} s, "
                  f"wall {wall:.3f} s, cpu {cpu:.2f} s, {peak:.1f} MiB", flush=True)
    same = timed([sys.executable, "-c", SAME, str(run), str(qrels)])[3].decode().strip()
    return {"median": {tool: {key: statistics.median(values) for key, values in runs.items()}
                       for tool, runs in results.items()},
            "raw": results, "same": same, "load": os.getloadavg()[0]}


def table(results: dict[int, dict], repeats: int) -> str:
    lines = ["# The drop-in's numpy reader against metrics_lib.trec (run + qrels)", "",
             f"Made by `benchmarks/dropin_reading.py`, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs "
             f"shared with other jobs; median of {repeats} alternating fresh processes. "
             "read: the call alone; wall and CPU (user + system, less disturbed by the "
             "other jobs): the whole child (Python start and imports included); peak: "
             "maximum resident set size; numpy: a child that only imports numpy.", "",
             "| run lines | new read s | old read s | speed-up | new wall s | old wall s | "
             "new CPU s | old CPU s | numpy CPU s | new peak MiB | old peak MiB | "
             "numpy peak MiB | same values | load |",
             "|" + "---:|" * 14]
    for size in sorted(results):
        m = results[size]["median"]
        lines.append(
            f"| {size:,} | {m['new']['read']:.3f} | {m['old']['read']:.3f} | "
            f"{m['old']['read'] / m['new']['read']:.1f}x | {m['new']['wall']:.3f} | "
            f"{m['old']['wall']:.3f} | {m['new']['cpu']:.2f} | {m['old']['cpu']:.2f} | "
            f"{m['numpy']['cpu']:.2f} | {m['new']['peak']:.1f} | {m['old']['peak']:.1f} | "
            f"{m['numpy']['peak']:.1f} | {results[size]['same']} | "
            f"{results[size]['load']:.1f} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--scratch",
                        default=os.path.join(tempfile.gettempdir(), "dropin_benchmark"))
    parser.add_argument("--out", default=None, help="also write the table to this file")
    args = parser.parse_args()
    scratch = pathlib.Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    results = {}
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"{size:,} lines", flush=True)
        qrels, run = write_files(scratch, size)
        results[size] = measure(run, qrels, args.repeats)
    text = table(results, args.repeats)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    return 0 if all(r["same"] == "yes" for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
