"""The two sides of an explanation: a peer name or a mapping, as full keyword sets.

A peer name goes through the presets' own resolution
(:func:`metrics_lib.conventions._preset_call`), so that its keywords are
those of ``evaluate(..., convention=peer)``; a mapping is laid over
evaluate's defaults. ``score_dtype`` (``"float32"`` or ``None``) is a
convention too: peers that store scores in single precision tie scores
equal there.
"""

from __future__ import annotations

import inspect
import warnings

from .._missing import MissingUsersWarning
from .._validation import show
from ..conventions import _PRESETS, _float32_scores, _preset_call
from ..conventions.resolve import _same
from ..evaluate import evaluate

# Arguments of evaluate that are not conventions (the same on both sides).
_NOT_CONVENTIONS = frozenset({"user_col", "item_col", "score_col", "rank_col", "n_jobs",
                              "convention"})

# evaluate's keyword -> default
_DEFAULTS = {name: p.default for name, p in inspect.signature(evaluate).parameters.items()
             if p.default is not inspect.Parameter.empty}


def _conventions_of(side, metric: str, shared: dict, name: str) -> tuple[dict, str]:
    """(every convention keyword plus ``score_dtype``, evaluate's metric name)."""
    if isinstance(side, str):
        if side not in _PRESETS:
            raise ValueError(f"{name}: unknown peer {show(side)}; use a mapping of "
                             f"keywords or one of {', '.join(sorted(_PRESETS))}")
        explicit = {key: value for key, value in shared.items()
                    if key not in _NOT_CONVENTIONS}
        info = _preset_call(side, metric, explicit, _DEFAULTS)
        keywords = {key: value for key, value in info["keywords"].items()
                    if key not in _NOT_CONVENTIONS}
        full = {key: _DEFAULTS[key] for key in _DEFAULTS if key not in _NOT_CONVENTIONS}
        full.update(keywords)
        full["score_dtype"] = info["score_dtype"]
        return full, info["metric"]
    if not hasattr(side, "items"):
        raise TypeError(f"{name} must be a peer name (a string) or a mapping of evaluate's "
                        f"keywords; got {type(side).__name__}")
    full = {key: _DEFAULTS[key] for key in _DEFAULTS if key not in _NOT_CONVENTIONS}
    full["score_dtype"] = None
    full.update({key: value for key, value in shared.items() if key not in _NOT_CONVENTIONS})
    for key, value in side.items():
        if key not in full:
            raise ValueError(f"{name}: {show(key)} is not a convention keyword of evaluate; "
                             f"use {', '.join(sorted(full))}")
        full[key] = value
    if full["score_dtype"] not in (None, "float32", "float64"):
        raise ValueError(f"{name}: score_dtype must be None, 'float64' or 'float32'; got "
                         f"{show(full['score_dtype'])}")
    if full["score_dtype"] == "float64":
        full["score_dtype"] = None
    return full, metric


def _check_shared(keywords: dict) -> dict:
    for key in keywords:
        if key not in _DEFAULTS or key in ("convention", "metrics"):
            raise TypeError(f"unexpected keyword {show(key)}: the keywords are evaluate's "
                            "column names, n_jobs and conventions shared by both sides")
    return dict(keywords)


def _run(recommendations, truth, metric: str, conventions: dict, shared: dict):
    """Per-user values of ``metric`` under ``conventions`` (a pandas Series)."""
    call = {key: value for key, value in shared.items() if key in _NOT_CONVENTIONS}
    keywords = {key: value for key, value in conventions.items() if key != "score_dtype"}
    if conventions.get("score_dtype") == "float32":
        recommendations = _float32_scores(recommendations, call.get("score_col", "score"),
                                          call.get("rank_col"))
    with warnings.catch_warnings():
        # missing="warn" is evaluated 2**m times: the warning says nothing new
        warnings.simplefilter("ignore", MissingUsersWarning)
        frame = evaluate(recommendations, truth, [metric], **call, **keywords)
    return frame[metric]


def _differing(a: dict, b: dict) -> list[str]:
    """The convention keywords whose values differ between two full sets."""
    return [key for key in a if not _same(a[key], b[key])]
