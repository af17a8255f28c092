"""No keyword is dropped by ``convention=`` (issue 22, point 2).

For every preset, every metric it offers, every keyword of :func:`evaluate`
(and of each per-list function) and every value that keyword accepts, the
default included, a call with ``convention=`` either

- equals the same call with the preset's keywords spelled out
  (``describe_convention(...)["keywords"]``, overridden by the caller's), or
- raises ``ValueError`` naming the keyword, and only when the value differs
  from the preset's (a value that agrees is always accepted), or
- fails exactly as the spelled-out call fails.

It never silently differs. The allowed values are read from the library's
own constants, so that a new value (or a new keyword, which must be added to
``EXTRA_VALUES``) is covered as soon as it exists. The tables have ties,
scores that are equal in float32 only, scores at or below 0, graded
judgements, a judged user without recommendations, a recommended user
without judgements and a user with nothing relevant.
"""
from __future__ import annotations

import importlib
import inspect

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import PEERS, convention_metrics, describe_convention, evaluate

_EVALUATE = importlib.import_module("metrics_lib.batch.options")  # the accepted values
_RANKING = importlib.import_module("metrics_lib.ranking")
_VALIDATION = importlib.import_module("metrics_lib._validation")

GAIN_MAP = {0: 0.0, 1: 1.0, 2: 3.0, 3: 7.0}
# Keywords whose values are not a closed list: the default plus these.
EXTRA_VALUES = {
    "user_col": (), "item_col": (), "score_col": (), "rank_col": ("rank",),
    "relevance_col": (None,), "relevance_level": (2,), "log_base": (10,),
    "n_jobs": (2,), "min_grade": (2,), "judged_only": (True,), "truncate": (3,),
    "score_threshold": (0.0,),
    # names a truth column by intent, read by the intent metrics only
    # (tests/test_intent_metrics.py), which a call with another metric refuses
    "intent_col": (),
    # a table of item popularity, read by arp and aplt only
    # (tests/test_popularity_metrics.py), which a call with another metric refuses
    "item_popularity": (),
    # the genres of items and the users' histories, read by miscalibration only
    # (tests/test_calibration_metric.py), which a call with another metric refuses
    "item_genres": (), "history": (),
    # the group of each item and the group reported, read by group_exposure only
    # (tests/test_exposure_evaluate.py), which a call with another metric refuses
    "item_groups": (), "exposure_group": (),
}
# Keywords whose values are a closed list: the list, read from the code.
CHOICES = {
    "denominator": _EVALUATE.AP_DENOMINATORS,
    "gain": tuple(_EVALUATE.GAINS) + (GAIN_MAP,),
    "ideal": _EVALUATE.IDEALS,
    "empty": _VALIDATION.EMPTY_POLICIES,
    "missing": _EVALUATE.MISSING_POLICIES,
    "ties": _EVALUATE.ALL_TIES,
    "precision_denominator": _EVALUATE.PRECISION_DENOMINATORS,
    "recall_denominator": _EVALUATE.RECALL_DENOMINATORS,
    "unjudged": _EVALUATE.UNJUDGED_POLICIES,
    "no_hit": _EVALUATE.NO_HIT_POLICIES,
    "candidates": _EVALUATE.CANDIDATES,
    "residual_tail": _EVALUATE.RESIDUAL_TAILS,
    "rank_weights": _EVALUATE.RANK_WEIGHTS,
    "trec_eval_version": _VALIDATION.TREC_EVAL_VERSIONS,
}
# The per-list functions' own lists where they differ from evaluate's.
PER_LIST_CHOICES = {
    ("precision_at_k", "denominator"): _RANKING.PRECISION_DENOMINATORS,
    ("recall_at_k", "denominator"): _RANKING.RECALL_DENOMINATORS,
    ("average_precision", "denominator"): _RANKING.AP_DENOMINATORS,
    "ties": _RANKING.PER_LIST_TIES,
}


