"""The metric registry: every ranking metric declared once, and the name parser.

A metric family's module (``precision_recall.py``, ``ndcg.py``, ...) opens
with the definition and declares each of its metrics with :func:`register`:
the names users write, trec_eval's names and parameters, the per-list
function, the batch kernel and the keywords that change its value. Everything
that needs to know the metrics reads them here:

* :func:`parse_metric`, the names ``evaluate`` accepts (``ndcg@10``,
  ``ndcg_cut_10``, ``P_5``, ``rbp(p=0.8)``, ...), and
  :func:`parse_metric_name`, the same with the named parameters
  (:class:`Parameter`, read by ``_parameters.py``);
* the command line (``metrics_lib.cli``), trec_eval's measure names
  (:func:`trec_measure`);
* the presets (``metrics_lib.conventions``), which keywords matter for which
  metric and which per-list function computes it;
* the batch pipeline, which calls :attr:`Metric.batch` on each chunk of users.

Every module of this folder whose name does not start with ``_`` is imported
the first time the registry is read, so a new metric needs no other file.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from .._validation import did_you_mean, show
from ._parameters import Parameter, split_call

__all__ = ["Metric", "MetricName", "Parameter", "TrecMeasure", "register", "get", "metrics",
           "parse_metric", "parse_metric_name", "expand_metric", "expand_metric_names",
           "trec_measure", "trec_measures"]


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure (``measures.c``, ``te_trec_measures``) that a metric computes.

    ``library`` is the metric name :func:`evaluate` is asked for: with a
    ``{}`` (``"ndcg@{}"``) the measure takes cut-offs, one column per
    cut-off, and ``default`` holds trec_eval's default cut-offs (for
    ``iprec_at_recall`` its recall levels); without, it takes no parameter.
    ``integer`` measures are counts, printed without decimals. ``gains``
    measures take trec_eval's gain per relevance level (``-m G.1=3,2=7``),
    which the command line hands to :func:`evaluate` as ``gain={...}``.
    """

    name: str
    library: str
    default: tuple | None = None
    integer: bool = False
    gains: bool = False


