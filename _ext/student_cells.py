"""Student edition only: leave out the code that exists for the solutions.

Chapters glue the numbers their solutions quote from hidden code cells
("# Values quoted in the solutions below"). ``hide_solutions`` removes the
solutions but not that code, whose outputs hold every answer and whose source
shows how each was computed. A glue key is *solution-only* when it is quoted
inside ``{solution}`` blocks and nowhere else in the chapter. With
``hide_solutions`` on, :func:`student_notebook`

* drops, from every code cell that glues a solution-only key, the statements
  that glue solution-only keys (and keys quoted nowhere), the statements that
  only feed them (names that no kept statement and no later cell reads), the
  checks, calls and attribute assignments that use a name so dropped, the
  comments right above them, and the glue records of those keys;
* drops a cell left with no code (it only served the solutions);
* raises ``ValueError`` when a solution-only value cannot be cut out that way
  (its glue call also defines a key quoted outside the solutions, its key is
  not a string or f-string literal, or its cell shows other outputs), so that
  no answer is left in silently: give such a value a glue call of its own.

``tools/student_edition.py`` loads this extension for the student build (it
drops the cells from the HTML), ``_ext/plain_downloads.py`` applies
:func:`student_notebook` to the downloadable notebooks, and
``tools/check_student.py`` checks the result with :func:`solution_only_keys`.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

SOLUTION_BLOCK = re.compile(r"^ {0,3}(`{3,}|:{3,})\{solution\}.*?^ {0,3}\1\s*$", re.S | re.M)
GLUE_CALL = re.compile(r"""\bglue\(\s*(f?)(["'])(.+?)\2""")
GLUE_REF = re.compile(r"\{glue(?::[\w-]*)?\}`([^`]+)`")
ANY_KEY = re.compile(r"^.*$", re.S)  # a glue call whose key is not a literal


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _quoted_keys(text: str) -> set[str]:
    keys = set()
    for ref in GLUE_REF.findall(text):
        ref = ref.split("<")[-1].rstrip(">")  # {glue:text}`title <key>`
        keys.add(ref.split("::")[-1].split(":")[0].strip())
    return keys


def quoted_keys(cells: list[dict]) -> tuple[set[str], set[str]]:
    """(keys quoted inside ``{solution}`` blocks, keys quoted elsewhere)."""
    markdown = "\n".join(_source(c) for c in cells if c.get("cell_type") == "markdown")
    in_solutions = _quoted_keys(" ".join(m.group(0) for m in SOLUTION_BLOCK.finditer(markdown)))
    return in_solutions, _quoted_keys(SOLUTION_BLOCK.sub("", markdown))


def solution_only_keys(cells: list[dict]) -> set[str]:
    """Glue keys quoted inside ``{solution}`` blocks and nowhere else."""
    in_solutions, elsewhere = quoted_keys(cells)
    return in_solutions - elsewhere


def _key_patterns(code: str) -> list[re.Pattern]:
    """One pattern per ``glue(...)`` call in ``code`` (any key when not a literal)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # IPython syntax: read the calls with a regex
        return [re.compile("^" + ".+".join(map(re.escape, re.split(r"\{[^}]*\}", key)))
                           + "$") if is_f else re.compile("^" + re.escape(key) + "$")
                for is_f, _, key in GLUE_CALL.findall(code)]
    patterns = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "glue" and node.args):
            continue
        key = node.args[0]
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            patterns.append(re.compile("^" + re.escape(key.value) + "$"))
        elif isinstance(key, ast.JoinedStr):  # f"ex3_rank_{rule}": any text per {...}
            parts = [re.escape(v.value) if isinstance(v, ast.Constant) else ".+"
                     for v in key.values]
            patterns.append(re.compile("^" + "".join(parts) + "$", re.S))
        else:
            patterns.append(ANY_KEY)
    return patterns


def _glue_names(cell) -> list[str]:
    """The glue key of every glue record among the cell's outputs."""
    return [out["metadata"]["scrapbook"]["name"] for out in cell.get("outputs", [])
            if "scrapbook" in out.get("metadata", {})]


def _only_glue_outputs(cell) -> bool:
    return all(out.get("output_type") == "display_data"
               and "scrapbook" in out.get("metadata", {})
               for out in cell.get("outputs", []))


def _defined_names(statement: ast.stmt) -> set[str]:
    """Names a top-level statement binds (assignments, def, class, for, import, with)."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in statement.names}
    targets = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    return {n for t in targets for n in _target_names(t)}


def _target_names(target: ast.AST) -> set[str]:
    """Names bound by an assignment target (not ``a.b = ...`` nor ``a[i] = ...``)."""
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for e in target.elts for n in _target_names(e)}
    return set()


def _used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def global_names(code: str) -> set[str]:
    """Names ``code`` may read from the notebook's globals (a function's own locals left out)."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set(re.findall(r"[A-Za-z_]\w*", code))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
            local |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                      and isinstance(n.ctx, ast.Store)}
            names |= {n.id for n in ast.walk(node) if isinstance(n, ast.Name)
                      and isinstance(n.ctx, ast.Load) and n.id not in local}
    outside = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)]
    inside = {id(n) for f in ast.walk(tree)
              if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
              for n in ast.walk(f)}
    return names | {n.id for n in outside if id(n) not in inside}


