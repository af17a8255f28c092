"""The drop-in's numpy reader (metrics_lib/dropin/reading.py) against metrics_lib.trec.

``read_trec_arrays`` must give, for every file it accepts, exactly the ids,
scores, grades and run tag that the reader the command line uses today
(``metrics_lib.trec._run_columns`` / ``_qrels_columns`` with ``exact=True``)
gives, and ``None`` for every file that it cannot read so (the caller then
falls back to that reader). Random plain files must be accepted; odd files
(CR, tab, comments, other field counts, spellings C's ``atof`` reads
differently, non-UTF-8 bytes, ...) may be refused but never read differently.
"""

import gzip
import subprocess
import sys

import numpy as np
import pytest

from metrics_lib.dropin import reading
from metrics_lib.dropin.reading import read_trec_arrays
from metrics_lib.trec import _qrels_columns, _run_columns


# ---------------------------------------------------------------- comparison
def existing(run_path, qrels_path):
    """What metrics_lib.trec reads (as the command line calls it), or the error."""
    try:
        users, items, scores, tag, encoding, _ = _run_columns(str(run_path), "run", exact=True)
        q_users, q_items, grades, q_encoding, _ = _qrels_columns(str(qrels_path), "qrels",
                                                                  exact=True)
    except ValueError as error:
        return error
    return {"run_query": users.to_pylist(), "run_doc": items.to_pylist(),
            "run_score": np.asarray(scores, dtype=np.float64), "run_tag": tag,
            "qrels_query": q_users.to_pylist(), "qrels_doc": q_items.to_pylist(),
            "qrels_grade": np.asarray(grades), "encodings": {encoding, q_encoding}}


def decoded(arrays):
    """The arrays as per-line lists of str (UTF-8), as ``existing`` gives them."""
    queries = [value.decode("utf-8") for value in arrays.query_ids.tolist()]
    docs = [value.decode("utf-8") for value in arrays.doc_ids.tolist()]
    return {"run_query": [queries[c] for c in arrays.run_query.tolist()],
            "run_doc": [docs[c] for c in arrays.run_doc.tolist()],
            "qrels_query": [queries[c] for c in arrays.qrels_query.tolist()],
            "qrels_doc": [docs[c] for c in arrays.qrels_doc.tolist()]}


def same_floats(a, b):
    return (a.shape == b.shape and np.array_equal(a, b, equal_nan=True)
            and np.array_equal(np.signbit(a), np.signbit(b)))


def check(tmp_path, run: bytes, qrels: bytes, *, plain: bool | None = None):
    """Read both files with both readers; the new one must agree or say None."""
    run_path, qrels_path = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run_path.write_bytes(run)
    qrels_path.write_bytes(qrels)
    arrays = read_trec_arrays(run_path, qrels_path)
    if plain is not None:
        assert (arrays is not None) == plain, (run[:300], qrels[:300])
    if arrays is None:
        return None
    want = existing(run_path, qrels_path)
    assert not isinstance(want, Exception), f"accepted what metrics_lib.trec refuses: {want}"
    assert want["encodings"] == {"utf-8"}
    got = decoded(arrays)
    for key in ("run_query", "run_doc", "qrels_query", "qrels_doc"):
        assert got[key] == want[key], key
    assert same_floats(arrays.run_score, want["run_score"])
    assert arrays.run_tag == want["run_tag"]
    assert np.array_equal(arrays.qrels_grade, want["qrels_grade"])
    assert arrays.run_score.dtype == np.float64 and arrays.qrels_grade.dtype == np.int64
    for codes in (arrays.run_query, arrays.run_doc, arrays.qrels_query, arrays.qrels_doc):
        assert codes.dtype == np.int32
    # vocabularies: sorted bytewise (strcmp), unique, exactly the ids of both files
    for vocab, columns in ((arrays.query_ids, ("run_query", "qrels_query")),
                           (arrays.doc_ids, ("run_doc", "qrels_doc"))):
        values = vocab.tolist()
        assert all(a < b for a, b in zip(values, values[1:])), "not sorted or not unique"
        ids = {value for key in columns for value in want[key]}
        assert {value.decode("utf-8") for value in values} == ids
    return arrays


