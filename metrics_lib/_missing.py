"""Users judged in ``truth`` without any recommendation: the ``missing=`` rule.

:func:`metrics_lib.evaluate` scores such a user on an empty list (0 for every
metric, trec_eval ``-c``), leaves the user out, or refuses the input
(trec_eval 10.0 without ``-c``). Scoring them 0 silently turned a sample of
users evaluated against the whole truth table into a mean diluted by every
user left out of the sample, so the default scores them 0 *and* says so.
"""

from __future__ import annotations

import os
import sys
import warnings

from ._validation import show

__all__ = ["MissingUsersWarning", "MISSING_POLICIES", "report_missing"]

# "warn": 0 with a warning (the default); "zero": 0 silently (trec_eval -c);
# "skip": left out; "raise": ValueError (trec_eval 10.0 without -c).
MISSING_POLICIES = ("warn", "zero", "skip", "raise")

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


class MissingUsersWarning(UserWarning):
    """Users of ``truth`` without recommendations were scored 0 by :func:`evaluate`.

    Given by ``evaluate(..., missing="warn")``, the default, once per call:
    its message says how many of the users judged in ``truth`` have no row in
    ``recommendations``. They are scored on an empty list (0 for every metric,
    as trec_eval ``-c`` scores them) and kept in the means. Pass
    ``missing="zero"`` to score them 0 without the warning, ``missing="skip"``
    to leave them out, or ``missing="raise"`` to refuse such input, as
    trec_eval 10.0 does without ``-c``.

    Parameters
    ----------
    message : str
        The text of the warning.

    Returns
    -------
    MissingUsersWarning
        A :class:`UserWarning`, so that ``warnings.simplefilter("error",
        MissingUsersWarning)`` turns it into an error and the usual filters
        silence it.

    Notes
    -----
    trec_eval 10.0 (commit f425365, ``trec_eval.c``, ``main``) loops over the
    queries of the qrels; for a query without results it uses an empty
    ranking when ``-c`` is given and otherwise prints ``result qid ... not
    found in qrels`` and exits with status 4 (its help text still says such
    queries are ignored). Evaluating a sample of
    users against the whole truth table is the common way to get here by
    mistake: every judged user outside the sample would enter the means as 0.

    References
    ----------
    .. [1] trec_eval, https://github.com/usnistgov/trec_eval

    Examples
    --------
    >>> import warnings
    >>> import pandas as pd
    >>> from metrics_lib import MissingUsersWarning, evaluate
    >>> recs = pd.DataFrame({"user": [1], "item": ["a"], "score": [1.0]})
    >>> truth = pd.DataFrame({"user": [1, 2], "item": ["a", "b"], "relevance": [1, 1]})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     result = evaluate(recs, truth, "precision@1")
    >>> caught[0].category is MissingUsersWarning
    True
    >>> print(str(caught[0].message).split(";")[0])
    1 of the 2 users in truth have no recommendations
    >>> result["precision@1"].tolist()
    [1.0, 0.0]
    """


def _stacklevel() -> int:
    """Stack level of the first frame outside this package (the caller's line)."""
    # frame 1 is report_missing, the function that calls warnings.warn
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def report_missing(policy: str, n_missing: int, n_truth_users: int, example) -> None:
    """Warn about, or refuse, ``n_missing`` judged users without recommendations.

    ``policy`` is a value of ``missing=``; ``"zero"`` and ``"skip"`` say
    nothing. ``example`` is one such user, named by ``"raise"``. Called once
    per :func:`evaluate` call (never per chunk or partition).
    """
    if n_missing == 0 or policy in ("zero", "skip"):
        return
    users = f"{n_missing:,} of the {n_truth_users:,} users in truth"
    if policy == "raise":
        raise ValueError(
            f"{users} have no recommendations (user {show(example)}, for one), which "
            "missing='raise' refuses (as trec_eval 10.0 does without -c); pass missing='zero' to score them 0 "
            "(trec_eval -c) or missing='skip' to leave them out")
    warnings.warn(
        f"{users} have no recommendations; they are scored 0 and kept in the means "
        "(trec_eval -c). Pass missing='zero' to keep them as 0 without this warning, "
        "missing='skip' to leave them out, or missing='raise' to refuse such input "
        "(trec_eval 10.0 without -c)", MissingUsersWarning, stacklevel=_stacklevel())
