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
from .._cli_output import _Refused, _query_lines, _summary_lines
from .reading import read_trec_arrays  # the one import of the reader
from .measures import OFFERED, query_values, rank_and_join

__all__ = ["run"]


# trec_eval's default measures (-m official) and their columns, as
# metrics_lib._cli_measures gives them (tests/test_dropin_fast.py compares):
# written out so that the default command line does not import the -m
# grammar, which loads every metric module of the registry
_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
_OFFICIAL = dict.fromkeys(("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map",
                           "gm_map", "Rprec", "bpref", "recip_rank"))
_OFFICIAL.update(iprec_at_recall=_LEVELS, P=_CUTOFFS)
_OFFICIAL_COLUMNS = (
    [(name, name, None) for name in ("num_ret", "num_rel", "num_rel_ret", "map")]
    + [("gm_map", "map", None), ("Rprec", "rprec", None), ("bpref", "bpref", None),
       ("recip_rank", "mrr", None)]
    + [(f"iprec_at_recall_{p:3.2f}", "iprec_at_recall_" + (f"{p:g}"), p) for p in _LEVELS]
    + [(f"P_{k}", f"P@{k}", None) for k in _CUTOFFS])


def _measures(specs):
    """(measures, columns) of the -m arguments if this path offers them, else None."""
    if not specs:
        return _OFFICIAL, _OFFICIAL_COLUMNS
    from .._cli_measures import _Extra, _columns, _parse_measures

    try:
        measures, notes = _parse_measures(specs)
    except _Refused:  # the other path reports it
        return None
    if notes or any(isinstance(params, _Extra) or name not in OFFERED
                    for name, params in measures.items()):
        return None
    return measures, _columns(measures)


def _options(args):
    """(measures, columns, level, max_docs) if this path takes the command line, else None."""
    if (args.Z is not None or args.D is not None or args.R != "qrels"
            or args.T != "trec_results"):
        return None
    chosen = _measures(args.measures)
    level = _atol(args.l)
    max_docs = None if args.M is None else _atol(args.M)
    if chosen is None or level < 0 or (max_docs is not None and max_docs < 0):
        return None
    return (*chosen, level, max_docs)


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
        plain (see :mod:`metrics_lib.dropin.reading`) or the options
        ask for something this path does not compute.
    """
    options = _options(args)
    if options is None:
        return None
    measures, columns, level, max_docs = options
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
