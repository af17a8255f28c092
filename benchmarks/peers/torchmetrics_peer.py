"""torchmetrics per-user values: the retrieval module classes, one user per call.

Sources (torchmetrics, src/torchmetrics/retrieval/*.py and
src/torchmetrics/functional/retrieval/*.py): RetrievalPrecision
(precision.py, top_k, adaptive_k), RetrievalRecall, RetrievalHitRate,
RetrievalMRR, RetrievalMAP, RetrievalNormalizedDCG, RetrievalRPrecision; the
module's empty_target_action (retrieval/base.py RetrievalMetric.compute)
decides what a user without any relevant item gets. Calling the module on
one user's rows returns that user's value.

Input (default, no ``candidates`` option): preds = the user's recommended scores as a float32 tensor (torch's
default dtype: float32-equal scores tie), target = grade >= 1 (bool), or the
grade itself for NDCG (graded gains). Judged items that were not recommended
are not part of the input (torchmetrics scores the given rows only), so recall
divides by the relevant items in the list. Option ``candidates:
"recommended+judged"`` (Recall, MAP, NDCG, R-precision, "neg"): those items are
appended after the list as in sklearn_peer.py (``_common.append_judged``: one
shared score ``min(list scores) - 1`` on the tied corpus, distinct scores
``min - 1, min - 2, ...`` in trec_eval's order on the untied corpus). Users only in the truth table have
no rows and are skipped. Sorting uses torch.topk / torch.argsort: the order of
equal scores is implementation-defined.
"""
from __future__ import annotations

import json
import warnings
from importlib.metadata import version

import torch
from torchmetrics import retrieval as R

from _common import KS, SCORES, Golden, append_judged, load_recs, load_truth

PEER = "torchmetrics"


def specs():
    out = []
    for k in (None, *KS):
        kk = {} if k is None else {"top_k": k}
        for name, cls, graded in (("RetrievalPrecision", R.RetrievalPrecision, False),
                                  ("RetrievalRecall", R.RetrievalRecall, False),
                                  ("RetrievalHitRate", R.RetrievalHitRate, False),
                                  ("RetrievalMRR", R.RetrievalMRR, False),
                                  ("RetrievalMAP", R.RetrievalMAP, False),
                                  ("RetrievalNormalizedDCG", R.RetrievalNormalizedDCG, True)):
            for eta in ("neg", "skip", "pos"):
                opt = {**kk, "empty_target_action": eta}
                out.append((name, cls, graded, k, opt))
            if name == "RetrievalPrecision" and k is not None:
                out.append((name, cls, graded, k, {**kk, "adaptive_k": True,
                                                   "empty_target_action": "neg"}))
    for eta in ("neg", "skip", "pos"):
        out.append(("RetrievalRPrecision", R.RetrievalRPrecision, False, None,
                    {"empty_target_action": eta}))
    # the judged items that were not recommended appended after the list
    for k in (None, *KS):
        kk = {} if k is None else {"top_k": k}
        for name, cls, graded in (("RetrievalRecall", R.RetrievalRecall, False),
                                  ("RetrievalMAP", R.RetrievalMAP, False),
                                  ("RetrievalNormalizedDCG", R.RetrievalNormalizedDCG, True)):
            out.append((name, cls, graded, k, {**kk, "empty_target_action": "neg",
                                               "candidates": "recommended+judged"}))
    out.append(("RetrievalRPrecision", R.RetrievalRPrecision, False, None,
                {"empty_target_action": "neg", "candidates": "recommended+judged"}))
    return out


def main() -> None:
    torch.use_deterministic_algorithms(True)
    truth = load_truth()
    g = Golden(PEER, version("torchmetrics"), "torchmetrics src/torchmetrics/retrieval/*.py "
               "(module classes, one call per user)", extra={"torch": torch.__version__})
    sp = specs()
    metrics = [(name, cls(**{o: v for o, v in opt.items() if o != "candidates"}), graded, k, opt)
               for name, cls, graded, k, opt in sp]
    for scores in SCORES:
        recs = load_recs(scores)
        for u, rows in recs.items():
            t = truth.get(u, {})
            inputs = {}
            for cand, rr in (("recommended", rows),
                             ("recommended+judged", append_judged(rows, t, scores))):
                inputs[cand] = (torch.tensor([s for _, s in rr]),  # float32 (torch default)
                                torch.tensor([t.get(i, 0) for i, _ in rr]),
                                torch.zeros(len(rr), dtype=torch.long))
            for name, m, graded, k, opt in metrics:
                preds, grades, idx = inputs[opt.get("candidates", "recommended")]
                if opt["empty_target_action"] == "skip" and not bool((grades > 0).any()):
                    # "skip" leaves the user out of the mean; called on that user
                    # alone the module returns 0.0, which is not a per-user value.
                    continue
                m.reset()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    v = m(preds, grades if graded else grades > 0, indexes=idx)
                g.add(scores, name, opt, k, u, float(v))
    for (metric, opt, k) in list(g.entries):
        g.note(metric, json.loads(opt), int(k) if k else None,
               ties="torch.topk / torch.argsort on float32 scores: the order of equal (also "
                    "float32-equal) scores is implementation-defined (not reproducible)",
               ties_reproducible=False,
               note="preds float32. Users only in the truth table are skipped (no rows). Users "
                    "with no relevant item in their list get what empty_target_action says "
                    "(neg: 0, pos: 1, skip: left out of the mean, so no row here). Without "
                    "candidates=recommended+judged, Recall and R-precision count only the "
                    "relevant items that are in the list.")
    g.write()


if __name__ == "__main__":
    main()
