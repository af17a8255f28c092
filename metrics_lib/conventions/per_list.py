"""``convention=`` for the per-list functions (``ndcg_at_k(..., convention="ranx")``).

Which per-list function computes which metric, and how its keywords are
named, comes from the metric registry (:mod:`metrics_lib.ranking.registry`).
"""

from __future__ import annotations

from collections.abc import Mapping

from .._validation import show
from ..ranking import registry
from .resolve import _EVALUATE_NAME, _caller_keyword, _find, _preset, _resolve, _same


# per-list function -> (metric kind, {evaluate keyword: the function's keyword}),
# as each metric declares them in the registry
_PER_LIST = {metric.per_list.__name__: (metric.name, metric.per_list_keywords)
             for metric in registry.metrics() if metric.per_list is not None}

_CONVENTION_DOC = """    convention : str or None, default=None
        Compute the metric as another library does (``"trec_eval"``,
        ``"ranx"``, ``"sklearn"``, ...; see :func:`describe_convention`):
        the keywords of the metric that ``evaluate(..., convention=...)``
        computes for this library's name of it (``"ndcg"``: ranx's
        ``ndcg``, not ``ndcg_burges``) replace the defaults above.
        A keyword passed here, even at its default value, is never ignored:
        one that stands for one of the library's own options sets it, one
        equal to the library's value is accepted, any other raises
        ``ValueError``. The list is taken in the order given, which has no
        ties: a library's rule for ordering tied scores applies in
        :func:`evaluate`.
        A library's score threshold (torchmetrics: ``score_threshold=0``)
        applies only when ``scores`` are given.
"""

def _per_list_keywords(function, kind, renames, peer, k, given):
    """The function's keyword values under ``peer``'s preset (see with_convention).

    ``given`` holds the keywords the caller passed; each follows
    :func:`_caller_keyword`, compared with the value the function runs with
    under the preset (or with the preset's own value).
    """
    import inspect

    preset = _preset(peer)
    # the metric evaluate(..., convention=peer) computes for this library's name
    try:
        entry, _, _ = _find(preset, _EVALUATE_NAME[kind])
    except ValueError:
        raise ValueError(f"convention {show(peer)} has no metric of kind {show(kind)} "
                         f"({function.__name__}); its metrics are "
                         f"{', '.join(e.names[0] for e in preset.metrics)}") from None
    if entry.cutoff == "required" and k is None:
        raise ValueError(f"{peer}'s {entry.names[0]} needs a cut-off: pass k")
    if entry.cutoff == "none" and k is not None:
        raise ValueError(f"{peer}'s {entry.names[0]} takes no cut-off: pass k=None")
    info = _resolve(peer, entry.names[0] + ("" if k is None else f"@{k}"))
    parameters = inspect.signature(function).parameters
    defaults = {name: p.default for name, p in parameters.items()
                if p.default is not inspect.Parameter.empty}
    out, preset_values, sources = {}, {}, {}
    for key, value in info["keywords"].items():
        target = renames.get(key, key if key not in _RENAMED_AWAY else None)
        if target is None or target not in parameters:
            continue
        if key == "denominator" and kind != "ap":
            continue
        preset_values[target], sources[target] = value, key
        if key == "ties":  # evaluate's orders of equal scores; see below
            continue
        if key == "score_threshold" and given.get("scores") is None:
            # a list without scores has no score to compare with the threshold
            continue
        out[target] = value
    ties = info["keywords"].get("ties")
    if ties in ("average", "block") and given.get("scores") is not None:
        # without scores a list has no ties: its order is the only order
        if "ties" not in parameters:
            raise ValueError(f"convention {show(peer)} treats tied scores with "
                             f"ties={show(ties)} for {entry.names[0]}, which "
                             f"{function.__name__} cannot do in this version; use "
                             "evaluate(..., convention=...)")
        out["ties"] = ties
    for key, value in given.items():
        if key == "scores" or key not in defaults:  # data, or not a keyword: let it say
            out[key] = value
            continue
        # what the function runs with under the preset (ties="input" where the
        # preset's order of tied scores does not apply), or the preset's own value
        applied = out.get(key, defaults[key])
        if key in preset_values and _same(value, preset_values[key]):
            applied = preset_values[key]
        out[key] = _caller_keyword(preset, function.__name__, sources.get(key, key), value,
                                   applied, info["option_keywords"], renamed=key)
    return out


def _every_row_relevant(peer, kind, k) -> bool:
    """Whether ``peer``'s metric of ``kind`` reads no grade (relevance_col=None)."""
    entry, _, _ = _find(_preset(peer), _EVALUATE_NAME[kind])
    info = _resolve(peer, entry.names[0] + ("" if k is None else f"@{k}"))
    return "relevance_col" in info["keywords"] and info["keywords"]["relevance_col"] is None


# evaluate keywords whose per-list counterpart has another name (see _PER_LIST)
_RENAMED_AWAY = ("precision_denominator", "recall_denominator")

def with_convention(function):
    """``function`` with a ``convention=`` keyword (see :func:`describe_convention`).

    The wrapper's ``**kwargs`` are exactly the keywords the caller passed,
    each of which :func:`_per_list_keywords` applies or refuses (never drops).
    """
    import functools
    import inspect

    kind, renames = _PER_LIST[function.__name__]
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(recommended, relevant, k=None, *args, convention=None, **kwargs):
        if convention is None:
            return function(recommended, relevant, k, *args, **kwargs)
        if args:
            raise TypeError(f"{function.__name__}() takes the list, the relevant "
                            "items and k positionally; pass the rest by name")
        keywords = _per_list_keywords(function, kind, renames, convention, k, kwargs)
        if isinstance(relevant, Mapping) and _every_row_relevant(convention, kind, k):
            # the peer counts every judged item as relevant, whatever its grade
            relevant = dict.fromkeys(relevant, 1)
        if (keywords.get("ties") in ("average", "block")
                and keywords.get("candidates") == "recommended"):
            # the closed forms take no candidates= keyword: keep the judgements of
            # the listed items, which is what candidates="recommended" means
            listed = set(recommended)
            if isinstance(relevant, dict):
                relevant = {item: grade for item, grade in relevant.items()
                            if item in listed}
            else:
                relevant = [item for item in relevant if item in listed]
            del keywords["candidates"]
        return function(recommended, relevant, k, **keywords)

    parameters = list(signature.parameters.values())
    parameters.append(inspect.Parameter("convention", inspect.Parameter.KEYWORD_ONLY,
                                        default=None))
    wrapper.__signature__ = signature.replace(parameters=parameters)
    doc = function.__doc__ or ""
    marker = "\n    Returns\n    -------\n"
    if marker in doc:
        head, tail = doc.split(marker, 1)
        wrapper.__doc__ = head.rstrip("\n") + "\n" + _CONVENTION_DOC + marker + tail
    return wrapper


