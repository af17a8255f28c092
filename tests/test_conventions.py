"""evaluate(..., convention=peer) and describe_convention: the presets' API.

Whether the presets reproduce the peers' numbers is tests/test_peer_goldens.py;
this file checks the behaviour around them: refusals, precedence of explicit
keywords, the report in ``attrs``, float32 score comparison, inputs untouched.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import PEERS, convention_metrics, describe_convention, evaluate


@pytest.fixture
def tables():
    recs = pd.DataFrame({"user": [1, 1, 1, 2, 2, 3],
                         "item": [10, 9, 8, 10, 7, 1],
                         "score": [0.9, 0.5, 0.5, 0.8, 0.1, 0.3]})
    truth = pd.DataFrame({"user": [1, 1, 2, 4], "item": [9, 8, 7, 10],
                          "relevance": [1, 3, 2, 1]})
    return recs, truth


def test_every_peer_of_the_issue_has_a_preset():
    assert set(PEERS) == {"trec_eval", "pytrec_eval", "ranx", "recommenders", "recbole",
                          "torchmetrics", "sklearn", "rectools", "ir_measures"}
    for peer in PEERS:
        assert convention_metrics(peer)


def test_peer_vocabulary_and_ours_give_the_same_keywords():
    assert describe_convention("ranx", "ndcg@10")["keywords"] == \
        describe_convention("ranx", "ndcg@10")["keywords"]
    assert describe_convention("trec_eval", "P_10")["metric"] == "precision@10"
    assert describe_convention("trec_eval", "precision@10")["metric"] == "precision@10"
    assert describe_convention("trec_eval", "ndcg_cut_5")["metric"] == "ndcg@5"
    burges = describe_convention("ranx", "ndcg_burges@10")
    assert burges["metric"] == "ndcg@10" and burges["keywords"]["gain"] == "exponential"
    assert describe_convention("ranx", "ndcg@10")["keywords"]["gain"] == "linear"


def test_peer_options_in_call_syntax_and_as_arguments_agree():
    a = describe_convention("rectools", "MAP(divide_by_k=True)@10")
    b = describe_convention("rectools", "MAP@10", divide_by_k=True)
    assert a["keywords"] == b["keywords"] and a["keywords"]["denominator"] == "k"
    assert describe_convention("ir_measures", "AP(rel=2)")["keywords"]["relevance_level"] == 2
    assert describe_convention("ranx", "map@10-l2")["keywords"]["relevance_level"] == 2


@pytest.mark.parametrize("peer, metric", [
    ("sklearn", "precision@10"),      # scikit-learn has no ranking precision
    ("recbole", "rprec"),
    ("ranx", "bpref"),                # ranx has bpref; the preset does not cover it
    ("rectools", "ndcg"),             # RecTools needs a cut-off
    ("trec_eval", "recip_rank@10"),   # trec_eval's recip_rank has none
])
def test_a_metric_the_peer_does_not_define_is_refused(peer, metric, tables):
    recs, truth = tables
    with pytest.raises(ValueError, match=peer):
        evaluate(recs, truth, [metric], convention=peer)


def test_unknown_peer_and_option_are_refused(tables):
    recs, truth = tables
    with pytest.raises(ValueError, match="unknown convention"):
        evaluate(recs, truth, ["mrr"], convention="elliot")
    with pytest.raises(TypeError, match="convention"):
        evaluate(recs, truth, ["mrr"], convention=3)
    with pytest.raises(ValueError, match="no option"):
        describe_convention("rectools", "MAP@10", divide_by=True)
    with pytest.raises(ValueError, match="option=value"):
        evaluate(recs, truth, ["MAP(True)@10"], convention="rectools")


def test_a_contradicting_keyword_is_refused(tables):
    recs, truth = tables
    with pytest.raises(ValueError, match=r"ranx.*ties='item_desc'.*ties='input'"):
        evaluate(recs, truth, ["mrr"], convention="ranx", ties="input")
    with pytest.raises(ValueError, match="log_base"):
        evaluate(recs, truth, ["ndcg@3"], convention="trec_eval", log_base=10)
    # the same value as the preset is no contradiction
    out = evaluate(recs, truth, ["mrr"], convention="ranx", ties="item_desc",
                   missing="zero")
    assert list(out.columns) == ["mrr"]


def test_a_peer_option_keyword_is_applied(tables):
    recs, truth = tables
    out = evaluate(recs, truth, ["P_1", "P_2"], convention="trec_eval", relevance_level=2)
    plain = evaluate(recs, truth, ["precision@1", "precision@2"], relevance_level=2,
                     missing="skip")
    np.testing.assert_array_equal(out.to_numpy(), plain.to_numpy())
    assert out.attrs["convention"]["metrics"]["P_1"]["keywords"]["relevance_level"] == 2


def test_result_reports_the_keywords_and_equals_plain_evaluate(tables):
    recs, truth = tables
    out = evaluate(recs, truth, ["mrr", "ndcg@3", "ndcg_burges@3"], convention="ranx")
    assert list(out.columns) == ["mrr", "ndcg@3", "ndcg_burges@3"]
    report = out.attrs["convention"]
    assert report["peer"] == "ranx" and report["peer_version"] == PEERS["ranx"][0]
    assert report["metrics"]["ndcg_burges@3"]["keywords"]["gain"] == "exponential"
    assert "ranx/metrics/ndcg.py" in report["metrics"]["ndcg@3"]["source"]
    assert report["metrics"]["mrr"]["ties_reproducible"] is False
    linear = evaluate(recs, truth, ["mrr", "ndcg@3"], missing="zero")
    expo = evaluate(recs, truth, ["ndcg@3"], missing="zero", gain="exponential")
    np.testing.assert_array_equal(out["mrr"], linear["mrr"])
    np.testing.assert_array_equal(out["ndcg@3"], linear["ndcg@3"])
    np.testing.assert_array_equal(out["ndcg_burges@3"], expo["ndcg@3"])
    # the trec_eval preset leaves out the judged user without a list (as pytrec_eval;
    # trec_eval 10.0 without -c stops with exit 4), ranx scores it 0
    assert 4 in out.index
    assert 4 not in evaluate(recs, truth, ["mrr"], convention="trec_eval").index


def test_pytrec_eval_compares_scores_in_float32():
    # two scores equal in float32 but not in float64: pytrec_eval ties them and then
    # orders by id as text, descending ("2" before "10")
    recs = pd.DataFrame({"user": 1, "item": [10, 2], "score": [1.0 + 1e-12, 1.0]})
    truth = pd.DataFrame({"user": [1], "item": [10], "relevance": [1]})
    trec = evaluate(recs, truth, ["mrr"], convention="trec_eval")
    py = evaluate(recs, truth, ["mrr"], convention="pytrec_eval")
    assert trec["mrr"].iloc[0] == 1.0 and py["mrr"].iloc[0] == 0.5
    assert recs["score"].iloc[0] == 1.0 + 1e-12   # the input is not changed


def test_inputs_are_not_mutated(tables):
    recs, truth = tables
    before = recs.copy(), truth.copy()
    evaluate(recs, truth, ["mrr", "ndcg@2"], convention="pytrec_eval")
    evaluate(recs, truth, ["mrr", "ndcg_burges@2"], convention="ranx")
    pd.testing.assert_frame_equal(recs, before[0])
    pd.testing.assert_frame_equal(truth, before[1])


def test_the_per_peer_metric_list_is_resolvable():
    for peer in PEERS:
        for name in convention_metrics(peer):
            entry = ml.conventions._preset(peer)
            assert any(name in e.names for e in entry.metrics)


def test_dask_input_is_refused_with_a_pointer():
    dd = pytest.importorskip("dask.dataframe")
    recs = dd.from_pandas(pd.DataFrame({"user": [1], "item": [1], "score": [1.0]}),
                          npartitions=1)
    truth = pd.DataFrame({"user": [1], "item": [1], "relevance": [1]})
    with pytest.raises(TypeError, match="describe_convention"):
        evaluate(recs, truth, ["mrr"], convention="ranx")


@pytest.mark.parametrize("backend", ["polars", "pyarrow"])
def test_polars_and_arrow_input_is_refused_with_a_pointer(backend):
    # evaluate accepts Polars and Arrow tables; the presets do not, and say what to do
    module = pytest.importorskip(backend)
    frame = pd.DataFrame({"user": [1], "item": [1], "score": [1.0]})
    recs = module.from_pandas(frame) if backend == "polars" else module.Table.from_pandas(frame)
    truth = pd.DataFrame({"user": [1], "item": [1], "relevance": [1]})
    with pytest.raises(TypeError, match="Polars, Arrow or Dask.*describe_convention"):
        evaluate(recs, truth, ["mrr"], convention="ranx")


PER_LIST = {"precision": ml.precision_at_k, "recall": ml.recall_at_k, "hit": ml.hit_at_k,
            "mrr": ml.reciprocal_rank, "map": ml.average_precision, "ndcg": ml.ndcg_at_k}


@pytest.mark.parametrize("peer", ["trec_eval", "ranx", "recommenders", "rectools",
                                  "recbole", "torchmetrics", "ir_measures"])
@pytest.mark.parametrize("seed", range(6))
def test_per_list_convention_equals_evaluate(peer, seed):
    """Per-list function with convention= = evaluate with convention=, one user."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    items = [int(i) for i in rng.choice(30, size=n, replace=False)]
    judged = [int(i) for i in rng.choice(30, size=int(rng.integers(1, 8)), replace=False)]
    grades = {i: int(rng.integers(0, 4)) for i in judged}
    if not any(g >= 1 for g in grades.values()):
        grades[judged[0]] = 2
    recs = pd.DataFrame({"user": 1, "item": items, "score": np.arange(n, 0, -1.0)})
    truth = pd.DataFrame({"user": 1, "item": list(grades),
                          "relevance": list(grades.values())})
    for kind, function in PER_LIST.items():
        for k in (None, 1, 3, 10):
            name = kind if k is None else f"{kind}@{k}"
            try:
                described = describe_convention(peer, name)
            except ValueError:  # the peer has no such metric, or not with this cut-off
                with pytest.raises(ValueError):
                    function(items, grades, k, convention=peer)
                continue
            got = function(items, grades, k, convention=peer)
            want = evaluate(recs, truth, [name], convention=peer)[name].iloc[0]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-12, nan_ok=True), \
                (peer, name, described["keywords"])


