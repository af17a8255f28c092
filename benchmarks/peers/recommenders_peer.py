"""Microsoft Recommenders per-user values: recommenders/evaluation/python_evaluation.py
(precision_at_k, recall_at_k, r_precision_at_k, ndcg_at_k, map_at_k, map),
called on ONE user's rows at a time (the functions return a mean over users).

Input: rating_pred = the user's recommendations (userID, itemID, prediction);
rating_true = ALL the user's truth rows (userID, itemID, rating = grade 0-3), the
table the preset is given too: Recommenders treats every rating_true row as
relevant, grade 0 included (merge_ranking_true_pred merges on user and item
only), and ndcg_at_k's score_type="raw"/"exp" take the rating as the gain
(a user whose ratings are all 0 then has an ideal DCG of 0: NaN). Ranking: get_top_k_items, sort_values([user, prediction],
ascending=[True, False]) then cumcount: pandas' multi-key sort is stable, so
tied scores keep the input (file) order: reproducible (``ties="input"``).

Users are scored only when they have both predictions and truth rows
(merge_ranking_true_pred keeps the common users; called on a user outside that
set the functions return 0.0, which is not a per-user value, so no row). A
user with no hit gets 0.0 (the ``df_hit.shape[0] == 0`` guard); in a mean over
many users r_precision_at_k and ndcg_at_k treat such users differently
(r_precision_at_k averages over users with a hit; ndcg_at_k's outer merge with
rating_true keeps every truth user), which per-user values cannot show.
relevancy_method="by_threshold" uses ``threshold`` (default 10) as the number
of top items, whatever k is (merge_ranking_true_pred: ``top_k = threshold``).
"""
from __future__ import annotations

import json
from importlib.metadata import version

import pandas as pd
from recommenders.evaluation import python_evaluation as pe

from _common import KS, SCORES, Golden, load_recs, load_truth

PEER = "recommenders"


def configs():
    out = []
    for k in KS:
        for rm in ("top_k", "by_threshold"):
            base = {"relevancy_method": rm}
            out += [("precision_at_k", pe.precision_at_k, k, base),
                    ("recall_at_k", pe.recall_at_k, k, base),
                    ("map_at_k", pe.map_at_k, k, base),
                    ("ndcg_at_k", pe.ndcg_at_k, k, base)]
        out += [("r_precision_at_k", pe.r_precision_at_k, k, {"relevancy_method": "top_k"}),
                ("map", pe.map, k, {"relevancy_method": "top_k"}),
                ("ndcg_at_k", pe.ndcg_at_k, k, {"relevancy_method": "top_k", "score_type": "raw"}),
                ("ndcg_at_k", pe.ndcg_at_k, k, {"relevancy_method": "top_k", "score_type": "exp"})]
    return out


def main() -> None:
    truth = load_truth()
    g = Golden(PEER, version("recommenders"), "recommenders "
               "recommenders/evaluation/python_evaluation.py (one call per user)",
               extra={"pandas": pd.__version__})
    cfg = configs()
    for scores in SCORES:
        recs = load_recs(scores)
        for u, rows in recs.items():
            rel = truth.get(u, {})  # every grade, 0 included: the preset's table
            if not rel:
                continue
            pred = pd.DataFrame({"userID": u, "itemID": [i for i, _ in rows],
                                 "prediction": [s for _, s in rows]})
            true = pd.DataFrame({"userID": u, "itemID": list(rel), "rating": list(rel.values())})
            for name, fn, k, opt in cfg:
                v = fn(true, pred, k=k, **opt)
                g.add(scores, name, opt, k, u, v)
    for (metric, opt, k) in list(g.entries):
        g.note(metric, json.loads(opt), int(k) if k else None,
               ties="input: get_top_k_items sorts with pandas sort_values on [user, prediction] "
                    "(stable lexsort), so tied scores keep the file order; reproducible",
               ties_reproducible=True,
               note="One call per user on all its truth rows (grades 0-3); users without "
                    "predictions or without truth rows are left out (the functions return 0.0 for them, not a value). A user with "
                    "no hit gets 0.0. r_precision_at_k is NaN for a user whose hits all lie "
                    "below rank |R| (an empty groupby divided by the user's count), and such "
                    "users drop out of its mean. ndcg_at_k default score_type='binary', discfun 'loge' "
                    "(cancels in the ratio). by_threshold: threshold=10 items, whatever k.")
    g.write()
    write_means(truth)


def write_means(truth) -> None:
    """golden/recommenders_means.csv: each function called ONCE on the whole tables.

    That is how Recommenders is used, and what its means are made of: which users
    count (precision_at_k, recall_at_k, map: the n_users common to both tables;
    ndcg_at_k: every user of rating_true, those without predictions at 0) and
    which are NaN and left out (r_precision_at_k; ndcg_at_k's raw/exp users whose
    ratings are all 0) cannot be seen in per-user calls.
    """
    import csv

    true = pd.DataFrame([(u, i, gr) for u, d in truth.items() for i, gr in d.items()],
                        columns=["userID", "itemID", "rating"])
    rows = []
    for scores in SCORES:
        pred = pd.DataFrame([(u, i, s) for u, lst in load_recs(scores).items()
                             for i, s in lst], columns=["userID", "itemID", "prediction"])
        for name, fn, k, opt in configs():
            value = float(fn(true, pred, k=k, **opt))
            rows.append([scores, name, json.dumps(opt, sort_keys=True), k, repr(value)])
    from _common import HERE
    with open(HERE / "golden" / "recommenders_means.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["scores", "metric", "options", "k", "value"])
        w.writerows(rows)
    print(f"recommenders means: {len(rows)} rows")


if __name__ == "__main__":
    main()
