"""Command line: ``python -m metrics_lib [-q] [-c] [-m MEASURE] QRELS RUN``.

A drop-in for trec_eval 10.0 (usnistgov/trec_eval, ``trec_eval.c``) on the
measures this library computes: same options, same measure names, same
output (``%-22s\\t%s\\t%6.4f`` lines, ``runid`` and ``num_q`` first), same
queries, same tie order. With no ``-m`` it prints trec_eval's default
("official") table. The values come from :func:`metrics_lib.evaluate`.

The command line and the files are read as trec_eval 10.0 reads them
(``trec_eval.c``, ``meas_init.c``, ``get_qrels.c``, ``get_trec_results.c``):
the parameters of a measure come from the first ``-m name.params`` naming it;
cut-offs, ``-l`` and ``-M`` are read by ``atol`` (``P.5.0`` is ``P_5``),
recall levels by ``atof`` and printed ``%3.2f``; duplicate or non-positive
cut-offs stop with exit code 2, an unknown measure or option with 1, a query
of the qrels missing from the run (without ``-c``) or a document listed twice
with 4. Exit codes are trec_eval's; where trec_eval crashes or prints
uninitialised memory (a negative ``-M``, a qrels file that ends with a comment
line), and for a ``nan`` score, the command line stops with a message
instead; so it does for gains trec_eval misorders (``gain_init.c``
``comp_rel_gain`` compares ``(int)`` differences), for gains of negative
levels or below 0, and for gains given to more than one of ``ndcg``, ``dcg``
and ``ideal_dcg`` (which share one parameter record in ``m_ndcg.c``: trec_eval
aborts with a double free); likewise for a grade above 2**31 - 1
(exit 4, where trec_eval stops only when its per-grade counters cannot be
allocated) and for options it does not offer (``-Z``, ``-D`` other than 0,
``-R`` other than ``qrels``), named in the message. ``-N``, ``-o``, ``-v``
and the long options (``--measure=map``, ``--meas P.5``) are trec_eval's. With
``-q``, an exit 4 comes, as in trec_eval, after the lines of the queries
before the one that stops it. A negative ``-l`` gives trec_eval's
numbers (ranked unjudged documents count as relevant, ``num_rel`` does not
count them, so map can exceed 1) with a note on stderr. ``-m all_trec``
computes the measures of that set offered here (a note on stderr says so).
``tests/test_trec_cli_grammar.py`` compares both programs on generated command
lines and files. ``relstring`` and ``utility`` are computed here rather than by
evaluate (:mod:`metrics_lib._cli_local` says why), and so are trec_eval's values
on the one-document ranking that ``-c`` gives a query the run lacks, where a
measure named with parameters is not zeroed (``rbp_resid_p=0.8`` is 1). ``rbp``
prints the value trec_eval prints when it is the only measure: ``m_rbp.c``
rescales the gains with two variables it never initialises, so next to other
measures the binary's value changes with them (a note on stderr says so;
``all_trec`` leaves rbp out, a negative ``-l`` refuses it);
``tests/test_trec_measures_trec1.py`` compares the new measures.

``-m`` also takes every name :func:`metrics_lib.evaluate` takes (``ndcg@10``,
``p@5``, ``ndcg_cut_10``, ``mrr@10``, ``iprec_at_recall@0.5``), which
trec_eval 10.0 refuses (``trec_eval: illegal measure``, exit 1); so nothing
trec_eval accepts changes. Such a measure is computed by the same registry
entry as trec_eval's spelling of it (``ndcg@10`` is ``ndcg_cut.10``) and
printed after trec_eval's measures, in command line order, under the name as
written, with four decimals and averaged over the queries (a count such as
``NUM_REL`` as trec_eval prints and sums it). A name that neither grammar
knows stops with exit 1 and the closest names of both; evaluate's names are
refused with a negative ``-l``, whose trec_eval rule (unjudged documents
count as relevant) is defined for trec_eval's measures only.
``tests/test_metric_grammar.py`` checks both doors on every registered name.

Plain files (uncompressed, UTF-8, one space between fields) with trec_eval's
default measures and the other measures of
:data:`metrics_lib.dropin.measures.OFFERED` go through
:mod:`metrics_lib.dropin`, which computes the same values with numpy alone
(same kernels, no pandas, pyarrow or scipy imported); everything else goes
through :func:`metrics_lib.evaluate` as described above.
``tests/test_dropin_fast.py`` compares that path with the binary.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

from ._c_numbers import _atol
from ._cli_output import (
    _Refused, _iprec_as_trec_eval, _query_lines, _summary_lines,
)
from . import dropin

# The -m grammar (metrics_lib._cli_measures, which imports the metric
# registry), pandas, pyarrow, metrics_lib.evaluate and metrics_lib.trec are
# imported by the functions that need them: plain files with the default
# measures go through metrics_lib.dropin (numpy only) and never load them.

__all__ = ["main", "build_parser"]

def _as_latin1(array):
    import pyarrow as pa

    return pa.array([value.encode("utf-8").decode("latin-1")
                     for value in array.to_pylist()], pa.string()) if not isinstance(
        array, pa.ChunkedArray) else _as_latin1(pa.array(array.to_pylist(), pa.string()))


class _Parser(argparse.ArgumentParser):
    """argparse with trec_eval's exit code for a bad command line (1, not 2)."""

    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


