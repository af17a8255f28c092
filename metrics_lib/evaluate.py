"""Batch evaluation of many users at once, from two DataFrames.

:func:`evaluate` is the table-shaped twin of the per-list functions in
:mod:`metrics_lib.ranking`: it takes every user's recommendations and
judgements as rows of two DataFrames and returns one row of metric values per
user, equal to what the per-list functions return for that user. The work is
done by the vectorised kernels of :mod:`metrics_lib._kernels`; this module
checks the input and translates ids into integer codes.
"""

from __future__ import annotations

import functools
import inspect
from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import pandas as pd

from ._kernels import (UserTable, _stable_order, block_starts, grade_levels,
                       in_block_order, lookup_grades, segment_argsort)
from ._missing import MISSING_POLICIES, report_missing
from ._passes import min_max, neighbours_where
from ._tie_kernels import (EXPECTATION_MODES, TIE_MODES, TieGroups,
                           refuse_unknown_options, refuse_unsupported,
                           reorder_hits, tie_starts)
from ._trec_kernels import TrecTable
from ._validation import (
    check_choice,
    check_empty,
    check_frame_columns,
    check_id_column,
    check_k,
    check_bool,
    check_gain,
    check_min_grade,
    check_n_jobs,
    check_relevance_level,
    check_score_threshold,
    check_truncate,
    check_same_id_kind,
    common_ints as _common_ints,
    check_value_column,
    _as_python_id as _plain,
    show,
)
from .ranking import (AP_DENOMINATORS, CANDIDATES, GAINS, IDEALS,
                      PRECISION_DENOMINATORS,
                      RECALL_DENOMINATORS, _check_log_base, gain_grades)
from .ranking import registry
from .ranking.registry import parse_metric

__all__ = ["evaluate", "parse_metric", "TIES", "MISSING_POLICIES"]

# Fixed orders of equal scores (the tie-breaking rules)...
TIES = ("item_desc", "item_asc", "numeric_desc", "numeric_asc", "input")
# ...and every accepted value of ties=: those plus the modes that do not
# depend on the order inside a tie group (metrics_lib/_tie_kernels.py).
ALL_TIES = TIES + TIE_MODES
UNJUDGED_POLICIES = ("skip", "empty")
NO_HIT_POLICIES = ("zero", "nan")

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
            raise ValueError(f"metric {show(name)} is listed twice")
        seen.add(name)
        parsed.append((name, kind, k))
    return parsed


def _is_dask(frame) -> bool:
    module = type(frame).__module__ or ""
    return module.startswith(("dask.", "dask_expr"))


def _convention_wrapper(function):
    """``function`` with ``convention=`` applied to the keywords its caller wrote.

    A preset must know which keywords the caller passed, not only their
    values: ``missing="zero"`` is the caller's choice even though it is the
    default (issue 22), so the wrapper sees them before defaults fill in.
    """
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args, **keywords):
        if keywords.get("convention") is None:
            return function(*args, **keywords)
        given = signature.bind(*args, **keywords)  # Python's own TypeErrors
        given.apply_defaults()
        from .conventions import _evaluate_with_convention

        return _evaluate_with_convention(wrapper, dict(given.arguments), set(keywords))

    return wrapper


