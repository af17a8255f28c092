"""evaluate's shortcuts give the numbers of the long way round.

Two shortcuts: input already grouped by user and in rank order is detected
and not sorted (``in_block_order``), and the (user, item) join sorts each
user's recommended and judged items together in one row of a matrix
(``_join_in_rows``) instead of a binary search over all rows. A wrong
detection would rank some rows wrongly without any error, and a wrong join
would lose or invent hits: these tests compare with shuffled input, with
the per-list functions and with the binary-search join.
"""

import sys

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib import _kernels, evaluate
from metrics_lib.evaluate import TIES

keys_module = sys.modules["metrics_lib.batch.keys"]
scoring_module = sys.modules["metrics_lib.batch.scoring"]
chunks_module = sys.modules["metrics_lib.batch.chunks"]
METRICS = ["mrr", "map", "ndcg", "ndcg@3", "precision@2", "recall@3"]


def text(item):
    """trec_eval's tie key: the id as text, compared as UTF-8 bytes."""
    return str(item).encode("utf-8")


def rank_order(recs, ties):
    """The rows of ``recs`` grouped by user and in rank order, in Python."""
    rows = list(recs[["user", "item", "score"]].itertuples(index=False, name=None))
    position = {row: i for i, row in enumerate(rows)}
    if ties == "item_desc":
        rows.sort(key=lambda r: (r[2], text(r[1])), reverse=True)
    elif ties == "item_asc":
        rows.sort(key=lambda r: text(r[1]))
        rows.sort(key=lambda r: -r[2])
    elif ties == "numeric_desc":
        rows.sort(key=lambda r: (r[2], r[1]), reverse=True)
    elif ties == "numeric_asc":
        rows.sort(key=lambda r: r[1])
        rows.sort(key=lambda r: -r[2])
    else:  # "input": the row order among equal scores
        rows.sort(key=lambda r: (-r[2], position[r]))
    rows.sort(key=lambda r: r[0])  # stable: users grouped, rank order kept
    return pd.DataFrame(rows, columns=["user", "item", "score"])


def tied_tables(seed, n_users=40):
    """Lists of 1-12 items with few distinct scores (many ties), ids 1-30.

    Ids up to 30 make the text order of the ids ("9" > "10") differ from
    their numeric order, so every tie rule gives a different ranking.
    """
    rng = np.random.default_rng(seed)
    rec_rows, truth_rows = [], []
    for user in range(n_users):
        items = rng.choice(np.arange(1, 31), size=int(rng.integers(1, 13)), replace=False)
        scores = rng.integers(0, 3, size=items.size) / 2
        rec_rows += [(user, int(i), float(s)) for i, s in zip(items, scores)]
        judged = rng.choice(np.arange(1, 31), size=int(rng.integers(1, 8)), replace=False)
        truth_rows += [(user, int(i), int(g)) for i, g in
                       zip(judged, rng.integers(0, 4, size=judged.size))]
    return (pd.DataFrame(rec_rows, columns=["user", "item", "score"]),
            pd.DataFrame(truth_rows, columns=["user", "item", "relevance"]))


def per_list(ranked, truth, metric):
    """The per-list value of every judged user, from rows in rank order."""
    kind, k = ml.parse_metric(metric)
    function = {"rr": ml.reciprocal_rank, "ap": ml.average_precision,
                "ndcg": ml.ndcg_at_k, "precision": ml.precision_at_k,
                "recall": ml.recall_at_k}[kind]
    return pd.Series({user: function(list(ranked.loc[ranked["user"] == user, "item"]),
                                     dict(zip(judged["item"], judged["relevance"])), k)
                      for user, judged in truth.groupby("user")})


