"""TREC file readers and the ``python -m metrics_lib`` command line."""

import json
import subprocess
import sys

import pytest

from metrics_lib import read_trec_qrels, read_trec_run

QRELS = "q1 0 d1 1\nq1 0 d3 2\nq1 0 d5 0\nq2 0 d2 1\nq3 0 d9 1\n"
RUN = ("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\n"
       "\n"
       "q2 Q0 d7 1 1.0 r\nq2 Q0 d2 2 1.0 r\nq4 Q0 d1 1 1.0 r\n")


@pytest.fixture
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return qrels, run


def cli(*args):
    return subprocess.run([sys.executable, "-m", "metrics_lib", *map(str, args)],
                          capture_output=True, text=True, timeout=60)


def test_readers_return_evaluate_ready_tables(files):
    qrels, run = files
    truth = read_trec_qrels(qrels)
    assert list(truth.columns) == ["user", "iteration", "item", "relevance"]
    assert truth["relevance"].tolist() == [1, 2, 0, 1, 1]
    recs = read_trec_run(run)
    assert len(recs) == 6  # the blank line is skipped
    assert recs["item"].tolist()[:3] == ["d1", "d2", "d3"]
    assert recs["score"].tolist()[:3] == [3.0, 2.0, 1.0]


@pytest.mark.parametrize("text, line, match", [
    ("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0\n", 2, "has 6 fields, this one has 5"),
    ("q1 Q0 d1 1 3.0 r\n\nq1 Q0 d2 2 2.0 r extra\n", 3, "this one has 7"),
    ("q1 Q0 d1 1 high r\n", 1, r"field 5 \(score\) must be a finite number"),
    ("q1 Q0 d1 one 1.0 r\n", 1, r"field 4 \(rank\)"),
    ("q1 Q0 d1 1 nan r\n", 1, "finite number"),
])
def test_malformed_run_lines_name_file_and_line(tmp_path, text, line, match):
    path = tmp_path / "bad.run"
    path.write_text(text)
    with pytest.raises(ValueError, match=f"bad.run:{line}: .*{match}"):
        read_trec_run(path)


def test_malformed_qrels_line(tmp_path):
    path = tmp_path / "bad.qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2\n")
    with pytest.raises(ValueError, match="bad.qrels:2: a qrels line has 4 fields"):
        read_trec_qrels(path)
    path.write_text("q1 0 d1 yes\n")
    with pytest.raises(ValueError, match=r"bad.qrels:1: field 4 \(relevance\)"):
        read_trec_qrels(path)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such run file"):
        read_trec_run(tmp_path / "nope.txt")


def test_cli_tsv_per_query_and_mean(files):
    qrels, run = files
    done = cli(qrels, run, "-m", "map", "mrr", "P_2", "-q")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    values = {(m.strip(), q): v for m, q, v in rows}
    # q1: d1 (rank 1, rel) d2 d3 (rank 3, rel) of 2 relevant -> AP = (1 + 2/3) / 2
    assert values[("map", "q1")] == "0.8333"
    # q2: d7 and d2 tie at 1.0; trec_eval puts d7 first (docno descending)
    assert values[("mrr", "q2")] == "0.5000"
    assert values[("map", "q3")] == "0.0000"      # judged, never run: counts 0
    assert ("map", "q4") not in values             # run, never judged: ignored
    assert values[("num_q", "all")] == "3"
    assert values[("map", "all")] == f"{(0.8333333333 + 0.5 + 0) / 3:.4f}"
    assert values[("P_2", "all")] == f"{(0.5 + 0.5 + 0) / 3:.4f}"


def test_cli_json_and_skip_missing(files):
    qrels, run = files
    done = cli(qrels, run, "-m", "ndcg@10", "map", "--format", "json", "-q",
               "--skip-missing")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["num_queries"] == 2
    assert set(payload["per_query"]) == {"q1", "q2"}
    assert payload["mean"]["map"] == pytest.approx((5 / 6 + 0.5) / 2)


def test_cli_reports_malformed_line_and_fails(tmp_path, files):
    qrels, _ = files
    bad = tmp_path / "broken.run"
    bad.write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 oops r\n")
    done = cli(qrels, bad, "-m", "map")
    assert done.returncode == 1
    assert done.stdout == ""
    assert "broken.run:2: field 5 (score) must be a finite number; got 'oops'" in done.stderr


def test_cli_unknown_metric(files):
    qrels, run = files
    done = cli(qrels, run, "-m", "ndgc@10")
    assert done.returncode == 1
    assert "unknown metric 'ndgc@10'" in done.stderr
