"""explain_difference and find_convention (issue 27, points 1, 2 and 5).

Each side of an explanation must equal evaluate(..., convention=peer)
exactly, the contributions must add up to the difference, and the Shapley
properties (symmetry, null player) must hold; find_convention must find the
preset that produced a number among its matches.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib.explain.shapley import shapley_values

METRICS = ["ndcg@5", "map@5", "recall@5", "mrr"]


def _data(seed):
    """Random tables with what real data has.

    Ties (scores on a coarse grid), scores equal only in float32, graded
    truth with zero grades, lists shorter than k, users with truth and no
    recommendations, users with recommendations and no truth, users whose
    judged items are all irrelevant.
    """
    rng = np.random.default_rng(seed)
    recs, truth = [], []
    for user in range(40):
        kind = rng.integers(0, 8)
        n_items = int(rng.integers(1, 9))
        items = rng.choice(30, size=n_items, replace=False)
        scores = np.round(rng.random(n_items), 1)
        if n_items > 1 and rng.random() < 0.3:
            scores[1] = scores[0] + 1e-9  # distinct in float64, equal in float32
        if kind != 0:  # kind 0: truth only
            recs += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        if kind != 1:  # kind 1: recommendations only
            judged = rng.choice(30, size=int(rng.integers(1, 6)), replace=False)
            grades = rng.integers(0 if kind != 2 else 0, 4 if kind != 2 else 1,
                                  size=len(judged))
            truth += [(user, int(i), int(g)) for i, g in zip(judged, grades)]
    return (pd.DataFrame(recs, columns=["user", "item", "score"]),
            pd.DataFrame(truth, columns=["user", "item", "relevance"]))


def _peers(metric):
    """The presets that define the metric."""
    out = []
    for peer in ml.PEERS:
        try:
            ml.describe_convention(peer, metric)
        except ValueError:
            continue
        out.append(peer)
    return out


def _reference(recs, truth, metric, peer):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ml.MissingUsersWarning)
        return ml.evaluate(recs, truth, [metric], convention=peer)[metric]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("metric", METRICS)
def test_every_pair_of_presets(metric, seed):
    recs, truth = _data(seed)
    before = (recs.copy(), truth.copy())
    peers = _peers(metric)
    assert len(peers) >= 4
    checked = 0
    for a, b in itertools.combinations(peers, 2):
        e = ml.explain_difference(recs, truth, metric, a, b)
        ref_a, ref_b = _reference(recs, truth, metric, a), _reference(recs, truth, metric, b)
        # the two sides are evaluate(..., convention=peer), to the last bit
        assert e.value_a == ref_a.mean() or (np.isnan(e.value_a) and np.isnan(ref_a.mean()))
        assert e.value_b == ref_b.mean() or (np.isnan(e.value_b) and np.isnan(ref_b.mean()))
        pd.testing.assert_series_equal(e.per_user["value_a"].dropna().sort_index(),
                                       ref_a.dropna().sort_index(), check_names=False,
                                       check_exact=True, check_index_type=False)
        pd.testing.assert_series_equal(e.per_user["value_b"].dropna().sort_index(),
                                       ref_b.dropna().sort_index(), check_names=False,
                                       check_exact=True, check_index_type=False)
        # the contributions add up to the difference
        assert abs(e.by_convention["contribution"].sum() - e.difference) <= 1e-12, (a, b)
        assert e.difference == e.value_b - e.value_a
        # the conventions listed are exactly those on which the keywords differ
        differ = {key for key in e.keywords_a if e.keywords_a[key] != e.keywords_b[key]
                  and not (e.keywords_a[key] is None and e.keywords_b[key] is None)}
        listed = [key for row in e.by_convention["convention"] for key in row.split(" + ")]
        assert sorted(listed) == sorted(differ)
        if e.value_a != e.value_b:
            assert len(e.users) > 0 and e.users["reasons"].str.len().gt(0).all()
        checked += 1
    assert checked == len(peers) * (len(peers) - 1) // 2
    pd.testing.assert_frame_equal(recs, before[0])
    pd.testing.assert_frame_equal(truth, before[1])


def test_two_switches_match_the_shapley_formula_from_separate_evaluations():
    """Two conventions that interact: the formula written out by hand."""
    recs, truth = _data(3)
    a = {"missing": "skip", "gain": "linear"}
    b = {"missing": "zero", "gain": "exponential"}

    def mean(**keywords):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ml.MissingUsersWarning)
            return ml.evaluate(recs, truth, ["ndcg@5"], **keywords)["ndcg@5"].mean()

    v00 = mean(missing="skip", gain="linear")
    v10 = mean(missing="zero", gain="linear")
    v01 = mean(missing="skip", gain="exponential")
    v11 = mean(missing="zero", gain="exponential")
    e = ml.explain_difference(recs, truth, "ndcg@5", a, b)
    got = dict(zip(e.by_convention["convention"], e.by_convention["contribution"]))
    assert got["missing"] == pytest.approx(((v10 - v00) + (v11 - v01)) / 2, abs=1e-15)
    assert got["gain"] == pytest.approx(((v01 - v00) + (v11 - v10)) / 2, abs=1e-15)
    assert e.value_a == v00 and e.value_b == v11


def test_a_convention_that_changes_nothing_gets_zero():
    """Null player on data: log_base does not act on recall."""
    recs, truth = _data(4)
    e = ml.explain_difference(recs, truth, "recall@5", {"missing": "skip"},
                              {"missing": "zero", "log_base": 10})
    got = dict(zip(e.by_convention["convention"], e.by_convention["contribution"]))
    assert got["log_base"] == 0.0
    assert got["missing"] == e.difference


def test_shapley_symmetry_and_null_player():
    # players 0 and 1 act only together (value 1 when both are in), player 2 never acts
    phi = shapley_values(3, lambda s: float({0, 1} <= s))
    assert phi[0] == phi[1] == pytest.approx(0.5, abs=1e-15)
    assert phi[2] == 0.0
    # an additive game: each player's own effect
    effects = [0.3, -0.2, 0.05, 0.0, 1.5]
    phi = shapley_values(5, lambda s: sum(effects[i] for i in s))
    np.testing.assert_allclose(phi, effects, atol=1e-15)
    # interaction: v = x0 * x1 * 2 + x2, efficiency and symmetry
    phi = shapley_values(3, lambda s: 2.0 * ({0, 1} <= s) + (2 in s))
    np.testing.assert_allclose(phi, [1.0, 1.0, 1.0], atol=1e-15)


def test_conventions_evaluate_refuses_to_mix_move_together():
    """ties='average' of one side is refused with gain='binary' of the other."""
    recs, truth = _data(10)
    e = ml.explain_difference(recs, truth, "ndcg@5", {"ties": "item_desc", "gain": "binary"},
                              {"ties": "average", "gain": "linear", "missing": "zero"})
    assert set(e.by_convention["convention"]) == {"gain + ties", "missing"}
    assert abs(e.by_convention["contribution"].sum() - e.difference) <= 1e-12


def test_too_many_conventions_are_refused():
    recs, truth = _data(5)
    a = {}
    b = {"gain": "binary", "ideal": "k", "log_base": 10, "empty": "nan", "missing": "zero",
         "ties": "item_asc", "unjudged": "empty", "score_dtype": "float32", "min_grade": 2}
    with pytest.raises(ValueError, match="differ on 9 conventions.*stops at 8"):
        ml.explain_difference(recs, truth, "ndcg@5", a, b)


def test_bad_sides_and_arguments_are_named():
    recs, truth = _data(6)
    with pytest.raises(ValueError, match="a: unknown peer 'nope'"):
        ml.explain_difference(recs, truth, "ndcg@5", "nope", "ranx")
    with pytest.raises(ValueError, match="b: 'colour' is not a convention keyword"):
        ml.explain_difference(recs, truth, "ndcg@5", "ranx", {"colour": 1})
    with pytest.raises(TypeError, match="b must be a peer name"):
        ml.explain_difference(recs, truth, "ndcg@5", "ranx", 3)
    with pytest.raises(ValueError, match="has no metric 'mrr'"):
        ml.explain_difference(recs, truth, "mrr", "ranx", "recommenders")
    with pytest.raises(ValueError, match="value must be a finite number"):
        ml.find_convention(recs, truth, "ndcg@5", float("nan"))
    with pytest.raises(ValueError, match="tolerance must be >= 0"):
        ml.find_convention(recs, truth, "ndcg@5", 0.5, tolerance=-1)


def test_display_names_the_conventions():
    recs, truth = _data(7)
    e = ml.explain_difference(recs, truth, "ndcg@5", "trec_eval", "rectools")
    text, page = repr(e), e._repr_html_()
    for convention in e.by_convention["convention"]:
        assert convention in text and convention in page
    assert "Shapley" in text and "<table" in page
    assert f"{e.value_a:.6g}" in text and f"{e.value_b:.6g}" in text


def test_reasons_come_from_the_data():
    recs = pd.DataFrame({"user": [1, 1, 1, 2], "item": [1, 2, 3, 1],
                         "score": [0.9, 0.5, 0.5, 0.3]})
    truth = pd.DataFrame({"user": [1, 1, 2, 3], "item": [2, 3, 1, 1],
                          "relevance": [1, 1, 0, 1]})
    e = ml.explain_difference(recs, truth, "ndcg@2", {"ties": "item_desc", "missing": "skip",
                                                      "empty": "zero"},
                              {"ties": "item_asc", "missing": "zero", "empty": "nan"})
    reasons = dict(zip(e.users["user"], e.users["reasons"]))
    assert 1 not in reasons  # its tie holds two relevant items: no difference
    assert "no relevant item" in reasons[2]
    assert "missing on side a" in reasons[3]


@pytest.mark.parametrize("metric", METRICS)
def test_find_convention_recovers_each_preset(metric):
    recs, truth = _data(8)
    for peer in _peers(metric):
        value = _reference(recs, truth, metric, peer).mean()
        found = ml.find_convention(recs, truth, metric, value, tolerance=1e-12,
                                   max_evaluations=4)
        assert peer in set(found["peer"]), (peer, found)
        assert (found["error"].abs() <= 1e-12).all()
        # presets come first
        sources = list(found["source"])
        assert sources == sorted(sources, key=lambda s: s != "preset")


def test_find_convention_finds_a_grid_setting():
    recs, truth = _data(9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ml.MissingUsersWarning)
        value = ml.evaluate(recs, truth, ["map@5"], denominator="min_k",
                            missing="skip")["map@5"].mean()
    found = ml.find_convention(recs, truth, "map@5", value, tolerance=1e-12,
                               max_evaluations=10)
    grid = found[found["source"] == "grid"]
    assert {"denominator": "min_k"} in list(grid["changes"])
    assert list(grid["n_changes"]) == sorted(grid["n_changes"])


def test_bad_tables_raise_instead_of_matching_nothing():
    """A missing id is evaluate's error, not a setting that does not match."""
    recs, truth = _data(11)
    truth = truth.astype({"item": "Int64"})
    truth.loc[0, "item"] = pd.NA
    with pytest.raises(ValueError, match="truth"):
        ml.find_convention(recs, truth, "ndcg@5", 0.5)
    with pytest.raises(ValueError, match="truth"):
        ml.explain_difference(recs, truth, "ndcg@5", "trec_eval", "rectools")