# The console script's name ([project.scripts] in pyproject.toml).
_SCRIPT = "trec-eval-py"


def _prog() -> str:
    # argparse would print "__main__.py" for `python -m metrics_lib`; the console script
    # names itself, as trec_eval does (a wrapper on Windows may add "-script.py" or ".exe").
    called = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return _SCRIPT if called.startswith(_SCRIPT) else "python -m metrics_lib"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=_prog(),
        usage="%(prog)s [-h] [-q] [-c] [-n] [-J] [-l N] [-M N] "
              "[-m MEASURE[.PARAMS]]... QRELS RUN",
        description="trec_eval 10.0 as a drop-in: same options, measure names and "
                    "output, values from metrics_lib.evaluate. With no -m it prints "
                    "trec_eval's default table (-m official).",
        epilog="Measures: official, all_trec, runid, num_q, num_ret, num_rel, num_rel_ret, map, "
               "gm_map, Rprec, bpref, recip_rank, iprec_at_recall[.0.1,...], "
               "P[.5,10,...], recall[.K,...], binG, G[.1=g1,2=g2,...], dcg[.gains], "
               "ideal_dcg[.gains], ndcg[.gains], ndcg_rel[.gains], Rndcg[.gains], "
               "ndcg_cut[.K,...], map_cut[.K,...], "
               "success[.K,...], infAP, gm_bpref, relative_P[.K,...], set_P, set_relative_P, "
               "set_recall, set_map, set_F[.beta], num_nonrel_judged_ret, yaap, unj[.K,...], "
               "Rprec_mult[.M,...], 11pt_avg[.L,...], utility[.a,b,c,d] (d with -N), "
               "relstring[.N] (-q lines only), rbp[.p=P] (p 0.9; alone as trec_eval, "
               "whose value next to other measures reads uninitialised memory; not in "
               "all_trec nor with a negative -l), rbp_resid[.p=P]; bare P, recall, "
               "ndcg_cut, map_cut and relative_P mean the cut-offs "
               "5,10,15,20,30,100,200,500,1000 as in trec_eval. As in trec_eval, a "
               "query of the qrels that the run lacks is an error unless -c is given; "
               "-c scores it 0, which is evaluate(..., missing=\"zero\"): evaluate's "
               "default is trec_eval -c with a warning, NOT trec_eval's default "
               "(missing=\"raise\"). Queries only in the "
               "run are ignored. Equal scores are ordered by document id, descending, "
               "bytewise (trec_eval's order). Scores and grades are read as trec_eval's "
               "atof and atol read them ('5abc' is 5, 'abc' 0, '1e2' as a grade 1; a "
               "note on stderr names the first such line). Also accepted as in trec_eval: "
               "-N, -o, -D 0, -R qrels, -T trec_results and the long options (--measure=map, "
               "--meas P.5, ...). Differences from trec_eval (exit codes are trec_eval's): "
               "a nan score, a negative -M, recall levels that are not finite "
               "(iprec_at_recall.inf), gains for negative levels or below 0, gains that "
               "trec_eval's (int) comparator misorders, more than one of ndcg, dcg and "
               "ideal_dcg with gains (trec_eval crashes), -Z, -D other than 0 and the "
               "other -R formats are refused; a grade above 2**31-1 stops with exit 4 "
               "(trec_eval: where its per-grade counters cannot be allocated; with -q, as "
               "trec_eval, an exit 4 part-way comes after the earlier queries' lines); "
               "-h prints this help; -m all_trec prints the measures offered here; "
               "-m also takes evaluate's names (ndcg@10, p@5, mrr@10), which trec_eval "
               "refuses, printed after trec_eval's measures under the name as written; "
               "only '-' as the run reads standard input (trec_eval: any name starting "
               "with '-').")
    parser.add_argument("qrels", nargs="?", help="qrels file: qid iter docno relevance "
                                                 "(gzip recognised)")
    parser.add_argument("run", nargs="?", help="run file: qid Q0 docno rank score tag ('-': stdin; "
                                    "gzip recognised)")
    parser.add_argument("-m", "--measure", dest="measures", action="append", default=[],
                        metavar="MEASURE", help="measure[.params], repeatable "
                                                "(default: official)")
    parser.add_argument("-q", "--query_eval_wanted", dest="q", action="store_true",
                        help="also print every query's values")
    parser.add_argument("-c", "--complete_rel_info_wanted", dest="c", action="store_true",
                        help="average over every qrels query, scoring those the run "
                             "lacks 0 (evaluate's missing='zero')")
    parser.add_argument("-n", "--nosummary", dest="n", action="store_true",
                        help="no summary lines (with -q)")
    parser.add_argument("-J", "--Judged_docs_only", dest="J", action="store_true",
                        help="judged documents only: drop unjudged documents from the run")
    parser.add_argument("-l", "--level_for_rel", dest="l", default="1", metavar="N",
                        help="lowest grade that counts as relevant (default 1; 0 makes "
                             "every judged document relevant; below 0, as in trec_eval, "
                             "also ranked unjudged documents, which num_rel never counts)")
    parser.add_argument("-M", "--Max_retrieved_per_topic", dest="M", default=None,
                        metavar="N", help="only the top N documents of each query")
    _add_other_options(parser)
    return parser


