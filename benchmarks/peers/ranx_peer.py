"""ranx per-user values: ranx.evaluate(qrels, run, metrics, return_mean=False).

Source: ranx, ranx/meta/evaluate.py (evaluate) and ranx/metrics/*.py (hits,
hit_rate, precision, recall, reciprocal_rank, average_precision, ndcg, r_precision); the run is sorted once, by ranx/data_structures/run.py
Run.sort -> ranx/data_structures/common.py sort_dict_by_value (numba
np.argsort of the negated scores, in dict insertion order; numba's argsort is
a quicksort that only insertion-sorts lists of at most 15 items, which is
stable, and partitions longer ones, which is not), so the order of tied scores
is the file order on lists of at most 15 items and implementation-defined beyond
(numba 0.68.1, numba/misc/quicksort.py, SMALL_QUICKSORT).
"""
from __future__ import annotations

from importlib.metadata import version

import numpy as np
from ranx import Qrels, Run, evaluate

from _common import KS, SCORES, Golden, load_recs, load_truth

PEER = "ranx"
BASES = ["hits", "hit_rate", "precision", "recall", "mrr", "map", "ndcg", "ndcg_burges",
         "r-precision"]
NO_K = ["r-precision"]


def metric_names():
    out = []
    for b in BASES:
        out.append((b, None, {}, b))
        if b not in NO_K:
            for k in KS:
                out.append((b, k, {}, f"{b}@{k}"))
    for k in KS:  # relevance level 2 (ranx's "-l2" suffix)
        for b in ("precision", "recall", "ndcg", "map"):
            out.append((b, k, {"rel_lvl": 2}, f"{b}@{k}-l2"))
    return out


def main() -> None:
    truth = load_truth()
    g = Golden(PEER, version("ranx"), "ranx ranx/meta/evaluate.py evaluate(return_mean=False); "
               "ranx/metrics/*.py")
    qrels = Qrels.from_dict({str(u): {str(i): gr for i, gr in d.items()} for u, d in truth.items()})
    names = metric_names()
    for scores in SCORES:
        recs = load_recs(scores)
        run = Run.from_dict({str(u): {str(i): s for i, s in rows} for u, rows in recs.items()})
        # make_comparable=True (not the default) is needed: without it ranx
        # refuses qrels and run with different query ids.
        evaluate(qrels, run, [n for *_, n in names], return_mean=False, make_comparable=True)
        # per-query values as ranx stores them (evaluate, save_results_in_run=True)
        for base, k, opt, name in names:
            for q, v in run.scores[name].items():
                g.add(scores, name, {"make_comparable": True, **opt}, k, int(q), v)
    for (metric, opt, k) in list(g.entries):
        import json
        g.note(metric, json.loads(opt), int(k) if k else None,
               ties="ranx sorts each run with numba np.argsort of -score (unstable quicksort; "
                    "ranx/data_structures/common.py sort_dict_by_value); the order of equal "
                    "scores is implementation-defined (not reproducible)",
               ties_reproducible=False,
               note="make_comparable=True: users only in the predictions are dropped, users only "
                    "in the truth table get an empty run (0). Users with only grade-0 judgements: "
                    "see n_nan. Relevant = grade >= 1 (>= 2 for the -l2 variants); ndcg gains are "
                    "the raw grades (Jarvelin), ndcg_burges 2^grade - 1.")
    g.write()


if __name__ == "__main__":
    main()
