"""RecBole per-user values: the metric classes' metric_info on the matrix RecBole's
Collector builds.

Sources (RecBole, recbole/evaluator/collector.py Collector.eval_batch_collect
for the input; recbole/evaluator/metrics.py Hit, MRR, MAP, Recall, NDCG,
Precision metric_info for the values; TopkMetric.used_info in
recbole/evaluator/base_metric.py). metric_info returns, per user, the values
at every cut-off 1..max(topk); column k-1 is the value @k (calculate_metric
then averages and rounds: not used here).

Input as the Collector builds it: scores_tensor (users x items, float32; item
0 is RecBole's padding item and gets -inf, as in full-sort evaluation), then
torch.topk(scores_tensor, max(topk)); pos_matrix marks the positive
(user, item) pairs: every truth row, grade 0 included, the table the preset is
given too (RecBole's positives are the test interactions, whatever their rating
or label: recbole/data/dataloader/general_dataloader.py,
FullSortEvalDataLoader.__init__ adds every interaction's item to positive_item);
pos_len = positives per user; pos_index = pos_matrix gathered at
the top-k. Adaptation: RecBole scores every item, our lists are short; items
not recommended get -inf and, when topk reaches into them (lists shorter than
20), they are never counted as hits. torch.topk's order of equal scores is
implementation-defined. Users only in the truth table have an all -inf row
(every metric 0); users with no positive have pos_len 0 (Recall divides by it:
NaN).
"""
from __future__ import annotations

import inspect
import json
import warnings
from importlib.metadata import version

import numpy as np
import torch
from recbole.evaluator import metrics as M

from _common import KS, SCORES, Golden, all_users, load_recs, load_truth

PEER = "recbole"
CLASSES = [("hit", M.Hit), ("mrr", M.MRR), ("map", M.MAP), ("recall", M.Recall),
           ("ndcg", M.NDCG), ("precision", M.Precision)]
N_ITEMS = 150


def main() -> None:
    truth = load_truth()
    users = all_users()
    g = Golden(PEER, version("recbole"), "RecBole recbole/evaluator/metrics.py "
               "(Hit, MRR, MAP, Recall, NDCG, Precision).metric_info on the input of "
               "recbole/evaluator/collector.py Collector.eval_batch_collect",
               extra={"torch": torch.__version__, "numpy": np.__version__})
    config = {"topk": list(KS), "metric_decimal_place": 4}
    maxk = max(KS)
    for scores in SCORES:
        recs = load_recs(scores)
        st = torch.full((len(users), N_ITEMS + 1), -np.inf, dtype=torch.float32)
        pos = torch.zeros((len(users), N_ITEMS + 1), dtype=torch.int)
        for r, u in enumerate(users):
            for i, s in recs.get(u, []):
                st[r, i] = s
            for i in truth.get(u, {}):  # every row is positive, grade 0 included
                pos[r, i] = 1
        st[:, 0] = -np.inf
        _, topk_idx = torch.topk(st, maxk, dim=-1)
        pos_len = pos.sum(dim=1, keepdim=True)
        pos_idx = torch.gather(pos, dim=1, index=topk_idx)
        # adaptation: an item outside the recommended list is never a hit
        pos_idx = pos_idx * torch.isfinite(torch.gather(st, 1, topk_idx)).int()
        rec_topk = torch.cat((pos_idx, pos_len), dim=1)

        class Data:
            def get(self, key):
                assert key == "rec.topk"
                return rec_topk

        for name, cls in CLASSES:
            m = cls(config)
            pos_index, pos_len_np = m.used_info(Data())
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                # Hit and MRR take pos_index only (their calculate_metric passes that)
                if len(inspect.signature(m.metric_info).parameters) == 1:
                    res = m.metric_info(pos_index)
                else:
                    res = m.metric_info(pos_index, pos_len_np)
            for k in KS:
                for r, u in enumerate(users):
                    g.add(scores, name, {}, k, u, res[r, k - 1])
    for (metric, opt, k) in list(g.entries):
        g.note(metric, json.loads(opt), int(k) if k else None,
               ties="torch.topk on float32 scores: the order of equal (also float32-equal) "
                    "scores is implementation-defined (not reproducible)",
               ties_reproducible=False,
               note="Positives = every truth row (grade 0 included), binary (NDCG too: RecBole's NDCG is binary, ideal "
                    "over min(|R|, max(topk)) positions). Every user of the corpus is a row: "
                    "users only in the truth table have no recommendations (0); users without "
                    "a positive have pos_len 0 (see n_nan).")
    g.write()


if __name__ == "__main__":
    main()
