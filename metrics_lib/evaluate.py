"""Batch evaluation of many users at once, from two DataFrames: the front door.

:func:`evaluate` is the table-shaped twin of the per-list functions in
:mod:`metrics_lib.ranking`: it takes every user's recommendations and
judgements as rows of two DataFrames and returns one row of metric values per
user, equal to what the per-list functions return for that user.

This module is the layer above the batch core (:mod:`metrics_lib.batch`):
it checks the options, reads Polars and Arrow tables, and sends Dask tables
to :mod:`metrics_lib.dask_support` and pandas ones to
:func:`metrics_lib.batch.pipeline.evaluate_frames`. The presets
(:mod:`metrics_lib.conventions`) sit above it: they install the function that
applies ``convention=`` (:func:`install_convention`), so that no module
imports one that imports it back.
"""

from __future__ import annotations

import functools
import inspect

from ._frames import native_library, result_as
from ._missing import MISSING_POLICIES
from ._validation import check_n_jobs
from .batch.options import (TIES, _check_conventions, _check_options,
                            _refuse_expectation_combinations)
from .batch.intents import check_intent_metrics
from .batch.items import check_genre_data, check_item_groups, check_item_popularity
from .batch.pipeline import evaluate_frames
from .batch.reading import _is_dask, _read_native
from .batch.result import _result_frame  # noqa: F401  (kept importable from here)
from .dask_support import evaluate_dask
from .ranking.registry import parse_metric

__all__ = ["evaluate", "parse_metric", "TIES", "MISSING_POLICIES"]

# The function that applies convention= (metrics_lib/conventions.py installs it
# when imported, which ``import metrics_lib`` always does).
_APPLY_CONVENTION = []


def install_convention(apply) -> None:
    """Let ``apply(evaluate, given, passed)`` handle calls with ``convention=``."""
    _APPLY_CONVENTION[:] = [apply]


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
        (apply,) = _APPLY_CONVENTION  # installed by metrics_lib/conventions.py
        return apply(wrapper, dict(given.arguments), set(keywords))

    return wrapper