@dataclass(frozen=True)
class Metric:
    """A ranking metric as :func:`evaluate`, the command line and the presets know it.

    Attributes
    ----------
    name : str
        The kind that :func:`parse_metric` returns (``"ndcg"``, ``"rr"``).
    aliases : tuple of str
        The spellings ``evaluate`` accepts, lower case; the first is the one
        shown in messages and tables (``"mrr"`` for ``rr``).
    batch : callable
        ``batch(tables, k, options) -> (values, empty_users)`` over one chunk
        of users; ``tables`` is :class:`metrics_lib.batch.scoring.ChunkTables`,
        ``empty_users`` a boolean mask or ``None`` when the ``empty`` policy
        does not apply.
    per_list : callable or None
        The per-list function (``ndcg_at_k``), if there is one.
    cutoff : {"optional", "required", "none", "level", "persistence", "params"}
        Whether the name takes ``@k`` (``"required"``: must have one);
        ``"level"``: a recall level instead (a number in ``[0, level_max]``);
        ``"params"``: no cut-off; the name alone has trec_eval's default
        parameters (``k`` is ``None``) and trec_eval's spelling with a list
        (``11pt_avg.0.2,0.5,0.8``) is one column whose ``k`` is the tuple
        of numbers; ``"persistence"``: as
        ``"none"``, for the metrics whose name must give a persistence
        (``rbp(p=0.8)``: tests/test_metric_grammar.py spells their names
        from it).
    parameters : tuple of Parameter
        The named parameters that the name takes, ``name(key=value, ...)``
        before any ``@k`` (``rbp(p=0.8)``, ``alpha_ndcg(alpha=0.5)@10``),
        one :class:`Parameter` each. The batch kernel reads their values as
        ``options["parameters"]`` (a dict, with the defaults of those not
        written). A metric without a cut-off returns the first one's value,
        as written, as :func:`parse_metric`'s ``k`` (``None`` when left
        out).
    table : {"binary", "graded", "trec"}
        Which table of a chunk the kernel reads: ``"graded"`` metrics see the
        grades through ``gain``/``min_grade``; ``"trec"`` needs the table of
        trec_eval's whole-list measures (built only when one is asked for).
    can_be_empty : bool
        Whether ``empty=`` applies (a user without a relevant item).
    empty_reason : str
        What such a user lacks, in the ``empty='raise'`` message.
    keywords : tuple of str
        ``evaluate`` keywords that change this metric and not every metric
        (``gain``, ``ideal``, ...); the conventions table shows only these.
    per_list_keywords : dict
        ``evaluate`` keyword -> the per-list function's name for it.
    check : callable or None
        ``check(name, k, keywords)`` raises ``ValueError`` for a keyword
        value this metric cannot take with this cut-off.
    trec_eval : tuple of TrecMeasure
        trec_eval's measures that this metric computes.
    level_max : float
        The largest level of a ``"level"`` metric (1 for a recall level).
    intents : bool
        Whether the metric reads the intent of each judgement: ``evaluate``
        then needs ``intent_col=``, the truth column of intent ids, and
        ``batch`` finds each judged item's relevant intents through the key
        that the grade column then holds (``metrics_lib/batch/intents.py``);
        ``per_list`` takes ``relevant`` as ``item -> {intent: grade}``.
    negative_grades : bool
        Whether ``evaluate`` lets a negative grade through to this metric:
        trec_eval's "in the pool but unjudged" (``form_res_rels.c``,
        ``RELVALUE_UNJUDGED``). ``evaluate`` refuses negative grades unless
        every metric asked for declares this; the metric's docstring says
        what such a grade does to it.
    item_data : {None, "popularity", "genres", "groups"}
        Data about items that the metric reads besides the judgements:
        ``"popularity"``, ``evaluate``'s ``item_popularity=`` (the kernel
        finds each recommended row's in ``tables.rows``;
        ``metrics_lib/batch/items.py``); ``"genres"``, ``item_genres=`` and
        ``history=`` (the kernel finds each row's genre shares and each
        user's history mix in ``options``; the same module); ``"groups"``,
        ``item_groups=`` and ``exposure_group=`` (the kernel finds whether
        each row's item is in the group in ``options["group_rows"]``).
    reads_grades : bool
        Whether a ``"binary"`` metric's kernel reads the grades themselves,
        not only which are at or above ``relevance_level`` (expected
        exposure's targets): the command line then hands it the grades, as
        to the ``"graded"`` metrics, instead of 0/1.
    """

    name: str
    aliases: tuple
    batch: Callable
    per_list: Callable | None = None
    cutoff: str = "optional"
    table: str = "binary"
    can_be_empty: bool = True
    empty_reason: str = "no item at or above relevance_level"
    keywords: tuple = ()
    per_list_keywords: dict = field(default_factory=dict)
    check: Callable | None = None
    trec_eval: tuple = ()
    intents: bool = False
    negative_grades: bool = False
    level_max: float = 1.0
    parameters: tuple = ()
    item_data: str | None = None
    reads_grades: bool = False

    @property
    def display_name(self) -> str:
        return self.aliases[0]

    @property
    def graded(self) -> bool:
        return self.table == "graded"


_METRICS: dict[str, Metric] = {}
_KIND: dict[str, str] = {}       # alias -> kind
_LOADED = []


def register(metric: Metric) -> Metric:
    """Add ``metric`` to the registry (called once, by the metric's own module)."""
    if metric.name in _METRICS:
        raise ValueError(f"metric {show(metric.name)} is registered twice")
    keys = [parameter.name for parameter in metric.parameters]
    if len(set(keys)) < len(keys) or (keys and metric.cutoff == "level"):
        raise ValueError(f"metric {show(metric.name)}: a parameter is declared twice, or "
                         "the metric also takes a recall level")
    for alias in metric.aliases:
        if alias != alias.lower() or alias in _KIND:
            raise ValueError(f"alias {show(alias)} of {show(metric.name)} is not lower "
                             "case or belongs to another metric")
    _METRICS[metric.name] = metric
    _KIND.update(dict.fromkeys(metric.aliases, metric.name))
    return metric


def _load() -> None:
    """Import every metric module of this folder (once)."""
    if _LOADED:
        return
    package = __name__.rpartition(".")[0]
    for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if not module.name.startswith("_") and module.name != "registry":
            importlib.import_module(f"{package}.{module.name}")
    _LOADED.append(True)


def metrics() -> list[Metric]:
    """Every registered metric, in the order their modules declared them."""
    _load()
    return list(_METRICS.values())


