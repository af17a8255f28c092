"""trec_eval 10.0's set measures and num_nonrel_judged_ret, against the binary.

``set_P``, ``set_recall``, ``set_map``, ``set_relative_P``, ``set_F`` with its
weight (m_set_*.c), ``relative_P`` with its cut-offs (m_rel_P.c), ``gm_bpref``
(m_gm_bpref.c, summary only) and
``num_nonrel_judged_ret`` (m_num_nonrel_judged_ret.c): the command line's
output byte for byte (``-q`` lines and summaries, under -c, -l, -M, -J), and
:func:`metrics_lib.evaluate`'s per-user values equal to the binary's ``-q``
lines, on random files with ties, graded qrels, short lists and queries
without any relevant document.
"""

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate, floored_geometric_mean
from test_trec_cli import assert_same_output, binary, cli, random_files, trec_eval  # noqa: F401

SET_MEASURES = ["-m", "set_P", "-m", "set_recall", "-m", "set_map",
                "-m", "num_nonrel_judged_ret", "-m", "set_relative_P", "-m", "gm_bpref"]
OPTIONS = [["-q"], ["-c", "-q"], [], ["-c", "-l2", "-q"], ["-c", "-M", "3", "-q"],
           ["-c", "-J", "-q"], ["-c", "-l", "0", "-q"], ["-q", "-m", "num_rel_ret"],
           ["-c", "-l", "-1", "-q"], ["-q", "-l-2", "-M", "2"]]


