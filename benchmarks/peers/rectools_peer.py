"""RecTools per-user values: <Metric>(k, ...).calc_per_user(reco, interactions).

Sources (RecTools, rectools/metrics/classification.py Precision, Recall,
HitRate; rectools/metrics/ranking.py MAP, NDCG, MRR; calc_per_user of each).

Input: interactions = ALL truth rows (user_id, item_id, weight = grade 0-3), the
table the preset is given too: RecTools treats every interaction as relevant
whatever its weight (rectools/metrics/base.py merge_reco keeps user and item
only). reco =
(user_id, item_id, rank): RecTools takes RANKS, not scores, so the caller
breaks ties; here rank = position in trec_eval's order (score descending, then
item id as text descending), the order of corpus/recommendations_untied.csv.
Ties are therefore reproducible by construction (``ties="item_desc"`` on the
tied corpus).
"""
from __future__ import annotations

import json
from importlib.metadata import version

import pandas as pd
from rectools import Columns
from rectools import metrics as M

from _common import KS, SCORES, Golden, load_recs, load_truth, trec_order

PEER = "rectools"


def metrics():
    out = []
    for k in KS:
        out += [("Precision", M.Precision(k), k, {}),
                ("Precision", M.Precision(k, r_precision=True), k, {"r_precision": True}),
                ("Recall", M.Recall(k), k, {}),
                ("HitRate", M.HitRate(k), k, {}),
                ("MRR", M.MRR(k), k, {}),
                ("MAP", M.MAP(k), k, {}),
                ("MAP", M.MAP(k, divide_by_k=True), k, {"divide_by_k": True}),
                ("NDCG", M.NDCG(k), k, {}),
                ("NDCG", M.NDCG(k, divide_by_achievable=True), k, {"divide_by_achievable": True})]
    return out


def main() -> None:
    truth = load_truth()
    g = Golden(PEER, version("rectools"), "RecTools rectools/metrics/classification.py "
               "(Precision, Recall, HitRate) and rectools/metrics/ranking.py (MAP, NDCG, MRR), "
               "calc_per_user", extra={"pandas": pd.__version__})
    inter = pd.DataFrame([(u, i, float(gr)) for u, d in truth.items() for i, gr in d.items()],
                         columns=[Columns.User, Columns.Item, Columns.Weight])
    for scores in SCORES:
        recs = load_recs(scores)
        rows = [(u, i, r + 1) for u, lst in recs.items() for r, (i, _s) in enumerate(trec_order(lst))]
        reco = pd.DataFrame(rows, columns=[Columns.User, Columns.Item, Columns.Rank])
        for name, m, k, opt in metrics():
            per_user = m.calc_per_user(reco, inter)
            for u, v in per_user.items():
                g.add(scores, name, opt, k, int(u), v)
    for (metric, opt, k) in list(g.entries):
        g.note(metric, json.loads(opt), int(k) if k else None,
               ties="RecTools takes ranks; the ranks given are trec_eval's order (score "
                    "descending, then item id as text descending); reproducible",
               ties_reproducible=True,
               note="Every interaction is relevant, grade 0 included (binary; NDCG too). Which users get a value is "
                    "RecTools' choice: see users_left_out. NDCG's default ideal is k relevant "
                    "items whatever |R| (divide_by_achievable=False).")
    g.write()


if __name__ == "__main__":
    main()
