"""Batch evaluation of many users at once, from two DataFrames.

:func:`evaluate` is the table-shaped twin of the per-list functions in
:mod:`metrics_lib.ranking`: it takes every user's recommendations and
judgements as rows of two DataFrames and returns one row of metric values per
user, equal to what the per-list functions return for that user. The work is
done by the vectorised kernels of :mod:`metrics_lib._kernels`; this module
checks the input and translates ids into integer codes.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from ._kernels import (UserTable, _stable_order, grade_levels, in_block_order,
                       lookup_grades, segment_argsort)
from ._trec_kernels import NEVER_EMPTY, TREC_KINDS, TrecTable
from ._validation import (
    check_choice,
    check_empty,
    check_frame_columns,
    check_id_column,
    check_k,
    check_n_jobs,
    check_relevance_level,
    check_same_id_kind,
    check_value_column,
    _as_python_id as _plain,
)
from .ranking import AP_DENOMINATORS, GAINS, IDEALS, _check_log_base

__all__ = ["evaluate", "parse_metric", "TIES", "MISSING_POLICIES"]

TIES = ("item_desc", "item_asc", "numeric_desc", "numeric_asc", "input")
MISSING_POLICIES = ("zero", "skip")

# metric kind -> accepted spellings (lower case). trec_eval names are accepted
# too, so that a trec_eval command line translates word for word.
_ALIASES = {
    "precision": ("precision", "p", "prec"),
    "recall": ("recall", "r"),
    "f1": ("f1", "f"),
    "hit": ("hit", "hr", "hit_rate", "hitrate", "success"),
    "rr": ("mrr", "rr", "recip_rank", "reciprocal_rank"),
    "ap": ("map", "ap", "average_precision"),
    "ndcg": ("ndcg",),
    "dcg": ("dcg",),
    # trec_eval's other standard measures (metrics_lib/_trec_kernels.py)
    "rprec": ("rprec", "r_precision", "r-precision"),
    "bpref": ("bpref",),
    "iprec_at_recall": ("iprec_at_recall",),
    "num_ret": ("num_ret",),
    "num_rel": ("num_rel",),
    "num_rel_ret": ("num_rel_ret",),
}
# Names refused on purpose, with the reason.
_REFUSED = {
    "hits": ("'hits' is ambiguous: ranx's hits@k (ranx/metrics/hits.py, hits()) "
             "counts the relevant items in the top k, while this library's hit@k is "
             "1 if any of them is relevant and 0 otherwise. Use 'hit@k' for the "
             "0/1 hit rate, or precision@k times k for ranx's count"),
}
_KIND = {alias: kind for kind, aliases in _ALIASES.items() for alias in aliases}
_NAME = re.compile(r"^(?P<name>[a-z0-9_-]+?)(?:(?:@|_cut_|_)(?P<k>[0-9]+))?$")
# iprec_at_recall_0.50 (trec_eval's spelling) or iprec_at_recall@0.5: the
# parameter is a recall level in [0, 1], not a cut-off.
_IPREC = re.compile(r"^iprec_at_recall(?:_|@)(?P<level>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$")
# Kinds whose name takes no cut-off (a whole-list measure or a count).
_NO_CUTOFF = ("rprec", "bpref", "num_ret", "num_rel", "num_rel_ret")


def parse_metric(name: str) -> tuple[str, int | float | None]:
    """Split a metric name such as ``"ndcg@10"`` into ``("ndcg", 10)``.

    Parameters
    ----------
    name : str
        ``<metric>`` or ``<metric>@<k>``. Metrics: ``precision`` (``p``),
        ``recall``, ``f1``, ``hit`` (``success``, ``hr``), ``mrr`` (``rr``,
        ``recip_rank``), ``map`` (``ap``), ``ndcg``, ``dcg``. The trec_eval
        spellings ``P_10``, ``recall_10``, ``success_10``, ``map_cut_10`` and
        ``ndcg_cut_10`` are accepted as well. Case is ignored.
        trec_eval's other standard measures, which take no cut-off:
        ``rprec`` (``r_precision``, ``r-precision``), ``bpref``, ``num_ret``,
        ``num_rel``, ``num_rel_ret``; and ``iprec_at_recall_<level>``
        (``iprec_at_recall_0.50``, also ``iprec_at_recall@0.5``), whose
        parameter is a recall level in ``[0, 1]``.

    Returns
    -------
    kind : str
        One of ``precision, recall, f1, hit, rr, ap, ndcg, dcg, rprec,
        bpref, iprec_at_recall, num_ret, num_rel, num_rel_ret``.
    k : int, float or None
        The cut-off, or ``None`` for the whole list; for
        ``iprec_at_recall`` the recall level (a float).

    Notes
    -----
    ``"hits@k"`` is refused: ranx's ``hits@k`` (ranx at commit 060cc66,
    ``ranx/metrics/hits.py``, ``hits()``) counts the relevant items in the
    top k, while this library's ``"hit@k"`` is 1 if there is one and 0
    otherwise; accepting the plural would give a number of the other meaning.

    ``"map@k"`` is average precision cut at ``k`` (trec_eval ``map_cut_k``);
    its denominator is chosen by ``evaluate(..., denominator=...)``, not by
    the name. ``"mrr@k"`` is reciprocal rank cut at ``k``, which trec_eval's
    ``recip_rank`` does not offer. ``gm_map`` is refused: it is a mean over
    users, not a value per user; evaluate ``"map"`` and pass the column to
    :func:`floored_geometric_mean`.

    References
    ----------
    .. [1] trec_eval measure names (``P``, ``recall``, ``map_cut``,
       ``ndcg_cut``, ``recip_rank``, ``success``),
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> from metrics_lib import parse_metric
    >>> parse_metric("ndcg@10"), parse_metric("MAP"), parse_metric("P_5")
    (('ndcg', 10), ('ap', None), ('precision', 5))
    >>> parse_metric("Rprec"), parse_metric("iprec_at_recall_0.50")
    (('rprec', None), ('iprec_at_recall', 0.5))
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings; got {type(name).__name__} "
                        f"{name!r}")
    lowered = name.strip().lower()
    iprec = _IPREC.match(lowered)
    if iprec is not None:
        level = float(iprec.group("level"))
        if not 0.0 <= level <= 1.0:
            raise ValueError(f"metric {name!r}: the recall level must lie in "
                             "[0, 1]")
        return "iprec_at_recall", level
    if lowered in ("gm_map", "gmap"):
        raise ValueError(f"metric {name!r} is a geometric mean over users, not "
                         "a value per user: evaluate 'map' and pass the column "
                         "to metrics_lib.floored_geometric_mean")
    match = _NAME.match(lowered)
    kind = _KIND.get(match.group("name")) if match else None
    if match and match.group("name") in _REFUSED:
        raise ValueError(f"metric {name!r}: {_REFUSED[match.group('name')]}")
    if kind == "iprec_at_recall":
        raise ValueError(f"metric {name!r} needs a recall level, such as "
                         "'iprec_at_recall_0.50' (one column per level)")
    if kind is None:
        known = ", ".join(sorted({aliases[0] for aliases in _ALIASES.values()}))
        raise ValueError(f"unknown metric {name!r}; use one of {known}, "
                         "optionally with a cut-off such as 'ndcg@10'")
    k = match.group("k")
    if k is not None and kind in _NO_CUTOFF:
        raise ValueError(f"metric {name!r}: {kind} takes no cut-off")
    if k is not None:
        k = int(k)
        if k <= 0:
            raise ValueError(f"metric {name!r}: the cut-off must be a positive "
                             "integer")
    return kind, k


