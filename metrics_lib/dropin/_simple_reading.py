"""A simple reader of plain TREC files into :class:`TrecArrays` (stand-in).

A stand-in for :mod:`metrics_lib.dropin.reading` (written separately, same
contract: ``tasks/dropin_contract.md``) until that module is merged; the
fast path imports ``read_trec_arrays`` in one place only
(:mod:`metrics_lib.dropin`). It reads blocks of whole lines with
``bytes.split`` and returns ``None`` for anything that is not a plain file,
so that the command line falls back to :mod:`metrics_lib.trec`, which reads
every odd case and names the offending line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

__all__ = ["TrecArrays", "read_trec_arrays"]


@dataclass(frozen=True)
class TrecArrays:
    """Both files as codes: ids sorted by bytes (strcmp order), one code per line."""

    query_ids: np.ndarray
    doc_ids: np.ndarray
    run_query: np.ndarray
    run_doc: np.ndarray
    run_score: np.ndarray
    run_tag: str
    qrels_query: np.ndarray
    qrels_doc: np.ndarray
    qrels_grade: np.ndarray


_BLOCK = 1 << 20  # bytes per block of whole lines (its fields as bytes objects: ~15x)
# bytes that never occur in a plain file (blank, comment or CR lines, tabs, ...)
_ODD = (b"\x00", b"\t", b"\r", b"\x0b", b"\x0c", b"  ", b" \n", b"\n ", b"\n\n", b"\n#")
_SCORE_CHARS = b"0123456789.eE+-"
_GRADE_CHARS = b"0123456789+-"


def _plain(data: bytes) -> bool:
    """A non-empty UTF-8 block of single-space separated lines ending in newline."""
    if not data or not data.endswith(b"\n") or data[:1] in (b" ", b"#", b"\n"):
        return False
    if data.startswith(b"\xef\xbb\xbf") or any(odd in data for odd in _ODD):
        return False
    if not data.isascii():
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return False
    return True


def _blocks(path: str):
    """Blocks of whole lines of a regular file (None: not a plain regular file)."""
    with open(path, "rb") as handle:
        rest = b""
        while True:
            chunk = handle.read(_BLOCK)
            if not chunk:
                if rest:
                    yield rest
                return
            data = rest + chunk
            cut = data.rfind(b"\n") + 1
            if cut:
                yield data[:cut]
            rest = data[cut:]


def _columns(path: str, width: int, chars: bytes, dtype):
    """Query ids, document ids, numbers (score or grade) and the last line's
    last field of a file of ``width`` fields per line; None if it is not plain."""
    out = []
    for block in _blocks(path):
        if not _plain(block):
            return None
        # width - 1 spaces between consecutive newlines: width fields per line
        raw = np.frombuffer(block, np.uint8)
        spaces = np.searchsorted(np.flatnonzero(raw == 32), np.flatnonzero(raw == 10))
        if (np.diff(spaces, prepend=0) != width - 1).any():
            return None
        del raw, spaces
        fields = block.split(b" ")
        # the tokens that end a line (every (width - 1)-th) are "last\nfirst"
        # of two lines
        ends = b"\n".join(fields[width - 1::width - 1])
        ends = ends.split(b"\n")  # last field, first field of the next line, ...
        # the run's score is its fifth field, the qrels' grade its last
        numbers = _numbers(fields[4::5] if width == 6 else ends[0::2], chars, dtype)
        if numbers is None:
            return None
        queries = [fields[0]] + ends[1::2]
        out.append((np.array(queries[:-1], dtype=bytes),
                    np.array(fields[2::width - 1], dtype=bytes), numbers, ends[-2]))
        del fields
    if not out:
        return None
    return [np.concatenate([block[i] for block in out]) for i in range(3)] + [out[-1][3]]


def _numbers(fields: list[bytes], chars: bytes, dtype):
    """The fields as numbers, or None where one is not a plain number."""
    if b"".join(fields).translate(None, chars):
        return None
    try:
        return np.array(fields, dtype=bytes).astype(dtype)
    except (ValueError, OverflowError):
        return None


def _codes(*columns):
    """Sorted unique ids of every column and each column's codes into them.

    ``np.unique(return_inverse=True)`` with less temporary memory: one
    argsort, the sorted copy, and int32 codes.
    """
    values = np.concatenate(columns)
    perm = np.argsort(values, kind="stable")
    ordered = values[perm]
    del values
    new = np.empty(ordered.size, bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    ids = ordered[new]
    del ordered
    codes = np.empty(perm.size, np.int32)
    codes[perm] = np.cumsum(new, dtype=np.int32) - 1
    bounds = np.cumsum([0] + [c.size for c in columns])
    return ids, [codes[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def read_trec_arrays(run_path: str, qrels_path: str) -> TrecArrays | None:
    """Both files as :class:`TrecArrays`, or None when either is not plain."""
    for path in (run_path, qrels_path):
        if not isinstance(path, (str, os.PathLike)) or os.fspath(path) == "-" \
                or not os.path.isfile(path):
            return None
        with open(path, "rb") as handle:
            if handle.read(2) == b"\x1f\x8b":  # gzip
                return None
    run = _columns(run_path, 6, _SCORE_CHARS, np.float64)
    qrels = _columns(qrels_path, 4, _GRADE_CHARS, np.int64)
    if run is None or qrels is None:
        return None
    query_ids, (run_query, qrels_query) = _codes(run[0], qrels[0])
    doc_ids, (run_doc, qrels_doc) = _codes(run[1], qrels[1])
    return TrecArrays(query_ids, doc_ids, run_query, run_doc, run[2],
                      run[3].decode("utf-8"), qrels_query, qrels_doc, qrels[2])
