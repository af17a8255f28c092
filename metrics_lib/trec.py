"""Read TREC run and qrels files into the two tables :func:`evaluate` takes.

A *run* file has one line per retrieved document, six fields separated by
white space::

    query_id  Q0  doc_id  rank  score  run_tag

A *qrels* file has one line per judged document, four fields::

    query_id  iteration  doc_id  relevance

Both are read as trec_eval 10.0 reads them (usnistgov/trec_eval,
``get_trec_results.c`` ``te_get_trec_results``/``parse_results_line`` and
``get_qrels.c`` ``te_get_qrels``/``parse_qrels_line``):

* a line whose first non-blank character is ``#`` is a comment, anywhere in
  the file (trec_eval skips a ``#`` line of a qrels file only in column 0 and
  only one in a row; this reader is more lenient there);
* blank lines are skipped in a run and refused in a qrels file (trec_eval
  refuses them there too: "Malformed line");
* a run line needs at least six fields; text after the sixth is ignored, as
  trec_eval ignores it; the ``Q0`` and ``rank`` fields are never read;
* a qrels line needs exactly four fields;
* ids are bytes: any encoding is read, and equal scores are later ordered by
  the bytes of the document id, as trec_eval's ``strcmp``. Ids that are valid
  UTF-8 are decoded as UTF-8, any other file as Latin-1 (byte ``b`` becomes
  code point ``b``, so that the UTF-8 order of the decoded text is the byte
  order of the original); ``frame.attrs["encoding"]`` says which;
* the relevance is truncated to an integer as trec_eval's ``atol`` does
  (``1.7`` is grade 1, ``-0.5`` is grade 0); negative grades are kept (trec_eval
  treats them as judged but unpooled: not relevant, not counted by bpref);
* a score is a number, ``inf`` and ``-inf`` included (trec_eval's ``atof``).

Where trec_eval silently reads something as 0 (a score ``high`` or a grade
``yes``: ``atof``/``atol`` of text), and for ``nan`` scores (whose order
trec_eval leaves undefined), the readers refuse the line instead, naming
file and line: no silent wrong number. A file name ``"-"`` reads standard
input; gzip-compressed files are recognised by their first two bytes.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import sys

import numpy as np
import pandas as pd

__all__ = ["read_trec_run", "read_trec_qrels"]

_RUN_FIELDS = ("user", "q0", "item", "rank", "score", "run")
_QRELS_FIELDS = ("user", "iteration", "item", "relevance")
# A grade as atol reads it, restricted to plain decimal notation.
_GRADE = re.compile(rb"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$")


def _source(path, what: str):
    """A plain file's name (read later, in blocks), else its bytes; and the name."""
    if isinstance(path, (str, os.PathLike)) and os.fspath(path) != "-":
        path = os.fspath(path)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such {what} file: {path}")
        with open(path, "rb") as handle:
            if handle.read(2) != b"\x1f\x8b":
                return path, path
    return _load(path, what)


def _load(path, what: str) -> tuple[bytes, str]:
    """The file's bytes (gunzipped) and the name used in messages."""
    if isinstance(path, (bytes, bytearray)):
        raise TypeError(f"{what} must be a file name or '-'; got bytes")
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{what} must be a file name or '-'; got {type(path).__name__}")
    path = os.fspath(path)
    if path == "-":
        data, name = sys.stdin.buffer.read(), "<stdin>"
    else:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such {what} file: {path}")
        with open(path, "rb") as handle:
            data = handle.read()
        name = path
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as error:
            raise ValueError(f"{name}: not a readable gzip file ({error})") from None
    return data, name


def _decode(columns: list[list[bytes]]) -> tuple[list, str]:
    try:
        return [[value.decode("utf-8") for value in column] for column in columns], "utf-8"
    except UnicodeDecodeError:
        return [[value.decode("latin-1") for value in column] for column in columns], "latin-1"


def _fail(name, number, message, line):
    text = line.rstrip(b"\r\n").decode("utf-8", "backslashreplace")
    raise ValueError(f"{name}:{number}: {message}: {text!r}")


# Bytes that make a file take the line-by-line path: comments, CR, tabs and
# other white space, runs of blanks (the fast path splits on single spaces).
_ODD = (b"#", b"\r", b"\t", b"\x0b", b"\x0c", b"  ", b"\n ")


def _plain(source) -> bool:
    """No byte that needs the line-by-line reader (bytes, or a file scanned in blocks)."""
    if isinstance(source, (bytes, bytearray)):
        return bool(source) and not source.startswith(b" ") and not any(
            odd in source for odd in _ODD)
    with open(source, "rb") as handle:
        tail, first = b"", True
        while block := handle.read(1 << 24):
            if first and block.startswith(b" "):
                return False
            first = False
            chunk = tail + block
            if any(odd in chunk for odd in _ODD):
                return False
            tail = block[-1:]
    return not first


