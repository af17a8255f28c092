"""trec_eval 10.0's G, binG, dcg, ideal_dcg, ndcg_rel and Rndcg, against the binary.

Each with trec_eval's gain per relevance level (``-m G.1=3,2=7``; m_G.c,
m_binG.c, m_ndcg.c, m_ndcg_rel.c, m_Rndcg.c, gain_init.c): the command line's
output byte for byte on random files (graded and negative grades, ties,
-q -c -l -M -J), and :func:`metrics_lib.evaluate`'s per-user values
(``gain=`` holding the same gains) equal to the binary's ``-q`` lines, with
64-bit, nullable and pyarrow ids; the per-list functions equal ``evaluate``.
"""

import math

import numpy as np
import pandas as pd
import pytest

from metrics_lib import evaluate
from test_trec_cli import assert_same_output, binary, cli, random_files, trec_eval  # noqa: F401
from test_trec_measures_more import random_frames

OPTIONS = [["-q"], ["-c", "-q"], [], ["-c", "-l2", "-q"], ["-c", "-M", "3", "-q"],
           ["-c", "-J", "-q"], ["-c", "-l", "0", "-q"], ["-c", "-l", "-1", "-q"],
           ["-q", "-l3", "-M", "2"], ["-c", "-J", "-l", "0", "-q"]]
# gains trec_eval and the exact sort order agree on (integers, or more than 1
# apart), a duplicate level (the first wins), a name that is not a level, a
# level nobody has
GAINS = ["", ".1=2,2=5", ".0=1", ".3=1,x=2", ".2=0", ".1=3,1=7", ".4=10,1=2",
         ".1=2.5,2=4,3=6.25", ".0=0,1=0,2=0,3=0", ".2=1,3=1",
         ".0=0.5,1=1.5,2=2.5,3=3.5"]  # a gain below 1: G's cost floor
# m_ndcg.c: ndcg, dcg and ideal_dcg share their gains; one of them at a time
SHARED = ["ndcg", "dcg", "ideal_dcg"]


