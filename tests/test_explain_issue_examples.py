"""Real disagreements from peers' issue trackers, rebuilt and explained.

* https://github.com/usnistgov/trec_eval/issues/22 ("Tie-Breaking in runs by
  docno causes unexpexted behaviour", 2020): two runs that differ only in the
  name of the second document get ndcg 1.0000 and 0.6309 from trec_eval, whose
  reporter expected 1.0 for both (ties broken by the rank in the file).
* https://github.com/cvangysel/pytrec_eval/issues/56 (2025): three documents
  with the same score, the relevant one listed last; pytrec_eval gives map and
  ndcg 1.0 where the reporter expected 1/3 and 0.5 (the order of the dict).

The numbers of the threads are checked against the trec_eval 10.0 binary and
pytrec_eval where they are installed; the explainer must name the order of tied
scores as the only cause, with the whole difference.
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

import metrics_lib as ml
from metrics_lib.cli import main

ROOT = Path(__file__).resolve().parents[1]
TREC_EVAL = Path(os.environ.get("TREC_EVAL", ROOT / "_build" / "trec_eval" / "trec_eval"))

# trec_eval#22, the files of the thread (qrels.txt, run1.txt, run2.txt)
QRELS_22 = "1 Q0 a 0\n1 Q0 b 1\n1 Q0 c 0\n"
RUN1_22 = "1 0 b 1 1.0 run1\n1 0 a 2 1.0 run1\n"
RUN2_22 = "1 0 b 1 1.0 run2\n1 0 c 2 1.0 run2\n"
# what the reporter expected: ties kept in the order of the file
IN_FILE_ORDER = {"ties": "input", "missing": "skip"}


def _write(tmp_path):
    for name, text in (("qrels.txt", QRELS_22), ("run1.txt", RUN1_22),
                       ("run2.txt", RUN2_22)):
        (tmp_path / name).write_text(text)
    return tmp_path


def _tables(folder, run):
    recs = ml.read_trec_run(folder / run)[["user", "item", "score"]]
    return recs, ml.read_trec_qrels(folder / "qrels.txt")


@pytest.mark.skipif(not TREC_EVAL.exists(), reason="no trec_eval 10.0 binary")
def test_trec_eval_22_numbers_of_the_thread(tmp_path):
    folder = _write(tmp_path)
    printed = [subprocess.run([str(TREC_EVAL), "-m", "ndcg", str(folder / "qrels.txt"),
                               str(folder / run)], capture_output=True, text=True,
                              check=True).stdout.split()[-1]
               for run in ("run1.txt", "run2.txt")]
    assert printed == ["1.0000", "0.6309"]


def test_trec_eval_22_explained(tmp_path):
    folder = _write(tmp_path)
    recs, truth = _tables(folder, "run2.txt")
    e = ml.explain_difference(recs, truth, "ndcg", "trec_eval", IN_FILE_ORDER)
    assert round(e.value_a, 4) == 0.6309 and e.value_b == 1.0
    assert list(e.by_convention["convention"]) == ["ties"]
    assert (e.by_convention["a"].iloc[0], e.by_convention["b"].iloc[0]) == ("item_desc", "input")
    assert e.by_convention["contribution"].iloc[0] == pytest.approx(1 - 1 / 1.5849625007211563,
                                                                     abs=1e-15)
    assert "tied scores" in e.users["reasons"].iloc[0]
    # run1 names its tied documents b > a: trec_eval's order is the file's, nothing differs
    recs1, _ = _tables(folder, "run1.txt")
    e1 = ml.explain_difference(recs1, truth, "ndcg", "trec_eval", IN_FILE_ORDER)
    assert e1.value_a == e1.value_b == 1.0 and e1.by_convention["contribution"].abs().sum() == 0
    # and the number trec_eval printed leads back to its tie order
    found = ml.find_convention(recs, truth, "ndcg", 0.6309, tolerance=5e-5)
    assert found["peer"].iloc[0] == "trec_eval"


def test_trec_eval_22_from_the_command_line(tmp_path, capsys):
    folder = _write(tmp_path)
    status = main(["explain", "--metric", "ndcg", "--a", "trec_eval", "--b",
                   json.dumps(IN_FILE_ORDER), "--json", str(folder / "qrels.txt"),
                   str(folder / "run2.txt")])
    got = json.loads(capsys.readouterr().out)
    assert status == 0
    assert [row["convention"] for row in got["by_convention"]] == ["ties"]
    assert got["difference"] == pytest.approx(0.36907024642854247, abs=1e-15)


# pytrec_eval#56: run {'q1': {'d1': 1, 'd2': 1, 'd3': 1}, 'q2': {'d3': 1, 'd2': 1}}
QREL_56 = {"q1": {"d3": 1}, "q2": {"d2": 1, "d3": 1}}
RUN_56 = {"q1": {"d1": 1, "d2": 1, "d3": 1}, "q2": {"d3": 1, "d2": 1}}


def _frames_56():
    import pandas as pd

    recs = pd.DataFrame([(q, d, float(s)) for q, docs in RUN_56.items()
                         for d, s in docs.items()], columns=["user", "item", "score"])
    truth = pd.DataFrame([(q, d, g) for q, docs in QREL_56.items() for d, g in docs.items()],
                         columns=["user", "item", "relevance"])
    return recs, truth


def test_pytrec_eval_56_explained():
    recs, truth = _frames_56()
    for metric, expected_q1 in (("map", 1 / 3), ("ndcg", 0.5)):
        e = ml.explain_difference(recs, truth, metric, "pytrec_eval", IN_FILE_ORDER)
        assert e.per_user.loc["q1", "value_a"] == 1.0  # the thread's output
        assert e.per_user.loc["q1", "value_b"] == pytest.approx(expected_q1, abs=1e-15)
        assert e.per_user.loc["q2", "difference"] == 0.0
        groups = e.by_convention.set_index("convention")["contribution"]
        # scores are exact in float32: only the tie order moves the mean
        assert groups["ties"] == pytest.approx(e.difference, abs=1e-15)
        assert groups.drop("ties").abs().sum() == 0


def test_pytrec_eval_56_against_pytrec_eval():
    python = os.environ.get("PYTREC_EVAL_PYTHON", "/tmp/peer-venvs/peers-trec_eval/bin/python")
    if not Path(python).exists():
        pytest.skip("no Python with pytrec_eval (set PYTREC_EVAL_PYTHON)")
    script = ("import json, pytrec_eval; e = pytrec_eval.RelevanceEvaluator("
              f"{QREL_56!r}, {{'map', 'ndcg'}}); print(json.dumps(e.evaluate({RUN_56!r})))")
    done = subprocess.run([python, "-c", script], capture_output=True, text=True)
    if done.returncode:
        pytest.skip("pytrec_eval not importable there")
    theirs = json.loads(done.stdout)
    recs, truth = _frames_56()
    for metric in ("map", "ndcg"):
        e = ml.explain_difference(recs, truth, metric, "pytrec_eval", IN_FILE_ORDER)
        for q in ("q1", "q2"):
            assert e.per_user.loc[q, "value_a"] == pytest.approx(theirs[q][metric], abs=1e-12)


def test_readme_example():
    """The README's five lines run, and print what the README shows."""
    import contextlib
    import io

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    part = readme.split("**Why do two libraries give two numbers?**", 1)[1]
    code = part.split("```python\n", 1)[1].split("```", 1)[0]
    shown = part.split("```text\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) == 5
    import pandas as pd

    namespace = {"ml": ml, "pd": pd}
    lines = code.strip().splitlines()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec("\n".join(lines[:-1]), namespace)
    assert printed.getvalue() == shown
    found = eval(lines[-1].split("#")[0], namespace)
    assert found["peer"].iloc[0] == "trec_eval"


# recommenders#1702 (https://github.com/recommenders-team/recommenders/issues/1702,
# "MAP_AT_K implementation is wrong", 2022): three items recommended, all bought, by a
# user who bought 5 more and by one who bought 10 more; dividing by the items bought
# makes the two users' AP differ, dividing by min(k, bought) (map_at_k since PR #2004)
# gives both 1.0
def _frames_1702():
    import pandas as pd

    truth = pd.DataFrame([(1, i, 1) for i in range(8)] + [(2, i, 1) for i in range(13)],
                         columns=["user", "item", "relevance"])
    recs = pd.DataFrame([(u, i, 10.0 - i) for u in (1, 2) for i in range(3)],
                        columns=["user", "item", "score"])
    return recs, truth


def test_recommenders_1702_explained():
    recs, truth = _frames_1702()
    e = ml.explain_difference(recs, truth, "map@3", {"denominator": "relevant"},
                              {"denominator": "min_k"})
    assert e.value_a == pytest.approx((3 / 8 + 3 / 13) / 2, abs=1e-15) and e.value_b == 1.0
    assert list(e.by_convention["convention"]) == ["denominator"]
    assert e.by_convention["contribution"].iloc[0] == pytest.approx(e.difference, abs=1e-15)
    # the preset's two spellings are Recommenders' two functions
    for name, value in (("map@3", e.value_a), ("map_at_k@3", e.value_b)):
        got = ml.evaluate(recs, truth, [name], convention="recommenders")
        assert got.iloc[:, 0].mean() == pytest.approx(value, abs=1e-15)


def test_recommenders_1702_against_recommenders():
    python = os.environ.get("RECOMMENDERS_PYTHON",
                            "/tmp/peer-venvs/peers-recommenders/bin/python")
    if not Path(python).exists():
        pytest.skip("no Python with recommenders (set RECOMMENDERS_PYTHON)")
    script = (
        "import json, pandas as pd\n"
        "from recommenders.evaluation.python_evaluation import map as rmap, map_at_k\n"
        "t = pd.DataFrame([(1, i, 1.0) for i in range(8)] + [(2, i, 1.0) for i in range(13)],"
        " columns=['userID', 'itemID', 'rating'])\n"
        "p = pd.DataFrame([(u, i, 10.0 - i) for u in (1, 2) for i in range(3)],"
        " columns=['userID', 'itemID', 'prediction'])\n"
        "print(json.dumps([rmap(t, p, k=3), map_at_k(t, p, k=3)]))\n")
    done = subprocess.run([python, "-c", script], capture_output=True, text=True)
    if done.returncode:
        pytest.skip("recommenders not importable there")
    theirs = json.loads(done.stdout.strip().splitlines()[-1])
    recs, truth = _frames_1702()
    e = ml.explain_difference(recs, truth, "map@3", {"denominator": "relevant"},
                              {"denominator": "min_k"})
    assert [e.value_a, e.value_b] == pytest.approx(theirs, abs=1e-12)
