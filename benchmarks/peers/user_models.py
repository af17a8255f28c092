"""Reference values of the user-model metrics (ERR, RBP) and Judged@k, from the peers.

Run it in a virtualenv with ir-measures (and perl on the PATH), not in the
project's venv::

    python3 -m venv /tmp/venv-um && /tmp/venv-um/bin/pip install ir-measures==0.4.3
    /tmp/venv-um/bin/python benchmarks/peers/user_models.py

It writes a seeded random run and qrels (TREC format) and, per user and
cut-off, ir-measures' ``ERR@k``, which ir-measures 0.4.3 computes with the
``gdeval.pl`` it ships (``ir_measures/providers/gdeval_provider.py``: perl
``bin/gdeval.pl qrels run k``), and ir-measures' ``RBP(p=0.8, rel=r)``, which it
computes with cwl_eval 1.0.12 (``providers/cwl_eval.py``: grades at or above
``rel`` are gain 1, the others 0). ``tests/test_user_model_metrics.py`` reads
the files. The data has what real runs have: tied scores (gdeval orders them
by docno descending), grades -1 to 4 (gdeval's largest), lists from 0 to 15
items (shorter and longer than the cut-offs), users without a positive grade
and users without judgements.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "golden" / "user_models"
KS = (1, 3, 5, 10, 20)
N_USERS = 300
SEED = 29
P = 0.8
RELS = (1, 3)


def corpus(seed: int = SEED):
    """(run rows, qrels rows): (user, item, score) and (user, item, grade)."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for user in range(1, N_USERS + 1):
        pool = rng.choice(60, size=30, replace=False)
        length = int(rng.integers(0, 16))
        # few distinct scores: many ties, broken by docno in gdeval and trec_eval
        scores = rng.integers(0, 4, size=length) / 2
        run += [(user, f"d{item}", float(score)) for item, score in zip(pool[:length], scores)]
        kind = rng.random()
        if kind < 0.1:
            continue  # no judgement at all
        n_judged = int(rng.integers(1, 12))
        judged = rng.choice(pool, size=n_judged, replace=False)
        top = 0 if kind < 0.2 else 4  # a tenth of the users: no positive grade
        grades = rng.integers(-1, top + 1, size=n_judged)
        qrels += [(user, f"d{item}", int(grade)) for item, grade in zip(judged, grades)]
    return run, qrels


def main() -> None:
    import ir_measures as irm

    run, qrels = corpus()
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "run.txt", "w") as f:
        for rank, (user, item, score) in enumerate(run):
            f.write(f"{user} Q0 {item} {rank} {score} run\n")
    with open(OUT / "qrels.txt", "w") as f:
        for user, item, grade in qrels:
            f.write(f"{user} 0 {item} {grade}\n")
    measures = [irm.ERR @ k for k in KS]
    qrels_iter = list(irm.read_trec_qrels(str(OUT / "qrels.txt")))
    run_iter = list(irm.read_trec_run(str(OUT / "run.txt")))
    rows = sorted((int(m.query_id), m.measure.NAME, m.measure["cutoff"], m.value)
                  for m in irm.iter_calc(measures, qrels_iter, run_iter))
    with open(OUT / "err_gdeval.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["user", "k", "err"])
        out.writerows((user, k, f"{value:.5f}") for user, _, k, value in rows)
    print(f"{len(rows)} values of ERR@k by gdeval (ir-measures {irm.__version__})")
    measures = [irm.RBP(p=P, rel=rel) for rel in RELS]
    rows = sorted((int(m.query_id), m.measure["rel"], m.value)
                  for m in irm.iter_calc(measures, qrels_iter, run_iter))
    with open(OUT / "rbp_cwl.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["user", "rel", "p", "rbp"])
        out.writerows((user, rel, P, repr(float(value))) for user, rel, value in rows)
    print(f"{len(rows)} values of RBP by cwl_eval")
    residuals(OUT)
    measures = [irm.Judged @ k for k in KS] + [irm.Judged]
    rows = sorted((int(m.query_id), str(m.measure), m.value)
                  for m in irm.iter_calc(measures, qrels_iter, run_iter))
    with open(OUT / "judged_irm.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["user", "measure", "judged"])
        out.writerows((user, name, repr(float(value))) for user, name, value in rows)
    print(f"{len(rows)} values of Judged@k by ir-measures")


def residuals(out_dir: Path) -> None:
    """cwl_eval's own residual of RBP (``cwl-eval -r``, 4 decimals), lists in file order.

    The residual does not depend on the gains, only on which items are
    judged; cwl-eval takes gains in [0, 1], so the grades are given as
    ``grade >= 1``. It reads each list in the run file's order.
    """
    import subprocess
    import sys

    gains = out_dir / "gains_binary.tmp"
    with open(out_dir / "qrels.txt") as f, open(gains, "w") as g:
        for line in f:
            user, zero, item, grade = line.split()
            g.write(f"{user} {zero} {item} {int(int(grade) >= 1)}\n")
    metrics = out_dir / "metrics.tmp"
    metrics.write_text(f"RBPCWLMetric({P})\n")
    cwl = Path(sys.executable).parent / "cwl-eval"
    text = subprocess.run([str(cwl), str(gains), str(out_dir / "run.txt"), "-m",
                           str(metrics), "-r"], capture_output=True, text=True,
                          check=True).stdout
    gains.unlink()
    metrics.unlink()
    for log in (Path("cwl.log"), out_dir / "cwl.log"):  # cwl-eval's own log file
        log.unlink(missing_ok=True)
    with open(out_dir / "rbp_resid_cwl.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["user", "p", "rbp", "residual"])
        for line in text.splitlines():
            fields = line.split()
            # topic, name, EU, ETU, EC, ETC, ED, then the residuals in that order
            out.writerow((int(fields[0]), P, fields[2], fields[7]))
    print(f"{len(text.splitlines())} residuals of RBP by cwl-eval -r")


if __name__ == "__main__":
    main()
