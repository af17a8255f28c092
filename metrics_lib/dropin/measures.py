"""trec_eval 10.0's default measures for every query at once, from code arrays.

The numpy-only twin of the command line's path through
:func:`metrics_lib.evaluate`: the run is put in trec_eval's order (query,
score descending, document id descending bytewise) by one sort of a packed
key (``np.lexsort`` when the key would not fit in 62 bits),
joined with the qrels by one ``np.searchsorted`` on (query, document) keys,
and laid out as the batch kernels of :func:`evaluate` take it (one block of
rows per query, :mod:`metrics_lib._kernels`); the values come from the same
kernels (:class:`~metrics_lib._kernels.UserTable`,
:class:`~metrics_lib._trec_kernels.TrecTable`), so they are the same doubles.
No Python loop runs over queries or lines.

What this path does not compute (a negative ``-l``, a document listed twice,
a query of the qrels missing from the run without ``-c``, a grade above
2**31 - 1, measures other than those of :data:`OFFERED`) makes
:func:`query_values` return ``None``: the command line then takes the path
through :func:`evaluate`, which reports those cases as trec_eval does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._cli_output import _iprec_as_trec_eval
from .._kernels import UserTable
from .._trec_kernels import TrecTable

__all__ = ["OFFERED", "Ranked", "rank_and_join", "query_values"]

# trec_eval measures computed here (the default set, -m official, and the
# cut-off measures of the same kernels)
OFFERED = frozenset(("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                     "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "recall",
                     "success", "map_cut"))
_MAX_GRADE = 2**31 - 1  # above: the other path stops with exit 4, as trec_eval


@dataclass
class Ranked:
    """The evaluated queries' rankings in block layout, joined with the qrels.

    ``queries``: their codes (sorted: strcmp order); ``in_run``: listed in
    the run; ``lengths``: rows per query; ``hit_rows``/``hit_flags``: block
    rows of the judged documents (grade >= 0) and 1.0 where relevant;
    ``truth_code``/``truth_flag``: query index and relevance of every judged
    qrels line.
    """

    queries: np.ndarray
    in_run: np.ndarray
    lengths: np.ndarray
    hit_rows: np.ndarray
    hit_flags: np.ndarray
    truth_code: np.ndarray
    truth_flag: np.ndarray


def _qrels_keys(arrays, index, n_docs):
    """Sorted (query, document) keys of the qrels, their grades; None on a duplicate."""
    keys = index[arrays.qrels_query].astype(np.int64) * n_docs + arrays.qrels_doc
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    if keys.size > 1 and (keys[1:] == keys[:-1]).any():
        return None
    return keys, arrays.qrels_grade[order]


def _score_rank(score):
    """Each score's rank among the distinct scores (int32; equal doubles, -0.0 and
    0.0 included, share one), as ``np.unique(return_inverse=True)`` gives it
    with a quarter of its temporary memory (10M lines: 86 MiB against 315)."""
    perm = np.argsort(score)
    ordered = score[perm]
    new = np.empty(score.size, bool)
    new[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    del ordered
    rank = np.empty(score.size, np.int32 if score.size < 2**31 else np.int64)
    rank[perm] = np.cumsum(new, dtype=rank.dtype) - 1
    return rank


def _trec_order(query, doc, score, n_docs):
    """The lines' positions in trec_eval's order: query, then score descending,
    then document id descending by bytes (form_res_rels.c ``comp_sim_docno``;
    codes are in strcmp order).

    One sort of a packed int64 key (query, rank of the score among the
    distinct scores, document) where it fits in 62 bits, which is about
    four times faster than ``np.lexsort`` of the three columns.
    """
    if query.size == 0:
        return np.zeros(0, np.intp)
    rank = _score_rank(score)
    n_levels = int(rank.max()) + 1
    if (int(query.max()) + 1) * n_levels * n_docs >= 2**62:
        return np.lexsort((-doc.astype(np.int64), -score, query))
    key = query.astype(np.int64) * n_levels
    key += n_levels - 1 - rank
    del rank
    key *= n_docs
    key += n_docs - 1 - doc
    return np.argsort(key, kind="stable")


def _ranking(arrays, index, max_docs, n_docs):
    """Query index and document code of the evaluated run lines in trec_eval's order
    (after -M), and which evaluated queries the run lists."""
    query = index[arrays.run_query]
    keep = query >= 0
    if keep.all():
        doc, score = arrays.run_doc, arrays.run_score
    else:  # lines of queries not in the qrels: trec_eval ignores them
        query, doc, score = query[keep], arrays.run_doc[keep], arrays.run_score[keep]
    order = _trec_order(query, doc, score, n_docs)
    query, doc = query[order], doc[order]
    del order, score
    in_run = np.bincount(query, minlength=index.max(initial=-1) + 1) > 0  # before -M
    if max_docs is not None:  # -M: the first max_docs of each query
        rank = np.arange(query.size) - np.searchsorted(query, query)
        keep = rank < max_docs
        query, doc = query[keep], doc[keep]
    return query, doc, in_run


def rank_and_join(arrays, *, level, complete, judged_only, max_docs):
    """:class:`Ranked` of the queries trec_eval evaluates, or None (other path)."""
    if arrays.qrels_grade.size == 0 or arrays.run_score.size == 0:
        return None
    if arrays.qrels_grade.max() > _MAX_GRADE or np.isnan(arrays.run_score).any():
        return None
    queries = np.unique(arrays.qrels_query)
    index = np.full(arrays.query_ids.size, -1, np.int32)
    index[queries] = np.arange(queries.size)
    n_docs = max(arrays.doc_ids.size, 1)
    qrels = _qrels_keys(arrays, index, n_docs)
    if qrels is None:
        return None
    query, doc, in_run = _ranking(arrays, index, max_docs, n_docs)
    if not complete and not in_run.all():
        return None
    keys = query.astype(np.int64) * n_docs + doc
    del doc
    ordered = np.sort(keys)
    if (ordered[1:] == ordered[:-1]).any():
        return None  # a document twice in a query's ranking
    del ordered
    qkeys, grades = qrels
    at = np.minimum(np.searchsorted(qkeys, keys), max(qkeys.size - 1, 0))
    judged = (qkeys[at] == keys) & (grades[at] >= 0)
    del keys
    hit_rows = np.flatnonzero(judged)
    hit_flags = (grades[at[hit_rows]] >= level).astype(np.float64)
    del at
    if judged_only:  # -J after -M (form_res_rels.c): only the judged rows stay
        query, hit_rows = query[hit_rows], np.arange(hit_rows.size)
    truth = arrays.qrels_grade >= 0
    return Ranked(queries, in_run, np.bincount(query, minlength=queries.size),
                  hit_rows, hit_flags, index[arrays.qrels_query[truth]],
                  (arrays.qrels_grade[truth] >= level).astype(np.float64))


def _values(kind, k, binary, trec, recall_level):
    """One column's per-query values (relevance flags: level 1)."""
    if kind == "map":
        return binary.binary("ap", k, 1, "relevant")[0]
    if kind == "mrr":
        return binary.binary("rr", None, 1, "relevant")[0]
    if kind == "P":
        return binary.binary("precision", k, 1, "relevant", precision_denominator="k")[0]
    if kind == "recall":
        return binary.binary("recall", k, 1, "relevant", recall_denominator="relevant")[0]
    if kind == "hit":
        return binary.binary("hit", k, 1, "relevant")[0]
    if kind == "rprec":
        return trec.rprec(1)
    if kind == "bpref":
        return trec.bpref(1)
    if kind.startswith("iprec_at_recall"):
        return trec.iprec(min(max(recall_level, 0.0), 1.0), 1)
    return None


