"""Does ``python -m metrics_lib`` beat trec_eval at every size? (issue 25, point 5).

For each size (run lines: 50,000, 500,000, 2,000,000 and 10,000,000 by
default) it writes a seeded run of ``size / 100`` queries x 100 documents, with
tied scores, and graded qrels (20 judged documents per query, grades 0-3: 4 of
the top 10, 6 further down, 10 never retrieved). It runs trec_eval 10.0, built
from the unmodified source in ``third_party/`` in the same run, and
``python -m metrics_lib`` with trec_eval's default measures and ``-q``,
alternating, ``--repeats`` times each (5 by default, ``--repeats-10m`` at 10M
lines). Wall time is taken around each fresh child process, peak memory is the
child's maximum resident set size from ``/usr/bin/time -v``. Both tools must
print the same bytes. The Markdown table goes to ``benchmarks/results/dropin.md``
and the medians to ``metrics_lib/data/benchmarks/dropin.csv`` (the at-scale chapter's)
(rewritten after each size, so an interrupted run keeps what it measured).

Targets (issue 25): wall at most 4x trec_eval's at 50,000 lines and below
trec_eval's from 500,000 lines on; peak at most trec_eval's + 64 MiB.

Usage: ``python benchmarks/dropin.py [--sizes 50000,500000] [--repeats 5]
[--repeats-10m 3] [--scratch DIR] [--out FILE]``. Not part of ``make test``.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from trec_cli_benchmark import build_trec_eval  # noqa: E402  (same folder)

ROOT = pathlib.Path(__file__).resolve().parents[1]
SIZES = (50_000, 500_000, 2_000_000, 10_000_000)
DEPTH, N_JUDGED, BLOCK = 100, 20, 2_000
WALL_50K, MEMORY_SLACK_MIB = 4.0, 64.0


def _block(rng: np.random.Generator, first: int, n: int) -> tuple[list[str], list[str]]:
    """Run and qrels lines of queries ``first .. first + n - 1`` (vectorised draws)."""
    width = DEPTH + 10
    # column j draws from its own id range, so a query's documents are distinct;
    # a random column order per query then mixes the ranges over the ranks
    docs = rng.integers(0, 9_000, size=(n, width)) + np.arange(width) * 9_000
    docs = np.take_along_axis(docs, np.argsort(rng.random((n, width)), axis=1), axis=1)
    scores = np.round(-np.sort(-rng.random((n, DEPTH)), axis=1) * 100, 2)  # ties
    top = np.argsort(rng.random((n, 10)), axis=1)[:, :4]
    mid = 10 + np.argsort(rng.random((n, DEPTH - 10)), axis=1)[:, :6]
    judged = np.concatenate([np.take_along_axis(docs, top, axis=1),
                             np.take_along_axis(docs, mid, axis=1), docs[:, DEPTH:]], axis=1)
    grades = rng.integers(0, 4, size=judged.shape)
    run = [f"q{first + i} Q0 doc{d} {r + 1} {s:.2f} bench\n"
           for i in range(n) for r, (d, s) in enumerate(zip(docs[i, :DEPTH].tolist(),
                                                             scores[i].tolist()))]
    qrels = [f"q{first + i} 0 doc{d} {g}\n"
             for i in range(n) for d, g in zip(judged[i].tolist(), grades[i].tolist())]
    return run, qrels


def write_files(scratch: pathlib.Path, size: int) -> tuple[pathlib.Path, pathlib.Path]:
    """Seeded qrels and run files of ``size`` run lines (reused when present)."""
    run_path, qrels_path = scratch / f"run_{size}.txt", scratch / f"qrels_{size}.txt"
    if run_path.is_file() and qrels_path.is_file():
        return qrels_path, run_path
    rng = np.random.default_rng(20261127 + size)
    n_queries = size // DEPTH
    with open(run_path.with_suffix(".tmp"), "w") as run, open(qrels_path, "w") as qrels:
        for first in range(0, n_queries, BLOCK):
            run_lines, qrels_lines = _block(rng, first, min(BLOCK, n_queries - first))
            run.writelines(run_lines)
            qrels.writelines(qrels_lines)
    run_path.with_suffix(".tmp").rename(run_path)
    return qrels_path, run_path


def timed(command: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds of a fresh child, its peak RSS in MiB, and its stdout."""
    start = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, cwd=ROOT)
    wall = time.perf_counter() - start
    log = done.stderr.decode(errors="replace")
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed ({done.returncode}):\n{log[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1))
    return wall, rss / 1024, done.stdout


def measure(binary: pathlib.Path, qrels: pathlib.Path, run: pathlib.Path,
            repeats: int) -> dict:
    """Alternating runs of both tools on one pair of files; medians and checks."""
    tools = {"trec_eval": [str(binary), "-q", str(qrels), str(run)],
             "metrics_lib": [sys.executable, "-m", "metrics_lib", "-q", str(qrels), str(run)]}
    walls = {tool: [] for tool in tools}
    peaks = {tool: [] for tool in tools}
    outputs = {}
    load_before = os.getloadavg()[0]
    for repeat in range(repeats):
        for tool in (list(tools) if repeat % 2 == 0 else list(tools)[::-1]):
            wall, peak, stdout = timed(tools[tool])
            walls[tool].append(wall)
            peaks[tool].append(peak)
            if outputs.setdefault(tool, stdout) != stdout:
                raise RuntimeError(f"{tool} printed different output on repeat {repeat}")
            print(f"  {tool:11s} {repeat}: {wall:7.3f} s {peak:8.1f} MiB", flush=True)
    return {"wall": {t: statistics.median(v) for t, v in walls.items()},
            "peak": {t: statistics.median(v) for t, v in peaks.items()},
            "raw": (walls, peaks), "repeats": repeats,
            "identical": outputs["trec_eval"] == outputs["metrics_lib"],
            "load": (load_before, os.getloadavg()[0])}


