"""Per-user values of the issue-29 measures through ir-measures itself, for the presets.

``metrics_lib``'s ``convention="ir_measures"`` names ir-measures' own measures
(``alpha_nDCG@k``, ``ERR_IA@k``, ``P_IA@k``, ``StRecall@k``, ``ERR@k``,
``RBP(p=..., rel=...)``, ``Judged@k``); the other golden files of issue 29 were
computed by the programs ir-measures calls (pyndeval, gdeval.pl, cwl_eval). This
script asks ir-measures 0.4.3 for the same measures on the same committed corpora
(``golden/intents/``, ``golden/user_models/``), so that
``tests/test_presets_i29.py`` checks each preset against the peer's own
numbers, through the peer's own dispatch (providers, run order, rel=). Run it
in a virtualenv with ir-measures, pyndeval, cwl-eval and perl::

    python3 -m venv /tmp/venv-i29 && /tmp/venv-i29/bin/pip install ir-measures==0.4.3 \\
        pyndeval==0.0.8 cwl-eval==1.0.12 pytrec-eval-terrier==0.5.11
    /tmp/venv-i29/bin/python benchmarks/peers/presets_i29.py
"""
from __future__ import annotations

import csv
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
OUT = GOLDEN / "presets_i29"
INTENT_KS = (1, 2, 3, 5, 10, 20)
USER_KS = (1, 3, 5, 10, 20)


def _run(path):
    import ir_measures as irm
    return list(irm.read_trec_run(str(path)))


def _qrels(path):
    import ir_measures as irm
    return list(irm.read_trec_qrels(str(path)))


def _write(name, rows):
    with open(OUT / name, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["user", "measure", "value"])
        for user, measure, value in sorted(rows, key=lambda r: (int(r[0]), r[1])):
            writer.writerow([user, measure, repr(float(value))])


def intents():
    import ir_measures as irm
    run = _run(GOLDEN / "intents" / "run.txt")
    qrels = _qrels(GOLDEN / "intents" / "qrels.txt")  # iteration = subtopic
    rows = []
    for rel in (1, 2):
        # one call per rel=: ir-measures 0.4.3 runs one pyndeval invocation per rel and
        # hands them all one iterator over the run (providers/pyndeval_provider.py,
        # PyNdEvalEvaluator._iter_calc), which the first invocation uses up: in a call
        # with rel=1 and rel=2 measures, the second level scores every user 0
        measures = [irm.parse_measure(f"{m}(rel={rel})@{k}") for k in INTENT_KS
                    for m in ("alpha_nDCG", "ERR_IA", "P_IA", "StRecall")]
        rows += [(m.query_id, str(m.measure), m.value)
                 for m in irm.iter_calc(measures, qrels, run)]
    _write("ir_measures_intents.csv", rows)


def user_models():
    import ir_measures as irm
    run = _run(GOLDEN / "user_models" / "run.txt")
    qrels = _qrels(GOLDEN / "user_models" / "qrels.txt")
    measures = ([irm.parse_measure(f"ERR@{k}") for k in USER_KS]
                + [irm.parse_measure(f"Judged@{k}") for k in USER_KS]
                + [irm.parse_measure("Judged")]
                + [irm.parse_measure(f"RBP(p={p}, rel={rel})") for p in (0.5, 0.8, 0.95)
                   for rel in (1, 2, 3)])
    rows = [(m.query_id, str(m.measure), m.value) for m in irm.iter_calc(measures, qrels, run)]
    _write("ir_measures_user_models.csv", rows)


def float32_run(kind: str) -> Path:
    """The corpus's run with scores 1e-9 apart where they tied: equal in float32 (as
    pytrec_eval reads them), distinct in float64 (as ir-measures' other providers do)."""
    out = OUT / f"{kind}_run_f32.txt"
    lines = []
    for line in (GOLDEN / kind / "run.txt").read_text().splitlines():
        user, q0, doc, rank, score, tag = line.split()
        nudged = float(score) + 1e-9 * (int(doc[1:]) % 3)  # reorders ties, not the rest
        lines.append(f"{user} {q0} {doc} {rank} {nudged:.17g} {tag}\n")
    out.write_text("".join(lines))
    return out


def float32_ties():
    import ir_measures as irm
    rows = []
    run = _run(float32_run("user_models"))
    qrels = _qrels(GOLDEN / "user_models" / "qrels.txt")
    measures = [irm.parse_measure(m) for m in ("ERR@10", "RBP(rel=1)", "Judged@10")]
    rows += [(m.query_id, str(m.measure), m.value) for m in irm.iter_calc(measures, qrels, run)]
    _write("ir_measures_user_models_f32.csv", rows)
    run = _run(float32_run("intents"))
    qrels = _qrels(GOLDEN / "intents" / "qrels.txt")
    measures = [irm.parse_measure(f"{m}@10") for m in ("alpha_nDCG", "ERR_IA", "P_IA",
                                                       "StRecall")]
    rows = [(m.query_id, str(m.measure), m.value) for m in irm.iter_calc(measures, qrels, run)]
    _write("ir_measures_intents_f32.csv", rows)


def set_measures():
    """trec_eval's set measures through pytrec_eval and ir-measures (its pytrec_eval
    provider), on the user-model corpus, at relevance levels 1 and 2."""
    import ir_measures as irm
    import pytrec_eval

    run = _run(GOLDEN / "user_models" / "run.txt")
    qrels = _qrels(GOLDEN / "user_models" / "qrels.txt")
    rows = []
    for rel in (1, 2):
        for extra in ("", ", judged_only=True"):
            names = [f"SetP(rel={rel}{extra})", f"SetP(rel={rel}, relative=True{extra})",
                     f"SetF(rel={rel}{extra})", f"SetF(rel={rel}, beta=0.5{extra})",
                     f"SetAP(rel={rel}{extra})"] + ([f"SetR(rel={rel})"] if not extra else [])
            for name in names:  # one call each: ir-measures shares invocations otherwise
                rows += [(m.query_id, str(m.measure), m.value)
                         for m in irm.iter_calc([irm.parse_measure(name)], qrels, run)]
    _write("ir_measures_sets.csv", rows)
    q, r = {}, {}
    for qrel in qrels:
        q.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    for doc in run:
        r.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    rows = []
    for rel in (1, 2):
        for measures in ({"set_P", "set_recall", "set_F", "set_map", "set_relative_P",
                          "num_nonrel_judged_ret", "relative_P.1,3,10"}, {"set_F.0.5"}):
            evaluator = pytrec_eval.RelevanceEvaluator(q, measures, relevance_level=rel)
            for user, values in evaluator.evaluate(r).items():
                for name, value in values.items():
                    if name == "set_F" and "set_F.0.5" in measures:
                        name = "set_F.0.5"  # pytrec_eval names it set_F whatever beta
                    rows.append((user, f"{name} -l{rel}", value))
    _write("pytrec_eval_sets.csv", rows)


if __name__ == "__main__":
    OUT.mkdir(parents=True, exist_ok=True)
    intents()
    user_models()
    float32_ties()
    set_measures()