def query_values(ranked: Ranked, columns, *, judged_only, max_docs):
    """One array per column (``cli._columns``), one value per query; None if not offered."""
    n = ranked.queries.size
    binary = UserTable(ranked.lengths, ranked.hit_rows, ranked.hit_flags,
                       ranked.truth_code, ranked.truth_flag, n)
    trec = TrecTable(binary.list_len, ranked.lengths, ranked.hit_rows, ranked.hit_flags,
                     ranked.truth_code, ranked.truth_flag, n)
    n_rel = binary.n_relevant(1)
    # trec_eval.c ranks one unjudged document for a query that -c adds
    n_ret = np.where(ranked.in_run, binary.list_len,
                     0 if judged_only or max_docs == 0 else 1)
    out = []
    for _, metric, recall_level in columns:
        if metric == "num_ret":
            out.append(binary.list_len)
        elif metric == "num_rel":
            out.append(n_rel)
        elif metric == "num_rel_ret":
            out.append(trec.n_relevant_retrieved(1))
        else:
            kind, _, cut = metric.partition("@")
            with np.errstate(divide="ignore", invalid="ignore"):
                values = _values(kind, int(cut) if cut else None, binary, trec,
                                 recall_level)
            if values is None:
                return None
            values = np.where(n_rel > 0, values, 0.0)  # no relevant document: 0
            if recall_level is not None:
                values = _iprec_as_trec_eval(values, recall_level, n_rel, n_ret)
            out.append(values)
    return out
