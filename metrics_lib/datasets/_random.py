"""Seeds and counter-based random numbers shared by the simulated world and the
logged rankings.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._validation import check_open_unit, show


def _check_seed(seed) -> int:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"seed must be a non-negative integer; got "
                        f"{type(seed).__name__} {show(seed)}")
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer; got {seed}")
    return int(seed)


def _check_thresholds(thresholds) -> tuple:
    if isinstance(thresholds, (str, bytes)) or np.isscalar(thresholds):
        raise TypeError("grade_thresholds must be a sequence of probabilities, "
                        f"got {show(thresholds)}")
    values = tuple(check_open_unit("grade_thresholds", t) for t in thresholds)
    if not values:
        raise ValueError("grade_thresholds is empty; give at least one probability")
    if any(b <= a for a, b in zip(values, values[1:])):
        raise ValueError(f"grade_thresholds must be strictly increasing; got {values}")
    return values


# -- common random numbers ----------------------------------------------------
# Counter-based uniforms: a hash of (seed, stream, a, b) instead of a sequential
# generator, so that the draw of user u at rank r (or for item i) is the same
# whichever other users or lists are simulated in the same call.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _splitmix64(x):
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _keyed_uniform(seed, stream, a, b):
    """Uniform(0, 1) numbers that depend only on (seed, stream, a, b)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    h = _splitmix64(np.full(a.shape, seed, dtype=np.uint64) * np.uint64(4) + np.uint64(stream))
    h = _splitmix64(h ^ a.astype(np.uint64))
    h = _splitmix64(h ^ b.astype(np.uint64))
    return (h >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))  # overflow-free logistic


def _readonly(array: np.ndarray) -> np.ndarray:
    array = np.array(array)  # a private copy
    array.flags.writeable = False
    return array