def _parse_metrics(metrics) -> list[tuple[str, str, int | None]]:
    if isinstance(metrics, str):
        metrics = [metrics]
    try:
        names = list(metrics)
    except TypeError:
        raise TypeError("metrics must be a metric name or a list of names; got "
                        f"{type(metrics).__name__}") from None
    if not names:
        raise ValueError("metrics is empty: name at least one metric")
    parsed, seen = [], set()
    for name in names:
        kind, k = parse_metric(name)
        if name in seen:
            raise ValueError(f"metric {name!r} is listed twice")
        seen.add(name)
        parsed.append((name, kind, k))
    return parsed


def _is_dask(frame) -> bool:
    module = type(frame).__module__ or ""
    return module.startswith(("dask.", "dask_expr"))


def evaluate(recommendations, truth, metrics, *, user_col="user", item_col="item",
             score_col="score", rank_col=None, relevance_col="relevance",
             relevance_level=1, denominator="relevant", gain="linear",
             ideal="judged", log_base=2, empty="zero", missing="zero",
             ties="item_desc", n_jobs=1):
    """Ranking metrics for every user, from a recommendations and a truth table.

    Parameters
    ----------
    recommendations : pandas.DataFrame or dask.dataframe.DataFrame
        One row per recommended (user, item) pair, with a ``score_col``
        (higher is better) or a ``rank_col`` (1 is best). Rows may come in
        any order; a user's rows need not be contiguous.
    truth : pandas.DataFrame or dask.dataframe.DataFrame
        One row per judged (user, item) pair, with a grade in
        ``relevance_col`` (or none, see below).
    metrics : str or list of str
        Metric names such as ``"ndcg@10"``, ``"map@100"``, ``"map"``,
        ``"mrr"``, ``"precision@10"``, ``"recall@10"``, ``"hit@10"``,
        ``"f1@10"``, ``"dcg@10"`` (see :func:`parse_metric`). A name without
        ``@k`` uses the whole list. trec_eval's ``"rprec"``, ``"bpref"``,
        ``"iprec_at_recall_0.50"`` (any level in [0, 1]), ``"num_ret"``,
        ``"num_rel"`` and ``"num_rel_ret"`` are computed per user as
        :func:`r_precision`, :func:`bpref` and :func:`interpolated_precision`
        do (for gm_map see :func:`floored_geometric_mean`). The names become
        the result's columns.
    user_col, item_col : str, default="user", "item"
        Id columns, present in both tables. Ids of one column are integers
        (any numpy, nullable or pyarrow integer dtype, or Python ints in an
        object column), strings (object, ``string``, ``string[pyarrow]``) or
        booleans, of the same kind in both tables; categorical columns count
        as their categories' values. Integers of any width are compared
        exactly (int64 against uint64 too, never through float64). Float ids
        are refused (see Notes), and so is a missing id, with the table,
        column and row in the message.
    score_col : str, default="score"
        Column of ``recommendations`` with the model score. Integer scores
        are compared as integers, so that those above 2**53 keep their order.
    rank_col : str or None, default=None
        Use this column of ranks (smaller is better) instead of scores.
    relevance_col : str or None, default="relevance"
        Column of ``truth`` with grades (numbers >= 0). ``None`` makes every
        row of ``truth`` a relevant item of grade 1.
    relevance_level : float, default=1
        Minimum grade that counts as relevant for the binary metrics
        (precision, recall, f1, hit, mrr, map). NDCG and DCG use the grades.
    denominator : {"relevant", "min_k", "retrieved"}, default="relevant"
        AP denominator, see :func:`average_precision`.
    gain : {"linear", "exponential"}, default="linear"
        DCG gain, see :func:`dcg_at_k`.
    ideal : {"judged", "retrieved"}, default="judged"
        NDCG ideal list, see :func:`ndcg_at_k`.
    log_base : float, default=2
        Base of the DCG discount.
    empty : {"zero", "nan", "raise"}, default="zero"
        Value for a user with nothing relevant (DCG and the counts
        ``num_ret``, ``num_rel``, ``num_rel_ret`` are never empty).
    missing : {"zero", "skip"}, default="zero"
        Users in ``truth`` without any recommendation are scored on an empty
        list, so they get 0 (trec_eval ``-c``), or are left out (``"skip"``,
        trec_eval's default).
    ties : {"item_desc", "item_asc", "numeric_desc", "numeric_asc", "input"}, \
default="item_desc"
        Order of items with equal score (or rank). ``"item_desc"``:
        trec_eval's rule, the item ids compared *as text* (``str(id)`` as
        UTF-8 bytes), descending, so ``9`` comes before ``10`` (see Notes);
        ``"item_asc"``: the same text order, ascending; ``"numeric_desc"`` /
        ``"numeric_asc"``: integer ids compared by value (strings still as
        text); ``"input"``: the order of the rows of ``recommendations`` (a
        stable sort).
    n_jobs : int, default=1
        Number of threads for the join and the metrics: the users are split
        into ``n_jobs`` contiguous chunks of about equal numbers of rows
        (more chunks above a million rows, which are scored about a million
        rows at a time even in one thread, so that the work stays in the
        processor's cache), scored in parallel and put back in order. ``-1`` uses
        ``os.cpu_count()`` threads. The result is identical, bit for bit, to
        ``n_jobs=1``. Inputs of fewer than 100,000 recommendation rows (50,000
        per thread) run in the calling thread. Dask input ignores it: Dask
        schedules the partitions itself.

    Returns
    -------
    pandas.DataFrame or dask.dataframe.DataFrame
        One row per evaluated user (index named ``user_col``, sorted when the
        ids are sortable) and one float column per metric. ``result.mean()``
        gives the usual macro averages (it skips the ``nan`` of
        ``empty="nan"``). For Dask input the result is a lazy Dask
        DataFrame, partitioned by user; see :mod:`metrics_lib.dask_support`.

    Raises
    ------
    ValueError
        Missing or duplicated columns, missing ids, non-finite scores or
        grades, negative grades, a (user, item) pair listed twice in either
        table (the message names the user and the item), unknown metric names
        (and ``hits@k``, whose meaning differs between libraries: see
        :func:`parse_metric`), a ``dcg`` with exponential gain beyond the
        float64 range, or a user with nothing relevant under
        ``empty="raise"``.
    TypeError
        A table that is not a DataFrame, non-numeric scores or grades, float
        ids, a column mixing ids of different types, id columns of different
        kinds in the two tables, or an ``n_jobs`` that is not an integer
        (``ValueError`` if it is 0 or below -1).

    See Also
    --------
    ndcg_at_k, average_precision, reciprocal_rank, precision_at_k :
        the per-list definitions that every value equals.
    read_trec_run, read_trec_qrels : load TREC files into the two tables.

    Notes
    -----
    Conventions are those of the per-list functions, whose defaults follow
    trec_eval. Three batch-only rules, also trec_eval's:

    - a user who appears only in ``recommendations`` is ignored (there is
      nothing to compare the list with), so is not in the result;
    - a user who appears in ``truth`` with no recommendation is scored on an
      empty list (``missing="zero"``, trec_eval ``-c``);
    - items with equal scores are ordered by item id written as text,
      descending. This rule is arbitrary with respect to the model (renaming
      items changes the scores of tied lists); ``ties="input"`` keeps the
      order the model emitted instead.

    trec_eval's tie rule, from its source (trec_eval 10.0, commit f425365):
    ``form_res_rels.c`` sorts a query's documents with ``qsort`` and
    ``comp_sim_docno``, which orders by ``sim`` descending and, for equal
    ``sim``, returns ``strcmp(p2->docno, p1->docno)``: document ids compared
    as C strings, byte by byte (as unsigned chars), descending. Document ids
    are always text in a run file, so an integer id ``i`` is the text
    ``str(i)``: ``"9" > "10"``, and every negative id (``"-"`` is byte 0x2D)
    sorts below every non-negative one (digits are 0x30-0x39). For strings,
    comparing UTF-8 bytes is comparing code points, which is how Python
    compares ``str``. Booleans are ``"True"`` and ``"False"``; categorical ids
    are their categories' values. Float ids are refused rather than written
    as text: ``str(1.0)`` is ``"1.0"``, so a float column holding integer ids
    (as pandas makes after a merge with missing values) would silently
    tie-break differently from the same ids as integers; convert it with
    ``.astype("int64")``.

    Scores: trec_eval 10.0 reads ``sim`` as a C ``double``
    (``get_trec_results.c``, ``atof``; ``trec_format.h``, ``TEXT_RESULTS``),
    and this function compares float scores in float64 too (integer scores
    exactly). pytrec_eval-terrier 0.5.11 compares scores in single
    precision: two scores that differ only beyond float32's resolution (1
    and 1 + 1e-12) tie there (found by running it), and then the id text
    decides. Where the two disagree this function follows trec_eval's
    source.

    No Python loop runs over users: the recommendations are grouped by user
    (free when they already are), sorted by score inside each user only when
    they are not already (checking costs one comparison per row), joined with
    ``truth`` by one sort per user of the user's recommended and judged items
    together (equal neighbours are hits, or duplicates), and every metric is a
    ``np.bincount`` over user codes. Time and memory grow linearly with the
    number of rows.

    Threads (``n_jobs``): close to half of the time on a large table is the
    join, numpy sorts and elementwise passes. numpy releases the
    GIL (Python's global interpreter lock) inside those calls, so chunks of
    users scored in threads run on separate cores without copying the tables
    to other processes. Input checks, grouping and the final assembly stay
    in one thread, so two threads give well under twice the speed; on a
    table of a few thousand rows, threads cost more than they save.
    pytrec_eval scores users in one thread and ranx spends most of its time
    converting the tables in one Python thread (its Numba metric loops do
    run in parallel), so the benchmark in ``benchmarks/`` reports
    ``evaluate`` both with ``n_jobs=1`` (one thread, like for like) and with
    threads.

    References
    ----------
    .. [1] trec_eval, https://github.com/usnistgov/trec_eval
    .. [2] Bassani, "ranx: A Blazing-Fast Python Library for Ranking
       Evaluation and Comparison", ECIR 2022.

    Examples
    --------
    >>> import pandas as pd
    >>> from metrics_lib import evaluate
    >>> recs = pd.DataFrame({"user": [1, 1, 1, 2, 2],
    ...                      "item": ["a", "b", "c", "a", "d"],
    ...                      "score": [0.9, 0.8, 0.1, 0.7, 0.6]})
    >>> truth = pd.DataFrame({"user": [1, 1, 2, 3],
    ...                       "item": ["b", "c", "d", "a"],
    ...                       "relevance": [1, 2, 1, 1]})
    >>> result = evaluate(recs, truth, ["precision@2", "mrr", "ndcg@3"])
    >>> result.round(4)
          precision@2  mrr  ndcg@3
    user
    1             0.5  0.5  0.6199
    2             0.5  0.5  0.6309
    3             0.0  0.0  0.0000
    >>> result.mean().round(4)
    precision@2    0.3333
    mrr            0.3333
    ndcg@3         0.4169
    dtype: float64
    """
    options = _check_options(metrics, relevance_level, denominator, gain, ideal,
                             log_base, empty, missing, ties)
    n_jobs = check_n_jobs(n_jobs)
    if _is_dask(recommendations) or _is_dask(truth):
        from .dask_support import evaluate_dask

        return evaluate_dask(recommendations, truth, options, user_col=user_col,
                             item_col=item_col, score_col=score_col,
                             rank_col=rank_col, relevance_col=relevance_col)
    return _evaluate_frames(recommendations, truth, options, user_col=user_col,
                            item_col=item_col, score_col=score_col,
                            rank_col=rank_col, relevance_col=relevance_col,
                            n_jobs=n_jobs)


