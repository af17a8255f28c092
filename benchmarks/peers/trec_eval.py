"""trec_eval's per-user values through pytrec_eval-terrier (RelevanceEvaluator).

Source: pytrec_eval-terrier, src/pytrec_eval.cpp, RelevanceEvaluator.evaluate,
which runs trec_eval 9.0.8's measure code (m_P.c, m_recall.c, m_success.c,
m_recip_rank.c, m_map.c, m_map_cut.c, m_ndcg.c, m_ndcg_cut.c, m_Rprec.c,
m_num_rel_ret.c); ties are ordered by trec_eval's own rule
(form_res_rels.c, comp_sim_docno: score descending, then docno compared with
strcmp, descending), so tie order is reproducible. The comparison is in
float32: pytrec_eval stores each score (PyFloat_AsDouble, pytrec_eval.cpp
ResultRankingBuilder.ProcessQueryDocumentPair) in trec_eval 9's
TEXT_RESULTS.sim, declared ``float`` (usnistgov/trec_eval trec_format.h,
commit 8bef1e9e); trec_eval 10.0 declares it ``double``. So float32-equal
scores tie in pytrec_eval and not in the trec_eval 10.0 binary (checked by
running both: 22 values of the tied corpus differ, none of the untied one).
Optional check: ``--binary PATH`` compares every value with the trec_eval
command line (``trec_eval -q -m all_trec``) on the same files.
"""
from __future__ import annotations

import argparse
import math
import subprocess
import tempfile
from importlib.metadata import version

import pytrec_eval

from _common import KS, SCORES, Golden, load_recs, load_truth

PEER = "trec_eval"
KSTR = ",".join(map(str, KS))
MEASURES = {f"P.{KSTR}", f"recall.{KSTR}", f"success.{KSTR}", "recip_rank", "map",
            f"map_cut.{KSTR}", "ndcg", f"ndcg_cut.{KSTR}", "Rprec", "num_rel_ret", "num_ret"}
# options passed to RelevanceEvaluator besides the measures (defaults first)
VARIANTS = [
    {},
    {"relevance_level": 2},
    {"judged_docs_only_flag": True},
]


def split(name: str):
    """'P_5' -> ('P', 5); 'map' -> ('map', None)."""
    for base in ("P", "recall", "success", "map_cut", "ndcg_cut"):
        if name.startswith(base + "_") and name[len(base) + 1:].isdigit():
            return base, int(name[len(base) + 1:])
    return name, None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", help="trec_eval executable to cross-check against")
    args = ap.parse_args()
    truth = load_truth()
    qrels = {str(u): {str(i): g for i, g in d.items()} for u, d in truth.items()}
    g = Golden(PEER, f"pytrec_eval-terrier {version('pytrec_eval-terrier')}",
               "pytrec_eval-terrier src/pytrec_eval.cpp RelevanceEvaluator.evaluate "
               "(trec_eval measure code m_*.c)")
    for scores in SCORES:
        recs = load_recs(scores)
        run = {str(u): {str(i): s for i, s in rows} for u, rows in recs.items()}
        for opt in VARIANTS:
            ev = pytrec_eval.RelevanceEvaluator(qrels, MEASURES, **opt)
            res = ev.evaluate(run)
            for q, ms in res.items():
                for name, val in ms.items():
                    metric, k = split(name)
                    if opt and metric in ("num_ret",):
                        continue
                    g.add(scores, metric, opt, k, int(q), val)
            if args.binary and not opt:
                check_binary(args.binary, qrels, run, res, scores)
    for (metric, opt, k) in list(g.entries):
        g.note(metric, __import__("json").loads(opt), int(k) if k else None,
               ties="trec_eval order on float32 scores: score (converted to float32) descending, then item id as text (strcmp) descending",
               ties_reproducible=True,
               note="Users only in the truth table or only in the predictions are not reported "
                    "(trec_eval without -c evaluates the queries present in both). Users whose "
                    "judged items are all below the relevance level get 0 (not NaN). Scores are "
                    "converted to float32 before sorting in pytrec_eval-terrier 0.5.11 "
                    "(float32-equal scores tie and are ordered by item id as text; the "
                    "trec_eval 10.0 binary compares doubles and differs there). Grades >= relevance_level (default 1) are relevant; ndcg gains are "
                    "the raw grades.")
    g.write()


def check_binary(binary, qrels, run, res, scores) -> None:
    with tempfile.TemporaryDirectory() as d:
        with open(f"{d}/qrels", "w") as f:
            for q, docs in qrels.items():
                for doc, gr in docs.items():
                    f.write(f"{q} 0 {doc} {gr}\n")
        with open(f"{d}/run", "w") as f:
            # Only common users go in. trec_eval 10.0 (trec_eval.c, main) stops
            # with exit 4 and "result qid 'X' not found in qrels" when a qrels
            # query X has no results, unless -c; so -c is used below and the
            # zero-filled truth-only users it adds are skipped in the check.
            for q, docs in run.items():
                if q not in qrels:
                    continue
                for doc, s in docs.items():
                    f.write(f"{q} Q0 {doc} 0 {s!r} r\n")
        ms = " ".join(f"-m {m}" for m in sorted(MEASURES))
        out = subprocess.run(f"{binary} -q -c {ms} {d}/qrels {d}/run", shell=True,
                             capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(out.stderr)
        out = out.stdout
    n = bad = 0
    for line in out.splitlines():
        name, q, val = line.split()
        if q == "all" or name in ("runid", "num_q") or q not in res:
            continue
        n += 1
        if not math.isclose(float(val), res[q][name], abs_tol=1e-4):
            bad += 1
            if bad <= 3:
                print("differs:", name, q, val, res[q][name])
    print(f"trec_eval binary check ({scores} scores): {n} values, {bad} differ by more than 1e-4 "
          "(the binary prints 4 decimals)")
    # pytrec_eval-terrier orders scores after a conversion to float32
    # (float32-equal scores tie and fall back to the item id as text); the
    # trec_eval 10.0 binary compares them as double. Only the untied corpus
    # (integer scores) must agree exactly.
    assert bad == 0 or scores == "tied"


if __name__ == "__main__":
    main()