# ---------------------------------------------------------------- random plain files
def _id(rng, style: str, prefix: str) -> str:
    if style == "int":  # integer-looking: bytes order differs from numeric order
        return str(int(rng.integers(0, 120)))
    if style == "int64":
        return str(int(rng.integers(0, 2**63 - 1, dtype=np.int64)))
    if style == "mixed":  # mixed lengths, shared prefixes, a UTF-8 id now and then
        stem = prefix + "x" * int(rng.integers(0, 3)) + str(int(rng.integers(0, 30)))
        return stem + ("\u00e9" if rng.random() < 0.1 else "")
    if style == "utf8":
        return rng.choice(["文档", "doc-é", "ü", "zz", "Ω"]) + str(int(rng.integers(0, 20)))
    return f"{prefix}{int(rng.integers(0, 1000))}"


def _score(rng) -> str:
    kind = rng.integers(0, 12)
    if kind == 0:  # float32-equal but float64-different spellings
        value = np.float32(rng.random())
        return rng.choice([str(value), repr(float(value))])
    if kind == 1:
        return f"{rng.normal() * 10 ** int(rng.integers(-5, 6)):.6e}"
    if kind == 2:
        return rng.choice(["1E+3", "2.5e-3", "-7e2", "1e400", "-1e400", "1e-400", "5.e3",
                           ".5", "5.", "+3", "-0", "-0.0", "0.000", "+.25", "-.75"])
    if kind == 3:  # more than 15 digits: numpy's cast
        return rng.choice(["123456789012345678", "0.1000000000000000055511151231257827",
                           "-9007199254740993", "3.14159265358979323846"])
    if kind == 4:
        return str(-int(rng.integers(0, 50)))
    return f"{rng.integers(0, 20) / rng.choice([1, 4, 10]):.{int(rng.integers(0, 4))}f}"


def random_plain(rng):
    """A plain run and qrels (bytes): what read_trec_arrays must accept."""
    styles = ["int", "int64", "mixed", "utf8", "plain"]
    query_style, doc_style = rng.choice(styles), rng.choice(styles)
    queries = sorted({_id(rng, query_style, "q") for _ in range(int(rng.integers(1, 9)))})
    run, qrels = [], []
    for query in queries:
        where = rng.random()
        docs = [_id(rng, doc_style, "d") for _ in range(int(rng.integers(1, 25)))]
        if where < 0.85:  # else: a query of the qrels only
            tag = rng.choice(["bm25", "run-é", "t" * int(rng.integers(1, 40))])
            for rank, doc in enumerate(dict.fromkeys(docs), start=1):
                run.append(f"{query} Q0 {doc} {rank} {_score(rng)} {tag}")
        if where > 0.15 and rng.random() < 0.9:  # else: a query of the run only
            for doc in dict.fromkeys(rng.choice(docs, size=int(rng.integers(1, 8)))):
                grade = rng.choice(["0", "1", "2", "3", "-1", "2.7", "-0.5", "1.", "+2",
                                    "007", "-2", "12.000"])
                qrels.append(f"{query} 0 {doc} {grade}")
    if not run:
        run.append(f"{queries[0]} Q0 dz 1 1.0 tag")
    if not qrels:
        qrels.append(f"{queries[0]} 0 dz 1")
    order = rng.permutation(len(run)) if rng.random() < 0.3 else np.arange(len(run))
    run = [run[i] for i in order]
    end = ["\n", ""]
    return (("\n".join(run) + rng.choice(end)).encode(),
            ("\n".join(qrels) + rng.choice(end)).encode())


@pytest.mark.parametrize("seed", range(60))
def test_random_plain_files_read_as_metrics_lib_trec(tmp_path, seed):
    rng = np.random.default_rng(seed)
    run, qrels = random_plain(rng)
    check(tmp_path, run, qrels, plain=True)


