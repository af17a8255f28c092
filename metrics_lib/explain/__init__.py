"""Explaining a difference between two numbers of one metric.

:func:`explain_difference` shares the difference of two conventions' means
among the conventions on which they differ; :func:`find_convention` goes
from a reported number back to the conventions that reproduce it.

Modules, each one concern: ``sides`` (a peer or a mapping as keywords, one
evaluation), ``shapley`` (exact Shapley values), ``reasons`` (facts about a
user's rows), ``explanation`` (the result and its display), ``difference``
(:func:`explain_difference`), ``search`` (:func:`find_convention`),
``command`` (``python -m metrics_lib explain|find``, from TREC files).
"""

from __future__ import annotations

from .difference import explain_difference
from .explanation import Explanation
from .search import find_convention

__all__ = ["Explanation", "explain_difference", "find_convention"]
