"""``python -m metrics_lib`` against the trec_eval 10.0 binary on generated command lines.

A small grammar of trec_eval's options (``trec_eval.c`` ``main``: getopt
``"hvqm:cl:nD:JN:M:R:T:oZ:"``; ``meas_init.c``: ``-m name.params`` with
comma-separated parameters read by ``atol``/``atof``, the first ``-m`` of a
measure with parameters wins, duplicate and non-positive cut-offs refused)
and of its file syntax (``get_qrels.c``, ``get_trec_results.c``: fields split
on ``isspace``, ``#`` comments, blank lines, trailing fields, grades read by
``atol`` and scores by ``atof``, arbitrarily long lines) generates a command
line with a qrels and a run file; both programs run on them and their stdout
bytes and exit codes must be equal. Where trec_eval stops (exit code != 0),
the command line must stop with the same code and print nothing on stdout.

The default run compares ``CASES`` cases (about a minute on one core); set
``TREC_CLI_GRAMMAR_CASES`` to compare more. The command line runs in-process
(``metrics_lib.cli.main``), the binary as a subprocess.

Left out of the grammar, because trec_eval's result there is undefined
(different from build to build) or a crash: a qrels file whose last line is a
comment, or with only comment lines (``get_qrels.c`` then parses the bytes
after the buffer's end); a query whose every grade is negative
(``form_res_rels.c`` allocates ``max_rel + 1 <= 0`` levels); a first
evaluated query that needs a 0-element buffer (``utility_pool.c``
``te_chk_and_malloc`` returns NULL); ``nan`` scores, whose order depends on
the C library's ``qsort`` (refused by the command line, tested below);
grades above a few thousand (one counter per grade is allocated).
"""

import contextlib
import io
import os
import subprocess

import numpy as np
import pytest

from metrics_lib import cli as cli_module
from test_trec_cli import TREC_EVAL, assert_same_output

CASES = int(os.environ.get("TREC_CLI_GRAMMAR_CASES", "600"))

needs_binary = pytest.mark.skipif(
    not TREC_EVAL.is_file(),
    reason=f"no trec_eval binary at {TREC_EVAL} (make trec_eval builds it; or set $TREC_EVAL)")


# ---------------------------------------------------------------- the grammar
CUT_MEASURES = ("P", "recall", "ndcg_cut", "map_cut", "success", "relative_P")
PLAIN_MEASURES = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                  "Rprec", "bpref", "recip_rank", "ndcg", "set_P", "set_recall", "set_map",
                  "set_F", "set_relative_P", "gm_bpref", "num_nonrel_judged_ret",
                  "binG", "G", "ndcg_rel", "Rndcg", "infAP")
# issue 29: printed by -m all_trec too (tests/test_trec_measures_trec1.py); rbp
# only under a non-negative -l (see there: its value with other measures is
# the one trec_eval prints alone)
TREC1_MEASURES = ("yaap", "utility", "11pt_avg", "relstring", "rbp_resid")
CUTOFF_SPELLINGS = ("1", "2", "3", "5", "10", "20", "100", "5.0", "5.9", "05", "+5", "3abc",
                    "0", "-2", "", "1000", "1_0", "2_5")
LEVEL_SPELLINGS = ("0", "0.1", "0.25", ".5", "0.5", "0.50", "0.555", "0.333333", "1", "1.0",
                   "0.99", "0.005", "1e-1", "+0.3", "-0.2", "1.5", "abc", "0.5x", "0_5",
                   "0.2_5")
# -l and -M values read by atol
LEVEL_OPTION = ("0", "1", "2", "3", "1.5", "+2", "2abc", "abc", "01", "0.9", "-1", "-2",
                "-1.5", "-7", "1_0", "2_0", "-9999999999999999999999",
                "-9223372036854775807", "-9223372036854775808", "9999999999999999999999")
