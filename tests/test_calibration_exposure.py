"""Calibration (Steck), expected and group exposure (Diaz et al.; position-based
model) and popularity bias (ARP, APLT): hand-computed cases worked with
fractions from the papers' definitions, properties, batch == per-list on
random data (pandas, Polars, pyarrow), and bad input."""

import math
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest

from metrics_lib import (
    average_recommendation_popularity,
    expected_exposure,
    expected_exposure_batch,
    group_exposure,
    group_exposure_batch,
    long_tail_share,
    miscalibration,
    miscalibration_batch,
    popularity_bias_batch,
)

GENRES = {"a": ["drama"], "b": ["comedy"], "c": ["drama", "comedy"], "d": ["horror"],
          "e": ["drama", "horror", "comedy"]}


def kl_by_hand(p, q, alpha):
    """sum_g p log(p / ((1 - alpha) q + alpha p)) with exact shares."""
    total = 0.0
    for g, pg in p.items():
        if pg:
            qt = (1 - alpha) * q.get(g, F(0)) + alpha * pg
            total += float(pg) * math.log(float(pg / qt))
    return total


# ------------------------------------------------------------ calibration
def test_miscalibration_hand_case_equal_weights():
    # history c, d, e: p = (c: 1/2 dr + 1/2 co) + (d: ho) + (e: 1/3 each), / 3
    p = {"drama": (F(1, 2) + F(1, 3)) / 3, "comedy": (F(1, 2) + F(1, 3)) / 3,
         "horror": (1 + F(1, 3)) / 3}
    # list a, d: q = (drama 1/2, horror 1/2)
    q = {"drama": F(1, 2), "horror": F(1, 2)}
    alpha = F(1, 100)
    got = miscalibration(["a", "d"], ["c", "d", "e"], GENRES)
    assert got == pytest.approx(kl_by_hand(p, q, alpha), rel=1e-12)


def test_miscalibration_rank_and_history_weights():
    # reciprocal rank weights: a at 1 (w 1), b at 2 (w 1/2): q = (2/3 dr, 1/3 co)
    q = {"drama": F(2, 3), "comedy": F(1, 3)}
    # history a weight 3, d weight 1: p = (3/4 drama, 1/4 horror)
    p = {"drama": F(3, 4), "horror": F(1, 4)}
    got = miscalibration(["a", "b"], {"a": 3, "d": 1}, GENRES, rank_weights="reciprocal",
                         alpha=0.05)
    assert got == pytest.approx(kl_by_hand(p, q, F(5, 100)), rel=1e-12)
    # log weights: 1 and 1/log2(3)
    w2 = 1 / math.log2(3)
    qd, qc = 1 / (1 + w2), w2 / (1 + w2)
    expected = 0.75 * math.log(0.75 / (0.99 * qd + 0.01 * 0.75)) \
        + 0.25 * math.log(0.25 / (0.01 * 0.25))
    got = miscalibration(["a", "b"], {"a": 3, "d": 1}, GENRES, rank_weights="log")
    assert got == pytest.approx(expected, rel=1e-12)
    assert qc > 0  # comedy is in q but not in p: it adds nothing


def test_miscalibration_shares_and_cutoff():
    genres = {"x": {"drama": 3, "comedy": 1}, "y": {"comedy": 1}}
    # p from x: (3/4, 1/4); list y, x cut at 1: q = comedy only
    p = {"drama": F(3, 4), "comedy": F(1, 4)}
    q = {"comedy": F(1)}
    got = miscalibration(["y", "x"], ["x"], genres, k=1)
    assert got == pytest.approx(kl_by_hand(p, q, F(1, 100)), rel=1e-12)


