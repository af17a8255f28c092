"""Plain TREC run and qrels files read straight into numpy arrays (the drop-in's fast path).

:func:`read_trec_arrays` reads a run and a qrels file that are *plain* (see
below) in bounded blocks of 1 MiB cut at a newline, with vectorised numpy
code only: no Python object per line, no pandas, pyarrow or scipy. Ids are
kept as bytes (``S`` arrays sorted bytewise, so that a code order is
trec_eval's ``strcmp`` order) and lines as int32 codes into them; scores are
float64, grades int64. Anything that is not plain gives ``None`` and the
caller falls back to :mod:`metrics_lib.trec`, which reads every odd file as
trec_eval 10.0 does and names the offending line.

Plain: an uncompressed regular file (not ``"-"``, not gzip), valid UTF-8
without a byte order mark, no ``#`` anywhere, no control byte but ``"\\n"``
(so no CR, tab or NUL), fields separated by single spaces, no empty field
(so no blank line and no leading or trailing blank), exactly six fields per
run line and four per qrels line, ids of at most 256 bytes; a score written
as a decimal number (``[+-]digits[.digits][e[+-]digits]``, ``.5`` and
``5.`` included), a grade as ``[+-]digits[.digits]``. The last line may
lack its ``"\\n"``. On these fields C's ``atof``/``atol`` (what trec_eval
uses, ``get_trec_results.c``, ``get_qrels.c``) and this reader give the same
numbers: a score is the correctly rounded value of its decimal text (glibc's
``strtod`` rounds correctly; this reader divides two exact integers when the
text has at most 15 digits and no exponent, else casts with numpy, whose
values are compared with Python's ``float`` in tests/test_dropin_reading.py),
a grade the integer before its dot.

Memory: the lines become int32 codes and float64 scores written into arrays
sized from the file (pages never written are never resident); ids are kept
per block as small sorted pieces, merged when they outgrow the merged
vocabulary, so a block's temporaries (a few MiB) and one merge bound the
peak. On 10,000,000 run lines (346 MB) the reader peaks at about 410-470 MiB
and holds 242 MiB after it returns (192 MiB of arrays).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

__all__ = ["TrecArrays", "read_trec_arrays"]

_BLOCK = 1 << 20  # bytes read at a time; a block is cut after its last newline
_MAX_ID = 256  # longer ids -> None (a fixed-width S array pads every id to the longest)
_PENDING = 1 << 23  # bytes of id pieces a column holds before merging them
_TRIM_AFTER = 1 << 20  # ids in a merge after which freed memory is handed back
_NEWLINE, _SPACE = 10, 32


@dataclass(frozen=True)
class TrecArrays:
    """A run and its qrels as codes into two sorted byte-string vocabularies.

    Attributes
    ----------
    query_ids, doc_ids : numpy.ndarray
        ``S`` arrays, sorted bytewise, unique: every query (document) id of the
        run and of the qrels.
    run_query, run_doc : numpy.ndarray
        int32 codes into ``query_ids``/``doc_ids``, one per run line, file order.
    run_score : numpy.ndarray
        float64, the value trec_eval's ``atof`` gives each score field.
    run_tag : str
        The sixth field of the last run line (trec_eval prints it as ``runid``).
    qrels_query, qrels_doc : numpy.ndarray
        int32 codes, one per qrels line, file order.
    qrels_grade : numpy.ndarray
        int64, the value trec_eval's ``atol`` gives each relevance field.
    """

    query_ids: np.ndarray
    doc_ids: np.ndarray
    run_query: np.ndarray
    run_doc: np.ndarray
    run_score: np.ndarray
    run_tag: str
    qrels_query: np.ndarray
    qrels_doc: np.ndarray
    qrels_grade: np.ndarray


# ---------------------------------------------------------------- one block
def _fields(data: bytes, end: int, n_fields: int):
    """(padded bytes, separators) of the lines of ``data[:end]``, or None if not plain.

    ``data[:end]`` ends with a newline. The separators matrix has one row per
    line: the positions of the space after each field, then of the newline.
    The bytes are copied with ``_MAX_ID`` NUL bytes after them, so that a
    window of the widest field can start at any field.
    """
    if data.find(b"#", 0, end) >= 0:
        return None
    if not data.isascii():
        try:
            data[:end].decode("utf-8")
        except UnicodeDecodeError:
            return None
    buf = np.zeros(end + _MAX_ID, np.uint8)
    buf[:end] = np.frombuffer(data, np.uint8, count=end)
    newline = buf == _NEWLINE
    n_lines = int(np.count_nonzero(newline))
    if np.count_nonzero(buf[:end] < _SPACE) != n_lines:  # CR, tab, NUL, ...
        return None
    sep = np.flatnonzero(newline | (buf == _SPACE))
    if len(sep) != n_lines * n_fields or not newline[sep[n_fields - 1::n_fields]].all():
        return None  # a line without exactly n_fields - 1 spaces
    if sep[0] == 0 or np.diff(sep).min(initial=2) < 2:
        return None  # an empty field: blank line, double, leading or trailing space
    return buf, sep.reshape(n_lines, n_fields)


def _field(block, k: int):
    """(bytes, lengths) of field ``k`` of every line: a (lines, widest) uint8
    matrix padded with NUL bytes; None when a field is longer than ``_MAX_ID``."""
    buf, sep = block
    if k:
        starts = sep[:, k - 1] + 1
    else:
        starts = np.empty(len(sep), sep.dtype)
        starts[0] = 0
        starts[1:] = sep[:-1, -1] + 1
    lengths = sep[:, k] - starts
    width = int(lengths.max())
    if width > _MAX_ID:
        return None
    windows = np.lib.stride_tricks.sliding_window_view(buf, width)
    chars = windows[starts]
    chars *= np.arange(width) < lengths[:, None]
    return chars, lengths


def _as_s(chars: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(chars).view(f"S{chars.shape[1]}").ravel()


# A number field is read by a finite automaton, one byte column at a time for
# all lines at once. The class of a byte: 0 no number byte, 1 digit, 2 dot,
# 3 e or E, 4 sign, 5 the NUL padding after a short field (no NUL in a block).
_KIND = np.zeros(256, np.uint8)
_KIND[48:58], _KIND[46], _KIND[[69, 101]], _KIND[[43, 45]], _KIND[0] = 1, 2, 3, 4, 5


def _automaton(rows: dict[int, dict[int, int]], n_states: int) -> np.ndarray:
    """Flat transition table: next state = table[state * 6 + kind]; 0 = refused."""
    table = np.zeros(n_states * 6, np.uint8)
    for state, moves in rows.items():
        for kind, target in moves.items():
            table[state * 6 + kind] = target
    return table


# scores: [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
# 1 start, 2 sign, 3 integer digit, 4 dot after digits, 5 lone dot,
# 6 fraction digit, 7 e, 8 exponent sign, 9 exponent digit, 10 padding
_SCORE = _automaton({1: {1: 3, 2: 5, 4: 2}, 2: {1: 3, 2: 5}, 3: {1: 3, 2: 4, 3: 7, 5: 10},
                     4: {1: 6, 3: 7, 5: 10}, 5: {1: 6}, 6: {1: 6, 3: 7, 5: 10},
                     7: {1: 9, 4: 8}, 8: {1: 9}, 9: {1: 9, 5: 10}, 10: {5: 10}}, 11)
_SCORE_END = np.isin(np.arange(11), [3, 4, 6, 9, 10])
# grades: [+-]? digits [. digits?]: 1 start, 2 sign, 3 integer digit, 4 dot,
# 5 fraction digit, 6 padding
_GRADE = _automaton({1: {1: 3, 4: 2}, 2: {1: 3}, 3: {1: 3, 2: 4, 5: 6},
                     4: {1: 5, 5: 6}, 5: {1: 5, 5: 6}, 6: {5: 6}}, 7)
_GRADE_END = np.isin(np.arange(7), [3, 4, 5, 6])
_POW10 = 10.0 ** np.arange(16)  # exact in float64


def _scores(chars: np.ndarray):
    """float64 of score fields in decimal notation (module notes), else None.

    ``chars`` is a (width, lines) matrix. A field without exponent and of at
    most 15 digits is its integer divided by 10**(digits after the dot): both
    exact in float64, so the quotient is the correctly rounded value of the
    text, as ``strtod`` and ``float`` give it. Other fields go to numpy's cast
    from ``S`` (Python's correctly rounded ``float``).
    """
    n = chars.shape[1]
    state = np.ones(n, np.uint8)
    whole, places, digits = np.zeros(n), np.zeros(n, np.intp), np.zeros(n, np.intp)
    exponent = np.zeros(n, bool)
    with np.errstate(over="ignore"):  # long fields overflow ``whole``: not simple
        for row in chars:
            state = _SCORE[state * 6 + _KIND[row]]
            integer, fraction = state == 3, state == 6
            digit = integer | fraction
            whole = np.where(digit, whole * 10 + (row - 48.0), whole)
            places += fraction
            digits += digit
            exponent |= state == 7
    if not _SCORE_END[state].all():
        return None
    simple = ~exponent & (digits <= 15)
    values = whole / _POW10[np.where(simple, places, 0)]
    np.negative(values, where=chars[0] == 45, out=values)
    if not simple.all():
        values[~simple] = _as_s(chars[:, ~simple].T).astype(np.float64)
    return values


def _grades(chars: np.ndarray):
    """int64 of grade fields ``[+-]digits[.digits]`` as ``atol`` reads them, else None.

    ``chars`` is a (width, lines) matrix; more than 18 integer digits -> None
    (``atol`` saturates there).
    """
    n = chars.shape[1]
    state = np.ones(n, np.uint8)
    whole, digits = np.zeros(n, np.int64), np.zeros(n, np.intp)
    for row in chars:
        state = _GRADE[state * 6 + _KIND[row]]
        integer = state == 3
        digits += integer
        if digits.max() > 18:
            return None
        whole = np.where(integer, whole * 10 + (row.astype(np.int64) - 48), whole)
    if not _GRADE_END[state].all():
        return None
    np.negative(whole, where=chars[0] == 45, out=whole)
    return whole


# ---------------------------------------------------------------- vocabularies
def _unique(tokens: np.ndarray):
    """(sorted unique ``S`` values, int32 inverse) of an ``S`` array: ``np.unique``, faster.

    The bytes after the prefix common to all ids are sorted as integer keys,
    whose order is the bytewise order (NUL padding sorts first, as a shorter
    string does in ``strcmp``): each byte is replaced by its rank among the
    byte values present, and when the ranks and the position fit in 64 bits
    one ``np.sort`` of key-and-position does it (``doc123456``: 6 bytes of 4
    bits); else 8 bytes are sorted by ``argsort``; longer ids by ``np.unique``.
    """
    n = len(tokens)
    if n == 0:
        return tokens, np.zeros(0, np.int32)
    width = tokens.dtype.itemsize
    chars = tokens.view(np.uint8).reshape(n, width)
    prefix = 0
    while prefix < width and (chars[:, prefix] == chars[0, prefix]).all():
        prefix += 1
    rest = chars[:, prefix:]
    present = np.zeros(256, bool)
    for column in rest.T:
        present |= np.bincount(column, minlength=256) > 0
    rank = (np.cumsum(present) - 1).astype(np.uint64)
    bits = max(1, int(present.sum() - 1).bit_length())
    position_bits = max(1, (n - 1).bit_length())
    if (width - prefix) * bits + position_bits <= 64:
        key, ranks = np.arange(n, dtype=np.uint64), np.empty(n, np.uint64)
        shift = position_bits + bits * (width - prefix)
        for column in rest.T:  # key = ranks of the bytes, then the position
            shift -= bits
            np.take(rank, column, out=ranks)
            key |= np.left_shift(ranks, np.uint64(shift), out=ranks)
        key.sort()
        order = np.bitwise_and(key, np.uint64((1 << position_bits) - 1), out=ranks)
        order = order.view(np.int64)
        key >>= np.uint64(position_bits)
    elif width - prefix <= 8:
        padded = np.zeros((n, 8), np.uint8)
        padded[:, :width - prefix] = rest
        key = padded.view(">u8").ravel().astype(np.uint64)
        order = np.argsort(key)
        key = key[order]
    else:
        vocab, inverse = np.unique(tokens, return_inverse=True)
        return vocab, inverse.astype(np.int32).ravel()
    new = np.empty(n, bool)
    new[0] = True
    np.not_equal(key[1:], key[:-1], out=new[1:])
    inverse = np.empty(n, np.int32)
    inverse[order] = np.cumsum(new, dtype=np.int32) - 1
    return tokens[order[new]], inverse


def _runs(tokens: np.ndarray):
    """(distinct values, codes into them) by collapsing equal neighbours (query ids)."""
    head = np.empty(len(tokens), bool)
    head[0] = True
    np.not_equal(tokens[1:], tokens[:-1], out=head[1:])
    return tokens[head], (np.cumsum(head, dtype=np.int32) - 1)


class _Column:
    """Codes of one id column, block by block, with the pieces of its vocabulary.

    Each block adds a piece (values) and local codes into it. When the new
    pieces pass ``_PENDING`` bytes and the size of the merged piece, they are
    merged into one sorted piece, so that a big file never holds one id per
    line; :func:`_merge` at the end turns every code into a code of the union
    of all columns' pieces.
    """

    def __init__(self, n_max: int):
        # n_max bounds the number of lines from the file size; pages never
        # written are never resident, and finish() shrinks the array in place
        self.codes = np.empty(n_max, np.int32)
        self.pieces = []  # (first line, end line, values)
        self.size = self.pending = self.merged = 0  # bytes of new pieces, of the merged one

    def add(self, values: np.ndarray, codes: np.ndarray) -> None:
        end = self.size + len(codes)
        self.codes[self.size:end] = codes
        self.pieces.append((self.size, end, values))
        self.size = end
        self.pending += values.nbytes
        # merge when the new pieces outgrow the merged one: each merge rewrites
        # every code so far, so merges must get rarer as the vocabulary grows
        if self.pending > max(_PENDING, self.merged) and len(self.pieces) > 1:
            self.pieces = [(0, self.size, _merge(self))]
            self.pending, self.merged = 0, self.pieces[0][2].nbytes

    def finish(self) -> np.ndarray:
        self.codes.resize(self.size, refcheck=False)  # shrink in place: no copy
        return self.codes


def _trim() -> None:
    """Hand the heap's free pages back to the system (glibc's ``malloc_trim``).

    The temporaries of a big merge are under glibc's mmap threshold (which
    rises to 32 MiB after large frees), so they live on the heap, and the small
    arrays allocated after them keep that memory resident after it is freed:
    on 10,000,000 lines 160 MiB. Elsewhere (no glibc) nothing is done.
    """
    global _MALLOC_TRIM
    if _MALLOC_TRIM is None:
        import ctypes

        try:
            _MALLOC_TRIM = ctypes.CDLL(None).malloc_trim
        except (AttributeError, OSError):
            _MALLOC_TRIM = False
    if _MALLOC_TRIM:
        _MALLOC_TRIM(0)


_MALLOC_TRIM = None


def _merge(*columns: _Column) -> np.ndarray:
    """The sorted union of the columns' pieces; rewrites their codes into it."""
    pieces = [values for column in columns for _, _, values in column.pieces]
    if not pieces:
        return np.zeros(0, "S1")
    tokens = np.concatenate(pieces)
    big = len(tokens) > _TRIM_AFTER
    if big:
        _trim()
    vocab, inverse = _unique(tokens)
    del tokens
    offset = 0
    for column in columns:
        for start, end, values in column.pieces:
            mapping = inverse[offset:offset + len(values)]
            offset += len(values)
            np.take(mapping, column.codes[start:end], out=column.codes[start:end])
        column.pieces = []
    if big:
        del inverse, mapping
        _trim()
    return vocab


