"""The command line's numpy-only path (``metrics_lib.dropin``) against trec_eval 10.0.

Seeded random TREC files with what real files have (ties, scores that are
equal as float32 but not as float64, graded qrels with grades 0 and below,
queries only in the run or only in the qrels, lists shorter than 5 and than
1000, a query without a relevant document, numeric ids whose byte order is
not their numeric order, a tag that changes on the last line) are evaluated
by the trec_eval binary built from third_party/ and by
:func:`metrics_lib.dropin.run`; the outputs must be the same bytes, and the
fast path must be the one taken (it returns the text, not None). Cases it
leaves to the path through evaluate() (a document twice, a query of the qrels
missing from the run without -c) must return None. Issue 25, point 5.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from metrics_lib import dropin
from metrics_lib.cli import build_parser, main

ROOT = pathlib.Path(__file__).resolve().parents[1]
TREC_EVAL = pathlib.Path(os.environ.get("TREC_EVAL", ROOT / "_build" / "trec_eval" / "trec_eval"))

OPTIONS = ([], ["-q"], ["-q", "-c"], ["-c"], ["-q", "-l", "2"], ["-q", "-l", "0"],
           ["-q", "-M", "10"], ["-q", "-M", "3", "-c"], ["-q", "-M", "0"],
           ["-c", "-M", "0"], ["-q", "-m", "map", "-m", "P.5"],
           ["-q", "-J"], ["-q", "-J", "-c", "-M", "2"], ["-q", "-n"],
           ["-q", "-m", "iprec_at_recall.0.5,1.5,-1", "-m", "recall.3", "-m", "success",
            "-m", "map_cut.2,1000", "-m", "num_q", "-m", "gm_map"],
           ["-q", "-m", "runid", "-m", "num_q"])


@pytest.fixture(scope="module")
def binary():
    if not TREC_EVAL.is_file():
        pytest.skip("no trec_eval binary (make trec_eval)")
    return TREC_EVAL


def _ids(rng, n, numeric):
    """``n`` distinct ids; numeric ones ("9" > "10" as bytes) or with letters."""
    numbers = rng.choice(5_000, size=n, replace=False)
    return [str(x) if numeric else f"d{x}" for x in numbers.tolist()]


def _query(rng, qid, only_qrels=False):
    """Run and qrels lines of one query."""
    length = int(rng.choice([1, 3, 4, 7, 30, 120, 1_100]))
    docs = _ids(rng, length + 10, numeric=bool(rng.random() < 0.5))
    ranked, unranked = docs[:length], docs[length:]
    # few distinct scores (ties); some written as float32 neighbours of others
    scores = np.round(rng.random(length) * rng.choice([2, 10, 1_000]), 1)
    texts = [repr(float(np.float32(s))) if rng.random() < 0.2 else repr(float(s))
             for s in scores.tolist()]
    tags = ["tagA"] * length
    run = [] if only_qrels else [f"{qid} Q0 {d} {r} {s} {t}"
                                 for r, (d, s, t) in enumerate(zip(ranked, texts, tags))]
    n_judged = int(rng.integers(1, min(length, 12) + 1))
    judged = list(rng.choice(ranked, size=n_judged, replace=False)) + unranked[:4]
    grades = rng.choice([-1, 0, 0, 1, 2, 3], size=len(judged))
    if rng.random() < 0.15:  # no relevant document
        grades = np.minimum(grades, 0)
    qrels = [f"{qid} 0 {d} {g}" for d, g in zip(judged, grades.tolist())]
    return run, qrels


def write_pair(tmp_path, seed, *, qrels_only=False, duplicate=None):
    """A seeded qrels and run file; ``qrels_only``: one query the run lacks."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 25))
    qids = _ids(rng, n + 2, numeric=bool(rng.random() < 0.6))
    run, qrels = [], []
    for i, qid in enumerate(qids):
        r, q = _query(rng, qid, only_qrels=qrels_only and i == n)
        run += r
        if i <= n - (0 if qrels_only else 1):  # the last query: only in the run
            qrels += q
    rng.shuffle(run)
    rng.shuffle(qrels)
    run[-1] = run[-1].rsplit(" ", 1)[0] + " lastTag"  # runid: the last line's tag
    if duplicate == "run":
        run.append(run[0].rsplit(" ", 2)[0] + " 0.5 tagA")
    elif duplicate == "qrels":
        qrels.append(qrels[0])
    qrels_path, run_path = tmp_path / f"qrels{seed}", tmp_path / f"run{seed}"
    qrels_path.write_text("".join(line + "\n" for line in qrels))
    run_path.write_text("".join(line + "\n" for line in run))
    return qrels_path, run_path


def _fast(options, qrels_path, run_path):
    args = build_parser().parse_intermixed_args([*options, str(qrels_path), str(run_path)])
    return dropin.run(args)


def _reference(binary, options, qrels_path, run_path):
    done = subprocess.run([str(binary), *options, str(qrels_path), str(run_path)],
                          capture_output=True, timeout=60)
    return done.returncode, done.stdout.decode()


