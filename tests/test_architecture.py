"""The package's shape: no import circles, no long functions, no long modules.

The checks read the source with ``ast`` (nothing is imported), so they also
run on a toy package in a temporary folder: the last tests show each check
failing on a deliberately bad one.

The import graph
----------------
An edge ``a -> b`` is an explicit import of ``b`` written in ``a``:
``from .b import x``, ``from . import b``, ``import metrics_lib.b``, and
``from .pkg import name`` (an edge to ``pkg.name`` when that is a module,
else to ``pkg``). Importing ``pkg.mod`` also runs ``pkg/__init__``, but that
implicit edge to a parent package is left out, and so is an explicit import
of a module's own parent package (``from . import x``): every module would
otherwise sit on a circle through ``metrics_lib/__init__``, which imports
them all to re-export their names.

Imports inside functions (lazy imports) are edges too. A lazy import is
fine for cost (scipy, Dask, a module only one function needs), but it may
only point *down*: it must not import a module that imports the importer
back, directly or through others. So the rule is one rule: the graph of all
imports, module-level and lazy, has no circle. Imports under
``if TYPE_CHECKING:`` never run and are left out.

Known exceptions
----------------
``KNOWN_CYCLES``, ``KNOWN_LONG_FUNCTIONS`` and ``KNOWN_LONG_MODULES`` list
what is known and being fixed (all three empty since issue 24). They act
like ``xfail(strict=True)``: a listed circle that no longer exists, or a
listed function or module that is now short enough, fails its test with
"remove it from the list", so the lists can only shrink; a listed function
or module may not grow either. Anything new that is not listed fails.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

import pytest

PACKAGE_DIR = Path(__file__).resolve().parents[1] / "metrics_lib"
MAX_FUNCTION_CODE_LINES = 100
MAX_MODULE_LINES = 800

# Issue 24 emptied these three lists (the Dask path and the presets moved above
# evaluate; _evaluate_frames, _join_in_rows and the three long modules were
# split). Do not add to them: fix the new circle or split the new long
# function instead.
KNOWN_CYCLES: list[tuple[str, ...]] = []
KNOWN_LONG_FUNCTIONS: dict[str, int] = {}  # qualified name: code lines today, def line included (may not grow)
KNOWN_LONG_MODULES: dict[str, int] = {}  # module: lines today (may not grow)


# ---------------------------------------------------------------------------
# the checker (pure functions of a folder, so that a toy package can be checked)
# ---------------------------------------------------------------------------
def modules_of(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file of the package."""
    package_dir = Path(package_dir)
    root = package_dir.name
    found = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join((root, *parts))] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.Module):
    """Yield ``(node, lazy)`` for every import that can run (not TYPE_CHECKING)."""
    def walk(node, lazy):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                for sub in child.orelse:
                    yield from walk(ast.Module(body=[sub], type_ignores=[]), lazy)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child, lazy
            inner = lazy or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.Lambda))
            yield from walk(child, inner)
    yield from walk(tree, False)


def import_graph(package_dir: Path) -> dict[str, dict[str, list[str]]]:
    """``{module: {imported module: ["line 12", "line 40 (lazy)"]}}`` inside the package."""
    modules = modules_of(package_dir)
    graph: dict[str, dict[str, list[str]]] = {name: {} for name in modules}
    for name, path in modules.items():
        is_package = path.name == "__init__.py"
        here = name.split(".") if is_package else name.split(".")[:-1]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, lazy in _imports(tree):
            where = f"line {node.lineno}" + (" (lazy)" if lazy else "")
            targets = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = here[: len(here) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                # from pkg import mod: the module; from pkg import name: the package
                targets = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in modules
                           else module for alias in node.names]
            for target in targets:
                if target in modules and target != name and not name.startswith(target + "."):
                    places = graph[name].setdefault(target, [])
                    if where not in places:
                        places.append(where)
    return graph


