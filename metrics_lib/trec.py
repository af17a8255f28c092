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
  only one in a row, and reads the line after it as a judgement; this reader is
  more lenient there, ``python -m metrics_lib`` follows trec_eval);
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
file and line: no silent wrong number. ``python -m metrics_lib``, a drop-in
for trec_eval, reads such fields as C's ``atof``/``atol`` do (``"5abc"`` 5,
``"0x1p3"`` 8, a grade ``"1e2"`` 1) and names the first one on stderr; it still
refuses ``nan``. A file name ``"-"`` reads standard input; gzip-compressed
files are recognised by their first two bytes.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import sys

import numpy as np
import pandas as pd

# _ATOF: tests/test_trec_cli_grammar.py reads it here
from ._c_numbers import _ATOF, _atof, _atol  # noqa: F401

__all__ = ["read_trec_run", "read_trec_qrels"]

_RUN_FIELDS = ("user", "q0", "item", "rank", "score", "run")
_QRELS_FIELDS = ("user", "iteration", "item", "relevance")
# A grade as atol reads it, restricted to plain decimal notation.
_GRADE = re.compile(rb"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$")


def _strict_score(field: bytes):
    """A score field that is one whole decimal number, inf or nan, else None.

    Python's ``float`` also reads ``_`` between digits, which C's ``strtod``
    stops on (``1_000`` is 1000.0 for ``float``, 1.0 for ``atof``): a field
    with ``_`` is never given to ``float``. Every other field ``float`` reads
    is one whole ``_ATOF`` match with the same value (tested on random
    spellings in tests/test_trec_cli_grammar.py); a per-line regular
    expression would make the line reader 2.4 times slower.
    """
    if b"_" in field:
        return None
    try:
        return float(field)
    except ValueError:
        return None


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
# A leading blank, or a UTF-8 byte order mark: pyarrow's CSV reader drops the
# mark, trec_eval keeps its three bytes as part of the first query id.
_ODD_START = (b" ", b"\xef\xbb\xbf")


def _plain(source) -> bool:
    """No byte that needs the line-by-line reader (bytes, or a file scanned in blocks)."""
    if isinstance(source, (bytes, bytearray)):
        return bool(source) and not source.startswith(_ODD_START) and not any(
            odd in source for odd in _ODD)
    with open(source, "rb") as handle:
        tail, first = b"", True
        while block := handle.read(1 << 24):
            if first and block.startswith(_ODD_START):
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


def _last_tag(source) -> str:
    """The sixth field of the last non-blank line of a plain run (bytes or file name).

    Reads backwards from the end until a whole line is in hand, so that a last
    line of any length gives its whole tag (trec_eval prints the tag of the
    last result line as ``runid``).
    """
    if isinstance(source, (bytes, bytearray)):
        end = source.rstrip(b"\n")
        line = end[end.rfind(b"\n") + 1:]
    else:
        with open(source, "rb") as handle:
            position = handle.seek(0, os.SEEK_END)
            end = b""
            while position > 0:
                step = min(position, 1 << 16)
                position -= step
                handle.seek(position)
                end = handle.read(step) + end
                if b"\n" in end.rstrip(b"\n"):
                    break
            end = end.rstrip(b"\n")
            line = end[end.rfind(b"\n") + 1:]
    fields = line.split()
    return fields[5].decode("utf-8") if len(fields) >= 6 else ""


def _run_columns(data: bytes, name: str, *, exact: bool = False):
    """(user, item, score, last run tag, encoding, lenient) with user/item as arrow arrays.

    ``exact``: read as trec_eval does (:func:`_parse_run`); ``lenient`` is
    ``(count, first)`` of the scores read by ``atof`` rules.
    """
    import pyarrow as pa

    table = _fast(data, _RUN_FIELDS, {"user": _id_type(), "item": _id_type(),
                                      "score": pa.float64()}, blank_ok=True)
    if table is not None:
        scores = table.column("score").to_numpy()
        if not np.isnan(scores).any():
            return (table.column("user"), table.column("item"), scores,
                    _last_tag(data), "utf-8", (0, None))
    if not isinstance(data, (bytes, bytearray)):
        data = _load(data, "run")[0]
    frame = _parse_run(data, name, exact=exact)
    tag = frame["run"].iloc[-1] if len(frame) else ""
    return (pa.array(frame["user"].tolist(), pa.string()),
            pa.array(frame["item"].tolist(), pa.string()),
            frame["score"].to_numpy(), tag, frame.attrs["encoding"],
            frame.attrs["lenient"])