DEPTH_OPTION = ("1", "2", "3", "5", "10", "0", "3.7", "+4", "4x", "1000", "1_0", "2_5")
# trec_eval.c options that change nothing this drop-in computes (-N: utility only,
# -o: obsolete, -D 0: no debug output, -R/-T: the default formats)
QUIET_OPTIONS = (["-N", "100"], ["-N100"], ["-D", "0"], ["-o"], ["-R", "qrels"],
                 ["-T", "trec_results"], ["--Number_docs_in_coll=5"], ["--Debug_level", "0"],
                 ["--Rel=qrels"], ["--Results_format", "trec_results"],
                 ["--Output_old_results_format", "x"])
# getopt_long: long names and unambiguous abbreviations, "=value" or a separate value
LONG_FLAGS = {"-q": ("--query_eval_wanted", "--query"), "-c": ("--complete_rel_info_wanted",
                                                               "--comp"),
              "-n": ("--nosummary", "--nos"), "-J": ("--Judged_docs_only", "--J")}
LONG_VALUES = {"-m": ("--measure", "--meas", "--m"), "-l": ("--level_for_rel", "--lev"),
               "-M": ("--Max_retrieved_per_topic", "--Max")}


def _long(rng, flag, value=None):
    """``flag [value]`` or one of getopt_long's spellings of it."""
    names = LONG_VALUES.get(flag) if value is not None else LONG_FLAGS.get(flag)
    if names is None or rng.random() >= 0.15:
        return [flag] if value is None else [flag, value]
    name = str(rng.choice(names))
    if value is None:
        return [name]
    return [f"{name}={value}"] if rng.random() < 0.5 else [name, value]


def _params(rng, spellings, *, max_params=4):
    count = int(rng.integers(1, max_params + 1))
    return ",".join(rng.choice(spellings) for _ in range(count))


def measure_spec(rng) -> str:
    """One ``-m`` argument."""
    kind = rng.random()
    if kind < 0.35:
        name = str(rng.choice(CUT_MEASURES))
        return name if rng.random() < 0.3 else f"{name}.{_params(rng, CUTOFF_SPELLINGS)}"
    if kind < 0.5:
        if rng.random() < 0.3:
            return "iprec_at_recall"
        return f"iprec_at_recall.{_params(rng, LEVEL_SPELLINGS, max_params=3)}"
    if kind < 0.85:
        name = str(rng.choice(PLAIN_MEASURES))
        if rng.random() < 0.1 and name != "ndcg":
            name += "." + str(rng.choice(["5", "x", "1,2"]))  # ignored by trec_eval
        return name
    if kind < 0.95:
        return str(rng.choice(["official", "official", "official.5", "all_trec"]))
    return str(rng.choice(["P.", "nonsense", "map_cutt", "ndcg.5", "."]))


def command_line(rng) -> tuple[list[str], set]:
    """Options (without the two file names) and the features used."""
    args, features = [], set()
    for _ in range(int(rng.integers(0, 5))):
        spec = measure_spec(rng)
        features.add("m:" + spec.split(".")[0] + ("." if "." in spec else ""))
        args += ["-m" + spec] if rng.random() < 0.2 else _long(rng, "-m", spec)
    if len(args) >= 2 and rng.random() < 0.3:  # an overlapping repeat
        args += args[-2:] if args[-2] == "-m" else args[-1:]
        features.add("m:repeated")
    for flag in ("-q", "-c", "-n", "-J"):
        if rng.random() < (0.5 if flag in ("-q", "-c") else 0.12):
            args += _long(rng, flag)
            features.add(flag)
    for flag, values in (("-l", LEVEL_OPTION), ("-M", DEPTH_OPTION)):
        if rng.random() < 0.2:
            value = str(rng.choice(values))
            args += [flag + value] if rng.random() < 0.3 else _long(rng, flag, value)
            features.add(f"{flag} {value}")
    if rng.random() < 0.1:
        option = QUIET_OPTIONS[int(rng.integers(len(QUIET_OPTIONS)))]
        args += option
        features.add(" ".join(option))
    order = rng.permutation(len(args)) if rng.random() < 0.1 else None
    if order is not None and all(a in ("-q", "-c", "-n", "-J", "-o") for a in args):
        args = [args[i] for i in order]
    return args, features


