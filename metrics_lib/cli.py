"""Command line: ``python -m metrics_lib [-q] [-c] [-m MEASURE] QRELS RUN``.

A drop-in for trec_eval 10.0 (usnistgov/trec_eval, ``trec_eval.c``) on the
measures this library computes: same options, same measure names, same
output (``%-22s\\t%s\\t%6.4f`` lines, ``runid`` and ``num_q`` first), same
queries, same tie order. With no ``-m`` it prints trec_eval's default
("official") table. The values come from :func:`metrics_lib.evaluate`.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
import pandas as pd

from .evaluate import TIES, evaluate
from .trec import _qrels_columns, _run_columns, _source

__all__ = ["main", "build_parser"]

_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)       # m_P.c, m_recall.c, ...
_RECALLS = tuple(i / 10 for i in range(11))              # m_iprec_at_recall.c
# trec_eval's measure table order (measures.c, te_trec_measures), restricted
# to the measures offered here; value: (library metric, default parameters).
_TABLE = {
    "runid": None, "num_q": None, "num_ret": "num_ret", "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret", "map": "map", "gm_map": "map", "Rprec": "rprec",
    "bpref": "bpref", "recip_rank": "mrr", "iprec_at_recall": _RECALLS, "P": _CUTS,
    "recall": _CUTS, "ndcg": "ndcg", "ndcg_cut": _CUTS, "map_cut": _CUTS,
    "success": (1, 5, 10),
}
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
             "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")
_COUNTS = ("num_ret", "num_rel", "num_rel_ret")
_CUT_LIBRARY = {"P": "P@{}", "recall": "recall@{}", "ndcg_cut": "ndcg@{}",
                "map_cut": "map@{}", "success": "hit@{}"}
_MIN_GEO_MEAN = 0.00001  # m_gm_map.c, MIN_GEO_MEAN


class _Refused(Exception):
    """An error trec_eval reports with this exit code."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


def _atol(text: str) -> int:
    """C's atol: the leading integer of ``text`` (0 if none)."""
    text = text.strip()
    sign, digits = 1, ""
    if text[:1] in "+-":
        sign, text = (-1 if text[0] == "-" else 1), text[1:]
    for char in text:
        if not char.isdigit():
            break
        digits += char
    return sign * int(digits) if digits else 0


def _parse_measures(specs) -> dict[str, tuple]:
    """``-m`` arguments -> {trec_eval measure: parameters} in table order."""
    chosen: dict[str, tuple | None] = {}
    for spec in specs:
        name, _, params = spec.partition(".")
        names = _OFFICIAL if name == "official" else (name,)
        for one in names:
            if one not in _TABLE:
                offered = ", ".join(["official", *_TABLE])
                raise _Refused(f"trec_eval: illegal measure '{spec}' (this drop-in "
                               f"offers: {offered})", 1)
            default = _TABLE[one]
            if params and one == name and isinstance(default, tuple):
                if one == "iprec_at_recall":
                    values = tuple(float(p) for p in params.split(",") if p)
                else:
                    values = tuple(_atol(p) for p in params.split(",") if p)
                chosen[one] = tuple(sorted(set(values)))
            elif params and one == name:
                raise _Refused(f"trec_eval: illegal measure '{spec}' ({one} takes "
                               "no parameters)", 1)
            else:
                chosen.setdefault(one, default if isinstance(default, tuple) else None)
    return {name: chosen[name] for name in _TABLE if name in chosen}


def _columns(measures) -> list[tuple[str, str]]:
    """(printed name, library metric) for every per-query value, in order."""
    out = []
    for name, params in measures.items():
        if name in ("runid", "num_q"):
            continue
        if name == "iprec_at_recall":
            out += [(f"iprec_at_recall_{r:3.2f}", f"iprec_at_recall_{r:3.2f}")
                    for r in params]
        elif name in _CUT_LIBRARY:
            out += [(f"{name}_{k}", _CUT_LIBRARY[name].format(k)) for k in params]
        else:
            out.append((name, _TABLE[name]))
    return out


