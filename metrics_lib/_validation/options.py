"""Checks of keyword arguments: cut-offs, choices among names, counts,
probabilities, seeds, gains and the other options of the metrics.
"""

from __future__ import annotations

import math
import numbers
import os
from collections.abc import Mapping, Sequence

import numpy as np

from .messages import show


EMPTY_POLICIES = ("zero", "nan", "one", "raise")


def check_choice(name: str, value, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices``; otherwise raise."""
    if not isinstance(value, str) or value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {options}; got {show(value)}")
    return value


def check_k(k, name: str = "k", allow_none: bool = True) -> int | None:
    """Validate a cut-off: a positive integer, or ``None`` for 'no cut-off'."""
    if k is None:
        if allow_none:
            return None
        raise TypeError(f"{name} must be a positive integer; got None")
    # bool is an int subclass; k=True is almost certainly a bug, not k=1.
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
        raise TypeError(
            f"{name} must be a positive integer or None; got {type(k).__name__} {show(k)}"
        )
    if k <= 0:
        raise ValueError(f"{name} must be a positive integer; got {k}")
    return int(k)


def check_relevance_level(level) -> float:
    """relevance_level: a grade >= it is relevant; 0 (trec_eval ``-l 0``) makes
    every judged item relevant, grade 0 included, and no unjudged one."""
    value = check_real("relevance_level", level)
    if value < 0:
        # trec_eval marks unjudged retrieved documents -1: a negative -l counts
        # them as relevant but not in num_rel, so AP and recall exceed 1
        raise ValueError(f"relevance_level must be >= 0; got {show(level)} (trec_eval "
                         "then counts unjudged items as relevant and gives AP "
                         "above 1)")
    return value


def check_empty(empty) -> str:
    return check_choice("empty", empty, EMPTY_POLICIES)


def handle_empty(empty: str, what: str) -> float:
    """Return the value the ``empty`` policy assigns to an undefined metric."""
    if empty == "zero":
        return 0.0
    if empty == "nan":
        return math.nan
    if empty == "one":  # torchmetrics empty_target_action="pos"; sklearn zero_division=1
        return 1.0
    raise ValueError(f"{what}, and empty='raise' was requested")


def check_count(name: str, value) -> int:
    """A count of events: a non-negative integer (bool and float refused).

    ``3.0`` is refused too: a float where a count is expected usually means a
    rate or a mean was passed by mistake, so the caller must convert on purpose.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be a non-negative integer count; got "
            f"{type(value).__name__} {show(value)}"
        )
    if value < 0:
        raise ValueError(f"{name} must be a non-negative count; got {value}")
    return int(value)


def check_n_jobs(n_jobs) -> int:
    """Validate a thread count: a positive integer, or -1 for every CPU.

    Returns the number of threads to use (``os.cpu_count()`` for -1).
    """
    if isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral):
        raise TypeError("n_jobs must be a positive integer or -1 (all CPUs); got "
                        f"{type(n_jobs).__name__} {show(n_jobs)}")
    if n_jobs == -1:
        return os.cpu_count() or 1
    if n_jobs <= 0:
        raise ValueError("n_jobs must be a positive integer or -1 (all CPUs); got "
                         f"{int(n_jobs)}")
    return int(n_jobs)


def check_open_unit(name: str, value) -> float:
    """A real number strictly between 0 and 1 (a rate, a level, a power)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a number strictly between 0 and 1; got "
            f"{type(value).__name__} {show(value)}"
        )
    result = float(value)
    if not 0.0 < result < 1.0:  # also refuses nan
        raise ValueError(f"{name} must be strictly between 0 and 1; got {show(value)}")
    return result


def check_real(name: str, value, *, low=None, high=None, low_open: bool = False,
               high_open: bool = False) -> float:
    """A finite real number inside ``[low, high]`` (either end open on request).

    ``None`` for ``low`` or ``high`` leaves that side unbounded. bool is refused:
    ``True`` where a number is expected is almost always a mistake.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got "
                        f"{type(value).__name__} {show(value)}")
    result = float(value)
    if not math.isfinite(result):
        raise ValueError(f"{name} must be finite; got {show(value)}")
    too_low = low is not None and (result <= low if low_open else result < low)
    too_high = high is not None and (result >= high if high_open else result > high)
    if too_low or too_high:
        left = "(" if low_open or low is None else "["
        right = ")" if high_open or high is None else "]"
        lo = "-inf" if low is None else low
        hi = "inf" if high is None else high
        raise ValueError(f"{name} must lie in {left}{lo}, {hi}{right}; got {show(value)}")
    return result


def check_rng(seed, name: str = "seed") -> np.random.Generator:
    """``None``, a non-negative int or a ``numpy.random.Generator`` -> Generator."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None:
        return np.random.default_rng()
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"{name} must be None, a non-negative integer or a "
                        f"numpy.random.Generator; got {type(seed).__name__} {show(seed)}")
    if seed < 0:
        raise ValueError(f"{name} must be a non-negative integer; got {seed}")
    return np.random.default_rng(int(seed))


def check_gain(gain, choices: Sequence[str]):
    """A gain name from ``choices``, or a mapping grade -> gain as sorted pairs.

    A mapping comes back as a tuple of ``(grade, gain)`` float pairs sorted by
    grade (hashable, so that it can travel in an options dict); grades and
    gains must be finite reals, gains non-negative, and no grade may appear
    twice once written as a float.
    """
    if isinstance(gain, str):
        return check_choice("gain", gain, choices)
    if not isinstance(gain, Mapping):
        options = ", ".join(repr(c) for c in choices)
        raise TypeError(f"gain must be one of {options} or a mapping {{grade: gain}}; "
                        f"got {type(gain).__name__} {show(gain)}")
    if not gain:
        raise ValueError("gain is an empty mapping: give the gain of every judged grade")
    pairs = {}
    for grade, value in gain.items():
        key = check_real("a grade (key) of the gain mapping", grade)
        if key in pairs:
            raise ValueError(f"the gain mapping lists grade {show(grade)} twice")
        pairs[key] = check_real(f"the gain of grade {show(grade)}", value, low=0)
    return tuple(sorted(pairs.items()))


def check_min_grade(min_grade) -> float | None:
    """``None`` or a finite real: grades below it count as 0 in DCG and NDCG."""
    if min_grade is None:
        return None
    return check_real("min_grade", min_grade)


#: The trec_eval versions whose arithmetic differs where this library follows it
#: (``trec_eval_version=``): 10 (10.0) and 9 (9.0.x, which pytrec_eval 0.5 compiles).
TREC_EVAL_VERSIONS = (9, 10)


def check_trec_eval_version(version) -> int:
    """``version`` if it is 9 or 10 (an integer, not a bool); else ValueError."""
    if isinstance(version, (bool, np.bool_)) or not isinstance(version, numbers.Integral) \
            or int(version) not in TREC_EVAL_VERSIONS:
        raise ValueError(f"trec_eval_version must be 9 or 10 (an integer); got "
                         f"{show(version)}")
    return int(version)


def check_score_threshold(score_threshold) -> float | None:
    """``None`` or a finite real: items scored at or below it are never hits."""
    if score_threshold is None:
        return None
    return check_real("score_threshold", score_threshold)


def check_truncate(truncate) -> int | None:
    """``None`` or a positive integer: the number of items each list keeps."""
    return check_k(truncate, name="truncate")


def check_bool(name: str, value) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False; got {type(value).__name__} "
                        f"{show(value)}")
    return bool(value)