BOM = b"\xef\xbb\xbf"
QIDS = ("1", "2", "10", "q1", "q2", "Q9")
DOCS = tuple(f"d{i}" for i in range(14)) + ("D1", "d1x", "10", "9")
GRADES = ("0", "1", "2", "3", "1", "0", "-1", "+2", "2.7", "1e2", "0x3", "abc", "07", "-0",
          "2abc", "12", "1_0", "2_000")
SCORES = ("1", "2", "2.5", "0.25", "-1", "3", "1e1", "1E-2", "0x1p3", "0x1.8p1", "+5", "inf",
          "-inf", "Infinity", "INF", "5abc", "abc", ".5", "-0", "1e400", "-1e400", "1e-400",
          "1.", "3e", "0X10", "+.5e1", "-", "0.1", "0.30000000000000004", "1_000", "+1_0.5",
          "2_5", "1_0e1")
SEPARATORS = (" ", " ", " ", "\t", "  ", " \t ")


def _sep(rng):
    return str(rng.choice(SEPARATORS))


def qrels_file(rng, queries, features) -> bytes:
    lines = []
    for q in queries:
        docs = rng.choice(len(DOCS), size=int(rng.integers(1, 9)), replace=False)
        for i, d in enumerate(docs):
            # a non-negative first grade: an all-negative query crashes trec_eval
            grade = str(rng.choice(GRADES[:6] if i == 0 else GRADES))
            fields = [q, str(rng.choice(["0", "Q0", "iter"])), DOCS[d], grade]
            line = (_sep(rng) if rng.random() < 0.05 else "") + _sep(rng).join(fields)
            if rng.random() < 0.05:
                line += _sep(rng)  # trailing white space
            lines.append(line)
            if rng.random() < 0.06 and not lines[-1].startswith("#"):
                lines.append("# a comment 1 2")
                features.add("qrels:comment")
    rng.shuffle(lines)
    # the first line is never a comment (a comment needs a line after it)
    lines = [line for line in lines if not line.startswith("#")][:1] + \
        [line for line in lines if line.startswith("#")] + \
        [line for line in lines if not line.startswith("#")][1:]
    out = []
    for line in lines:  # two comments in a row: trec_eval parses the second one
        if line.startswith("#") and out and out[-1].startswith("#"):
            features.add("qrels:comment-pair")
            line = "#x 0 d0 1" if rng.random() < 0.5 else line
        out.append(line)
    if rng.random() < 0.03:
        out.insert(int(rng.integers(0, len(out) + 1)), str(rng.choice(["", "  ", "q1 0 d1",
                                                                       "q1 0 d1 1 x"])))
        features.add("qrels:malformed")
    if rng.random() < 0.03:
        out.insert(1, "  # indented")
        features.add("qrels:indented-comment")
    return _join(rng, out, features)


def _join(rng, lines, features) -> bytes:
    newline = "\r\n" if rng.random() < 0.1 else "\n"
    text = newline.join(lines)
    if rng.random() < 0.85:
        text += newline
    else:
        features.add("no-final-newline")
    return text.encode()


def run_file(rng, queries, features) -> bytes:
    lines = []
    # a first query with a relevant document retrieved (see the module notes)
    tag = "tag" if rng.random() < 0.8 else "t" * int(rng.integers(4000, 9000))
    for q in queries:
        docs = rng.choice(len(DOCS), size=int(rng.integers(1, len(DOCS))), replace=False)
        for d in docs:
            score = str(rng.choice(SCORES))
            fields = [q, "Q0", DOCS[d], str(rng.choice(["1", "x", "7"])), score, tag]
            if rng.random() < 0.08:
                fields += ["extra", "fields"]
            line = (_sep(rng) if rng.random() < 0.05 else "") + _sep(rng).join(fields)
            lines.append(line)
            if rng.random() < 0.04:
                lines.append(str(rng.choice(["", "   ", "# comment", "  # indented"])))
                features.add("run:blank-or-comment")
    rng.shuffle(lines)
    if rng.random() < 0.2:  # the last line's tag is the printed run id
        last = "long-" + "x" * int(rng.integers(3000, 9000))
        lines.append(f"{queries[0]} Q0 d13 1 -7 {last}")
        features.add("run:long-last-line")
    if rng.random() < 0.05:
        lines.append("# trailing comment")
    if rng.random() < 0.03:
        lines.insert(int(rng.integers(0, len(lines))), f"{queries[0]} Q0 dz 1 2")
        features.add("run:5-fields")
    if rng.random() < 0.03:
        lines.append(f"{queries[0]} Q0 d0 1 2 tag")  # d0 may be there already
        features.add("run:maybe-duplicate")
    return _join(rng, lines, features)


