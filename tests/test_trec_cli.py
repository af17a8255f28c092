"""TREC file readers and ``python -m metrics_lib``, a drop-in for trec_eval 10.0.

The randomised tests run the trec_eval binary built from the unmodified source
in third_party/ (``make trec_eval``, done by ``make test``) and compare its
output with the command line's, byte for byte, exit code included.
"""

import gzip
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from metrics_lib import read_trec_qrels, read_trec_run

ROOT = pathlib.Path(__file__).resolve().parents[1]
TREC_EVAL = pathlib.Path(os.environ.get("TREC_EVAL", ROOT / "_build" / "trec_eval" / "trec_eval"))


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "metrics_lib", *map(str, args)],
                          capture_output=True, input=stdin, timeout=120, cwd=ROOT)


def trec_eval(*args, stdin=None):
    return subprocess.run([str(TREC_EVAL), *map(str, args)], capture_output=True,
                          input=stdin, timeout=120)


@pytest.fixture(scope="module")
def binary():
    if not TREC_EVAL.is_file():
        if shutil.which(os.environ.get("CC", "cc")) is None:
            pytest.skip("no C compiler: trec_eval cannot be built from third_party/")
        subprocess.run(["make", "-s", "trec_eval"], cwd=ROOT, check=True, timeout=300)
    return TREC_EVAL


# ---------------------------------------------------------------- generators
def random_files(rng, *, crlf=False, latin1=False):
    """A qrels and a run (bytes) with everything trec_eval reads."""
    n_queries = int(rng.integers(1, 7))
    queries = [f"q{int(rng.integers(0, 40))}" for _ in range(n_queries)]
    queries = sorted(set(queries))
    docs = [f"d{i}".encode() for i in range(25)] + [b"D9", b"d10a", b"doc-\xc3\xa9"]
    if latin1:
        docs += [b"d\xe9", b"d\xff", b"d\x80x"]
    qrels, run = [], []
    nl = b"\r\n" if crlf else b"\n"
    qrels_queries = [q for q in queries if rng.random() < 0.85] or queries[:1]
    for q in qrels_queries:
        judged = rng.choice(len(docs), size=int(rng.integers(1, 12)), replace=False)
        for i, d in enumerate(judged):
            if i and rng.random() < 0.1 and not (qrels and qrels[-1].startswith(b"#")):
                qrels.append(b"# a comment line " + str(i).encode())
            grade = rng.choice(["0", "1", "2", "3", "-1", "-2", "1.5", "0.7", "-0.5", "2.0"])
            if i == 0 and grade.startswith("-") and grade != "-0.5":
                # a query whose every grade is negative crashes trec_eval 10.0
                # (form_res_rels.c allocates max_rel + 1 < 1 rel_levels); the
                # command line scores such a query 0 (tested below).
                grade = "0"
            sep = rng.choice([b" ", b"\t", b"  "])
            qrels.append(sep.join([q.encode(), b"0", docs[d], grade.encode()]))
    run_queries = [q for q in queries if rng.random() < 0.85]
    # trec_eval 10.0 -c fails ("Can't calculate measure", exit 4) when the first
    # qrels query lacks from the run: form_res_rels.c asks te_chk_and_malloc for
    # 0 elements before anything was allocated and gets NULL. Not mimicked.
    first = min(qrels_queries, key=str.encode)
    if first not in run_queries:
        run_queries.insert(0, first)
    if rng.random() < 0.3:
        run_queries.append("q99")  # only in the run: ignored
    for q in run_queries:
        ret = rng.choice(len(docs), size=int(rng.integers(1, len(docs))), replace=False)
        for d in ret:
            if rng.random() < 0.05:
                run.append(rng.choice([b"# comment", b"   # indented comment", b""]))
            score = rng.choice(["1", "2", "2.5", "0.25", "-1", "3", "inf", "-inf", "1e1",
                                str(round(float(rng.random()), 3))])
            rank = rng.choice([b"1", b"7", b"x"])  # never read
            fields = [q.encode(), b"Q0", docs[d], rank, score.encode(), b"tag"]
            if rng.random() < 0.1:
                fields += [b"junk", b"more junk"]
            run.append(b" ".join(fields))
    if qrels and qrels[-1].startswith(b"#"):
        qrels.pop()
    # trec_eval 10.0 fails ("Can't calculate measure", exit 4) or crashes when
    # the first query it evaluates needs a 0-element buffer (no result after
    # -c/-J, nothing relevant): te_chk_and_malloc (utility_pool.c) returns NULL
    # for 0 elements before anything was allocated. A first query ("Q0" sorts
    # before "q...") with relevant documents retrieved avoids that bug, which
    # the command line does not mimic.
    qrels[:0] = [b"Q0 0 d1 1", b"Q0 0 d2 2", b"Q0 0 d3 0", b"Q0 0 d4 1"]
    run[:0] = [b"Q0 Q0 d%d 1 %d tag" % (i, 9 - i) for i in range(1, 6)]
    return nl.join(qrels) + nl, nl.join(run) + nl


