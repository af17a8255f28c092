"""The printed edition (``make pdf``): solutions at the end of each chapter.

Two adjustments that only the LaTeX builder sees:

- every ``{solution}`` block of a chapter is moved out of the text, into a
  "Solutions" section at the end of that chapter, so that a reader of the
  printed book meets each exercise before its answer;
- sphinx-exercise labels an exercise ``exercise:<label>`` in LaTeX, while a
  ``{ref}`` to it (the teaching page links every exercise) asks for
  ``<docname>:<label>``: the second label is added next to the first, so that
  no reference is left undefined;
- exercises are numbered as in the HTML, by chapter ("Exercise 4.1"):
  sphinx-jupyterbook-latex sets ``numfig_secnum_depth`` to 2 for a book in
  parts (LaTeX's own figure and equation counters then still reset by
  chapter), and sphinx-exercise numbers its titles and references from
  Sphinx's section-based numbers, which made "Exercise 4.11.1" in the PDF;
  a ``{numref}`` with its own text (``%s``) becomes LaTeX's ``\\ref``, which
  would show the section's number: the exercise's number is written instead.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes


def _solution_types():
    try:
        from sphinx_exercise.nodes import solution_node
    except ImportError:  # pragma: no cover - the book requires sphinx-exercise
        return ()
    return (solution_node,)


def _chapter_section(node, docname):
    """The outermost section of ``docname`` that holds ``node``."""
    top, parent = None, node.parent
    while parent is not None:
        if isinstance(parent, nodes.section):
            top = parent
        parent = parent.parent
        if isinstance(parent, (addnodes.start_of_file, nodes.document)):
            break
    chapter = node.parent
    while chapter.parent is not None and isinstance(chapter.parent, nodes.section) \
            and chapter.parent.get("docname", docname) == docname:
        chapter = chapter.parent
    return chapter if isinstance(chapter, nodes.section) else top


def move_solutions(app, doctree, docname):
    if app.builder.format != "latex":
        return
    kinds = _solution_types()
    if not kinds:
        return
    by_chapter = {}
    for solution in list(doctree.findall(lambda n: isinstance(n, kinds))):
        chapter = _chapter_section(solution, solution.get("docname"))
        if chapter is None:
            continue
        by_chapter.setdefault(id(chapter), (chapter, []))[1].append(solution)
    for chapter, solutions in by_chapter.values():
        name = (solutions[0].get("docname") or "chapter").replace("/", "-")
        section = nodes.section(ids=[f"solutions-{name}"], names=[])
        section += nodes.title("", "Solutions")
        for solution in solutions:
            solution.parent.remove(solution)
            section += solution
        chapter += section


def add_exercise_labels(app, exception):
    if exception is not None or app.builder.format != "latex":
        return
    registry = getattr(app.env, "sphinx_exercise_registry", {})
    for tex in Path(app.outdir).glob("*.tex"):
        text = tex.read_text(encoding="utf-8")

        def alias(match):
            label = match.group(1)
            docname = (registry.get(label) or {}).get("docname")
            target = f"\\label{{\\detokenize{{{docname}:{label}}}}}"
            if not docname or target in text:
                return match.group(0)
            return match.group(0) + target

        new = re.sub(r"\\label\{exercise:([^}]+)\}", alias, text)
        new = re.sub(r"\\ref\{\\detokenize\{([^:}]+):([^}]+)\}\}",
                     lambda m: _exercise_number(app.env, m) or m.group(0), new)
        if new != text:
            tex.write_text(new, encoding="utf-8")


def _exercise_number(env, match) -> str | None:
    """The number of the exercise a LaTeX ``\\ref`` names, as its title shows it.

    A ``{numref}`%s <label>``` to an exercise becomes ``\\ref{label}``, which
    LaTeX would fill with the number of the section around the exercise.
    """
    numbers = env.toc_fignumbers.get(match.group(1), {}).get("exercise", {})
    number = numbers.get(match.group(2))
    return ".".join(map(str, number)) if number else None


def number_exercises_by_chapter(app, env):
    """Exercise numbers (chapter, n) in LaTeX builds, as the HTML's ``numfig_secnum_depth: 1``."""
    if app.builder.format != "latex":
        return []
    for fignumbers in env.toc_fignumbers.values():
        numbers = fignumbers.get("exercise")
        if not numbers:
            continue
        by_chapter = {}
        for label, number in sorted(numbers.items(), key=lambda item: item[1]):
            chapter = number[:1]
            by_chapter[chapter] = by_chapter.get(chapter, 0) + 1
            numbers[label] = (*chapter, by_chapter[chapter])
    return []


def setup(app):
    # after Sphinx's toctree collector numbers the figures (env-get-updated, priority 500)
    app.connect("env-get-updated", number_exercises_by_chapter, priority=900)
    app.connect("doctree-resolved", move_solutions)
    app.connect("build-finished", add_exercise_labels)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
