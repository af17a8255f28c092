"""From a reported number back to conventions: :func:`find_convention`.

The candidates are the presets that define the metric, then a grid over
the keywords the metric registers (``Metric.keywords``) plus the tie order,
users missing on one side and float32 scores, each with its allowed values,
ordered by how many keywords differ from trec_eval's defaults.
"""

from __future__ import annotations

import math
from itertools import combinations, product

import pandas as pd

from .._validation import show
from .._validation.options import EMPTY_POLICIES
from ..batch.options import TIES
from ..conventions import PEERS
from ..ranking._common import (AP_DENOMINATORS, GAINS, IDEALS, PRECISION_DENOMINATORS,
                               RECALL_DENOMINATORS)
from ..ranking.registry import get, parse_metric
from .sides import _check_shared, _conventions_of, _differing, _run

# keyword -> the values the grid tries (evaluate's allowed values; "raise" left out)
_GRID = {"gain": GAINS, "ideal": IDEALS, "log_base": (2, math.e), "min_grade": (None, 2),
         "empty": tuple(p for p in EMPTY_POLICIES if p != "raise"),
         "denominator": AP_DENOMINATORS, "precision_denominator": PRECISION_DENOMINATORS,
         "recall_denominator": RECALL_DENOMINATORS, "ties": TIES,
         "missing": ("skip", "zero"), "score_dtype": (None, "float32"),
         "trec_eval_version": (10, 9)}


def find_convention(recommendations, truth, metric, value, tolerance=5e-5, *,
                    max_evaluations=512, **keywords):
    """The presets and keyword settings whose mean reproduces a reported number.

    Parameters
    ----------
    recommendations, truth : pandas.DataFrame
        The data the number was reported on (the tables of
        :func:`metrics_lib.evaluate`).
    metric : str
        One metric name, such as ``"ndcg@10"``.
    value : float
        The reported number.
    tolerance : float, default=5e-5
        The largest accepted ``|mean - value|`` (half a unit of the fourth
        decimal by default: a number printed to four places).
    max_evaluations : int, default=512
        How many grid settings to try at most, fewest changes first.
    **keywords
        Column names and ``n_jobs``, as for :func:`explain_difference`.

    Returns
    -------
    pandas.DataFrame
        One row per match, most plausible first (presets, then settings
        with fewer changes from trec_eval's defaults, then the closer):
        ``source`` (``"preset"`` or ``"grid"``), ``peer``, ``changes``
        (the keywords that differ from trec_eval's, a dict), ``n_changes``,
        ``value`` (the mean) and ``error`` (``value`` minus the reported
        one). Empty when nothing matches.

    Raises
    ------
    ValueError
        ``value`` or ``tolerance`` not a finite number (``tolerance`` >= 0),
        ``max_evaluations`` below 1.
    TypeError
        An unknown keyword.

    Notes
    -----
    A match is evidence, not proof: on small data several settings often
    give the same mean (every convention that changes nothing here), so the
    order says which to check first. The grid changes one keyword, then
    two, ... from trec_eval's keywords for the metric; settings evaluate
    refuses for this metric are skipped.

    References
    ----------
    .. [1] The presets' sources: ``metrics_lib.PEERS`` and
       ``metrics_lib.describe_convention``.

    Examples
    --------
    >>> import pandas as pd
    >>> import metrics_lib as ml
    >>> recs = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 2],
    ...                      "score": [0.9, 0.5, 0.5, 0.8, 0.1]})
    >>> truth = pd.DataFrame({"user": [1, 1, 2], "item": [3, 2, 2],
    ...                       "relevance": [2, 1, 1]})
    >>> reported = ml.evaluate(recs, truth, ["ndcg@2"], convention="rectools")["ndcg@2"].mean()
    >>> found = ml.find_convention(recs, truth, "ndcg@2", reported)
    >>> "rectools" in set(found["peer"])
    True
    """
    shared = _check_shared(keywords)
    value, tolerance = _check_numbers(value, tolerance, max_evaluations)
    base = _trec_defaults(metric, shared)
    # the data are checked once, outside the search: a bad table is an error,
    # not a setting that "does not match"
    _run(recommendations, truth, metric, base, shared)
    rows, seen = [], []
    for peer in PEERS:
        try:
            side, name = _conventions_of(peer, metric, shared, "peer")
        except ValueError:
            continue  # the peer does not define this metric
        rows.append(_row(recommendations, truth, name, side, base, shared, "preset", peer,
                         value, guard=False))
        seen.append(side)
    for side in _grid(metric, base, max_evaluations):
        if any(not _differing(side, other) for other in seen):
            continue
        rows.append(_row(recommendations, truth, metric, side, base, shared, "grid", None,
                         value))
    table = pd.DataFrame([r for r in rows if r is not None],
                         columns=["source", "peer", "changes", "n_changes", "value", "error"])
    table = table[(table["error"].abs() <= tolerance)]
    table = table.assign(_preset=table["source"] != "preset", _abs=table["error"].abs())
    table = table.sort_values(["_preset", "n_changes", "_abs"], kind="stable")
    return table.drop(columns=["_preset", "_abs"]).reset_index(drop=True)


def _check_numbers(value, tolerance, max_evaluations):
    for name, number in (("value", value), ("tolerance", tolerance)):
        if isinstance(number, bool) or not isinstance(number, (int, float)) \
                or not math.isfinite(number):
            raise ValueError(f"{name} must be a finite number; got {show(number)}")
    if tolerance < 0:
        raise ValueError(f"tolerance must be >= 0; got {show(tolerance)}")
    if isinstance(max_evaluations, bool) or not isinstance(max_evaluations, int) \
            or max_evaluations < 1:
        raise ValueError(f"max_evaluations must be an integer >= 1; got "
                         f"{show(max_evaluations)}")
    return float(value), float(tolerance)


def _trec_defaults(metric, shared) -> dict:
    """trec_eval's keywords for the metric, else evaluate's defaults."""
    try:
        return _conventions_of("trec_eval", metric, shared, "trec_eval")[0]
    except ValueError:
        return _conventions_of({}, metric, shared, "defaults")[0]


def _grid(metric, base, limit):
    """Keyword sets around ``base``, fewest changes first, at most ``limit``."""
    kind, _ = parse_metric(metric)
    names = [key for key in (*get(kind).keywords, "ties", "missing", "score_dtype")
             if key in _GRID]
    names = list(dict.fromkeys(names))
    count = 0
    for size in range(1, len(names) + 1):
        for chosen in combinations(names, size):
            options = [[v for v in _GRID[key] if v != base[key]] for key in chosen]
            for values in product(*options):
                if count >= limit:
                    return
                count += 1
                yield {**base, **dict(zip(chosen, values))}


def _row(recommendations, truth, metric, side, base, shared, source, peer, reported,
         guard=True):
    try:
        mean = float(_run(recommendations, truth, metric, side, shared).mean())
    except ValueError:
        if not guard:
            raise
        return None  # a grid setting evaluate refuses (for example ties= with this metric)
    changes = {key: side[key] for key in _differing(base, side)}
    return {"source": source, "peer": peer, "changes": changes, "n_changes": len(changes),
            "value": mean, "error": mean - reported}
