"""Why two conventions give two numbers: :func:`explain_difference`.

The two sides are resolved to full keyword sets (:mod:`.sides`), the
conventions on which they differ become the players of a game whose value
is the mean of the metric with some of them switched from a to b, and the
difference of the means is shared among them by exact Shapley values
(:mod:`.shapley`). The users whose values move most are named, with facts
from their rows (:mod:`.reasons`).
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from .._validation import show
from ..ranking.registry import get, parse_metric_name
from .explanation import Explanation
from .reasons import user_reasons
from .shapley import MAX_PLAYERS, shapley_values
from .sides import _check_shared, _conventions_of, _differing, _run


def explain_difference(recommendations, truth, metric, a, b, *, top=5, **keywords):
    """Attribute the difference between two conventions' means to the conventions.

    Parameters
    ----------
    recommendations, truth : pandas.DataFrame
        The tables of :func:`metrics_lib.evaluate`.
    metric : str
        One metric name, such as ``"ndcg@10"``, ``"map@10"``, ``"mrr"``.
    a, b : str or mapping
        A peer name (a key of ``metrics_lib.PEERS``: the keywords are those of
        ``evaluate(..., convention=peer)``) or a mapping of evaluate's
        convention keywords (the others keep evaluate's defaults).
        ``"score_dtype": "float32"`` in a mapping rounds the scores to
        single precision first, as some peers store them.
    top : int, default=5
        How many users to name in ``users`` (those whose values differ most).
    **keywords
        Column names (``user_col``, ``item_col``, ``score_col``,
        ``rank_col``, ``relevance_col``), ``n_jobs`` and conventions shared
        by both sides (a preset side accepts them as ``convention=`` does).

    Returns
    -------
    Explanation
        ``value_a``, ``value_b``, ``difference`` (``value_b - value_a``);
        ``by_convention`` (columns ``convention``, ``a``, ``b``,
        ``contribution``); ``per_user`` (``value_a``, ``value_b``,
        ``difference`` by user); ``users`` (the users that differ most, with
        ``reasons``); ``keywords_a`` and ``keywords_b`` (evaluate's keywords
        of each side, with ``score_dtype``). Printed, it is a short text; in
        Jupyter, a table.

    Raises
    ------
    ValueError
        An unknown peer or keyword, a metric a peer does not define, two
        sides that compute different metrics, more than 8 differing
        conventions, or a mix of conventions evaluate refuses.
    TypeError
        ``a`` or ``b`` neither a string nor a mapping; an unknown keyword.

    Notes
    -----
    The means are those of evaluate's per-user table (users without a value
    left out). With ``m`` differing conventions, every one of the ``2**m``
    mixes is evaluated; the Shapley value of a convention is its average
    marginal effect over all orders of switching, so the contributions add
    up to ``difference`` whatever the interactions, and a convention that
    changes nothing on this data gets 0 (the null-player property), and two
    conventions that act only together share their effect equally
    (symmetry). A mix of the two sides that evaluate refuses (such as
    ``ties="average"`` with ``gain="binary"``, not implemented) makes its
    conventions one player, shown as ``"gain + ties"``, with the fewest
    others that make every mix valid: the Shapley values are then those of
    the groups.

    References
    ----------
    .. [1] L. S. Shapley, "A value for n-person games", in *Contributions to
       the Theory of Games II*, Annals of Mathematics Studies 28, 1953,
       pp. 307-317.
    .. [2] The presets' sources: ``metrics_lib.PEERS`` and
       ``metrics_lib.describe_convention``.

    Examples
    --------
    >>> import pandas as pd
    >>> import metrics_lib as ml
    >>> recs = pd.DataFrame({"user": [1, 1, 1, 2, 2], "item": [1, 2, 3, 1, 2],
    ...                      "score": [0.9, 0.5, 0.5, 0.8, 0.1]})
    >>> truth = pd.DataFrame({"user": [1, 1, 2], "item": [3, 2, 2],
    ...                       "relevance": [2, 1, 1]})
    >>> e = ml.explain_difference(recs, truth, "ndcg@2", "trec_eval", "rectools")
    >>> round(e.value_a, 4), round(e.value_b, 4)
    (0.5553, 0.3869)
    >>> e.by_convention[["convention", "a", "b"]]
          convention          a       b
    0  relevance_col  relevance    None
    1           gain     linear  binary
    2          ideal     judged       k
    3        missing       skip    zero
    >>> float(e.by_convention["contribution"].iloc[3])  # every user is on both sides
    0.0
    >>> bool(abs(e.by_convention["contribution"].sum() - e.difference) < 1e-12)
    True
    """
    shared = _check_shared(keywords)
    if not isinstance(metric, str):
        raise TypeError(f"metric must be one metric name (a string); got {show(metric)}")
    side_a, name_a = _conventions_of(a, metric, shared, "a")
    side_b, name_b = _conventions_of(b, metric, shared, "b")
    if name_a != name_b:
        raise ValueError(f"a computes {show(name_a)} and b {show(name_b)}: not one metric")
    switches = _differing(side_a, side_b)
    if len(switches) > MAX_PLAYERS:
        raise ValueError(f"a and b differ on {len(switches)} conventions "
                         f"({', '.join(switches)}); the exact attribution stops at "
                         f"{MAX_PLAYERS}: give the sides more keywords in common")
    runs = {}

    def run(keys: frozenset):
        if keys not in runs:
            mix = {**side_a, **{key: side_b[key] for key in keys}}
            runs[keys] = _run(recommendations, truth, name_a, mix, shared)
        return runs[keys]

    run(frozenset())  # side a alone: a bad table raises here, as evaluate words it
    groups, phi = _attribute(switches, run)
    per_a, per_b = runs[frozenset()], runs[frozenset(switches)]
    by_convention = pd.DataFrame({
        "convention": [" + ".join(g) for g in groups],
        "a": pd.Series([_values(side_a, g) for g in groups], dtype=object),
        "b": pd.Series([_values(side_b, g) for g in groups], dtype=object),
        "contribution": phi})
    per_user = _per_user(per_a, per_b)
    users = _top_users(per_user, recommendations, truth, name_a, side_a, shared, top)
    return Explanation(metric=name_a, a=_label(a), b=_label(b), value_a=float(per_a.mean()),
                       value_b=float(per_b.mean()), by_convention=by_convention,
                       per_user=per_user, users=users, keywords_a=side_a,
                       keywords_b=side_b)


def _attribute(switches: list, run):
    """(groups of conventions, their Shapley values).

    Each convention is a player of its own unless evaluate refuses a mix
    (``ties="average"`` of one side with ``gain="binary"`` of the other):
    then the conventions of the refused mix are joined with the fewest
    others whose switch makes it valid, and they move together.
    """
    groups = [(key,) for key in switches]
    while True:
        try:
            return groups, shapley_values(
                len(groups), lambda s: run(frozenset(k for i in s for k in groups[i])).mean())
        except ValueError as error:
            refused = _refused_group(groups, run, error)
            groups = [g for g in groups if not set(g) <= set(refused)] + [refused]


def _refused_group(groups, run, error):
    """The conventions of the first refused mix, joined with the fewest partners."""
    for size in range(1, len(groups)):
        for chosen in combinations(range(len(groups)), size):
            keys = frozenset(k for i in chosen for k in groups[i])
            try:
                run(keys)
                continue
            except ValueError:
                pass
            others = [i for i in range(len(groups)) if i not in chosen]
            for extra in range(1, len(others) + 1):
                for partners in combinations(others, extra):  # the fewest partners first
                    joined = keys | {k for i in partners for k in groups[i]}
                    try:
                        run(frozenset(joined))
                    except ValueError:
                        continue
                    return tuple(sorted(joined))
            raise ValueError(f"evaluate refuses the mix of a with b's "
                             f"{', '.join(sorted(keys))} whatever else switches: "
                             f"{error}") from None
    raise error


def _values(side: dict, group: tuple):
    return side[group[0]] if len(group) == 1 else {key: side[key] for key in group}


def _label(side) -> str:
    return side if isinstance(side, str) else "{" + ", ".join(
        f"{k}={v!r}" for k, v in side.items()) + "}"


def _per_user(per_a: pd.Series, per_b: pd.Series) -> pd.DataFrame:
    table = pd.concat([per_a.rename("value_a"), per_b.rename("value_b")], axis=1)
    table["difference"] = table["value_b"] - table["value_a"]
    try:
        return table.sort_index()  # users of both sides in id order
    except TypeError:
        return table


def _top_users(per_user, recommendations, truth, metric, side_a, shared, top):
    """The ``top`` users whose values differ most, with the facts of their rows."""
    one_sided = per_user["value_a"].isna() != per_user["value_b"].isna()
    size = per_user["difference"].abs().fillna(0.0).where(~one_sided, float("inf"))
    chosen = size[size > 0].sort_values(ascending=False, kind="stable").index[:top]
    parsed = parse_metric_name(metric)
    # parse_metric's k is the cut-off only for metrics that take one; else it
    # is a named parameter (rbp's p, set_f's beta), a recall level or
    # trec_eval's list of levels (11pt_avg.0.2,0.5), none of them a cut-off
    k = parsed.k if get(parsed.kind).cutoff in ("optional", "required") else None
    columns = {"user": shared.get("user_col", "user"), "item": shared.get("item_col", "item"),
               "score": shared.get("score_col", "score"), "rank": shared.get("rank_col"),
               "relevance": shared.get("relevance_col", "relevance")}
    rows = []
    for user in chosen:
        recs = recommendations[recommendations[columns["user"]] == user]
        judged = truth[truth[columns["user"]] == user]
        present = (pd.notna(per_user.at[user, "value_a"]),
                   pd.notna(per_user.at[user, "value_b"]))
        reasons = user_reasons(user, recs, judged, k, side_a["relevance_level"], columns,
                               present)
        rows.append({"user": user, **per_user.loc[user].to_dict(),
                     "reasons": "; ".join(reasons) or "no special case found in its rows"})
    return pd.DataFrame(rows, columns=["user", "value_a", "value_b", "difference", "reasons"])