def make_case(seed):
    """(options, qrels bytes, run bytes, features) for one seed."""
    rng = np.random.default_rng(seed)
    args, features = command_line(rng)
    queries = sorted({str(q) for q in rng.choice(QIDS, size=int(rng.integers(1, 5)))})
    qrels_queries = [q for q in queries if rng.random() < 0.9] or queries[:1]
    run_queries = [q for q in queries if rng.random() < 0.9]
    if rng.random() < 0.2:
        run_queries.append("zz")  # only in the run
    # trec_eval's first evaluated query must have a relevant document retrieved
    anchor = b"0 0 a1 1\n0 0 a2 2\n0 0 a3 0\n"
    qrels = anchor + qrels_file(rng, qrels_queries, features)
    run = b"0 Q0 a1 1 3 tag\n0 Q0 a2 1 2 tag\n0 Q0 a9 1 1 tag\n"
    if run_queries:
        run += run_file(rng, run_queries, features)
    roll = rng.random()
    if roll < 0.02:
        qrels, features = b"", features | {"qrels:empty"}
    elif roll < 0.04:
        run, features = b"", features | {"run:empty"}
    elif roll < 0.06:
        run, features = b"# only a comment\n\n", features | {"run:comment-only"}
    if rng.random() < 0.04:  # a UTF-8 byte order mark: part of the first id for trec_eval
        qrels, features = BOM + qrels, features | {"qrels:bom"}
    if rng.random() < 0.04:
        run, features = BOM + run, features | {"run:bom"}
    return args, qrels, run, features


# ---------------------------------------------------------------- running both
def run_ours(args):
    """``metrics_lib.cli.main`` in-process: (exit code, stdout bytes, stderr text)."""
    out, err = io.TextIOWrapper(io.BytesIO()), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli_module.main(args)
        except SystemExit as stop:
            code = stop.code if isinstance(stop.code, int) else 1
    out.flush()
    return code, out.buffer.getvalue(), err.getvalue()


def offered_lines(output: bytes) -> bytes:
    """trec_eval's lines of the measures the command line offers (``-m all_trec``)."""
    def offered(name):
        family, _, suffix = name.rpartition("_")
        return (name in PLAIN_MEASURES or (family in CUT_MEASURES and suffix.isdigit())
                or name.startswith(("iprec_at_recall_", "set_F_"))
                or name in TREC1_MEASURES or name.startswith(("unj_", "Rprec_mult_")))
    return b"".join(line for line in output.splitlines(keepends=True)
                    if offered(line.split(b"\t")[0].strip().decode()))