# ---------------------------------------------------------------- files
class _NotPlain(Exception):
    """Raised inside the reader when a file needs metrics_lib.trec."""


def _blocks(path, n_fields: int):
    """(buffer, starts, lengths) of each block of a plain file, cut after a newline.

    Raises _NotPlain for a file that is not plain (module notes).
    """
    with open(path, "rb") as handle:
        data = handle.read(_BLOCK)
        if not data or data.startswith((b"\x1f\x8b", b"\xef\xbb\xbf")):
            raise _NotPlain  # empty, gzip, byte order mark
        while data:
            more = handle.read(_BLOCK)
            if not more:
                if not data.endswith(b"\n"):
                    data += b"\n"  # the last line may lack its newline
                end, tail = len(data), b""
            else:
                end = data.rfind(b"\n") + 1
                if end == 0:  # one line longer than a block
                    data += more
                    continue
                tail = data[end:]
            parsed = _fields(data, end, n_fields)
            if parsed is None:
                raise _NotPlain
            yield parsed
            data = tail + more


def _path(path) -> tuple[str, int]:
    """A regular file's name and size, else _NotPlain (the fallback names the problem)."""
    if not isinstance(path, (str, os.PathLike)) or os.fspath(path) == "-":
        raise _NotPlain
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise _NotPlain
    return path, os.stat(path).st_size


