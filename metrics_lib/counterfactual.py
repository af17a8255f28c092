"""Former module path of the counterfactual (off-policy) estimates.

The code lives in :mod:`metrics_lib.online.off_policy`; this module keeps the
old path importable with the names it had.
"""

from .online.off_policy import (
    INTERVALS,
    OffPolicyEstimate,
    doubly_robust_estimate,
    ips_estimate,
    slate_ips_estimate,
    snips_estimate,
)

__all__ = [
    "OffPolicyEstimate",
    "ips_estimate",
    "snips_estimate",
    "doubly_robust_estimate",
    "slate_ips_estimate",
]