def _same(a, b) -> bool:
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a == b
    return type(a) is type(b) and a == b or (
        isinstance(a, (int, float)) and isinstance(b, (int, float))
        and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def _values(name, default, choices):
    """Every value to try for one keyword: its default first."""
    if name in choices:
        values = tuple(choices[name])
    elif name in EXTRA_VALUES:
        values = EXTRA_VALUES[name]
    else:
        raise AssertionError(f"keyword {name!r} has no values in this test: add it to "
                             "EXTRA_VALUES or CHOICES")
    out = [default]
    for value in values:
        if not any(_same(value, seen) for seen in out):
            out.append(value)
    return out


def keyword_values(function, choices, skip=()):
    """(keyword, value) for every keyword-only parameter of ``function``."""
    cases = []
    for name, parameter in inspect.signature(function).parameters.items():
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY or name in skip:
            continue
        cases += [(name, value) for value in _values(name, parameter.default, choices)]
    return cases


def tables(seed):
    """Small tables with every case a convention keyword decides."""
    rng = np.random.default_rng(seed)
    rec_rows, truth_rows = [], []
    for user in range(11):
        if user != 9:       # user 9: judged, never recommended (missing=)
            length = int(rng.integers(1, 8))
            items = rng.choice(12, size=length, replace=False)
            scores = rng.choice([-0.5, 0.0, 0.25, 0.5, 1.0], size=length)
            rec_rows += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        if user != 10:      # user 10: recommended, never judged (unjudged=)
            judged = rng.choice(12, size=int(rng.integers(1, 7)), replace=False)
            grades = rng.integers(0, 4, size=judged.size)
            if user == 8:   # nothing relevant (empty=)
                grades[:] = 0
            truth_rows += [(user, int(i), int(g)) for i, g in zip(judged, grades)]
    # equal in float32, not in float64: the float32 presets tie them
    rec_rows += [(11, 20, 1.0 + 1e-12), (11, 21, 1.0), (11, 22, 0.5)]
    truth_rows += [(11, 21, 2), (11, 22, 1)]
    recs = pd.DataFrame(rec_rows, columns=["user", "item", "score"])
    recs["rank"] = recs.groupby("user")["score"].rank(method="min", ascending=False)
    truth = pd.DataFrame(truth_rows, columns=["user", "item", "relevance"])
    return recs.sample(frac=1.0, random_state=seed).reset_index(drop=True), truth


def outcome(call):
    try:
        return "ok", call()
    except (ValueError, TypeError) as error:
        return type(error).__name__, str(error)


def check(got, want, keyword, value, preset_value, label, free=(), by_name=(),
          option=None):
    """The rule of this file for one call; ``label`` says which.

    ``free`` are the preset's own free options and ``by_name`` the keywords
    the metric's name sets (``option_keywords``), both under evaluate's
    names; ``option`` is evaluate's name of ``keyword`` (default: the same).
    A free option may be refused only when the metric's name sets it.
    """
    option = option or keyword
    if got[0] == "ok" and want[0] == "ok":
        a, b = got[1], want[1]
        if isinstance(a, pd.Series):
            assert list(a.index) == list(b.index), (label, "users differ")
            a, b = a.to_numpy(), b.to_numpy()
        np.testing.assert_array_equal(np.asarray(a, dtype=float),
                                      np.asarray(b, dtype=float), err_msg=str(label))
        return "equal"
    if got[0] == "ValueError" and want[0] == "ok":
        assert keyword in got[1], (label, "the refusal does not name the keyword", got[1])
        assert not _same(value, preset_value), (label, "a value that agrees with the "
                                                "preset was refused", got[1])
        assert option not in free or option in by_name, (
            label, "a free option of the preset was refused though the metric's "
            "name does not set it", got[1])
        return "refused"
    assert got[0] == want[0] != "ok", (label, "differs from the spelled-out call",
                                       got[0], want[0], got[1] if got[0] != "ok" else "")
    return "both fail"


# -- evaluate -----------------------------------------------------------------

EVALUATE_CASES = keyword_values(evaluate, CHOICES, skip=("convention",))


def preset_names(peer):
    """The preset's metrics, each with a cut-off of 3 where the peer takes one."""
    names = []
    for name in convention_metrics(peer):
        for candidate in (f"{name}@3", name):
            try:
                describe_convention(peer, candidate)
            except ValueError:
                continue
            names.append(candidate)
            break
    return names


def spelled_out(recs, truth, peer, name, caller):
    """evaluate with describe_convention's keywords, the caller's winning."""
    described = describe_convention(peer, name)
    keywords = {**described["keywords"], **caller}
    if described["score_dtype"] == "float32" and keywords.get("rank_col") is None:
        recs = recs.assign(score=recs["score"].astype(np.float32).astype(np.float64))
    metric = described["metric"]
    return evaluate(recs, truth, [metric], **keywords)[metric]


def free_options(peer):
    """The preset's own free options (keywords that win over it)."""
    return importlib.import_module("metrics_lib.conventions")._PRESETS[peer].free


def evaluate_matrix(peer, recs, truth, cases):
    names = preset_names(peer)
    presets = {name: describe_convention(peer, name)["keywords"] for name in names}
    by_name = {name: describe_convention(peer, name)["option_keywords"] for name in names}
    counts = {"equal": 0, "refused": 0, "both fail": 0}
    spelled = {}     # the same keywords give the same spelled-out call
    for keyword, value in cases:
        caller = {keyword: value}
        for name in names:
            # one metric a call: metrics of other keywords are joined on the union
            # of their users, which is not what the spelled-out call of one gives
            got = outcome(lambda: evaluate(recs, truth, [name], convention=peer,
                                           **caller)[name])
            key = (name, repr(sorted({**presets[name], **caller}.items())))
            if key not in spelled:
                spelled[key] = outcome(lambda: spelled_out(recs, truth, peer, name, caller))
            want = spelled[key]
            # a keyword the preset does not set (a column, n_jobs) contradicts nothing
            preset_value = presets[name].get(keyword, value)
            counts[check(got, want, keyword, value, preset_value,
                         (peer, name, keyword, value), free_options(peer),
                         by_name[name])] += 1
    return counts


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_evaluate_never_drops_a_keyword(peer):
    recs, truth = tables(sum(map(ord, peer)))
    counts = evaluate_matrix(peer, recs, truth, EVALUATE_CASES)
    assert counts["equal"] > 0


def test_every_keyword_of_evaluate_is_in_the_matrix():
    covered = {keyword for keyword, _ in EVALUATE_CASES}
    parameters = inspect.signature(evaluate).parameters
    assert covered == {name for name, p in parameters.items()
                       if p.kind is p.KEYWORD_ONLY} - {"convention"}
    # the defaults are among the values tried
    for name in covered:
        assert any(k == name and _same(v, parameters[name].default)
                   for k, v in EVALUATE_CASES), name


def test_the_issue_example_keeps_missing_zero():
    # issue 22: convention="trec_eval" with missing="zero" (trec_eval -c) ran
    # without -c because "zero" is evaluate's default
    recs, truth = tables(3)
    out = evaluate(recs, truth, ["P_3"], convention="trec_eval", missing="zero")
    plain = evaluate(recs, truth, ["precision@3"], missing="zero")
    assert 9 in out.index and list(out.index) == list(plain.index)
    np.testing.assert_array_equal(out["P_3"].to_numpy(), plain["precision@3"].to_numpy())
    # without the keyword the preset does not score user 9: the keyword did it
    assert describe_convention("trec_eval", "P_3")["keywords"]["missing"] != "zero"


def test_a_contradiction_names_the_keyword_both_values_and_the_fix():
    recs, truth = tables(4)
    # RecTools' NDCG is binary: gain="linear" (evaluate's default) contradicts it
    with pytest.raises(ValueError) as error:
        evaluate(recs, truth, ["NDCG@3"], convention="rectools", gain="linear")
    message = str(error.value)
    assert "gain='binary'" in message and "gain='linear'" in message
    assert "drop convention=" in message and "drop the keyword" in message
    # Recommenders keeps the input order of tied scores: ties="item_desc" contradicts
    with pytest.raises(ValueError, match=r"ties='input'.*ties='item_desc'"):
        evaluate(recs, truth, ["precision_at_k@3"], convention="recommenders",
                 ties="item_desc")


def test_a_keyword_that_contradicts_the_metric_name_is_refused():
    # ranx's -l2 suffix sets the relevance level; relevance_level=1 says otherwise
    recs, truth = tables(5)
    with pytest.raises(ValueError, match="relevance_level"):
        evaluate(recs, truth, ["map@3-l2"], convention="ranx", relevance_level=1)
    out = evaluate(recs, truth, ["map@3-l2"], convention="ranx", relevance_level=2)
    plain = evaluate(recs, truth, ["map@3"], relevance_level=2)
    np.testing.assert_array_equal(out["map@3-l2"].to_numpy(), plain["map@3"].to_numpy())


# -- the per-list functions ---------------------------------------------------

PER_LIST = {"precision_at_k": "precision", "recall_at_k": "recall", "f1_at_k": "f1",
            "hit_at_k": "hit", "reciprocal_rank": "mrr", "average_precision": "map",
            "dcg_at_k": "dcg", "ndcg_at_k": "ndcg"}
# evaluate keyword -> the per-list keyword it becomes (others keep their name)
RENAMED = {"precision_at_k": {"precision_denominator": "denominator"},
           "recall_at_k": {"recall_denominator": "denominator"},
           "average_precision": {"denominator": "denominator"}}
DENOMINATORS = ("denominator", "precision_denominator", "recall_denominator")


def per_list_preset(function, described, scores):
    """The keywords of ``function`` that the described preset sets (its docstring)."""
    parameters = inspect.signature(function).parameters
    renamed = RENAMED.get(function.__name__, {})
    out = {}
    for key, value in described["keywords"].items():
        target = renamed.get(key, None if key in DENOMINATORS else key)
        if target is None or target not in parameters:
            continue
        if key == "ties" and not (value in ("average", "block") and scores is not None):
            continue    # the list's own order: ties="input"
        if key == "score_threshold" and scores is None:
            continue    # no score to compare with the threshold
        out[target] = value
    return out


def per_list_spelled_out(function, items, grades, k, keywords, every_row_relevant):
    keywords = dict(keywords)
    if every_row_relevant:  # relevance_col=None: every judged item has grade 1
        grades = dict.fromkeys(grades, 1)
    if keywords.get("ties") in ("average", "block") and \
            keywords.get("candidates") == "recommended":
        # the closed forms take the judgements of the listed items themselves
        grades = {item: grade for item, grade in grades.items() if item in set(items)}
        del keywords["candidates"]
    return function(items, grades, k, **keywords)


def user_lists(recs, truth, users):
    lists = []
    for user in users:
        rows = recs[recs["user"] == user]
        judged = truth[truth["user"] == user]
        lists.append(([int(i) for i in rows["item"]], [float(s) for s in rows["score"]],
                      {int(i): int(g) for i, g in zip(judged["item"], judged["relevance"])}))
    return lists


def per_list_matrix(peer, function, lists):
    metric = PER_LIST[function.__name__]
    choices = {**CHOICES, "ties": PER_LIST_CHOICES["ties"],
               "denominator": PER_LIST_CHOICES.get((function.__name__, "denominator"), ())}
    try:
        k, described = 3, describe_convention(peer, f"{metric}@3")
    except ValueError:
        try:
            k, described = None, describe_convention(peer, metric)
        except ValueError:      # the peer has no such metric: refused
            with pytest.raises(ValueError, match=peer):
                function(lists[0][0], lists[0][2], 3, convention=peer)
            return {}
    cases = keyword_values(function, choices, skip=("convention", "scores"))
    every_row_relevant = described["keywords"].get("relevance_col", "") is None
    # the per-list keyword -> evaluate's name of it (the preset's free options)
    inverse = {short: long for long, short in RENAMED.get(function.__name__, {}).items()}
    counts = {"equal": 0, "refused": 0, "both fail": 0}
    for items, scores, grades in lists:
        for base in ({}, {"scores": scores}):
            for keyword, value in cases + [("scores", None), ("scores", scores)]:
                caller = {**base, keyword: value}
                preset = per_list_preset(function, described, caller.get("scores"))
                got = outcome(lambda: function(items, grades, k, convention=peer, **caller))
                want = outcome(lambda: per_list_spelled_out(
                    function, items, grades, k, {**preset, **caller}, every_row_relevant))
                default = inspect.signature(function).parameters[keyword].default
                preset_value = preset.get(keyword, default)
                if keyword == "scores":
                    preset_value = value    # the data, not a convention
                counts[check(got, want, keyword, value, preset_value,
                             (peer, function.__name__, keyword, value, base),
                             free_options(peer), described["option_keywords"],
                             inverse.get(keyword))] += 1
    return counts


@pytest.mark.parametrize("peer", sorted(PEERS))
def test_per_list_functions_never_drop_a_keyword(peer):
    recs, truth = tables(1000 + sum(map(ord, peer)))
    lists = user_lists(recs, truth, [8, 11, 0, 1])
    total = 0
    for name in PER_LIST:
        total += sum(per_list_matrix(peer, getattr(ml, name), lists).values())
    assert total > 0


def test_per_list_free_option_is_the_right_one():
    # RecTools' free option `denominator` is MAP's (divide_by_k) and precision's
    # (r_precision); recall_at_k's `denominator` is not one of them
    items, grades = [1, 2, 3], {1: 1, 5: 1, 6: 1, 7: 1}
    with pytest.raises(ValueError, match="denominator"):
        ml.recall_at_k(items, grades, 3, convention="rectools", denominator="min_k")
    assert ml.average_precision(items, grades, 3, convention="rectools",
                                denominator="k") == \
        ml.average_precision(items, grades, 3, denominator="k")
    # a value equal to the function's default still wins when it is a free option
    scores = [1.0, 1.0, 0.5]
    assert ml.ndcg_at_k(items, grades, 3, scores=scores, convention="sklearn",
                        ties="input") == ml.ndcg_at_k(items, grades, 3, scores=scores,
                                                      candidates="recommended")