def _add_other_options(parser) -> None:
    """trec_eval.c's other options (getopt_long ``"hvqm:cl:nD:JN:M:R:T:oZ:"``)."""
    parser.add_argument("-v", "--version", dest="v", action="store_true",
                        help="print trec_eval's version on stderr and exit")
    parser.add_argument("-N", "--Number_docs_in_coll", dest="N", metavar="N",
                        help="number of documents in the collection (read by "
                             "utility's fourth weight only, as in trec_eval)")
    parser.add_argument("-D", "--Debug_level", dest="D", metavar="N",
                        help="debug level: only 0 (trec_eval's default) is offered")
    parser.add_argument("-R", "--Rel_info_format", dest="R", default="qrels",
                        metavar="FORMAT", help="only 'qrels' is offered (the default)")
    parser.add_argument("-T", "--Results_format", dest="T", default="trec_results",
                        metavar="FORMAT", help="only 'trec_results' (the default)")
    # trec_eval.c: -o is obsolete and changes nothing; its long form takes a
    # value (has_arg 1 in long_options), which is read and ignored
    parser.add_argument("-o", dest="o", action="store_true", help="obsolete, no effect")
    parser.add_argument("--Output_old_results_format", dest="o_long", metavar="X",
                        help=argparse.SUPPRESS)
    parser.add_argument("-Z", "--Zscore", dest="Z", metavar="FILE",
                        help="z-scores: not offered (refused)")


# trec_eval 10.0 formats.c: the formats trec_eval knows; only the default is offered
_REL_FORMATS = ("qrels", "qrels_jg", "prefs", "qrels_prefs")
_RESULTS_FORMATS = ("trec_results",)
_VERSION = "10.0-rc3"  # trec_eval 10.0's Makefile, VERSIONID


def _other_options(args) -> None:
    """Refuse, by name, the options of trec_eval that change what this drop-in computes."""
    if args.Z is not None:
        raise _Refused(f"trec_eval: -Z {args.Z}: z-scores are not offered by this drop-in", 1)
    if args.D is not None and (_atol(args.D) != 0 or "." in args.D):
        raise _Refused(f"trec_eval: -D {args.D}: debug output (and -D <num>.<qid>, one "
                       "query only) is not offered by this drop-in; -D 0 is", 1)
    if args.R != "qrels":
        if args.R in _REL_FORMATS:
            raise _Refused(f"trec_eval: -R {args.R}: only the 'qrels' format is offered "
                           "by this drop-in", 1)
        raise _Refused(f"trec_eval: Illegal rel_format '{args.R}'", 2)
    if args.T not in _RESULTS_FORMATS:
        raise _Refused(f"trec_eval: Illegal retrieval results format '{args.T}'", 2)


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
    values, positions = _sorted_union(dictionaries)
    positions = iter(positions)
    codes = []
    for chunks in parts:
        if not chunks:
            codes.append(np.empty(0, np.int64))
            continue
        position = next(positions)
        codes.append(np.concatenate([position[c.indices.to_numpy(zero_copy_only=False)]
                                     for c in chunks]))
    return codes[0], codes[1], values


