"""``python -m metrics_lib explain|find``: the explainer from TREC files.

The JSON of ``explain`` must be explain_difference's object on the same files
(read as trec_eval reads them), ``find``'s JSON find_convention's table;
exit statuses and messages on bad input; trec_eval's own grammar unchanged.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import metrics_lib as ml
from metrics_lib.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _files(tmp_path, seed=0):
    """A qrels and a run file: ties, graded truth, short lists, a user with
    nothing relevant, users on one side only, a negative grade."""
    rng = np.random.default_rng(seed)
    run, qrels = [], []
    for user in range(1, 16):
        n = int(rng.integers(1, 9)) if user != 15 else 0  # user 15: qrels only
        for rank, doc in enumerate(rng.choice(20, size=n, replace=False)):
            run.append(f"{user} Q0 d{doc} {rank + 1} {rng.integers(0, 4) / 2} tag")
        if user == 14:
            continue  # user 14: run only
        for doc in rng.choice(20, size=int(rng.integers(1, 8)), replace=False):
            grade = 0 if user == 13 else int(rng.integers(-1, 4))
            qrels.append(f"{user} 0 d{doc} {grade}")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _tables(qrels, run):
    truth = ml.read_trec_qrels(qrels)
    return (ml.read_trec_run(run)[["user", "item", "score"]],
            truth[truth["relevance"] >= 0].reset_index(drop=True))


def _run(capsys, argv):
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _close(mine, theirs):
    if theirs is None or (isinstance(theirs, float) and math.isnan(theirs)):
        return mine is None
    if isinstance(theirs, float):
        return mine == pytest.approx(theirs, abs=0, rel=0) or mine == theirs
    return mine == theirs


@pytest.mark.parametrize("a, b, metric", [("trec_eval", "ranx", "ndcg@5"),
                                          ("pytrec_eval", "rectools", "map@5"),
                                          ("recommenders", '{"gain": "exponential"}',
                                           "ndcg@3"),
                                          ("sklearn", "torchmetrics", "ndcg@4")])
def test_json_is_the_explanation(tmp_path, capsys, a, b, metric):
    qrels, run = _files(tmp_path)
    status, out, err = _run(capsys, ["explain", "--metric", metric, "--a", a, "--b", b,
                                     "--json", qrels, run])
    assert status == 0, err
    got = json.loads(out)
    recs, truth = _tables(qrels, run)
    side_b = json.loads(b) if b.startswith("{") else b
    e = ml.explain_difference(recs, truth, metric, a, side_b)
    assert list(got) == ["metric", "a", "b", "value_a", "value_b", "difference", "method",
                         "by_convention", "users", "per_user", "keywords_a", "keywords_b"]
    assert (got["metric"], got["a"], got["b"]) == (e.metric, e.a, e.b)
    assert got["value_a"] == e.value_a and got["value_b"] == e.value_b
    assert got["difference"] == e.difference
    assert [r["convention"] for r in got["by_convention"]] == list(e.by_convention.convention)
    assert [r["contribution"] for r in got["by_convention"]] == list(
        e.by_convention.contribution)
    assert [r["user"] for r in got["users"]] == list(e.users.user)
    assert [r["reasons"] for r in got["users"]] == list(e.users.reasons)
    per_user = e.per_user
    assert [r["user"] for r in got["per_user"]] == list(per_user.index)
    for row in got["per_user"]:
        for column in ("value_a", "value_b", "difference"):
            assert _close(row[column], per_user.at[row["user"], column]), (row, column)
    assert got["keywords_a"]["missing"] == e.keywords_a["missing"]
    assert set(got["keywords_b"]) == {str(k) for k in e.keywords_b}


def test_text_output(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    status, out, err = _run(capsys, ["explain", "--metric", "ndcg@5", "--a", "trec_eval",
                                     "--b", "rectools", qrels, run])
    assert status == 0 and err == ""
    recs, truth = _tables(qrels, run)
    assert out.strip() == repr(ml.explain_difference(recs, truth, "ndcg@5", "trec_eval",
                                                     "rectools"))
    assert out.startswith("ndcg@5: trec_eval = ") and "Shapley" in out


def test_find_json_and_status(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    recs, truth = _tables(qrels, run)
    reported = ml.evaluate(recs, truth, ["ndcg@5"], convention="ranx")["ndcg@5"].mean()
    reported = float(reported)
    status, out, err = _run(capsys, ["find", "--metric", "ndcg@5", "--value", repr(reported),
                                     "--tolerance", "1e-12", "--json", qrels, run])
    assert status == 0, err
    got = json.loads(out)
    table = ml.find_convention(recs, truth, "ndcg@5", reported, tolerance=1e-12)
    assert [m["peer"] for m in got["matches"]] == [None if pd.isna(p) else p
                                                   for p in table["peer"]]
    assert [m["changes"] for m in got["matches"]] == [
        {k: v for k, v in c.items()} for c in table["changes"]]
    assert "ranx" in {m["peer"] for m in got["matches"]}
    status, out, err = _run(capsys, ["find", "--metric", "ndcg@5", "--value", "0.123456",
                                     "--tolerance", "1e-9", qrels, run])
    assert status == 1 and "0 match(es)" in out


@pytest.mark.parametrize("argv, message", [
    (["explain", "--metric", "ndcg@5", "--a", "nope", "--b", "ranx"], "unknown peer 'nope'"),
    (["explain", "--metric", "ndcg@5", "--a", "trec_eval"], "required: --b"),
    (["explain", "--metric", "ndcg@5", "--a", "{gain:", "--b", "ranx"],
     "--a must be a JSON object"),
    (["explain", "--metric", "ndcg@5", "--a", '{"gane": "linear"}', "--b", "ranx"],
     "'gane' is not a convention keyword"),
    (["explain", "--metric", "ndcg@5", "--a", "ranx", "--b", "ranx", "--keywords", "[1]"],
     "--keywords must be a JSON object"),
    (["explain", "--metric", "rprec", "--a", "rectools", "--b", "ranx"],
     "rectools"),
    (["find", "--metric", "ndcg@5", "--value", "nan"], "value must be a finite number"),
    (["find", "--metric", "ndcg@5", "--value", "x"], "invalid float value"),
    (["find", "--metric", "ndcg@5", "--value", "0.5", "--tolerance", "-1"],
     "tolerance must be >= 0"),
])
def test_bad_input(tmp_path, capsys, argv, message):
    qrels, run = _files(tmp_path)
    with pytest.raises(SystemExit) if "required" in message or "invalid" in message \
            else _no_exit() as caught:
        status, out, err = _run(capsys, argv + [qrels, run])
    if caught is not None and getattr(caught, "value", None) is not None:
        status, err = caught.value.code, capsys.readouterr().err
    assert status == 2
    assert message in err
    assert "Traceback" not in err


class _no_exit:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def test_missing_file(tmp_path, capsys):
    qrels, _ = _files(tmp_path)
    status, out, err = _run(capsys, ["explain", "--metric", "ndcg@5", "--a", "trec_eval",
                                     "--b", "ranx", qrels, str(tmp_path / "absent")])
    assert status == 2 and "absent" in err and out == ""


def test_trec_eval_grammar_unchanged(tmp_path, capsys):
    qrels, run = _files(tmp_path)
    status, out, err = _run(capsys, ["-c", "-m", "P.5", qrels, run])
    assert status == 0 and out.startswith("P_5")


def test_python_dash_m(tmp_path):
    qrels, run = _files(tmp_path)
    done = subprocess.run([sys.executable, "-m", "metrics_lib", "explain", "--metric",
                           "mrr", "--a", "trec_eval", "--b", "ranx", "--json", qrels, run],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["metric"] == "mrr"
