"""Reference values of the intent-aware metrics, from ndeval through pyndeval.

Run it in a virtualenv with pyndeval (a C extension that compiles ndeval 4.5,
the TREC Web track's evaluation program), not in the project's venv::

    python3 -m venv /tmp/venv-nd && /tmp/venv-nd/bin/pip install pyndeval==0.0.8
    /tmp/venv-nd/bin/python benchmarks/peers/intents.py

It writes a seeded random run and qrels by subtopic (ndeval's format,
``topic subtopic docno judgment``) and, per user, cut-off and relevance
level, pyndeval's ``alpha-nDCG@k``, ``ERR-IA@k``, ``P-IA@k`` and ``strec@k``
(alpha = 0.5; ir-measures 0.4.3 gets its ``alpha_nDCG``, ``ERR_IA``,
``P_IA`` and ``StRecall`` from the same calls,
``ir_measures/providers/pyndeval_provider.py``), and in
``ndeval_alpha.csv`` alpha-nDCG and ERR-IA with other alphas.
``tests/test_intent_metrics.py`` and ``tests/test_metric_parameters.py``
read the files. The data has what real
runs have: tied scores (pyndeval orders them by docno ascending,
``pyndeval/__init__.py``, ``_coerce_run_iter``), graded judgements 0 to 3
(pyndeval keeps ``relevance >= relevance_level``), one to six subtopics per
topic, subtopics without a relevant document, topics without any, lists of
0 to 15 documents (shorter and longer than the cut-offs) and documents
relevant to several subtopics. Docnos have one width, so that ``strcmp``
order, ndeval's, is the order of the ids as strings and as integers.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "golden" / "intents"
KS = (1, 2, 3, 5, 10, 20)  # ndeval computes up to rank 20
LEVELS = (1, 2)
N_USERS = 300
SEED = 2908
MEASURES = ("alpha-nDCG", "ERR-IA", "P-IA", "strec")


def corpus(seed: int = SEED):
    """(run rows, qrels rows): (user, docno, score) and (user, subtopic, docno, grade)."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for user in range(1, N_USERS + 1):
        pool = rng.choice(np.arange(100, 160), size=30, replace=False)
        length = int(rng.integers(0, 16))
        scores = rng.integers(0, 4, size=length) / 2  # few distinct scores: ties
        run += [(user, f"d{item}", float(s)) for item, s in zip(pool[:length], scores)]
        kind = rng.random()
        if kind < 0.05:
            continue  # no judgement at all
        n_intents = int(rng.integers(1, 7))
        top = 0 if kind < 0.15 else 3  # a tenth of the users: nothing relevant
        for intent in rng.choice(np.arange(1, 9), size=n_intents, replace=False):
            n_judged = int(rng.integers(1, 10))
            judged = rng.choice(pool, size=n_judged, replace=False)
            # some subtopics have no relevant document at all
            grades = rng.integers(0, top + 1 if rng.random() < 0.8 else 1, size=n_judged)
            qrels += [(user, int(intent), f"d{item}", int(g)) for item, g in zip(judged, grades)]
    return run, qrels


def main() -> None:
    import pyndeval

    run, qrels = corpus()
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "run.txt", "w") as f:
        f.writelines(f"{u} Q0 {d} 0 {s!r} r\n" for u, d, s in run)
    with open(OUT / "qrels.txt", "w") as f:
        f.writelines(f"{u} {i} {d} {g}\n" for u, i, d, g in qrels)
    names = [f"{m}@{k}" for m in MEASURES for k in KS]
    # pyndeval groups the run by consecutive topic, and the topics are strings
    ndeval_run = [(str(u), d, s) for u, d, s in run]
    ndeval_qrels = [(str(u), str(i), d, g) for u, i, d, g in qrels]
    with open(OUT / "ndeval.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["user", "level", "measure", "k", "value"])
        for level in LEVELS:
            evaluator = pyndeval.RelevanceEvaluator(ndeval_qrels, names,
                                                    relevance_level=level)
            for user, values in sorted(evaluator.evaluate(ndeval_run).items(),
                                       key=lambda kv: int(kv[0])):
                for name in names:
                    measure, k = name.split("@")
                    writer.writerow([user, level, measure, k, repr(values[name])])
    other_alphas(ndeval_run, ndeval_qrels)


# alpha_ndcg(alpha=...)@k and err_ia(alpha=...)@k: ndeval's -alpha (pyndeval's
# alpha=, set by _pyndeval.set_global_alpha_beta before each evaluation)
ALPHAS = (0.25, 0.75, 1.0)
ALPHA_KS = (3, 10, 20)  # not 1: ndeval's ERR-IA@1 skips its normalisation


def other_alphas(ndeval_run, ndeval_qrels) -> None:
    """``ndeval_alpha.csv``: alpha-nDCG@k and ERR-IA@k at relevance level 1, other alphas."""
    import pyndeval

    names = [f"{m}@{k}" for m in ("alpha-nDCG", "ERR-IA") for k in ALPHA_KS]
    with open(OUT / "ndeval_alpha.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["user", "alpha", "measure", "k", "value"])
        for alpha in ALPHAS:
            evaluator = pyndeval.RelevanceEvaluator(ndeval_qrels, names, alpha=alpha)
            for user, values in sorted(evaluator.evaluate(ndeval_run).items(),
                                       key=lambda kv: int(kv[0])):
                for name in names:
                    measure, k = name.split("@")
                    writer.writerow([user, alpha, measure, k, repr(values[name])])


if __name__ == "__main__":
    main()