def get(kind: str) -> Metric:
    """The metric of ``kind`` (as :func:`parse_metric` returns it)."""
    _load()
    return _METRICS[kind]


def kinds() -> dict[str, str]:
    """alias -> kind, every spelling ``evaluate`` accepts (no cut-off)."""
    _load()
    return _KIND


def trec_measures() -> dict[str, TrecMeasure]:
    """trec_eval measure name -> its declaration, over every metric."""
    return {measure.name: measure for metric in metrics() for measure in metric.trec_eval}


def trec_measure(name: str) -> tuple[Metric, TrecMeasure] | None:
    """The metric and declaration of trec_eval measure ``name`` (``"ndcg_cut"``), or None."""
    for metric in metrics():
        for measure in metric.trec_eval:
            if measure.name == name:
                return metric, measure
    return None


# -- the names evaluate accepts ------------------------------------------------------

# Names refused on purpose, with the reason.
_REFUSED = {
    "hits": ("'hits' is ambiguous: ranx's hits@k (ranx/metrics/hits.py, hits()) "
             "counts the relevant items in the top k, while this library's hit@k is "
             "1 if any of them is relevant and 0 otherwise. Use 'hit@k' for the "
             "0/1 hit rate, or 'num_rel_ret@k' for ranx's count"),
    "relstring": ("trec_eval's relstring is a string per user (the grades of the top "
                  "ten), which evaluate's columns of numbers cannot hold or average; "
                  "the command line prints it (-m relstring), and 'unj@10' or "
                  "'judged@10' say how much of the top is judged"),
}
_NAME = re.compile(r"^(?P<name>[a-z0-9_-]+?)(?:(?:@|_cut_|_)(?P<k>[0-9]+))?$")
# iprec_at_recall_0.50 (trec_eval's spelling) or iprec_at_recall@0.5: the
# parameter is a recall level in [0, 1], not a cut-off.
_LEVEL = r"(?:_|@)(?P<level>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$"