def _measures(seed):
    gains = GAINS[seed % len(GAINS)]
    picks = [GAINS[(seed // 3 + i) % len(GAINS)] for i in range(4)]
    out = ["-m", "binG", "-m", "G" + gains, "-m", "ndcg_rel" + picks[0],
           "-m", "Rndcg" + picks[1]]
    shared = SHARED[seed % 3]
    if picks[2]:
        return out + ["-m", shared + picks[2]]
    return out + [item for name in SHARED for item in ("-m", name)]


@pytest.mark.parametrize("seed", range(60))
def test_gain_measures_equal_trec_eval_byte_for_byte(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(4000 + seed)
    qrels, run = random_files(rng, crlf=seed % 7 == 1, latin1=seed % 5 == 3)
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_bytes(qrels)
    r_path.write_bytes(run)
    options = OPTIONS[seed % len(OPTIONS)] + _measures(seed)
    theirs = trec_eval(*options, q_path, r_path)
    ours = cli(*options, q_path, r_path)
    assert ours.returncode == theirs.returncode, (ours.stderr, theirs.stderr)
    assert_same_output(ours.stdout, theirs.stdout)  # exit 4 after the lines before
    if theirs.returncode == 0:
        assert all(name in theirs.stdout for name in (b"binG", b"G", b"ndcg_rel", b"Rndcg"))


def test_rndcg_nan_and_the_skipped_last_level(binary, tmp_path):  # noqa: F811
    """Rndcg's 0 / 0 (relevant documents, no positive gain) and a list of L + 1."""
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("1 0 a 1\n1 0 b 2\n1 0 c 0\n2 0 a 0\n2 0 b 0\n3 0 a 1\n")
    r_path.write_text("1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n1 Q0 x 3 1 r\n2 Q0 b 1 1 r\n"
                      "3 Q0 x 1 3 r\n3 Q0 a 1 2 r\n")  # query 3: N = L + 1 = 2
    for options in (["-q", "-m", "Rndcg.1=0,2=0"], ["-q", "-l0", "-m", "Rndcg"],
                    ["-q", "-m", "Rndcg", "-m", "G", "-m", "ndcg_rel", "-m", "binG"]):
        theirs = trec_eval(*options, q_path, r_path)
        assert_same_output(cli(*options, q_path, r_path).stdout, theirs.stdout)
    assert b"-nan" in trec_eval("-q", "-l0", "-m", "Rndcg", q_path, r_path).stdout


def test_refused_where_trec_eval_misorders_or_crashes(binary, tmp_path):  # noqa: F811
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("1 0 a 1\n1 0 b 2\n1 0 c 0\n")
    r_path.write_text("1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n1 Q0 x 3 1 r\n")
    # gain 0.5 compares equal to level 0's gain 0 ((int) -0.5 == 0): trec_eval's
    # ideal list stops at gain 0 and leaves the level-1 document out
    theirs = trec_eval("-q", "-m", "G.1=0.5", q_path, r_path)
    assert theirs.returncode == 0 and b"0.1383" in theirs.stdout
    out = cli("-q", "-m", "G.1=0.5", q_path, r_path)
    assert out.returncode == 1 and b"comp_rel_gain" in out.stderr and not out.stdout
    assert evaluate(pd.DataFrame({"user": 1, "item": ["a", "c", "x"], "score": [3, 2, 1]}),
                    pd.DataFrame({"user": 1, "item": ["a", "b", "c"],
                                  "relevance": [1, 2, 0]}),
                    ["g"], gain={0: 0, 1: 0.5, 2: 2})["g"].iloc[0] != pytest.approx(0.1383,
                                                                                   abs=1e-4)
    # dcg and ideal_dcg share m_ndcg.c's parameters: trec_eval aborts (double free)
    assert trec_eval("-m", "dcg.1=2", "-m", "ideal_dcg", q_path, r_path).returncode != 0
    out = cli("-m", "dcg.1=2", "-m", "ideal_dcg", q_path, r_path)
    assert out.returncode == 1 and b"double free" in out.stderr
    for spec in ("G.-1=2", "Rndcg.1=-3", "ndcg_rel.1=inf"):
        out = cli("-m", spec, q_path, r_path)
        assert out.returncode == 1 and b"gains for relevance levels >= 0" in out.stderr
    for spec in ("G.1=2=3", "Rndcg.1,2", "dcg.=,"):
        assert cli("-m", spec, q_path, r_path).returncode == 2 \
            == trec_eval("-m", spec, q_path, r_path).returncode


def _their_lines(stdout):
    theirs = {}
    for line in stdout.decode().splitlines():
        name, query, value = (part.strip() for part in line.split("\t"))
        if query != "all":
            theirs[(name.partition("_")[0] if name.startswith(("G_", "Rndcg_")) else name,
                    query)] = value
    return theirs


@pytest.mark.parametrize("seed", range(30))
def test_evaluate_equals_trec_eval_per_user(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(300 + seed)
    recs, truth = random_frames(rng)
    level = int(rng.integers(0, 3))
    pairs = [{}, {1: 2, 2: 5}, {0: 1}, {2: 0}, {1: 3, 3: 10}, {1: 0, 2: 0, 3: 0},
             {0: 0.5, 1: 1.5, 2: 2.5, 3: 3.5}][seed % 7]
    params = ",".join(f"{k}={v}" for k, v in pairs.items())
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    r_path.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, i, s in recs.itertuples(index=False)))
    gain_opts = [f"G.{params}", f"Rndcg.{params}"] if params else ["G", "Rndcg"]
    out = trec_eval("-q", "-l", str(level), "-m", "binG", "-m", gain_opts[0],
                    "-m", gain_opts[1], q_path, r_path)
    assert out.returncode == 0, out.stderr
    theirs = _their_lines(out.stdout)
    gain = {g: float(pairs.get(g, g)) for g in range(4)} if params else "linear"
    if seed % 3 == 1:  # nullable and pyarrow dtypes read as the plain ones
        recs = recs.astype({"user": "Int64", "score": "Float64"})
        truth = truth.astype({"user": "int64[pyarrow]", "relevance": "Int64"})
    frame = evaluate(recs, truth, ["bing", "g", "rndcg"], relevance_level=level, gain=gain)
    names = {"binG": "bing", "G": "g", "Rndcg": "rndcg"}
    users = {str(u) for u in recs["user"]} & {str(u) for u in truth["user"]}
    assert len(theirs) == 3 * len(users)
    for (name, query), value in theirs.items():
        ours = frame.loc[int(query), names[name]]
        assert ("-nan" if math.isnan(ours) else f"{ours:6.4f}") == value, \
            (name, query, ours, value)


@pytest.mark.parametrize("seed", range(20))
def test_evaluate_ndcg_family_equals_trec_eval_per_user(binary, tmp_path, seed):  # noqa: F811
    rng = np.random.default_rng(700 + seed)
    recs, truth = random_frames(rng)
    pairs = [{}, {1: 2, 2: 5}, {3: 1}, {2: 0, 1: 4}][seed % 4]
    params = "." + ",".join(f"{k}={v}" for k, v in pairs.items()) if pairs else ""
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_text("".join(f"{u} 0 {i} {g}\n" for u, i, g in truth.itertuples(index=False)))
    r_path.write_text("".join(f"{u} Q0 {i} 1 {s} r\n" for u, i, s in recs.itertuples(index=False)))
    gain = {g: float(pairs.get(g, g)) for g in range(4)} if pairs else "linear"
    frame = evaluate(recs, truth, ["dcg", "ideal_dcg", "ndcg_rel"], gain=gain)
    for measure, column in (("dcg", "dcg"), ("ideal_dcg", "ideal_dcg"),
                            ("ndcg_rel", "ndcg_rel")):
        out = trec_eval("-q", "-m", measure + params, q_path, r_path)
        assert out.returncode == 0, out.stderr
        lines = [line.split("\t") for line in out.stdout.decode().splitlines()]
        per_query = {query: value for _, query, value in lines if query != "all"}
        assert len(per_query) == frame.shape[0]
        for query, value in per_query.items():
            assert f"{frame.loc[int(query), column]:6.4f}" == value, (measure, query)


@pytest.mark.parametrize("seed", range(10))
def test_per_list_functions_equal_evaluate(seed):
    from metrics_lib.ranking.trec_gains import bin_g, ideal_dcg, ndcg_rel, rndcg, trec_g

    rng = np.random.default_rng(900 + seed)
    recs, truth = random_frames(rng)
    gain = ["linear", {0: 0, 1: 2.5, 2: 4, 3: 10}, "exponential", "binary"][seed % 4]
    level = [1, 2][seed % 2]
    frame = evaluate(recs, truth, ["bing", "g", "rndcg", "ndcg_rel", "ideal_dcg"],
                     gain=gain, relevance_level=level, ties="numeric_desc")
    for user, group in truth.groupby("user"):
        listed = recs[recs["user"] == user].sort_values(["score", "item"],
                                                        ascending=False)["item"].tolist()
        grades = dict(zip(group["item"], group["relevance"]))
        expected = {
            "bing": bin_g(listed, grades, relevance_level=level),
            "g": trec_g(listed, grades, gain=gain, relevance_level=level),
            "rndcg": rndcg(listed, grades, gain=gain, relevance_level=level),
            "ndcg_rel": ndcg_rel(listed, grades, gain=gain, relevance_level=level),
            "ideal_dcg": ideal_dcg(grades, gain=gain, relevance_level=level)}
        for name, value in expected.items():
            assert frame.loc[user, name] == pytest.approx(value, rel=1e-12, nan_ok=True), \
                (name, user)
