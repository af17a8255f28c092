"""One metric grammar, two doors (issue 25, point 3).

Every name of the metric registry (each alias, with and without a cut-off,
and trec_eval's ``-m`` spelling of each measure) is given to both
:func:`metrics_lib.evaluate` and the command line, on random files with ties,
empty users and lists shorter than the cut-offs. Both doors must take it,
map it to the same registry entry and give the same numbers; where the name
is trec_eval's, the numbers are the trec_eval 10.0 binary's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics_lib import cli as cli_module
from metrics_lib import evaluate
from metrics_lib.ranking import registry
from test_trec_cli import TREC_EVAL
from test_trec_cli_grammar import run_ours

needs_binary = pytest.mark.skipif(not TREC_EVAL.exists(),
                                  reason="the trec_eval 10.0 binary is not built")
CUT = 3  # shorter than some lists and longer than others


def _spellings(metric) -> list[str]:
    """Every spelling evaluate's grammar has for ``metric``: aliases, cut-off forms."""
    if metric.cutoff == "level":
        return [f"{alias}{sep}{level}" for alias in metric.aliases
                for sep, level in (("_", "0.50"), ("@", "0.5"))]
    if metric.cutoff == "persistence":  # rbp(p=0.8): the name needs its p
        names = [f"{alias}(p=0.8)" for alias in metric.aliases]
        return names + [names[0].upper()]
    if metric.cutoff == "required":  # alpha_ndcg@10: the name needs its k
        names = [f"{alias}{sep}{CUT}" for alias in metric.aliases for sep in ("@", "_")]
        return names + [names[0].upper()]
    names = list(metric.aliases)
    if metric.cutoff == "optional":
        names += [f"{alias}{sep}{CUT}" for alias in metric.aliases
                  for sep in ("@", "_") if not alias.endswith("_") and alias != "r-precision"]
        names += [f"{alias}_cut_{CUT}" for alias in metric.aliases[:1]]
    names += [name.upper() for name in names[:1]]  # case is ignored
    return names


def _trec_spellings(metric) -> list[tuple[str, object]]:
    """trec_eval's ``-m`` spellings of ``metric``'s measures, with the parameter each has."""
    out = []
    for measure in metric.trec_eval:
        if measure.name in ("gm_map", "gm_bpref"):
            continue  # a mean over users, not a value per user: refused by evaluate
        if metric.cutoff == "persistence":  # rbp.p=0.8: the name needs its p
            out.append((f"{measure.name}.p=0.8", 0.8))
        elif "{}" not in measure.library:
            out.append((measure.name, None))
        elif metric.cutoff == "level":
            out.append((f"{measure.name}.0.50", 0.5))
        else:
            out.append((f"{measure.name}.{CUT}", CUT))
    return out


# trec_eval's own names of measures with parameters (recall, success) keep
# trec_eval's meaning on the command line (its default cut-offs) and this
# library's in evaluate (the whole list); trec_eval's dcg is a measure the
# drop-in does not print (refused by name): test_same_spelling_two_meanings
_TREC_ONLY_ON_THE_COMMAND_LINE = {measure.name for metric in registry.metrics()
                                  for measure in metric.trec_eval
                                  if "{}" in measure.library} | (
    cli_module._TREC_EVAL_MEASURES - set(cli_module._TABLE))
EVALUATE_NAMES = [(metric.name, name) for metric in registry.metrics()
                  for name in _spellings(metric)
                  if name not in _TREC_ONLY_ON_THE_COMMAND_LINE]
TREC_NAMES = [(metric.name, name, p) for metric in registry.metrics()
              for name, p in _trec_spellings(metric)]