def parse_metric(name: str) -> tuple[str, int | float | None]:
    """Split a metric name such as ``"ndcg@10"`` into ``("ndcg", 10)``.

    Parameters
    ----------
    name : str
        ``<metric>`` or ``<metric>@<k>``. Metrics: ``precision`` (``p``),
        ``recall``, ``f1``, ``hit`` (``success``, ``hr``), ``mrr`` (``rr``,
        ``recip_rank``), ``map`` (``ap``), ``ndcg``, ``dcg``. The trec_eval
        spellings ``P_10``, ``recall_10``, ``success_10``, ``map_cut_10`` and
        ``ndcg_cut_10`` are accepted as well, and so are trec_eval's command
        line names with one parameter (``ndcg_cut.10``, ``P.5``,
        ``iprec_at_recall.0.5``; see ``metrics_lib.ranking.registry.expand_metric``). Case is ignored.
        trec_eval's other standard measures, which take no cut-off:
        ``rprec`` (``r_precision``, ``r-precision``), ``bpref``, ``num_ret``,
        ``num_rel``, ``num_rel_ret``; and ``iprec_at_recall_<level>``
        (``iprec_at_recall_0.50``, also ``iprec_at_recall@0.5``), whose
        parameter is a recall level in ``[0, 1]``. Two of them also take a
        cut-off: ``num_rel_ret@k``, the number of relevant items in the top
        k (ranx's ``hits@k``), and ``rprec@k``, R-precision of the list cut
        at k (Microsoft Recommenders ``r_precision_at_k``). User-model
        metrics: ``err@k`` (expected reciprocal rank), and ``rbp(p=0.8)`` and
        ``rbp_resid(p=0.8)`` (rank-biased precision and its residual), whose
        parameter is the persistence ``p`` in (0, 1), returned as ``k``.
        trec_eval's set measures: ``set_p``, ``set_recall``, ``set_map``,
        ``num_nonrel_judged_ret`` and ``set_f`` (``set_f(beta=0.5)``, beta
        1 by default, returned as ``k``; ``None`` when not written).
        ``infap``: inferred AP (trec_eval's ``infAP``), which reads negative
        grades as "in the pool but unjudged".
        Intent-aware metrics, which need ``evaluate(..., intent_col=...)``
        and a cut-off: ``alpha_ndcg@k``, ``err_ia@k``, ``p_ia@k``,
        ``s_recall@k`` (``strec@k``, ndeval's name); the first two take the
        redundancy intolerance alpha in [0, 1], 0.5 by default
        (``alpha_ndcg(alpha=0.25)@10``). Named parameters are written
        ``<metric>(key=value, ...)`` before any ``@k``; spaces are read
        around ``=`` and ``,`` only (``metrics_lib.ranking.registry.parse_metric_name`` returns
        them all, with the canonical spelling).

    Returns
    -------
    kind : str
        One of ``precision, recall, f1, hit, rr, ap, ndcg, dcg, rprec,
        bpref, iprec_at_recall, num_ret, num_rel, num_rel_ret``.
    k : int, float or None
        The cut-off, or ``None`` for the whole list; for
        ``iprec_at_recall`` the recall level (a float).

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        If the name is unknown (the message offers the closest names), is
        refused on purpose (``hits``, ``gm_map``), or has a parameter the
        metric does not take, a value outside the parameter's interval, or
        a malformed list of parameters (see ``metrics_lib.ranking.registry.parse_metric_name``).

    Notes
    -----
    ``"hits@k"`` is refused: ranx's ``hits@k`` (ranx at commit 060cc66,
    ``ranx/metrics/hits.py``, ``hits()``) counts the relevant items in the
    top k, while this library's ``"hit@k"`` is 1 if there is one and 0
    otherwise; accepting the plural would give a number of the other meaning.
    ranx's count is ``"num_rel_ret@k"`` here (trec_eval's ``num_rel_ret``
    cut at k; per list, :func:`hit_count_at_k`).

    ``"map@k"`` is average precision cut at ``k`` (trec_eval ``map_cut_k``);
    its denominator is chosen by ``evaluate(..., denominator=...)``, not by
    the name. ``"mrr@k"`` is reciprocal rank cut at ``k``, which trec_eval's
    ``recip_rank`` does not offer. ``gm_map`` is refused: it is a mean over
    users, not a value per user; evaluate ``"map"`` and pass the column to
    :func:`floored_geometric_mean`.

    The names come from the metric registry
    (``metrics_lib.ranking.registry``): each metric's module declares its
    own.

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
    >>> parse_metric("num_rel_ret@10"), parse_metric("ndcg_cut.10")
    (('num_rel_ret', 10), ('ndcg', 10))
    >>> parse_metric("err@10"), parse_metric("rbp(p=0.8)")
    (('err', 10), ('rbp', 0.8))
    >>> parse_metric("alpha_ndcg@10"), parse_metric("strec@5")
    (('alpha_ndcg', 10), ('s_recall', 5))
    """
    parsed = parse_metric_name(name)
    return parsed.kind, parsed.k


class MetricName(NamedTuple):
    """A metric name as :func:`parse_metric_name` reads it.

    ``kind`` and ``k`` are :func:`parse_metric`'s two values; ``parameters``
    maps each named parameter the metric declares to its value (the default
    where the name leaves it out); ``canonical`` is the one spelling of the
    same metric: the first alias, the parameters that differ from their
    defaults in the declared order, then ``@k``.
    """

    kind: str
    k: int | float | None
    parameters: dict
    canonical: str


