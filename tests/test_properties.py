"""Properties every correct implementation must satisfy, on generated inputs."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics_lib as ml

ITEMS = [f"i{n}" for n in range(12)]


@st.composite
def ranking_case(draw):
    """A ranked list without duplicates, graded judgements and a cut-off."""
    recommended = draw(st.lists(st.sampled_from(ITEMS), unique=True, max_size=10))
    judged = draw(st.dictionaries(st.sampled_from(ITEMS), st.integers(0, 4), max_size=8))
    k = draw(st.one_of(st.none(), st.integers(1, 12)))
    return recommended, judged, k


BINARY = [ml.precision_at_k, ml.recall_at_k, ml.f1_at_k, ml.hit_at_k,
          ml.reciprocal_rank, ml.average_precision]

settings.register_profile("project", max_examples=150, deadline=None)
settings.load_profile("project")


@given(ranking_case())
def test_all_metrics_are_in_unit_interval(case):
    recommended, judged, k = case
    for metric in BINARY + [ml.ndcg_at_k]:
        value = metric(recommended, judged, k=k)
        assert 0.0 <= value <= 1.0 + 1e-12, metric.__name__


@given(ranking_case())
def test_precision_never_exceeds_hit(case):
    recommended, judged, k = case
    assert ml.precision_at_k(recommended, judged, k=k) <= ml.hit_at_k(recommended, judged, k=k)


@given(ranking_case())
def test_hit_is_recall_above_zero(case):
    recommended, judged, k = case
    if any(g >= 1 for g in judged.values()):
        hit = ml.hit_at_k(recommended, judged, k=k)
        assert hit == float(ml.recall_at_k(recommended, judged, k=k) > 0)


@given(ranking_case())
def test_ap_denominators_are_ordered(case):
    recommended, judged, k = case
    values = [ml.average_precision(recommended, judged, k=k, denominator=d)
              for d in ("relevant", "min_k", "retrieved")]
    assert values[0] <= values[1] + 1e-12 <= values[2] + 2e-12


@given(ranking_case())
def test_f1_lies_between_precision_and_recall(case):
    recommended, judged, k = case
    p = ml.precision_at_k(recommended, judged, k=k)
    r = ml.recall_at_k(recommended, judged, k=k)
    f1 = ml.f1_at_k(recommended, judged, k=k)
    assert min(p, r) - 1e-12 <= f1 <= max(p, r) + 1e-12


@given(ranking_case(), st.lists(st.sampled_from([f"tail{n}" for n in range(5)]), unique=True))
def test_items_below_k_do_not_change_at_k_metrics(case, tail):
    recommended, judged, k = case
    if k is None or len(recommended) < k:
        return
    # replace everything after rank k, including by items that are relevant
    changed = recommended[:k] + tail
    extra = dict(judged, **{t: 3 for t in tail})
    for metric in BINARY + [ml.ndcg_at_k, ml.dcg_at_k]:
        if metric in (ml.recall_at_k, ml.f1_at_k, ml.average_precision, ml.ndcg_at_k):
            # these divide by quantities of the judgements, which we keep fixed
            assert metric(recommended, judged, k=k) == metric(changed, judged, k=k)
        else:
            assert metric(recommended, judged, k=k) == metric(changed, extra, k=k)


@given(ranking_case())
def test_recall_grows_with_k(case):
    recommended, judged, _ = case
    values = [ml.recall_at_k(recommended, judged, k=k) for k in range(1, 13)]
    assert all(a <= b for a, b in zip(values, values[1:]))


@given(st.dictionaries(st.sampled_from(ITEMS), st.integers(0, 4), min_size=1, max_size=10),
       st.one_of(st.none(), st.integers(1, 12)),
       st.sampled_from(["linear", "exponential"]))
def test_ideal_order_has_ndcg_one(judged, k, gain):
    if not any(g > 0 for g in judged.values()):
        return
    ideal = sorted(judged, key=lambda item: -judged[item])
    assert math.isclose(ml.ndcg_at_k(ideal, judged, k=k, gain=gain), 1.0)


@given(ranking_case())
def test_retrieved_ideal_never_below_judged_ideal(case):
    recommended, judged, k = case
    judged_value = ml.ndcg_at_k(recommended, judged, k=k)
    assert ml.ndcg_at_k(recommended, judged, k=k, ideal="retrieved") >= judged_value - 1e-12


@given(ranking_case())
def test_gains_agree_on_binary_grades(case):
    recommended, judged, k = case
    binary = {item: min(grade, 1) for item, grade in judged.items()}
    assert math.isclose(ml.ndcg_at_k(recommended, binary, k=k),
                        ml.ndcg_at_k(recommended, binary, k=k, gain="exponential"))


@given(ranking_case())
def test_set_input_equals_unit_grades(case):
    recommended, judged, k = case
    relevant = {item for item, grade in judged.items() if grade >= 1}
    unit = {item: 1 for item in relevant}
    for metric in BINARY:
        assert metric(recommended, relevant, k=k) == metric(recommended, judged, k=k)
    assert math.isclose(ml.ndcg_at_k(recommended, relevant, k=k),
                        ml.ndcg_at_k(recommended, unit, k=k))


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(-3, 3)), min_size=2, max_size=30))
def test_auc_is_pairwise_win_rate(pairs):
    labels = [label for label, _ in pairs]
    scores = [float(score) for _, score in pairs]
    if len(set(labels)) < 2:
        return
    pos = [s for label, s in pairs if label == 1]
    neg = [s for label, s in pairs if label == 0]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    assert math.isclose(ml.roc_auc(labels, scores), wins / (len(pos) * len(neg)))
    assert math.isclose(ml.roc_auc(labels, [-s for s in scores]),
                        1 - ml.roc_auc(labels, scores))


@given(st.lists(st.tuples(st.floats(-5, 5), st.floats(-5, 5)), min_size=1, max_size=30))
def test_rmse_bounds(pairs):
    truth = [t for t, _ in pairs]
    pred = [p for _, p in pairs]
    errors = np.abs(np.subtract(truth, pred))
    assert ml.mae(truth, pred) <= ml.rmse(truth, pred) + 1e-9
    assert ml.rmse(truth, pred) <= errors.max() + 1e-9


@given(st.lists(st.integers(1, 50), min_size=1, max_size=30), st.integers(1, 60))
def test_rank_metrics_consistent(ranks, k):
    assert 1 <= ml.mean_rank(ranks) <= max(ranks)
    assert 0 < ml.mean_reciprocal_rank_from_ranks(ranks) <= 1
    assert ml.hits_at_k(ranks, k) == sum(r <= k for r in ranks) / len(ranks)
    # by Jensen, 1 / mean(rank) <= mean(1 / rank)
    assert 1 / ml.mean_rank(ranks) <= ml.mean_reciprocal_rank_from_ranks(ranks) + 1e-12
