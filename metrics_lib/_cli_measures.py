"""The command line's measures: trec_eval 10.0's measure table and the ``-m`` grammar.

:mod:`metrics_lib.cli` reads ``-m`` with these (``trec_eval.c``
``mark_measure``, ``meas_init.c``): which measures are trec_eval's, which of
them this drop-in computes and with which library metric, their parameters,
and the names of :func:`metrics_lib.evaluate`'s grammar that trec_eval
refuses and the drop-in takes (``ndcg@10``).
"""

from __future__ import annotations

import math
import re

import numpy as np

from .ranking import registry
from ._c_numbers import _atof, _atol
from ._cli_output import _COUNTS, _Refused, _role  # noqa: F401  (read from here too)


# Every measure of trec_eval 10.0, in its table's order (measures.c,
# te_trec_measures), for telling a name trec_eval does not know (exit 1, as
# trec_eval) from one it knows and this drop-in does not compute (refused,
# exit 1, with the list offered).
_TREC_EVAL_ORDER = tuple((
    "runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
    "iprec_at_recall P relstring recall infAP gm_bpref Rprec_mult utility 11pt_avg "
    "binG G dcg ideal_dcg ndcg ndcg_rel Rndcg ndcg_cut map_cut relative_P success "
    "set_P set_relative_P set_recall set_map set_F num_nonrel_judged_ret "
    "prefs_num_prefs_poss prefs_num_prefs_ful prefs_num_prefs_ful_ret prefs_simp "
    "prefs_pair prefs_avgjg prefs_avgjg_Rnonrel prefs_simp_ret prefs_pair_ret "
    "prefs_avgjg_ret prefs_avgjg_Rnonrel_ret prefs_simp_imp prefs_pair_imp "
    "prefs_avgjg_imp map_avgjg P_avgjg Rprec_mult_avgjg yaap rbp rbp_resid unj").split())
_TREC_EVAL_MEASURES = frozenset(_TREC_EVAL_ORDER)
# The measures offered: those of trec_eval that a registered metric declares
# (metrics_lib/ranking/registry.py, Metric.trec_eval), in trec_eval's measure
# table order (measures.c, te_trec_measures); value: the library metric, or
# the default parameters of a measure that takes cut-offs or recall levels.
_TRECS = registry.trec_measures()
_TABLE = {"runid": None, "num_q": None}
# relstring (m_relstring.c) prints a string per query: the command line's own,
# not a metric of evaluate (see metrics_lib/ranking/trec_more.py)
_TABLE.update((name, name if name == "relstring"
               else _TRECS[name].default if "{}" in _TRECS[name].library
               else _TRECS[name].library)
              for name in _TREC_EVAL_ORDER if name in _TRECS or name == "relstring")
_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
             "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P")
if _COUNTS != tuple(name for name in _TABLE if name in _TRECS and _TRECS[name].integer):
    raise RuntimeError("metrics_lib._cli_output._COUNTS differs from the registry's integer "
                       "trec_eval measures")  # pragma: no cover - a registry change
# measures with cut-offs -> library name pattern (iprec_at_recall's levels apart)
_CUT_LIBRARY = {name: _TRECS[name].library for name in _TABLE
                if name in _TRECS and "{}" in _TRECS[name].library
                and registry.trec_measure(name)[0].cutoff != "level"}


# measures.c, trec_names ("-m all_trec"): the ones offered here are computed,
# and a note on stderr says so.
_ALL_TREC = ("runid num_q num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank "
             "iprec_at_recall P relstring recall unj rbp rbp_resid infAP gm_bpref utility "
             "11pt_avg ndcg relative_P Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg "
             "binG G set_P set_recall set_relative_P set_map set_F "
             "num_nonrel_judged_ret").split()
# rbp is left out of all_trec: next to other measures, trec_eval 10.0's rbp
# depends on uninitialised memory (m_rbp.c, min and max; see metrics_lib.cli)
_NICKNAMES = {"official": _OFFICIAL,
              "all_trec": tuple(n for n in _ALL_TREC if n in _TABLE and n != "rbp")}


def _offered() -> str:
    return ", ".join(["official", "all_trec", *_TABLE])