def test_miscalibration_properties():
    rng = np.random.default_rng(0)
    items = list(GENRES)
    for _ in range(200):
        recs = list(rng.choice(items, size=rng.integers(1, 5), replace=False))
        hist = list(rng.choice(items, size=rng.integers(1, 6)))
        alphas = sorted(rng.uniform(0.001, 1, size=3))
        values = [miscalibration(recs, hist, GENRES, alpha=a) for a in alphas]
        for a, v in zip(alphas, values):
            assert 0 <= v <= math.log(1 / a) + 1e-12
        assert values[0] >= values[1] - 1e-12 >= values[2] - 2e-12  # decreasing in alpha
        assert miscalibration(recs, hist, GENRES, alpha=1.0) == pytest.approx(0, abs=1e-15)
        # relabelling items and genres changes nothing
        relabel = {i: f"item-{i}" for i in items}
        genres2 = {relabel[i]: [g.upper() for g in gs] for i, gs in GENRES.items()}
        assert miscalibration([relabel[i] for i in recs], [relabel[i] for i in hist],
                              genres2, alpha=alphas[0]) == pytest.approx(values[0], rel=1e-12)
    # equal mixes give exactly 0: list a, b against history c
    assert miscalibration(["a", "b"], ["c"], GENRES) == 0.0
    # a history genre absent from the list adds p log(1/alpha): history d only
    assert miscalibration(["a"], ["d"], GENRES) == pytest.approx(math.log(100))


def _random_calibration_tables(rng, n_users=30):
    items = list(GENRES)
    recs, hist = [], []
    for u in range(n_users):
        for r, i in enumerate(rng.choice(items, size=rng.integers(1, 5), replace=False)):
            recs.append((u * 7 + 2**40, i, r + 1))
        for i in rng.choice(items, size=rng.integers(1, 6)):
            hist.append((u * 7 + 2**40, i, float(rng.integers(1, 4))))
    recs = pd.DataFrame(recs, columns=["user", "item", "rank"]).sample(frac=1, random_state=1)
    hist = pd.DataFrame(hist, columns=["user", "item", "w"])
    genres = pd.DataFrame([(i, g) for i, gs in GENRES.items() for g in gs],
                          columns=["item", "genre"])
    return recs, hist, genres


@pytest.mark.parametrize("rank_weights", ["equal", "reciprocal", "log"])
def test_miscalibration_batch_equals_per_list(rank_weights):
    rng = np.random.default_rng(1)
    recs, hist, genres = _random_calibration_tables(rng)
    got = miscalibration_batch(recs, hist, genres, rank_col="rank", weight_col="w",
                               rank_weights=rank_weights, k=3)
    assert len(got) == recs["user"].nunique()
    for user, value in got["miscalibration"].items():
        mine = recs[recs.user == user].sort_values("rank")
        h = hist[hist.user == user]
        weights = {}
        for i, w in zip(h.item, h.w):
            weights[i] = weights.get(i, 0) + w  # repeated history rows count again
        expected = miscalibration(list(mine.item), weights, GENRES,
                                  rank_weights=rank_weights, k=3)
        assert value == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_miscalibration_batch_polars_and_arrow():
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(2)
    recs, hist, genres = _random_calibration_tables(rng, n_users=10)
    expected = miscalibration_batch(recs, hist, genres)["miscalibration"]
    for convert in (pl.from_pandas, lambda f: pa.Table.from_pandas(f, preserve_index=False)):
        got = miscalibration_batch(convert(recs), convert(hist), convert(genres))
        got = pd.DataFrame(got.to_pandas() if hasattr(got, "to_pandas") else got)
        got = got.set_index("user")["miscalibration"]
        pd.testing.assert_series_equal(got.sort_index(), expected.sort_index(),
                                       check_names=False, check_index_type=False)


def test_miscalibration_bad_input():
    with pytest.raises(ValueError, match="history is empty"):
        miscalibration(["a"], [], GENRES)
    with pytest.raises(ValueError, match="recommended is empty"):
        miscalibration([], ["a"], GENRES)
    with pytest.raises(ValueError, match="no genre"):
        miscalibration(["z"], ["a"], GENRES)
    with pytest.raises(ValueError, match="alpha"):
        miscalibration(["a"], ["a"], GENRES, alpha=0)
    with pytest.raises(ValueError, match="rank_weights"):
        miscalibration(["a"], ["a"], GENRES, rank_weights="dcg")
    recs = pd.DataFrame({"user": [1, 2], "item": ["a", "b"]})
    hist = pd.DataFrame({"user": [1], "item": ["a"]})
    genres = pd.DataFrame({"item": ["a", "b"], "genre": ["x", "y"]})
    with pytest.raises(ValueError, match="user 2 .*no history"):
        miscalibration_batch(recs, hist, genres)
    with pytest.raises(ValueError, match="rank_col is needed"):
        miscalibration_batch(recs, hist, genres, k=1)
    with pytest.raises(ValueError, match="no column 'genre'"):
        miscalibration_batch(recs, hist, genres.rename(columns={"genre": "g"}))
    doubled = pd.concat([recs, recs.iloc[:1]])
    with pytest.raises(ValueError, match="twice"):
        miscalibration_batch(doubled, pd.concat([hist, hist.assign(user=2)]), genres)
    before = recs.copy()
    miscalibration_batch(recs, pd.concat([hist, hist.assign(user=2)]), genres)
    pd.testing.assert_frame_equal(recs, before)  # inputs are not mutated