def _files(seed, tmp_path):
    """A qrels and a run as trec_eval reads them, and the same as two DataFrames."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    queries = [f"q{i}" for i in range(int(rng.integers(4, 9)))]
    for q in queries:
        docs = rng.choice(40, size=int(rng.integers(1, 12)), replace=False)
        empty = rng.random() < 0.2  # a query without a relevant document
        for d in docs:
            grade = 0 if empty else int(rng.choice([0, 0, 1, 2, 3]))
            qrels.append((q, f"d{d}", grade))
        ranked = rng.choice(40, size=int(rng.integers(1, 8)), replace=False)
        scores = np.round(rng.random(ranked.size), 1)  # ties
        run += [(q, f"d{d}", float(s)) for d, s in zip(ranked, scores)]
    q_path, r_path = tmp_path / f"qrels{seed}", tmp_path / f"run{seed}"
    q_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, d, g in qrels))
    r_path.write_text("".join(f"{q} Q0 {d} {i} {s!r} tag\n" for i, (q, d, s) in
                              enumerate(run)))
    truth = pd.DataFrame(qrels, columns=["user", "item", "relevance"])
    recs = pd.DataFrame(run, columns=["user", "item", "score"])
    return (str(q_path), str(r_path)), recs, truth


def _cli(args) -> dict:
    """{(printed measure, query): value text} of the command line with -q."""
    code, out, err = run_ours(["-q", *args])
    assert code == 0, err
    return _table(out)


def _table(out: bytes) -> dict:
    rows = [line.split("\t") for line in out.decode().splitlines()]
    return {(name.strip(), qid): value for name, qid, value in rows
            if name.strip() not in ("runid", "num_q")}


def _evaluate_as_trec_eval(recs, truth, names):
    """evaluate with trec_eval's settings (-l 1, every judged query, its tie order)."""
    return evaluate(recs, truth, names, relevance_level=1, missing="zero", ties="item_desc")


def _close(ours: float, text: str) -> bool:
    return abs(ours - float(text)) <= 5e-5 + 1e-12  # trec_eval prints %6.4f


@pytest.mark.parametrize("kind, name", EVALUATE_NAMES, ids=[n for _, n in EVALUATE_NAMES])
def test_every_evaluate_name_is_taken_by_the_command_line(kind, name, tmp_path):
    if registry.get(kind).intents:
        # trec_eval's qrels have no intent column: evaluate's intent_col= is
        # tested in tests/test_intent_metrics.py
        pytest.skip("the command line reads no judgements by intent")
    if registry.get(kind).item_data is not None:
        # arp, aplt read evaluate's item_popularity=, which trec_eval's files
        # do not hold: tested in tests/test_popularity_metrics.py
        pytest.skip("the command line reads no item data")
    (q_path, r_path), recs, truth = _files(len(name), tmp_path)
    assert registry.expand_metric(name)[0][1] == kind
    printed = _cli(["-m", name, q_path, r_path])
    frame = _evaluate_as_trec_eval(recs, truth, [name])
    values = frame[name].reindex(sorted(truth["user"].unique())).fillna(0.0)
    assert len(printed) == len(values) + 1
    for query, value in values.items():
        assert _close(value, printed[(name, query)]), (name, query, value)


@needs_binary
@pytest.mark.parametrize("kind, name, p", TREC_NAMES, ids=[n for _, n, _ in TREC_NAMES])
def test_every_trec_eval_name_is_taken_by_evaluate(kind, name, p, tmp_path):
    import subprocess

    (q_path, r_path), recs, truth = _files(len(name) + 7, tmp_path)
    theirs = subprocess.run([str(TREC_EVAL), "-q", "-m", name, q_path, r_path],
                            capture_output=True, check=True).stdout
    want = _table(theirs)
    assert registry.expand_metric(name) == [(name, kind, p)]
    frame = _evaluate_as_trec_eval(recs, truth, [name])
    (printed,) = {measure for measure, _ in want}
    for query in sorted(truth["user"].unique()):
        value = frame[name].get(query, 0.0)
        assert _close(value, want[(printed, query)]), (name, query, value)
    # the other door: evaluate's spelling of the same measure on the command line
    other = (f"{registry.get(kind).display_name}(p={p})"
             if registry.get(kind).cutoff == "persistence"
             else f"{registry.get(kind).display_name}@{p}" if p is not None else name.lower())
    ours = _cli(["-m", other, q_path, r_path])
    assert {query: v for (_, query), v in ours.items()} == \
        {query: v for (_, query), v in want.items()}, other


