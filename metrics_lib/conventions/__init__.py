"""Named presets: the keywords that reproduce another library's numbers.

Every convention in which the popular evaluation libraries disagree is a
keyword of :func:`metrics_lib.evaluate` (tie order, AP and precision
denominators, gains, ideal list, which users count, ...). A *preset* is the
set of those keywords that one library ("peer") uses for each metric it
defines: ``evaluate(..., convention="ranx")`` sets them all, and
:func:`describe_convention` says which they are. The presets are checked
against per-user values computed by the peers themselves
(``benchmarks/peers/golden/``, test ``tests/test_peer_goldens.py``).

Peers and the versions the presets were checked against are in
``metrics_lib.PEERS``; each metric entry names the file and function of the peer
that computes it.
"""

from __future__ import annotations


from .._validation import show
from ..evaluate import evaluate, install_convention
from ..ranking import registry
from .peers import _NEUTRAL, _PRESETS, PEERS
from .per_list import with_convention
from .resolve import _EVALUATE_NAME, _caller_keyword, _preset, _resolve, _same

# PEERS and with_convention are public (metrics_lib/__init__.py); _PRESETS and
# _preset are read by the tests
__all__ = ["PEERS", "describe_convention", "convention_metrics", "convention_table",
           "with_convention"]



def describe_convention(peer: str, metric: str, **options) -> dict:
    """The keywords with which this library computes ``metric`` as ``peer`` does.

    Parameters
    ----------
    peer : str
        One of ``"trec_eval"``, ``"pytrec_eval"``, ``"ranx"``,
        ``"recommenders"``, ``"recbole"``, ``"torchmetrics"``, ``"sklearn"``,
        ``"rectools"``, ``"ir_measures"`` (see ``metrics_lib.PEERS``).
    metric : str
        A metric of that peer, in the peer's own spelling (``"ndcg_burges@10"``
        for ranx, ``"P_10"`` for trec_eval, ``"RetrievalMAP@10"`` for
        torchmetrics, ``"NDCG@10"`` for RecTools) or in this library's
        (``"ndcg@10"``: the peer's first metric of that kind). ranx's
        ``-lN`` suffix sets its relevance level.
    **options
        The peer's own options for the metric, by the peer's name
        (``empty_target_action="skip"`` for torchmetrics,
        ``divide_by_k=True`` for RecTools, ``rel=2`` for ir-measures,
        ``relevance_level=2`` or ``judged_docs_only_flag=True`` for
        trec_eval, ...).

    Returns
    -------
    dict
        ``metric`` (the name :func:`evaluate` computes), ``keywords`` (the
        keyword values of :func:`evaluate`), ``score_dtype`` (``"float32"``
        when the peer compares scores in single precision, else ``None``),
        ``source`` (the peer's file and function), ``ties`` and
        ``ties_reproducible`` (whether the peer's order of tied scores can
        be reproduced; when it cannot, the values agree on untied scores
        only), ``note`` (what the peer must be given for the values to
        agree), ``peer``, ``peer_version``, ``peer_metric``, ``options``
        and ``option_keywords`` (the keywords those options set).

    Raises
    ------
    ValueError
        An unknown peer, a metric the peer does not define, a missing or
        superfluous cut-off, an option the peer does not have, or a metric
        no keyword reproduces (ranx's ``rbp``, ir-measures' ``ERR_IA@1``;
        the message says why).

    See Also
    --------
    evaluate : ``evaluate(..., convention=peer)`` applies these keywords.

    Notes
    -----
    The presets were checked against the per-user values of the peer
    versions in ``metrics_lib.PEERS`` on a seeded corpus with ties, graded
    judgements, short lists and users on one side only
    (``benchmarks/peers/``). Where a peer's order of tied scores is an
    implementation accident (a quicksort, ``torch.topk``), the preset
    orders ties as trec_eval does, and the description says so.

    ``evaluate(..., convention=peer)`` and the per-list functions'
    ``convention=`` use these keywords for every keyword the caller does
    not pass. A keyword passed, at any value (its default included), is
    never ignored: if it stands for one of the peer's own options
    (trec_eval's ``missing``, its ``-c``; RecTools' ``denominator``, its
    ``divide_by_k``) it sets that option, unless the metric's name sets it
    otherwise; if it equals the preset's value it is accepted; any other
    raises ``ValueError`` naming the keyword and both values.

    References
    ----------
    .. [1] The peers' repositories and versions are in ``metrics_lib.PEERS``; the
       per-user values checked against them are in ``benchmarks/peers/golden``
       of this project's repository.

    Examples
    --------
    >>> from metrics_lib import describe_convention
    >>> d = describe_convention("ranx", "ndcg_burges@10")
    >>> d["metric"], d["keywords"]["gain"], d["ties_reproducible"]
    ('ndcg@10', 'exponential', False)
    >>> describe_convention("rectools", "MAP@10", divide_by_k=True)["keywords"]["denominator"]
    'k'
    """
    return _resolve(peer, metric, options)