def _check_options(metrics, relevance_level, denominator, gain, ideal, log_base,
                   empty, missing, ties) -> dict:
    return {
        "metrics": _parse_metrics(metrics),
        "relevance_level": check_relevance_level(relevance_level),
        "denominator": check_choice("denominator", denominator, AP_DENOMINATORS),
        "gain": check_choice("gain", gain, GAINS),
        "ideal": check_choice("ideal", ideal, IDEALS),
        "log_base": _check_log_base(log_base),
        "empty": check_empty(empty),
        "missing": check_choice("missing", missing, MISSING_POLICIES),
        "ties": check_choice("ties", ties, TIES),
    }


def _common_ints(a: np.ndarray, b: np.ndarray):
    """Two integer id arrays in one dtype that compares their values exactly.

    int64 and uint64 meet in int64 when the uint64 ids fit, in uint64 when the
    int64 ids are non-negative, and as Python ints otherwise: never through
    float64, which merges integers above 2**53.
    """
    if a.dtype == np.uint64 and b.dtype == np.uint64:
        if max(a.max(initial=0), b.max(initial=0)) < 2**63:
            return a.astype(np.int64), b.astype(np.int64)
        return a, b
    if a.dtype == b.dtype:
        return a, b
    if object not in (a.dtype, b.dtype):
        signed, unsigned = (a, b) if a.dtype == np.int64 else (b, a)
        if unsigned.max(initial=0) < 2**63:
            unsigned = unsigned.astype(np.int64)
        elif signed.min(initial=0) >= 0:
            signed = signed.astype(np.uint64)
        else:
            signed, unsigned = signed.astype(object), unsigned.astype(object)
        return (signed, unsigned) if a.dtype == np.int64 else (unsigned, signed)
    return a.astype(object), b.astype(object)