# ------------------------------------------------------- expected exposure
def test_expected_exposure_hand_case():
    gamma = F(1, 2)
    # three samples; judged a:2, b:1, c:0, d unjudged
    runs = [["a", "b", "d"], ["b", "a"], ["d", "c", "a"]]
    exposure = {"a": (1 + gamma + gamma**2) / 3, "b": (gamma + 1) / 3,
                "c": gamma / 3, "d": (gamma**2 + 1) / 3}
    # ideal: a alone at rank 1 (b=0, m=1): 1; b at 2: gamma; c at 3: gamma^2
    target = {"a": F(1), "b": gamma, "c": gamma**2, "d": F(0)}
    disparity = sum(e * e for e in exposure.values())
    relevance = sum(exposure[i] * target[i] for i in exposure)
    loss = sum((exposure[i] - target[i]) ** 2 for i in exposure)
    got = expected_exposure(runs, {"a": 2, "b": 1, "c": 0}, patience=0.5, complete=True)
    assert got["disparity"] == pytest.approx(float(disparity), rel=1e-12)
    assert got["relevance"] == pytest.approx(float(relevance), rel=1e-12)
    assert got["loss"] == pytest.approx(float(loss), rel=1e-12)
    # by default (expeval's, incomplete judgements) grade 0 has no place: c's target is 0
    target["c"] = F(0)
    relevance = sum(exposure[i] * target[i] for i in exposure)
    loss = sum((exposure[i] - target[i]) ** 2 for i in exposure)
    got = expected_exposure(runs, {"a": 2, "b": 1, "c": 0}, patience=0.5)
    assert got["disparity"] == pytest.approx(float(disparity), rel=1e-12)
    assert got["relevance"] == pytest.approx(float(relevance), rel=1e-12)
    assert got["loss"] == pytest.approx(float(loss), rel=1e-12)


def test_expected_exposure_target_of_tied_grades():
    # three items of grade 1 after one of grade 2, gamma = 3/4: target of each
    # is the mean of gamma^1, gamma^2, gamma^3
    gamma = F(3, 4)
    tied = (gamma + gamma**2 + gamma**3) / 3
    # the ideal stochastic ranker itself: all 6 orders of the tied items
    from itertools import permutations
    runs = [["top"] + list(p) for p in permutations(["x", "y", "z"])]
    got = expected_exposure(runs, {"top": 2, "x": 1, "y": 1, "z": 1}, patience=0.75)
    assert got["loss"] == pytest.approx(0, abs=1e-15)
    assert got["relevance"] == pytest.approx(float(1 + 3 * tied**2), rel=1e-12)
    # a deterministic order of the same items has the same relevance but more disparity
    fixed = expected_exposure(runs[:1], {"top": 2, "x": 1, "y": 1, "z": 1}, patience=0.75)
    assert fixed["relevance"] == pytest.approx(got["relevance"], rel=1e-12)
    assert fixed["disparity"] > got["disparity"]
    assert fixed["loss"] == pytest.approx(fixed["disparity"] - got["disparity"], rel=1e-12)