def _sorted_union(dictionaries):
    """The distinct values of ``dictionaries`` in bytewise (strcmp) order, and each
    dictionary's positions among them (int64 arrays)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not dictionaries:
        return pa.array([], pa.string()), []
    both = pa.concat_arrays(dictionaries)
    if both.null_count:  # not from a TREC file; the hash-based way keeps a null once
        values = pc.unique(both)
        values = values.take(pc.array_sort_indices(values))
        return values, [pc.index_in(d, value_set=values).to_numpy(zero_copy_only=False)
                        .astype(np.int64) for d in dictionaries]
    # one sort of both dictionaries instead of a hash pass (unique) and a
    # look-up (index_in): equal neighbours in sorted order share a code
    order = pc.array_sort_indices(both)  # bytewise, as strcmp
    ordered = both.take(order)
    first = np.ones(len(both), bool)
    if len(both) > 1:
        first[1:] = pc.not_equal(ordered.slice(1), ordered.slice(0, len(both) - 1)).to_numpy(
            zero_copy_only=False)
    code = np.empty(len(both), np.int64)
    code[order.to_numpy(zero_copy_only=False)] = np.cumsum(first) - 1
    bounds = np.cumsum([0] + [len(d) for d in dictionaries])
    return ordered.filter(pa.array(first)), [code[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _check_duplicates(users, items, queries, q_users, q_items, n_items, query_ids):
    """form_res_rels.c: a document twice in a query's ranking or qrels stops (exit 4)."""
    found = []
    for what, u, i in (("qrels", q_users, q_items),
                       ("run", users[np.isin(users, queries)], items[np.isin(users, queries)])):
        keys = np.sort(u * n_items + i)
        twice = keys[1:][keys[1:] == keys[:-1]]
        if twice.size:
            found.append((int(twice[0] // n_items), what))
    if found:  # the first such query in trec_eval's order stops it
        code, what = min(found)
        raise _Refused(f"trec_eval: query '{query_ids[code]}' lists a document twice in the "
                       f"{what} (trec_eval 10.0 stops with exit code 4: duplicate docs)",
                       4, code)


def _cut_ranking(users, items, scores, max_docs):
    """-M: the first ``max_docs`` documents of each query in trec_eval's order."""
    order = np.lexsort((-items, -scores, users))  # trec_eval's order per query
    sorted_users = users[order]
    starts = np.r_[0, np.flatnonzero(sorted_users[1:] != sorted_users[:-1]) + 1]
    rank = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size]))
    return np.sort(order[rank < max_docs])


def _library_values(recs, t_users, t_items, t_grades, metrics, level, unjudged):
    """{library metric: per-user Series} from :func:`evaluate`.

    ``unjudged``: (users, items) of the qrels' negative grades, "in the pool
    but unjudged", given (as grade -1) to the metrics that read them (infAP).
    """
    import pandas as pd

    from ._cli_measures import _check_gain_order
    from .evaluate import TIES, evaluate
    from .ranking import registry

    common = dict(user_col="user", item_col="item", score_col="score",
                  relevance_col="relevance", missing="zero",
                  ties="numeric_desc" if "numeric_desc" in TIES else "item_desc")
    values = {}
    # graded metrics (NDCG) read the grades, the others relevant or not
    # (and the metrics that read the grades themselves: expected exposure)
    graded = [m for m in metrics if registry.get(registry.parse_metric(m)[0]).graded
              or registry.get(registry.parse_metric(m)[0]).reads_grades]
    binary = [m for m in metrics if m not in graded]
    pooled = [m for m in binary if registry.get(registry.parse_metric(m)[0]).negative_grades]
    binary = [m for m in binary if m not in pooled]
    if pooled:  # judged: 0/1 as below; in the pool but unjudged: -1
        truth = pd.DataFrame({"user": np.concatenate([t_users, unjudged[0]]),
                              "item": np.concatenate([t_items, unjudged[1]]),
                              "relevance": np.concatenate([
                                  (t_grades >= level).astype(np.int64),
                                  np.full(unjudged[0].size, -1, np.int64)])})
        frame = evaluate(recs, truth, pooled, relevance_level=1, **common)
        values.update({m: frame[m] for m in pooled})
    if binary:
        # relevant: grade >= -l (judged grades are >= 0, so -l <= 0 makes every
        # one relevant); a 0/1 mask, never grade arithmetic (-l can be -2**63)
        truth = pd.DataFrame({"user": t_users, "item": t_items,
                              "relevance": (t_grades >= level).astype(np.int64)})
        frame = evaluate(recs, truth, binary, relevance_level=1, **common)
        values.update({m: frame[m] for m in binary})
    # gain = grade (trec_eval's default), or the gains of -m G.1=3,... (one call
    # per set of gains); -l only says which queries have no relevant document
    groups = {}
    for metric in graded:
        groups.setdefault(id(getattr(metric, "pairs", None)), []).append(metric)
    truth = pd.DataFrame({"user": t_users, "item": t_items, "relevance": t_grades})
    for group in groups.values():
        gain = ("linear" if not hasattr(group[0], "pairs")
                else _check_gain_order(group[0], t_users, t_grades))
        frame = evaluate(recs, truth, list(group), relevance_level=max(level, 0), gain=gain,
                         **common)
        values.update({m: frame[m] for m in group})
    return values


def _lround(x: float) -> int:
    """C's ``lround``: nearest integer, halves away from zero."""
    return int(math.copysign(math.floor(abs(x) + 0.5), x))


