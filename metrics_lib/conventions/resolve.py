"""A peer's metric name resolved to this library's metric and keywords.

``ranx``'s ``"ndcg_burges@10"``, trec_eval's ``"ndcg_cut_10"`` or a
call such as ``"nDCG(rel=2)@10"``: the peer's own vocabulary first, then
this library's names (the metric registry).
"""

from __future__ import annotations

import re

from .._validation import did_you_mean, show
from ..ranking import registry
from .peers import _GRADES, _PRESETS, _Preset


# Our metric kind -> the name evaluate() accepts (the registry's first alias).
_EVALUATE_NAME = {metric.name: metric.display_name for metric in registry.metrics()}

_NAME = re.compile(r"^(?P<base>.+?)(?:@(?P<k>[0-9]+))?(?:-l(?P<level>[0-9]+))?$")

# A metric with the peer's own options, in call syntax (ir-measures writes its
# measures so): Measure(option=value, ...)@k
_CALL_NAME = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z0-9_-]*)\((?P<args>.*)\)"
                        r"(?:@(?P<k>[0-9]+))?(?:-l(?P<level>[0-9]+))?$")

_TREC_CUT = re.compile(r"^(?P<base>p|recall|success|map_cut|ndcg_cut|relative_p)"
                       r"_(?P<k>[0-9]+)$")

# A parameter in trec_eval's spelling: rbp.p=0.8 (command line), rbp_p=0.8 (its
# output), set_F.0.5 / set_F_0.5; ranx's rbp.95
_TREC_PARAM = re.compile(r"^(?P<base>[a-z_]+?)[._](?:(?P<option>[a-z]+)=)?"
                         r"(?P<value>[0-9]*\.?[0-9]+)$")

def _preset(peer) -> _Preset:
    if not isinstance(peer, str):
        raise TypeError(f"convention must be a peer name (a string); got "
                        f"{type(peer).__name__}")
    try:
        return _PRESETS[peer]
    except KeyError:
        raise ValueError(f"unknown convention {show(peer)}; use one of "
                         f"{', '.join(sorted(_PRESETS))}") from None


def _find(preset: _Preset, name: str):
    """(metric entry, k, peer options implied by the name) for a metric name."""
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings; got {type(name).__name__} "
                        f"{show(name)}")
    lowered = name.strip().lower()
    implied = {}
    cut = _TREC_CUT.match(lowered)
    call = _CALL_NAME.match(name.strip())
    if call:
        base = call.group("base").lower()
        k = None if call.group("k") is None else int(call.group("k"))
        implied = _call_args(name, call.group("args"))
        if call.group("level") is not None:
            implied["rel_lvl"] = int(call.group("level"))
    elif cut:
        base, k = cut.group("base"), int(cut.group("k"))
    elif _parameter_entry(preset, lowered) is not None:
        return _parameter_entry(preset, lowered)
    else:
        match = _NAME.match(lowered)
        if match is None:
            raise ValueError(f"convention {show(preset.peer)} has no metric {show(name)}")
        base = match.group("base")
        k = None if match.group("k") is None else int(match.group("k"))
        if match.group("level") is not None:
            implied["rel_lvl"] = int(match.group("level"))
    for entry in preset.metrics:  # the peer's own vocabulary first
        if base in (n.lower() for n in entry.names):
            return entry, k, implied
    try:
        kind, k2 = registry.parse_metric(base if k is None else f"{base}@{k}")
    except ValueError:
        kind, k2 = None, None
    for entry in preset.metrics:  # then ours: the peer's first metric of that kind
        if kind is not None and entry.kind == kind:
            return entry, k2, implied
    names = sorted({n for e in preset.metrics for n in e.names})
    hint = did_you_mean(base, {n.lower(): n for n in names},
                        suffix="" if k is None else f"@{k}")
    raise ValueError(f"convention {show(preset.peer)} has no metric {show(name)} (a metric "
                     f"{preset.peer} does not define, or one the preset does not cover); "
                     f"its metrics are {', '.join(names)}" + (f"; {hint}" if hint else ""))


def _parameter_entry(preset: _Preset, lowered: str):
    """(entry, None, {option: value}) for trec_eval's ``rbp.p=0.8``, else None."""
    found = _TREC_PARAM.match(lowered)
    if found is None:
        return None
    for entry in preset.metrics:
        if entry.parameter and found.group("base") in (n.lower() for n in entry.names):
            option = found.group("option") or entry.parameter[0]
            return entry, None, {option: float(found.group("value"))}
    return None


def _metric_name(preset: _Preset, entry, name: str, k, opts: dict):
    """(our metric name without cut-off, the peer's parameter or None).

    Refuses a metric no keyword reproduces (``entry.refuse``); takes the
    parameter written in the name (``rbp(p=0.9)``) out of ``opts``.
    """
    reason = entry.refuse(k, opts) if entry.refuse is not None else ""
    if reason:
        raise ValueError(f"convention {show(preset.peer)} does not reproduce {show(name)}: "
                         + reason)
    metric = _EVALUATE_NAME[entry.kind]
    if not entry.parameter:
        return metric, None
    option, ours, default = entry.parameter
    parameter = opts.pop(option, default)
    if isinstance(parameter, bool) or not isinstance(parameter, (int, float)):
        raise ValueError(f"{preset.peer}'s {entry.names[0]}: {option} must be a number; "
                         f"got {show(parameter)}")
    return metric + f"({ours}={float(parameter)!r})", parameter