def _statements_to_cut(code: str, solution_keys: set[str], other_keys: set[str],
                       names_elsewhere: set[str], where: str) -> list[ast.stmt]:
    """The top-level statements of ``code`` that only serve solution-only keys.

    A glue call of a key quoted nowhere goes with them (dead book plumbing).
    """
    body = ast.parse(code).body
    cut = set()
    for index, statement in enumerate(body):
        patterns = _key_patterns(ast.get_source_segment(code, statement) or "")
        if not patterns:
            continue
        serves = {k for k in solution_keys if any(p.match(k) for p in patterns)}
        shared = {k for k in other_keys if any(p.match(k) for p in patterns)}
        if serves and (shared or ANY_KEY in patterns):
            raise ValueError(
                f"{where}: line {statement.lineno} glues {sorted(serves)[0]!r}, quoted only in "
                f"solutions, together with {sorted(shared)[0] if shared else 'a non-literal key'}"
                "; give the solution's value a glue call of its own")
        if not shared and ANY_KEY not in patterns:
            cut.add(index)
    # A check (assert), a bare call or an attribute assignment feeds no name: it
    # goes when it touches a name whose statement goes.
    side = {i for i, s in enumerate(body) if not _defined_names(s) and i not in cut
            and not _key_patterns(ast.get_source_segment(code, s) or "")}
    changed = True
    while changed:
        changed = False
        # Backwards: a statement whose names only the cut (or side) statements use goes too.
        for index in range(len(body) - 1, -1, -1):
            defined = _defined_names(body[index])
            if index in cut or not defined or defined & names_elsewhere:
                continue
            kept_uses = set().union(*(_used_names(s) for i, s in enumerate(body)
                                      if i not in cut and i not in side and i != index))
            if not defined & kept_uses:
                cut.add(index)
                changed = True
        gone = set().union(*(_defined_names(body[i]) for i in cut))
        for index in sorted(side - cut):
            if _used_names(body[index]) & gone:
                cut.add(index)
                changed = True
    return [body[i] for i in sorted(cut)]


def _cut_lines(code: str, statements: list[ast.stmt]) -> str:
    """``code`` without the lines of ``statements`` and the comments right above them."""
    lines = code.splitlines(keepends=True)
    drop = set()
    for statement in statements:
        first = min([statement.lineno] + [d.lineno for d in
                                          getattr(statement, "decorator_list", [])])
        drop.update(range(first - 1, statement.end_lineno))
        above = first - 2
        while above >= 0 and lines[above].lstrip().startswith("#") and above not in drop:
            drop.add(above)
            above -= 1
    kept = "".join(line for i, line in enumerate(lines) if i not in drop)
    return re.sub(r"\n{3,}", "\n\n", kept).strip("\n") + ("\n" if kept.strip() else "")


