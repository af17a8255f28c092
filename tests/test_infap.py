"""infAP (trec_eval 10.0 m_infap.c) and negative grades, "in the pool but unjudged".

* The command line's ``-m infAP`` byte for byte with the binary on random
  files with grades -1 and -2 (pooled, unjudged), under ``-q``, ``-c``, ``-l``,
  ``-M`` and ``-J``.
* :func:`metrics_lib.evaluate`'s ``infap`` per user against the binary's
  ``-q`` lines, and exactly equal to the per-list function, on random frames
  with ties, graded truth, pooled-unjudged and unpooled items, short lists,
  users without a relevant item, 64-bit, nullable and pyarrow ids, on pandas,
  Polars and Arrow tables.
* Negative grades reach only the metrics that declare them (infap, bpref,
  num_nonrel_judged_ret); for bpref and num_nonrel_judged_ret a negative
  grade is the same as an absent row, as in trec_eval; every other metric
  refuses them with a message naming the ones that read them.
"""

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate
from metrics_lib.ranking import registry
from metrics_lib.ranking.infap import infap
from test_trec_cli import assert_same_output, binary, cli, random_files, trec_eval  # noqa: F401

OPTIONS = [["-q"], ["-c", "-q"], [], ["-c", "-l2", "-q"], ["-c", "-M", "3", "-q"],
           ["-c", "-J", "-q"], ["-q", "-J", "-l", "0"], ["-c", "-l", "-1", "-q"],
           ["-q", "-M", "5", "-J"], ["-c", "-q", "-l", "3"]]


@pytest.mark.parametrize("seed", range(60))
def test_infap_equals_trec_eval_byte_for_byte(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(5000 + seed)
    qrels, run = random_files(rng, crlf=seed % 7 == 1, latin1=seed % 5 == 3)
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_bytes(qrels)
    r_path.write_bytes(run)
    options = OPTIONS[seed % len(OPTIONS)] + ["-m", "infAP", "-m", "bpref",
                                              "-m", "num_nonrel_judged_ret", "-m", "map"]
    theirs = trec_eval(*options, q_path, r_path)
    ours = cli(*options, q_path, r_path)
    assert ours.returncode == theirs.returncode, (ours.stderr, theirs.stderr)
    if theirs.returncode:
        return
    assert b"infAP" in theirs.stdout
    assert_same_output(ours.stdout, theirs.stdout)


def test_infap_in_all_trec_and_pooled_items(binary, tmp_path):  # noqa: F811
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    # query 1: "u" pooled but unjudged, "x" unpooled; query 3: only a judged
    # non-relevant document besides an unjudged one
    q_path.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 u -1\n2 0 a 0\n2 0 z 0\n"
                      "3 0 q -1\n3 0 r 0\n")
    r_path.write_text("1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 b 3 1 r\n1 Q0 u 4 0 r\n"
                      "1 Q0 c 5 -1 r\n2 Q0 a 1 1 r\n2 Q0 c 2 1 r\n3 Q0 q 1 1 r\n")
    for options in (["-q", "-m", "all_trec"], ["-q", "-m", "infAP"], ["-q", "-J", "-m", "infAP"]):
        theirs = trec_eval(*options, q_path, r_path).stdout
        ours = cli(*options, q_path, r_path).stdout
        if options[-1] == "all_trec":  # only our lines: all_trec has more measures
            names = {line.split(b"\t")[0].strip() for line in ours.splitlines()}
            assert b"infAP" in names
            theirs = b"".join(line + b"\n" for line in theirs.splitlines()
                              if line.split(b"\t")[0].strip() in names)
        assert_same_output(ours, theirs)
    # query 1 by hand: "a" adds 1; "c" at rank 5 has r = 1, n = 1, u = 1 above:
    # 1/5 + 4/5 * (3/4) * (1 + eps) / (2 + 2 eps) = 1/5 + 3/10; over R = 2
    assert b"infAP                 \t1\t0.7500\n" in cli("-q", "-m", "infAP", q_path,
                                                          r_path).stdout