def convention_metrics(peer: str) -> list[str]:
    """The metric names ``peer``'s preset covers, in the peer's own spelling.

    Parameters
    ----------
    peer : str
        A key of ``metrics_lib.PEERS``.

    Returns
    -------
    list of str
        The peer's names (without cut-off), in the order of the preset.

    Notes
    -----
    A metric the peer defines but the preset does not cover (such as ranx's
    ``bpref``) is refused by ``evaluate(..., convention=peer)``: only the
    metrics checked against the peer's own values are offered.

    References
    ----------
    .. [1] The peers' repositories and versions are in ``metrics_lib.PEERS``; the
       per-user values checked against them are in ``benchmarks/peers/golden``
       of this project's repository.

    Examples
    --------
    >>> from metrics_lib import convention_metrics
    >>> convention_metrics("ranx")[:3]
    ['hits', 'hit_rate', 'precision']
    """
    return [entry.names[0] for entry in _preset(peer).metrics]


def _evaluate_with_convention(evaluate, given: dict, passed: set):
    """``evaluate(**given)`` with ``given["convention"]`` applied.

    ``given`` holds every argument (defaults filled in), ``passed`` the names
    the caller wrote. A keyword not passed is the preset's; a keyword passed
    follows :func:`_caller_keyword` (at any value: issue 22 found
    ``missing="zero"`` dropped because it equals the default). Metrics whose
    keywords differ are computed by separate calls and joined.
    """
    import inspect

    import pandas as pd

    peer = given.pop("convention")
    preset = _preset(peer)
    defaults = {name: p.default for name, p in inspect.signature(evaluate).parameters.items()
                if p.default is not inspect.Parameter.empty}
    metrics = given.pop("metrics")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics is empty: name at least one metric")
    if len(set(names)) != len(names):
        raise ValueError("a metric is listed twice")
    explicit = {key: given[key] for key in passed if key in defaults and key != "convention"}
    groups, described = {}, {}
    for name in names:
        info = _preset_call(peer, name, explicit, defaults)
        described[name] = info
        key = (info["score_dtype"],
               repr(sorted(info["keywords"].items(), key=lambda kv: kv[0])))
        groups.setdefault(key, []).append(name)
    original = given.pop("recommendations")
    if not isinstance(original, pd.DataFrame) or not isinstance(
            given.get("truth"), pd.DataFrame):
        raise TypeError("convention= takes pandas DataFrames (for Polars, Arrow or Dask "
                        "tables, compute the keywords with describe_convention and pass "
                        "them to evaluate)")
    frames = []
    for (score_dtype, _), members in groups.items():
        recommendations = original
        if score_dtype == "float32":
            recommendations = _float32_scores(original, given.get("score_col", "score"),
                                              given.get("rank_col"))
        keywords = described[members[0]]["keywords"]
        unique = list(dict.fromkeys(described[name]["metric"] for name in members))
        call = {**given, **keywords, "metrics": unique}
        frame = evaluate(recommendations, **call)
        frames.append(pd.DataFrame({name: frame[described[name]["metric"]]
                                    for name in members}, index=frame.index))
    result = frames[0] if len(frames) == 1 else pd.concat(frames, axis=1)
    result = result[names]
    result.attrs["convention"] = {
        "peer": preset.peer, "peer_version": preset.version,
        "score_dtype": preset.score_dtype,
        "metrics": {name: {key: info[key] for key in
                           ("metric", "keywords", "score_dtype", "source", "ties",
                            "ties_reproducible")}
                    for name, info in described.items()}}
    return result


def _preset_call(peer, name: str, explicit: dict, defaults: dict) -> dict:
    """:func:`_resolve` of one metric, with the caller's keywords applied.

    ``explicit`` holds the keywords the caller wrote (they follow
    :func:`_caller_keyword`), ``defaults`` evaluate's keywords: a preset
    keyword evaluate lacks is dropped when neutral, else refused.
    ``metrics_lib.explain`` resolves its sides through this too.
    """
    preset = _preset(peer)
    info = _resolve(peer, name)
    keywords = dict(info["keywords"])
    for key, value in explicit.items():
        if key not in keywords:  # a column name or n_jobs: not a convention
            continue
        keywords[key] = _caller_keyword(preset, name, key, value, keywords[key],
                                        info["option_keywords"])
    for key, value in list(keywords.items()):
        if key not in defaults:
            if _same(value, _NEUTRAL.get(key, object())):
                del keywords[key]  # this version of evaluate has no such keyword
            else:
                raise ValueError(
                    f"convention {show(peer)} computes {show(name)} with "
                    f"{key}={show(value)}, a "
                    "keyword this version of evaluate does not have")
    info["keywords"] = keywords
    return info


