"""The built wheel, installed with the README's own lines, works outside the repository.

What a user does, in a temporary folder with nothing of the repository on ``sys.path``:

1. The wheel is built from a copy of the files git knows (``pip wheel --no-deps``; a copy, so
   that no ``build/`` folder left by an earlier build can slip a stale file into it).
2. A fresh virtual environment is made and the ``pip install`` lines of the README's section
   *Install the library* are run there, parsed from the README. Each requirement naming the
   distribution (``ranking-matters[polars]``, ``"ranking-matters @ git+<address>"``) is
   rewritten to the same name and extras at the built wheel
   (``ranking-matters[polars] @ file:///.../ranking_matters-0.2.0-py3-none-any.whl``), the only
   change to the user's line. pip gets three options more: ``-c`` with requirements.txt's pins
   (the versions the repository is tested with, as ``tools/check_standalone.py`` does),
   ``--no-compile`` (bytecode is written on first import instead of for every installed
   module: a third of the install time) and ``-q``. The lines without an extra run first, and
   the examples that need nothing more are checked before the others are installed.
3. In that environment: every file of ``metrics_lib/`` is installed; the README's Python
   blocks run in order (its ``# 0.667`` comments are asserted, its ``>>>`` errors raised
   with the message shown); ``trec-eval-py`` and ``python -m metrics_lib`` print what the
   trec_eval binary prints, byte for byte, with its exit code (only this comparison is
   skipped without the binary); and the code cells of ``book/precision_recall.ipynb`` run
   as one script, each cell's printed text and value compared with the committed output.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import venv
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
NAME = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["name"]
TREC_EVAL = Path(os.environ.get("TREC_EVAL", ROOT / "_build" / "trec_eval" / "trec_eval"))
CHAPTER = ROOT / "book" / "precision_recall.ipynb"
BOOK_ONLY = {"remove-cell"}  # install cell and glue: plumbing of the book, not the chapter's code

sys.path.insert(0, str(ROOT / "tools"))
from check_standalone import write_constraints  # noqa: E402
from sync_repository_url import configured  # noqa: E402

sys.path.pop(0)
URL, _ = configured(ROOT)


def install_lines(readme: str = README) -> list[list[str]]:
    """The README's install lines, as argument lists after ``pip install``."""
    section = re.search(r"^## Install the library\n(.*?)(?=^## )", readme, re.S | re.M)
    assert section, "README.md has no section '## Install the library'"
    blocks = re.findall(r"^```bash\n(.*?)^```", section.group(1), re.S | re.M)
    lines = [shlex.split(line, comments=True) for block in blocks for line in block.splitlines()]
    lines = [words[2:] for words in lines if words[:2] == ["pip", "install"]]
    assert lines, "the install section has no pip install line"
    return lines


REQUIREMENT = re.compile(rf"^{re.escape(NAME)}(\[[\w,-]+\])?(?:\s*@\s*(\S+))?$")


def substitute(arguments: list[str], wheel: Path) -> tuple[list[str], str]:
    """The line with the built wheel for the distribution; also the extras it names."""
    found = [REQUIREMENT.match(word) for word in arguments]
    assert sum(m is not None for m in found) == 1, f"one {NAME} requirement per line: {arguments}"
    out, extras = [], ""
    for word, match in zip(arguments, found):
        if match is None:
            assert word.startswith("-"), f"the install line installs something else: {word}"
            out.append(word)
            continue
        extras, source = match.group(1) or "", match.group(2)
        assert source in (None, f"git+{URL}"), (
            f"the README installs from {source}, not _config.yml's git+{URL}")
        out.append(f"{NAME}{extras} @ {wheel.as_uri()}")
    return out, extras


def test_install_lines_name_every_extra_and_the_repository():
    lines = install_lines()
    requirements = [w for words in lines for w in words if REQUIREMENT.match(w)]
    assert NAME in requirements and f"{NAME} @ git+{URL}" in requirements
    for extra in ("polars", "arrow", "dask", "book"):
        assert f"{NAME}[{extra}]" in requirements


def test_substitution_keeps_name_and_extras():
    wheel = Path("/tmp/w/ranking_matters-0.2.0-py3-none-any.whl")
    assert substitute(["-U", f"{NAME}[polars]"], wheel) == (
        ["-U", f"{NAME}[polars] @ file:///tmp/w/ranking_matters-0.2.0-py3-none-any.whl"],
        "[polars]")
    with pytest.raises(AssertionError, match="not _config.yml's"):
        substitute([f"{NAME} @ git+https://example.org/other"], wheel)
    with pytest.raises(AssertionError, match="installs something else"):
        substitute([NAME, "polars"], wheel)