@_convention_wrapper
def evaluate(recommendations, truth, metrics, *, user_col="user", item_col="item",
             score_col="score", rank_col=None, relevance_col="relevance",
             relevance_level=1, denominator="relevant", gain="linear",
             ideal="judged", log_base=2, empty="zero", missing="warn",
             ties="item_desc", n_jobs=1, precision_denominator="k",
             recall_denominator="relevant", min_grade=None, judged_only=False,
             unjudged="skip", truncate=None, no_hit="zero", candidates="all",
             score_threshold=None, convention=None):
    """Ranking metrics for every user, from a recommendations and a truth table.

    Parameters
    ----------
    recommendations : pandas, Polars or Dask DataFrame, LazyFrame or pyarrow.Table
        One row per recommended (user, item) pair, with a ``score_col``
        (higher is better) or a ``rank_col`` (1 is best). Rows may come in
        any order; a user's rows need not be contiguous. Of a Polars or
        Arrow table only the id, score (or rank) columns are read, without
        converting the table to pandas (a LazyFrame computes only those
        columns); the values and the errors are those of the same data in
        pandas, and a row named in an error message is a row position.
        Polars and pyarrow are optional: they are imported only when such a
        table is passed.
    truth : pandas, Polars or Dask DataFrame, LazyFrame or pyarrow.Table
        One row per judged (user, item) pair, with a grade in
        ``relevance_col`` (or none, see below). It may come from another
        library than ``recommendations``.
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
        object column; Polars ``Int8`` ... ``UInt64``, ``Int128``; Arrow
        ``int8`` ... ``uint64``), strings (object, ``string``,
        ``string[pyarrow]``; Polars ``String``; Arrow ``string``,
        ``large_string``, ``string_view``) or booleans, of the same kind in
        both tables; categorical columns (Polars ``Categorical`` and
        ``Enum``, Arrow dictionary arrays) count as their categories' values;
        other id types (dates, lists) are refused. Integers of any width are compared
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
        (precision, recall, f1, hit, mrr, map). NDCG and DCG use the grades
        (``gain="binary"`` uses this level too). ``0`` makes every judged
        item relevant, grade 0 included (trec_eval ``-l 0``); a negative
        level is refused (trec_eval then counts unjudged items as relevant).
    denominator : {"relevant", "min_k", "retrieved", "k"}, default="relevant"
        AP denominator, see :func:`average_precision` (``"k"`` needs a
        cut-off in every ``map`` metric asked for).
    gain : {"linear", "exponential", "binary"} or mapping, default="linear"
        DCG gain, see :func:`dcg_at_k`: ``"binary"`` is 1 for a grade at or
        above ``relevance_level``; a mapping ``{grade: gain}`` must give a
        gain for every grade of ``truth``.
    ideal : {"judged", "retrieved", "k"}, default="judged"
        NDCG ideal list, see :func:`ndcg_at_k` (``"k"`` needs a cut-off in
        every ``ndcg`` metric asked for).
    log_base : float, default=2
        Base of the DCG discount.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Value for a user with nothing relevant (DCG and the counts
        ``num_ret``, ``num_rel``, ``num_rel_ret`` are never empty): 0, ``nan``,
        1 (``"one"``: torchmetrics 1.9.0 ``empty_target_action="pos"``,
        ``retrieval/base.py``, ``RetrievalMetric.compute``), or a
        ``ValueError``.
    missing : {"warn", "zero", "skip", "raise"}, default="warn"
        Users in ``truth`` without any recommendation. ``"warn"``: scored on
        an empty list, so 0 for every metric and kept in the means (trec_eval
        ``-c``), with a :class:`MissingUsersWarning` that says how many of the
        users in ``truth`` they are; ``"zero"``: the same without the warning;
        ``"skip"``: left out of the result; ``"raise"``: a ``ValueError``, as
        trec_eval 10.0 without ``-c`` stops (exit status 4). See Notes.
    ties : {"item_desc", "item_asc", "numeric_desc", "numeric_asc", "input", \
"average", "block", "best", "worst"}, default="item_desc"
        Order of items with equal score (or rank). ``"item_desc"``:
        trec_eval's rule, the item ids compared *as text* (``str(id)`` as
        UTF-8 bytes), descending, so ``9`` comes before ``10`` (see Notes);
        ``"item_asc"``: the same text order, ascending; ``"numeric_desc"`` /
        ``"numeric_asc"``: integer ids compared by value (strings still as
        text); ``"input"``: the order of the rows of ``recommendations`` (a
        stable sort). Four modes do not depend on any order of equal
        scores: ``"average"`` (the expectation over all orders of every tie
        group, in closed form; scikit-learn ``ndcg_score`` for NDCG),
        ``"block"`` (every tied item gets the group's last rank;
        scikit-learn ``average_precision_score`` for AP), ``"best"`` /
        ``"worst"`` (higher grades first / last inside each tie group: the
        bounds over all tie orders). They are defined in the notes of
        :mod:`metrics_lib.ranking`; a metric a mode does not define
        (``"block"`` with DCG/NDCG, ``"average"``/``"block"`` with bpref,
        iprec_at_recall or ``ideal="retrieved"``) raises ``ValueError``.
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
    precision_denominator : {"k", "min_k", "retrieved"}, default="k"
        Denominator of ``precision@k``, see :func:`precision_at_k`:
        ``k``, ``min(k, |R|)`` (RecTools ``Precision(r_precision=True)``) or
        ``min(k, list length)`` (torchmetrics ``adaptive_k=True``). ``f1``
        keeps ``k``.
    recall_denominator : {"relevant", "min_k"}, default="relevant"
        Denominator of ``recall@k``, see :func:`recall_at_k`.
    min_grade : float or None, default=None
        NDCG and DCG: grades below it count as 0, see :func:`dcg_at_k`
        (ranx ``ndcg@k-l2`` is ``min_grade=2``).
    judged_only : bool, default=False
        Remove the recommendations that ``truth`` does not judge (for that
        user) before ranks are counted, for every metric: condensed lists
        (trec_eval ``-J``, ir-measures ``judged_only=True``).
    unjudged : {"skip", "empty"}, default="skip"
        Users with recommendations but no row in ``truth``: left out, without
        a warning (trec_eval ignores them too), or scored as users with nothing relevant, whose value
        ``empty`` then sets (torchmetrics 1.9.0
        ``empty_target_action="neg"`` is ``unjudged="empty"`` with
        ``empty="zero"``; ``retrieval/base.py``, ``RetrievalMetric.compute``).
    truncate : int or None, default=None
        Cut every list to its first ``truncate`` items and count the hits in
        all of them, whatever the metric's ``k``, which then only enters
        denominators and ideal lists (Microsoft Recommenders 1.2.1
        ``relevancy_method="by_threshold"``, ``threshold=truncate``; see
        :func:`precision_at_k`).
    no_hit : {"zero", "nan"}, default="zero"
        Value of a user who has something relevant but whose metric is 0
        because no relevant item (no positive gain, for NDCG) lies in the
        part of the list the metric scores: 0, or ``nan`` so that a later
        ``mean()`` leaves the user out. Microsoft Recommenders 1.2.1
        ``r_precision_at_k`` averages only over the users with a relevant
        item in their top ``min(k, |R|)``: ``rprec@k`` with
        ``no_hit="nan"``. The counts and ``dcg`` never change.
    candidates : {"all", "recommended"}, default="all"
        ``"recommended"`` keeps only the judgements of the items in each
        user's list (before ``truncate``), as a peer does that scores only
        the items it is given: torchmetrics 1.9.0 retrieval metrics and
        scikit-learn's ranking functions fed the recommended items. Recall,
        R-precision, AP and the ideal DCG then count the relevant items of
        the list only, and a user none of whose listed items is judged has
        nothing relevant (``empty`` decides).
    score_threshold : float or None, default=None
        A recommended item whose score is at or below this value is never a
        hit: it keeps its rank (and counts in the list's length) but counts
        as a judged non-relevant item (grade 0), for every metric asked for,
        while the user's judgements are unchanged (``|R|``, the ideal DCG of
        ``ideal="judged"``, and which users have nothing relevant). torchmetrics
        1.9.0 does this with ``score_threshold=0`` in AP, precision, recall and
        reciprocal rank (``torch.where(preds > 0, target, 0)`` in
        ``functional/retrieval/average_precision.py``, ``precision.py``,
        ``recall.py``, ``reciprocal_rank.py``), not in NDCG, hit rate or
        R-precision. Needs scores (not ``rank_col``); not available with
        ``ties="average"`` or ``"block"``.
    convention : str or None, default=None
        Compute every metric as another library does: ``"trec_eval"``,
        ``"pytrec_eval"``, ``"ranx"``, ``"recommenders"``, ``"recbole"``,
        ``"torchmetrics"``, ``"sklearn"``, ``"rectools"`` or
        ``"ir_measures"`` (see :func:`describe_convention`). The metric
        names may then be that library's own (``"ndcg_burges@10"`` for ranx,
        ``"RetrievalMAP@10"`` for torchmetrics), with its options in call
        syntax (``"MAP(divide_by_k=True)@10"`` for RecTools) or this
        library's names (the library's metric of that kind). The preset sets
        every convention keyword for each metric; a metric the library does
        not define is refused. A keyword not passed is the preset's. A keyword
        passed, even at its default value, is never ignored: one that stands
        for an option of the library (trec_eval's ``relevance_level``,
        ``judged_only`` and ``missing``, its ``-c``; torchmetrics' ``empty``;
        ...) sets that option, unless the metric's name sets it otherwise
        (ranx ``"map@10-l2"`` with ``relevance_level=1``); one equal to the
        preset's value is accepted; any other raises ``ValueError`` naming
        the keyword, the preset's value and the one passed (drop the
        keyword, or drop ``convention=`` and pass the keywords of
        :func:`describe_convention` yourself). The keywords used are in
        ``result.attrs["convention"]``. pandas input only.

    Returns
    -------
    pandas.DataFrame, polars.DataFrame, pyarrow.Table or dask.dataframe.DataFrame
        One row per evaluated user (index named ``user_col``, sorted when the
        ids are sortable) and one float column per metric. ``result.mean()``
        gives the usual macro averages (it skips the ``nan`` of
        ``empty="nan"``). For Dask input (either table) the result is a lazy
        Dask DataFrame, partitioned by user; see
        :mod:`metrics_lib.dask_support`. Otherwise the result is a table of
        the library of ``recommendations``: for a Polars DataFrame or
        LazyFrame, a Polars DataFrame (computed); for a pyarrow Table, a
        pyarrow Table. These have no index: their first column, named
        ``user_col``, holds the user ids (integers as ``int64``, or
        ``uint64`` for ids of 2**63 and more, or, when the users need both
        negative ids and ids of 2**63 and more, Polars ``Int128`` or Arrow
        ``decimal128(20, 0)``, never float64; strings; booleans), in the
        same order as the pandas result, followed by one float64 column per
        metric (``result.select(pl.exclude(user_col)).mean()`` in Polars
        gives the macro averages).

    Raises
    ------
    ValueError
        A negative ``relevance_level``; missing or duplicated columns, missing
        ids, non-finite scores or
        grades, negative grades, a (user, item) pair listed twice in either
        table (the message names the user and the item), unknown metric names
        (and ``hits@k``, whose meaning differs between libraries: see
        :func:`parse_metric`), a ``dcg`` with exponential gain beyond the
        float64 range, or a user with nothing relevant under
        ``empty="raise"``, or a user of ``truth`` without recommendations
        under ``missing="raise"``; a convention keyword with an unknown value,
        ``denominator="k"`` or ``ideal="k"`` with a metric that has no
        cut-off, a ``gain`` mapping that lacks a grade of ``truth`` or gives
        a negative gain, ``truncate`` below 1, a ``score_threshold`` that is
        not finite or comes with ``rank_col`` or ``ties="average"`` /
        ``"block"``; with ``convention``, an
        unknown library, a metric it does not define or a keyword passed
        that contradicts its preset (or the metric's name).
    TypeError
        A table that is not a DataFrame, non-numeric scores or grades, float
        ids, a column mixing ids of different types, id columns of different
        kinds in the two tables, an ``n_jobs`` that is not an integer
        (``ValueError`` if it is 0 or below -1), a ``gain`` that is neither a
        name nor a mapping, a ``judged_only`` that is not a bool, a
        ``min_grade``, ``truncate`` or ``score_threshold`` that is not a number.

    Warns
    -----
    MissingUsersWarning
        Under ``missing="warn"`` (the default), once per call, when users of
        ``truth`` have no recommendations: they are scored 0. The message
        gives their number and the users of ``truth``, and names
        ``missing=``.

    See Also
    --------
    ndcg_at_k, average_precision, reciprocal_rank, precision_at_k :
        the per-list definitions that every value equals.
    describe_convention : the keywords of ``convention=``.
    read_trec_run, read_trec_qrels : load TREC files into the two tables.

    Notes
    -----
    Conventions are those of the per-list functions, whose defaults follow
    trec_eval. Three batch-only rules, also trec_eval's:

    - a user who appears only in ``recommendations`` is ignored (there is
      nothing to compare the list with), so is not in the result, and no
      warning is given (``unjudged=`` decides);
    - a user who appears in ``truth`` with no recommendation is scored on an
      empty list, 0 for every metric, as trec_eval ``-c`` scores it, with a
      :class:`MissingUsersWarning` (``missing=`` decides);
    - items with equal scores are ordered by item id written as text,
      descending. This rule is arbitrary with respect to the model (renaming
      items changes the scores of tied lists); ``ties="input"`` keeps the
      order the model emitted instead.

    Users on one side only, in trec_eval 10.0 (commit f425365,
    ``trec_eval.c``, ``main``): it loops over the queries of the qrels, so a
    query only in the run is never evaluated; a query of the qrels without
    results is scored on an empty ranking under ``-c`` and otherwise stops the
    program (``result qid ... not found in qrels``, exit status 4). Its help
    text still says such queries are ignored, which is what
    ``missing="skip"`` does (and pytrec_eval-terrier 0.5.11, found by running it). A silent 0 is the trap: a sample of users
    evaluated against the whole truth table enters every judged user left out
    of the sample into the means as 0, hence the warning. Dask input: with
    ``missing="warn"`` or ``"raise"`` the user columns of both tables are
    computed when :func:`evaluate` is called (one pass, to count those users
    once for the call); the other values keep the call lazy.

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
    >>> result = evaluate(recs, truth, ["precision@2", "mrr", "ndcg@3"],
    ...                   missing="zero")
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

    User 3 has judgements but no recommendations: ``missing="zero"`` scores
    it 0, as the default does, which also warns (``MissingUsersWarning``);
    ``missing="skip"`` leaves it out and ``missing="raise"`` refuses:

    >>> float(evaluate(recs, truth, "mrr", missing="skip")["mrr"].mean())
    0.5
    >>> evaluate(recs, truth, "mrr", missing="raise")
    Traceback (most recent call last):
    ...
    ValueError: 1 of the 3 users in truth have no recommendations (user 3, for one), ...

    The same tables in Polars (a LazyFrame or a pyarrow Table work alike)
    give a Polars DataFrame, with the users in a column:

    >>> import polars as pl
    >>> result = evaluate(pl.from_pandas(recs), pl.from_pandas(truth).lazy(),
    ...                   ["precision@2", "mrr", "ndcg@3"], missing="zero")
    >>> result.with_columns(pl.col("ndcg@3").round(4))
    shape: (3, 4)
    ┌──────┬─────────────┬─────┬────────┐
    │ user ┆ precision@2 ┆ mrr ┆ ndcg@3 │
    │ ---  ┆ ---         ┆ --- ┆ ---    │
    │ i64  ┆ f64         ┆ f64 ┆ f64    │
    ╞══════╪═════════════╪═════╪════════╡
    │ 1    ┆ 0.5         ┆ 0.5 ┆ 0.6199 │
    │ 2    ┆ 0.5         ┆ 0.5 ┆ 0.6309 │
    │ 3    ┆ 0.0         ┆ 0.0 ┆ 0.0    │
    └──────┴─────────────┴─────┴────────┘
    """
    # convention= never reaches here: _convention_wrapper applies it
    options = _check_options(metrics, relevance_level, denominator, gain, ideal,
                             log_base, empty, missing, ties)
    options.update(_check_conventions(
        options["metrics"], precision_denominator=precision_denominator,
        recall_denominator=recall_denominator, min_grade=min_grade,
        judged_only=judged_only, unjudged=unjudged, truncate=truncate,
        no_hit=no_hit, denominator=denominator, ideal=ideal, gain=options["gain"],
        candidates=candidates, score_threshold=score_threshold))
    _refuse_expectation_combinations(options)
    n_jobs = check_n_jobs(n_jobs)
    # Polars and Arrow tables: only the needed columns, as pandas Series over
    # their numpy buffers (metrics_lib/_frames.py); the result goes back to
    # the library of the recommendations.
    from ._frames import native_library, result_as

    like = recommendations
    library = native_library(recommendations)
    if library is not None or native_library(truth) is not None:
        recommendations, truth = _read_native(recommendations, truth, user_col,
                                              item_col, score_col, rank_col,
                                              relevance_col)
    if _is_dask(recommendations) or _is_dask(truth):
        from .dask_support import evaluate_dask

        return evaluate_dask(recommendations, truth, options, user_col=user_col,
                             item_col=item_col, score_col=score_col,
                             rank_col=rank_col, relevance_col=relevance_col)
    result = _evaluate_frames(recommendations, truth, options, user_col=user_col,
                              item_col=item_col, score_col=score_col,
                              rank_col=rank_col, relevance_col=relevance_col,
                              n_jobs=n_jobs)
    return result if library is None else result_as(library, like, result, user_col)