def _row(size: int, result: dict) -> str:
    wall, peak = result["wall"], result["peak"]
    ratio = wall["metrics_lib"] / wall["trec_eval"]
    wall_ok = ratio <= WALL_50K if size <= 50_000 else ratio < 1.0
    extra = peak["metrics_lib"] - peak["trec_eval"]
    yes = {True: "yes", False: "**no**"}
    return (f"| {size:,} | {result['repeats']} | {wall['trec_eval']:.3f} | "
            f"{wall['metrics_lib']:.3f} | {ratio:.2f} | {yes[wall_ok]} | "
            f"{peak['trec_eval']:.1f} | {peak['metrics_lib']:.1f} | {extra:+.1f} | "
            f"{yes[extra <= MEMORY_SLACK_MIB]} | {yes[result['identical']]} | "
            f"{result['load'][0]:.2f} / {result['load'][1]:.2f} |")


def write_table(out: pathlib.Path, results: dict[int, dict]) -> None:
    """The Markdown table of every size measured so far, with the raw runs."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    lines = ["# `python -m metrics_lib` against trec_eval 10.0 (default measures, `-q`)", "",
             f"Made by `benchmarks/dropin.py` at commit {commit}, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {os.cpu_count()} CPUs "
             f"(shared with other jobs), Python {platform.python_version()}, "
             f"numpy {np.__version__}. Wall: median over alternating fresh processes; "
             "peak: median of the child's maximum resident set size. The package is "
             "byte-compiled first, as `pip install` does. Targets (issue 25): "
             f"wall <= {WALL_50K:g}x trec_eval at 50,000 lines, below trec_eval from "
             f"500,000 on; peak <= trec_eval + {MEMORY_SLACK_MIB:g} MiB.", "",
             "| run lines | repeats | trec_eval wall s | metrics_lib wall s | wall ratio | "
             "wall target | trec_eval peak MiB | metrics_lib peak MiB | peak difference MiB | "
             "peak target | identical output | load average before / after |",
             "|" + "---:|" * 12]
    lines += [_row(size, results[size]) for size in sorted(results)]
    lines += ["", "Raw runs (wall s / peak MiB, in the order run within each tool):", ""]
    for size in sorted(results):
        walls, peaks = results[size]["raw"]
        for tool in walls:
            runs = ", ".join(f"{w:.3f}/{p:.0f}" for w, p in zip(walls[tool], peaks[tool]))
            lines.append(f"- {size:,} lines, {tool}: {runs}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")


CSV_FIELDS = ("run_lines", "repeats", "trec_eval_wall_s", "metrics_lib_wall_s",
              "trec_eval_peak_mib", "metrics_lib_peak_mib", "identical_output",
              "load_before", "load_after")


def write_csv(out: pathlib.Path, results: dict[int, dict], commit: str) -> None:
    """The medians as CSV in the package's data (the at-scale chapter reads it there,
    so that it runs from an installed package too); a first line says how it was made."""
    lines = [f"# benchmarks/dropin.py at commit {commit}, "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; median of alternating "
             f"fresh processes; targets: wall factor {WALL_50K:g} at 50,000 lines, below "
             f"trec_eval from 500,000, memory slack {MEMORY_SLACK_MIB:g} MiB",
             ",".join(CSV_FIELDS)]
    for size in sorted(results):
        r = results[size]
        lines.append(",".join(str(v) for v in (
            size, r["repeats"], f"{r['wall']['trec_eval']:.3f}", f"{r['wall']['metrics_lib']:.3f}",
            f"{r['peak']['trec_eval']:.1f}", f"{r['peak']['metrics_lib']:.1f}", r["identical"],
            f"{r['load'][0]:.2f}", f"{r['load'][1]:.2f}")))
    out.write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES),
                        help="comma-separated run line counts (multiples of 100)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--repeats-10m", type=int, default=5,
                        help="repeats for sizes of 10,000,000 lines and more")
    parser.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(), "dropin_benchmark"))
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "dropin.md"))
    parser.add_argument("--csv", default=str(ROOT / "metrics_lib" / "data" / "benchmarks" /
                                             "dropin.csv"))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if any(s <= 0 or s % DEPTH for s in sizes):
        parser.error(f"--sizes: each size must be a positive multiple of {DEPTH}")
    scratch = pathlib.Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    binary = build_trec_eval(scratch)
    # pip byte-compiles a package when it installs it; a checkout run with
    # PYTHONDONTWRITEBYTECODE=1 (or a read-only tree) would compile every module
    # in every run instead (about 60 ms here), which no installed user pays
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "metrics_lib")],
                   check=True)
    results = {}
    for size in sizes:
        print(f"{size:,} lines", flush=True)
        qrels, run = write_files(scratch, size)
        repeats = args.repeats_10m if size >= 10_000_000 else args.repeats
        results[size] = measure(binary, qrels, run, repeats)
        write_table(pathlib.Path(args.out), results)
        write_csv(pathlib.Path(args.csv), results, subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
            text=True).stdout.strip())
    print(pathlib.Path(args.out).read_text())
    return 0 if all(r["identical"] for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