def _read_run(path):
    """(query column, doc column, scores, last tag) of a plain run, else _NotPlain."""
    path, n_bytes = _path(path)
    n_max = n_bytes // 12 + 1  # the shortest line: "a b c d e f\n"
    queries, docs = _Column(n_max), _Column(n_max)
    scores, size, tag = np.empty(n_max), 0, ""  # size: lines so far
    for block in _blocks(path, 6):
        fields = [_field(block, k) for k in (0, 2, 4)]
        if any(field is None for field in fields):
            raise _NotPlain
        (query, _), (doc, _), (score, _) = fields
        values = _scores(score.T)
        if values is None or size + len(values) > n_max:  # (a file that grew)
            raise _NotPlain
        scores[size:size + len(values)] = values
        size += len(values)
        queries.add(*_runs(_as_s(query)))
        docs.add(_as_s(doc), np.arange(len(doc), dtype=np.int32))
        buf, sep = block  # the tag (any length) of the block's last line
        tag = buf[sep[-1, 4] + 1:sep[-1, 5]].tobytes().decode("utf-8")
    scores.resize(size, refcheck=False)
    return queries, docs, scores, tag


def _read_qrels(path):
    """(query column, doc column, grades) of a plain qrels file, else _NotPlain."""
    path, n_bytes = _path(path)
    n_max = n_bytes // 8 + 1  # the shortest line: "a b c d\n"
    queries, docs = _Column(n_max), _Column(n_max)
    grades, size = np.empty(n_max, np.int64), 0
    for block in _blocks(path, 4):
        fields = [_field(block, k) for k in (0, 2, 3)]
        if any(field is None for field in fields):
            raise _NotPlain
        (query, _), (doc, _), (grade, _) = fields
        values = _grades(grade.T)
        if values is None or size + len(values) > n_max:
            raise _NotPlain
        grades[size:size + len(values)] = values
        size += len(values)
        queries.add(*_runs(_as_s(query)))
        docs.add(_as_s(doc), np.arange(len(doc), dtype=np.int32))
    grades.resize(size, refcheck=False)
    return queries, docs, grades