@pytest.mark.parametrize("seed", range(12))
def test_small_blocks_and_merged_pieces(tmp_path, monkeypatch, seed):
    """Blocks of a few bytes (lines cut, longer than a block) and vocabularies
    merged many times give the same arrays as one block."""
    rng = np.random.default_rng(1000 + seed)
    run, qrels = random_plain(rng)
    whole = check(tmp_path, run, qrels, plain=True)
    monkeypatch.setattr(reading, "_BLOCK", int(rng.integers(8, 200)))
    monkeypatch.setattr(reading, "_PENDING", int(rng.integers(0, 300)))
    blocks = check(tmp_path, run, qrels, plain=True)
    for field in ("query_ids", "doc_ids", "run_query", "run_doc", "run_score",
                  "qrels_query", "qrels_doc", "qrels_grade"):
        assert np.array_equal(getattr(whole, field), getattr(blocks, field)), field


def test_ids_sort_as_bytes_not_as_numbers(tmp_path):
    run = b"".join(b"1 Q0 %d 1 %d.5 r\n" % (doc, doc % 3) for doc in (9, 10, 100, 2, 19))
    qrels = b"10 0 9 1\n9 0 2 1\n"
    arrays = check(tmp_path, run, qrels, plain=True)
    assert arrays.doc_ids.tolist() == [b"10", b"100", b"19", b"2", b"9"]
    assert arrays.query_ids.tolist() == [b"1", b"10", b"9"]
    big = [2**63 - 1, 2**62, 9, 2**53 + 1, 2**53]
    run = b"".join(b"q Q0 %d 1 1 r\n" % doc for doc in big)
    arrays = check(tmp_path, run, qrels, plain=True)
    assert arrays.doc_ids.tolist() == sorted({str(d).encode() for d in big + [9, 2]})


def test_float32_equal_scores_stay_distinct(tmp_path):
    run = b"q Q0 a 1 0.1 r\nq Q0 b 2 0.100000001 r\nq Q0 c 3 0.10000000149011612 r\n"
    arrays = check(tmp_path, run, b"q 0 a 1\n", plain=True)
    assert len(set(arrays.run_score.tolist())) == 3
    assert arrays.run_score.tolist() == [0.1, 0.100000001, 0.10000000149011612]


def test_tag_of_the_last_line_and_no_final_newline(tmp_path):
    run = b"q Q0 a 1 2 first\nq Q0 b 2 1 " + b"L" * 300 + b"\nq Q0 c 3 0 last-tag"
    arrays = check(tmp_path, run, b"q 0 a 1", plain=True)
    assert arrays.run_tag == "last-tag" and arrays.run_score.tolist() == [2, 1, 0]


def test_atof_and_atol_values(tmp_path):
    scores = [b"5.", b".5", b"+3", b"-0", b"1e400", b"-1E400", b"1e-400", b"2.5e+2",
              b"12345678901234567890", b"0.30000000000000004", b"-12.250"]
    run = b"".join(b"q Q0 d%d 1 %s r\n" % (i, s) for i, s in enumerate(scores))
    grades = [b"2.7", b"-1", b"-0.5", b"+2", b"3.", b"999999999999999999"]
    qrels = b"".join(b"q 0 d%d %s\n" % (i, g) for i, g in enumerate(grades))
    arrays = check(tmp_path, run, qrels, plain=True)
    assert same_floats(arrays.run_score, np.array([5, 0.5, 3, -0.0, np.inf, -np.inf, 0.0, 250,
                                                   1.2345678901234567e19,
                                                   0.30000000000000004, -12.25]))
    assert arrays.qrels_grade.tolist() == [2, -1, 0, 2, 3, 999999999999999999]