def compare(seed, folder):
    """None when both agree, else a description of the difference."""
    args, qrels, run, features = make_case(seed)
    q_path, r_path = folder / f"qrels{seed}", folder / f"run{seed}"
    q_path.write_bytes(qrels)
    r_path.write_bytes(run)
    argv = [*args, str(q_path), str(r_path)]
    theirs = subprocess.run([str(TREC_EVAL), *argv], capture_output=True, timeout=60)
    if theirs.returncode < 0:
        return None  # a crash of trec_eval (undefined): nothing to compare
    code, stdout, stderr = run_ours(argv)
    detail = f"seed {seed}: {args} {sorted(features)}"
    if (code == 2 and "no run id" in stderr and "run:comment-only" in features
            and "-c" in features):
        return None  # trec_eval prints uninitialised memory as the run id
    if code != theirs.returncode:
        return (f"{detail}: exit {code} (trec_eval {theirs.returncode}); ours: "
                f"{stderr.strip()[:300]!r}; theirs: {theirs.stderr.decode()[:300]!r}")
    want = theirs.stdout
    if any(arg.endswith("all_trec") for arg in args):
        want = offered_lines(want)
    if code != 0:  # with -q, trec_eval prints the queries before an exit 4
        return None if stdout == want else (
            f"{detail}: stdout before the error: {stdout[-200:]!r}, trec_eval "
            f"{want[-200:]!r}")
    try:
        assert_same_output(stdout, want)
    except AssertionError:
        ours, want = stdout.splitlines(), want.splitlines()
        first = next((i for i, (a, b) in enumerate(zip(ours, want)) if a != b),
                     min(len(ours), len(want)))
        show = (lambda lines: lines[first][:120] if first < len(lines) else b"<end>")
        return (f"{detail}: line {first + 1}: ours {show(ours)!r}, trec_eval "
                f"{show(want)!r} ({len(ours)} vs {len(want)} lines)")
    return None


BATCH = 25


@needs_binary
@pytest.mark.parametrize("start", range(0, CASES, BATCH))
def test_generated_command_lines_equal_trec_eval(tmp_path, start):
    failures = [f for seed in range(start, min(start + BATCH, CASES))
                if (f := compare(seed, tmp_path)) is not None]
    assert not failures, "\n".join(failures)


@needs_binary
def test_grammar_reaches_both_outcomes(tmp_path):
    # the generator must exercise trec_eval's refusals as well as its outputs
    codes = set()
    for seed in range(60):
        args, qrels, run, _ = make_case(seed)
        (tmp_path / "q").write_bytes(qrels)
        (tmp_path / "r").write_bytes(run)
        codes.add(subprocess.run([str(TREC_EVAL), *args, str(tmp_path / "q"),
                                  str(tmp_path / "r")], capture_output=True).returncode)
    assert 0 in codes and len(codes) >= 3, codes


QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 2\nq2 0 d1 1\n"
RUN = b"q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d4 3 1 r\nq2 Q0 d9 1 1 r\nq2 Q0 d1 1 0 r\n"
# 101 relevant documents: lround(0.555 * 101) = 56 but lround(0.56 * 101) = 57
BIG_QRELS = b"".join(b"q 0 d%d 1\n" % i for i in range(101))
# relevant and non-relevant alternate: the k-th relevant at rank 2k - 1
BIG_RUN = b"".join(b"q Q0 d%d 1 %d r\nq Q0 n%d 1 %d r\n" % (i, -2 * i, i, -2 * i - 1)
                   for i in range(101))
