"""Data to evaluate on: a simulated world whose truth is known, rankings logged
from it, and the real MovieLens 100K.

``simulated_world``
    :class:`SimulatedWorld`, its generative story and its methods (true
    grades, click probabilities, a simulated A/B test);
``simulate``
    :func:`simulate_world`, which draws one;
``logged_rankings``
    :func:`sample_rankings` and :class:`LoggedRankings`: an epsilon-greedy
    policy's lists with their propensities, for off-policy estimates;
``movielens``
    :func:`load_movielens_100k` (fetched from PyPI and checked, not shipped).

The benchmark tables in ``metrics_lib/data/`` are package data, not this
package. Every public name is also re-exported from :mod:`metrics_lib`.
"""

from .logged_rankings import LoggedRankings, sample_rankings
from .movielens import MovieLens100K, load_movielens_100k
from .simulate import simulate_world
from .simulated_world import SimulatedWorld

__all__ = ["SimulatedWorld", "simulate_world", "LoggedRankings", "sample_rankings",
           "load_movielens_100k", "MovieLens100K"]