def _one_query_below_zero(flags, n_rel, n_rel_ret, metric, p):
    """One measure of one query as trec_eval 10.0's m_*.c compute it with ``-l`` < 0.

    ``flags``: relevant or not (``rel >= -l``, unjudged documents included) in
    rank order; ``n_rel``: judged documents (num_rel, which never counts the
    unjudged); ``n_rel_ret``: judged documents ranked. The loops are the C
    ones (same sums in the same order, so the same doubles).
    """
    if metric == "yaap" or metric.startswith(("rprec_mult_", "11pt_avg")):
        from ._cli_local import below_zero

        return below_zero(metric, flags, n_rel, n_rel_ret)
    kind, _, cut = metric.partition("@")
    k = int(cut) if cut else len(flags)
    found = sum(flags[:k])
    if kind == "mrr":
        return next((1.0 / (i + 1) for i, f in enumerate(flags) if f), 0.0)
    if kind == "P":
        return found / k
    if kind == "hit":
        return 1.0 if found else 0.0
    if kind == "recall":
        return found / n_rel if n_rel else 0.0
    if kind == "bin_g":  # m_binG.c: 1 / log2(3 + i - relevant so far), over num_rel
        total, so_far = 0.0, 0
        for i, flag in enumerate(flags):
            if flag:
                so_far += 1
                total += 1.0 / math.log2(3 + i - so_far)
        return (total / n_rel if n_rel else math.inf) if so_far else 0.0
    if kind == "relative_p":  # m_rel_P.c: over min(k, num_rel); 0 without num_rel
        return found / min(k, n_rel) if n_rel else 0.0
    if kind == "rprec":
        look = min(len(flags), n_rel)
        return sum(flags[:look]) / n_rel if look else 0.0
    if kind == "map":
        total, so_far = 0.0, 0
        for rank, flag in enumerate(flags[:k], start=1):
            if flag:
                so_far += 1
                total += so_far / rank
        return total / n_rel if n_rel and (so_far or cut) else 0.0
    # iprec_at_recall (m_iprec_at_recall.c): from the bottom, the best
    # precision so far, kept at the lround(p * R)-th relevant document
    target = _lround(p * n_rel)
    if target > n_rel_ret:
        return 0.0
    best = n_rel_ret / len(flags) if flags else math.nan
    so_far = n_rel_ret
    for i in range(len(flags), 0, -1):
        if so_far <= 0:
            break
        best = max(best, so_far / i)
        if flags[i - 1]:
            if so_far == target:
                return best
            so_far -= 1
    return best


def _below_zero(ranked, queries, in_run, missing, qrels, level, columns, n_rel):
    """{column position: per-query values} of the measures ``-l`` < 0 changes.

    trec_eval 10.0 then counts a ranked document that is not judged (rel -1,
    form_res_rels.c RELVALUE_NONPOOL) or has a negative grade (rel -2) as
    relevant when its rel is at least the level, but num_rel counts judged
    documents only: P, recall, map, map_cut, Rprec, recip_rank, success,
    relative_P and iprec_at_recall differ from ``-l 0`` (map can exceed 1). ``missing``:
    the ranking of a query absent from the run (-c gives it one unjudged
    document).
    """
    users, items = ranked
    q_users, q_items, grades = qrels
    # a negative grade: in the pool but unjudged (-2); not in the qrels: -1
    judged = dict(zip(zip(q_users.tolist(), q_items.tolist()),
                      np.where(grades < 0, -2, grades).tolist()))
    rel = np.array([judged.get(key, -1) for key in zip(users.tolist(), items.tolist())],
                   dtype=np.int64)
    starts = np.searchsorted(users, queries)
    ends = np.searchsorted(users, queries, side="right")
    affected = [(i, m, p) for i, (_, m, p) in enumerate(columns)
                if isinstance(m, str) and (
                    m.partition("@")[0] in ("P", "hit", "recall", "rprec", "map", "mrr",
                                            "relative_p", "bin_g", "yaap")
                    or m.startswith(("iprec_at_recall", "rprec_mult_", "11pt_avg")))]
    out = {i: np.zeros(queries.size) for i, _, _ in affected}
    for q, (start, end) in enumerate(zip(starts, ends)):
        rels = rel[start:end] if in_run[q] else np.array(missing, dtype=np.int64)
        flags = (rels >= level).tolist()
        n_rel_ret = int((rels >= 0).sum())
        for i, metric, p in affected:
            out[i][q] = _one_query_below_zero(flags, int(n_rel[q]), n_rel_ret, metric, p)
    return out


# Counts read straight from the run and the qrels below; every other measure
# (num_nonrel_judged_ret too) comes from evaluate.
_COUNTED_HERE = ("num_ret", "num_rel", "num_rel_ret")


def _eleven_as_trec_eval(values, metric, n_rel, n_ret):
    """m_11pt_avg.c on a query with no document ranked: 0/0 (NaN) once a level aims at
    relevant item 0 (lround(p * R) == 0, which the walk then reaches), else 0."""
    from .ranking.trec_more import ELEVEN_POINTS

    _, dot, params = metric.partition(".")
    levels = [float(v) for v in params.split(",")] if dot else ELEVEN_POINTS
    at_zero = np.zeros(n_rel.size, dtype=bool)
    for p in levels:
        at_zero |= p * n_rel < 0.5
    return np.where((n_ret == 0) & at_zero, np.nan, values)