@pytest.mark.parametrize("seed", range(50))
def test_set_measures_equal_trec_eval_byte_for_byte(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(1000 + seed)
    qrels, run = random_files(rng, crlf=seed % 7 == 1, latin1=seed % 5 == 3)
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_bytes(qrels)
    r_path.write_bytes(run)
    beta = ["", ".0.5", ".2", ".0", ".1.5,3", ".abc", ".0.25"][seed % 7]
    cuts = ["", ".1,2,3", ".4", ".30,1,7", ".2,100"][seed % 5]
    options = (OPTIONS[seed % len(OPTIONS)] + SET_MEASURES
               + ["-m", "set_F" + beta, "-m", "relative_P" + cuts])
    theirs = trec_eval(*options, q_path, r_path)
    ours = cli(*options, q_path, r_path)
    assert ours.returncode == theirs.returncode, (ours.stderr, theirs.stderr)
    if theirs.returncode:
        return
    assert all(name in theirs.stdout for name in (b"set_map", b"set_F", b"relative_P_",
                                                  b"gm_bpref"))
    assert_same_output(ours.stdout, theirs.stdout)


def test_measures_are_offered_and_in_all_trec(binary, tmp_path):  # noqa: F811
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    # query 2 has no relevant document, query 1 an unjudged (-1) one retrieved
    q_path.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 u -1\n2 0 a 0\n2 0 z 0\n")
    r_path.write_text("1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n1 Q0 b 3 1 r\n1 Q0 u 4 0 r\n"
                      "2 Q0 a 1 1 r\n2 Q0 c 2 1 r\n")
    for options in (["-q", "-m", "all_trec"], ["-q", *SET_MEASURES]):
        theirs = trec_eval(*options, q_path, r_path).stdout
        ours = cli(*options, q_path, r_path).stdout
        if options[-1] == "all_trec":  # only our lines: all_trec has more measures
            names = {line.split(b"\t")[0].strip() for line in ours.splitlines()}
            theirs = b"".join(line + b"\n" for line in theirs.splitlines()
                              if line.split(b"\t")[0].strip() in names)
            assert {b"set_P", b"set_recall", b"set_map", b"num_nonrel_judged_ret"} <= names
        assert_same_output(ours, theirs)
    assert b"num_nonrel_judged_ret \t1\t1\n" in ours
    assert b"set_P                 \t1\t0.2500\n" in ours


def test_set_f_weight_refused_when_trec_eval_divides_by_zero(tmp_path):
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("1 0 a 1\n")
    r_path.write_text("1 Q0 a 1 3 r\n")
    for spec in ("set_F.-1", "set_F.-0.5,2", "set_F.1e999"):
        out = cli("-m", spec, q_path, r_path)
        assert out.returncode == 2 and b"beta must be a finite number >= 0" in out.stderr
    for name in ("set_f(beta=-1)", "set_f(beta=nan)", "set_f@5", "map(beta=1)"):
        with pytest.raises(ValueError, match="beta|cut-off"):
            evaluate(pd.DataFrame({"user": [1], "item": [1], "score": [1.0]}),
                     pd.DataFrame({"user": [1], "item": [1], "relevance": [1]}), [name])


def random_frames(rng):
    """A run and graded qrels as frames: integer ids, ties, short lists, users
    with nothing relevant, judged non-relevant and unjudged items."""
    n_users = int(rng.integers(2, 30))
    recs, truth = [], []
    for user in range(n_users):
        uid = int(rng.integers(0, 2**40)) * 1000 + user
        n_items = int(rng.integers(1, 15))
        items = rng.choice(40, size=n_items, replace=False)
        scores = rng.integers(0, 4, size=n_items).astype(float)  # many ties
        recs += [(uid, int(i), s) for i, s in zip(items, scores)]
        judged = rng.choice(40, size=int(rng.integers(1, 12)), replace=False)
        grades = rng.choice([0, 0, 1, 2, 3], size=judged.size)
        if rng.random() < 0.2:
            grades[:] = 0  # a user without any relevant item
        truth += [(uid, int(i), int(g)) for i, g in zip(judged, grades)]
    recs = pd.DataFrame(recs, columns=["user", "item", "score"])
    truth = pd.DataFrame(truth, columns=["user", "item", "relevance"])
    return recs, truth


@pytest.mark.parametrize("seed", range(30))
def test_evaluate_equals_trec_eval_per_user(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(seed)
    recs, truth = random_frames(rng)
    level = int(rng.integers(1, 3))
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    r_path.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, i, s in recs.itertuples(index=False)))
    beta = [1.0, 0.5, 2.0, 0.0, 0.3][seed % 5]
    out = trec_eval("-q", "-l", str(level), *SET_MEASURES, "-m", f"set_F.{beta}",
                    "-m", "relative_P.1,3,10", q_path, r_path)
    assert out.returncode == 0, out.stderr
    theirs, summary = {}, {}
    for line in out.stdout.decode().splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        if query != "all":
            theirs[(name, query)] = value
        else:
            summary[name] = value
    if seed % 3 == 1:  # nullable and pyarrow dtypes read as the plain ones
        recs = recs.astype({"user": "Int64", "score": "Float64"})
        truth = truth.astype({"user": "int64[pyarrow]", "relevance": "Int64"})
    set_f = "set_f" if beta == 1.0 and seed % 2 else f"set_f(beta={beta})"
    names = {"set_P": "set_p", "set_recall": "set_recall", "set_map": "set_map",
             "num_nonrel_judged_ret": "num_nonrel_judged_ret", f"set_F_{beta}": set_f,
             "set_relative_P": "set_relative_p", "relative_P_1": "relative_p@1",
             "relative_P_3": "relative_p_3", "relative_P_10": "relative_p@10"}
    frame = evaluate(recs, truth, list(names.values()), relevance_level=level, empty="zero")
    users = {str(u) for u in recs["user"]} & {str(u) for u in truth["user"]}
    assert len(theirs) == len(names) * len(users)
    for (name, query), value in theirs.items():
        ours = frame.loc[int(query), names[name]]
        text = str(int(ours)) if name.startswith("num") else f"{ours:6.4f}"
        assert text == value, (name, query, ours, value)
    bpref = evaluate(recs, truth, ["bpref"], relevance_level=level, empty="zero")["bpref"]
    assert f"{floored_geometric_mean(bpref.loc[[int(u) for u in users]]):6.4f}" \
        == summary["gm_bpref"]
