"""The metric registry: every ranking metric declared once, and the name parser.

A metric family's module (``precision_recall.py``, ``ndcg.py``, ...) opens
with the definition and declares each of its metrics with :func:`register`:
the names users write, trec_eval's names and parameters, the per-list
function, the batch kernel and the keywords that change its value. Everything
that needs to know the metrics reads them here:

* :func:`parse_metric`, the names ``evaluate`` accepts (``ndcg@10``,
  ``ndcg_cut_10``, ``P_5``, ...);
* the command line (:mod:`metrics_lib.cli`), trec_eval's measure names
  (:func:`trec_measure`);
* the presets (:mod:`metrics_lib.conventions`), which keywords matter for which
  metric and which per-list function computes it;
* the batch pipeline, which calls :attr:`Metric.batch` on each chunk of users.

Every module of this folder whose name does not start with ``_`` is imported
the first time the registry is read, so a new metric needs no other file.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from dataclasses import dataclass, field
from typing import Callable

from .._validation import did_you_mean, show

__all__ = ["Metric", "TrecMeasure", "register", "get", "metrics", "parse_metric",
           "trec_measure", "trec_measures"]


@dataclass(frozen=True)
class TrecMeasure:
    """One trec_eval measure (``measures.c``, ``te_trec_measures``) that a metric computes.

    ``library`` is the metric name :func:`evaluate` is asked for: with a
    ``{}`` (``"ndcg@{}"``) the measure takes cut-offs, one column per
    cut-off, and ``default`` holds trec_eval's default cut-offs (for
    ``iprec_at_recall`` its recall levels); without, it takes no parameter.
    ``integer`` measures are counts, printed without decimals.
    """

    name: str
    library: str
    default: tuple | None = None
    integer: bool = False


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
    cutoff : {"optional", "none", "level"}
        Whether the name takes ``@k``; ``"level"``: a recall level instead.
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
        ``ndcg_cut_10`` are accepted as well. Case is ignored.
        trec_eval's other standard measures, which take no cut-off:
        ``rprec`` (``r_precision``, ``r-precision``), ``bpref``, ``num_ret``,
        ``num_rel``, ``num_rel_ret``; and ``iprec_at_recall_<level>``
        (``iprec_at_recall_0.50``, also ``iprec_at_recall@0.5``), whose
        parameter is a recall level in ``[0, 1]``. Two of them also take a
        cut-off: ``num_rel_ret@k``, the number of relevant items in the top
        k (ranx's ``hits@k``), and ``rprec@k``, R-precision of the list cut
        at k (Microsoft Recommenders ``r_precision_at_k``).

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
        metric does not take.

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
    (:mod:`metrics_lib.ranking.registry`): each metric's module declares its
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
    >>> parse_metric("num_rel_ret@10")
    ('num_rel_ret', 10)
    """
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings; got {type(name).__name__} "
                        f"{show(name)}")
    lowered = name.strip().lower()
    by_level = _with_level(name, lowered)
    if by_level is not None:
        return by_level
    if lowered in ("gm_map", "gmap"):
        raise ValueError(f"metric {show(name)} is a geometric mean over users, not "
                         "a value per user: evaluate 'map' and pass the column "
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
    k = match.group("k")
    if k is not None and _METRICS[kind].cutoff == "none":
        raise ValueError(f"metric {show(name)}: {kind} takes no cut-off")
    if k is not None:
        k = int(k)
        if k <= 0:
            raise ValueError(f"metric {show(name)}: the cut-off must be a positive "
                             "integer")
    return kind, k


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
            if not 0.0 <= level <= 1.0:
                raise ValueError(f"metric {show(name)}: the recall level must lie in "
                                 "[0, 1]")
            return metric.name, level
    return None


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
                      "optionally with a cut-off such as 'ndcg@10'")