def _float32_scores(original, score_col, rank_col):
    """``original`` with its scores rounded to float32 (a peer that stores them so).

    Scores equal in single precision then tie here as they do in the peer.
    A table ranked by ``rank_col``, without the score column or with scores
    that are not numbers is returned as it is (evaluate's own check names
    the problem).
    """
    import numpy as np

    if rank_col is not None or score_col not in original.columns:
        return original
    try:
        as32 = np.asarray(original[score_col], dtype=np.float64).astype(np.float32)
    except (TypeError, ValueError):
        return original
    return original.assign(**{score_col: as32.astype(np.float64)})


# Keywords that matter only for some metric kinds (the table leaves the others
# out): those a metric declares in the registry (Metric.keywords).
_RELEVANT = {}

for _metric in registry.metrics():
    for _key in _metric.keywords:
        _RELEVANT[_key] = _RELEVANT.get(_key, ()) + (_metric.name,)

del _metric, _key

def convention_table():
    """Every preset as a table: one row per (peer, metric).

    Parameters
    ----------
    None

    Returns
    -------
    pandas.DataFrame
        Columns ``peer``, ``peer_version``, ``peer_metric`` (the peer's own
        name), ``metric`` (this library's name; ``@k`` where the peer needs a
        cut-off), ``keywords`` (those that differ from :func:`evaluate`'s
        defaults, as ``key=value`` text), ``score_dtype``, ``ties``,
        ``ties_reproducible``, ``source`` and ``note``.

    Notes
    -----
    The conventions appendix of the book shows this table next to values
    computed by the peers themselves.

    References
    ----------
    .. [1] The peers' repositories and versions are in ``metrics_lib.PEERS``; the
       per-user values checked against them are in ``benchmarks/peers/golden``
       of this project's repository.

    Examples
    --------
    >>> from metrics_lib import convention_table
    >>> table = convention_table()
    >>> table.loc[table.peer_metric == "ndcg_burges", "keywords"].iloc[0]
    "gain='exponential', missing='zero'"
    """
    import inspect

    import pandas as pd

    defaults = {name: p.default for name, p in inspect.signature(evaluate).parameters.items()
                if p.default is not inspect.Parameter.empty}
    defaults = {**_NEUTRAL, **defaults}
    rows = []
    for peer, preset in _PRESETS.items():
        for entry in preset.metrics:
            name = entry.names[0] + ("@k" if entry.cutoff == "required" else "")
            example = (entry.example or entry.names[0]) + (
                "@10" if entry.cutoff == "required" else "")
            try:
                info = _resolve(peer, example)
            except ValueError as refused:  # no keyword reproduces the peer: say why
                rows.append(_refused_row(preset, entry, refused))
                continue
            keywords = ", ".join(f"{key}={show(value)}" for key, value in
                                 sorted(info["keywords"].items())
                                 if not _same(value, defaults.get(key, object()))
                                 and entry.kind in _RELEVANT.get(key, (entry.kind,)))
            if entry.cutoff == "optional":
                # a cut-off can change the keywords (ir-measures answers RR@k with
                # another provider, which orders ties otherwise): say so
                cut = _resolve(peer, example + "@10")
                changed = ", ".join(f"{key}={show(value)}" for key, value in
                                    sorted(cut["keywords"].items())
                                    if not _same(value, info["keywords"].get(key, object())))
                if cut["score_dtype"] != info["score_dtype"]:
                    changed += (", " if changed else "") + (
                        f"{cut['score_dtype'] or 'float64'} scores")
                if changed:
                    keywords += ("; " if keywords else "") + f"with a cut-off: {changed}"
            rows.append({"peer": peer, "peer_version": preset.version,
                         "peer_metric": entry.names[0],
                         "metric": (info["metric"][:-len("@10")] + "@k"
                                    if entry.cutoff == "required" else info["metric"]),
                         "keywords": keywords, "score_dtype": info["score_dtype"],
                         "ties": info["ties"], "ties_reproducible": info["ties_reproducible"],
                         "source": entry.source, "note": info["note"]})
            del name
    return pd.DataFrame(rows)


def _refused_row(preset, entry, refused: ValueError) -> dict:
    """A table row for a metric the preset refuses: no keywords, the reason as note."""
    return {"peer": preset.peer, "peer_version": preset.version,
            "peer_metric": entry.names[0], "metric": "(not reproduced)", "keywords": "",
            "score_dtype": None, "ties": "", "ties_reproducible": False,
            "source": entry.source, "note": str(refused).split(": ", 1)[1]}


# evaluate(..., convention=...) applies the preset through this module, which
# sits above metrics_lib/evaluate.py: it installs the function here.
install_convention(_evaluate_with_convention)