def _ids(column, rec_series, truth_series):
    """Kind and comparable value arrays of one id column of both tables."""
    rec_kind, rec = check_id_column("recommendations", rec_series)
    truth_kind, tru = check_id_column("truth", truth_series)
    # an empty object column (a table built from no rows) has no kind of its own
    if rec.size == 0 and rec_series.dtype == object:
        rec_kind, rec = truth_kind, tru[:0]
    elif tru.size == 0 and truth_series.dtype == object:
        truth_kind, tru = rec_kind, rec[:0]
    check_same_id_kind(column, rec_kind, truth_kind)
    if rec_kind == "int":
        rec, tru = _common_ints(rec, tru)
    return rec_kind, rec, tru


def _item_keys(kind: str, rec: np.ndarray, tru: np.ndarray):
    """Non-negative int64 join keys that order items as their values do.

    Returns ``(rec_keys, truth_keys, decode, span)`` where ``decode(keys)``
    gives back the ids (a scalar or an array) and every key is below ``span``. Integer ids of a moderate span are
    shifted (cheap); wider ones, uint64 and Python ints are replaced by
    their ranks; strings by their ranks in text order (code point order,
    which is the order of their UTF-8 bytes).
    """
    if kind == "bool":
        return (rec.astype(np.int64), tru.astype(np.int64),
                lambda keys: np.asarray(keys).astype(bool), 2)
    if kind == "int" and rec.dtype == np.int64:
        low = min(rec.min(initial=0), tru.min(initial=0))
        high = max(rec.max(initial=0), tru.max(initial=0))
        if int(high) - int(low) < 2**62:
            if low < 0:
                rec, tru = rec - low, tru - low
            shift = np.int64(min(low, 0))
            return rec, tru, (lambda keys: keys + shift), int(high) - int(low) + 1
    both = np.concatenate([rec, tru])
    if kind == "int":  # exact ranks of wide, unsigned or Python integers
        uniques, codes = np.unique(both, return_inverse=True)
    else:
        try:
            codes, uniques = pd.factorize(both, sort=True)
        except TypeError:  # pragma: no cover - check_id_column refuses mixed types
            raise TypeError("ids must be of one comparable type (all numbers or "
                            "all strings)") from None
        uniques = np.asarray(uniques, dtype=object)
    codes = codes.astype(np.int64, copy=False).reshape(-1)
    return (codes[:rec.size], codes[rec.size:], (lambda keys: uniques[keys]),
            max(len(uniques), 1))