def _fast(source, names, types, *, blank_ok: bool):
    """pyarrow's multithreaded CSV reader on a plain file, or None.

    ``source`` is the file's bytes or, for a plain uncompressed file, its
    name (then pyarrow reads it in blocks: the file is never held whole).
    Plain: single spaces between fields, no comment, no CR, every line with
    exactly ``len(names)`` fields, valid UTF-8, numbers that parse. Anything
    else returns None and the line-by-line reader (which names the offending
    line) decides. Ids come back dictionary-encoded (less memory).
    """
    if not _plain(source):
        return None
    if not blank_ok:
        head = source if isinstance(source, (bytes, bytearray)) else None
        if head is None:
            with open(source, "rb") as handle:
                blank = handle.read(1) == b"\n"
                tail = b""
                while not blank and (block := handle.read(1 << 24)):
                    blank = b"\n\n" in tail + block
                    tail = block[-1:]
        else:
            blank = head.startswith(b"\n") or b"\n\n" in head
        if blank:
            return None
    import pyarrow as pa
    from pyarrow import csv

    reader = pa.BufferReader(source) if isinstance(source, (bytes, bytearray)) else source
    try:
        table = csv.read_csv(
            reader,
            read_options=csv.ReadOptions(column_names=list(names), use_threads=True,
                                         block_size=1 << 24),
            parse_options=csv.ParseOptions(delimiter=" ", quote_char=False,
                                           double_quote=False, escape_char=False),
            convert_options=csv.ConvertOptions(include_columns=list(types),
                                               column_types=types))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if any(table.column(c).null_count for c in types):
        return None
    return table.unify_dictionaries()


def _id_type():
    import pyarrow as pa

    return pa.dictionary(pa.int32(), pa.string())


def _run_columns(data: bytes, name: str):
    """(user, item, score, last run tag, encoding) with user/item as arrow arrays."""
    import pyarrow as pa

    table = _fast(data, _RUN_FIELDS, {"user": _id_type(), "item": _id_type(),
                                      "score": pa.float64()}, blank_ok=True)
    if table is not None:
        scores = table.column("score").to_numpy()
        if not np.isnan(scores).any():
            if isinstance(data, (bytes, bytearray)):
                end = data[-4096:]
            else:
                with open(data, "rb") as handle:
                    handle.seek(max(0, os.path.getsize(data) - 4096))
                    end = handle.read()
            last = end.rstrip(b"\n").rsplit(b"\n", 1)[-1].split()
            tag = last[5].decode("utf-8") if len(last) >= 6 else ""
            return (table.column("user"), table.column("item"), scores, tag, "utf-8")
    if not isinstance(data, (bytes, bytearray)):
        data = _load(data, "run")[0]
    frame = _parse_run(data, name)
    tag = frame["run"].iloc[-1] if len(frame) else ""
    return (pa.array(frame["user"].tolist(), pa.string()),
            pa.array(frame["item"].tolist(), pa.string()),
            frame["score"].to_numpy(), tag, frame.attrs["encoding"])