def test_expected_exposure_properties():
    rng = np.random.default_rng(3)
    items = [f"i{j}" for j in range(8)]
    for _ in range(100):
        gamma = float(rng.uniform(0.05, 0.95))
        runs = [list(rng.choice(items, size=rng.integers(1, 8), replace=False))
                for _ in range(rng.integers(1, 5))]
        judged = {i: int(rng.integers(0, 3)) for i in rng.choice(items, size=4,
                                                                 replace=False)}
        judged[items[0]] = 1  # at least one relevant item
        complete = bool(rng.integers(2))
        got = expected_exposure(runs, judged, patience=gamma, complete=complete)
        # each sample spreads sum_r gamma^(r-1) over its items
        total = np.mean([(1 - gamma ** len(r)) / (1 - gamma) for r in runs])
        assert got["disparity"] <= 1 / (1 - gamma**2) + 1e-12
        assert got["disparity"] >= total**2 / len(items) - 1e-12  # Cauchy-Schwarz
        assert got["loss"] >= 0 and got["relevance"] >= 0
        relabel = {i: 1000 + j for j, i in enumerate(reversed(items))}
        again = expected_exposure([[relabel[i] for i in r] for r in runs[::-1]],
                                  {relabel[i]: g for i, g in judged.items()}, patience=gamma,
                                  complete=complete)
        for key in got:
            assert again[key] == pytest.approx(got[key], rel=1e-12, abs=1e-15)


