"""Is A better than B? Comparison reports and the planning of experiments.

:func:`compare` pairs the per-user results of several systems, tests every
comparison, corrects the p-values across the family and returns a
:class:`ComparisonReport` (a table, Markdown, LaTeX, HTML).
:func:`users_needed`, :func:`detectable_difference` and :func:`power_of`
plan a paired (offline), interleaving or A/B experiment.
"""

from .compare import compare
from .corrections import correct_p_values
from .online_rows import online_report
from .planning import detectable_difference, power_of, users_needed
from .report import ComparisonReport

__all__ = ["compare", "correct_p_values", "ComparisonReport", "users_needed",
           "detectable_difference", "power_of", "online_report"]
