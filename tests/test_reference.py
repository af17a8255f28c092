"""metrics_lib against independent implementations: trec_eval and scikit-learn.

trec_eval is reached through pytrec_eval (the pytrec-eval-terrier build). The
cases are seeded random runs with graded relevance and tied scores; the run is
turned into a ranked list with trec_eval's own rule (score descending, then
document id descending), so ties are covered too.
"""

import numpy as np
import pytest
import pytrec_eval
from sklearn import metrics as skm

import metrics_lib as ml

N_CASES = 250
CUTOFFS = (1, 3, 5, 10)
MEASURES = {"map", "recip_rank", "ndcg"} | {
    f"{name}_{k}" for name in ("P", "recall", "map_cut", "ndcg_cut") for k in CUTOFFS}


def random_case(rng):
    pool = [f"d{n:02d}" for n in range(40)]
    judged = rng.choice(pool, size=rng.integers(1, 15), replace=False)
    qrels = {str(doc): int(rng.integers(0, 4)) for doc in judged}
    retrieved = rng.choice(pool, size=rng.integers(1, 25), replace=False)
    # scores on a coarse grid, so that ties are common
    run = {str(doc): float(rng.integers(0, 8)) / 4 for doc in retrieved}
    return qrels, run


def trec_order(run):
    """trec_eval's ranking: score descending, ties by document id descending."""
    return [doc for doc, _ in sorted(run.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)]


@pytest.fixture(scope="module")
def cases():
    rng = np.random.default_rng(20261123)
    qrels, runs = {}, {}
    for n in range(N_CASES):
        qrels[f"q{n}"], runs[f"q{n}"] = random_case(rng)
    results = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(runs)
    return qrels, runs, results


def test_enough_cases_with_ties_and_empty_queries(cases):
    qrels, runs, results = cases
    assert len(results) == N_CASES
    with_ties = sum(len(set(run.values())) < len(run) for run in runs.values())
    without_relevant = sum(all(g == 0 for g in q.values()) for q in qrels.values())
    assert with_ties > N_CASES // 2
    assert without_relevant > 0


@pytest.mark.parametrize("k", CUTOFFS)
def test_cutoff_measures_match_trec_eval(cases, k):
    qrels, runs, results = cases
    for qid, expected in results.items():
        ranking = trec_order(runs[qid])
        ours = {
            f"P_{k}": ml.precision_at_k(ranking, qrels[qid], k=k),
            f"recall_{k}": ml.recall_at_k(ranking, qrels[qid], k=k),
            f"map_cut_{k}": ml.average_precision(ranking, qrels[qid], k=k),
            f"ndcg_cut_{k}": ml.ndcg_at_k(ranking, qrels[qid], k=k),
        }
        for measure, value in ours.items():
            assert value == pytest.approx(expected[measure], abs=1e-9), (qid, measure)


def test_whole_list_measures_match_trec_eval(cases):
    qrels, runs, results = cases
    for qid, expected in results.items():
        ranking = trec_order(runs[qid])
        assert ml.average_precision(ranking, qrels[qid]) == pytest.approx(expected["map"], abs=1e-9)
        assert ml.reciprocal_rank(ranking, qrels[qid]) == pytest.approx(expected["recip_rank"], abs=1e-9)
        assert ml.ndcg_at_k(ranking, qrels[qid]) == pytest.approx(expected["ndcg"], abs=1e-9)


def test_mean_average_precision_matches_trec_eval_mean(cases):
    qrels, runs, results = cases
    qids = sorted(results)
    ours = ml.mean_average_precision([trec_order(runs[q]) for q in qids], [qrels[q] for q in qids])
    assert ours == pytest.approx(np.mean([results[q]["map"] for q in qids]), abs=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_ndcg_matches_sklearn_without_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 30))
    grades = rng.integers(0, 5, size=n).astype(float)
    scores = rng.permutation(n).astype(float)  # distinct: no ties
    k = int(rng.integers(1, n + 1))
    items = [f"i{j}" for j in range(n)]
    ranking = [items[j] for j in np.argsort(-scores)]
    judged = dict(zip(items, grades))
    expected = skm.ndcg_score([grades], [scores], k=k)
    assert ml.ndcg_at_k(ranking, judged, k=k) == pytest.approx(expected, abs=1e-9)
    expected_dcg = skm.dcg_score([grades], [scores], k=k)
    assert ml.dcg_at_k(ranking, judged, k=k) == pytest.approx(expected_dcg, abs=1e-9)


@pytest.mark.parametrize("seed", range(40))
def test_roc_auc_matches_sklearn_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 200))
    labels = rng.integers(0, 2, size=n)
    labels[0], labels[-1] = 0, 1  # both classes present
    scores = rng.integers(0, 10, size=n) / 10
    assert ml.roc_auc(labels, scores) == pytest.approx(skm.roc_auc_score(labels, scores), abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_rating_errors_match_sklearn(seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, size=50).astype(float)
    pred = truth + rng.normal(0, 1, size=50)
    assert ml.rmse(truth, pred) == pytest.approx(skm.root_mean_squared_error(truth, pred), abs=1e-12)
    assert ml.mae(truth, pred) == pytest.approx(skm.mean_absolute_error(truth, pred), abs=1e-12)


@pytest.mark.parametrize("seed", range(20))
def test_classification_matches_sklearn(seed):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, size=60)
    pred = rng.integers(0, 2, size=60)
    tn, fp, fn, tp = skm.confusion_matrix(truth, pred, labels=[0, 1]).ravel()
    assert tuple(ml.confusion_matrix(truth, pred)) == (tn, fp, fn, tp)
    assert ml.accuracy(truth, pred) == pytest.approx(skm.accuracy_score(truth, pred))
    assert ml.precision(truth, pred) == pytest.approx(skm.precision_score(truth, pred, zero_division=0))
    assert ml.recall(truth, pred) == pytest.approx(skm.recall_score(truth, pred, zero_division=0))
    assert ml.f1_score(truth, pred) == pytest.approx(skm.f1_score(truth, pred, zero_division=0))
