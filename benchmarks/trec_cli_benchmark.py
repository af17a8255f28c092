"""``python -m metrics_lib`` against the trec_eval binary on a 10,000,000-line run.

Set-up: builds trec_eval 10.0 from the unmodified source in ``third_party/``
(needs ``cc`` and ``make``), writes a seeded run of 100,000 queries x 100
documents (10,000,000 lines) and graded qrels (20 judged documents per query,
grades 0-3, 4 of them retrieved on average in the top 10) into a scratch folder.
Then it runs both tools, alternating, 5 times each, with the same five measures
(``-m map_cut.100 -m ndcg_cut.10 -m recip_rank -m P.10 -m recall.10``), under
``/usr/bin/time -v`` (wall time and maximum resident set size), checks that
both print the same bytes, and writes ``metrics_lib/data/benchmarks/trec_cli.csv`` (the at-scale chapter reads it).

Usage: ``python benchmarks/trec_cli_benchmark.py [--scratch DIR] [--repeats 5]``.
Not part of ``make test`` (about 15 minutes on 2 cores).
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
import tarfile
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
TARBALL = ROOT / "third_party" / "trec_eval-10.0-f425365.tar.gz"
MEASURES = ["-m", "map_cut.100", "-m", "ndcg_cut.10", "-m", "recip_rank",
            "-m", "P.10", "-m", "recall.10"]
N_QUERIES, DEPTH, N_JUDGED = 100_000, 100, 20


def build_trec_eval(scratch: pathlib.Path) -> pathlib.Path:
    source = scratch / "trec_eval_src"
    if not (source / "trec_eval").is_file():
        source.mkdir(parents=True, exist_ok=True)
        with tarfile.open(TARBALL) as tar:
            tar.extractall(source, filter="data")
        subprocess.run(["make", "-s", "trec_eval"], cwd=source, check=True,
                       stdout=subprocess.DEVNULL)
    return source / "trec_eval"


def write_files(scratch: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    run_path, qrels_path = scratch / "run.txt", scratch / "qrels.txt"
    if run_path.is_file() and qrels_path.is_file():
        return qrels_path, run_path
    rng = np.random.default_rng(20261123)
    with open(run_path, "w") as run, open(qrels_path, "w") as qrels:
        for start in range(0, N_QUERIES, 1000):
            block_run, block_qrels = [], []
            for q in range(start, start + 1000):
                docs = rng.choice(1_000_000, size=DEPTH + N_JUDGED, replace=False)
                scores = np.round(np.sort(rng.random(DEPTH))[::-1] * 100, 2)  # ties
                block_run += [f"q{q} Q0 doc{d} {r + 1} {s:.2f} bench\n"
                              for r, (d, s) in enumerate(zip(docs[:DEPTH], scores))]
                # judged: 4 of the top 10, 6 further down, 10 never retrieved
                judged = np.concatenate([rng.choice(docs[:10], 4, replace=False),
                                         rng.choice(docs[10:DEPTH], 6, replace=False),
                                         docs[DEPTH:DEPTH + 10]])
                grades = rng.integers(0, 4, size=len(judged))
                block_qrels += [f"q{q} 0 doc{d} {g}\n" for d, g in zip(judged, grades)]
            run.writelines(block_run)
            qrels.writelines(block_qrels)
    return qrels_path, run_path


def timed(command: list[str]) -> tuple[float, int, bytes]:
    """Wall seconds and max RSS (KiB) from /usr/bin/time -v, and stdout."""
    done = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True,
                          check=True, cwd=ROOT)
    log = done.stderr.decode()
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", log).group(1)
    seconds = 0.0
    for part in wall.split(":"):
        seconds = seconds * 60 + float(part)
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1))
    return seconds, rss, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", default=os.path.join(tempfile.gettempdir(),
                                                          "trec_cli_benchmark"))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=str(ROOT / "metrics_lib" / "data" / "benchmarks" / "trec_cli.csv"))
    args = parser.parse_args()
    scratch = pathlib.Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    binary = build_trec_eval(scratch)
    qrels, run = write_files(scratch)
    env_python = sys.executable
    tools = {"trec_eval": [str(binary), *MEASURES, str(qrels), str(run)],
             "metrics_lib": [env_python, "-m", "metrics_lib", *MEASURES, str(qrels), str(run)]}
    rows, outputs = [], {}
    load_before = os.getloadavg()
    for repeat in range(args.repeats):
        order = list(tools) if repeat % 2 == 0 else list(tools)[::-1]  # alternate
        for tool in order:
            seconds, rss, stdout = timed(tools[tool])
            outputs.setdefault(tool, stdout)
            rows.append((tool, repeat, seconds, rss))
            print(f"{tool:12s} run {repeat}: {seconds:7.2f} s, max RSS {rss / 1024:8.1f} MiB",
                  flush=True)
            partial = ["tool,repeat,wall_seconds,max_rss_mib"] + [
                f"{t},{r},{s:.3f},{k / 1024:.1f}" for t, r, s, k in rows]
            partial.append(f"# partial: {len(rows)} runs so far; load average before "
                           f"{load_before[0]:.2f}, now {os.getloadavg()[0]:.2f}")
            pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
            pathlib.Path(args.out).write_text("\n".join(partial) + "\n")
    load_after = os.getloadavg()
    same = outputs["trec_eval"] == outputs["metrics_lib"]
    lines = ["tool,repeat,wall_seconds,max_rss_mib"]
    lines += [f"{t},{r},{s:.3f},{k / 1024:.1f}" for t, r, s, k in rows]
    summary = {}
    for tool in tools:
        walls = [s for t, _, s, _ in rows if t == tool]
        rsses = [k for t, _, _, k in rows if t == tool]
        summary[tool] = (statistics.median(walls), max(rsses) / 1024)
        lines.append(f"{tool},median,{summary[tool][0]:.3f},{summary[tool][1]:.1f}")
    lines.append(f"# run lines {N_QUERIES * DEPTH}, qrels lines {N_QUERIES * N_JUDGED}; "
                 f"identical output: {same}; load average before {load_before[0]:.2f}, "
                 f"after {load_after[0]:.2f}; {os.cpu_count()} CPUs; "
                 f"Python {platform.python_version()}")
    pathlib.Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    pathlib.Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines[-3:]))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
