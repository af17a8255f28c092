"""trec_eval's set measures (the retrieved list as an unordered set) and relative_P.

Definitions, for one user with ``N`` retrieved items, ``R`` relevant items
(grade at or above ``relevance_level``) and ``h`` of them retrieved; the
rank order plays no part except in ``relative_p@k``:

* ``set_p`` (``m_set_P.c``, trec_eval's ``set_P``): ``h / N``, 0 when
  ``N = 0``. Unlike ``P@k`` there is no cut-off and no filling with
  non-relevant items: a list of 3 items with 1 relevant scores 1/3.
  Defined for every user: no ``empty`` policy.
* ``set_recall`` (``m_set_recall.c``, ``set_recall``): ``h / R``; ``R = 0``:
  the ``empty`` policy (trec_eval: 0).
* ``set_map`` (``m_set_map.c``, ``set_map``): ``h * h / (N * R)``, set
  precision times set recall; ``R = 0``: the ``empty`` policy (trec_eval: 0).
* ``set_relative_p`` (``m_set_rel_P.c``, ``set_relative_P``):
  ``h / min(N, R)``, the set precision over the largest one a list of ``N``
  items can reach; 0 when ``N = 0``; ``R = 0``: the ``empty`` policy
  (trec_eval: 0).
* ``relative_p@k`` (``m_rel_P.c``, ``relative_P``, trec_eval's default
  cut-offs 5, 10, 15, 20, 30, 100, 200, 500, 1000): relevant items in the
  top ``k`` over ``min(k, R)``, precision up to ``R`` and recall after it;
  a list shorter than ``k`` is not filled in. ``R = 0``: the ``empty``
  policy (trec_eval: 0).
* ``set_f`` (``m_set_F.c``, ``set_F``; ``set_f(beta=0.5)`` for trec_eval's
  ``-m set_F.0.5``): with ``P = h / N`` and ``Rc = h / R``,
  ``(beta + 1) * P * Rc / (beta * P + Rc)``; ``beta`` (default 1, any
  finite number >= 0) weighs recall against precision, ``beta = 0`` gives
  ``P``. 0 when ``h = 0``; ``R = 0``: the ``empty`` policy (trec_eval: 0).
* ``num_nonrel_judged_ret`` (``m_num_nonrel_judged_ret.c``): the retrieved
  items that are judged and not relevant (grade 0 up to ``relevance_level``
  excluded; items absent from the truth, or with a negative grade, are
  unjudged and not counted). A count, defined for every user.

trec_eval averages each of these measures over the queries (``te_calc_avg_meas_s``)
and sums ``num_nonrel_judged_ret`` (``te_calc_avg_meas_empty``). The batch
kernels are :meth:`metrics_lib._trec_kernels.TrecTable.set_measure` and
:meth:`~metrics_lib._trec_kernels.TrecTable.measure`.
"""

from __future__ import annotations

from .registry import Metric, TrecMeasure, register


def _set_batch(kind):
    def batch(tables, k, options):  # k: set_f's beta (None: 1)
        return tables.trec.measure(kind, k, options["relevance_level"])
    return batch


register(Metric(
    name="set_p", aliases=("set_p",), batch=_set_batch("set_p"), cutoff="none",
    table="trec", can_be_empty=False,
    trec_eval=(TrecMeasure("set_P", "set_p"),)))
register(Metric(
    name="set_recall", aliases=("set_recall",), batch=_set_batch("set_recall"),
    cutoff="none", table="trec",
    trec_eval=(TrecMeasure("set_recall", "set_recall"),)))
register(Metric(
    name="set_map", aliases=("set_map",), batch=_set_batch("set_map"), cutoff="none",
    table="trec", trec_eval=(TrecMeasure("set_map", "set_map"),)))
register(Metric(
    name="set_relative_p", aliases=("set_relative_p",), batch=_set_batch("set_relative_p"),
    cutoff="none", table="trec",
    trec_eval=(TrecMeasure("set_relative_P", "set_relative_p"),)))
register(Metric(
    name="relative_p", aliases=("relative_p",), batch=_set_batch("relative_p"),
    cutoff="required", table="trec",
    trec_eval=(TrecMeasure("relative_P", "relative_p@{}",
                           (5, 10, 15, 20, 30, 100, 200, 500, 1000)),)))
register(Metric(
    name="set_f", aliases=("set_f",), batch=_set_batch("set_f"), cutoff="beta",
    table="trec", trec_eval=(TrecMeasure("set_F", "set_f"),)))
register(Metric(
    name="num_nonrel_judged_ret", aliases=("num_nonrel_judged_ret",),
    batch=_set_batch("num_nonrel_judged_ret"), cutoff="none", table="trec",
    can_be_empty=False, negative_grades=True,
    trec_eval=(TrecMeasure("num_nonrel_judged_ret", "num_nonrel_judged_ret",
                           integer=True),)))
