"""trec_eval 10.0's own test suite (its Makefile's ``quicktest``), run on this CLI.

The test files are read straight from the unmodified trec_eval tarball in
``third_party/`` (NIST licence, notice in third_party/trec_eval-LICENSE.md).
For every quicktest line whose measures this library offers, every line the
library prints must equal trec_eval's expected output byte for byte, and no
expected line of an offered measure may be missing.
"""

import pathlib
import subprocess
import sys
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
TARBALL = ROOT / "third_party" / "trec_eval-10.0-f425365.tar.gz"
OFFERED = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
           "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "recall", "ndcg",
           "ndcg_cut", "map_cut", "success")
ALL = [arg for name in OFFERED for arg in ("-m", name)]  # all_trec, restricted

# (quicktest line of trec_eval's Makefile, our arguments, expected output file)
QUICKTEST = [
    ("qrels.test results.test", ["qrels.test", "results.test"], "out.test"),
    ("qrels.test.with-comments results.test",
     ["qrels.test.with-comments", "results.test"], "out.test"),
    ("qrels.comment.test results.comment.test",
     ["qrels.comment.test", "results.comment.test"], "out.comment.test"),
    ("-m all_trec", [*ALL, "qrels.test", "results.test"], "out.test.a"),
    ("-m all_trec -q", [*ALL, "-q", "qrels.test", "results.test"], "out.test.aq"),
    ("-m all_trec -q -c results.trunc",
     [*ALL, "-q", "-c", "qrels.test", "results.trunc"], "out.test.aqc"),
    ("-m all_trec -q -c -M100 results.trunc",
     [*ALL, "-q", "-c", "-M100", "qrels.test", "results.trunc"], "out.test.aqcM"),
    ("-m all_trec -q -l2 qrels.rel_level",
     [*ALL, "-q", "-l2", "qrels.rel_level", "results.test"], "out.test.aql"),
    ("-q -m iprec_at_recall/P/recall/ndcg_cut/success with parameters",
     ["-q", "-miprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m",
      "recall.20,2000", "-mndcg_cut.10,20,23.4", "-msuccess.2,5,20",
      "qrels.test", "results.test"], "out.test.meas_params"),
]


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trec_eval_suite")
    with tarfile.open(TARBALL) as tar:
        members = [m for m in tar.getmembers()
                   if m.isfile() and m.name.startswith("test/")]
        for member in members:
            (folder / pathlib.Path(member.name).name).write_bytes(
                tar.extractfile(member).read())
    return folder


def offered(line: bytes) -> bool:
    name = line.split(b"\t", 1)[0].strip().decode()
    if "=" in name or "," in name:  # custom gains (ndcg_1=3,...), utility_a,b,c,d
        return False
    base = name.rsplit("_", 1)[0] if name[-1].isdigit() else name
    if name.startswith("iprec_at_recall_"):
        base = "iprec_at_recall"
    return name in OFFERED or base in OFFERED


@pytest.mark.parametrize("label, args, expected", QUICKTEST,
                         ids=[case[0] for case in QUICKTEST])
def test_quicktest_line(suite, label, args, expected):
    argv = [str(suite / a) if (suite / a).is_file() else a for a in args]
    done = subprocess.run([sys.executable, "-m", "metrics_lib", *argv],
                          capture_output=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr.decode()
    ours = done.stdout.splitlines(keepends=True)
    theirs = [line for line in (suite / expected).read_bytes().splitlines(keepends=True)
              if offered(line)]
    assert len(theirs) > 0
    assert ours == theirs
