"""The benchmark workload: many users, a top-100 list each, graded truth.

Built from a seed, so every process that calls :func:`make_workload` gets the
same two DataFrames.
"""

import numpy as np
import pandas as pd

N_ITEMS = 1_000_000   # catalogue size
LIST_LENGTH = 100     # a top-100 list per user
MAX_RELEVANT = 50     # 1..50 judged relevant items per user
SEED = 20260423


def make_workload(n_users: int, seed: int = SEED, shuffle: bool = False):
    """Return ``(recommendations, truth)`` as two pandas DataFrames.

    ``recommendations`` (columns user, item, score: int64, int64, float64)
    holds each user's 100 distinct items in the order a recommender emits
    them: users in blocks, best score first. Scores are continuous and
    distinct within a user even in single precision, so no library's tie
    rule can matter. ``truth`` (user, item, relevance) holds
    1..50 distinct items per user with grades 1..4; each is, with
    probability 1/2, one of the user's 100 recommended items (at a random
    rank) and otherwise an item the list missed. ``shuffle=True`` returns the
    recommendation rows in random order.
    """
    rng = np.random.default_rng(seed)
    users = np.arange(n_users, dtype=np.int64)
    # Distinct items per user: a random start plus a strictly increasing walk.
    base = rng.integers(0, N_ITEMS, size=n_users)
    walk = rng.integers(1, 40, size=(n_users, LIST_LENGTH)).cumsum(axis=1)
    items = (base[:, None] + walk) % N_ITEMS
    # a model lists items in score order, not in id order: shuffle each list
    items = np.take_along_axis(items, np.argsort(rng.random(items.shape), axis=1),
                               axis=1)
    # Decreasing scores, at least 0.005 apart within a user and exact in
    # float32: pytrec_eval compares scores in single precision, and scores
    # closer than float32 resolution would become ties for it only.
    jitter = rng.random((n_users, LIST_LENGTH))
    scores = ((LIST_LENGTH - np.arange(LIST_LENGTH) + 0.5 * jitter) / LIST_LENGTH)
    scores = scores.astype(np.float32).astype(np.float64)
    recs = pd.DataFrame({"user": np.repeat(users, LIST_LENGTH),
                         "item": items.ravel(), "score": scores.ravel()})
    del scores

    # Relevant items: distinct slots among 2 * LIST_LENGTH per user; slot s
    # < 100 is the item at rank s + 1, slot s >= 100 an item past the walk.
    n_rel = rng.integers(1, MAX_RELEVANT + 1, size=n_users)
    slots = np.argsort(rng.random((n_users, 2 * LIST_LENGTH)), axis=1)[:, :MAX_RELEVANT]
    keep = np.arange(MAX_RELEVANT)[None, :] < n_rel[:, None]
    t_user = np.repeat(users, n_rel)
    slot = slots[keep]
    in_list = slot < LIST_LENGTH
    t_item = np.where(in_list, items[t_user, np.minimum(slot, LIST_LENGTH - 1)],
                      (base[t_user] + walk[t_user, -1] + 1 + slot) % N_ITEMS)
    truth = pd.DataFrame({"user": t_user, "item": t_item.astype(np.int64),
                          "relevance": rng.integers(1, 5, size=t_user.size)})
    if shuffle:
        recs = recs.iloc[rng.permutation(len(recs))].reset_index(drop=True)
    return recs, truth
