"""Former module path of the paired comparisons of two recommenders.

The code lives in :mod:`metrics_lib.online.significance`; this module keeps
the old path importable with the names it had.
"""

from .online.significance import (
    ALTERNATIVES,
    BOOTSTRAP_METHODS,
    MAX_RESAMPLES,
    BootstrapInterval,
    PairedTTest,
    PermutationTest,
    paired_bootstrap_ci,
    paired_permutation_test,
    paired_t_test,
    paired_values,
)

__all__ = [
    "PairedTTest",
    "BootstrapInterval",
    "PermutationTest",
    "paired_t_test",
    "paired_bootstrap_ci",
    "paired_permutation_test",
]