def _missing_queries(table, position, printed, metric, missing, one_document):
    """-c: trec_eval's value on the one-document ranking of the queries the run lacks."""
    from ._cli_local import missing_query_values

    values = [missing_query_values(printed, metric, bool(one)) for one in one_document]
    if all(v is None for v in values):
        return
    column = np.asarray(table[position]).astype(object if isinstance(
        next(v for v in values if v is not None), str) else np.float64)
    column[missing] = [column[i] if v is None else v
                       for i, v in zip(np.flatnonzero(missing), values)]
    table[position] = column


def _evaluate(run, qrels, columns, *, level, complete, judged_only, max_docs,
              query_ids, n_docs=0):
    """Per-query values: a frame with one column per entry of ``columns`` (by position).

    The index holds the query codes, in trec_eval's order.
    """
    import pandas as pd

    users, items, scores = run
    q_users, q_items, grades = qrels
    queries = np.unique(q_users)  # sorted codes = strcmp order
    keep = np.isin(users, queries)
    users, items, scores = users[keep], items[keep], scores[keep]
    in_run = np.isin(queries, users)
    if not in_run.all() and not complete:
        code = int(queries[np.argmin(in_run)])
        raise _Refused(f"trec_eval: query '{query_ids[code]}' of the qrels is not in the run "
                       "(trec_eval 10.0 stops here with exit code 4; -c scores such "
                       "queries 0)", 4, code)
    n_items = int(max(items.max(initial=0), q_items.max(initial=0))) + 1
    # -M first, then -J: form_res_rels.c cuts the ranking at -M before it drops
    # the unjudged documents
    if max_docs is not None:
        keep = _cut_ranking(users, items, scores, max_docs)
        users, items, scores = users[keep], items[keep], scores[keep]
    if columns:
        _check_duplicates(users, items, queries, q_users, q_items, n_items, query_ids)
    judged = grades >= 0  # negative: in the pool, unjudged (form_res_rels.c)
    t_users, t_items, t_grades = q_users[judged], q_items[judged], grades[judged]
    if judged_only:
        keep = np.isin(users * n_items + items, t_users * n_items + t_items)
        users, items, scores = users[keep], items[keep], scores[keep]
    if scores.size and not np.isfinite(scores).all():
        # evaluate takes finite scores; +-inf order as trec_eval's atof values
        # do, so replace every score by its position among the distinct ones.
        scores = np.unique(scores, return_inverse=True)[1].reshape(-1).astype(float)
    # Codes are numbers ordered as the ids' bytes: numeric tie order = trec_eval's.
    recs = pd.DataFrame({"user": users, "item": items, "score": scores})
    metrics = sorted({metric for _, metric, _ in columns
                      if isinstance(metric, str) and metric not in _COUNTED_HERE})
    values = {}
    if metrics and t_users.size and users.size:
        values = _library_values(recs, t_users, t_items, t_grades, metrics, level,
                                 (q_users[~judged], q_items[~judged]))
    relevant = t_grades >= max(level, 0)
    n_rel = np.bincount(np.searchsorted(queries, t_users[relevant]), minlength=queries.size)
    table = {}
    n_ret = np.bincount(np.searchsorted(queries, users), minlength=queries.size)
    if complete:  # trec_eval.c ranks one unjudged document for a missing query
        n_ret = np.where(in_run, n_ret, 0 if judged_only or max_docs == 0 else 1)
    hit = np.isin(users * n_items + items, t_users[relevant] * n_items + t_items[relevant])
    counts = (np.bincount(np.searchsorted(queries, users[hit]), minlength=queries.size),
              n_ret, n_rel)
    for position, (printed, metric, recall_level) in enumerate(columns):
        if not isinstance(metric, str):  # relstring, utility: computed here
            order = np.lexsort((-items, -scores, users))  # trec_eval's ranking
            from ._cli_local import local_column

            table[position] = local_column(*metric, counts, (users[order], items[order]),
                                            queries, (q_users, q_items, grades), n_docs)
        elif metric == "num_ret":
            table[position] = np.bincount(np.searchsorted(queries, users),
                                          minlength=queries.size)
        elif metric == "num_rel":
            table[position] = n_rel
        elif metric == "num_rel_ret":
            table[position] = counts[0]
        else:
            value = values.get(metric)
            # a query evaluate did not score gets 0; a nan it computed stays
            # (Rndcg's 0 / 0, printed -nan as trec_eval prints it)
            table[position] = (np.zeros(queries.size) if value is None
                               else np.where(np.isin(queries, value.index.to_numpy()),
                                             value.reindex(queries).to_numpy(), 0.0))
            if recall_level is not None:
                table[position] = _iprec_as_trec_eval(table[position], recall_level, n_rel,
                                                      n_ret)
            elif metric.startswith("11pt_avg"):  # 0/0 on an empty ranking, as iprec
                table[position] = _eleven_as_trec_eval(table[position], metric, n_rel,
                                                       n_ret)
        if complete and not in_run.all():
            _missing_queries(table, position, printed, metric, ~in_run,
                             n_ret[~in_run] > 0)
    if level < 0:
        order = np.lexsort((-items, -scores, users))  # trec_eval's ranking
        missing = [] if judged_only or max_docs == 0 else [-1]
        table.update(_below_zero((users[order], items[order]), queries, in_run, missing,
                                 (q_users, q_items, grades), level, columns, n_rel))
    result = pd.DataFrame(table, index=pd.Index(queries), columns=range(len(columns)))
    if not complete:
        result = result.loc[queries[in_run]]
    return result