def _strip_cell(cell: dict, solution_keys: set[str], other_keys: set[str],
                names_elsewhere: set[str], where: str) -> int:
    """Cut the solution-only statements and glue records out of ``cell``; how many values went."""
    code = _source(cell)
    mine = [name for name in _glue_names(cell) if name in solution_keys]
    if not _only_glue_outputs(cell):
        raise ValueError(f"{where}: glues {(mine or sorted(solution_keys))[0]!r}, quoted only "
                         "in solutions, in a cell that also shows outputs; move it to a hidden "
                         "cell of glue calls")
    statements = _statements_to_cut(code, solution_keys, other_keys, names_elsewhere, where)
    cut_keys = {k for s in statements for p in _key_patterns(ast.get_source_segment(code, s))
                for k in mine if p.match(k)}
    if set(mine) - cut_keys:
        raise ValueError(f"{where}: no glue call found for {sorted(set(mine) - cut_keys)}")
    cell["source"] = _cut_lines(code, statements).splitlines(keepends=True)
    left = _source(cell)
    kept = {k for s in ast.parse(left).body
            for p in _key_patterns(ast.get_source_segment(left, s) or "")
            for k in _glue_names(cell) if p.match(k)}
    before = len(cell.get("outputs", []))
    cell["outputs"] = [out for out in cell.get("outputs", [])
                       if out.get("metadata", {}).get("scrapbook", {}).get("name") in kept]
    return before - len(cell["outputs"])


def _serves(cell: dict, solution_keys: set[str]) -> bool:
    """Whether a code cell glues (or holds a glue call for) a solution-only key."""
    return cell.get("cell_type") == "code" and (
        any(name in solution_keys for name in _glue_names(cell))
        or any(p.match(k) for p in _key_patterns(_source(cell)) if p is not ANY_KEY
               for k in solution_keys))


def _has_code(cell: dict) -> bool:
    try:
        return bool(ast.parse(_source(cell)).body)
    except SyntaxError:
        return True


def student_notebook(notebook: dict, where: str = "notebook") -> tuple[dict, dict]:
    """A copy of ``notebook`` without the code that only serves its solutions.

    Parameters
    ----------
    notebook : dict
        A notebook as ``json.load`` reads it (not changed).
    where : str
        The notebook's name, for error messages.

    Returns
    -------
    tuple of (dict, dict)
        The copy and ``{"cells": number of cells dropped, "values": glue
        values removed, "keys": sorted solution-only keys, "dropped": indices
        of the dropped cells in ``notebook``}``.

    Raises
    ------
    ValueError
        When a solution-only value cannot be cut out (see the module's docstring).
    """
    notebook = json.loads(json.dumps(notebook))
    cells = notebook.get("cells", [])
    solution_keys = solution_only_keys(cells)
    other_keys = quoted_keys(cells)[1]
    served = {i for i, c in enumerate(cells) if _serves(c, solution_keys)}
    drop, values, changed = set(), 0, True
    while changed:  # until no cell loses a line: a cut may leave a feeder elsewhere unused
        changed = False
        for index, cell in enumerate(cells):
            if index not in served or index in drop:
                continue
            # the cells below, which run after this one (top to bottom)
            others = "\n".join(_source(c) for i, c in enumerate(cells) if i > index
                               and i not in drop and c.get("cell_type") == "code")
            before = _source(cell)
            values += _strip_cell(cell, solution_keys, other_keys,
                                  global_names(others), f"{where} cell {index}")
            if _source(cell) != before:
                changed = True
                if not _has_code(cell):
                    drop.add(index)
    notebook["cells"] = [c for i, c in enumerate(cells) if i not in drop]
    return notebook, {"cells": len(drop), "values": values, "keys": sorted(solution_keys),
                      "dropped": sorted(drop)}


def _drop_cells(app, doctree):
    if not app.config.hide_solutions:
        return
    from docutils import nodes

    path = Path(app.env.doc2path(app.env.docname))
    if path.suffix != ".ipynb":
        return
    notebook = json.loads(path.read_text(encoding="utf-8"))
    drop = set(student_notebook(notebook, path.name)[1]["dropped"])
    for node in list(doctree.findall(nodes.container)):
        if node.get("nb_element") == "cell_code" and node.get("cell_index") in drop:
            node.parent.remove(node)


def setup(app):
    app.connect("doctree-read", _drop_cells)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