# -- the environment -----------------------------------------------------------------------

def _copy_sources(target: Path) -> None:
    """The files git tracks (or would track) that build the wheel: top level and metrics_lib/."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
            check=True, capture_output=True, text=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):  # no git: what is on disk
        listed = [str(p.relative_to(ROOT)) for p in ROOT.glob("*") if p.is_file()]
        listed += [str(p.relative_to(ROOT)) for p in (ROOT / "metrics_lib").rglob("*")]
    for name in listed:
        source = ROOT / name
        if source.is_file() and ("/" not in name or name.startswith("metrics_lib/")) \
                and "__pycache__" not in name:
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


class Env:
    """A fresh virtual environment, a working folder outside the repository, a log of times."""

    def __init__(self, base: Path):
        self.base, self.times = base, {}
        self.folder, self.work = base / "venv", base / "work"
        self.work.mkdir()
        self.python = self.folder / "bin" / "python"
        self.environ = {k: v for k, v in os.environ.items()
                        if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}}
        self.environ.update(PATH=f"{self.folder / 'bin'}{os.pathsep}{os.environ['PATH']}",
                            VIRTUAL_ENV=str(self.folder), MPLBACKEND="Agg")

    def timed(self, label, function, *args):
        began = time.monotonic()
        result = function(*args)
        self.times[label] = round(time.monotonic() - began, 1)
        return result

    def run(self, command, check=True, **kwargs):
        result = subprocess.run(command, cwd=self.work, env=self.environ,
                                capture_output=True, **kwargs)
        if check and result.returncode:
            raise AssertionError(f"{command[:4]} exited {result.returncode}:\n"
                                 f"{_text(result.stdout)[-3000:]}\n{_text(result.stderr)[-3000:]}")
        return result

    def pip_install(self, arguments):
        self.run([str(self.python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                  "--no-compile", "-c", str(self.base / "constraints.txt"), *arguments])

    def python_script(self, code: str, name: str):
        script = self.work / name
        script.write_text(code, encoding="utf-8")
        return self.run([str(self.python), str(script)], text=True)


def _text(data):
    return data.decode(errors="replace") if isinstance(data, bytes) else data


def _build_wheel(base: Path) -> Path:
    source, dist = base / "source", base / "dist"
    _copy_sources(source)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--disable-pip-version-check", "-q",
                    "--no-deps", "-w", str(dist), str(source)], check=True, capture_output=True)
    (wheel,) = dist.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """The environment after the README's lines without an extra; extras come later."""
    base = tmp_path_factory.mktemp("wheel_install")
    assert not base.resolve().is_relative_to(ROOT)
    write_constraints(base / "constraints.txt")
    environment = Env(base)
    environment.wheel = environment.timed("build the wheel", _build_wheel, base)
    environment.timed("make the venv", venv.EnvBuilder(with_pip=True).create, environment.folder)
    lines = [(shlex.join(words), *substitute(words, environment.wheel))
             for words in install_lines()]
    environment.later = [(line, arguments) for line, arguments, extras in lines if extras]
    for line, arguments, extras in lines:
        if not extras:
            environment.timed(f"pip install {line}", environment.pip_install, arguments)
    yield environment
    print("\nwheel install times (s):", environment.times)
    shutil.rmtree(base, ignore_errors=True)  # the environment with the book extra is ~1 GB


@pytest.fixture(scope="module")
def env_with_extras(env):
    """The same environment after the README's lines with an extra, in the README's order."""
    for line, arguments in env.later:
        env.timed(f"pip install {line}", env.pip_install, arguments)
    env.later = []
    return env


# -- checks with the plain install ---------------------------------------------------------

INSTALLED = """
import importlib.util, json, pathlib, sys
import metrics_lib
root = pathlib.Path(metrics_lib.__file__).parent
print(json.dumps({
    "file": str(root), "version": metrics_lib.__version__,
    "polars": importlib.util.find_spec("polars") is not None,
    "files": sorted(str(p.relative_to(root)) for p in root.rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts),
}))
"""