_TRUTH_HINT = ("pass relevance_col=None if every row of truth is a relevant item "
               "of grade 1")


def _column_keywords(user_col, item_col, score_col, rank_col, relevance_col):
    """The columns each table must hold, by the keyword that names each.

    A missing column's message then names the keyword that fixes it.
    """
    value = {"score_col": score_col} if rank_col is None else {"rank_col": rank_col}
    rec = {"user_col": user_col, "item_col": item_col, **value}
    truth = {"user_col": user_col, "item_col": item_col}
    if relevance_col is not None:
        truth["relevance_col"] = relevance_col
    return rec, truth


def _read_native(recommendations, truth, user_col, item_col, score_col, rank_col,
                 relevance_col):
    """Each Polars or Arrow table as a pandas frame of the columns evaluate reads."""
    from ._frames import column_names, native_library, read_columns
    from ._validation import check_column_names

    value_col = score_col if rank_col is None else rank_col
    truth_cols = [user_col, item_col] + ([] if relevance_col is None
                                         else [relevance_col])
    hint = None if relevance_col is None else _TRUTH_HINT
    rec_keywords, truth_keywords = _column_keywords(user_col, item_col, score_col,
                                                    rank_col, relevance_col)
    # every column check before any data is read, in the pandas path's order
    for name, frame, columns, why in (("recommendations", recommendations, rec_keywords,
                                       None), ("truth", truth, truth_keywords, hint)):
        if native_library(frame) is not None:
            check_column_names(name, column_names(frame), columns, hint=why)
        elif not _is_dask(frame):
            check_frame_columns(name, frame, columns, hint=why)
    if native_library(recommendations) is not None:
        recommendations = read_columns("recommendations", recommendations,
                                       ids=[user_col, item_col], values=[value_col])
    if native_library(truth) is not None:
        truth = read_columns("truth", truth, ids=[user_col, item_col],
                             values=truth_cols[2:])
    return recommendations, truth


