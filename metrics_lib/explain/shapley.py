"""Exact Shapley values of switches: the share of each in a difference.

The players are the conventions on which two sides differ; a coalition
``S`` is the set switched from side a's value to side b's. With
``v(S)`` the mean under that mix, player ``i`` receives

    phi_i = sum over S not containing i of |S|! (m - |S| - 1)! / m! * (v(S + i) - v(S))

(Shapley 1953). The values do not depend on an order of the switches, and
they add up to ``v(all) - v(none)`` (efficiency). Every one of the ``2**m``
coalitions is evaluated, so ``m`` is kept small.
"""

from __future__ import annotations

from itertools import combinations
from math import factorial

import numpy as np

MAX_PLAYERS = 8  # 256 evaluations of the metric


def coalitions(m: int) -> list[frozenset]:
    """Every subset of ``range(m)``, smallest first."""
    return [frozenset(c) for size in range(m + 1) for c in combinations(range(m), size)]


def shapley_values(m: int, value) -> np.ndarray:
    """The Shapley value of each of ``m`` players of the game ``value(frozenset)``.

    ``value`` is called once per coalition (``2**m`` calls). Raises
    ValueError when ``m`` exceeds :data:`MAX_PLAYERS`.

    Examples
    --------
    >>> shapley_values(2, lambda s: float(len(s) == 2))  # both needed: half each
    array([0.5, 0.5])
    """
    if m > MAX_PLAYERS:
        raise ValueError(f"{m} conventions differ; the exact attribution evaluates 2**m "
                         f"combinations and stops at {MAX_PLAYERS} (set the keywords on "
                         "which the sides should agree on both sides)")
    values = {s: float(value(s)) for s in coalitions(m)}
    weights = [factorial(size) * factorial(m - size - 1) / factorial(m)
               for size in range(m)]
    phi = np.zeros(m)
    for s, v in values.items():
        for i in range(m):
            if i not in s:
                phi[i] += weights[len(s)] * (values[s | {i}] - v)
    return phi