def _lenient_note(name: str, what: str, lenient) -> str | None:
    """A stderr note when a field was read by C's atof/atol rules (stdout unchanged)."""
    count, first = lenient
    if not count:
        return None
    number, text, value = first
    return (f"note: {name}:{number}: {what} {text.decode('utf-8', 'backslashreplace')!r} "
            f"read as {value!r}, as trec_eval's {'atof' if what == 'score' else 'atol'} "
            f"reads it ({count} such line{'s' if count > 1 else ''})")


def _read(args, notes):
    """Both files as trec_eval reads them: code arrays, grades, scores, tag, ids."""
    from .trec import _qrels_columns, _run_columns, _source

    if args.qrels == "-" and not os.path.isfile("-"):
        # get_qrels.c fopen()s the name: '-' is a file name there, not stdin
        raise _Refused("trec_eval.get_qrels: Cannot read qrels file '-' (trec_eval 10.0 "
                       "reads the qrels from a file only)", 2)
    data, name = _source("./-" if args.qrels == "-" else args.qrels, "qrels")
    q_users, q_items, grades, q_encoding, lenient = _qrels_columns(data, name, exact=True)
    notes.append(_lenient_note(name, "grade", lenient))
    data, name = _source(args.run, "run")
    if isinstance(data, (bytes, bytearray)) and not data:
        raise _Refused(f"trec_eval: the run file '{args.run}' is empty (trec_eval 10.0: "
                       "Cannot read results file, exit code 2)", 2)
    if not isinstance(data, (bytes, bytearray)) and os.path.getsize(data) == 0:
        raise _Refused(f"trec_eval: the run file '{args.run}' is empty (trec_eval 10.0: "
                       "Cannot read results file, exit code 2)", 2)
    r_users, r_items, scores, tag, r_encoding, lenient = _run_columns(data, name, exact=True)
    notes.append(_lenient_note(name, "score", lenient))
    encoding = "utf-8"
    if "latin-1" in (q_encoding, r_encoding):
        encoding = "latin-1"  # one file is not UTF-8: read both as bytes
        q_users, q_items, r_users, r_items = (
            _as_latin1(a) if e == "utf-8" else a
            for a, e in ((q_users, q_encoding), (q_items, q_encoding),
                         (r_users, r_encoding), (r_items, r_encoding)))
    users, t_users, query_ids = _ordered_codes(r_users, q_users)
    items, t_items, _ = _ordered_codes(r_items, q_items)
    return (users, items, scores), (t_users, t_items, grades), tag, query_ids.to_pylist(), \
        encoding


def _options(args):
    """-m, -M and -l as trec_eval reads them (trec_eval.c ``main``: atol)."""
    from ._cli_measures import _Extra, _parse_measures

    measures, notes = _parse_measures(args.measures or ["official"])
    max_docs = None if args.M is None else _atol(args.M)
    if max_docs is not None and max_docs < 0:
        raise _Refused(f"-M {args.M}: the number of documents per query must be >= 0 "
                       "(trec_eval 10.0 crashes on a negative -M)", 1)
    level = _atol(args.l)
    extra = [name for name, params in measures.items() if isinstance(params, _Extra)]
    if level < 0 and extra:
        raise _Refused(f"-l {args.l}: a negative level is offered for trec_eval's own "
                       f"measure names only, not for {', '.join(extra)} (trec_eval's "
                       "counting of unjudged documents there has no definition in "
                       "evaluate)", 1)
    if level < 0 and "rbp" in measures:
        _rbp_below_zero(args)
    elif "rbp" in measures and len(measures) > 1:
        notes.append("note: rbp is the value trec_eval 10.0 prints when rbp is its only "
                     "measure: m_rbp.c rescales the gains with two uninitialised variables "
                     "(min, max), so with other measures the binary's rbp can differ")
    if level < 0:
        notes.append(f"note: -l {args.l}: trec_eval 10.0 counts ranked documents "
                     "that are not judged (or judged negative) as relevant but not in "
                     "num_rel, so map, recall and Rprec can exceed 1")
    return measures, notes, max_docs, level


def _rbp_below_zero(args) -> None:
    """rbp under a negative -l: refused.

    m_rbp.c rescales its gains by two variables it never initialises; under
    a negative -l the binary's rbp differs from its value at -l 1 even alone
    (0.1156 against 0.1310 on one query), so there is no value to reproduce.
    """
    raise _Refused(f"-l {args.l}: rbp is not offered with a negative level: trec_eval "
                   "10.0's m_rbp.c reads uninitialised memory (min, max) and its value "
                   "there changes with the level and the other measures asked for", 1)