def _densify(rec_keys, truth_keys, decode, span, n_users):
    """Ranks instead of keys when (user, item) pairs would not fit in int64.

    The join packs (user code, item key) into one int64. Ids that are few but
    far apart (hashes, ids above 2**53) are replaced by their ranks, which
    keep their order; the common case (ids up to a few billion) is untouched.
    """
    if max(n_users, 1) * span < 2**62:
        return rec_keys, truth_keys, decode
    uniques, codes = np.unique(np.concatenate([rec_keys, truth_keys]),
                               return_inverse=True)
    codes = codes.astype(np.int64, copy=False).reshape(-1)
    return (codes[:rec_keys.size], codes[rec_keys.size:],
            lambda keys: decode(uniques[keys]))


# Powers of ten up to 10**17: integers of at most 17 digits get their text key
# by arithmetic.
_POW10 = 10 ** np.arange(18, dtype=np.int64)


def text_order_key(values: np.ndarray) -> np.ndarray:
    """int64 keys that order integers as their decimal text does.

    The text of an integer is ``str(id)``; texts compare as trec_eval's
    ``strcmp`` compares them, byte by byte, so ``"10" < "9"`` and every
    negative id (``"-"`` is byte 0x2D) comes before every non-negative one
    (digits are 0x30-0x39), and ``"-12" < "-5"``. Integers of at most 17
    digits get the key by arithmetic: the digits padded with zeros on the
    right to 17 places (their text order), then the number of digits (a
    prefix comes first). Wider ones are written as text and ranked.
    """
    if values.dtype == np.int64 and (values.size == 0 or (
            values.min() > -_POW10[17] and values.max() < _POW10[17])):
        magnitude = np.abs(values)
        digits = np.searchsorted(_POW10[1:], magnitude, side="right") + 1
        key = magnitude * _POW10[17 - digits] * 18 + digits
        return np.where(values < 0, key, key + (18 * _POW10[17] + 18))
    # Digits and "-" are ASCII: code point order is the order of UTF-8 bytes.
    text = np.array([str(value) for value in values.tolist()], dtype=str)
    return np.unique(text, return_inverse=True)[1].astype(np.int64).reshape(-1)