def _canonical(cycle: list[str]) -> tuple[str, ...]:
    """A circle written from its smallest module on, so that each has one name."""
    start = cycle.index(min(cycle))
    return tuple(cycle[start:] + cycle[:start])


def find_cycles(graph: dict[str, dict[str, list[str]]], limit: int = 1000):
    """Every elementary circle of the graph, each as a tuple from its smallest module."""
    found: set[tuple[str, ...]] = set()
    order = sorted(graph)
    rank = {name: i for i, name in enumerate(order)}
    for start in order:  # circles whose smallest module is start
        stack = [(start, iter(sorted(graph[start])))]
        path, on_path = [start], {start}
        while stack and len(found) < limit:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.discard(path.pop())
            elif child == start:
                found.add(_canonical(list(path)))
            elif rank[child] > rank[start] and child not in on_path:
                path.append(child)
                on_path.add(child)
                stack.append((child, iter(sorted(graph[child]))))
    return sorted(found)


def describe_cycle(graph, cycle) -> str:
    """``a -> b (line 3) -> a (line 40 (lazy))``: where each step of a circle is written."""
    steps = [cycle[0]]
    for a, b in zip(cycle, cycle[1:] + cycle[:1]):
        steps.append(f"{b} ({', '.join(graph[a][b])} of {a})")
    return " -> ".join(steps)


def code_lines(source: str) -> set[int]:
    """Line numbers holding code: not blank, not only a comment."""
    lines = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
            tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in skip:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines


def function_lengths(package_dir: Path) -> dict[str, int]:
    """``{module.function: code lines}`` for every function and method.

    A function's code lines run from its ``def`` (decorators excluded) to its
    last line, without blank lines, comment lines and its docstring. A nested
    function counts in its own entry and in the function around it.
    """
    lengths = {}
    for name, path in modules_of(package_dir).items():
        source = path.read_text(encoding="utf-8")
        code = code_lines(source)
        tree = ast.parse(source)

        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = set(range(child.lineno, child.end_lineno + 1)) & code
                    body = child.body
                    if (body and isinstance(body[0], ast.Expr)
                            and isinstance(body[0].value, ast.Constant)
                            and isinstance(body[0].value.value, str)):
                        lines -= set(range(body[0].lineno, body[0].end_lineno + 1))
                    lengths[f"{prefix}.{child.name}"] = len(lines)
                    visit(child, f"{prefix}.{child.name}")
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}.{child.name}")
                else:
                    visit(child, prefix)

        visit(tree, name)
    return lengths


def module_lengths(package_dir: Path) -> dict[str, int]:
    """``{module: physical lines}``."""
    return {name: len(path.read_text(encoding="utf-8").splitlines())
            for name, path in modules_of(package_dir).items()}


def over(lengths: dict[str, int], limit: int) -> dict[str, int]:
    return {name: n for name, n in lengths.items() if n > limit}


# ---------------------------------------------------------------------------
# the package
# ---------------------------------------------------------------------------
GRAPH = import_graph(PACKAGE_DIR)
CYCLES = find_cycles(GRAPH)
FUNCTIONS = function_lengths(PACKAGE_DIR)
MODULES = module_lengths(PACKAGE_DIR)