# ---------------------------------------------------------------- odd files
RUN = b"q1 Q0 d1 1 2.5 tag\nq1 Q0 d2 2 1.5 tag\nq2 Q0 d1 1 0.5 tag\n"
QRELS = b"q1 0 d1 1\nq2 0 d3 2\n"
ODD_RUNS = [
    RUN.replace(b"\n", b"\r\n"), RUN.replace(b" Q0", b"\tQ0"), RUN.replace(b"\nq2", b"\n\nq2"),
    b"\n" + RUN, RUN + b"\n", b"\xef\xbb\xbf" + RUN, b" " + RUN, RUN.replace(b"tag\n", b"tag \n"),
    RUN.replace(b"Q0 d2", b"Q0  d2"), RUN.replace(b" tag\nq2", b"\nq2"),
    RUN.replace(b" tag\nq2", b" tag extra\nq2"), b"# comment\n" + RUN,
    RUN.replace(b"d2", b"d#2"), RUN.replace(b"d2", b"d\xff2"), RUN.replace(b"d2", b"d\x002"),
    RUN.replace(b"d2", b"d\x0b2"), RUN.replace(b"d2", b"d" + b"x" * 300),
    b"", b"\n", b"q1 Q0 d1 1 2.5 tag\r",
] + [RUN.replace(b"1.5", value) for value in (
    b"1e", b"1e+", b"nan", b"NaN", b"inf", b"-inf", b"Infinity", b"0x10", b"0x1p3", b"1_000",
    b"5abc", b"abc", b"+", b"-", b".", b"e5", b"1.2.3", b"1e5.5", b"--1", b"1-", b"1e1e1",
    b"1e99999999999999999999", b"\xd9\xa3", b"1" * 400, b"0." + b"0" * 300 + b"1")]
ODD_QRELS = [
    QRELS.replace(b"\n", b"\r\n"), QRELS.replace(b" 0 d1", b"\t0 d1"), b"\n" + QRELS,
    QRELS.replace(b"\nq2", b"\n\nq2"), QRELS + b"\n", b"# c\n" + QRELS, b"\xef\xbb\xbf" + QRELS,
    QRELS.replace(b" 1\n", b" 1 x\n"), QRELS.replace(b" 1\n", b"\n"), b"", b"q1 0 d\xe9 1\n",
] + [QRELS.replace(b"d1 1", b"d1 " + value) for value in (
    b"1e2", b".5", b"-.5", b"abc", b"1x", b"+", b"0x10", b"99999999999999999999",
    b"-99999999999999999999", b"1.5.", b"nan", b"2,5")]


@pytest.mark.parametrize("run", ODD_RUNS)
def test_odd_runs_refused_or_read_the_same(tmp_path, run):
    check(tmp_path, run, QRELS)


@pytest.mark.parametrize("qrels", ODD_QRELS)
def test_odd_qrels_refused_or_read_the_same(tmp_path, qrels):
    check(tmp_path, RUN, qrels)


def test_what_must_be_refused(tmp_path):
    """Files whose plain reading would differ from trec_eval's give None."""
    for run in (b"q1 Q0 d1 1 0x10 t\n", b"q1 Q0 d1 1 nan t\n", b"q1 Q0 d1 1 1_0 t\n",
                b"q1 Q0 d1 1 5abc t\n", b"\xef\xbb\xbfq1 Q0 d1 1 1 t\n", b"q1 Q0 d\xff 1 1 t\n",
                b"q1 Q0 d1 1 1 t x\n", b"q1 Q0 d1 1 1 t\r\n", b"# c\nq1 Q0 d1 1 1 t\n", b""):
        assert check(tmp_path, run, QRELS) is None, run
    for qrels in (b"q1 0 d1 1e2\n", b"q1 0 d1 .5\n", b"q1 0 d1 99999999999999999999\n",
                  b"# c\nq1 0 d1 1\n", b"q1 0 d1 1\n\n", b""):
        assert check(tmp_path, RUN, qrels) is None, qrels


def test_not_a_plain_path(tmp_path, monkeypatch):
    (tmp_path / "run.gz").write_bytes(gzip.compress(RUN))
    (tmp_path / "qrels.txt").write_bytes(QRELS)
    (tmp_path / "run.txt").write_bytes(RUN)
    assert read_trec_arrays(tmp_path / "run.txt", tmp_path / "qrels.txt") is not None
    assert read_trec_arrays(tmp_path / "run.gz", tmp_path / "qrels.txt") is None
    assert read_trec_arrays(tmp_path / "missing", tmp_path / "qrels.txt") is None
    assert read_trec_arrays(tmp_path, tmp_path / "qrels.txt") is None
    assert read_trec_arrays("-", tmp_path / "qrels.txt") is None
    assert read_trec_arrays(str(tmp_path / "run.txt"), b"qrels") is None