def _check_options(metrics, relevance_level, denominator, gain, ideal, log_base,
                   empty, missing, ties) -> dict:
    parsed = _parse_metrics(metrics)
    for name, kind, _ in parsed:
        refuse_unsupported(ties, kind, ideal=ideal, name=name)
    return {
        "metrics": parsed,
        "relevance_level": check_relevance_level(relevance_level),
        "denominator": check_choice("denominator", denominator, AP_DENOMINATORS),
        "gain": check_gain(gain, GAINS),
        "ideal": check_choice("ideal", ideal, IDEALS),
        "log_base": _check_log_base(log_base),
        "empty": check_empty(empty),
        "missing": check_choice("missing", missing, MISSING_POLICIES),
        "ties": check_choice("ties", ties, ALL_TIES),
    }


def _check_conventions(metrics, *, precision_denominator, recall_denominator,
                       min_grade, judged_only, unjudged, truncate, no_hit,
                       denominator, ideal, gain, candidates, score_threshold) -> dict:
    """The convention keywords of issue 12, checked against the metrics asked for."""
    for name, kind, k in metrics:  # each metric's own refusals (its module's check)
        check = registry.get(kind).check
        if check is not None:
            check(name, k, {"denominator": denominator, "ideal": ideal})
    min_grade = check_min_grade(min_grade)
    return {
        "precision_denominator": check_choice("precision_denominator",
                                              precision_denominator,
                                              PRECISION_DENOMINATORS),
        "recall_denominator": check_choice("recall_denominator", recall_denominator,
                                           RECALL_DENOMINATORS),
        "min_grade": min_grade,
        "judged_only": check_bool("judged_only", judged_only),
        "unjudged": check_choice("unjudged", unjudged, UNJUDGED_POLICIES),
        "truncate": check_truncate(truncate),
        "no_hit": check_choice("no_hit", no_hit, NO_HIT_POLICIES),
        "candidates": check_choice("candidates", candidates, CANDIDATES),
        "score_threshold": check_score_threshold(score_threshold),
        # NDCG and DCG then run on transformed grades (see gain_grades)
        "gain_transform": min_grade is not None or gain not in ("linear", "exponential"),
    }