def read_trec_arrays(run_path, qrels_path) -> TrecArrays | None:
    """Read a plain run and qrels file as trec_eval 10.0 reads them, or None.

    Parameters
    ----------
    run_path, qrels_path : str or path-like
        The run (``qid Q0 docno rank score tag``) and qrels (``qid iter docno
        relevance``) files.

    Returns
    -------
    TrecArrays or None
        The two files as codes into sorted id vocabularies; None when either
        file is not plain (module notes: stdin, gzip, comments, CR, tabs,
        other field counts, other number spellings, not UTF-8, ...), in which
        case :mod:`metrics_lib.trec` must read them. Never raises on odd input.

    Notes
    -----
    Files are read in blocks of 1 MiB; the lines are never held as Python
    objects. Both vocabularies are the union over run and qrels, sorted
    bytewise: code order is trec_eval's ``strcmp`` order.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run").write_bytes(b"q2 Q0 d10 1 2.5 bm25\\nq2 Q0 d9 2 -1e1 bm25\\n")
    >>> _ = (folder / "qrels").write_bytes(b"q1 0 d9 1\\nq2 0 d10 2.7\\n")
    >>> arrays = read_trec_arrays(folder / "run", folder / "qrels")
    >>> arrays.query_ids, arrays.doc_ids
    (array([b'q1', b'q2'], dtype='|S2'), array([b'd10', b'd9'], dtype='|S3'))
    >>> arrays.run_doc, arrays.run_score, arrays.qrels_grade, arrays.run_tag
    (array([0, 1], dtype=int32), array([  2.5, -10. ]), array([1, 2]), 'bm25')
    >>> (folder / "qrels").write_bytes(b"q1\\t0 d9 1\\n") and read_trec_arrays(
    ...     folder / "run", folder / "qrels") is None
    True
    """
    try:
        run_queries, run_docs, scores, tag = _read_run(run_path)
        qrels_queries, qrels_docs, grades = _read_qrels(qrels_path)
    except _NotPlain:
        return None
    query_ids = _merge(run_queries, qrels_queries)
    doc_ids = _merge(run_docs, qrels_docs)
    return TrecArrays(query_ids, doc_ids, run_queries.finish(), run_docs.finish(), scores,
                      tag, qrels_queries.finish(), qrels_docs.finish(), grades)