def test_inputs_are_not_held_as_python_lines(tmp_path, monkeypatch):
    """A file of many blocks is read block by block: no block is bigger than the
    block size plus one line."""
    run, qrels = random_plain(np.random.default_rng(7))
    run = run.rstrip(b"\n") + b"\n"
    sizes = []
    original = reading._fields

    def spy(data, end, n_fields):
        sizes.append(end)
        return original(data, end, n_fields)

    monkeypatch.setattr(reading, "_fields", spy)
    monkeypatch.setattr(reading, "_BLOCK", 256)
    check(tmp_path, run * 20, qrels, plain=True)
    longest = max(len(line) + 1 for line in run.split(b"\n"))
    assert len(sizes) > 10 and max(sizes) <= 256 + longest


def test_import_needs_only_numpy():
    code = ("import sys, metrics_lib.dropin.reading; "
            "print(sorted(m for m in ('pandas', 'pyarrow', 'scipy') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_vocabulary_merged_while_reading(tmp_path, monkeypatch):
    """Pieces merged several times during the read (a big file's path) give the
    same codes; merges get rarer as the merged vocabulary grows."""
    rng = np.random.default_rng(5)
    run = b"".join(b"q%d Q0 doc%d %d %d r\n" % (i // 50, rng.integers(0, 400), i, i % 7)
                   for i in range(3000))
    qrels = b"".join(b"q%d 0 doc%d 1\n" % (q, d) for q in range(60) for d in range(0, 500, 97))
    whole = check(tmp_path, run, qrels, plain=True)
    calls = []
    original = reading._merge

    def spy(*columns):
        calls.append(len(columns))
        return original(*columns)

    monkeypatch.setattr(reading, "_merge", spy)
    monkeypatch.setattr(reading, "_BLOCK", 300)
    monkeypatch.setattr(reading, "_PENDING", 100)
    merged = check(tmp_path, run, qrels, plain=True)
    assert 4 < calls.count(1) < 200  # 600 blocks of the run
    for field in ("query_ids", "doc_ids", "run_query", "run_doc", "qrels_query", "qrels_doc"):
        assert np.array_equal(getattr(whole, field), getattr(merged, field)), field


@pytest.mark.parametrize("case", ["digits", "prefix", "wide-bytes", "long", "same", "one"])
def test_unique_is_numpys_unique(case):
    """The three sorting paths of reading._unique (packed ranks, 8-byte keys,
    np.unique) against np.unique: same sorted values, same inverse."""
    rng = np.random.default_rng(11)
    n = 3000
    if case == "digits":  # packed ranks
        values = [str(v).encode() for v in rng.integers(0, 10**6, n)]
    elif case == "prefix":
        values = [b"clueweb09-en00%02d-%d" % (a, b) for a, b in rng.integers(0, 40, (n, 2))]
    elif case == "wide-bytes":  # <= 8 bytes of ~250 byte values: 8-byte keys
        values = [bytes(rng.integers(1, 256, int(rng.integers(1, 9))).tolist()) for _ in range(n)]
        values += values[:500]
    elif case == "long":  # np.unique
        values = [bytes(rng.integers(1, 256, int(rng.integers(9, 30))).tolist()) for _ in range(n)]
    elif case == "same":
        values = [b"d1"] * 10
    else:
        values = [b"x"]
    tokens = np.array(values, dtype="S")
    vocab, inverse = reading._unique(tokens)
    want_vocab, want_inverse = np.unique(tokens, return_inverse=True)
    assert vocab.tolist() == want_vocab.tolist()
    assert inverse.dtype == np.int32 and inverse.tolist() == want_inverse.ravel().tolist()
