"""Toy metric of CONTRIBUTING.md: first_hit, per list and in evaluate."""
import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate
from metrics_lib.ranking.first_hit import first_hit_rank


def test_hand_example():
    assert first_hit_rank(["a", "b", "c"], {"c": 1, "d": 2}) == 3.0
    assert first_hit_rank(["a", "b", "c"], {"c": 1}, k=2) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_evaluate_equals_the_per_list_function(seed):
    rng = np.random.default_rng(seed)
    recs = pd.DataFrame({"user": np.repeat(np.arange(20), 6),
                         "item": np.tile(np.arange(6), 20),
                         "score": rng.random(120)})
    truth = recs.sample(40, random_state=seed)[["user", "item"]].assign(
        relevance=rng.integers(0, 3, 40))
    got = evaluate(recs, truth, ["first_hit@4"], missing="skip")["first_hit@4"]
    for user, value in got.items():
        ranked = recs[recs.user == user].sort_values("score", ascending=False).item.tolist()
        grades = dict(zip(truth[truth.user == user].item, truth[truth.user == user].relevance))
        assert value == first_hit_rank(ranked, grades, k=4)