def _mark_measures(specs):
    """trec_eval.c ``mark_measure``: the marked measures and the (name, params) list.

    ``-m name.params`` records its parameters (an empty list after the ``.``
    stops trec_eval with exit 1); a nickname marks its measures; an unknown
    name stops with exit 1, unless :func:`evaluate` takes it (``ndcg@10``):
    such names come back apart. Returns (marked names, [(name, params)],
    notes, [(column, kind, k, canonical)] of evaluate's names in command line order).
    """
    marked, arguments, notes, extras = set(), [], [], []
    for spec in specs:
        name, dot, params = spec.partition(".")
        if dot:
            if not params:
                raise _Refused(f"trec_eval: improper measure in parameter '{name}' "
                               f"(-m {spec}: nothing after the '.')", 1)
            arguments.append((name, params))
        if name in _NICKNAMES:
            marked.update(_NICKNAMES[name])
            if name == "all_trec":
                notes.append("note: -m all_trec computes the measures of trec_eval's "
                             "all_trec that this drop-in offers ("
                             + ", ".join(_NICKNAMES[name]) + "); the others are not "
                             "printed, rbp because trec_eval's value next to other "
                             "measures depends on uninitialised memory")
        elif name in _TABLE:
            marked.add(name)
        elif name in _TREC_EVAL_MEASURES or name in ("set", "all_prefs", "prefs", "qrels_jg"):
            raise _Refused(f"trec_eval: measure '{name}' (-m {spec}) is trec_eval's but "
                           f"not computed by this drop-in (offered: {_offered()})", 1)
        else:
            extras += _library_names(spec)
    return marked, arguments, notes, extras


class _Extra(tuple):
    """(kind, k) of a measure named in :func:`evaluate`'s grammar, not trec_eval's."""


def _library_names(spec: str) -> list[tuple[str, str, object, str]]:
    """[(column, kind, k, canonical)] of a ``-m`` that trec_eval refuses but evaluate takes.

    trec_eval stops with exit 1 on such a name (``ndcg@10``, ``p@5``,
    ``ndcg_cut_10``); here it is computed by the same registry entry as the
    trec_eval spelling and printed under the name as written. Unknown in
    both grammars, it stops with exit 1 and the closest names of both.
    """
    try:
        columns = [(column, name.kind, name.k, name.canonical)
                   for column, name in registry.expand_metric_names(spec)]
    except ValueError as error:  # its message offers the closest names of both
        raise _Refused(f"trec_eval: illegal measure '{spec}' (neither trec_eval's, "
                       f"offered here: {_offered()}; nor evaluate's: {error})", 1) from None
    return columns


def _cutoffs(name: str, params: str, read):
    """meas_init.c ``get_long_cutoffs``/``get_double_cutoffs``: sorted, unique."""
    values = sorted(read(part) for part in params.split(","))
    if any(v != v or math.isinf(v) for v in values):
        # trec_eval prints e.g. iprec_at_recall_inf, from lround() of an infinite
        # number (undefined in C): refused, by name
        raise _Refused(f"trec_eval: measure '{name}.{params}': a recall level must be a "
                       "finite number (trec_eval 10.0's value there is undefined)", 2)
    if read is _atol and values[0] <= 0:
        raise _Refused(f"trec_eval: Negative cutoff detected in '{name}.{params}' "
                       "(cut-offs are read by atol and must be >= 1)", 2)
    if any(a == b for a, b in zip(values, values[1:])):
        raise _Refused(f"trec_eval: duplicate cutoffs detected in '{name}.{params}'", 2)
    return tuple(values)


def _check_pairs(name: str, params: str, takes: str = "level=gain pairs") -> None:
    """meas_init.c ``get_param_pairs``: ``<level>=<gain>,...`` or exit 2 (malformed).

    ``takes`` says what ``name`` takes, in the message.
    """
    last = ","
    for char in params:
        if char in ",=":
            if char == last:
                last = ","
                break
            last = char
    if last != "=":
        raise _Refused(f"trec_eval: malformed pair parameters in '{params}' ({name} takes "
                       f"{takes})", 2)


