"""trec_eval's other standard measures: R-precision, bpref, interpolated precision, counts.

Definitions, for one user with ``R`` relevant items (grade at or above
``relevance_level``) and a ranked list of ``N`` items:

* ``rprec`` (``m_Rprec.c``): relevant items among the first ``R`` ranks,
  over ``R``; ``rprec@k`` looks at the first ``min(k, R)`` ranks only
  (Microsoft Recommenders' ``r_precision_at_k``). A user with ``R = 0``
  gets the ``empty`` policy.
* ``bpref`` (``m_bpref.c``): over the relevant items retrieved, 1 minus the
  number of judged non-relevant items ranked above each (at most ``R``),
  over ``min(R, number of judged non-relevant items)``; ``R = 0``: ``empty``.
* ``iprec_at_recall_<level>`` (``m_iprec_at_recall.c``): the largest
  precision at any rank whose recall is at least ``level`` (the target item
  of trec_eval 10.0, or of 9.0.8 with ``trec_eval_version=9``); ``R = 0``:
  ``empty``.
* ``num_ret``, ``num_rel``, ``num_rel_ret`` (``m_num_*.c``): ``N``, ``R`` and
  the relevant items retrieved (in the top ``k`` for ``num_rel_ret@k``,
  ranx's ``hits@k``). Counts are defined for every user: no ``empty``
  policy.

The per-list functions are :func:`metrics_lib.r_precision`,
:func:`metrics_lib.bpref`, :func:`metrics_lib.interpolated_precision` and
:func:`metrics_lib.hit_count_at_k`; the batch kernels are the methods of
:class:`metrics_lib._trec_kernels.TrecTable`.
"""

from __future__ import annotations

from ..trec_measures import bpref, interpolated_precision, r_precision
from .hit_rate import hit_count_at_k
from .registry import Metric, TrecMeasure, register


def _trec_batch(kind):
    def batch(tables, k, options):
        return tables.trec.measure(kind, k, options["relevance_level"],
                                   version=options.get("trec_eval_version", 10))
    return batch


def _rprec_batch(tables, k, options):
    if k is None:
        return tables.trec.measure("rprec", None, options["relevance_level"])
    return tables.trec.measure("rprec", None, options["relevance_level"],
                               cut=None if tables.truncated else k)


def _num_rel_ret_batch(tables, k, options):
    if k is None:
        return tables.trec.measure("num_rel_ret", None, options["relevance_level"])
    return tables.binary.binary("count", k, options["relevance_level"], "relevant",
                                truncated=tables.truncated)


register(Metric(
    name="rprec", aliases=("rprec", "r_precision", "r-precision"), per_list=r_precision,
    batch=_rprec_batch, table="trec", keywords=("empty",),
    trec_eval=(TrecMeasure("Rprec", "rprec"),)))
register(Metric(
    name="bpref", aliases=("bpref",), per_list=bpref, batch=_trec_batch("bpref"),
    cutoff="none", table="trec",
    # a negative grade (in the pool, unjudged) is skipped as an absent item is
    negative_grades=True,
    # gm_bpref (m_gm_bpref.c): the same per-query bpref, summed up as
    # exp(mean(log(max(bpref, 1e-5)))) and printed only in the summary
    trec_eval=(TrecMeasure("bpref", "bpref"), TrecMeasure("gm_bpref", "bpref"))))
register(Metric(
    name="iprec_at_recall", aliases=("iprec_at_recall",),
    per_list=interpolated_precision, batch=_trec_batch("iprec_at_recall"),
    cutoff="level", table="trec", keywords=("trec_eval_version",),
    trec_eval=(TrecMeasure("iprec_at_recall", "iprec_at_recall_{}",
                           tuple(i / 10 for i in range(11))),)))
register(Metric(
    name="num_ret", aliases=("num_ret",), batch=_trec_batch("num_ret"), cutoff="none",
    table="trec", can_be_empty=False,
    trec_eval=(TrecMeasure("num_ret", "num_ret", integer=True),)))
register(Metric(
    name="num_rel", aliases=("num_rel",), batch=_trec_batch("num_rel"), cutoff="none",
    table="trec", can_be_empty=False,
    trec_eval=(TrecMeasure("num_rel", "num_rel", integer=True),)))
register(Metric(
    name="num_rel_ret", aliases=("num_rel_ret",), per_list=hit_count_at_k,
    batch=_num_rel_ret_batch, table="trec", can_be_empty=False,
    trec_eval=(TrecMeasure("num_rel_ret", "num_rel_ret", integer=True),)))