OPTIONS = [[], ["-q"], ["-c", "-q"], ["-c"], ["-q", "-n", "-c"],
           ["-c", "-l", "0", "-q"], ["-c", "-l2", "-q"], ["-c", "-M", "5", "-q"],
           ["-c", "-J", "-q"], ["-c", "-q", "-m", "P.1,2,5", "-m", "ndcg_cut.3,10",
                                "-m", "map_cut", "-m", "recall.4", "-m", "ndcg",
                                "-m", "success", "-m", "recip_rank"],
           ["-c", "-m", "P", "-m", "recall", "-m", "iprec_at_recall..3,.55"],
           ["-c", "-M", "4", "-J", "-q"], ["-c", "-l", "1.5", "-q"]]


@pytest.mark.parametrize("seed", range(40))
def test_random_files_equal_trec_eval_byte_for_byte(binary, tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, run = random_files(rng, crlf=seed % 5 == 1, latin1=seed % 4 == 3)
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_bytes(qrels)
    r_path.write_bytes(run)
    options = OPTIONS[seed % len(OPTIONS)]
    theirs = trec_eval(*options, q_path, r_path)
    ours = cli(*options, q_path, r_path)
    assert ours.returncode == theirs.returncode, (ours.stderr, theirs.stderr)
    if theirs.returncode:  # trec_eval stops part-way (exit 4); we print nothing
        assert ours.stdout == b""
        return
    assert_same_output(ours.stdout, theirs.stdout)


def assert_same_output(ours: bytes, theirs: bytes):
    """Byte for byte, trec_eval's ``-nan`` included.

    With -J (or -M 0), a query with no document left gets iprec_at_recall
    0/0 = ``-nan`` from trec_eval 10.0 (m_iprec_at_recall.c) at the levels
    whose target is no relevant document, and the mean becomes ``-nan``: the
    command line prints the same.
    """
    assert ours.splitlines() == theirs.splitlines()


@pytest.mark.parametrize("seed", range(6))
def test_gzip_and_stdin_read_as_the_plain_file(binary, tmp_path, seed):
    rng = np.random.default_rng(100 + seed)
    qrels, run = random_files(rng)
    q_path, r_path = tmp_path / "qrels", tmp_path / "run"
    q_path.write_bytes(qrels)
    r_path.write_bytes(run)
    expected = trec_eval("-c", "-q", q_path, r_path)
    assert expected.returncode == 0
    # trec_eval reads the run from standard input with "-"
    assert trec_eval("-c", "-q", q_path, "-", stdin=run).stdout == expected.stdout
    assert cli("-c", "-q", q_path, "-", stdin=run).stdout == expected.stdout
    gz_q, gz_r = tmp_path / "qrels.gz", tmp_path / "run.gz"
    gz_q.write_bytes(gzip.compress(qrels))
    gz_r.write_bytes(gzip.compress(run))
    assert cli("-c", "-q", gz_q, gz_r).stdout == expected.stdout


def test_default_table_is_trec_eval_official(binary, tmp_path):
    rng = np.random.default_rng(7)
    qrels, run = random_files(rng)
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    ours = cli("-c", tmp_path / "q", tmp_path / "r")
    assert ours.stdout == trec_eval("-c", tmp_path / "q", tmp_path / "r").stdout
    names = [line.split(b"\t")[0].strip() for line in ours.stdout.splitlines()]
    assert names[:10] == [b"runid", b"num_q", b"num_ret", b"num_rel", b"num_rel_ret",
                          b"map", b"gm_map", b"Rprec", b"bpref", b"recip_rank"]
    assert names[-1] == b"P_1000"


def test_query_missing_from_run_stops_as_trec_eval(binary, tmp_path):
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d3 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\n")
    theirs = trec_eval(tmp_path / "q", tmp_path / "r")
    ours = cli(tmp_path / "q", tmp_path / "r")
    assert theirs.returncode == ours.returncode == 4
    assert ours.stdout == b""
    assert b"'q2'" in ours.stderr and b"-c" in ours.stderr


# ---------------------------------------------------------------- readers
def test_readers_follow_trec_eval(tmp_path):
    path = tmp_path / "run"
    path.write_bytes(b"# c\nq1 Q0 d1 one 2.5 tag extra words\r\n\n  # c2\nq1 Q0 d\xff 2 -inf t2\n")
    run = read_trec_run(path)
    assert run["item"].tolist() == ["d1", "d\xff"]  # latin-1: never fails decoding
    assert run.attrs["encoding"] == "latin-1"
    assert run["score"].tolist() == [2.5, -np.inf]
    assert run["run"].tolist() == ["tag", "t2"]
    path = tmp_path / "qrels"
    path.write_text("q1 0 d1 1.7\n# c\nq1 0 d2 -2\nq1 0 d3 -0.5\n")
    assert read_trec_qrels(path)["relevance"].tolist() == [1, -2, 0]


@pytest.mark.parametrize("text, line, match", [
    (b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0\n", 2, "has 6 fields .*this one has 5"),
    (b"q1 Q0 d1 1 3.0 r\n\nq1 Q0 d2 2 high r\n", 3, r"field 5 \(score\) must be a number"),
    (b"q1 Q0 d1 1 nan r\n", 1, r"field 5 \(score\)"),
])
def test_malformed_run_lines_name_file_and_line(tmp_path, text, line, match):
    path = tmp_path / "bad.run"
    path.write_bytes(text)
    with pytest.raises(ValueError, match=f"bad.run:{line}: .*{match}"):
        read_trec_run(path)


@pytest.mark.parametrize("text, line, match", [
    (b"q1 0 d1 1\nq1 0 d2\n", 2, "4 fields .*this one has 3"),
    (b"q1 0 d1 1\nq1 0 d2 1 extra\n", 2, "this one has 5"),  # never shift columns
    (b"q1 0 d1 1\n\nq1 0 d2 1\n", 2, "this one has 0"),  # trec_eval: Malformed line
    (b"q1 0 d1 yes\n", 1, r"field 4 \(relevance\) must be a number"),
])
def test_malformed_qrels_lines_name_file_and_line(tmp_path, text, line, match):
    path = tmp_path / "bad.qrels"
    path.write_bytes(text)
    with pytest.raises(ValueError, match=f"bad.qrels:{line}: .*{match}"):
        read_trec_qrels(path)


def test_cli_refuses_what_trec_eval_refuses(binary, tmp_path):
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 2\n")
    assert trec_eval(tmp_path / "q", tmp_path / "r").returncode != 0
    done = cli(tmp_path / "q", tmp_path / "r")
    assert done.returncode != 0 and done.stdout == b""
    assert f"{tmp_path / 'r'}:2:".encode() in done.stderr


def test_missing_file_and_unknown_measure(tmp_path):
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    done = cli(tmp_path / "q", tmp_path / "nope")
    assert done.returncode == 2 and b"no such run file" in done.stderr
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\n")
    done = cli("-m", "ndgc", tmp_path / "q", tmp_path / "r")
    assert done.returncode == 1 and b"illegal measure 'ndgc'" in done.stderr


def test_negative_relevance_level_is_trec_evals(binary, tmp_path):
    # trec_eval 10.0 -l -1 counts unjudged retrieved documents (rel -1 >= -1 in
    # form_res_rels.c) as relevant but not in num_rel: AP above 1. The command
    # line gives the same numbers and says why on stderr.
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\nq1 Q0 d2 1 1 r\n")
    done = cli("-l", "-1", "-m", "map", tmp_path / "q", tmp_path / "r")
    assert done.returncode == 0 and b"num_rel" in done.stderr
    assert done.stdout == trec_eval("-l", "-1", "-m", "map", tmp_path / "q",
                                    tmp_path / "r").stdout
    assert done.stdout.endswith(b"\t2.0000\n")


def test_help_says_missing_zero_is_dash_c():
    done = cli("--help")
    text = b" ".join(done.stdout.split())
    assert b'missing="zero"' in text and b"NOT trec_eval's default" in text


def test_query_with_only_negative_grades_scores_zero(tmp_path):
    # trec_eval 10.0 crashes on such a qrels (form_res_rels.c allocates
    # max_rel + 1 = -1 rel_levels); its rule (negative = in the pool, not
    # relevant) makes every measure of that query 0.
    (tmp_path / "q").write_text("q1 0 d1 1\nq2 0 d2 -2\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 2 r\nq2 Q0 d2 1 2 r\nq2 Q0 d3 1 1 r\n")
    done = cli("-q", "-m", "num_ret", "-m", "num_rel", "-m", "map", "-m", "bpref",
               "-m", "P.1", tmp_path / "q", tmp_path / "r")
    assert done.returncode == 0, done.stderr
    rows = {tuple(line.split(b"\t")[:2]): line.split(b"\t")[2]
            for line in done.stdout.splitlines()}
    assert rows[(b"num_ret" + b" " * 15, b"q2")] == b"2"
    assert rows[(b"num_rel" + b" " * 15, b"q2")] == b"0"
    assert rows[(b"map" + b" " * 19, b"q2")] == b"0.0000"
    assert rows[(b"P_1" + b" " * 19, b"q2")] == b"0.0000"
    assert rows[(b"map" + b" " * 19, b"all")] == b"0.5000"