def _refuse_expectation_combinations(options) -> None:
    """ties='average' / 'block' with a keyword of issue 12 that their kernels lack.

    The expectation kernels (metrics_lib/_tie_kernels.py) and the convention
    keywords were written side by side; until the kernels take those keywords,
    a combination is refused rather than computed without the keyword.
    """
    mode = options["ties"]
    if mode not in EXPECTATION_MODES:
        return
    unsupported = []
    for key, neutral in (("precision_denominator", "k"), ("recall_denominator", "relevant"),
                         ("min_grade", None), ("judged_only", False), ("truncate", None),
                         ("no_hit", "zero"), ("score_threshold", None)):
        if options[key] != neutral:
            unsupported.append(f"{key}={show(options[key])}")
    if options["denominator"] == "k":
        unsupported.append("denominator='k'")
    if options["ideal"] == "k":
        unsupported.append("ideal='k'")
    if options["gain_transform"] and options["min_grade"] is None:
        unsupported.append(f"gain={show(options['gain'])}")
    for name, kind, k in options["metrics"]:
        if kind in ("num_rel_ret", "rprec") and k is not None:
            unsupported.append(f"metric {show(name)}")
    if unsupported:
        raise ValueError(f"ties={show(mode)} is not available with "
                         f"{', '.join(unsupported)} (not implemented yet); use "
                         "ties='best' / ties='worst' for the bounds, or a fixed order")


def _reshape_lists(lengths, hit_rows, hit_grades, judged_only, truncate):
    """Block layout of the condensed (``judged_only``) and truncated lists.

    Only the judged rows carry information, so both operations act on the
    block lengths and on the positions of the judged rows: condensing keeps
    just those rows (each user's new length is their count), truncating
    drops the rows past ``truncate`` and caps the lengths.
    """
    if judged_only:
        owner = np.searchsorted(block_starts(lengths), hit_rows, side="right") - 1
        lengths = np.bincount(owner, minlength=lengths.size).astype(np.int64)
        hit_rows = np.arange(hit_rows.size, dtype=np.int64)
    if truncate is not None:
        starts = block_starts(lengths)
        owner = np.searchsorted(starts, hit_rows, side="right") - 1
        offset = hit_rows - starts[owner]
        keep = offset < truncate
        lengths = np.minimum(lengths, truncate)
        hit_rows = block_starts(lengths)[owner[keep]] + offset[keep]
        hit_grades = hit_grades[keep]
    return lengths, hit_rows, hit_grades


def _ids(column, rec_series, truth_series):
    """Kind and comparable value arrays of one id column of both tables."""
    rec_kind, rec = check_id_column("recommendations", rec_series)
    truth_kind, tru = check_id_column("truth", truth_series)
    # an empty object or float column (a table built from no rows) has no kind
    # of its own
    if rec.size == 0 and getattr(rec_series.dtype, "kind", "") in "Of":
        rec_kind, rec = truth_kind, tru[:0]
    elif tru.size == 0 and getattr(truth_series.dtype, "kind", "") in "Of":
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
        ranges = [min_max(ids) for ids in (rec, tru) if ids.size]
        low = min([0] + [lo for lo, _ in ranges])
        high = max([0] + [hi for _, hi in ranges])
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
        return rec_keys, truth_keys, decode, span
    uniques, codes = np.unique(np.concatenate([rec_keys, truth_keys]),
                               return_inverse=True)
    codes = codes.astype(np.int64, copy=False).reshape(-1)
    return (codes[:rec_keys.size], codes[rec_keys.size:],
            lambda keys: decode(uniques[keys]), max(len(uniques), 1))


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
    # the last row of a block is compared with the next block's first: skipped
    return neighbours_where(sorted_values, np.equal,
                            skip=np.cumsum(lengths[:-1]) - 1).size > 0


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
        starts = neighbours_where(ids, np.not_equal) + 1
        first_ids = ids[np.r_[0, starts]]
        # users in increasing order (the usual case) are unique without hashing
        if (first_ids.size < 2 or not neighbours_where(first_ids, np.greater_equal).size
                or pd.Index(first_ids).is_unique):
            block_users = pd.Index(first_ids)
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
        low, high = (int(bound) for bound in min_max(ids))
        if high - low < 4 * ids.size + 1024:
            if 0 < low and high < 4 * ids.size + 1024:
                low = 0  # a table from 0 spares shifting every judged id
            table = np.full(high - low + 1, -1, dtype=np.int64)
            table[ids - ids.dtype.type(low)] = np.arange(ids.size)
            truth_low, truth_high = (int(bound) for bound in min_max(truth_users))
            if truth_low >= low and truth_high <= high:
                return table.take(truth_users if low == 0
                                  else truth_users - truth_users.dtype.type(low))
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


def _code_runs(block_users: pd.Index, truth_users: np.ndarray):
    """Block codes of the judged users (see :func:`_user_codes`), as runs.

    Returns ``(starts, codes)``: truth rows ``starts[i]`` up to the next
    start hold the user coded ``codes[i]`` (int64, a fresh array). A table of
    judgements usually lists each user's rows together, so there are far
    fewer runs than rows and the codes of every row need never be written out
    at once (each chunk of users expands its own, :func:`_chunk_inputs`).
    ``starts`` is ``None`` when every row is its own run (ids other than
    integers, or rows of users mixed together).
    """
    if truth_users.dtype.kind in "iub" and truth_users.size > 1:
        starts = np.r_[0, neighbours_where(truth_users, np.not_equal) + 1]
        if 4 * starts.size <= truth_users.size:
            codes = _user_codes(block_users, truth_users[starts])
            return starts, codes.astype(np.int64, copy=False)
    codes = _user_codes(block_users, truth_users)
    return None, codes.astype(np.int64, copy=False)