class _Gains(str):
    """``-m G.<params>``: the parameters as written; ``pairs``: level -> gain."""

    pairs: dict


def _valid_int(text: str) -> bool:
    """gain_init.c ``valid_int``: an optional sign, then ASCII digits only."""
    digits = text[1:] if text[:1] in "+-" else text
    return bool(digits) and all("0" <= c <= "9" for c in digits)


def _gain_pairs(name: str, params: str) -> _Gains:
    """gain_init.c ``setup_gains`` on ``-m name.<level>=<gain>,...``.

    Levels are read by ``atol``, gains by ``atof``; a name that is not an
    integer is skipped and the first pair of a level wins, as trec_eval does.
    Refused (exit 1): a negative level (trec_eval gives that gain to
    unjudged documents in the list and never in the ideal one), a gain below
    0, not finite or 2**31 and beyond (its sort compares ``(int)`` differences).
    """
    _check_pairs(name, params)
    pairs = {}
    for part in params.split(","):
        level, _, gain = part.partition("=")
        if not _valid_int(level):
            continue
        level, gain = _atol(level), _atof(gain)
        if level < 0 or not (math.isfinite(gain) and 0 <= gain < 2**31):
            raise _Refused(f"trec_eval: -m {name}.{params}: this drop-in takes gains "
                           "for relevance levels >= 0, each a finite number in "
                           f"[0, 2**31) (got {level}={gain}; gain_init.c gives a "
                           "negative level's gain to unjudged documents only)", 1)
        pairs.setdefault(level, gain)
    out = _Gains(params)
    out.pairs = pairs
    return out


class _GainMetric(str):
    """A library metric name with trec_eval's gains: ``measure``, ``pairs``."""

    measure: str
    pairs: dict