@needs_binary
def test_several_parameters_are_several_columns(tmp_path):
    (q_path, r_path), recs, truth = _files(1, tmp_path)
    import subprocess

    want = _table(subprocess.run([str(TREC_EVAL), "-q", "-m", "map_cut.2,5", "-m",
                                  "ndcg_cut", q_path, r_path],
                                 capture_output=True, check=True).stdout)
    frame = _evaluate_as_trec_eval(recs, truth, ["map_cut.2,5", "ndcg_cut"])
    assert list(frame.columns) == ["map_cut.2", "map_cut.5"] + [
        f"ndcg_cut.{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    for column in frame.columns:
        printed = column.replace(".", "_")
        for query, value in frame[column].items():
            assert _close(value, want[(printed, query)]), (column, query)


@pytest.mark.parametrize("name, words", [
    ("ndcg_cutt.10", "'ndcg_cut.10'"), ("ndcgg@10", "'ndcg@10'"),
    ("presicion@5", "'precision@5'"), ("recip_rnk", "'recip_rank'"),
    ("ndcg_cut_1O", "'ndcg@10'"),
])
def test_unknown_names_get_the_closest_names_in_both_doors(name, words, tmp_path):
    (q_path, r_path), recs, truth = _files(2, tmp_path)
    with pytest.raises(ValueError) as error:
        evaluate(recs, truth, [name])
    assert words in str(error.value)
    code, out, err = run_ours(["-m", name, q_path, r_path])
    assert (code, out) == (1, b"") and words in err, err


# trec_eval takes these on its command line (map.5 ignores the 5, P.5x reads 5
# by atol; P.0 and duplicates exit 2): the drop-in keeps that; evaluate refuses
@pytest.mark.parametrize("name, words", [
    ("map.5", "takes no parameter"), ("P.0", "positive integer"),
    ("P.5x", "positive integer"), ("iprec_at_recall.1.5", "[0, 1]"),
    ("map_cut.5,5", "twice"), ("ndcg.1=2", "gain="),
])
def test_evaluate_refuses_what_trec_eval_would_read_loosely(name, words, tmp_path):
    (_, _), recs, truth = _files(2, tmp_path)
    with pytest.raises(ValueError, match="metric") as error:
        evaluate(recs, truth, [name])
    assert words in str(error.value)


def test_each_error_mentions_the_other_spelling(tmp_path):
    with pytest.raises(ValueError, match="trec_eval's names .'ndcg_cut.10'"):
        registry.parse_metric("nonsense@10")
    with pytest.raises(ValueError, match="this library's names .'ndcg@10'"):
        registry.parse_metric("nonsense.10")
    (q_path, r_path), _, _ = _files(3, tmp_path)
    code, _, err = run_ours(["-m", "nonsense", q_path, r_path])
    assert code == 1 and "official" in err and "'ndcg@10'" in err


def test_same_spelling_two_meanings(tmp_path):
    """``recall`` and ``success``: trec_eval's default cut-offs on the command line."""
    (q_path, r_path), recs, truth = _files(4, tmp_path)
    printed = _cli(["-m", "recall", "-m", "success", q_path, r_path])
    assert {name for name, _ in printed} == {
        *(f"recall_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)),
        "success_1", "success_5", "success_10"}
    frame = _evaluate_as_trec_eval(recs, truth, ["recall", "success", "recall@1000"])
    assert frame["recall"].equals(frame["recall@1000"].rename("recall"))
    assert set(frame["success"]) <= {0.0, 1.0}
    code, out, err = run_ours(["-m", "prefs_simp", q_path, r_path])  # a preference measure
    assert (code, out) == (1, b"") and "trec_eval's but not computed" in err
    assert list(evaluate(recs, truth, ["dcg"]).columns) == ["dcg"]  # this library's DCG