def random_frames(rng, *, pooled=True):
    """A run and qrels as frames: 64-bit integer ids, ties, short lists, judged
    non-relevant, pooled-unjudged (-1) and unpooled items, users with nothing
    relevant; every user has one grade >= 0 (trec_eval 10.0 crashes on a
    query whose every grade is negative)."""
    n_users = int(rng.integers(2, 30))
    recs, truth = [], []
    for user in range(n_users):
        uid = int(rng.integers(0, 2**40)) * 1000 + user
        n_items = int(rng.integers(0 if user else 1, 15))
        items = rng.choice(40, size=n_items, replace=False)
        scores = rng.integers(0, 4, size=n_items).astype(float)  # many ties
        recs += [(uid, int(i), s) for i, s in zip(items, scores)]
        judged = rng.choice(40, size=int(rng.integers(1, 14)), replace=False)
        grades = rng.choice([0, 0, 1, 2, 3, -1, -1] if pooled else [0, 0, 1, 2, 3],
                            size=judged.size)
        if rng.random() < 0.2:
            grades[grades > 0] = 0  # a user without any relevant item
        grades[0] = max(grades[0], 0)
        truth += [(uid, int(i), int(g)) for i, g in zip(judged, grades)]
    recs = pd.DataFrame(recs, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    return recs, truth


def _binary_lines(tmp_path, recs, truth, *options):
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    r_path.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, i, s in recs.itertuples(index=False)))
    out = trec_eval("-q", "-c", "-m", "infAP", *options, q_path, r_path)
    assert out.returncode == 0, out.stderr
    values = {}
    for line in out.stdout.decode().splitlines():
        _, query, value = (part.strip() for part in line.split("\t"))
        if query != "all":
            values[int(query)] = value
    return values