@pytest.fixture
def sorts(monkeypatch):
    """Calls of the in-block sort made by the last evaluate calls (a spy)."""
    calls = []
    original = keys_module.segment_argsort

    def spy(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(keys_module, "segment_argsort", spy)
    return calls


@pytest.mark.parametrize("ties", TIES)
@pytest.mark.parametrize("seed", range(4))
def test_sorted_input_costs_no_sort_and_gives_the_shuffled_result(seed, ties, sorts):
    recs, truth = tied_tables(seed)
    ranked = rank_order(recs, ties)
    shuffled = ranked.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    if ties == "input":  # the row order is the tie rule: shuffle only the users
        shuffled = ranked
    expected = evaluate(shuffled, truth, METRICS, ties=ties)
    sorts.clear()
    got = evaluate(ranked, truth, METRICS, ties=ties)
    assert sorts == [], "rows already in rank order were sorted again"
    pd.testing.assert_frame_equal(got, expected)
    for metric in METRICS:
        np.testing.assert_allclose(got[metric].to_numpy(),
                                   per_list(ranked, truth, metric).to_numpy(),
                                   rtol=1e-12, atol=1e-12, err_msg=metric)


def _swap(frame, at):
    """``frame`` with rows ``at`` and ``at + 1`` exchanged."""
    order = np.arange(len(frame))
    order[[at, at + 1]] = order[[at + 1, at]]
    return frame.iloc[order].reset_index(drop=True)


@pytest.mark.parametrize("ties", [t for t in TIES if t != "input"])
@pytest.mark.parametrize("seed", range(4))
def test_one_pair_out_of_order_is_detected(seed, ties, sorts):
    """Sorted input but for one neighbour pair inside one user: found and fixed.

    Every pair of neighbours of one user is swapped in turn, tied or not; each
    swap must be noticed (one sort) and give the values of the sorted input.
    """
    recs, truth = tied_tables(seed, n_users=12)
    ranked = rank_order(recs, ties)
    expected = evaluate(ranked, truth, METRICS, ties=ties)
    users = ranked["user"].to_numpy()
    inside = np.flatnonzero(users[1:] == users[:-1])
    assert inside.size
    for at in inside:
        sorts.clear()
        got = evaluate(_swap(ranked, at), truth, METRICS, ties=ties)
        assert sorts, f"rows {at} and {at + 1} out of order, not detected ({ties})"
        pd.testing.assert_frame_equal(got, expected, obj=f"swap at row {at}")


def test_numeric_order_is_not_trec_evals_text_order(sorts):
    """Equal scores sorted by id as numbers (10 before 9) are out of text order."""
    recs = pd.DataFrame({"user": [1] * 4, "item": [10, 9, 2, 1],
                         "score": [0.5, 0.5, 0.5, 0.1]})
    truth = pd.DataFrame({"user": [1], "item": [10], "relevance": [1]})
    got = evaluate(recs, truth, ["mrr"])
    assert sorts, "ids in numeric order were taken for trec_eval's text order"
    # text order, descending: "9" > "2" > "10", so item 10 is third
    assert got.loc[1, "mrr"] == pytest.approx(1 / 3)
    sorts.clear()
    assert evaluate(recs, truth, ["mrr"], ties="numeric_desc").loc[1, "mrr"] == 1.0
    assert sorts == []


def test_users_in_blocks_but_not_in_id_order_need_no_sort(sorts):
    """Grouping is detected on any order of the user blocks, with 64-bit ids."""
    recs, truth = tied_tables(5)
    ranked = rank_order(recs, "item_desc")
    big = np.int64(2**62)
    ranked["user"] = big - ranked["user"] * 7     # blocks in decreasing id order
    truth = truth.assign(user=big - truth["user"] * 7)
    got = evaluate(ranked, truth, METRICS)
    assert sorts == []
    expected = evaluate(ranked.sample(frac=1.0, random_state=0), truth, METRICS)
    pd.testing.assert_frame_equal(got, expected)


# -- the join: one sort per user of both sides, against the binary search -------

def _join_cases(seed):
    """Random block layouts: equal and ragged lists, users without lists,
    duplicates on either side, item keys from 3 to 2**40 values."""
    rng = np.random.default_rng(seed)
    n_blocks = int(rng.integers(1, 30))
    if rng.random() < 0.5:
        lengths = np.full(n_blocks, int(rng.integers(1, 9)), dtype=np.int64)
    else:
        lengths = rng.integers(0, 9, size=n_blocks).astype(np.int64)
    n = int(lengths.sum())
    span = int(rng.choice([3, 50, 10**6, 2**40]))
    distinct = rng.random() < 0.8
    item_key = np.concatenate(
        [rng.choice(min(span, 10**6), size=length, replace=False)
         if distinct and length <= min(span, 10**6)
         else rng.integers(0, span, size=length)
         for length in lengths] + [np.zeros(0, dtype=np.int64)]).astype(np.int64)
    m = int(rng.integers(0, 4 * n_blocks + 1))
    truth_code = rng.integers(0, n_blocks + int(rng.integers(0, 4)), size=m).astype(np.int64)
    from_list = rng.random(m) < 0.5
    truth_item = np.where(from_list & (n > 0), item_key[rng.integers(0, max(n, 1), size=m)]
                          if n else 0, rng.integers(0, span, size=m)).astype(np.int64)
    if rng.random() < 0.5:  # judgements grouped by user, as files usually are
        order = np.argsort(truth_code, kind="stable")
        truth_code, truth_item = truth_code[order], truth_item[order]
    grades = rng.integers(0, 4, size=m).astype(np.float64)
    return item_key, lengths, truth_code, truth_item, grades


@pytest.mark.parametrize("seed", range(300))
def test_row_join_equals_binary_search_join(seed, monkeypatch):
    case = _join_cases(seed)
    chunk = [1, 7, 64, 1 << 17][seed % 4]  # several chunks of users, or one
    monkeypatch.setattr(_kernels, "_JOIN_CHUNK", chunk)
    fast = _kernels.lookup_grades(*case)
    monkeypatch.setattr(_kernels, "_PAD_FACTOR", 0)  # no matrix: binary search
    slow = _kernels.lookup_grades(*case)
    item_key, lengths = case[0], case[1]
    assert (fast[2] >= 0) == (slow[2] >= 0)
    if fast[2] >= 0:  # the same (user, item) pair is named
        starts = np.r_[0, np.cumsum(lengths)]
        block = [int(np.searchsorted(starts, row, side="right")) for row in (fast[2], slow[2])]
        assert block[0] == block[1] and item_key[fast[2]] == item_key[slow[2]]
        return
    assert fast[3] == slow[3]
    if fast[3] < 0:
        np.testing.assert_array_equal(fast[0], slow[0])
        np.testing.assert_array_equal(fast[1], slow[1])


def test_row_join_is_taken_for_a_top_k_table(monkeypatch):
    """The benchmark's shape (equal lists) goes through the matrix join."""
    calls = []
    original = _kernels._join_in_rows

    def spy(*args):
        result = original(*args)
        calls.append(result is not None)
        return result

    monkeypatch.setattr(_kernels, "_join_in_rows", spy)
    recs, truth = tied_tables(2)
    recs = recs.groupby("user").head(1)  # one item each: equal lengths
    evaluate(recs, truth, ["mrr"])
    assert calls == [True]


@pytest.mark.parametrize("grouped_truth", [True, False])
def test_chunks_of_users_in_one_thread_change_nothing(grouped_truth, monkeypatch):
    """Large inputs are scored in chunks of users even with n_jobs=1."""
    recs, truth = tied_tables(9, n_users=60)
    truth = pd.concat([truth, pd.DataFrame({"user": [500, 501], "item": [1, 2],
                                            "relevance": [1, 0]})])  # never recommended
    if not grouped_truth:
        truth = truth.sample(frac=1.0, random_state=3)
    truth = truth.reset_index(drop=True)
    whole = evaluate(recs, truth, METRICS)
    calls = []
    original = scoring_module._score_chunk
    monkeypatch.setattr(scoring_module, "_score_chunk",
                        lambda *a, **k: calls.append(1) or original(*a, **k))
    monkeypatch.setattr(chunks_module, "_ROWS_PER_CHUNK", 25)
    chunked = evaluate(recs, truth, METRICS)
    assert len(calls) > 5
    pd.testing.assert_frame_equal(chunked, whole, check_exact=True)
    # the first duplicate in user order is still the one named
    twice = pd.concat([recs, recs.iloc[[len(recs) - 1, 3]]], ignore_index=True)
    with pytest.raises(ValueError, match=f"twice for user {recs['user'].iloc[3]}"):
        evaluate(twice, truth, METRICS)


# -- the result table: columns taken without a copy, sorted only when needed --

def test_result_columns_never_share_memory():
    # the value arrays become the table's columns without a copy; two that
    # overlap must be copied, or writing one column would change the other
    from metrics_lib.batch.result import _result_frame
    values = np.arange(7, dtype=np.float64)
    for ids, order in ((pd.Index([0, 1, 2, 4, 5, 8]), [0, 1, 2, 3, 4, 5]),  # no sort
                       (pd.Index([3, 1, 2, 5, 4, 0]), [5, 1, 2, 0, 4, 3])):
        shared = values.copy()  # the table may keep this array itself
        frame = _result_frame({"a": shared[:6], "b": shared[:6], "c": shared[1:][::-1]},
                              ids, "user")
        a, b, c = (frame[name].to_numpy() for name in "abc")
        assert not (np.shares_memory(a, b) or np.shares_memory(a, c)
                    or np.shares_memory(b, c))
        assert frame.index.tolist() == sorted(ids)
        np.testing.assert_array_equal(a, values[order])
        np.testing.assert_array_equal(b, values[order])
        np.testing.assert_array_equal(c, values[1:][::-1][order])
        frame.iloc[0, 0] = -1.0  # one column written: the others keep their values
        assert frame.iloc[0, 1] == values[order[0]]
        assert frame.iloc[0, 2] == values[1:][::-1][order[0]]


@pytest.mark.parametrize("order", ["sorted", "reversed", "shuffled"])
def test_result_rows_sorted_by_user_and_columns_separate(order):
    rng = np.random.default_rng(7)
    users = np.arange(40) * 3 + 5
    users = {"sorted": users, "reversed": users[::-1],
             "shuffled": rng.permutation(users)}[order]
    recs = pd.DataFrame({"user": np.repeat(users, 6),
                         "item": rng.integers(0, 9, size=(40, 6)).argsort(axis=1).ravel(),
                         "score": np.tile(np.arange(6, 0, -1.0), 40)})
    truth = pd.DataFrame({"user": np.repeat(users, 2), "item": np.tile([0, 4], 40),
                          "relevance": 1})
    metrics = ["ndcg@3", "map", "mrr", "P@3", "recall@3", "num_rel_ret", "hit@2"]
    frame = evaluate(recs, truth, metrics)
    assert frame.index.tolist() == sorted(users.tolist())
    columns = [frame[name].to_numpy() for name in frame.columns]
    for i in range(len(columns)):
        for j in range(i):
            assert not np.shares_memory(columns[i], columns[j])
    # each user's values are those of the user alone
    for user in users[:5]:
        alone = evaluate(recs[recs.user == user], truth[truth.user == user], metrics)
        pd.testing.assert_frame_equal(frame.loc[[user]], alone)


def test_result_with_many_metrics_is_not_fragmented():
    # pandas warns when a column is added to a table of over 100 blocks: the
    # result of many metrics must leave room for the user's own columns (41
    # uncopied metrics and 60 added columns make 101 blocks)
    import warnings
    recs = pd.DataFrame({"user": [1, 1, 2], "item": [1, 2, 1], "score": [2.0, 1.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 2], "item": [2, 1], "relevance": [1, 1]})
    for n in (16, 17, 41, 130):
        frame = evaluate(recs, truth, [f"ndcg@{k}" for k in range(1, n + 1)])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for extra in range(60):
                frame[f"extra{extra}"] = 1.0
        assert frame.shape == (2, n + 60)
        np.testing.assert_allclose(frame["ndcg@1"], [0.0, 1.0])
        np.testing.assert_allclose(frame["ndcg@2"], [1 / np.log2(3), 1.0])
