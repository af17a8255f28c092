"""C's ``atof`` and ``atol`` as trec_eval 10.0 reads numbers with them.

Kept apart from :mod:`metrics_lib.trec` (which needs pandas) so that the
command line's numpy-only path (:mod:`metrics_lib.dropin`) and its ``-m``
grammar (:mod:`metrics_lib._cli_measures`) read numbers without pandas.
"""

from __future__ import annotations

import math
import re

# The longest prefix that C's strtod (so atof) reads, glibc's grammar: decimal
# or hexadecimal (with a binary exponent) floating point, inf, infinity, nan.
_ATOF = re.compile(rb"""[ \t\n\v\f\r]*(?P<number>[+-]?(?:
      0x(?:[0-9a-f]+\.?[0-9a-f]*|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?
    | (?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?
    | inf(?:inity)?
    | nan(?:\([0-9a-z_]*\))?))""", re.X | re.I)
_ATOL = re.compile(rb"[ \t\n\v\f\r]*(?P<number>[+-]?[0-9]+)")
_LONG_MAX = 2**63 - 1  # strtol (so glibc's atol) saturates at LONG_MAX, LONG_MIN


def _atof(text) -> float:
    """C's ``atof`` (``strtod``): the number at the start of ``text``, else 0.0.

    ``"5abc"`` is 5.0, ``"abc"`` 0.0, ``"0x1p3"`` 8.0, ``"1e400"`` inf: what
    trec_eval reads from a run's score field (``get_trec_results.c``).
    Decimal and hexadecimal digits are both rounded to nearest, as glibc does.
    """
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogateescape")
    match = _ATOF.match(text)
    if match is None:
        return 0.0
    number = match.group("number").decode("ascii").lower()
    if "x" in number:
        try:
            return float.fromhex(number)
        except OverflowError:  # strtod gives HUGE_VAL
            return -math.inf if number.startswith("-") else math.inf
    if "nan" in number:
        return math.nan
    return float(number)


def _atol(text) -> int:
    """C's ``atol`` (``strtol``, base 10): the leading integer of ``text``, else 0.

    ``"2.7"`` is 2, ``"1e2"`` 1, ``"+3"`` 3, ``"abc"`` 0: how trec_eval reads a
    qrels grade (``get_qrels.c``) and the values of ``-l``, ``-M`` and of
    cut-off parameters (``trec_eval.c``, ``meas_init.c``).
    """
    if isinstance(text, str):
        text = text.encode("utf-8", "surrogateescape")
    match = _ATOL.match(text)
    if match is None:
        return 0
    return max(-_LONG_MAX - 1, min(_LONG_MAX, int(match.group("number"))))
