"""Is A better than B? Comparison reports and the planning of experiments.

:func:`compare` pairs the per-user results of several systems, tests every
comparison, corrects the p-values across the family and returns a
:class:`ComparisonReport` (a table, Markdown, LaTeX, HTML).
"""

from .compare import compare
from .corrections import correct_p_values
from .report import ComparisonReport

__all__ = ["compare", "correct_p_values", "ComparisonReport"]