CORNERS = {
    "first -m with parameters wins": (["-m", "P.5", "-m", "P.10"], QRELS, RUN),
    "bare then parameters": (["-m", "ndcg_cut", "-m", "ndcg_cut.10"], QRELS, RUN),
    "official then P.5": (["-m", "official", "-m", "P.5"], QRELS, RUN),
    "cut-off with decimals": (["-m", "P.5.0", "-m", "recall.2.9,1"], QRELS, RUN),
    "parameters of a plain measure": (["-m", "map.5", "-m", "num_q.x"], QRELS, RUN),
    "duplicate cut-offs": (["-m", "P.5,05"], QRELS, RUN),
    "zero cut-off": (["-m", "P.0,5"], QRELS, RUN),
    "empty parameter list": (["-m", "P."], QRELS, RUN),
    "ndcg parameters": (["-m", "ndcg.5"], QRELS, RUN),
    "recall level with 3 decimals": (["-m", "iprec_at_recall.0.555"], BIG_QRELS, BIG_RUN),
    "recall levels printed alike": (["-m", "iprec_at_recall.0.5,0.501,2"], QRELS, RUN),
    "unknown option": (["-x"], QRELS, RUN),
    "grades atol reads": (["-q"], QRELS + b"q1 0 d4 1e2\nq1 0 d5 +3\nq1 0 d6 abc\n", RUN),
    "scores atof reads": (["-q"], QRELS, RUN + b"q1 Q0 d5 1 0x1p3 r\nq1 Q0 d6 1 5abc r\n"),
    "two comments in a row": (["-q"], b"# c\n#x 0 d1 1\n" + QRELS, RUN + b"#x Q0 d1 1 1 r\n"),
    "empty qrels": ([], b"", RUN),
    "comment-only run": ([], QRELS, b"# nothing\n"),
    "duplicate document": ([], QRELS, RUN + b"q1 Q0 d1 1 0 r\n"),
    "no judged document left (-J): -nan": (["-J", "-q", "-m", "iprec_at_recall.0,0.5",
                                            "-m", "P.1"], QRELS, RUN),
    "missing query with -c -J: -nan": (["-c", "-J", "-q", "-m", "iprec_at_recall.0,1.5"],
                                       QRELS + b"q3 0 d1 1\n", RUN),
    "-M 0": (["-M", "0", "-m", "official"], QRELS, RUN),
    "-l -1: unjudged documents relevant": (["-l", "-1", "-q", "-c"], QRELS + b"q3 0 d1 1\n",
                                           RUN + b"q1 Q0 d8 1 5 r\n"),
    "-l -1: a negative grade stays unjudged (-2)": (["-l", "-1", "-q"],
                                                    QRELS + b"q1 0 d4 -1\n", RUN),
    "-l -2: negative grades relevant": (["-l-2", "-q", "-m", "all_trec"],
                                        QRELS + b"q1 0 d4 -1\n", RUN),
    "long last line": (["-m", "runid"], QRELS, RUN + b"q1 Q0 d7 1 0 " + b"x" * 9000 + b"\n"),
    "long line in the middle": (["-m", "runid", "-m", "P.1"], QRELS,
                                b"q1 Q0 d7 1 0 " + b"x" * 9000 + b"\n" + RUN),
    # atof stops at '_' (1_000 is 1), Python's float would read 1000
    "underscore in a score": (["-q"], QRELS, RUN + b"q1 Q0 d5 1 1_000 r\nq1 Q0 d6 1 +1_0.5 r\n"),
    "underscore in a grade and -l": (["-q", "-l", "1_0"], QRELS + b"q1 0 d4 1_0\n", RUN),
    "underscore in -M and cut-offs": (["-M", "1_0", "-m", "P.1_0", "-m",
                                       "iprec_at_recall.0_5"], QRELS, RUN),
    "byte order mark before a run": (["-q"], QRELS, BOM + RUN),
    "byte order mark before qrels": (["-q", "-c"], BOM + QRELS, RUN),
    "-l far below zero": (["-q", "-l", "-9999999999999999999999", "-m", "map", "-m",
                           "num_rel", "-m", "P.2"], QRELS, RUN),
    "-l at LONG_MIN + 1": (["-l", "-9223372036854775807", "-m", "official"], QRELS, RUN),
    "a grade too large to allocate": (["-m", "map"], QRELS + b"q1 0 d9 1099511627776\n", RUN),
    "-v": (["-v"], QRELS, RUN),
    "-N, -D 0, -o, -R, -T": (["-N", "100", "-D", "0", "-o", "-R", "qrels", "-T",
                              "trec_results", "-q"], QRELS, RUN),
    "long options": (["--measure=map", "--meas", "P.5", "--query_eval_wanted", "--comp",
                      "--level_for_rel=2"], QRELS, RUN),
    "illegal -R and -T": (["-R", "nonsense"], QRELS, RUN),
    "illegal -T": (["-T", "nonsense"], QRELS, RUN),
    # -q: trec_eval prints each query as it goes, so an exit 4 comes after the
    # lines of the queries before the one that stops it
    "-q, a missing query after two": (["-q"], QRELS + b"q3 0 d1 1\n", RUN),
    "-q, a document twice in the second query": (["-q", "-m", "P.2"], QRELS,
                                                 RUN + b"q2 Q0 d9 1 5 r\n"),
    "-q, a grade too large in the second query": (["-q", "-m", "map"],
                                                  QRELS + b"q2 0 d7 1099511627776\n", RUN),
    "-q, a missing query before a duplicate": (["-q", "-m", "map"],
                                               b"q0 0 d1 1\n" + QRELS,
                                               RUN + b"q2 Q0 d9 1 5 r\n"),
}


