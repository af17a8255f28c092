"""Read TREC run and qrels files into the two tables :func:`evaluate` takes.

A *run* file has one line per retrieved document, six fields separated by
white space::

    query_id  Q0  doc_id  rank  score  run_tag

A *qrels* file has one line per judged document, four fields::

    query_id  iteration  doc_id  relevance

Query ids become the ``user`` column and document ids the ``item`` column
(both kept as strings, as trec_eval compares them), so that the tables plug
into :func:`metrics_lib.evaluate` without renaming.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

__all__ = ["read_trec_run", "read_trec_qrels"]

_RUN_FIELDS = ("user", "q0", "item", "rank", "score", "run")
_QRELS_FIELDS = ("user", "iteration", "item", "relevance")


def _scan_for_error(path, n_fields: int, numeric: dict[int, str], what: str):
    """Find the first malformed line and raise a ValueError naming it."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) != n_fields:
                raise ValueError(
                    f"{path}:{number}: a {what} line has {n_fields} fields, this "
                    f"one has {len(fields)}: {line.rstrip()!r}")
            for index, label in numeric.items():
                try:
                    value = float(fields[index])
                except ValueError:
                    value = None
                if value is None or not np.isfinite(value):
                    raise ValueError(
                        f"{path}:{number}: field {index + 1} ({label}) must be a "
                        f"finite number; got {fields[index]!r}")


def _read(path, fields, numeric, what) -> pd.DataFrame:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name; got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such {what} file: {path}")
    try:
        frame = pd.read_csv(path, sep=r"\s+", header=None, names=list(fields),
                            dtype=str, engine="c", skip_blank_lines=True,
                            keep_default_na=False, na_filter=True, na_values=[""],
                            quoting=3)
    except pd.errors.ParserError:
        frame = None
    except pd.errors.EmptyDataError:
        return pd.DataFrame({name: pd.Series(dtype=str) for name in fields})
    if frame is not None and not frame.isna().any().any():
        converted = {}
        for index, label in numeric.items():
            column = pd.to_numeric(frame[fields[index]], errors="coerce")
            if column.isna().any() or not np.isfinite(column.to_numpy(float)).all():
                converted = None
                break
            converted[fields[index]] = column
        if converted is not None:
            for name, column in converted.items():
                frame[name] = column
            return frame
    _scan_for_error(path, len(fields), numeric, what)
    # read_csv refused a file the line scanner accepts (e.g. stray quotes).
    raise ValueError(f"{path}: could not parse as a {what} file")


def read_trec_run(path) -> pd.DataFrame:
    """Read a TREC run file (``qid Q0 docno rank score tag``).

    Parameters
    ----------
    path : str or path-like
        The run file. Blank lines are skipped.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` (query id, str), ``q0`` (str), ``item`` (document
        id, str), ``rank`` (number), ``score`` (number) and ``run`` (str), one
        row per line, in file order.

    Raises
    ------
    ValueError
        A line without exactly six fields, or a rank or score that is not a
        finite number; the message gives the file name and line number.
    FileNotFoundError
        No such file.

    See Also
    --------
    read_trec_qrels, evaluate

    Notes
    -----
    trec_eval ranks documents by ``score`` and ignores the ``rank`` field;
    :func:`evaluate` does the same unless given ``rank_col="rank"``.

    References
    ----------
    .. [1] Voorhees and Harman (eds.), *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005.
    .. [2] trec_eval, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from metrics_lib import read_trec_run
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run.txt").write_text("q1 Q0 d1 1 2.5 bm25\\nq1 Q0 d2 2 1.0 bm25\\n")
    >>> read_trec_run(folder / "run.txt")[["user", "item", "score"]]
      user item  score
    0   q1   d1    2.5
    1   q1   d2    1.0
    """
    return _read(path, _RUN_FIELDS, {3: "rank", 4: "score"}, "run")


def read_trec_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file (``qid iteration docno relevance``).

    Parameters
    ----------
    path : str or path-like
        The qrels file. Blank lines are skipped.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` (query id, str), ``iteration`` (str), ``item``
        (document id, str) and ``relevance`` (number), one row per line.

    Raises
    ------
    ValueError
        A line without exactly four fields or a relevance that is not a
        finite number (file name and line number in the message).
    FileNotFoundError
        No such file.

    See Also
    --------
    read_trec_run, evaluate

    Notes
    -----
    Grades must be >= 0 for :func:`evaluate`; some collections mark unjudged
    or spam documents with negative grades, which trec_eval treats as not
    relevant. Clip them first (``qrels["relevance"].clip(lower=0)``).

    References
    ----------
    .. [1] Voorhees and Harman (eds.), *TREC: Experiment and Evaluation in
       Information Retrieval*, MIT Press, 2005.
    .. [2] trec_eval, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from metrics_lib import read_trec_qrels
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels.txt").write_text("q1 0 d2 1\\nq1 0 d7 2\\n")
    >>> read_trec_qrels(folder / "qrels.txt")
      user iteration item  relevance
    0   q1         0   d2          1
    1   q1         0   d7          2
    """
    return _read(path, _QRELS_FIELDS, {3: "relevance"}, "qrels")
