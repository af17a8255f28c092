"""ir-measures per-user values: ir_measures.iter_calc(measures, qrels, run).

Source: ir-measures, ir_measures/__init__.py iter_calc (the default provider
chain; the provider that answered each measure is recorded in the options) and
ir_measures/measures/*.py for the measure definitions. With pytrec_eval
installed, P, R, Success, RR, AP, nDCG, Rprec and NumRelRet come from
ir_measures/providers/pytrec_eval_provider.py, i.e. trec_eval's code: tie order
score (float32) descending, then item id as text descending.
"""
from __future__ import annotations

import json
from importlib.metadata import version

import ir_measures as irm

from _common import KS, SCORES, Golden, load_recs, load_truth

PEER = "ir_measures"


def measures():
    out = []
    for k in KS:
        for m in (irm.P, irm.R, irm.Success, irm.RR, irm.AP, irm.nDCG):
            out.append(m @ k)
        out += [irm.P(rel=2) @ k, irm.nDCG(judged_only=True) @ k,
                irm.nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7}) @ k, irm.AP(judged_only=True) @ k]
    out += [irm.RR, irm.AP, irm.nDCG, irm.Rprec, irm.NumRelRet, irm.NumRet, irm.AP(rel=2),
            irm.nDCG(judged_only=True), irm.nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7})]
    return out


def main() -> None:
    truth = load_truth()
    qrels = [irm.Qrel(str(u), str(i), g) for u, d in truth.items() for i, g in d.items()]
    g = Golden(PEER, version("ir-measures"), "ir-measures ir_measures/__init__.py iter_calc "
               "(default provider chain); ir_measures/providers/pytrec_eval_provider.py",
               extra={"pytrec_eval_terrier": version("pytrec_eval-terrier")})
    ms = measures()
    providers = {}
    for m in ms:
        try:
            providers[str(m)] = \
                _provider_for(m)
        except Exception as e:  # noqa: BLE001 - recorded in the manifest
            providers[str(m)] = f"error: {e}"
    for scores in SCORES:
        recs = load_recs(scores)
        run = [irm.ScoredDoc(str(u), str(i), s) for u, rows in recs.items() for i, s in rows]
        for r in irm.iter_calc(ms, qrels, run):
            m = r.measure
            name = str(m)
            base = m.NAME
            k = m.params.get("cutoff")
            opt = {p: v for p, v in m.params.items() if p != "cutoff"}
            opt = json.loads(json.dumps(opt, default=str))
            opt = {"measure": name.split("@")[0], "provider": providers.get(name, "?"), **opt}
            g.add(scores, base, opt, k, int(r.query_id), r.value)
    for (metric, opt, k) in list(g.entries):
        o = json.loads(opt)
        tie = ("provider pytrec_eval: trec_eval order on float32 scores (score descending, "
               "then item id as text descending); reproducible"
               if o["provider"] == "pytrec_eval" else
               "provider msmarco (ir_measures/providers/msmarco_provider.py): sorted by "
               "(-score, item id as text), i.e. score descending (float64), then item id as text "
               "ASCENDING; reproducible")
        g.note(metric, o, int(k) if k else None, ties=tie,
               ties_reproducible=True,
               note="Users only in the predictions are not reported (pytrec_eval evaluates the "
                    "qrels' queries); users only in the truth table get the measure's DEFAULT "
                    "(0): ir_measures/providers/base.py Evaluator.iter_calc fills the qrels' "
                    "queries missing from the run. Relevant = grade >= rel (default "
                    "1); nDCG gains = raw grades unless gains= is given; judged_only drops unjudged "
                    "items from the ranking first.")
    g.write()


def _provider_for(measure) -> str:
    for p in irm.DefaultPipeline.providers:
        if p.supports(measure):
            return p.NAME
    return "none"


if __name__ == "__main__":
    main()
