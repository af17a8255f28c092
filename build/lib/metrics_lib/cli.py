"""Command line: ``python -m metrics_lib QRELS RUN -m ndcg@10 map mrr``.

Reads a TREC qrels and a TREC run file, evaluates with
:func:`metrics_lib.evaluate` and prints trec_eval's three-column layout
(``measure  query  value``): one line per query with ``-q``, then one line
per measure for the mean over queries (query id ``all``).
"""

from __future__ import annotations

import argparse
import json
import sys

from .evaluate import MISSING_POLICIES, TIES, evaluate
from .trec import read_trec_qrels, read_trec_run

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m metrics_lib",
        description="Evaluate a TREC run against TREC qrels with metrics_lib.evaluate.",
        epilog="Metric names: precision@k (P_k), recall@k, f1@k, hit@k (success_k), "
               "mrr (recip_rank), map, map@k (map_cut_k), ndcg, ndcg@k (ndcg_cut_k), "
               "dcg@k. Queries in the qrels but not in the run score 0 (trec_eval -c) "
               "unless --skip-missing is given; queries only in the run are ignored.")
    parser.add_argument("qrels", help="qrels file: qid iter docno relevance")
    parser.add_argument("run", help="run file: qid Q0 docno rank score tag")
    parser.add_argument("-m", "--metrics", nargs="+", required=True, metavar="METRIC",
                        help="one or more metric names, e.g. ndcg@10 map mrr")
    parser.add_argument("-q", "--per-query", action="store_true",
                        help="also print one line per query and measure")
    parser.add_argument("--format", choices=("tsv", "json"), default="tsv",
                        help="tsv: 'measure<TAB>query<TAB>value' lines (default); "
                             "json: one JSON object")
    parser.add_argument("-l", "--relevance-level", type=float, default=1.0,
                        help="minimum grade that counts as relevant (default 1)")
    parser.add_argument("--skip-missing", action="store_true",
                        help="leave out queries absent from the run (trec_eval "
                             "without -c) instead of scoring them 0")
    parser.add_argument("--ties", choices=TIES, default="item_desc",
                        help="order of documents with equal scores (default "
                             "item_desc, as trec_eval)")
    parser.add_argument("--digits", type=int, default=4,
                        help="decimals printed in tsv output (default 4)")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        truth = read_trec_qrels(args.qrels)
        run = read_trec_run(args.run)
        result = evaluate(run, truth, args.metrics,
                          relevance_level=args.relevance_level,
                          missing=MISSING_POLICIES[1] if args.skip_missing else "zero",
                          ties=args.ties)
    except (OSError, ValueError, TypeError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 1
    means = result.mean()
    if args.format == "json":
        payload = {"num_queries": int(len(result)),
                   "mean": {name: float(means[name]) for name in result.columns}}
        if args.per_query:
            payload["per_query"] = {
                str(query): {name: float(value) for name, value in row.items()}
                for query, row in result.iterrows()}
        json.dump(payload, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    width = max(len(name) for name in result.columns)
    lines = []
    if args.per_query:
        for query, row in result.iterrows():
            for name, value in row.items():
                lines.append(f"{name:<{width}}\t{query}\t{value:.{args.digits}f}")
    lines.append(f"{'num_q':<{width}}\tall\t{len(result)}")
    for name in result.columns:
        lines.append(f"{name:<{width}}\tall\t{means[name]:.{args.digits}f}")
    print("\n".join(lines))
    return 0
