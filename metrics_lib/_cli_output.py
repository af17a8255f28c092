"""The command line's output: trec_eval 10.0's lines, per-query texts and summaries.

Shared by the command line's two paths, the numpy-only one
(:mod:`metrics_lib.dropin`) and the one through :func:`metrics_lib.evaluate`
(:mod:`metrics_lib.cli`), so that both print the same bytes; no pandas here.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = []

# The measures printed and summed as integer counts: those whose registry
# entry says ``integer`` (metrics_lib._cli_measures checks this copy against
# the registry when it is imported); kept here so that printing does not
# import the registry, whose metric modules the numpy-only path never needs.
_COUNTS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")
_MIN_GEO_MEAN = 0.00001  # m_gm_map.c, MIN_GEO_MEAN
# Summary-only measures, the geometric mean of a per-query measure
# (m_gm_map.c, m_gm_bpref.c: te_print_single_meas_empty, te_calc_avg_meas_s_gm).
_GEOMETRIC = ("gm_map", "gm_bpref")


class _Refused(Exception):
    """An error trec_eval reports with this exit code."""

    def __init__(self, message, code, query=None):
        super().__init__(message)
        self.code = code
        self.query = query  # exit 4: the code of the query where trec_eval stops


def _role(column) -> str:
    """The name that decides how a column prints and sums (its trec_eval measure)."""
    printed, metric, _ = column
    return metric if metric in _COUNTS else printed


def _per_query_only(column) -> bool:
    """relstring (m_relstring.c, te_print_relstring): no summary line."""
    return column[1][:1] == ("relstring",)


def _iprec_as_trec_eval(values, p, n_rel, n_ret):
    """m_iprec_at_recall.c around a level's values: levels outside [0, 1], and 0/0.

    The target is the ``lround(p * R)``-th relevant document: above 1 it is
    reached only when ``lround(p * R) == R`` (then level 1's value, else 0).
    A query with no document ranked (``-J``, ``-M 0``) starts from precision
    0/0, which stays the value of targets <= 0: NaN (printed ``-nan``).
    """
    aim = np.floor(p * n_rel + 0.5) if p > 0 else np.zeros(n_rel.size)
    if p > 1:
        values = np.where(aim == n_rel, values, 0.0)
    return np.where((n_ret == 0) & (aim <= 0), np.nan, values)


def _text(value, role) -> str:
    """One value as meas_print_single.c / meas_print_final.c print it (``role``: its measure)."""
    if isinstance(value, str):
        return value
    if value != value:  # glibc's "%6.4f" of 0.0/0.0 on x86-64
        return "  -nan"
    if role in _COUNTS:
        return str(int(value))
    return f"{value:6.4f}"


def _line(name, qid, value, role=None) -> str:
    """One output line, as meas_print_single.c / meas_print_final.c print it.

    ``role``: the trec_eval measure whose format applies, if not ``name``.
    """
    return f"{name:<22}\t{qid}\t{_text(value, role or name)}\n"


def _column_texts(values, role) -> list[str]:
    """:func:`_text` of every value of one column; a plain loop for float measures."""
    if values.dtype.kind != "f" or role in _COUNTS:
        return [_text(value, role) for value in values.tolist()]
    texts = [f"{value:6.4f}" for value in values.tolist()]
    for i in np.flatnonzero(np.isnan(values)).tolist():
        texts[i] = "  -nan"
    return texts


def _query_lines(values, ids, columns) -> list[str]:
    """The -q lines: every query (in strcmp order of the ids), every column but the
    summary-only ones (gm_map, gm_bpref).

    ``values``: one array per column (by position), one value per query;
    ``ids``: the query ids, in the same order. Returns pieces of text whose
    concatenation is the lines.
    """
    shown = [i for i, (printed, _, _) in enumerate(columns) if printed not in _GEOMETRIC]
    arrays = [np.asarray(values[position]) for position in shown]
    if not any(a.dtype.kind == "f" and np.isnan(a).any() for a in arrays):
        return _query_lines_by_template(arrays, ids, [columns[i] for i in shown])
    prefixes = [f"{columns[position][0]:<22}\t" for position in shown]
    # one column at a time: formatting 10^5-10^6 values is most of -q's cost
    texts = [_column_texts(array, _role(columns[position]))
             for array, position in zip(arrays, shown)]
    return [f"{prefix}{qid}\t{text}\n"
            for qid, row in zip(ids, zip(*texts)) for prefix, text in zip(prefixes, row)]


_CHUNK = 8_192  # queries formatted by one % operation (bounds the temporary tuple)


def _query_lines_by_template(arrays, ids, columns) -> list[str]:
    """:func:`_query_lines` without NaN: one ``%`` of a repeated template per chunk.

    About twice as fast as formatting value by value (0.88 s against 1.55 s
    for 100,000 queries x 26 lines); ``%6.4f`` and ``%d`` print what
    :func:`_text` prints for every number but NaN.
    """
    formats = ["%s" if array.dtype == object else "%d" if _role(column) in _COUNTS
               else "%6.4f" for array, column in zip(arrays, columns)]
    template = "".join(f"{column[0]:<22}".replace("%", "%%") + f"\t%s\t{form}\n"
                       for column, form in zip(columns, formats))
    out = []
    for start in range(0, len(ids), _CHUNK):
        stop = min(start + _CHUNK, len(ids))
        cells = np.empty((stop - start, 2 * len(arrays)), dtype=object)
        cells[:, 0::2] = np.array(ids[start:stop], dtype=object)[:, None]
        for j, array in enumerate(arrays):
            cells[:, 2 * j + 1] = array[start:stop].tolist()
        out.append((template * (stop - start)) % tuple(cells.ravel().tolist()))
    return out


def _summary_lines(measures, columns, values, n_queries, tag, complete,
                   grades) -> list[str]:
    """The "all" lines: runid, num_q, then every column's summary (meas_print_final.c).

    ``values``: one array per column (by position), one value per query;
    ``grades``: every grade of the qrels (``num_rel`` with ``-c``).
    """
    lines = []
    if "runid" in measures:
        lines.append(_line("runid", "all", tag))  # the last line's tag, as trec_eval
    if "num_q" in measures:
        lines.append(_line("num_q", "all", str(n_queries)))
    for position, column in enumerate(columns):
        if _per_query_only(column):
            continue
        role = _role(column)
        lines.append(_line(column[0], "all",
                           _summary(role, np.asarray(values[position], float), complete,
                                    grades), role))
    return lines


def _sequential_mean(values) -> float:
    """meas_acc.c ``te_acc_meas_s``, meas_avg.c ``te_calc_avg_meas_s``: the per-query values
    added one after the other in query order, then divided by their number.

    Not ``np.mean``, whose pairwise sum can differ in the last bit, which
    ``%6.4f`` shows when the mean is a tie at the fifth decimal (27 / 12000).
    """
    return float(np.cumsum(values)[-1]) / len(values) if len(values) else 0.0


def _summary(name, values, complete, grades):
    """The "all" value of one column (meas_avg.c and the measures' own averages)."""
    if name in _GEOMETRIC:  # m_gm_map.c: log per query, summed, exp of the mean
        return math.exp(_sequential_mean(np.log(np.maximum(values, _MIN_GEO_MEAN)))) \
            if len(values) else 0.0
    if name == "num_rel" and complete:
        # m_num_rel.c te_calc_avg_num_rel: with -c the summary recounts the
        # qrels lines with grade > 0, whatever -l, -J or -M say.
        return int((grades > 0).sum())
    if name in _COUNTS:
        return values.sum()
    return _sequential_mean(values)