def _msort(entries):
    """glibc 2.36 ``qsort`` (``msort_with_tmp``: top-down merge) with gain_init.c's
    ``comp_rel_gain``, which compares ``(int) (gain1 - gain2)``."""
    if len(entries) <= 1:
        return list(entries)
    left, right = _msort(entries[:len(entries) // 2]), _msort(entries[len(entries) // 2:])
    out = []
    while left and right:
        out.append(left.pop(0) if int(left[0][1] - right[0][1]) <= 0 else right.pop(0))
    return out + left + right


def _walk_orders_agree(pairs: dict, present) -> bool:
    """Whether trec_eval's ideal walk over the levels ``present`` is sorted by gain.

    gain_init.c ``setup_gains``: the pairs in command line order, then the
    levels up to the largest present one that no pair names (gain = level),
    sorted by :func:`_msort` and walked from the end; levels with no
    judgement are skipped, and the walk stops at the first gain <= 0. The
    last entry is read before any is skipped (m_ndcg.c's first
    ``ideal_gain``): a gain <= 0 there ends the walk before it starts, even
    for a level without judgements (``-m G.1=0.5,0=0`` with no grade 0).
    """
    entries = list(pairs.items()) + [(level, float(level)) for level in
                                     range(int(max(present)) + 1) if level not in pairs]
    ordered = _msort(entries)
    exact = sorted((gain for level, gain in entries if level in present and gain > 0),
                   reverse=True)
    if ordered and ordered[-1][1] <= 0:
        return not exact
    walk = []
    for level, gain in reversed(ordered):
        if level in present:
            if gain <= 0:
                break
            walk.append(gain)
    return walk == exact


def _check_gain_order(metric: _GainMetric, t_users, t_grades) -> dict:
    """evaluate's ``gain=`` for ``metric``'s pairs, or exit 1 where trec_eval misorders.

    Every judged grade maps to its pair's gain, or to itself (trec_eval's
    default). trec_eval's truncating comparator can put a gain above a larger
    one (less than 1 apart) in its ideal list: such a query is refused.
    """
    pairs = np.unique(np.stack([t_users, t_grades]), axis=1) if t_users.size else \
        np.zeros((2, 0), np.int64)
    starts = np.flatnonzero(np.r_[True, pairs[0, 1:] != pairs[0, :-1]]) if pairs.size \
        else np.zeros(0, np.int64)
    seen = {}
    for levels in np.split(pairs[1], starts[1:]) if pairs.size else []:
        present = frozenset(levels.tolist())
        if present not in seen:
            seen[present] = _walk_orders_agree(metric.pairs, present)
        if not seen[present]:
            raise _Refused(f"trec_eval: -m {metric.measure}: with these gains trec_eval "
                           "10.0 orders its ideal list by (int) (gain1 - gain2) "
                           "(gain_init.c, comp_rel_gain) and puts a smaller gain (or a "
                           "gain of 0, which ends the list) first for the relevance "
                           f"levels {sorted(present)}; this drop-in "
                           "sorts gains exactly, so it refuses rather than differ", 1)
    return {grade: metric.pairs.get(grade, float(grade))
            for grade in np.unique(t_grades).tolist()}


# m_ndcg.c: ndcg, dcg and ideal_dcg share one parameter record
_SHARED_GAINS = ("ndcg", "dcg", "ideal_dcg")


def _parse_measures(specs) -> tuple[dict[str, tuple | None], list[str]]:
    """``-m`` arguments -> ({trec_eval measure: parameters} in table order, notes).

    As trec_eval 10.0: the parameters of a measure are those of the first
    ``-m name.params`` that names it (meas_init.c ``te_init_meas_*`` take the
    first match), whatever other ``-m`` say; a measure without parameters
    (``map.5``) ignores them; errors in the parameters stop with exit 2, and
    only after every ``-m`` was marked (exit 1 first), as trec_eval does.
    """
    marked, arguments, notes, extras = _mark_measures(specs)
    chosen = {}
    for name in _TABLE:
        if name not in marked:
            continue
        params = next((p for n, p in arguments if n == name), None)
        default = _TABLE[name]
        if _TRECS.get(name) is not None and _TRECS[name].gains:
            chosen[name] = None if params is None else _gain_pairs(name, params)
        elif name == "set_F":  # m_set_F.c: a weight, printed as written (set_F_0.5)
            chosen[name] = None if params is None else _set_f_beta(params)
        elif name in _WRITTEN:  # printed as written (rbp_p=0.8, utility_1,-1,0,0)
            chosen[name] = None if params is None else _WRITTEN[name](name, params)
        elif name == "Rprec_mult":  # m_Rprec_mult.c: multiples of R, read by atof
            chosen[name] = default if params is None else _cutoffs(name, params, _atof)
        elif not isinstance(default, tuple):
            chosen[name] = None
        elif params is None:
            chosen[name] = default
        else:
            chosen[name] = _cutoffs(name, params,
                                    _atof if name == "iprec_at_recall" else _atol)
    shared = [name for name in _SHARED_GAINS if name in chosen]
    if len(shared) > 1 and any(chosen[name] is not None for name in shared):
        raise _Refused(f"trec_eval: -m {' -m '.join(shared)} with gain pairs: trec_eval "
                       "10.0 gives all of them one parameter record (m_ndcg.c, "
                       "default_ndcg_gains) and crashes when it prints them (double "
                       "free); ask for them in separate runs", 1)
    for column, kind, k, canonical in extras:  # after trec_eval's, in command line order
        chosen.setdefault(column, _Extra((kind, k, canonical)))
    return chosen, notes


class _Beta(str):
    """``-m set_F.<params>``: the parameters as written; ``beta`` is the first, by atof."""

    beta: float


def _set_f_beta(params: str) -> _Beta:
    """meas_init.c ``get_double_params`` for set_F: ``atof`` of the first parameter.

    trec_eval uses only the first (``set_F.0.5,2`` is beta 0.5, printed
    ``set_F_0.5,2``). A negative or infinite weight, where trec_eval divides
    by zero or mixes signs, is refused rather than imitated.
    """
    beta = _atof(params.split(",")[0])
    if not (math.isfinite(beta) and beta >= 0):
        raise _Refused(f"trec_eval: measure 'set_F.{params}': the weight beta must be a "
                       "finite number >= 0 (this drop-in does not imitate trec_eval's "
                       "division by zero or sign changes there)", 2)
    out = _Beta(params)
    out.beta = beta
    return out


class _Written(str):
    """``-m name.<params>`` of a measure printed ``name_<params>``: the parameters as
    written, and ``library``, what computes it (a metric of :func:`evaluate`, or a
    ``_Local`` computed by the command line)."""

    library: object


class _Local(tuple):
    """(kind, parameters) of a column the command line computes itself: ``relstring``
    (a string, not a number) and ``utility`` (from the counts, with ``-N``)."""


def _double_params(params):
    """meas_init.c ``get_double_params``: every comma-separated part by atof, in order."""
    return [_atof(part) for part in params.split(",")]


def _written(params, library):
    out = _Written(params)
    out.library = library
    return out


def _finite(name, params, values, what):
    if not all(math.isfinite(v) for v in values):
        raise _Refused(f"trec_eval: measure '{name}.{params}': {what} must be finite "
                       "numbers (trec_eval 10.0's value there is undefined)", 2)


def _eleven_params(name, params):
    """m_11pt_avg.c: recall levels by atof, unsorted, repeats kept."""
    levels = _double_params(params)
    _finite(name, params, levels, "recall levels")
    # a level below 0 aims at a relevant item <= 0, as level 0 does
    return _written(params, "11pt_avg." + ",".join(
        np.format_float_positional(max(v, 0.0), unique=True, trim="0") for v in levels))


def _utility_params(name, params):
    """m_utility.c: four weights by atof (another number of them: exit 4 at the first
    query, trec_eval's "Can't calculate measure")."""
    weights = _double_params(params)
    if len(weights) != 4:
        raise _Refused(f"trec_eval.calc_utility: improper number of coefficients in "
                       f"'{name}.{params}' (4 needed; trec_eval 10.0 stops with exit "
                       "code 4)", 4)
    _finite(name, params, weights, "the weights")
    return _written(params, _Local(("utility", tuple(weights))))


def _relstring_params(name, params):
    """m_relstring.c: the length is the first parameter, by atof, cast to long."""
    length = _double_params(params)[0]
    if not abs(length) < 2.0**63:
        raise _Refused(f"trec_eval: measure '{name}.{params}': the length must be a "
                       "finite number below 2**63 (trec_eval 10.0's cast is undefined "
                       "there)", 2)
    return _written(params, _Local(("relstring", int(length))))


def _pair_params(name, params):
    """meas_init.c ``get_param_pairs`` for rbp / rbp_resid: ``p=<atof>``, the last wins.

    Other names are ignored, as trec_eval ignores them, except that rbp reads
    integer names as gains of grades (gain_init.c ``setup_gains``), which are
    refused (the gain here is the grade). A ``p`` outside (0, 1) is refused.
    """
    _check_pairs(name, params, "name=value pairs, such as p=0.8")
    p = 0.9  # m_rbp.c's default
    for pair in params.split(","):
        key, _, value = pair.partition("=")
        if key == "p":
            p = _atof(value)
        elif name == "rbp" and re.fullmatch(r"[-+]?[0-9]+", key):
            raise _Refused(f"trec_eval: -m {name}.{params}: gain values for rbp are not "
                           "offered by this drop-in (its gain is the grade)", 1)
    if not 0.0 < p < 1.0:
        raise _Refused(f"trec_eval: measure '{name}.{params}': the persistence p must lie "
                       "strictly between 0 and 1 (this drop-in does not imitate "
                       "trec_eval's values outside)", 2)
    return _written(params, f"{name}(p={np.format_float_positional(p, unique=True)})")


# measures whose parameters are printed as written: how each reads them
_WRITTEN = {"11pt_avg": _eleven_params, "utility": _utility_params,
            "relstring": _relstring_params, "rbp": _pair_params, "rbp_resid": _pair_params}
# their library computation without parameters (trec_eval's defaults)
_DEFAULTS = {"utility": _Local(("utility", (1.0, -1.0, 0.0, 0.0))),
             "relstring": _Local(("relstring", 10))}


def _level_names(name, levels, library):
    """(printed name, library metric, None) of Rprec_mult's multiples (as _iprec_names)."""
    return [(("%s_%3.2f" % (name, m))[:len(name) + 9],
             library.format(np.format_float_positional(max(m, 0.0), unique=True, trim="-")),
             None) for m in levels]


def _iprec_names(levels):
    """(printed name, library metric, level above 1 or None) per recall level.

    meas_init.c ``append_double``: ``"%s_%3.2f"`` into strlen(name) + 10 bytes,
    so at most 9 characters follow the measure name. m_iprec_at_recall.c aims
    at the ``lround(p * R)``-th relevant document: a level below 0 gives level
    0's value; a level above 1 gives level 1's value when ``lround(p * R) == R``
    and 0 otherwise (see :func:`_iprec_as_trec_eval`).
    """
    out = []
    for p in levels:
        printed = ("iprec_at_recall_%3.2f" % p)[:len("iprec_at_recall") + 9]
        level = min(max(p, 0.0), 1.0)
        metric = "iprec_at_recall_" + np.format_float_positional(level, unique=True,
                                                                 trim="-")
        out.append((printed, metric, p))
    return out


def _columns(measures) -> list[tuple[str, str, float | None]]:
    """(printed name, library metric, recall level or None) per per-query value, in order."""
    out = []
    for name, params in measures.items():
        if name in ("runid", "num_q"):
            continue
        if isinstance(params, _Extra):
            out.append((name, *_library_metric(*params)))
        elif name == "iprec_at_recall":
            out += _iprec_names(params)
        elif isinstance(params, _Gains):
            metric = _GainMetric(_TABLE[name])
            metric.measure, metric.pairs = f"{name}.{params}", params.pairs
            out.append((f"{name}_{params}", metric, None))
        elif isinstance(params, _Beta):
            out.append((f"{name}_{params}", f"set_f(beta={params.beta!r})", None))
        elif isinstance(params, _Written):
            out.append((f"{name}_{params}", params.library, None))
        elif name in _DEFAULTS:
            out.append((name, _DEFAULTS[name], None))
        elif name == "Rprec_mult":
            out += _level_names(name, params, _TRECS[name].library)
        elif name in _CUT_LIBRARY:
            out += [(f"{name}_{k}", _CUT_LIBRARY[name].format(k), None) for k in params]
        else:
            out.append((name, _TABLE[name], None))
    return _one_spelling(out)


def _one_spelling(columns):
    """``columns`` with one library name per metric; the printed names stay.

    evaluate refuses two spellings of one metric, which two ``-m`` can give
    (``set_F.1`` is ``set_f(beta=1.0)``, ``-m set_f`` is ``set_f``): each
    column of a metric reads the first spelling's values. Gain measures
    (``_GainMetric``) keep their own, computed with their gains.
    """
    first, out = {}, []
    for printed, metric, level in columns:
        if type(metric) is str:
            try:
                canonical = registry.parse_metric_name(metric).canonical
            except ValueError:  # not evaluate's (num_ret is counted here)
                canonical = metric
            metric = first.setdefault(canonical, metric)
        out.append((printed, metric, level))
    return out


def _library_metric(kind: str, k, canonical: str) -> tuple[str, float | None]:
    """(library metric, recall level or None) for evaluate's (kind, k).

    The trec_eval measure's own library name where the metric declares one
    of that shape (``("ndcg", 10)`` -> ``ndcg@10``, as ``ndcg_cut.10``), so
    both spellings are one computation; else the canonical name, which keeps
    the named parameters (``rbp(p=0.8)``, ``alpha_ndcg(alpha=0.3)@10``).
    """
    metric = registry.get(kind)
    if metric.cutoff == "persistence":  # rbp(p=0.8): its own p, not trec_eval's 0.9
        return f"{kind}(p={np.format_float_positional(k, unique=True)})", None
    if metric.cutoff == "level" and kind == "iprec_at_recall":
        return _iprec_names([k])[0][1:]
    if metric.cutoff == "level":
        return _level_names(metric.trec_eval[0].name, [k], metric.trec_eval[0].library)[0][1:]
    for measure in metric.trec_eval:
        if not metric.parameters and (k is None) != ("{}" in measure.library):
            return measure.library.format(k), None
    return canonical, None