# form_res_rels.c allocates (and zeroes) max_rel + 1 longs per query: 16 GiB
# at 2**31, where the binary still ran (148 s) on a 23 GiB machine; 2**34
# failed there (exit 4). Grades above this bound are refused with exit 4.
_MAX_GRADE = 2**31 - 1


def _check_grades(q_users, grades, columns) -> None:
    """trec_eval 10.0 stops with exit 4 when a query's largest grade needs too much memory."""
    if columns and grades.size and grades.max() > _MAX_GRADE:
        raise _Refused(f"trec_eval: a grade of {int(grades.max())} is above {_MAX_GRADE}: "
                       "trec_eval 10.0 allocates one counter per grade level and stops "
                       "(\"Can't calculate measure\", exit code 4) where that memory "
                       "cannot be had; this drop-in refuses such grades", 4,
                       int(q_users[grades > _MAX_GRADE].min()))


def _evaluate_until_stop(run, qrels, columns, options, partial):
    """(per-query table, None), or (table of the queries before the stop, error) on exit 4.

    trec_eval.c evaluates and prints (-q) one query at a time, so where it
    stops with exit 4 (a missing query, a document twice, a grade too large)
    the queries before that one are already printed; ``partial`` (-q) asks
    for their values.
    """
    try:
        _check_grades(qrels[0], qrels[2], columns)
        return _evaluate(run, qrels, columns, **options), None
    except _Refused as error:
        if error.code != 4 or error.query is None or not partial:
            raise
        stop, first = error.query, error
    while True:  # the earliest stop decides; each check names its own first query
        keep = qrels[0] < stop
        if not keep.any():
            return None, first
        part = tuple(array[keep] for array in qrels)
        try:
            _check_grades(part[0], part[2], columns)
            return _evaluate(run, part, columns, **options), first
        except _Refused as error:
            if error.code != 4 or error.query is None:
                raise
            stop, first = error.query, error


def main(argv=None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in ("explain", "find"):  # the explainer (its own grammar)
        from .explain.command import main as explain_main
        return explain_main(words)
    parser = build_parser()
    # intermixed: options may follow the file names, as GNU getopt permutes
    args = parser.parse_intermixed_args(argv)
    if args.v:
        print(f"trec_eval version {_VERSION} ({parser.prog}, a drop-in)",
              file=sys.stderr)
        return 0
    if args.run is None:
        parser.error("the qrels and the run file are required")
    out = sys.stdout.buffer if hasattr(sys.stdout, "buffer") else None
    text = dropin.run(args)  # numpy only; None: the path through evaluate() below
    if text is not None:
        _write(out, text, "utf-8")
        return 0
    notes = []
    try:
        _other_options(args)
        measures, notes, max_docs, level = _options(args)
        run, qrels, tag, query_ids, encoding = _read(args, notes)
        if not len(run[2]) and "runid" in measures and args.c and not args.n:
            raise _Refused(f"trec_eval: the run file '{args.run}' has no result line, so "
                           "no run id (trec_eval 10.0 prints uninitialised memory)", 2)
        from ._cli_measures import _columns

        columns = _columns(measures)
        options = dict(level=level, complete=args.c, judged_only=args.J, max_docs=max_docs,
                       query_ids=query_ids, n_docs=0 if args.N is None else _atol(args.N))
        result, stop = _evaluate_until_stop(run, qrels, columns, options, args.q)
        if stop is not None:
            if result is not None:
                _write(out, "".join(_query_lines(
                    [result[position].to_numpy() for position in range(len(columns))],
                    [query_ids[code] for code in result.index.tolist()], columns)),
                    encoding)
            raise stop
    except _Refused as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return error.code
    except (OSError, ValueError, TypeError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    for note in notes:
        if note:
            print(f"{parser.prog}: {note}", file=sys.stderr)
    # codes are in strcmp order of the query ids: trec_eval's query order
    values = [result[position].to_numpy() for position in range(len(columns))]
    ids = [query_ids[code] for code in result.index.tolist()]
    lines = _query_lines(values, ids, columns) if args.q else []
    if not args.n:
        lines += _summary_lines(measures, columns, values, len(result), tag, args.c,
                                qrels[2])
    _write(out, "".join(lines), encoding)
    return 0


_SLICE = 1 << 22  # characters encoded and written at a time


def _write(out, text: str, encoding: str) -> None:
    if out is not None:
        # in slices: 10M run lines with -q print ~100 MB, which need not exist
        # twice (as text and as bytes)
        for start in range(0, len(text), _SLICE):
            out.write(text[start:start + _SLICE].encode(encoding))
        out.flush()
    else:  # pragma: no cover - a replaced sys.stdout without a buffer
        sys.stdout.write(text)


def __getattr__(name):
    # the measure tables, read by tests from here, come from the -m grammar's
    # module, imported on first use (it loads the metric registry)
    if name in ("_TABLE", "_TREC_EVAL_MEASURES"):
        from . import _cli_measures

        return getattr(_cli_measures, name)
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