def _qrels_columns(data: bytes, name: str):
    """(user, item, grade int64, encoding) with user/item as arrow arrays."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _fast(data, _QRELS_FIELDS, {"user": _id_type(), "item": _id_type(),
                                        "relevance": pa.string()}, blank_ok=False)
    if table is not None:
        grades = table.column("relevance")
        if pc.all(pc.match_substring_regex(grades, _GRADE.pattern.decode())).as_py():
            values = np.trunc(pc.cast(grades, pa.float64()).to_numpy())  # atol
            return (table.column("user"), table.column("item"),
                    values.astype(np.int64), "utf-8")
    if not isinstance(data, (bytes, bytearray)):
        data = _load(data, "qrels")[0]
    frame = _parse_qrels(data, name)
    return (pa.array(frame["user"].tolist(), pa.string()),
            pa.array(frame["item"].tolist(), pa.string()),
            frame["relevance"].to_numpy(), frame.attrs["encoding"])


def _parse_run(data: bytes, name: str) -> pd.DataFrame:
    users, items, scores, tags = [], [], [], []
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 6:
            _fail(name, number, f"a run line has 6 fields (qid Q0 docno rank score "
                  f"tag), this one has {len(fields)}", line)
        try:
            score = float(fields[4])
        except ValueError:
            score = None
        if score is None or score != score:
            _fail(name, number, f"field 5 (score) must be a number or +-inf; got "
                  f"{fields[4].decode('utf-8', 'backslashreplace')!r}", line)
        users.append(fields[0])
        items.append(fields[2])
        scores.append(score)
        tags.append(fields[5])
    (users, items, tags), encoding = _decode([users, items, tags])
    frame = pd.DataFrame({"user": pd.Series(users, dtype=object),
                          "item": pd.Series(items, dtype=object),
                          "score": np.asarray(scores, dtype=float),
                          "run": pd.Series(tags, dtype=object)})
    frame.attrs["encoding"] = encoding
    return frame


def _parse_qrels(data: bytes, name: str) -> pd.DataFrame:
    users, items, grades = [], [], []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final newline ends the last line
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        if fields and fields[0].startswith(b"#"):
            continue
        if len(fields) != 4:
            _fail(name, number, f"a qrels line has 4 fields (qid iter docno "
                  f"relevance), this one has {len(fields)}", line)
        if not _GRADE.match(fields[3]):
            _fail(name, number, "field 4 (relevance) must be a number; got "
                  f"{fields[3].decode('utf-8', 'backslashreplace')!r}", line)
        users.append(fields[0])
        items.append(fields[2])
        grades.append(int(float(fields[3])))  # atol: truncate toward zero
    (users, items), encoding = _decode([users, items])
    frame = pd.DataFrame({"user": pd.Series(users, dtype=object),
                          "item": pd.Series(items, dtype=object),
                          "relevance": np.asarray(grades, dtype=np.int64)})
    frame.attrs["encoding"] = encoding
    return frame


def read_trec_run(path) -> pd.DataFrame:
    """Read a TREC run file (``qid Q0 docno rank score tag``) as trec_eval does.

    Parameters
    ----------
    path : str or path-like
        The run file, ``"-"`` for standard input; gzip files are recognised.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` (query id, str), ``item`` (document id, str),
        ``score`` (float, ``inf``/``-inf`` allowed) and ``run`` (the tag, str),
        one row per line, in file order. ``frame.attrs["encoding"]`` is
        ``"utf-8"`` or ``"latin-1"`` (see the module notes).

    Raises
    ------
    ValueError
        A line with fewer than six fields, or a score that is not a number or
        is ``nan``; the message gives the file name and line number.
    FileNotFoundError
        No such file.

    See Also
    --------
    read_trec_qrels, evaluate

    Notes
    -----
    trec_eval ranks documents by ``score`` (equal scores by document id,
    descending, bytewise) and never reads the ``Q0`` and ``rank`` fields, so
    they are not returned; text after the sixth field is ignored and ``#``
    lines are comments (module notes).

    References
    ----------
    .. [1] trec_eval 10.0, ``get_trec_results.c``,
       https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from metrics_lib import read_trec_run
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run.txt").write_text(
    ...     "# a comment\\nq1 Q0 d1 1 2.5 bm25 extra words\\nq1 Q0 d2 x -inf bm25\\n")
    >>> read_trec_run(folder / "run.txt")
      user item  score   run
    0   q1   d1    2.5  bm25
    1   q1   d2   -inf  bm25
    """
    data, name = _load(path, "run")
    return _parse_run(data, name)


def read_trec_qrels(path) -> pd.DataFrame:
    """Read a TREC qrels file (``qid iteration docno relevance``) as trec_eval does.

    Parameters
    ----------
    path : str or path-like
        The qrels file, ``"-"`` for standard input; gzip files are recognised.

    Returns
    -------
    pandas.DataFrame
        Columns ``user`` (query id, str), ``item`` (document id, str) and
        ``relevance`` (int64: the grade truncated as trec_eval's ``atol``;
        negative grades kept), one row per line.

    Raises
    ------
    ValueError
        A line without exactly four fields (a blank line included) or a
        relevance that is not a decimal number (file name and line number in
        the message).
    FileNotFoundError
        No such file.

    See Also
    --------
    read_trec_run, evaluate

    Notes
    -----
    trec_eval treats a negative grade as "in the pool but not judged": never
    relevant, and not a judged non-relevant document for bpref
    (``form_res_rels.c``, ``RELVALUE_UNJUDGED``). :func:`evaluate` takes
    grades >= 0 only; the command line drops negative rows, which gives
    trec_eval's values. Fractional grades are truncated (``1.7`` -> 1).

    References
    ----------
    .. [1] trec_eval 10.0, ``get_qrels.c``, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from metrics_lib import read_trec_qrels
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "qrels.txt").write_text("q1 0 d2 1\\n# spam:\\nq1 0 d7 -2\\nq1 0 d8 2.5\\n")
    >>> read_trec_qrels(folder / "qrels.txt")
      user item  relevance
    0   q1   d2          1
    1   q1   d7         -2
    2   q1   d8          2
    """
    data, name = _load(path, "qrels")
    users, items, grades, encoding = _qrels_columns(data, name)
    frame = pd.DataFrame({"user": users.to_pandas(), "item": items.to_pandas(),
                          "relevance": grades})
    frame.attrs["encoding"] = encoding
    return frame
