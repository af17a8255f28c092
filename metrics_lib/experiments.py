"""Former module path of the user-level online experiments.

The code lives in :mod:`metrics_lib.online` (``ratio_metrics``,
``variance_reduction``, ``sequential``); this module keeps the old path
(``metrics_lib.experiments``, named in the book's online-testing chapter)
importable with the names it had.
"""

from .online._inference import ALTERNATIVES
from .online.ratio_metrics import RatioEstimate, RatioTest, ratio_metric, ratio_metric_test
from .online.sequential import (
    MIN_LOOK_GAP,
    SPENDING_FUNCTIONS,
    GroupSequentialBoundaries,
    SequentialEstimateBias,
    group_sequential_boundaries,
    sequential_bias_adjusted_estimate,
    sequential_estimate_bias,
)
from .online.variance_reduction import CupedTest, cuped_test

__all__ = [
    "RatioEstimate",
    "RatioTest",
    "CupedTest",
    "GroupSequentialBoundaries",
    "SequentialEstimateBias",
    "ratio_metric",
    "ratio_metric_test",
    "cuped_test",
    "group_sequential_boundaries",
    "sequential_estimate_bias",
    "sequential_bias_adjusted_estimate",
]
