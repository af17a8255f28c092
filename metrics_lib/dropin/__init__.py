"""The trec_eval drop-in's fast path: plain files, numpy only.

``python -m metrics_lib`` and ``trec-eval-py`` (:func:`metrics_lib.cli.main`)
first try :func:`run`: it reads plain TREC files into code arrays, computes
trec_eval 10.0's default measures (and the other measures of
:data:`~metrics_lib.dropin.measures.OFFERED`) for every query at once and
formats trec_eval's output. It imports the standard library and numpy only
(no pandas, pyarrow or scipy), so the command line starts in about the time
of ``python -c "import numpy"``. Anything it does not handle exactly as
trec_eval does makes it return ``None``, and the command line takes its
path through :func:`metrics_lib.evaluate`, which handles every case.
"""

from __future__ import annotations

from .._c_numbers import _atol
from .._cli_measures import _Extra, _Refused, _columns, _parse_measures
from .._cli_output import _query_lines, _summary_lines
from ._simple_reading import read_trec_arrays  # the one import of the reader
from .measures import OFFERED, query_values, rank_and_join

__all__ = ["run"]


def _options(args):
    """(measures, level, max_docs) if this path takes the command line, else None."""
    if (args.Z is not None or args.D is not None or args.R != "qrels"
            or args.T != "trec_results"):
        return None
    try:
        measures, notes = _parse_measures(args.measures or ["official"])
    except _Refused:  # the other path reports it
        return None
    if notes or any(isinstance(params, _Extra) or name not in OFFERED
                    for name, params in measures.items()):
        return None
    level = _atol(args.l)
    max_docs = None if args.M is None else _atol(args.M)
    if level < 0 or (max_docs is not None and max_docs < 0):
        return None
    return measures, level, max_docs


def run(args) -> str | None:
    """trec_eval's output for parsed command line ``args``, or None (other path).

    Parameters
    ----------
    args : argparse.Namespace
        From :func:`metrics_lib.cli.build_parser`.

    Returns
    -------
    str or None
        The text trec_eval 10.0 prints, or ``None`` when the files are not
        plain (see :mod:`metrics_lib.dropin._simple_reading`) or the options
        ask for something this path does not compute.
    """
    options = _options(args)
    if options is None:
        return None
    measures, level, max_docs = options
    try:
        arrays = read_trec_arrays(args.run, args.qrels)
    except OSError:  # the other path names the file and the error
        return None
    if arrays is None:
        return None
    ranked = rank_and_join(arrays, level=level, complete=args.c, judged_only=args.J,
                           max_docs=max_docs)
    if ranked is None:
        return None
    columns = _columns(measures)
    values = query_values(ranked, columns, judged_only=args.J, max_docs=max_docs)
    if values is None:
        return None
    lines = []
    if args.q:
        ids = [qid.decode("utf-8") for qid in arrays.query_ids[ranked.queries].tolist()]
        lines = _query_lines(values, ids, columns)
    if not args.n:
        lines += _summary_lines(measures, columns, values, ranked.queries.size,
                                arrays.run_tag, args.c, arrays.qrels_grade)
    return "".join(lines)