def _has_ties(sorted_values: np.ndarray, lengths: np.ndarray) -> bool:
    """True if two neighbours inside one block are equal."""
    if sorted_values.size < 2:
        return False
    equal = np.flatnonzero(sorted_values[1:] == sorted_values[:-1])
    if not equal.size:
        return False
    block_ends = np.cumsum(lengths)[:-1] - 1
    return bool(np.any(~np.isin(equal, block_ends, assume_unique=True)))


def _tie_key(kind: str, ties: str, rec_keys: np.ndarray, decode):
    """``rows -> keys`` ordering items as the ``ties`` rule compares them.

    The join keys already order ids by value, which is the text order of
    strings and booleans ("False" < "True"); integers under the text rule
    need :func:`text_order_key`, computed only for the rows asked for.
    """
    if kind != "int" or ties.startswith("numeric") or ties == "input":
        return lambda rows: rec_keys[rows]
    every_row = []

    def key(rows):
        if every_row:
            return every_row[0][rows]
        keys = rec_keys[rows]
        if 4 * keys.size < rec_keys.size:  # few rows: compute just these
            return text_order_key(np.asarray(decode(keys)))
        # many rows: the key of every row, once, through a table of the
        # distinct join keys when they are not too spread out
        span = int(rec_keys.max(initial=0)) + 1
        if span <= max(2 * rec_keys.size, 1 << 16):
            # as int32 ranks: a table half the size gathers much faster
            order = np.argsort(text_order_key(np.asarray(decode(np.arange(span)))))
            rank = np.empty(span, dtype=np.int32)
            rank[order] = np.arange(span, dtype=np.int32)
            every_row.append(rank.take(rec_keys))
        else:
            every_row.append(text_order_key(np.asarray(decode(rec_keys))))
        return every_row[0][rows]
    return key


def _group_by_user(users: np.ndarray):
    """Block users, block lengths and the permutation that groups the rows.

    The permutation is ``None`` when each user's rows are already
    contiguous, which the common output of a recommender (one block per
    user) is; checking that costs one comparison per row.
    """
    n = len(users)
    if users.dtype.kind in "iub" and n:
        ids = users
        starts = np.flatnonzero(ids[1:] != ids[:-1]) + 1
        block_users = pd.Index(ids[np.r_[0, starts]])
        if block_users.is_unique:
            lengths = np.diff(np.r_[0, starts, n]).astype(np.int64)
            return block_users, lengths, None
    codes, block_users = pd.factorize(users)
    lengths = np.bincount(codes, minlength=block_users.size).astype(np.int64)
    order = None
    if codes.size > 1 and np.any(codes[1:] < codes[:-1]):
        order = _stable_order(codes)
    return pd.Index(block_users), lengths, order


def _user_codes(block_users: pd.Index, truth_users: np.ndarray) -> np.ndarray:
    """Block code of every judged user, -1 for users without a block.

    ``block_users.get_indexer(truth_users)``; integer ids of a moderate span
    (the usual 0..N-1 user numbers) go through a lookup table instead of a
    hash table, several times faster.
    """
    ids = block_users.to_numpy()
    if (ids.size and ids.dtype.kind in "iu" and truth_users.dtype == ids.dtype
            and truth_users.size):
        low, high = int(ids.min()), int(ids.max())
        if high - low < 4 * ids.size + 1024:
            table = np.full(high - low + 1, -1, dtype=np.int64)
            table[ids - ids.dtype.type(low)] = np.arange(ids.size)
            if int(truth_users.min()) >= low and int(truth_users.max()) <= high:
                return table[truth_users - truth_users.dtype.type(low)]
            inside = (truth_users >= low) & (truth_users <= high)
            codes = np.full(truth_users.size, -1, dtype=np.int64)
            codes[inside] = table[truth_users[inside] - truth_users.dtype.type(low)]
            return codes
    return block_users.get_indexer(truth_users)


# Below this many recommendation rows per thread, a thread costs more than it
# saves: the input is scored in the calling thread.
_MIN_ROWS_PER_THREAD = 50_000
# Above this many recommendation rows, the users are scored in chunks of
# about this many rows even in one thread: each chunk's judgements and hits
# then stay in the processor's cache, so that the cost per row does not grow
# with the table (a user's values depend on the user's rows only, so the
# result is the same bit for bit).
_ROWS_PER_CHUNK = 1_000_000


def _concat(arrays):
    return arrays[0] if len(arrays) == 1 else np.concatenate(arrays)