def _per_list(recs, truth, level, judged_only=False):
    """infAP of every user by the per-list function, in trec_eval's order
    (score descending, equal scores by document id descending as strings)."""
    out = {}
    grades = {u: dict(zip(g["item"], g["relevance"])) for u, g in truth.groupby("user")}
    for user, own in grades.items():
        rows = recs[recs["user"] == user]
        # equal scores: trec_eval's bytewise document order, descending
        order = sorted(zip(rows["score"], rows["item"]), key=lambda x: str(x[1]),
                       reverse=True)
        order = sorted(order, key=lambda x: -x[0])
        ranked = [item for _, item in order]
        if judged_only:
            ranked = [item for item in ranked if own.get(item, -1) >= 0]
        out[user] = infap(ranked, own, relevance_level=level)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_evaluate_and_per_list_equal_trec_eval_per_user(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(seed)
    recs, truth = random_frames(rng)
    level = int(rng.integers(0, 3))
    judged_only = seed % 4 == 3
    theirs = _binary_lines(tmp_path, recs, truth, "-l", str(level),
                           *(["-J"] if judged_only else []))
    expected = _per_list(recs, truth, level, judged_only)
    if seed % 3 == 1:  # nullable and pyarrow dtypes read as the plain ones
        recs = recs.astype({"user": "Int64", "score": "Float64"})
        truth = truth.astype({"user": "int64[pyarrow]", "relevance": "Int64"})
    frame = evaluate(recs, truth, ["infap"], relevance_level=level, empty="zero",
                     missing="zero",
                     judged_only=judged_only, ties="item_desc")
    assert sorted(frame.index) == sorted(theirs)
    for user, value in theirs.items():
        ours = frame.loc[user, "infap"]
        assert f"{ours:6.4f}" == value, (user, ours, value)
        assert ours == expected[user], (user, ours, expected[user])  # same doubles


@pytest.mark.parametrize("backend", ["polars", "arrow"])
def test_other_backends_give_the_pandas_values(backend):
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    recs, truth = random_frames(np.random.default_rng(7))
    expected = evaluate(recs, truth, ["infap", "bpref"], empty="zero")
    convert = ((lambda f: pl.from_pandas(f)) if backend == "polars"
               else (lambda f: pa.Table.from_pandas(f, preserve_index=False)))
    got = evaluate(convert(recs), convert(truth), ["infap", "bpref"], empty="zero")
    if backend == "polars":
        got = got.to_pandas().set_index("user")
    elif not isinstance(got, pd.DataFrame):
        got = got.to_pandas().set_index("user")
    assert np.array_equal(got.loc[expected.index].to_numpy(), expected.to_numpy())


def test_complete_judgements_give_average_precision():
    rng = np.random.default_rng(3)
    recs, truth = random_frames(rng, pooled=False)
    # judge every retrieved item: infAP is AP up to the eps terms
    extra = recs.merge(truth, on=["user", "item"], how="left")
    extra = extra[extra["relevance"].isna()][["user", "item"]].assign(relevance=0)
    truth = pd.concat([truth, extra], ignore_index=True)
    frame = evaluate(recs, truth, ["infap", "map"], empty="zero")
    assert np.allclose(frame["infap"], frame["map"], atol=1e-4, rtol=0)


@pytest.mark.parametrize("seed", range(15))
def test_negative_grades_are_absent_rows_for_bpref_and_num_nonrel(seed):
    rng = np.random.default_rng(100 + seed)
    recs, truth = random_frames(rng)
    kept = truth[truth["relevance"] >= 0]
    for options in ({}, {"judged_only": True}, {"relevance_level": 0},
                    {"score_threshold": 1.5}, {"relevance_level": 2, "ties": "worst"}):
        names = ["bpref", "num_nonrel_judged_ret"]
        with_negative = evaluate(recs, truth, names, empty="zero", **options)
        without = evaluate(recs, kept, names, empty="zero", **options)
        users = without.index
        assert with_negative.loc[users].equals(without), options
        # users whose every judgement is negative: nothing relevant, bpref 0
        assert (with_negative.drop(users)["bpref"] == 0).all()


def test_other_metrics_refuse_negative_grades_by_name():
    recs = pd.DataFrame({"user": [1, 1], "item": [1, 2], "score": [2.0, 1.0]})
    truth = pd.DataFrame({"user": [1, 1], "item": [1, 2], "relevance": [1, -1]})
    readers = {m.name for m in registry.metrics() if m.negative_grades}
    assert readers == {"infap", "bpref", "num_nonrel_judged_ret"}
    for name in ("ndcg@10", "map", "precision@5", "set_p", "rprec", "err@5"):
        for level in (1, 0):
            with pytest.raises(ValueError, match="values must be >= 0; a negative grade "
                               r"\(trec_eval's 'in the pool but unjudged'\) is read only "
                               "by bpref, infap, num_nonrel_judged_ret"):
                evaluate(recs, truth, [name, "infap"], relevance_level=level)
    assert evaluate(recs, truth, ["infap"]).loc[1, "infap"] == 1.0
    assert truth["relevance"].tolist() == [1, -1]  # not mutated


def test_infap_per_list_edges():
    assert infap([], {"a": 1}) == 0.0
    assert np.isnan(infap(["a"], {"a": 0, "b": -1}, empty="nan"))
    with pytest.raises(ValueError, match="no item at or above relevance_level"):
        infap(["a"], {"a": -1}, empty="raise")
    # an unpooled item above lowers the estimate, a pooled unjudged one less so
    assert infap(["x", "a"], {"a": 1}) == 0.5
    assert infap(["u", "a"], {"a": 1, "u": -1}) == 0.5 + 0.5 * 1.0 * (1e-5 / 2e-5)
    # ties follow the scores
    assert infap(["b", "a"], {"a": 1, "b": 0}, scores=[1.0, 2.0]) == 1.0
    with pytest.raises(ValueError, match="not available with ties='average'"):
        infap(["a"], {"a": 1}, scores=[1.0], ties="average")
