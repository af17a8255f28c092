"""scikit-learn per-user values, one call per user (a 1-row y_true / y_score).

Sources (scikit-learn, sklearn/metrics/_ranking.py): ndcg_score, dcg_score
(ignore_ties=False averages the gains of each tied block: _tie_averaged_dcg),
average_precision_score (one threshold per distinct score, so a tied block is
one step), label_ranking_average_precision_score (a tied block counts as
ranked at its worst position). top_k_accuracy_score is left out: it scores one
true label per sample (multiclass), not a set of relevant items.

Candidates: scikit-learn scores a vector of items, not a ranked list; two
inputs are written (option ``candidates``):
- ``"recommended"``: the user's recommended items only, y_true = grade (0 if
  unjudged);
- ``"recommended+judged"``: also the judged items that were not recommended,
  after the list: on the tied corpus with one shared score ``min(list scores) - 1``
  (tied among themselves), on the untied corpus with distinct scores
  ``min - 1, min - 2, ...`` in trec_eval's order (``_common.append_judged``), so
  that the untied input has no ties.
Users only in the truth table have no scores and are skipped; users only in
the predictions have y_true all 0.
"""
from __future__ import annotations

import json
import warnings
from importlib.metadata import version

import numpy as np
from sklearn.metrics import (average_precision_score, dcg_score,
                             label_ranking_average_precision_score, ndcg_score)

from _common import KS, SCORES, Golden, append_judged, load_recs, load_truth

PEER = "sklearn"


def main() -> None:
    truth = load_truth()
    g = Golden(PEER, version("scikit-learn"), "scikit-learn sklearn/metrics/_ranking.py "
               "(ndcg_score, dcg_score, average_precision_score, "
               "label_ranking_average_precision_score)")
    skipped: dict = {}
    for scores in SCORES:
        recs = load_recs(scores)
        for u, rows in recs.items():
            t = truth.get(u, {})
            for cand in ("recommended", "recommended+judged"):
                rr = append_judged(rows, t, scores) if cand == "recommended+judged" else rows
                items = [i for i, _ in rr]
                sc = [s for _, s in rr]
                y_true = np.array([[t.get(i, 0) for i in items]], dtype=float)
                y_bin = (y_true > 0).astype(int)
                y_score = np.array([sc], dtype=float)
                base = {"candidates": cand}
                for ignore_ties in (False, True):
                    opt = {**base, "ignore_ties": ignore_ties}
                    for k in (None, *KS):
                        for name, fn in (("ndcg_score", ndcg_score), ("dcg_score", dcg_score)):
                            try:
                                v = fn(y_true, y_score, k=k, ignore_ties=ignore_ties)
                            except ValueError as e:
                                skipped.setdefault((name, json.dumps(opt, sort_keys=True), k),
                                                   {}).setdefault(scores, {})[u] = str(e)
                                continue
                            g.add(scores, name, opt, k, u, v)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        v = average_precision_score(y_bin[0], y_score[0])
                        g.add(scores, "average_precision_score", base, None, u, v)
                    except ValueError as e:
                        skipped.setdefault(("average_precision_score", json.dumps(base), None),
                                           {}).setdefault(scores, {})[u] = str(e)
                    v = label_ranking_average_precision_score(y_bin, y_score)
                    g.add(scores, "label_ranking_average_precision_score", base, None, u, v)
    errors = {}
    for (metric, opt, k) in list(g.entries):
        o = json.loads(opt)
        tie = ("ignore_ties=False: the expectation over the orders of each tied block "
               "(_tie_averaged_dcg), reproducible" if o.get("ignore_ties") is False else
               "ignore_ties=True: np.argsort(y_score)[:, ::-1] (_dcg_sample_scores); the order of "
               "equal scores is implementation-defined (not reproducible)"
               if o.get("ignore_ties") else
               "a tied block is one threshold (average_precision_score) / counts at its worst "
               "rank (label_ranking_average_precision_score); reproducible")
        err = skipped.get((metric, opt, int(k) if k else None), {})
        g.note(metric, o, int(k) if k else None, ties=tie,
               ties_reproducible=o.get("ignore_ties") is not True,
               note="One call per user. Users only in the truth table are not scored. A user "
                    "with no relevant item gets 0.0 from average_precision_score (with a "
                    "warning), 1.0 from label_ranking_average_precision_score, 0.0 from "
                    "ndcg_score. dcg_score and ndcg_score refuse a user with a single item "
                    "(a one-column y_true is a 'binary' target; ndcg_score: 'more than 1 "
                    "document'). "
                    "Errors (users left out): " + json.dumps(
                        {s: sorted(set(v.values())) for s, v in err.items()}))
    g.write()


if __name__ == "__main__":
    main()