def _as_latin1(array):
    import pyarrow as pa

    return pa.array([value.encode("utf-8").decode("latin-1")
                     for value in array.to_pylist()], pa.string()) if not isinstance(
        array, pa.ChunkedArray) else _as_latin1(pa.array(array.to_pylist(), pa.string()))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m metrics_lib",
        usage="python -m metrics_lib [-h] [-q] [-c] [-n] [-J] [-l N] [-M N] "
              "[-m MEASURE[.PARAMS]]... QRELS RUN",
        description="trec_eval 10.0 as a drop-in: same options, measure names and "
                    "output, values from metrics_lib.evaluate. With no -m it prints "
                    "trec_eval's default table (-m official).",
        epilog="Measures: official, runid, num_q, num_ret, num_rel, num_rel_ret, map, "
               "gm_map, Rprec, bpref, recip_rank, iprec_at_recall[.0.1,...], "
               "P[.5,10,...], recall[.K,...], ndcg, ndcg_cut[.K,...], map_cut[.K,...], "
               "success[.K,...]; bare P, recall, ndcg_cut and map_cut mean the cut-offs "
               "5,10,15,20,30,100,200,500,1000 as in trec_eval. As in trec_eval, a "
               "query of the qrels that the run lacks is an error unless -c is given; "
               "-c scores it 0, which is evaluate(..., missing=\"zero\"): evaluate's "
               "default is trec_eval -c with a warning, NOT trec_eval's default "
               "(missing=\"raise\"). Queries only in the "
               "run are ignored. Equal scores are ordered by document id, descending, "
               "bytewise (trec_eval's order). Differences from trec_eval: a score or "
               "grade that is not a number, and a nan score, are refused with "
               "file:line where trec_eval reads them as 0.")
    parser.add_argument("qrels", help="qrels file: qid iter docno relevance ('-': stdin; "
                                      "gzip recognised)")
    parser.add_argument("run", help="run file: qid Q0 docno rank score tag ('-': stdin; "
                                    "gzip recognised)")
    parser.add_argument("-m", dest="measures", action="append", default=[],
                        metavar="MEASURE", help="measure[.params], repeatable "
                                                "(default: official)")
    parser.add_argument("-q", action="store_true", help="also print every query's values")
    parser.add_argument("-c", action="store_true",
                        help="average over every qrels query, scoring those the run "
                             "lacks 0 (evaluate's missing='zero')")
    parser.add_argument("-n", action="store_true", help="no summary lines (with -q)")
    parser.add_argument("-J", action="store_true",
                        help="judged documents only: drop unjudged documents from the run")
    parser.add_argument("-l", default="1", metavar="N",
                        help="lowest grade that counts as relevant (default 1; 0 makes "
                             "every judged document relevant)")
    parser.add_argument("-M", default=None, metavar="N",
                        help="only the top N documents of each query")
    return parser


def _ordered_codes(run_ids, qrels_ids):
    """int64 codes shared by both files that order as the ids' bytes do."""
    import pyarrow as pa
    import pyarrow.compute as pc

    parts = []
    for ids in (run_ids, qrels_ids):
        chunks = ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]
        chunks = [c if pa.types.is_dictionary(c.type) else pc.dictionary_encode(c)
                  for c in chunks]
        if len(chunks) > 1:  # one dictionary for every chunk
            column = pa.table({"x": pa.chunked_array(chunks)}).unify_dictionaries()
            chunks = column.column("x").chunks
        parts.append(chunks)
    dictionaries = [chunks[0].dictionary for chunks in parts if chunks]
    values = pc.unique(pa.concat_arrays(dictionaries)) if dictionaries else pa.array([], pa.string())
    values = values.take(pc.array_sort_indices(values))  # bytewise, as strcmp
    codes = []
    for chunks in parts:
        if not chunks:
            codes.append(np.empty(0, np.int64))
            continue
        position = pc.index_in(chunks[0].dictionary, value_set=values).to_numpy(
            zero_copy_only=False).astype(np.int64)
        codes.append(np.concatenate([position[c.indices.to_numpy(zero_copy_only=False)]
                                     for c in chunks]))
    return codes[0], codes[1], values