def test_per_list_refusals():
    ranking, grades = ["a", "x", "b"], {"a": 3, "b": 1, "c": 2}
    with pytest.raises(ValueError, match="sklearn"):
        ml.precision_at_k(ranking, grades, 3, convention="sklearn")
    with pytest.raises(ValueError, match="log_base=10 contradicts"):
        ml.ndcg_at_k(ranking, grades, 3, convention="ranx", log_base=10)
    with pytest.raises(ValueError, match="cut-off"):
        ml.ndcg_at_k(ranking, grades, None, convention="rectools")
    # RecTools' default NDCG: binary gain, an ideal of k relevant items
    assert ml.ndcg_at_k(ranking, grades, 3, convention="rectools") == \
        ml.ndcg_at_k(ranking, grades, 3, gain="binary", ideal="k")
    # a peer option: RecTools MAP(divide_by_k=True) is denominator="k"
    assert ml.average_precision(ranking, grades, 3, convention="rectools",
                                denominator="k") == \
        ml.average_precision(ranking, grades, 3, denominator="k")


def test_per_list_sklearn_convention_with_scores_equals_sklearn():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(5)
    for _ in range(30):
        n = int(rng.integers(2, 9))
        items = [f"i{j}" for j in range(n)]
        scores = [float(x) for x in rng.integers(0, 3, n)]      # many ties
        grades = {item: int(g) for item, g in zip(items, rng.integers(0, 4, n))}
        grades["unlisted"] = 3                                   # not a candidate
        y_true = np.array([[grades[i] for i in items]], dtype=float)
        y_score = np.array([scores])
        got = ml.ndcg_at_k(items, grades, None, scores=scores, convention="sklearn")
        if y_true.sum() > 0:
            assert got == pytest.approx(sklearn_metrics.ndcg_score(y_true, y_score),
                                        abs=1e-12)
        got_ap = ml.average_precision(items, grades, None, scores=scores,
                                      convention="sklearn")
        if (y_true > 0).any():
            assert got_ap == pytest.approx(
                sklearn_metrics.average_precision_score(y_true[0] > 0, scores), abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
def test_reordered_path_keeps_every_keyword(seed):
    """scores= with ties='input'/'best' re-orders the list, then the keywords apply."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 10))
    items = [f"i{j}" for j in range(n)]
    scores = [float(x) for x in rng.permutation(n)]               # no ties
    order = [items[j] for j in np.argsort(-np.array(scores), kind="stable")]
    grades = {item: int(rng.integers(0, 4)) for item in items if rng.random() < 0.6}
    grades.setdefault("extra", 2)
    for ties in ("input", "best"):
        kw = {"judged_only": True, "truncate": 4}
        assert ml.average_precision(items, grades, 5, scores=scores, ties=ties, **kw) == \
            ml.average_precision(order, grades, 5, **kw)
        kw = {"min_grade": 2, "judged_only": True, "candidates": "recommended"}
        assert ml.ndcg_at_k(items, grades, 5, scores=scores, ties=ties, **kw) == \
            pytest.approx(ml.ndcg_at_k(order, grades, 5, **kw), nan_ok=True)


def test_recommenders_ndcg_keeps_truth_users_without_predictions():
    # Recommenders 1.2.1, recommenders/evaluation/python_evaluation.py: ndcg_at_k merges
    # its hits with the whole rating_true (how="outer") and averages over every user of
    # it, so user 2 (judged, no predictions) scores 0 and counts; precision_at_k,
    # recall_at_k, map_at_k and map divide by the users in both tables (n_users of
    # merge_ranking_true_pred). Run there: ndcg_at_k = (0.6131... + 0) / 2, the others
    # 0.5 (user 1 only).
    recs = pd.DataFrame({"user": [1, 1], "item": [10, 13], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [10, 11, 12], "relevance": [1, 1, 1]})
    out = evaluate(recs, truth, ["ndcg_at_k@2", "precision_at_k@2", "map_at_k@2"],
                   convention="recommenders")
    user1 = (1 / np.log2(2)) / (1 / np.log2(2) + 1 / np.log2(3))   # one hit at rank 1 of 2
    assert out["ndcg_at_k@2"].mean() == pytest.approx(user1 / 2, abs=1e-12)
    assert out.loc[2, "ndcg_at_k@2"] == 0.0
    assert out["precision_at_k@2"].mean() == 0.5 and np.isnan(out.loc[2, "precision_at_k@2"])
    assert out["map_at_k@2"].mean() == 0.5
    assert describe_convention("recommenders", "ndcg_at_k@10")["keywords"]["missing"] == "zero"
    assert describe_convention("recommenders", "precision_at_k@10")["keywords"]["missing"] == "skip"


@pytest.mark.parametrize("peer, name", [
    ("recommenders", "precision_at_k@2"), ("recommenders", "recall_at_k@2"),
    ("recommenders", "map_at_k@2"), ("recommenders", "ndcg_at_k@2"),
    ("rectools", "Precision@2"), ("rectools", "Recall@2"), ("rectools", "HitRate@2"),
    ("rectools", "MRR@2"), ("rectools", "MAP@2"), ("rectools", "NDCG@2"),
    ("recbole", "precision@2"), ("recbole", "hit@2"), ("recbole", "mrr@2"),
    ("recbole", "recall@2"), ("recbole", "ndcg@2")])
def test_every_truth_row_is_relevant_as_in_the_peer(peer, name):
    # Recommenders 1.2.1 (python_evaluation.py, merge_ranking_true_pred: merges on user
    # and item only), RecTools 0.19.0 (rectools/metrics/base.py, merge_reco: user and
    # item only) and RecBole 1.2.1 (general_dataloader.py, FullSortEvalDataLoader:
    # every test interaction is a positive) count a truth row of grade 0 as relevant.
    # Item 9 (grade 0) at rank 1 is then the only hit of user 1, whose two judged
    # items make every metric here 1/2 or 1 and never 0: the preset, given the graded
    # table itself, must see the hit.
    recs = pd.DataFrame({"user": [1, 1, 1], "item": [9, 10, 11], "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1], "item": [9, 12], "relevance": [0, 3]})
    value = evaluate(recs, truth, [name], convention=peer)[name].loc[1]
    hit_only = {"hitrate": 1.0, "hit": 1.0, "mrr": 1.0}
    if name.split("@")[0].lower() in hit_only:
        assert value == 1.0
    elif "ndcg" in name.lower():  # binary gain: 1 / (1 + 1/log2(3))
        assert value == pytest.approx(1 / (1 + 1 / np.log2(3)), abs=1e-12)
    else:
        assert value == 0.5
    kind = {"precision_at_k@2": ml.precision_at_k, "Precision@2": ml.precision_at_k}
    if name in kind:  # the per-list function with the same preset agrees
        assert kind[name]([9, 10, 11], {9: 0, 12: 3}, 2, convention=peer) == 0.5


def test_recommenders_graded_ndcg_reads_the_grades():
    # ndcg_at_k(score_type="raw"/"exp") takes the rating as gain (python_evaluation.py,
    # ndcg_at_k: df_dcg["rel"] = rating or 2**rating - 1): grade 0 adds nothing, and a
    # user whose ratings are all 0 is 0/0 = NaN, left out of the mean
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [9, 12, 5], "score": [3.0, 2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1, 2], "item": [9, 12, 5], "relevance": [0, 3, 0]})
    out = evaluate(recs, truth, ['ndcg_at_k(score_type="raw")@2',
                                 'ndcg_at_k(score_type="exp")@2'], convention="recommenders")
    ideal = 3 / np.log2(2)
    assert out.iloc[0, 0] == pytest.approx((3 / np.log2(3)) / ideal, abs=1e-12)
    assert out.iloc[0, 1] == pytest.approx((7 / np.log2(3)) / (7 / np.log2(2)), abs=1e-12)
    assert out.loc[2].isna().all()


def test_a_grade_column_with_every_row_relevant_is_refused():
    # the presets that count every row read no grade column: a relevance_col= given
    # with them would change which rows count, so it is refused by name
    recs = pd.DataFrame({"user": [1], "item": [9], "score": [1.0]})
    truth = pd.DataFrame({"user": [1], "item": [9], "rating": [0]})
    for peer, name in (("recommenders", "precision_at_k@1"), ("rectools", "Precision@1"),
                       ("recbole", "precision@1")):
        with pytest.raises(ValueError, match="relevance_col"):
            evaluate(recs, truth, [name], convention=peer, relevance_col="rating")
        assert evaluate(recs, truth.drop(columns="rating"), [name],
                        convention=peer)[name].loc[1] == 1.0

def test_table_states_keywords_that_a_cut_off_changes():
    # ir-measures 0.4.3 answers RR with pytrec_eval (float32, trec_eval's order) but
    # RR@k with its msmarco provider (ir_measures/providers/msmarco_provider.py: score
    # descending, then id ascending, float64): the row must not hide that
    table = ml.convention_table()
    row = table[(table.peer == "ir_measures") & (table.peer_metric == "RR")].iloc[0]
    assert "with a cut-off" in row["keywords"] and "ties='item_asc'" in row["keywords"]
    assert describe_convention("ir_measures", "RR@10")["keywords"]["ties"] == "item_asc"
    plain = table[(table.peer == "ranx") & (table.peer_metric == "mrr")].iloc[0]
    assert "cut-off" not in plain["keywords"]