def _as_float(grades: np.ndarray) -> np.ndarray:
    """Grades as float64 (integer grades are converted part by part)."""
    return grades.astype(np.float64, copy=False)


def _expand_runs(truth_runs, n_rows: int) -> np.ndarray:
    """The code of every truth row from ``(starts, codes)`` runs."""
    starts, codes = truth_runs
    if starts is None:
        return codes
    return np.repeat(codes, np.diff(np.r_[starts, n_rows]))


def _code_of_row(truth_runs, row: int) -> int:
    """The code of one truth row from ``(starts, codes)`` runs."""
    starts, codes = truth_runs
    run = row if starts is None else int(np.searchsorted(starts, row, side="right")) - 1
    return int(codes[run])


def _chunk_inputs(rec_keys, lengths, truth_runs, truth_keys, grades, *, n_extra,
                  n_jobs, span):
    """Split the block layout into contiguous chunks of users.

    Returns ``(n_chunks, chunks)``, where ``chunks`` yields one tuple
    ``(rec_keys, lengths, truth_code, truth_keys, grades, n_users,
    row_offset, truth_index)`` per chunk: the chunk's arrays with user
    codes counted from 0, where ``row_offset`` and ``truth_index`` (an offset
    when the chunk's judgements are a slice, else their indices) map its row
    and judgement indices back. Chunks hold
    about equal numbers of recommendation rows and keep the users' order;
    users without recommendations (codes from ``len(lengths)`` on) go with
    the last chunk. A single chunk is the input itself, untouched. Each
    chunk's arrays are made only when it is asked for, so that in one thread
    they are still in the processor's cache when the chunk is scored.
    ``span`` bounds every item key (``keys < span``); ``truth_runs`` are the
    judged users' codes as runs (:func:`_code_runs`).
    """
    n_blocks = lengths.size
    n_truth = truth_keys.size
    n_chunks = min(max(min(n_jobs, rec_keys.size // _MIN_ROWS_PER_THREAD),
                       rec_keys.size // _ROWS_PER_CHUNK), n_blocks)
    if n_chunks <= 1:
        return 1, iter([(rec_keys, lengths, _expand_runs(truth_runs, n_truth),
                         truth_keys, _as_float(grades), n_blocks + n_extra, 0, 0)])
    # The join keys must fit for the whole table, as without chunks.
    if (n_blocks + n_extra) * span >= 2**62:
        raise OverflowError("too many (user, item) pairs for 64-bit join keys")
    ends = np.cumsum(lengths)
    targets = rec_keys.size * np.arange(1, n_chunks) / n_chunks
    cuts = np.unique(np.searchsorted(ends, targets, side="left") + 1)
    bounds = np.r_[0, cuts[cuts < n_blocks], n_blocks]
    # Judgements grouped by user in block order (the usual case) split into
    # slices; otherwise each chunk gathers its own, in their original order.
    starts, codes = truth_runs
    grouped = not neighbours_where(codes, np.greater).size
    if grouped:  # chunk j holds the runs run_bounds[j] .. run_bounds[j + 1] - 1
        run_bounds = np.r_[0, np.searchsorted(codes, bounds[1:-1]), codes.size]
        row_of_run = (np.arange(n_truth + 1) if starts is None
                      else np.r_[starts, n_truth])
    else:  # each chunk's judgements, in their original order
        truth_code = _expand_runs(truth_runs, n_truth)
        owner = np.searchsorted(bounds[1:-1], truth_code, side="right")
        by_owner = _stable_order(owner)
        owner_bounds = np.r_[0, np.cumsum(np.bincount(owner, minlength=bounds.size - 1))]
        del owner

    def chunks():
        for j in range(bounds.size - 1):
            first, stop = int(bounds[j]), int(bounds[j + 1])
            row_start = int(ends[first - 1]) if first else 0
            row_stop = int(ends[stop - 1])
            if grouped:
                run_start, run_stop = int(run_bounds[j]), int(run_bounds[j + 1])
                index = slice(int(row_of_run[run_start]), int(row_of_run[run_stop]))
                mapping = index.start
                chunk_codes = codes[run_start:run_stop] - first
                if starts is not None:
                    chunk_codes = np.repeat(
                        chunk_codes, np.diff(row_of_run[run_start:run_stop + 1]))
            else:
                index = mapping = by_owner[owner_bounds[j]:owner_bounds[j + 1]]
                chunk_codes = truth_code[index] - first
            last = j == bounds.size - 2
            yield (rec_keys[row_start:row_stop], lengths[first:stop],
                   chunk_codes, truth_keys[index], _as_float(grades[index]),
                   stop - first + (n_extra if last else 0), row_start, mapping)
    return bounds.size - 1, chunks()


class ChunkTables(NamedTuple):
    """What a metric's batch kernel reads for one chunk of users.

    ``binary``: the joined lists and judgements (:class:`UserTable`);
    ``graded``: the same with the grades as ``gain`` / ``min_grade`` turn
    them into gains (``binary`` itself when they do not); ``trec``: the table
    of trec_eval's whole-list measures (:class:`TrecTable`, ``None`` unless a
    metric reads it); ``gain``: the gain that applies to ``graded``;
    ``truncated``: whether ``truncate=`` cut the lists.
    """

    binary: UserTable
    graded: UserTable
    trec: TrecTable | None
    gain: object
    truncated: bool


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
           # the chunk's users with at least one judgement
           "judged": np.bincount(truth_code, minlength=n_users) > 0,
           "values": {}}
    if dup_row >= 0 or dup_truth >= 0:
        return out
    if options["candidates"] == "recommended":
        # the judgements of listed items only: exactly the joined rows
        truth_code = np.searchsorted(block_starts(lengths), hit_rows, side="right") - 1
        grades = hit_grades
    if options["score_threshold"] is not None:
        # rows scored at or below the threshold stay in the list but are no hits;
        # the judgements (truth_code, grades) keep them: |R| does not change
        below = options["score_below"][row_offset:row_offset + rec_keys.size]
        hit_grades = np.where(below[hit_rows], 0.0, hit_grades)
    mode = options["ties"]
    if mode in TIE_MODES:  # tie groups of this chunk's rows (see _tie_kernels)
        first = options["tie_first"][row_offset:row_offset + rec_keys.size]
        if mode in EXPECTATION_MODES:
            refuse_unknown_options(mode, options)
            groups = TieGroups(lengths, first, hit_rows, hit_grades, truth_code,
                               grades, n_users)
            for name, kind, k in options["metrics"]:
                out["values"][name] = groups.measure(mode, kind, k, options)
            return out
        hit_rows, hit_grades = reorder_hits(first, hit_rows, hit_grades, mode)
    truncate = options["truncate"]
    if options["judged_only"] or truncate is not None:
        lengths, hit_rows, hit_grades = _reshape_lists(
            lengths, hit_rows, hit_grades, options["judged_only"], truncate)
    metrics = [(name, registry.get(kind), k) for name, kind, k in options["metrics"]]
    table = UserTable(lengths, hit_rows, hit_grades, truth_code, grades, n_users,
                      levels=levels)
    gain, gain_table = options["gain"], table
    if options["gain_transform"] and any(metric.graded for _, metric, _ in metrics):
        # NDCG and DCG of the transformed grades (binary, a gain map, min_grade)
        args = (gain, options["relevance_level"], options["min_grade"])
        hit_gains, gain = gain_grades(hit_grades, None, *args)
        truth_gains, _ = gain_grades(grades, None, *args)
        gain_table = UserTable(lengths, hit_rows, hit_gains, truth_code, truth_gains,
                               n_users, levels=options["gain_levels"])
    trec = (TrecTable(table.list_len, lengths, hit_rows, hit_grades, truth_code,
                      grades, n_users)
            if any(metric.table == "trec" for _, metric, _ in metrics) else None)
    del hit_rows, hit_grades
    tables = ChunkTables(binary=table, graded=gain_table, trec=trec, gain=gain,
                         truncated=truncate is not None)
    for name, metric, k in metrics:  # each metric's batch kernel (its module)
        out["values"][name] = metric.batch(tables, k, options)
    return out


def _at_level_zero(recommendations, truth, options, *, relevance_col, **columns):
    """``relevance_level=0``: every judged item is relevant (trec_eval ``-l 0``).

    The kernels count only positive grades as hits, so the metrics that compare
    grades with the level run on the grades plus 1 at level 1 (grade >= 0 is
    grade + 1 >= 1); NDCG and DCG of the grades themselves run on the grades
    as given, in a second pass.
    """
    graded = [metric for metric in options["metrics"]
              if registry.get(metric[1]).graded and options["gain"] != "binary"]
    binary = [metric for metric in options["metrics"] if metric not in graded]
    if binary and options["min_grade"] is not None and options["gain"] == "binary":
        raise ValueError("relevance_level=0 with gain='binary' and min_grade is not "
                         "available; pass relevance_level above 0 or min_grade=None")
    parts = []
    if binary:
        shifted = truth
        if relevance_col is not None:
            grades = check_value_column("truth", truth[relevance_col], minimum=0.0)
            shifted = truth.assign(**{relevance_col: grades + 1.0})
        parts.append(_evaluate_frames(recommendations, shifted, dict(
            options, metrics=binary, relevance_level=1.0), relevance_col=relevance_col,
            **columns))
    if graded:
        # the first pass has warned already: the warning is once per call
        missing = "zero" if binary and options["missing"] == "warn" else options["missing"]
        parts.append(_evaluate_frames(recommendations, truth, dict(
            options, metrics=graded, relevance_level=1.0, missing=missing),
            relevance_col=relevance_col, **columns))
    result = parts[0] if len(parts) == 1 else pd.concat(parts, axis=1)
    return result[[name for name, _, _ in options["metrics"]]]


def _evaluate_frames(recommendations, truth, options, *, user_col, item_col,
                     score_col, rank_col, relevance_col, n_jobs=1):
    """The pandas path of :func:`evaluate` (options already checked)."""
    if options["relevance_level"] == 0:
        return _at_level_zero(recommendations, truth, options, user_col=user_col,
                              item_col=item_col, score_col=score_col, rank_col=rank_col,
                              relevance_col=relevance_col, n_jobs=n_jobs)
    rec_value_col = score_col if rank_col is None else rank_col
    rec_keywords, truth_keywords = _column_keywords(user_col, item_col, score_col,
                                                    rank_col, relevance_col)
    check_frame_columns("recommendations", recommendations, rec_keywords)
    check_frame_columns("truth", truth, truth_keywords,
                        hint=None if relevance_col is None else _TRUTH_HINT)
    user_kind, rec_users, truth_users = _ids(user_col, recommendations[user_col],
                                             truth[user_col])
    item_kind, rec_items, truth_items = _ids(item_col, recommendations[item_col],
                                             truth[item_col])
    # Integer scores and ranks stay integers: float64 would merge those above 2**53.
    values = check_value_column("recommendations", recommendations[rec_value_col],
                                exact_integers=True)
    threshold = options["score_threshold"]
    if threshold is not None and rank_col is not None:
        raise ValueError("score_threshold compares scores; it cannot be used with "
                         "rank_col (pass the scores in score_col)")
    if relevance_col is None:
        grades = np.ones(len(truth), dtype=np.float64)
    else:
        # integer grades stay integers until each chunk takes its part:
        # no float64 copy of the whole column
        grades = check_value_column("truth", truth[relevance_col], minimum=0.0,
                                    integers_as_is=True)

    # 1. Group the recommendations by user: blocks 0..B-1 in first-seen order.
    block_users, lengths, order = _group_by_user(rec_users)

    # 2. Code the judged users: blocks first, then users never recommended.
    #    The codes are kept as runs (one code per run of rows of one user).
    run_starts, run_codes = _code_runs(block_users, truth_users)
    extra_users = block_users[:0]
    if run_codes.size and run_codes.min() < 0:
        unseen = run_codes < 0
        run_users = truth_users if run_starts is None else truth_users[run_starts]
        extra_codes, extra_users = pd.factorize(run_users[unseen])
        run_codes[unseen] = block_users.size + extra_codes
        del run_users, unseen
    truth_runs = (run_starts, run_codes)
    if len(extra_users) and options["missing"] in ("warn", "raise"):
        # judged users: those never recommended, and the blocks with a judgement
        n_judged = len(extra_users) + int(np.count_nonzero(
            np.bincount(run_codes[run_codes < block_users.size],
                        minlength=block_users.size)))
        report_missing(options["missing"], len(extra_users), n_judged,
                       _plain(extra_users[0]))
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
    rec_keys, truth_keys, decode_item, span = _densify(rec_keys, truth_keys,
                                                       decode_item, span, n_users)
    if order is not None:
        rec_keys, values = rec_keys[order], values[order]
    del order
    # The tie modes of _tie_kernels do not depend on the order inside a tie
    # group: any order will do, and the input order costs least.
    ties = "input" if options["ties"] in TIE_MODES else options["ties"]
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
        if options["ties"] in TIE_MODES or threshold is not None:
            values = values[within]
        del within
    if options["ties"] in TIE_MODES:
        options = dict(options, tie_first=tie_starts(values, lengths))
    if threshold is not None:
        # integer scores compared exactly: v <= t is v <= floor(t) for integers
        below = (values <= np.floor(threshold).astype(np.int64)
                 if values.dtype.kind in "iu" and abs(threshold) < 2**62
                 else values <= threshold)
        options = dict(options, score_below=below)
    del values, tie_key

    # 4. Join and per-user values, by contiguous chunks of users (one per
    #    thread). Every user's values depend on that user's rows only, so
    #    chunking cannot change them.
    levels = grade_levels(grades)
    if options["gain_transform"]:
        # checks every grade against a gain map, and fixes the levels of the
        # transformed grades once for all chunks
        options = dict(options, gain_levels=grade_levels(gain_grades(
            _as_float(grades), None, options["gain"], options["relevance_level"],
            options["min_grade"])[0]))
    n_chunks, chunks = _chunk_inputs(rec_keys, lengths, truth_runs, truth_keys, grades,
                                     n_extra=len(extra_users), n_jobs=n_jobs, span=span)
    if n_chunks == 1 or n_jobs == 1:
        parts = [_score_chunk(*chunk, levels=levels, options=options)
                 for chunk in chunks]
    else:
        with ThreadPoolExecutor(max_workers=min(n_jobs, n_chunks)) as pool:
            parts = list(pool.map(
                lambda chunk: _score_chunk(*chunk, levels=levels, options=options),
                chunks))
    del chunks
    for part in parts:  # the first duplicate in user order, as one pass finds
        if part["dup_row"] >= 0:
            dup_row = part["dup_row"]
            block = int(np.searchsorted(np.cumsum(lengths), dup_row, side="right"))
            raise ValueError(
                f"recommendations lists item {show(_plain(decode_item(rec_keys[dup_row])))} "
                f"twice for user {show(_plain(user_ids[block]))}; each (user, item) pair "
                "may appear once (drop_duplicates before evaluating)")
    for part in parts:
        if part["dup_truth"] >= 0:
            dup_truth = part["dup_truth"]
            raise ValueError(
                f"truth judges item {show(_plain(decode_item(truth_keys[dup_truth])))} twice "
                f"for user {show(_plain(user_ids[_code_of_row(truth_runs, dup_truth)]))}; "
                "each (user, "
                "item) pair may appear once")
    del rec_keys

    # 5. Empty users and the users to report, over all chunks at once.
    selected = _concat([part["judged"] for part in parts])
    if options["missing"] == "skip":
        selected[block_users.size:] = False
    if options["unjudged"] == "empty":  # users only in recommendations
        selected[:block_users.size] = True
    every_user = bool(selected.all())
    columns = {}
    for name, kind, k in options["metrics"]:
        result = _concat([part["values"][name][0] for part in parts])
        metric = registry.get(kind)
        empty_users = (None if not metric.can_be_empty
                       else _concat([part["values"][name][1] for part in parts]))
        if empty_users is not None and options["no_hit"] == "nan":
            result[(result == 0.0) & ~empty_users] = np.nan
        if empty_users is not None:
            empty_users &= selected
            if empty_users.any():
                if options["empty"] == "raise":
                    user = _plain(user_ids[int(np.argmax(empty_users))])
                    raise ValueError(f"{name}: user {show(user)} has {metric.empty_reason}, and "
                                     "empty='raise' was requested")
                result[empty_users] = {"zero": 0.0, "one": 1.0}.get(options["empty"],
                                                                     np.nan)
        columns[name] = result if every_user else result[selected]
    del parts
    return _result_frame(columns, user_ids if every_user else user_ids[selected],
                         user_col)


_MAX_UNCOPIED_COLUMNS = 16  # above: one copied block (see _result_frame)


def _result_frame(columns: dict, ids: pd.Index, user_col: str) -> pd.DataFrame:
    """The result table: one column per metric, indexed by user id in sorted order.

    Up to ``_MAX_UNCOPIED_COLUMNS`` metrics, the value arrays become the
    table's columns without a copy (one block each): a table of a million
    users would otherwise be copied into one fresh block, and copied again
    when it is sorted. Arrays that overlap in memory are copied so that no two
    columns share their values. More metrics than that get one copied block,
    so that users can still add columns without pandas' warning about
    fragmented tables. Integer ids already in increasing order (the usual
    case) skip the sort.
    """
    # pandas warns when a column is added to a table of over 100 blocks: tables
    # of many metrics get one copied block, as before, so that users can add
    # columns; a copy is cheap next to computing that many metrics
    copy = len(columns) > _MAX_UNCOPIED_COLUMNS
    if not copy:  # the columns keep their arrays: no two may overlap
        kept = []
        for name, values in columns.items():
            if any(np.may_share_memory(values, other) for other in kept):
                values = columns[name] = values.copy()
            kept.append(values)
    frame = pd.DataFrame(columns, index=ids.rename(user_col), copy=copy)
    frame.columns.name = None
    keys = ids.to_numpy()
    if keys.dtype.kind in "iu" and not neighbours_where(keys, np.greater).size:
        return frame
    try:
        frame = frame.iloc[np.argsort(keys, kind="stable")]
    except TypeError:  # ids of mixed types: keep first-seen order
        pass
    return frame