@_convention_wrapper
def evaluate(recommendations, truth, metrics, *, user_col="user", item_col="item",
             score_col="score", rank_col=None, relevance_col="relevance",
             relevance_level=1, denominator="relevant", gain="linear",
             ideal="judged", log_base=2, empty="zero", missing="warn",
             ties="item_desc", n_jobs=1, precision_denominator="k",
             recall_denominator="relevant", min_grade=None, judged_only=False,
             unjudged="skip", truncate=None, no_hit="zero", candidates="all",
             score_threshold=None, residual_tail="unjudged",
             trec_eval_version=10, intent_col=None, item_popularity=None,
             item_genres=None, history=None, rank_weights="equal", item_groups=None,
             exposure_group=None, convention=None):
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
        do (for gm_map see :func:`floored_geometric_mean`). User models and
        judgement coverage: ``"err@10"`` (:func:`err_at_k`), ``"rbp(p=0.8)"``
        and its residual ``"rbp_resid(p=0.8)"`` (:func:`rank_biased_precision`),
        ``"judged@10"`` (:func:`judged_at_k`). Intents and diversity, with
        ``intent_col=``: ``"alpha_ndcg@10"``, ``"err_ia@10"``, ``"p_ia@10"``,
        ``"s_recall@10"`` (:func:`alpha_ndcg_at_k`, ...; the cut-off is
        required; ``"alpha_ndcg(alpha=0.25)@10"`` and ``"err_ia(alpha=...)@10"``
        set alpha, 0.5 by default). Popularity bias, with ``item_popularity=``:
        ``"arp@10"`` and ``"aplt@10"`` (``"aplt(head_share=0.8)@10"``).
        Calibration, with ``item_genres=`` and ``history=``:
        ``"miscalibration@10"`` (Steck's, :func:`miscalibration`;
        ``"miscalibration(alpha=0.05)@10"`` sets the smoothing, 0.01 by
        default; ``rank_weights=``). Exposure
        (``metrics_lib.ranking.exposure``): ``"ee_loss@10"``,
        ``"ee_disparity@10"``, ``"ee_relevance@10"``, Diaz et al.'s expected
        exposure of each list as one deterministic ranking
        (``"ee_loss(p=0.9)"`` sets the patience, 0.5 by default; the ideal
        ranking holds the items of grade at least ``relevance_level``; for
        several sampled rankings per user see :func:`expected_exposure_batch`),
        and, with ``item_groups=`` and ``exposure_group=``,
        ``"group_exposure@10"``, the share of the list's exposure that the
        group gets (``"group_exposure(weights=geometric, p=0.8)@10"``;
        weights ``log``, the default, ``geometric`` or ``equal``, as
        :func:`group_exposure`'s). The
        names, as written, become the
        result's columns (``"alpha_ndcg@10"`` and ``"alpha_ndcg(alpha=0.5)@10"``
        are two columns of equal values).
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
        row of ``truth`` a relevant item of grade 1. A negative grade is
        trec_eval's "in the pool but unjudged": taken only when every metric
        asked for is ``infap`` (which counts such an item as relevant in the
        share of the judged ones above it), ``bpref`` or
        ``num_nonrel_judged_ret`` (for which it is the same as an absent row),
        and refused otherwise.
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
        (``"block"`` with DCG/NDCG or RBP, ``"average"``/``"block"`` with
        bpref, iprec_at_recall, ERR, the intent metrics or
        ``ideal="retrieved"``) raises ``ValueError`` saying why. trec_eval's
        set measures take every mode (they do not read the order); for
        Judged@k, ``"best"`` / ``"worst"`` put the judged items first / last.
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
    residual_tail : {"unjudged", "always"}, default="unjudged"
        The residual of RBP (``rbp_resid(p=...)``) for a list whose items
        are all judged: 0, as trec_eval 10.0 reports it (``m_rbp_resid.c``
        sets a value only when it met an unjudged item), or ``p**n``, the
        ranks after a list of ``n`` items, which cwl_eval 1.0.12 (``-r``)
        always counts. Lists with an unjudged item get ``p**n`` either way.
    intent_col : str or None, default=None
        Column of ``truth`` with intent (subtopic) ids, for the intent-aware
        metrics ``alpha_ndcg@k``, ``err_ia@k``, ``p_ia@k`` and ``s_recall@k``
        (``metrics_lib.ranking.intents``), which need it: ``truth`` then
        holds one row per (user, item, intent), ndeval's qrels, an item
        being relevant to an intent at a grade of at least
        ``relevance_level``. Those metrics are evaluated in a call of their
        own (a truth by intent is not one by item); ``ties="item_asc"`` is
        pyndeval's order of equal scores.
    item_popularity : pandas Series, dict or None, default=None
        The popularity of each item, item id -> a number >= 0, for the
        popularity-bias metrics ``"arp@k"`` (average recommendation
        popularity) and ``"aplt@k"`` (long-tail share; ``"aplt(head_share=
        0.8)@k"``), which need it (per list: :func:`average_recommendation_popularity`,
        :func:`long_tail_share`).
        It is given, not computed: from the training interactions,
        ``train.groupby("item").size()`` counts interactions (Abdollahpouri
        et al.; RecBole) and ``train.groupby("item")["user"].nunique()``
        distinct users (Elliot). An item absent from it has popularity 0;
        the long tail is cut from its values (the items holding
        ``head_share`` of the total are the head). Ids of the kind of
        ``item_col``'s.
    item_genres : pandas Series, dict or None, default=None
        The genres of each item, for ``"miscalibration@k"`` (per list:
        :func:`miscalibration`), which needs it with
        ``history``: a Series indexed by item id whose values are genres, one
        row per (item, genre) (``movies.explode("genres").set_index("item")
        ["genres"]``), each genre of an item an equal share of it; or a dict
        item -> genres, or item -> {genre: share} (shares divided by the
        item's total). Every recommended item and every item of ``history``
        needs a genre (a ``ValueError`` names the first that has none).
    history : pandas or Polars DataFrame, pyarrow Table or None, default=None
        The users' past items, one row per (user, item) in ``user_col`` and
        ``item_col`` (a repeated row counts again), for
        ``"miscalibration@k"``: the genre mix p(g|u) of each user's rows is
        what their list is compared with. A pandas table also when the
        recommendations are Dask. A user without history gets ``nan``, and
        so does a user without recommendations (the genre mix of nothing is
        undefined), whatever ``missing``.
    item_groups : pandas Series, dict or None, default=None
        The group label of each item, item id -> label (not null), for
        ``"group_exposure@k"``, which needs it with ``exposure_group``.
        Every recommended item needs a label, beyond the cut-off too (a
        ``ValueError`` names the first that has none); items that are never
        recommended may be listed. Ids of the kind of ``item_col``'s; a
        pandas Series or dict also when the recommendations are Dask, Polars
        or Arrow.
    exposure_group : hashable or None, default=None
        The label of ``item_groups`` whose share of exposure
        ``"group_exposure@k"`` reports per user (a ``ValueError`` if no item
        has it). For every group, evaluate once per label: the shares of all
        labels add up to 1 for each user with a list.
    rank_weights : {"equal", "reciprocal", "log"}, default="equal"
        The weight of rank ``r`` in the list's genre mix for
        ``"miscalibration@k"``: 1, ``1/r`` (as in MRR) or ``1/log2(r + 1)``
        (as in DCG), as in :func:`miscalibration`; the ranks follow ``ties``.
    trec_eval_version : {10, 9}, default=10
        The version of trec_eval whose arithmetic ``iprec_at_recall`` follows:
        10.0 targets the ``lround(p * R)``-th relevant item, 9.0.8 (which
        pytrec_eval 0.5 compiles) the ``(long) (p * R + 0.9)``-th
        (``m_iprec_at_recall.c`` of each). No other metric of this library
        differs between the two; 9.0.8 also reads scores as C floats
        (``trec_format.h``, ``TEXT_RESULTS.sim``), which this keyword leaves
        alone: round the scores to float32, or use ``convention="pytrec_eval"``.
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
        :func:`parse_metric`), a metric listed twice or in two spellings
        (``"ndcg@10"`` and ``"ndcg_cut_10"``: the message names both and the
        canonical name), a ``dcg`` with exponential gain beyond the
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

    Miscalibration compares the genre mix of each list with that of the
    user's history (user 3 has no list, so ``nan``):

    >>> genres = {"a": ["drama"], "b": ["comedy"], "c": ["drama"], "d": ["comedy"]}
    >>> history = pd.DataFrame({"user": [1, 1, 2], "item": ["c", "d", "a"]})
    >>> evaluate(recs, truth, ["miscalibration@2"], item_genres=genres, history=history,
    ...          missing="zero").round(4)
          miscalibration@2
    user
    1               0.0000
    2               0.6832
    3                  NaN

    Expected exposure of each list as one ranking (user 1: exposures 1, 0.5,
    0.25 for a, b, c against the targets 0, 0.5, 1 of the grades 0, 1, 2, a
    loss of 1 + 0 + 0.5625; user 3, with no list, loses the target's 1), and
    the share of exposure that the group "tail" gets in each top 2:

    >>> evaluate(recs, truth, ["ee_loss", "ee_disparity", "ee_relevance"],
    ...          missing="zero")
          ee_loss  ee_disparity  ee_relevance
    user
    1      1.5625        1.3125           0.5
    2      1.2500        1.2500           0.5
    3      1.0000        0.0000           0.0
    >>> groups = {"a": "head", "b": "tail", "c": "tail", "d": "tail"}
    >>> evaluate(recs, truth, ["group_exposure(weights=equal)@2"], item_groups=groups,
    ...          exposure_group="tail", missing="skip")
          group_exposure(weights=equal)@2
    user
    1                                 0.5
    2                                 0.5

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
        candidates=candidates, score_threshold=score_threshold,
        residual_tail=residual_tail, rank_weights=rank_weights,
        trec_eval_version=trec_eval_version))
    _refuse_expectation_combinations(options)
    options["intent_col"] = check_intent_metrics(options["metrics"], intent_col)
    options["item_popularity"] = check_item_popularity(options["metrics"], item_popularity)
    options["genre_data"] = check_genre_data(options["metrics"], item_genres, history,
                                             user_col, item_col)
    options["item_groups"] = check_item_groups(options["metrics"], item_groups,
                                               exposure_group)
    n_jobs = check_n_jobs(n_jobs)
    # Polars and Arrow tables: only the needed columns, as pandas Series over
    # their numpy buffers (metrics_lib/_frames.py); the result goes back to
    # the library of the recommendations.
    like = recommendations
    library = native_library(recommendations)
    if library is not None or native_library(truth) is not None:
        recommendations, truth = _read_native(recommendations, truth, user_col,
                                              item_col, score_col, rank_col,
                                              relevance_col, intent_col)
    if _is_dask(recommendations) or _is_dask(truth):
        return evaluate_dask(recommendations, truth, options, user_col=user_col,
                             item_col=item_col, score_col=score_col,
                             rank_col=rank_col, relevance_col=relevance_col)
    result = evaluate_frames(recommendations, truth, options, user_col=user_col,
                             item_col=item_col, score_col=score_col,
                             rank_col=rank_col, relevance_col=relevance_col,
                             n_jobs=n_jobs)
    return result if library is None else result_as(library, like, result, user_col)