@pytest.mark.parametrize("seed", range(24))
def test_fast_path_prints_trec_eval_bytes(binary, tmp_path, seed):
    qrels_path, run_path = write_pair(tmp_path, seed, qrels_only=seed % 3 == 0)
    for options in OPTIONS:
        if seed % 3 == 0 and "-c" not in options:
            continue  # trec_eval stops there (exit 4): test_left_to_the_other_path
        code, expected = _reference(binary, options, qrels_path, run_path)
        assert code == 0, options
        text = _fast(options, qrels_path, run_path)
        assert text is not None, f"fast path not taken for {options}"
        assert text == expected, f"seed {seed}, options {options}"


@pytest.mark.parametrize("case", ["run", "qrels", "missing"])
def test_left_to_the_other_path(binary, tmp_path, capsysbinary, case):
    """A document twice, or a qrels query the run lacks: None, and main() is trec_eval."""
    qrels_path, run_path = write_pair(tmp_path, 5, qrels_only=case == "missing",
                                      duplicate=None if case == "missing" else case)
    assert _fast(["-q"], qrels_path, run_path) is None
    code, expected = _reference(binary, ["-q"], qrels_path, run_path)
    assert main(["-q", str(qrels_path), str(run_path)]) == code == 4
    assert capsysbinary.readouterr().out.decode() == expected


def test_main_takes_the_fast_path_and_writes_its_text(tmp_path, capsysbinary, monkeypatch):
    qrels_path, run_path = write_pair(tmp_path, 7)
    expected = _fast(["-q"], qrels_path, run_path)
    assert expected is not None
    # the path through evaluate() must not be reached
    monkeypatch.setattr("metrics_lib.cli._read", lambda *a: pytest.fail("slow path taken"))
    assert main(["-q", str(qrels_path), str(run_path)]) == 0
    assert capsysbinary.readouterr().out.decode() == expected


def test_a_last_line_without_newline_is_read_as_trec_eval_reads_it(tmp_path, binary):
    # trec_eval adds the missing "\n" itself (get_trec_results.c, get_qrels.c)
    qrels_path, run_path = write_pair(tmp_path, 3)
    run_path.write_bytes(run_path.read_bytes().rstrip(b"\n"))
    qrels_path.write_bytes(qrels_path.read_bytes().rstrip(b"\n"))
    code, expected = _reference(binary, ["-q"], qrels_path, run_path)
    assert code == 0
    assert _fast(["-q"], qrels_path, run_path) == expected


def test_odd_files_are_left_to_the_other_path(tmp_path):
    qrels_path, run_path = write_pair(tmp_path, 3)
    plain = run_path.read_bytes()
    for odd in (plain.replace(b" ", b"\t", 1), plain.replace(b"\n", b"\r\n"),
                b"# comment\n" + plain, plain + b"\n", plain.replace(b" Q0 ", b" Q0  ", 1),
                plain.replace(b" tagA\n", b"\n", 1),
                plain.replace(b" tagA\n", b" tagA extra\n", 1), b"\xef\xbb\xbf" + plain):
        run_path.write_bytes(odd)
        assert _fast(["-q"], qrels_path, run_path) is None, odd[:80]


def test_command_line_imports_no_pandas(tmp_path):
    qrels_path, run_path = write_pair(tmp_path, 11)
    probe = textwrap.dedent(f"""
        import sys
        from metrics_lib.cli import main
        assert main(["-q", {str(qrels_path)!r}, {str(run_path)!r}]) == 0
        heavy = [m for m in ("pandas", "pyarrow", "scipy") if m in sys.modules]
        print("HEAVY", heavy, file=sys.stderr)
        """)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert done.returncode == 0, done.stderr
    assert "HEAVY []" in done.stderr


def test_written_out_tables_match_the_grammar():
    """The default measures and the count measures, copied to spare the registry import."""
    from metrics_lib import _cli_measures, _cli_output

    measures, notes = _cli_measures._parse_measures(["official"])
    assert list(measures.items()) == list(dropin._OFFICIAL.items()) and not notes
    assert _cli_measures._columns(measures) == dropin._OFFICIAL_COLUMNS
    registry_counts = tuple(name for name in _cli_measures._TABLE
                            if name in _cli_measures._TRECS
                            and _cli_measures._TRECS[name].integer)
    assert _cli_output._COUNTS == registry_counts


def test_default_command_line_does_not_load_the_metric_registry(tmp_path):
    qrels_path, run_path = write_pair(tmp_path, 13)
    probe = textwrap.dedent(f"""
        import sys
        from metrics_lib.cli import main
        assert main([{str(qrels_path)!r}, {str(run_path)!r}]) == 0
        print("LOADED", [m for m in ("metrics_lib.ranking", "metrics_lib._cli_measures")
                         if m in sys.modules], file=sys.stderr)
        """)
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60)
    assert done.returncode == 0, done.stderr
    assert "LOADED []" in done.stderr