# Module paths that existed before the online experiments, the data sets and
# the beyond-accuracy metrics moved into folders (issue 24): a user's import,
# or a chapter naming them, keeps working and gets the same objects.
OLD_MODULE_PATHS = {
    "metrics_lib.online": ["click_through_rate", "two_proportion_test", "power_two_proportions",
                           "sample_size_per_group", "sample_ratio_mismatch", "RateEstimate",
                           "TwoProportionTest", "SampleRatioMismatch"],
    "metrics_lib.experiments": ["ratio_metric", "ratio_metric_test", "cuped_test",
                                "group_sequential_boundaries", "sequential_estimate_bias",
                                "sequential_bias_adjusted_estimate", "RatioEstimate",
                                "RatioTest", "CupedTest", "GroupSequentialBoundaries",
                                "SequentialEstimateBias"],
    "metrics_lib.significance": ["paired_t_test", "paired_bootstrap_ci",
                                 "paired_permutation_test", "PairedTTest",
                                 "BootstrapInterval", "PermutationTest"],
    "metrics_lib.interleaving": ["team_draft_interleave", "team_draft_interleave_many",
                                 "interleaving_credit", "interleaving_test", "TeamDraftList",
                                 "TeamDraftBatch", "InterleavingCredit", "InterleavingTest"],
    "metrics_lib.counterfactual": ["ips_estimate", "snips_estimate", "doubly_robust_estimate",
                                   "slate_ips_estimate", "OffPolicyEstimate"],
    "metrics_lib.datasets": ["SimulatedWorld", "simulate_world", "LoggedRankings",
                             "sample_rankings", "load_movielens_100k", "MovieLens100K"],
    "metrics_lib.beyond": ["catalog_coverage", "gini_index", "intra_list_diversity",
                           "novelty", "serendipity", "personalization"],
}


@pytest.mark.parametrize("path", sorted(OLD_MODULE_PATHS))
def test_old_module_paths_still_import(path):
    import importlib

    import metrics_lib

    module = importlib.import_module(path)
    for name in OLD_MODULE_PATHS[path]:
        assert getattr(module, name) is getattr(metrics_lib, name), f"{path}.{name}"
    assert set(OLD_MODULE_PATHS[path]) <= set(module.__all__)


def test_no_new_import_circle():
    known = {_canonical(list(cycle)) for cycle in KNOWN_CYCLES}
    new = [describe_cycle(GRAPH, cycle) for cycle in CYCLES if cycle not in known]
    assert not new, "import circles (a lazy import counts; see the module docstring):\n" + \
        "\n".join(new)


@pytest.mark.parametrize("cycle", KNOWN_CYCLES, ids=" -> ".join)
def test_known_circle_still_there(cycle):
    assert _canonical(list(cycle)) in CYCLES, (
        f"the circle {' -> '.join(cycle)} is gone: remove it from KNOWN_CYCLES")


def test_no_new_long_function():
    new = {name: n for name, n in over(FUNCTIONS, MAX_FUNCTION_CODE_LINES).items()
           if name not in KNOWN_LONG_FUNCTIONS}
    assert not new, f"functions over {MAX_FUNCTION_CODE_LINES} code lines: {new}"


@pytest.mark.parametrize("name", sorted(KNOWN_LONG_FUNCTIONS))
def test_known_long_function_shrinks(name):
    assert name in FUNCTIONS, f"{name} is gone: remove it from KNOWN_LONG_FUNCTIONS"
    assert FUNCTIONS[name] > MAX_FUNCTION_CODE_LINES, (
        f"{name} has {FUNCTIONS[name]} code lines now: remove it from KNOWN_LONG_FUNCTIONS")
    assert FUNCTIONS[name] <= KNOWN_LONG_FUNCTIONS[name], (
        f"{name} grew to {FUNCTIONS[name]} code lines (was {KNOWN_LONG_FUNCTIONS[name]})")


def test_no_new_long_module():
    new = {name: n for name, n in over(MODULES, MAX_MODULE_LINES).items()
           if name not in KNOWN_LONG_MODULES}
    assert not new, f"modules over {MAX_MODULE_LINES} lines: {new}"


@pytest.mark.parametrize("name", sorted(KNOWN_LONG_MODULES))
def test_known_long_module_shrinks(name):
    assert name in MODULES, f"{name} is gone: remove it from KNOWN_LONG_MODULES"
    assert MODULES[name] > MAX_MODULE_LINES, (
        f"{name} has {MODULES[name]} lines now: remove it from KNOWN_LONG_MODULES")
    assert MODULES[name] <= KNOWN_LONG_MODULES[name], (
        f"{name} grew to {MODULES[name]} lines (was {KNOWN_LONG_MODULES[name]})")