def _evaluate(run, qrels, columns, *, level, complete, judged_only, max_docs,
              query_ids):
    """Per-query values (index: query codes, in trec_eval's order)."""
    users, items, scores = run
    q_users, q_items, grades = qrels
    queries = np.unique(q_users)  # sorted codes = strcmp order
    keep = np.isin(users, queries)
    users, items, scores = users[keep], items[keep], scores[keep]
    in_run = np.isin(queries, users)
    if not in_run.all() and not complete:
        first = query_ids[int(queries[np.argmin(in_run)])]
        raise _Refused(f"trec_eval: query '{first}' of the qrels is not in the run "
                       "(trec_eval 10.0 stops here with exit code 4; -c scores such "
                       "queries 0)", 4)
    judged = grades >= 0  # negative: in the pool, unjudged (form_res_rels.c)
    t_users, t_items, t_grades = q_users[judged], q_items[judged], grades[judged]
    n_items = int(max(items.max(initial=0), t_items.max(initial=0))) + 1
    # -M first, then -J: form_res_rels.c cuts the ranking at -M before it drops
    # the unjudged documents
    if max_docs is not None:
        order = np.lexsort((-items, -scores, users))  # trec_eval's order per query
        sorted_users = users[order]
        starts = np.r_[0, np.flatnonzero(sorted_users[1:] != sorted_users[:-1]) + 1]
        rank = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
        keep = np.sort(order[rank < max_docs])
        users, items, scores = users[keep], items[keep], scores[keep]
    if judged_only:
        keep = np.isin(users * n_items + items, t_users * n_items + t_items)
        users, items, scores = users[keep], items[keep], scores[keep]
    if scores.size and not np.isfinite(scores).all():
        # evaluate takes finite scores; +-inf order as trec_eval's atof values
        # do, so replace every score by its position among the distinct ones.
        scores = np.unique(scores, return_inverse=True)[1].reshape(-1).astype(float)
    result = pd.DataFrame(index=pd.Index(queries))
    # Codes are numbers ordered as the ids' bytes: numeric tie order = trec_eval's.
    ties = "numeric_desc" if "numeric_desc" in TIES else "item_desc"
    recs = pd.DataFrame({"user": users, "item": items, "score": scores})
    metrics = sorted({metric for _, metric in columns if metric not in _COUNTS})
    values = {}
    if metrics and t_users.size:
        common = dict(user_col="user", item_col="item", score_col="score",
                      relevance_col="relevance", missing="zero", ties=ties)
        graded = [m for m in metrics if m.startswith("ndcg")]
        binary = [m for m in metrics if not m.startswith("ndcg")]
        if binary:
            # -l 0 (or below): every judged grade >= 0 relevant
            shift = 1 - level if level <= 0 else 0
            truth = pd.DataFrame({"user": t_users, "item": t_items,
                                  "relevance": t_grades + shift})
            frame = evaluate(recs, truth, binary, relevance_level=max(level, 1), **common)
            values.update({m: frame[m] for m in binary})
        if graded:  # trec_eval's ndcg ignores -l: gain = grade
            truth = pd.DataFrame({"user": t_users, "item": t_items, "relevance": t_grades})
            frame = evaluate(recs, truth, graded, relevance_level=1, **common)
            values.update({m: frame[m] for m in graded})
    for printed, metric in columns:
        if metric in _COUNTS:
            continue
        value = values.get(metric)
        result[printed] = (0.0 if value is None
                           else value.reindex(queries).fillna(0.0).to_numpy())
    if "num_ret" in result.columns or any(m == "num_ret" for _, m in columns):
        result["num_ret"] = np.bincount(np.searchsorted(queries, users),
                                        minlength=queries.size)
    if any(m == "num_rel" for _, m in columns):
        rel = t_grades >= max(level, 0)
        result["num_rel"] = np.bincount(np.searchsorted(queries, t_users[rel]),
                                        minlength=queries.size)
    if any(m == "num_rel_ret" for _, m in columns):
        rel = t_grades >= max(level, 0)
        hit = np.isin(users * n_items + items, t_users[rel] * n_items + t_items[rel])
        result["num_rel_ret"] = np.bincount(np.searchsorted(queries, users[hit]),
                                            minlength=queries.size)
    if not complete:
        result = result.loc[queries[in_run]]
    return result


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
    try:
        measures = _parse_measures(args.measures or ["official"])
        max_docs = None if args.M is None else _atol(args.M)
        if args.qrels == "-" and args.run == "-":
            raise _Refused("qrels and run cannot both be standard input", 1)
        data, name = _source(args.qrels, "qrels")
        q_users, q_items, grades, q_encoding = _qrels_columns(data, name)
        data, name = _source(args.run, "run")
        r_users, r_items, scores, tag, r_encoding = _run_columns(data, name)
        del data
        if not len(scores):
            raise _Refused(f"trec_eval: the run file '{args.run}' has no result line", 2)
        encoding = "utf-8"
        if "latin-1" in (q_encoding, r_encoding):
            encoding = "latin-1"  # one file is not UTF-8: read both as bytes
            q_users, q_items, r_users, r_items = (
                _as_latin1(a) if e == "utf-8" else a
                for a, e in ((q_users, q_encoding), (q_items, q_encoding),
                             (r_users, r_encoding), (r_items, r_encoding)))
        users, t_users, query_ids = _ordered_codes(r_users, q_users)
        items, t_items, _ = _ordered_codes(r_items, q_items)
        del r_users, r_items, q_users, q_items
        query_ids = query_ids.to_pylist()
        columns = _columns(measures)
        level = _atol(args.l)
        if level < 0:
            # trec_eval then counts unjudged retrieved documents (rel -1) as
            # relevant but not in num_rel: AP above 1. Refused.
            raise _Refused(f"-l {args.l}: the relevance level must be >= 0 (trec_eval "
                           "10.0 gives values above 1 there)", 1)
        result = _evaluate((users, items, scores), (t_users, t_items, grades), columns,
                           level=level, complete=args.c, judged_only=args.J,
                           max_docs=max_docs, query_ids=query_ids)
    except _Refused as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return error.code
    except (OSError, ValueError, TypeError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    # codes are in strcmp order of the query ids: trec_eval's query order
    result.index = [query_ids[int(code)] for code in result.index]
    lines = []

    def line(name, qid, value):
        if isinstance(value, str):
            text = value
        elif name in _COUNTS:
            text = str(int(value))
        else:
            text = f"{value:6.4f}"
        lines.append(f"{name:<22}\t{qid}\t{text}\n")

    shown = [(p, m) for p, m in columns if p != "gm_map"]
    if args.q:
        table = result[[p for p, _ in shown]].to_numpy()
        for qid, row in zip(result.index, table):
            for (printed, _), value in zip(shown, row):
                line(printed, qid, value)
    if not args.n:
        if "runid" in measures:
            line("runid", "all", tag)  # the last line's tag, as trec_eval
        if "num_q" in measures:
            line("num_q", "all", str(len(result)))
        for printed, _ in columns:
            values = result[printed].to_numpy(float)
            if printed == "gm_map":
                value = (math.exp(np.log(np.maximum(values, _MIN_GEO_MEAN)).mean())
                         if len(values) else 0.0)
            elif printed == "num_rel" and args.c:
                # m_num_rel.c te_calc_avg_num_rel: with -c the summary recounts
                # the qrels lines with grade > 0, whatever -l, -J or -M say.
                value = int((grades > 0).sum())
            elif printed in _COUNTS:
                value = values.sum()
            else:
                value = values.mean() if len(values) else 0.0
            line(printed, "all", value)
    data = "".join(lines).encode(encoding)
    if out is not None:
        out.write(data)
        out.flush()
    else:  # pragma: no cover - a replaced sys.stdout without a buffer
        sys.stdout.write(data.decode(encoding))
    return 0