def parse_metric_name(name: str) -> MetricName:
    """Read a metric name with its named parameters: ``alpha_ndcg(alpha=0.25)@10``.

    Parameters
    ----------
    name : str
        Any name :func:`parse_metric` takes. Named parameters are written
        ``<metric>(key=value, ...)[@k]``: each key one that the metric
        declares, once, in any order; spaces around ``=`` and ``,`` are
        read, none elsewhere; case is ignored. Those with a default may be
        left out (``alpha_ndcg@10`` is ``alpha_ndcg(alpha=0.5)@10``); the
        others must be written (``rbp(p=0.8)``).

    Returns
    -------
    MetricName
        ``(kind, k, parameters, canonical)``.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        As :func:`parse_metric`; for a malformed list of parameters, a key
        the metric does not declare or given twice, a value outside the
        parameter's interval (the message names the metric as written, the
        parameter and its interval), or a parameter without a default left
        out.

    Notes
    -----
    ``evaluate`` names each column as the name was written, not by the
    canonical spelling, so every name keeps the column it had before named
    parameters were read. ``canonical`` tells two spellings of one metric
    apart from two metrics: ``evaluate`` refuses ``alpha_ndcg@10`` and
    ``alpha_ndcg(alpha=0.5)@10`` in one call, which would be two columns of
    the same numbers.

    Examples
    --------
    >>> from metrics_lib.ranking.registry import parse_metric_name
    >>> name = parse_metric_name("ALPHA_NDCG( alpha = .25 )@10")
    >>> name.kind, name.k, name.parameters, name.canonical
    ('alpha_ndcg', 10, {'alpha': 0.25}, 'alpha_ndcg(alpha=0.25)@10')
    >>> parse_metric_name("alpha_ndcg@10").parameters
    {'alpha': 0.5}
    >>> parse_metric_name("rbp(p=.8)").canonical, parse_metric_name("set_f(beta=1)").canonical
    ('rbp(p=0.8)', 'set_f')
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings; got {type(name).__name__} "
                        f"{show(name)}")
    lowered = name.strip().lower()
    columns = _trec_spelling(name)
    if columns is not None:
        if len(columns) > 1:
            level = _METRICS[columns[0][1].kind].cutoff == "level"
            what = "recall level" if level else "cut-off"
            raise ValueError(f"metric {show(name)} names {len(columns)} metrics ("
                             + ", ".join(show(c) for c, _ in columns) + f"): give one "
                             f"{what}, such as {show(columns[0][0])}; evaluate takes the "
                             "name as it is, one column each")
        return columns[0][1]
    if "(" in lowered or ")" in lowered:
        return _with_parameters(name, lowered)
    by_level = _with_level(name, lowered)
    if by_level is not None:
        return _named(*by_level)
    if lowered in ("gm_map", "gmap", "gm_bpref"):
        per_user = "bpref" if lowered == "gm_bpref" else "map"
        raise ValueError(f"metric {show(name)} is a geometric mean over users, not "
                         f"a value per user: evaluate '{per_user}' and pass the column "
                         "to metrics_lib.floored_geometric_mean")
    match = _NAME.match(lowered)
    kind = kinds().get(match.group("name")) if match else None
    if match and match.group("name") in _REFUSED:
        raise ValueError(f"metric {show(name)}: {_REFUSED[match.group('name')]}")
    if kind is not None and _METRICS[kind].cutoff == "level":
        raise ValueError(f"metric {show(name)} needs a recall level, such as "
                         f"'{kind}_0.50' (one column per level)")
    if kind is None:
        raise _unknown_metric(name, lowered, match)
    _require_parameters(name, _METRICS[kind], match.group("name"), {})
    k = match.group("k")
    if k is None and _METRICS[kind].cutoff == "required":
        raise ValueError(f"metric {show(name)} needs a cut-off, such as "
                         f"'{match.group('name')}@10'")
    if k is not None and _METRICS[kind].cutoff in ("none", "persistence", "params"):
        raise ValueError(f"metric {show(name)}: {kind} takes no cut-off")
    if k is not None:
        k = int(k)
        if k <= 0:
            raise ValueError(f"metric {show(name)}: the cut-off must be a positive "
                             "integer")
    return _named(kind, k)


def expand_metric(name: str) -> list[tuple[str, str, int | float | None]]:
    """The columns that metric name ``name`` asks :func:`evaluate` for.

    One name is one column, except trec_eval's command line names (``-m``)
    that stand for several measures: ``map_cut.5,10`` is two columns,
    ``"map_cut.5"`` and ``"map_cut.10"``, and a measure that takes
    parameters, named without them, has trec_eval's defaults
    (``"ndcg_cut"``: ``"ndcg_cut.5"`` ... ``"ndcg_cut.1000"``;
    ``"iprec_at_recall"``: its eleven recall levels).

    Parameters
    ----------
    name : str
        Any name :func:`parse_metric` takes, or a trec_eval measure with its
        parameters (``ndcg_cut.5,10``; case is ignored).

    Returns
    -------
    list of (column, kind, k)
        ``column`` is ``name`` itself when it stands for one metric, else
        ``<name>.<parameter>``; ``kind`` and ``k`` as :func:`parse_metric`
        returns them.

    Raises
    ------
    TypeError
        If ``name`` is not a string.
    ValueError
        As :func:`parse_metric`, and for a parameter that is not a positive
        integer (a cut-off) or a number in [0, 1] (a recall level), or given
        twice.

    Notes
    -----
    ``P``, ``recall`` and ``success`` without a parameter keep this
    library's meaning, the whole list (as ``"precision"``, ``"recall"``,
    ``"hit"``), where trec_eval's ``-m P`` means its nine default cut-offs.
    trec_eval reads cut-offs with C's ``atol`` (``P.5x`` is ``P_5``) and
    ignores a parameter given to a measure that takes none (``map.5``); here
    both are refused, since a name that does not say what it computes is a
    wrong number waiting to happen.

    Examples
    --------
    >>> from metrics_lib.ranking.registry import expand_metric
    >>> expand_metric("map_cut.5,10")
    [('map_cut.5', 'ap', 5), ('map_cut.10', 'ap', 10)]
    >>> expand_metric("ndcg@10"), expand_metric("P.5")
    ([('ndcg@10', 'ndcg', 10)], [('P.5', 'precision', 5)])
    """
    return [(column, parsed.kind, parsed.k) for column, parsed in expand_metric_names(name)]


def expand_metric_names(name: str) -> list[tuple[str, MetricName]]:
    """As :func:`expand_metric`, each column with its :class:`MetricName`."""
    columns = _trec_spelling(name)
    return columns if columns is not None else [(name, parse_metric_name(name))]


def _trec_name(lowered_base: str):
    """(trec_eval's spelling, metric, declaration) of a measure name in any case, or None."""
    for metric in metrics():
        for measure in metric.trec_eval:
            if measure.name.lower() == lowered_base:
                return measure.name, metric, measure
    return None


def _trec_spelling(name):
    """``[(column, MetricName)]`` for trec_eval's ``-m`` spelling, else None (not one)."""
    if not isinstance(name, str):
        return None
    written = name.strip()
    base, dot, params = written.partition(".")
    found = _trec_name(base.lower())
    if found is None:
        return None
    trec, metric, measure = found
    if not dot and base.lower() in kinds() and metric.cutoff != "level":
        return None  # also a name of this library (map, P: the whole list)
    takes = "{}" in measure.library
    if not dot and not takes:
        return None  # gm_map: parse_metric says why it is refused
    if dot and metric.cutoff == "persistence":  # trec_eval's rbp.p=0.8 is rbp(p=0.8)
        return [(name, _with_parameters(name, f"{base.lower()}({params.strip()})"))]
    if dot and metric.cutoff == "none" and len(metric.parameters) == 1:
        # trec_eval's set_F.0.5 is set_f(beta=0.5): its one parameter, unnamed
        key = metric.parameters[0].name
        return [(name, _with_parameters(name, f"{base.lower()}({key}={params.strip()})"))]
    if dot and metric.cutoff == "params":  # 11pt_avg.0.2,0.5: one column
        return [(name, _named(metric.name, _trec_numbers(name, params)))]
    if dot and measure.gains:  # trec_eval's G.<grade>=<gain>,...
        raise ValueError(f"metric {show(name)}: trec_eval's gain pairs for {trec} are not "
                         "offered by name; evaluate's gain= keyword chooses the gain "
                         "(a mapping {grade: gain} listing every judged grade)")
    if dot and not takes:
        raise ValueError(f"metric {show(name)}: trec_eval's {trec} takes no parameter "
                         f"(trec_eval ignores one); write {show(base)} without it")
    if not dot:  # a measure with parameters, named alone: trec_eval's defaults
        level = metric.cutoff == "level"
        return [(f"{base}.{p:.2f}" if level else f"{base}.{p}", _named(metric.name, p))
                for p in measure.default]
    values = [_trec_parameter(name, metric, part) for part in params.split(",")]
    if len(set(values)) < len(values):
        raise ValueError(f"metric {show(name)}: a parameter is given twice")
    if len(values) == 1:
        return [(name, _named(metric.name, values[0]))]
    return [(f"{base}.{part.strip()}", _named(metric.name, value))
            for part, value in zip(params.split(","), values)]


def _trec_numbers(name, params):
    """The numbers of a ``"params"`` metric's trec_eval spelling, as a tuple of floats."""
    values = []
    for text in params.split(","):
        try:
            values.append(float(text.strip()))
        except ValueError:
            values.append(math.nan)
        if not math.isfinite(values[-1]):
            raise ValueError(f"metric {show(name)}: {show(text.strip())} is not a finite "
                             "number")
    return tuple(values)


def _trec_parameter(name, metric, text):
    """One parameter of a trec_eval spelling: a cut-off, or a level in [0, level_max]."""
    text = text.strip()
    if metric.cutoff == "level":
        if re.fullmatch(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", text) \
                and 0 <= float(text) <= metric.level_max:
            return float(text)
        raise ValueError(f"metric {show(name)}: {show(text)} is not a level in "
                         f"[0, {metric.level_max:g}]")
    if re.fullmatch(r"[0-9]+", text) and int(text) > 0:
        return int(text)
    raise ValueError(f"metric {show(name)}: the cut-off {show(text)} is not a positive "
                     "integer")


def _with_level(name: str, lowered: str):
    """``(kind, level)`` for a metric whose parameter is a level in [0, 1], else None."""
    for metric in metrics():
        if metric.cutoff != "level":
            continue
        for alias in metric.aliases:
            found = re.match("^" + re.escape(alias) + _LEVEL, lowered)
            if found is None:
                continue
            level = float(found.group("level"))
            if not 0.0 <= level <= metric.level_max:
                raise ValueError(f"metric {show(name)}: the level must lie in "
                                 f"[0, {metric.level_max:g}]")
            return metric.name, level
    return None


# -- named parameters: name(key=value, ...)[@k] (the grammar: _parameters.py) -------

def _named(kind: str, k, written=None) -> MetricName:
    """The :class:`MetricName` of metric ``kind`` with ``k`` and the parameters ``written``."""
    metric = _METRICS[kind]
    written = written or {}
    values = {p.name: written.get(p.name, p.default) for p in metric.parameters}
    shown = ",".join(f"{p.name}={p.written(values[p.name])}" for p in metric.parameters
                     if values[p.name] != p.default)
    canonical = metric.display_name + (f"({shown})" if shown else "")
    if k is not None and metric.cutoff in ("optional", "required"):
        canonical += f"@{k}"
    elif k is not None and metric.cutoff == "level":
        canonical += f"@{k!r}"
    elif isinstance(k, tuple) and metric.cutoff == "params":  # trec_eval's spelling
        canonical += "." + ",".join(repr(v) for v in k)
    return MetricName(kind, k, values, canonical)


def _with_parameters(name: str, lowered: str) -> MetricName:
    """The :class:`MetricName` of ``name(key=value, ...)[@k]``."""
    alias, pairs, cut = split_call(name, lowered, _example(lowered))
    if alias in _REFUSED:
        raise ValueError(f"metric {show(name)}: {_REFUSED[alias]}")
    kind = kinds().get(alias)
    if kind is None:
        hint = did_you_mean(alias, sorted(kinds()), suffix=lowered[len(alias):])
        raise ValueError(f"unknown metric {show(name)}" + (f" ({hint})" if hint else "")
                         + "; the metrics with named parameters are "
                         + ", ".join(_example_of(m, m.display_name) for m in metrics()
                                     if m.parameters))
    metric = _METRICS[kind]
    declared = {parameter.name: parameter for parameter in metric.parameters}
    written = {}
    for key, text in pairs:
        if key not in declared:
            raise ValueError(_no_such_parameter(name, metric, key))
        if key in written:
            raise ValueError(f"metric {show(name)}: {key} is given twice")
        written[key] = declared[key].read(name, metric.display_name, text)
    _require_parameters(name, metric, alias, written)
    if cut is None and metric.cutoff == "required":
        raise ValueError(f"metric {show(name)} needs a cut-off, such as '{lowered}@10'")
    if cut is not None and metric.cutoff not in ("optional", "required"):
        raise ValueError(f"metric {show(name)}: {kind} takes no cut-off")
    if cut is not None and int(cut) <= 0:
        raise ValueError(f"metric {show(name)}: the cut-off must be a positive integer")
    if metric.cutoff in ("optional", "required"):
        return _named(kind, None if cut is None else int(cut), written)
    # no cut-off: parse_metric's k is the first parameter, as written (rbp's p)
    return _named(kind, written.get(metric.parameters[0].name) if metric.parameters
                  else None, written)


def _require_parameters(name, metric, alias, written) -> None:
    """Refuse a name that leaves out a parameter without a default."""
    for parameter in metric.parameters:
        if parameter.default is None and parameter.name not in written:
            example = f"{alias}({parameter.name}={parameter.suggestion()})"
            note = f" ({parameter.note})" if parameter.note else ""
            raise ValueError(f"metric {show(name)} needs its {parameter.meaning} "
                             f"{parameter.name}, such as {show(example)}{note}")


def _no_such_parameter(name, metric, key) -> str:
    """The message for a key that ``metric`` does not declare."""
    what = f"metric {show(name)}: {metric.display_name} takes no parameter {key}"
    if metric.parameters:
        return what + "; its parameters: " + ", ".join(
            f"{p.name} ({p.meaning}: {p.allowed()})" for p in metric.parameters)
    others = [(m.display_name, p) for m in metrics() for p in m.parameters if p.name == key]
    if others:  # grouped by meaning: alpha is a redundancy intolerance or a smoothing
        meanings = {}
        for display, parameter in others:
            meanings.setdefault(parameter.meaning, []).append(display)
        return what + "; only " + " and ".join(
            f"{', '.join(sorted(names))} take{'s' if len(names) == 1 else ''} a {meaning}"
            for meaning, names in meanings.items()) + f" ({key}=...)"
    return what + "; the metrics with named parameters are " + ", ".join(
        _example_of(m, m.display_name) for m in metrics() if m.parameters)


def _example_of(metric, alias) -> str:
    """A well-formed name of ``metric`` with every parameter written."""
    args = ",".join(f"{p.name}={p.written(p.suggestion())}" for p in metric.parameters)
    return f"{alias}({args})" + ("@10" if metric.cutoff == "required" else "")


def _example(lowered) -> str:
    """A name with parameters for the messages about ``lowered``'s form."""
    alias = re.match(r"[a-z0-9_-]*", lowered).group()
    kind = kinds().get(alias)
    if kind is not None and _METRICS[kind].parameters:
        return _example_of(_METRICS[kind], alias)
    first = next(m for m in metrics() if m.parameters)
    return _example_of(first, first.display_name)


# Cut-offs offered when a known metric has a cut-off that is not a number.
_COMMON_CUTOFFS = (1, 3, 5, 10, 20, 50, 100, 1000)


def _unknown_metric(name: str, lowered: str, match) -> ValueError:
    """The error for an unknown metric name, with the closest valid names.

    The name part and the cut-off are matched apart (``did_you_mean``):
    ``'presicion@5'`` gets ``'precision@5'``; a known name with a cut-off
    that is not a number (``'ndcg@1O'``, the letter O) gets the name with the
    closest usual cut-offs.
    """
    known_kinds = kinds()
    head, dot, params = lowered.partition(".")
    if dot and _trec_name(head) is None and "@" not in head and not head[-1:].isdigit():
        # trec_eval's spelling with a misspelt measure (ndcg_cutt.10)
        names = {m.name.lower(): m.name for metric in metrics() for m in metric.trec_eval
                 if "{}" in m.library}  # the measures that take parameters
        hint = did_you_mean(head, names, suffix=f".{params}")
        hint = f" ({hint})" if hint else ""
        return ValueError(f"unknown metric {show(name)}{hint}; trec_eval's measures with "
                          f"parameters are {', '.join(sorted(names.values()))} "
                          "('ndcg_cut.10'), or use this library's names ('ndcg@10')")
    base, _, cut = lowered.partition("@")
    if match is not None:
        base, cut = match.group("name"), match.group("k") or ""
        head, sep, tail = base.rpartition("_")  # trec_eval's P_1O, ndcg_cut_1O
        head = head.removesuffix("_cut")
        if not cut and sep and head in known_kinds:
            base, cut = head, tail
    if base in known_kinds:
        # the letters O and l typed for the digits 0 and 1 count as those digits
        typed = f"{base}@{cut.translate(str.maketrans('ol', '01'))}"
        hint = did_you_mean(typed, [f"{base}@{k}" for k in _COMMON_CUTOFFS], cutoff=0.0)
    else:
        hint = did_you_mean(base, sorted(known_kinds), suffix=f"@{cut}" if cut else "")
    known = ", ".join(sorted({metric.display_name for metric in metrics()}))
    hint = f" ({hint})" if hint else ""
    return ValueError(f"unknown metric {show(name)}{hint}; the metrics are {known}, "
                      "optionally with a cut-off such as 'ndcg@10', or trec_eval's "
                      "names ('ndcg_cut.10', 'P.5', 'map_cut.5,10')")