def test_expected_exposure_batch_equals_per_user():
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(4)
    items = list(range(10))
    rows, truth, per_user = [], [], {}
    for u in range(25):
        runs = [list(rng.choice(items, size=rng.integers(1, 6), replace=False))
                for _ in range(rng.integers(1, 4))]
        judged = {int(i): int(rng.integers(0, 4)) for i in rng.choice(items, size=3,
                                                                      replace=False)}
        judged[int(runs[0][0])] = 2
        per_user[f"u{u}"] = {c: expected_exposure(runs, judged, patience=0.8, complete=c)
                             for c in (False, True)}
        rows += [(f"u{u}", s, int(i), r + 1) for s, run in enumerate(runs)
                 for r, i in enumerate(run)]
        truth += [(f"u{u}", i, g) for i, g in judged.items()]
    runs = pd.DataFrame(rows, columns=["user", "sample", "item", "rank"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    for table, complete in ((lambda f: f, False), (lambda f: f, True),
                            (pl.from_pandas, True)):
        got = expected_exposure_batch(table(runs), table(truth), patience=0.8,
                                      complete=complete)
        if not isinstance(got, pd.DataFrame):
            got = got.to_pandas().set_index("user")
        assert len(got) == 25
        for user, row in got.iterrows():
            for key in ("loss", "disparity", "relevance"):
                assert row[f"ee_{key}"] == pytest.approx(per_user[user][complete][key],
                                                         rel=1e-12, abs=1e-15)


def test_expected_exposure_bad_input():
    with pytest.raises(ValueError, match="no item with a place"):
        expected_exposure([["a"]], {})
    with pytest.raises(ValueError, match="no item with a place"):
        expected_exposure([["a"]], {"a": 0})
    with pytest.raises(TypeError, match="complete"):
        expected_exposure([["a"]], {"a": 1}, complete=1)
    with pytest.raises(ValueError, match="no sample"):
        expected_exposure([], {"a"})
    with pytest.raises(ValueError, match="patience"):
        expected_exposure([["a"]], {"a"}, patience=1)
    with pytest.raises(ValueError, match="negative"):
        expected_exposure([["a"]], {"a": -1})
    runs = pd.DataFrame({"user": [1, 1], "sample": [0, 0], "item": ["a", "b"],
                         "rank": [1, 1]})
    truth = pd.DataFrame({"user": [1], "item": ["a"], "relevance": [1]})
    with pytest.raises(ValueError, match="a rank within one sample twice"):
        expected_exposure_batch(runs, truth)
    with pytest.raises(ValueError, match="user 2 has rankings but no item"):
        expected_exposure_batch(runs.assign(user=2, rank=[1, 2]), truth)
    with pytest.raises(ValueError, match="ranks must be whole"):
        expected_exposure_batch(runs.assign(rank=[1, 1.5]), truth)


# ---------------------------------------------------------- group exposure
def test_group_exposure_hand_case():
    groups = {"a": "pop", "b": "pop", "c": "niche", "d": "niche", "e": "niche"}
    lists = [["a", "c"], ["b", "a", "d"]]
    # log weights: 1, 1/log2(3), 1/log2(4) = 1/2
    w2 = 1 / math.log2(3)
    pop = 1 + 1 + w2
    niche = w2 + 0.5
    got = group_exposure(lists, groups, relevant_lists=[{"c": 2}, {"a": 1, "d": 3}])
    assert got.loc["pop", "exposure"] == pytest.approx(pop, rel=1e-12)
    assert got.loc["niche", "exposure"] == pytest.approx(niche, rel=1e-12)
    assert got["exposure"].sum() == pytest.approx(1 + w2 + 1 + w2 + 0.5, rel=1e-12)
    assert got.loc["pop", "item_share"] == float(F(2, 5))
    assert got.loc["niche", "relevance_share"] == float(F(5, 6))
    geo = group_exposure(lists, groups, weights="geometric", patience=0.5)
    assert geo.loc["pop", "exposure_share"] == float(F(1 + 1 + F(1, 2), 1 + F(1, 2) + 1
                                                       + F(1, 2) + F(1, 4)))


def test_group_exposure_batch_equals_per_list():
    pa = pytest.importorskip("pyarrow")
    rng = np.random.default_rng(5)
    items = np.arange(12, dtype=np.int64) + 2**62
    groups = {int(i): ("g1", "g2", "g3")[j % 3] for j, i in enumerate(items)}
    lists = [list(map(int, rng.choice(items, size=rng.integers(1, 7), replace=False)))
             for _ in range(20)]
    truth = [{int(i): int(rng.integers(0, 3)) for i in rng.choice(items, 3, replace=False)}
             for _ in range(20)]
    expected = group_exposure(lists, groups, relevant_lists=truth, k=4)
    recs = pd.DataFrame([(u, i, r + 1) for u, lst in enumerate(lists)
                         for r, i in enumerate(lst)], columns=["user", "item", "rank"])
    cat = pd.DataFrame({"item": list(groups), "group": list(groups.values())})
    judged = pd.DataFrame([(u, i, g) for u, t in enumerate(truth) for i, g in t.items()],
                          columns=["user", "item", "relevance"])
    for table in (lambda f: f, lambda f: pa.Table.from_pandas(f, preserve_index=False)):
        got = group_exposure_batch(table(recs), table(cat), truth=table(judged), k=4)
        pd.testing.assert_frame_equal(got.sort_index(), expected.sort_index(),
                                      rtol=1e-12, check_index_type=False)


def test_group_exposure_bad_input():
    with pytest.raises(ValueError, match="no group"):
        group_exposure([["a", "z"]], {"a": "g"})
    with pytest.raises(ValueError, match="weights"):
        group_exposure([["a"]], {"a": "g"}, weights="dcg")
    recs = pd.DataFrame({"user": [1], "item": ["z"], "rank": [1]})
    with pytest.raises(ValueError, match="no group"):
        group_exposure_batch(recs, pd.DataFrame({"item": ["a"], "group": ["g"]}))


# -------------------------------------------------------------- popularity
TRAIN = [(1, "a"), (2, "a"), (3, "a"), (4, "a"), (1, "b"), (2, "b"), (3, "c"),
         (1, "d"), (1, "a")]  # a: 5 interactions (4 users), b: 2, c: 1, d: 1


def test_arp_hand_cases():
    assert average_recommendation_popularity(["a", "b", "e"], TRAIN) == float(F(5 + 2 + 0, 3))
    assert average_recommendation_popularity(["a", "b"], TRAIN, popularity="users") \
        == float(F(4 + 2, 2))
    assert average_recommendation_popularity(["c", "a"], TRAIN, k=1) == 1.0


def test_aplt_hand_cases():
    # ratings rule, 80% of 9 = 7.2: a (5, before 0), b (2, before 5) are in the
    # head; c starts at 7 < 7.2, so c joins; d ties with c
    assert long_tail_share(["a", "c", "d", "e"], TRAIN) == float(F(1, 4))
    # head_share 0.5 of 9 = 4.5: only a
    assert long_tail_share(["a", "b", "c"], TRAIN, head_share=0.5) == float(F(2, 3))
    # items rule: ceil(0.25 * 4) = 1 item: a
    assert long_tail_share(["a", "b"], TRAIN, head="items", head_share=0.25) == 0.5
    # items rule, 0.5: a and b; c, d tie below
    assert long_tail_share(["b", "c"], TRAIN, head="items", head_share=0.5) == 0.5
    # by users: a 4, b 2, c 1, d 1 (8 pairs); 0.5 -> 4: a only
    assert long_tail_share(["a", "b"], TRAIN, popularity="users", head_share=0.5) == 0.5


def test_popularity_properties_and_batch():
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(6)
    items = [f"m{j}" for j in range(15)]
    train = pd.DataFrame({"user": rng.integers(0, 40, 400),
                          "item": rng.choice(items, 400, p=np.linspace(2, 0.1, 15)
                                             / np.linspace(2, 0.1, 15).sum())})
    pairs = list(zip(train.user, train.item))
    recs = pd.DataFrame([(u, i, r + 1) for u in range(30)
                         for r, i in enumerate(rng.choice(items, rng.integers(1, 8),
                                                          replace=False))],
                        columns=["user", "item", "rank"])
    for head, share in (("ratings", 0.8), ("ratings", 0.3), ("items", 0.2), ("items", 1.0)):
        got = popularity_bias_batch(recs, train, head=head, head_share=share, k=5,
                                    rank_col="rank")
        got_pl = popularity_bias_batch(pl.from_pandas(recs), pl.from_pandas(train),
                                       head=head, head_share=share, k=5, rank_col="rank")
        pd.testing.assert_frame_equal(got_pl.to_pandas().set_index("user"), got,
                                      check_index_type=False)
        for user, row in got.iterrows():
            lst = list(recs[recs.user == user].sort_values("rank").item)
            assert row["arp"] == average_recommendation_popularity(lst, pairs, k=5)
            aplt = long_tail_share(lst, pairs, head=head, head_share=share, k=5)
            assert row["aplt"] == aplt and 0 <= aplt <= 1
    # a bigger head leaves a smaller tail
    small = popularity_bias_batch(recs, train, head_share=0.3)["aplt"]
    large = popularity_bias_batch(recs, train, head_share=0.9)["aplt"]
    assert (large <= small).all()


def test_popularity_bad_input():
    with pytest.raises(ValueError, match="head_share"):
        long_tail_share(["a"], TRAIN, head_share=0)
    with pytest.raises(ValueError, match="head"):
        long_tail_share(["a"], TRAIN, head="pareto")
    with pytest.raises(ValueError, match="empty"):
        average_recommendation_popularity([], TRAIN)
    with pytest.raises(ValueError, match="interactions is empty"):
        average_recommendation_popularity(["a"], [])
    recs = pd.DataFrame({"user": [1], "item": ["a"]})
    with pytest.raises(ValueError, match="rank_col is needed"):
        popularity_bias_batch(recs, pd.DataFrame({"user": [1], "item": ["a"]}), k=3)
    with pytest.raises(TypeError, match="floats"):
        popularity_bias_batch(recs.assign(item=[1.0]), pd.DataFrame({"user": [1],
                                                                     "item": [1.0]}))


def test_ids_of_two_kinds_are_refused():
    with pytest.raises(TypeError, match="kind"):
        miscalibration([1], ["1"], {1: ["x"], "1": ["x"]})
    with pytest.raises(TypeError, match="kind"):
        long_tail_share([1], [(0, "1")])
    with pytest.raises(TypeError, match="kind"):
        expected_exposure([[1]], {"1": 1})
    with pytest.raises(TypeError, match="kind"):
        group_exposure([[1]], {"1": "g"})
    recs = pd.DataFrame({"user": [1], "item": [1]})
    with pytest.raises(TypeError, match="kind"):
        popularity_bias_batch(recs, pd.DataFrame({"user": [1], "item": ["1"]}))
    with pytest.raises(ValueError, match="twice"):
        expected_exposure([["a", "a"]], {"a"})


def _elliot_long_tail(counts, transactions):
    """Elliot's Popularity.get_short_head / get_long_tail, transcribed."""
    ordered = dict(sorted(counts.items(), key=lambda kv: kv[1], reverse=True))
    limit, head = transactions * 0.8, []
    for item, pop in ordered.items():
        head.append(item)
        limit -= pop
        if limit <= 0:
            break
    return {i for i in ordered if i not in head}


def _recbole_tail(counts, tail_ratio):
    """RecBole's TailPercentage.get_tail (recbole/evaluator/metrics.py), transcribed."""
    ordered = sorted(counts.items(), key=lambda kv: (kv[1], kv[0]))
    return {item for item, _ in ordered[:max(int(len(ordered) * tail_ratio), 1)]}


def test_long_tail_matches_elliot_and_recbole_without_ties():
    rng = np.random.default_rng(7)
    for _ in range(50):
        n = int(rng.integers(2, 30))
        pops = rng.permutation(np.arange(1, n + 1) * 2 + 1)  # distinct: no ties
        counts = {f"i{j:02d}": int(p) for j, p in enumerate(pops)}
        # each interaction by its own user: interactions and distinct users agree
        pairs = [(f"{i}-{u}", i) for i, c in counts.items() for u in range(c)]
        lst = list(rng.choice(list(counts), size=int(rng.integers(1, n + 1)), replace=False))
        tail = _elliot_long_tail(counts, len(pairs))
        assert long_tail_share(lst, pairs, popularity="users") == \
            sum(i in tail for i in lst) / len(lst)
        ratio = float(rng.choice([0.1, 0.2, 0.5, 0.8]))
        tail = _recbole_tail(counts, ratio)
        if int(n * ratio) >= 1:  # RecBole keeps one tail item even when the share rounds to 0
            assert long_tail_share(lst, pairs, head="items", head_share=1 - ratio) == \
                pytest.approx(sum(i in tail for i in lst) / len(lst), abs=0)


def test_items_rule_is_not_fooled_by_float_products():
    # 25 items of distinct popularity; 0.28 * 25 is 7.000000000000001 in floats,
    # and the head is 7 items, not 8
    pairs = [(f"{j}-{u}", f"i{j}") for j in range(25) for u in range(30 - j)]
    ranked = [f"i{j}" for j in range(25)]  # most popular first
    assert long_tail_share(ranked, pairs, head="items", head_share=0.28) == 18 / 25
    # ratings rule: counts 7, 6, 5, 4, 3 (25 interactions); 0.28 of 25 is 7, which
    # the first item holds alone, so the second is long tail
    pairs = [(f"{c}-{u}", f"c{c}") for c in (7, 6, 5, 4, 3) for u in range(c)]
    assert long_tail_share(["c6"], pairs, head_share=0.28) == 1.0


def test_batch_reads_nullable_arrow_and_wide_integer_ids():
    # int64 users beside uint64 ones above 2**63, pyarrow strings, nullable Int64 ranks
    recs = pd.DataFrame({"user": pd.array([2**63 + 5, 2**63 + 5, 3], dtype="UInt64"),
                         "item": pd.array(["a", "b", "a"], dtype="string[pyarrow]"),
                         "rank": pd.array([1, 2, 1], dtype="Int64")})
    train = pd.DataFrame({"user": np.array([-1, -2, -3, -1], dtype=np.int64),
                          "item": ["a", "a", "a", "b"]})
    got = popularity_bias_batch(recs, train, k=1, rank_col="rank")
    assert got.loc[2**63 + 5, "arp"] == 3.0 and got.loc[3, "arp"] == 3.0
    hist = pd.DataFrame({"user": np.array([2**63 + 5, 3], dtype=np.uint64),
                         "item": ["a", "b"]})
    genres = pd.DataFrame({"item": ["a", "b"], "genre": ["x", "y"]})
    got = miscalibration_batch(recs, hist, genres)
    assert got.loc[3, "miscalibration"] == pytest.approx(math.log(100))
    # history a: p = (x 1); list a, b: q = (x 1/2, y 1/2); q~(x) = 0.99/2 + 0.01
    assert got.loc[2**63 + 5, "miscalibration"] == pytest.approx(
        math.log(1 / (0.99 * 0.5 + 0.01)), rel=1e-12)
    with pytest.raises(ValueError, match="missing"):
        popularity_bias_batch(recs.assign(user=pd.array([1, None, 3], dtype="Int64")), train)