@needs_binary
@pytest.mark.parametrize("name", list(CORNERS))
def test_named_corners_equal_trec_eval(tmp_path, name, monkeypatch):
    args, qrels, run = CORNERS[name]
    monkeypatch.setattr(__import__(__name__), "make_case",
                        lambda seed: (args, qrels, run, {name}))
    assert compare(0, tmp_path) is None


def test_nan_score_is_refused_with_file_and_line(tmp_path):
    # trec_eval reads "nan" (atof) and sorts with it; the order then depends on
    # the C library's qsort, so no answer is trec_eval's: refused, clearly.
    (tmp_path / "q").write_bytes(b"q1 0 d1 1\n")
    (tmp_path / "r").write_bytes(b"q1 Q0 d1 1 2 r\nq1 Q0 d2 1 NaN r\n")
    code, stdout, stderr = run_ours([str(tmp_path / "q"), str(tmp_path / "r")])
    assert code == 2 and stdout == b""
    assert ":2:" in stderr and "nan" in stderr.lower()


@needs_binary
def test_dash_as_qrels_is_a_file_name(tmp_path):
    # get_qrels.c fopen()s its argument: '-' is no standard input there (exit 2)
    (tmp_path / "r").write_bytes(RUN)
    argv = ["-m", "map", "-", str(tmp_path / "r")]
    theirs = subprocess.run([str(TREC_EVAL), *argv], capture_output=True, cwd=tmp_path,
                            input=QRELS)
    code, stdout, stderr = run_ours(argv)
    assert (code, stdout) == (theirs.returncode, theirs.stdout) == (2, b"")
    assert "Cannot read qrels file '-'" in stderr


@pytest.mark.parametrize("argv, code, words", [
    (["-Z", "z.txt"], 1, "-Z z.txt: z-scores"),
    (["-D", "1"], 1, "-D 1: debug"),
    (["-D", "0.q1"], 1, "-D 0.q1"),
    (["-R", "prefs"], 1, "-R prefs: only the 'qrels'"),
    (["-m", "iprec_at_recall.inf"], 2, "iprec_at_recall.inf"),
    (["-m", "iprec_at_recall.1e400"], 2, "iprec_at_recall.1e400"),
])
def test_options_not_offered_are_refused_by_name(tmp_path, argv, code, words):
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    got, stdout, stderr = run_ours([*argv, str(tmp_path / "q"), str(tmp_path / "r")])
    assert (got, stdout) == (code, b"") and words in stderr, stderr


def test_public_reader_refuses_underscore_scores(tmp_path):
    # float("1_000") is 1000.0 but trec_eval's atof reads 1: no silent reading
    from metrics_lib import read_trec_run

    (tmp_path / "r").write_bytes(b"q1 Q0 d1 1 1_000 r\n")
    with pytest.raises(ValueError, match="1_000"):
        read_trec_run(tmp_path / "r")


def test_float_reads_a_score_only_as_atof_does():
    # the readers give a score field to Python's float() unless it holds '_';
    # every field float() then reads must be one whole strtod number, same value
    from metrics_lib.trec import _ATOF, _atof, _strict_score

    rng = np.random.default_rng(7)
    alphabet = list(b"0123456789.eE+-_xXpPinfatyINFATY()") + [0xC2, 0xA0, 0xD9, 0xA1, 0x00]
    read = 0
    for _ in range(60_000):
        field = bytes(rng.choice(alphabet, size=int(rng.integers(1, 9))).tolist())
        value = _strict_score(field)
        if value is None:
            continue
        read += 1
        match = _ATOF.fullmatch(field)
        assert match is not None and match.start("number") == 0, field
        assert value == _atof(field) or (value != value and _atof(field) != _atof(field)), field
    assert read > 1000
    assert _strict_score(b"1_000") is None and _strict_score(b"+1_0.5") is None
