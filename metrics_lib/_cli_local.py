"""The command line's own columns, and trec_eval's leftovers on a query the run lacks.

:mod:`metrics_lib.cli` takes every value from :func:`metrics_lib.evaluate`
except these:

* ``relstring`` (``m_relstring.c``): the grades of the first N documents as
  a string, one character each (``0``-``9``, ``>`` above 9, ``-`` not in the
  qrels, ``.`` in the qrels with a negative grade), between quotes, in the
  per-query lines only; evaluate's columns hold numbers;
* ``utility`` (``m_utility.c``), from the counts the command line already
  has, because its fourth weight needs ``-N`` (the collection's size),
  which evaluate does not know; the sum is
  :func:`metrics_lib.ranking.trec_more.utility_values`, the kernel's.

With ``-c``, trec_eval 10.0 scores a query of the qrels that the run lacks
on a one-document ranking (``trec_eval.c``, ``bogus_ranking``, the document
``ceci_nest_pas_un_docno``), then zeroes the values of the measures it names
exactly (``num_ret``, ``utility``, ``rbp_resid``, ``relstring``, every
``unj``). A measure given parameters is named otherwise (``rbp_resid_p=0.8``,
``utility_1,-1,0,0``, ``relstring_5``) and keeps its value on that document:
:func:`missing_query_values` gives those values.
"""

from __future__ import annotations

import numpy as np

from .ranking.trec_more import utility_values

__all__ = []


def _relstring_char(rel: int) -> str:
    if rel > 9:
        return ">"
    if rel >= 0:
        return str(rel)
    return "-" if rel == -1 else "." if rel == -2 else "<"


def relstrings(ranked, queries, qrels, length):
    """``'...'`` of every query: the relevance codes of its first ``length`` documents.

    ``ranked``: (users, items) in trec_eval's order; ``qrels``: (users, items,
    grades), negative grades included (``.``: in the pool, unjudged).
    """
    users, items = ranked
    q_users, q_items, grades = qrels
    n_items = int(max(items.max(initial=0), q_items.max(initial=0))) + 1
    keys = q_users * n_items + q_items
    order = np.argsort(keys)
    keys, codes = keys[order], np.where(grades < 0, -2, grades)[order]
    wanted = users * n_items + items
    at = np.minimum(np.searchsorted(keys, wanted), max(keys.size - 1, 0))
    found = keys[at] == wanted if keys.size else np.zeros(wanted.size, bool)
    rel = np.where(found, codes[at] if keys.size else 0, -1).tolist()
    starts = np.searchsorted(users, queries).tolist()
    ends = np.searchsorted(users, queries, side="right").tolist()
    out = np.empty(len(queries), dtype=object)
    for q, (start, end) in enumerate(zip(starts, ends)):
        stop = start + max(min(length, end - start), 0)
        out[q] = "'" + "".join(_relstring_char(int(r)) for r in rel[start:stop]) + "'"
    return out


def local_column(kind, params, counts, ranked, queries, qrels, n_docs):
    """One column the command line computes: ``relstring`` or ``utility``.

    ``counts``: per query (num_rel_ret, num_ret, num_rel) as trec_eval counts
    them under the options in force.
    """
    if kind == "relstring":
        return relstrings(ranked, queries, qrels, params)
    hits, n_ret, n_rel = (np.asarray(c, dtype=np.float64) for c in counts)
    return utility_values(params, hits, n_ret, n_rel, float(n_docs))


def missing_query_values(printed, metric, one_document):
    """The value trec_eval 10.0 prints for a query the run lacks (``-c``), or None.

    ``one_document``: whether its one-document ranking survives ``-J`` and
    ``-M`` (trec_eval drops the unjudged document with ``-J``). None means
    the value of an empty ranking, which the caller already has (0).
    """
    if printed == "utility":
        return 0.0
    if printed == "relstring":
        return "''"
    if printed.startswith("relstring_"):
        return "'-'" if one_document and metric[1] >= 1 else "''"
    if printed.startswith("11pt_avg") and one_document:
        # m_11pt_avg.c on one non-relevant document: every level's
        # interpolated precision is 0/1; an empty ranking would be 0/0
        return 0.0
    if printed.startswith("rbp_resid_") and one_document:
        p = float(metric[len("rbp_resid(p="):-1])
        return p + (1 - p) * 1.0  # m_rbp_resid.c: cur_p + (1 - p) * sum
    return None


def below_zero(metric, flags, n_rel, n_rel_ret):
    """yaap, Rprec_mult and 11pt_avg of one query under ``-l`` < 0, as their C loops run.

    ``flags``: ``rel >= -l`` per rank (unjudged documents included, which
    trec_eval then counts as relevant in the ranking); ``n_rel`` and
    ``n_rel_ret``: the judged relevant documents and those ranked
    (form_res_rels.c never counts unjudged ones there). The loops mix both
    counts as trec_eval's do.
    """
    from .trec_measures import lround

    n_ret = len(flags)
    if metric == "yaap":
        total, so_far = 0.0, 0
        for rank, flag in enumerate(flags, start=1):
            if flag:
                so_far += 1
                total += so_far / rank
        with np.errstate(divide="ignore", invalid="ignore"):  # C's inf and nan
            return float(np.log(np.float64(1.0 + total) / np.float64(1.0 + n_rel - total)))
    if metric.startswith("rprec_mult_"):
        cut = int(np.floor(float(metric[len("rprec_mult_"):]) * n_rel + 0.9))
        if cut > n_ret:
            return n_rel_ret / cut
        so_far = n_rel_ret  # m_Rprec_mult.c's loop from the last rank up
        for i in range(n_ret, 0, -1):
            if so_far <= 0:
                break
            if i == cut:
                return so_far / i
            so_far -= bool(flags[i - 1])
        return 0.0
    _, dot, params = metric.partition(".")
    levels = [float(v) for v in params.split(",")] if dot else _ELEVEN
    targets = [lround(p * n_rel) for p in levels]
    return _eleven_walk(flags, n_rel_ret, targets) / len(levels)


_ELEVEN = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def _eleven_walk(flags, n_rel_ret, targets):
    """m_11pt_avg.c's sum for one query (the C loop, line for line)."""
    n_ret = len(flags)
    cut = len(targets) - 1
    while cut >= 0 and targets[cut] > n_rel_ret:
        cut -= 1
    best = n_rel_ret / n_ret if n_ret else float("nan")
    so_far, total = n_rel_ret, 0.0
    for i in range(n_ret, 0, -1):
        if so_far <= 0:
            break
        if best < so_far / i:
            best = so_far / i
        if flags[i - 1]:
            while cut >= 0 and so_far == targets[cut]:
                total += best
                cut -= 1
            so_far -= 1
    for _ in range(cut + 1):
        total += best
    return total