def test_the_wheel_installs_every_file_of_the_package(env):
    shown = json.loads(env.python_script(INSTALLED, "installed.py").stdout)
    assert Path(shown["file"]).is_relative_to(env.folder), shown["file"]
    assert not shown["polars"], "the plain install brought polars: the extras ran before"
    expected = sorted(str(p.relative_to(ROOT / "metrics_lib"))
                      for p in _tracked(ROOT / "metrics_lib"))
    assert shown["files"] == expected
    import metrics_lib
    assert shown["version"] == metrics_lib.__version__ and env.wheel.name.startswith(
        f"{NAME.replace('-', '_')}-{metrics_lib.__version__}-")


def _tracked(folder: Path) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                             str(folder)], cwd=ROOT, capture_output=True, text=True)
    if listed.returncode:
        return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return [ROOT / name for name in listed.stdout.splitlines()
            if (ROOT / name).is_file() and not name.endswith(".pyc")]


def readme_python_blocks(readme: str = README) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", readme, re.S | re.M)


CLAIM = re.compile(r"^(ml\.\w+\(.*\))\s+# ([0-9]+\.([0-9]+))\b.*$", re.M)
ERROR = re.compile(r"^>>> (.+)\n(\w+Error): (.*)$", re.M)

# What the README leaves to the reader: the two tables its evaluate example takes, as
# DataFrames in memory and as the Parquet files its Polars example reads.
PRELUDE = """
import numpy as np, pandas as pd
rng = np.random.default_rng(7)
recommendations = pd.DataFrame({"user": np.repeat(np.arange(30), 20),
                                "item": rng.integers(0, 60, 600), "score": rng.random(600)})
recommendations = recommendations.drop_duplicates(["user", "item"])
truth = pd.DataFrame({"user": np.repeat(np.arange(30), 5), "item": rng.integers(0, 60, 150),
                      "relevance": rng.integers(0, 4, 150)}).drop_duplicates(["user", "item"])
"""
PARQUET = """
recommendations.to_parquet("recommendations.parquet")
truth.to_parquet("truth.parquet")
"""


def readme_script(with_polars: bool, readme: str = README) -> str:
    """The README's Python blocks in order, as one script; claims and errors asserted."""
    parts = [PRELUDE + (PARQUET if with_polars else "")]
    for block in readme_python_blocks(readme):
        if "import polars" in block and not with_polars:
            continue
        if block.startswith(">>> "):
            for expression, kind, message in ERROR.findall(block):
                parts.append(f"try:\n    {expression}\nexcept {kind} as error:\n"
                             f"    assert str(error) == {message!r}, str(error)\n"
                             f"else:\n    raise AssertionError({expression!r} + ' raised nothing')")
            continue
        parts.append(CLAIM.sub(
            lambda m: f"assert round({m.group(1)}, {len(m.group(3))}) == {m.group(2)}, "
                      f"({m.group(1)!r}, {m.group(1)})", block))
    return "\n".join(parts) + "\nprint('README examples ran')\n"


def test_readme_script_asserts_what_the_readme_states():
    script = readme_script(with_polars=True)
    assert script.count("assert round(") >= 5 and script.count("raised nothing") >= 2
    assert "pl.scan_parquet" in script and "ml.evaluate(recommendations" in script


def test_readme_examples_run_with_the_plain_install(env):
    assert env.python_script(readme_script(with_polars=False), "readme.py").stdout.endswith(
        "README examples ran\n")


def _trec_files(folder: Path, seed: int = 25) -> None:
    """Graded qrels; a run with tied scores and a query the qrels lack (run.txt), and the
    same run without a judged query (run_missing.txt: trec_eval's -c scores it 0)."""
    rng = np.random.default_rng(seed)
    qrels, run = [], {}
    for query in range(1, 13):
        docs = rng.choice(400, 60, replace=False)
        qrels += [f"{query} 0 d{doc} {rng.integers(0, 4)}\n" for doc in docs[:25]]
        scores = np.round(rng.random(50), 1)  # one decimal: many ties
        run[query] = [f"{query} Q0 d{doc} {rank} {score} tag\n"
                      for rank, (doc, score) in enumerate(zip(docs[10:], scores))]
    run[99] = ["99 Q0 d1 0 1.5 tag\n"]
    (folder / "qrels.txt").write_text("".join(qrels))
    (folder / "run.txt").write_text("".join(line for lines in run.values() for line in lines))
    (folder / "run_missing.txt").write_text(
        "".join(line for query, lines in run.items() if query != 12 for line in lines))