def _qrels_columns(data: bytes, name: str, *, exact: bool = False):
    """(user, item, grade int64, encoding, lenient) with user/item as arrow arrays."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table = _fast(data, _QRELS_FIELDS, {"user": _id_type(), "item": _id_type(),
                                        "relevance": pa.string()}, blank_ok=False)
    if table is not None:
        grades = table.column("relevance")
        if pc.all(pc.match_substring_regex(grades, r"^-?[0-9]+(\.[0-9]*)?$")).as_py():
            # atol: the integer part, read as an integer (no float rounding)
            whole = pc.replace_substring_regex(grades, r"\.[0-9]*$", "")
            try:
                values = pc.cast(whole, pa.int64()).to_numpy()
            except (pa.ArrowInvalid, OverflowError):
                values = None
            if values is not None:
                return (table.column("user"), table.column("item"),
                        values.astype(np.int64), "utf-8", (0, None))
    if not isinstance(data, (bytes, bytearray)):
        data = _load(data, "qrels")[0]
    frame = _parse_qrels(data, name, exact=exact)
    return (pa.array(frame["user"].tolist(), pa.string()),
            pa.array(frame["item"].tolist(), pa.string()),
            frame["relevance"].to_numpy(), frame.attrs["encoding"],
            frame.attrs["lenient"])


def _parse_run(data: bytes, name: str, *, exact: bool = False) -> pd.DataFrame:
    """Run lines -> frame. ``exact``: scores as ``atof`` reads them (the command line).

    With ``exact`` a score that is not a number is read as C's ``atof`` reads
    it (``"5abc"`` 5, ``"abc"`` 0) and ``frame.attrs["lenient"]`` counts such
    lines and keeps the first, for a warning; otherwise the line is refused.
    A ``nan`` score is refused either way (module notes).
    """
    users, items, scores, tags = [], [], [], []
    lenient, first = 0, None
    for number, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if len(fields) < 6:
            _fail(name, number, f"a run line has 6 fields (qid Q0 docno rank score "
                  f"tag), this one has {len(fields)}", line)
        score = None
        if b"_" not in fields[4]:  # as _strict_score, inline: once per line
            try:
                score = float(fields[4])
            except ValueError:
                pass
        if score is None and exact:
            score = _atof(fields[4])
            lenient += 1
            first = first or (number, fields[4], score)
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
    frame.attrs["lenient"] = (lenient, first)
    return frame


def _qrels_lines(data: bytes, name: str, exact: bool):
    """(line number, line) of every qrels line that is read as a judgement.

    Lenient: every line whose first non-blank byte is ``#`` is a comment.
    ``exact``: trec_eval 10.0's rule (``get_qrels.c``, ``te_get_qrels``): a
    line that starts with ``#`` in its first column is skipped, and the line
    after a skipped one is always read as a judgement, ``#`` or not. A file
    that ends with a skipped comment makes trec_eval read past its buffer
    (a crash or garbage): refused.
    """
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final newline ends the last line
    skipped = False
    for number, line in enumerate(lines, start=1):
        if exact:
            if not skipped and line.startswith(b"#"):
                skipped = True
                continue
            skipped = False
        else:
            fields = line.split()
            if fields and fields[0].startswith(b"#"):
                continue
        yield number, line
    if exact and (skipped or not lines):
        raise ValueError(f"{name}: the qrels file ends with a comment line or has no "
                         "judgement (trec_eval 10.0 reads past the end of its buffer "
                         "there and crashes or reads garbage)")


def _parse_qrels(data: bytes, name: str, *, exact: bool = False) -> pd.DataFrame:
    """Qrels lines -> frame. ``exact``: trec_eval's comments and ``atol`` grades.

    With ``exact`` a grade is read as C's ``atol`` reads it (``"1e2"`` 1,
    ``"abc"`` 0) and ``frame.attrs["lenient"]`` counts the grades that are not
    decimal numbers; otherwise such a line is refused.
    """
    users, items, grades = [], [], []
    lenient, first = 0, None
    for number, line in _qrels_lines(data, name, exact):
        fields = line.split()
        if len(fields) != 4:
            _fail(name, number, f"a qrels line has 4 fields (qid iter docno "
                  f"relevance), this one has {len(fields)}", line)
        if _GRADE.match(fields[3]):
            grade = _atol(fields[3])
        elif exact:
            grade = _atol(fields[3])
            lenient += 1
            first = first or (number, fields[3], grade)
        else:
            _fail(name, number, "field 4 (relevance) must be a number; got "
                  f"{fields[3].decode('utf-8', 'backslashreplace')!r}", line)
        users.append(fields[0])
        items.append(fields[2])
        grades.append(grade)
    (users, items), encoding = _decode([users, items])
    frame = pd.DataFrame({"user": pd.Series(users, dtype=object),
                          "item": pd.Series(items, dtype=object),
                          "relevance": np.asarray(grades, dtype=np.int64)})
    frame.attrs["encoding"] = encoding
    frame.attrs["lenient"] = (lenient, first)
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
    (``form_res_rels.c``, ``RELVALUE_UNJUDGED``); only infAP tells such an
    item from one absent from the qrels. :func:`evaluate` takes negative
    grades for ``infap``, ``bpref`` and ``num_nonrel_judged_ret`` and refuses
    them for every other metric; the command line gives them to infAP and
    drops them for the other measures, which gives trec_eval's values. Fractional grades are truncated (``1.7`` -> 1).

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
    users, items, grades, encoding, _ = _qrels_columns(data, name)
    frame = pd.DataFrame({"user": users.to_pandas(), "item": items.to_pandas(),
                          "relevance": grades})
    frame.attrs["encoding"] = encoding
    return frame