def _call_args(name: str, text: str) -> dict:
    """``rel=2, judged_only=True, gains={2: 3}`` as a dict (Python literals only)."""
    import ast

    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if call.args:
            raise ValueError
        return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except (SyntaxError, ValueError, TypeError):
        raise ValueError(f"metric {show(name)}: cannot read the options {show(text)}; write "
                         "them as option=value, e.g. 'MAP(divide_by_k=True)@10'") from None


def _resolve(peer, name, options=None) -> dict:
    """Everything :func:`describe_convention` reports, for one metric name."""
    preset = _preset(peer)
    entry, k, implied = _find(preset, name)
    if entry.cutoff == "required" and k is None:
        raise ValueError(f"{preset.peer}'s {entry.names[0]} needs a cut-off, such as "
                         f"'{name}@10'")
    if entry.cutoff == "none" and k is not None:
        raise ValueError(f"{preset.peer}'s {entry.names[0]} takes no cut-off")
    opts = {**implied, **(options or {})}
    if preset.peer == "ir_measures" and entry.kind == "num_ret" and opts.get("rel") is not None:
        # NumRet(rel=r) counts the retrieved items of grade >= r: num_rel_ret
        entry = next(e for e in preset.metrics if e.kind == "num_rel_ret")
    if preset.peer == "ir_measures" and entry.kind == "set_p" and opts.get("relative"):
        # SetP(relative=True) is pytrec_eval's set_relative_P (ir-measures' SetRelP)
        entry = next(e for e in preset.metrics if e.kind == "set_relative_p")
    metric, parameter = _metric_name(preset, entry, name, k, opts)
    keywords = {**preset.keywords, **entry.keywords}
    score_dtype = preset.score_dtype if entry.score_dtype == "preset" else entry.score_dtype
    ties_note = entry.ties or preset.ties_note
    if preset.peer == "ir_measures" and entry.kind == "rr" and k is not None:
        # RR@k is answered by the msmarco provider: float64, ids ascending
        keywords["ties"], score_dtype = "item_asc", None
        ties_note = ("provider msmarco (ir_measures/providers/msmarco_provider.py): score "
                     "descending, then id as text ascending")
    applied, by_options = {}, {}
    for option, value in opts.items():
        if option not in preset.parameters:
            raise ValueError(f"{preset.peer} has no option {show(option)} here; its options "
                             f"are {', '.join(sorted(preset.parameters)) or 'none'}")
        changes = preset.parameters[option](value)
        applied[option] = value
        by_options.update(changes)  # what the metric's name sets (see _caller_keyword)
        keywords.update(changes)
    if keywords.get("relevance_col", "") is _GRADES:
        del keywords["relevance_col"]  # the caller's grade column (see _score_type)
    if "rel_lvl" in applied and entry.kind == "ndcg":
        # ranx/metrics/ndcg.py _dcg: clean_qrels(qrels, rel_lvl) drops the grades below
        # the level from DCG and ideal DCG; the others keep their gain
        keywords["min_grade"] = applied["rel_lvl"]
        by_options["min_grade"] = applied["rel_lvl"]
    if parameter is not None:
        applied[entry.parameter[0]] = parameter
    metric += "" if k is None else f"@{k}"
    ties_ok = preset.ties_reproducible if entry.ties_reproducible is None \
        else entry.ties_reproducible
    if preset.peer == "sklearn" and applied.get("ignore_ties"):
        ties_ok = False
    return {"peer": preset.peer, "peer_version": preset.version, "metric": metric,
            "peer_metric": entry.names[0], "keywords": keywords,
            "score_dtype": score_dtype, "source": entry.source,
            "ties": ties_note, "ties_reproducible": ties_ok,
            "options": applied, "option_keywords": by_options,
            "note": " ".join(n for n in (preset.note, entry.note) if n)}


def _caller_keyword(preset, name, key, value, preset_value, by_options, renamed=None):
    """The value of keyword ``key`` that the caller passed with ``convention=``.

    The rule of :func:`evaluate` and of the per-list functions: a value equal
    to the preset's is accepted; a keyword that stands for one of the peer's
    own options (``preset.free``) wins, unless the metric's name sets that
    option otherwise; anything else is refused, never ignored. ``renamed`` is
    the per-list function's name of ``key`` (``denominator``), for messages.
    """
    shown = renamed or key
    if _same(value, preset_value):
        return value  # the caller's own value, so that evaluate checks its type
    if key in by_options:
        raise ValueError(
            f"metric {show(name)} of convention {show(preset.peer)} sets {shown}="
            f"{show(preset_value)} by its name; {shown}={show(value)} contradicts it (drop "
            "the keyword, or change the metric's name)")
    if key in preset.free:
        return value
    raise ValueError(
        f"convention {show(preset.peer)} computes {show(name)} with "
        f"{shown}={show(preset_value)}; "
        f"{shown}={show(value)} contradicts it (drop the keyword to keep the preset's value, "
        "or drop convention= and pass every keyword yourself: describe_convention "
        "lists them)")


def _same(a, b) -> bool:
    """Equal keyword values (``1 == 1.0``; a mapping equals only a mapping)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a == b
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