def readme_command_line(readme: str = README) -> list[str]:
    line = re.search(r"^python -m metrics_lib .*qrels\.txt run\.txt$", readme, re.M)
    assert line, "the README's example command line is gone"
    return shlex.split(line.group(0))[3:]


COMMAND_LINES = {"readme": None, "default table -q -c": ["-q", "-c", "qrels.txt", "run_missing.txt"],
                 "unknown measure": ["-m", "no_such_measure", "qrels.txt", "run.txt"]}


@pytest.mark.parametrize("label", list(COMMAND_LINES))
@pytest.mark.parametrize("program", ["trec-eval-py", "python -m metrics_lib"])
def test_command_line_matches_trec_eval(env, program, label):
    _trec_files(env.work)
    arguments = COMMAND_LINES[label] or readme_command_line()
    command = (["trec-eval-py"] if program == "trec-eval-py"
               else [str(env.python), "-m", "metrics_lib"])
    ours = env.run(command + arguments, check=False)
    if ours.returncode:  # the error is named by the program the user typed
        assert _text(ours.stderr).splitlines()[-1].startswith(f"{program}: error:"), ours.stderr
    if not TREC_EVAL.exists():
        pytest.skip(f"no trec_eval binary at {TREC_EVAL} (make trec_eval builds it)")
    theirs = env.run([str(TREC_EVAL), *arguments], check=False)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout)
    assert len(theirs.stdout) > 200 or label == "unknown measure"


# -- checks with the extras ----------------------------------------------------------------

def test_readme_examples_run_with_the_extras(env_with_extras):
    script = readme_script(with_polars=True)
    assert env_with_extras.python_script(script, "readme_all.py").stdout.endswith(
        "README examples ran\n")


MARK = "\x1e cell {} \x1e"


def chapter_script(path: Path = CHAPTER) -> tuple[str, dict[int, tuple[str, str | None]]]:
    """The chapter's code cells as one script; for each cell its committed printed text and
    value (text/plain), which the script's output is compared with.

    Cells tagged for the book only are left out; IPython's ``%`` lines are dropped; each cell
    runs as IPython runs it: its statements, then the last one's value shown if it is an
    expression.
    """
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    parts = ["import ast", "namespace = {}",
             "def run(index, source):",
             f"    print({MARK!r}.format(index), flush=True)",
             "    tree = ast.parse(source)",
             "    shown = tree.body and isinstance(tree.body[-1], ast.Expr) "
             "and not source.rstrip().endswith(';')",  # IPython hides a value after ';'
             "    last = tree.body.pop() if shown else None",
             "    exec(compile(tree, f'<cell {index}>', 'exec'), namespace)",
             "    if last is not None:",
             "        value = eval(compile(ast.Expression(last.value), f'<cell {index}>', 'eval'),"
             " namespace)",
             "        if value is not None:",
             f"            print({MARK!r}.format('value'), repr(value), sep='', end='')"]
    expected = {}
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code" or BOOK_ONLY & set(cell["metadata"].get("tags", [])):
            continue
        source = "".join(line for line in "".join(cell["source"]).splitlines(keepends=True)
                         if not line.lstrip().startswith(("%", "!")))
        parts.append(f"run({index}, {source!r})")
        printed = "".join("".join(o["text"]) for o in cell["outputs"]
                          if o["output_type"] == "stream" and o["name"] == "stdout")
        values = ["".join(o["data"]["text/plain"]) for o in cell["outputs"]
                  if o["output_type"] == "execute_result"]
        expected[index] = (printed, values[0] if values else None)
    return "\n".join(parts) + "\n", expected


def split_cells(stdout: str) -> dict[int, tuple[str, str | None]]:
    pieces = re.split(r"\x1e cell (\d+) \x1e\n", stdout)[1:]
    found = {}
    for index, text in zip(pieces[::2], pieces[1::2]):
        printed, _, value = text.partition(MARK.format("value"))
        found[int(index)] = (printed, value if _ else None)
    return found


def test_chapter_script_reads_the_chapter():
    script, expected = chapter_script()
    assert "glue(" not in script.replace("from myst_nb import glue", "")
    assert sum(value is not None for _, value in expected.values()) >= 5
    assert sum(bool(printed) for printed, _ in expected.values()) >= 3


def test_chapter_code_runs_and_gives_the_committed_outputs(env_with_extras):
    script, expected = chapter_script()
    result = env_with_extras.python_script(script, "chapter.py")
    assert split_cells(result.stdout) == expected