# ---------------------------------------------------------------------------
# the checker itself, on toy packages
# ---------------------------------------------------------------------------
def _toy(tmp_path, files: dict[str, str]) -> Path:
    root = tmp_path / "toy"
    for name, text in {"__init__.py": "", **files}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def _function(name: str, code_lines: int, padding: int = 0) -> str:
    """A function with ``code_lines`` code lines (def included) and padding lines
    of docstring, comments and blanks, which must not count."""
    doc = '    """Docstring.\n\n' + "    more words\n" * padding + '    """\n'
    body = "".join(f"    x{i} = {i}  # comment\n" + ("    # a comment line\n\n" * (padding > 0))
                   for i in range(code_lines - 2))
    return f"def {name}():\n{doc}{body}    return 0\n"


def test_checker_finds_a_circle_and_says_where(tmp_path):
    root = _toy(tmp_path, {
        "a.py": "from .b import f\n",
        "b.py": "def f():\n    from .sub.c import g\n    return g\n",
        "sub/__init__.py": "",
        "sub/c.py": "from ..a import f\n",
        "d.py": "from . import a\n",  # into the circle, not on it
    })
    graph = import_graph(root)
    cycles = find_cycles(graph)
    assert cycles == [("toy.a", "toy.b", "toy.sub.c")]
    text = describe_cycle(graph, cycles[0])
    assert "toy.sub.c (line 2 (lazy) of toy.b)" in text
    assert "toy.a (line 1 of toy.sub.c)" in text


def test_checker_resolves_each_import_form(tmp_path):
    root = _toy(tmp_path, {
        "__init__.py": "from .pkg import thing\n",
        "pkg/__init__.py": "from .mod import thing\n",
        "pkg/mod.py": "import toy.other\nfrom toy import leaf\nfrom .. import other\n"
                      "thing = 1\n",
        "other.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                    "    from .pkg import mod\n",
        "leaf.py": "from .pkg.mod import thing\n",
    })
    graph = import_graph(root)
    assert graph["toy"] == {"toy.pkg": ["line 1"]}
    assert graph["toy.pkg"] == {"toy.pkg.mod": ["line 1"]}
    assert set(graph["toy.pkg.mod"]) == {"toy.other", "toy.leaf"}
    assert graph["toy.other"] == {}  # TYPE_CHECKING never runs
    assert find_cycles(graph) == [("toy.leaf", "toy.pkg.mod")]


def test_checker_passes_a_clean_graph(tmp_path):
    root = _toy(tmp_path, {"__init__.py": "from .a import f\n",
                           "a.py": "import numpy\nfrom .b import f\nfrom . import c\n",
                           "b.py": "def f():\n    import os\n    from . import c\n",
                           "c.py": "x = 1\n"})
    assert find_cycles(import_graph(root)) == []


def test_checker_counts_code_lines_only(tmp_path):
    root = _toy(tmp_path, {
        "long.py": _function("at_limit", MAX_FUNCTION_CODE_LINES, padding=60)
        + "\n\n" + _function("over_limit", MAX_FUNCTION_CODE_LINES + 1)
        + "\n\nclass K:\n" + "".join("    " + line + "\n" for line in
                                      _function("method", 120).splitlines()),
    })
    lengths = function_lengths(root)
    assert lengths["toy.long.at_limit"] == MAX_FUNCTION_CODE_LINES
    assert over(lengths, MAX_FUNCTION_CODE_LINES) == {
        "toy.long.over_limit": MAX_FUNCTION_CODE_LINES + 1, "toy.long.K.method": 120}


def test_checker_finds_a_long_module(tmp_path):
    root = _toy(tmp_path, {"big.py": "x = 1\n" * (MAX_MODULE_LINES + 1),
                           "fine.py": "x = 1\n" * MAX_MODULE_LINES})
    assert over(module_lengths(root), MAX_MODULE_LINES) == {"toy.big": MAX_MODULE_LINES + 1}