def _chunk_inputs(rec_keys, lengths, truth_code, truth_keys, grades, *, n_extra,
                  n_jobs):
    """Split the block layout into contiguous chunks of users.

    Returns one tuple ``(rec_keys, lengths, truth_code, truth_keys, grades,
    n_users, row_offset, truth_index)`` per chunk: the chunk's arrays with user
    codes counted from 0, where ``row_offset`` and ``truth_index`` (an offset
    when the chunk's judgements are a slice, else their indices) map its row
    and judgement indices back. Chunks hold
    about equal numbers of recommendation rows and keep the users' order;
    users without recommendations (codes from ``len(lengths)`` on) go with
    the last chunk. A single chunk is the input itself, untouched.
    """
    n_blocks = lengths.size
    n_chunks = min(max(min(n_jobs, rec_keys.size // _MIN_ROWS_PER_THREAD),
                       rec_keys.size // _ROWS_PER_CHUNK), n_blocks)
    if n_chunks <= 1:
        return [(rec_keys, lengths, truth_code, truth_keys, grades,
                 n_blocks + n_extra, 0, 0)]
    # The join keys must fit for the whole table, as without chunks.
    span = int(max(rec_keys.max(initial=0), truth_keys.max(initial=0))) + 1
    if (n_blocks + n_extra) * span >= 2**62:
        raise OverflowError("too many (user, item) pairs for 64-bit join keys")
    ends = np.cumsum(lengths)
    targets = rec_keys.size * np.arange(1, n_chunks) / n_chunks
    cuts = np.unique(np.searchsorted(ends, targets, side="left") + 1)
    bounds = np.r_[0, cuts[cuts < n_blocks], n_blocks]
    # Judgements grouped by user in block order (the usual case) split into
    # slices; otherwise each chunk gathers its own, in their original order.
    grouped = truth_code.size < 2 or bool(np.all(truth_code[1:] >= truth_code[:-1]))
    if grouped:
        truth_bounds = np.r_[0, np.searchsorted(truth_code, bounds[1:-1]),
                             truth_code.size]
    else:  # each chunk's judgements, in their original order
        owner = np.searchsorted(bounds[1:-1], truth_code, side="right")
        by_owner = _stable_order(owner)
        owner_bounds = np.r_[0, np.cumsum(np.bincount(owner, minlength=bounds.size - 1))]
        del owner
    chunks = []
    for j in range(bounds.size - 1):
        first, stop = int(bounds[j]), int(bounds[j + 1])
        row_start = int(ends[first - 1]) if first else 0
        row_stop = int(ends[stop - 1])
        if grouped:
            index = slice(int(truth_bounds[j]), int(truth_bounds[j + 1]))
            mapping = index.start
        else:
            index = mapping = by_owner[owner_bounds[j]:owner_bounds[j + 1]]
        last = j == bounds.size - 2
        chunks.append((rec_keys[row_start:row_stop], lengths[first:stop],
                       truth_code[index] - first, truth_keys[index], grades[index],
                       stop - first + (n_extra if last else 0), row_start, mapping))
    return chunks


def _score_chunk(rec_keys, lengths, truth_code, truth_keys, grades, n_users,
                 row_offset, truth_index, *, levels, options):
    """Join and metric values of one chunk of users (runs in a worker thread).

    Returns a dict with the first duplicate recommendation row and judgement
    (global indices, or -1; the values are skipped when there is one) and,
    per metric name, ``(values, empty_users)`` over the chunk's user codes.
    """
    hit_rows, hit_grades, dup_row, dup_truth = lookup_grades(
        rec_keys, lengths, truth_code, truth_keys, grades)
    out = {"dup_row": dup_row + row_offset if dup_row >= 0 else -1,
           "dup_truth": (-1 if dup_truth < 0
                         else dup_truth + truth_index if np.isscalar(truth_index)
                         else int(truth_index[dup_truth])),
           "values": {}}
    if dup_row >= 0 or dup_truth >= 0:
        return out
    table = UserTable(lengths, hit_rows, hit_grades, truth_code, grades, n_users,
                      levels=levels)
    trec = (TrecTable(table.list_len, lengths, hit_rows, hit_grades, truth_code,
                      grades, n_users)
            if any(kind in TREC_KINDS for _, kind, _ in options["metrics"]) else None)
    del hit_rows, hit_grades
    for name, kind, k in options["metrics"]:
        if kind in TREC_KINDS:
            values, empty_users = trec.measure(kind, k, options["relevance_level"])
        elif kind == "dcg":
            values, empty_users = table.dcg(k, options["gain"], options["log_base"]), None
        elif kind == "ndcg":
            values, empty_users = table.ndcg(k, options["gain"], options["log_base"],
                                             options["ideal"])
        else:
            values, empty_users = table.binary(kind, k, options["relevance_level"],
                                               options["denominator"])
        out["values"][name] = (values, empty_users)
    return out


def _evaluate_frames(recommendations, truth, options, *, user_col, item_col,
                     score_col, rank_col, relevance_col, n_jobs=1):
    """The pandas path of :func:`evaluate` (options already checked)."""
    rec_value_col = score_col if rank_col is None else rank_col
    check_frame_columns("recommendations", recommendations,
                        [user_col, item_col, rec_value_col])
    truth_cols = [user_col, item_col] + ([] if relevance_col is None
                                         else [relevance_col])
    check_frame_columns("truth", truth, truth_cols,
                        hint=None if relevance_col is None else
                        "pass relevance_col=None if every row of truth is a "
                        "relevant item of grade 1")
    user_kind, rec_users, truth_users = _ids(user_col, recommendations[user_col],
                                             truth[user_col])
    item_kind, rec_items, truth_items = _ids(item_col, recommendations[item_col],
                                             truth[item_col])
    # Integer scores and ranks stay integers: float64 would merge those above 2**53.
    values = check_value_column("recommendations", recommendations[rec_value_col],
                                exact_integers=True)
    if relevance_col is None:
        grades = np.ones(len(truth), dtype=np.float64)
    else:
        grades = check_value_column("truth", truth[relevance_col], minimum=0.0)

    # 1. Group the recommendations by user: blocks 0..B-1 in first-seen order.
    block_users, lengths, order = _group_by_user(rec_users)

    # 2. Code the judged users: blocks first, then users never recommended.
    truth_code = _user_codes(block_users, truth_users)
    unseen = truth_code < 0
    extra_users = block_users[:0]
    if unseen.any():
        extra_codes, extra_users = pd.factorize(truth_users[unseen])
        truth_code[unseen] = block_users.size + extra_codes
    truth_code = truth_code.astype(np.int64, copy=False)
    n_users = block_users.size + len(extra_users)
    user_ids = pd.Index(block_users).append(pd.Index(extra_users))
    if user_kind == "str":
        user_ids = user_ids.astype(recommendations[user_col].dtype
                                   if pd.api.types.is_string_dtype(
                                       recommendations[user_col].dtype) else object)

    # 3. Item keys, then the rank order inside each block: score (or rank),
    #    then the tie rule.
    rec_keys, truth_keys, decode_item, span = _item_keys(item_kind, rec_items,
                                                         truth_items)
    del rec_items, truth_items
    rec_keys, truth_keys, decode_item = _densify(rec_keys, truth_keys, decode_item,
                                                 span, n_users)
    if order is not None:
        rec_keys, values = rec_keys[order], values[order]
    del order
    ties = options["ties"]
    descending = rank_col is None
    tie_key = _tie_key(item_kind, ties, rec_keys, decode_item)
    if not in_block_order(values, descending, tie_key, ties, lengths):
        # ~x reverses the order of integers without overflowing at the minimum
        primary = ((~values if values.dtype.kind in "iu" else -values) if descending
                   else values)
        # Ties next to each other in the input are certain ties: then one sort
        # on both keys; otherwise a sort on the values first, which is final
        # unless it brings equal values together.
        within = (None if ties != "input" and _has_ties(primary, lengths)
                  else segment_argsort((primary,), lengths))
        if within is None or (ties != "input" and _has_ties(primary[within], lengths)):
            # the tie key only matters (and is only computed) when values tie
            tie = tie_key(slice(None))
            sort_keys = ((tie.max(initial=0) - tie if ties.endswith("_desc") else tie),
                         primary)
            del tie
            within = segment_argsort(sort_keys, lengths)
            del sort_keys
        del primary
        rec_keys = rec_keys[within]
        del within
    del values, tie_key

    # 4. Join and per-user values, by contiguous chunks of users (one per
    #    thread). Every user's values depend on that user's rows only, so
    #    chunking cannot change them.
    levels = grade_levels(grades)
    chunks = _chunk_inputs(rec_keys, lengths, truth_code, truth_keys, grades,
                           n_extra=len(extra_users), n_jobs=n_jobs)
    if len(chunks) == 1 or n_jobs == 1:
        parts = [_score_chunk(*chunk, levels=levels, options=options)
                 for chunk in chunks]
    else:
        with ThreadPoolExecutor(max_workers=min(n_jobs, len(chunks))) as pool:
            parts = list(pool.map(
                lambda chunk: _score_chunk(*chunk, levels=levels, options=options),
                chunks))
    del chunks
    for part in parts:  # the first duplicate in user order, as one pass finds
        if part["dup_row"] >= 0:
            dup_row = part["dup_row"]
            block = int(np.searchsorted(np.cumsum(lengths), dup_row, side="right"))
            raise ValueError(
                f"recommendations lists item {_plain(decode_item(rec_keys[dup_row]))!r} "
                f"twice for user {_plain(user_ids[block])!r}; each (user, item) pair "
                "may appear once (drop_duplicates before evaluating)")
    for part in parts:
        if part["dup_truth"] >= 0:
            dup_truth = part["dup_truth"]
            raise ValueError(
                f"truth judges item {_plain(decode_item(truth_keys[dup_truth]))!r} twice "
                f"for user {_plain(user_ids[truth_code[dup_truth]])!r}; each (user, "
                "item) pair may appear once")
    del rec_keys

    # 5. Empty users and the users to report, over all chunks at once.
    selected = np.bincount(truth_code, minlength=n_users) > 0
    if options["missing"] == "skip":
        selected[block_users.size:] = False
    columns = {}
    for name, kind, k in options["metrics"]:
        result = _concat([part["values"][name][0] for part in parts])
        empty_users = (None if kind == "dcg" or kind in NEVER_EMPTY
                       else _concat([part["values"][name][1] for part in parts]))
        if empty_users is not None:
            empty_users &= selected
            if empty_users.any():
                if options["empty"] == "raise":
                    user = _plain(user_ids[int(np.argmax(empty_users))])
                    what = ("no judged item with a positive grade" if kind == "ndcg"
                            else "no item at or above relevance_level")
                    raise ValueError(f"{name}: user {user!r} has {what}, and "
                                     "empty='raise' was requested")
                result[empty_users] = 0.0 if options["empty"] == "zero" else np.nan
        columns[name] = result[selected]
    del parts

    ids = user_ids[selected]
    frame = pd.DataFrame(columns, index=ids.rename(user_col))
    frame.columns.name = None
    try:
        frame = frame.iloc[np.argsort(ids.to_numpy(), kind="stable")]
    except TypeError:  # ids of mixed types: keep first-seen order
        pass
    return frame
