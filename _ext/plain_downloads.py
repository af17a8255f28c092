"""Downloadable notebooks in plain Jupyter Markdown.

The book's notebooks are written in MyST: ``{glue:text}`key:.3f``` inserts a
computed number, ``{term}``, ``{doc}``, ``{eq}`` and ``{cite}`` make links, and
fenced directives make admonitions, exercises and solutions. Jupyter and
Colab show none of that: a student who downloads a chapter would read
placeholders instead of numbers. After the HTML build, this extension rewrites
every notebook offered for download (``_build/html/_sources/**/*.ipynb``) so
that its Markdown cells are plain Jupyter Markdown:

- glued values are inserted, formatted as the HTML shows them;
- ``{printed}`x``` becomes a quotation, terms become their text, chapter
  links become the chapter's title in italics, equation, exercise and figure
  references become their numbers (read from the built HTML page), citations
  become "Author (year)";
- admonitions become block quotes with a bold title, exercises a bold
  "Exercise 4.3" paragraph, solutions a folded ``<details>`` block (dropped
  entirely in the student edition, where ``hide_solutions`` is on, together
  with the code that only computes their numbers: ``student_cells.student_notebook``);
- labelled equations become ``$$ ... \\tag{4.2} $$``.

``tools/check_downloads.py`` checks the result: no MyST syntax left.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

_ROLE = re.compile(r"\{(?P<name>[\w:.-]+)\}`(?P<body>[^`]*)`")
_FENCE_OPEN = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|:{3,})\{(?P<name>[\w:.-]+)\}(?P<arg>[^\n]*)$")
_OPTION = re.compile(r"^\s*:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_LABEL_LINE = re.compile(r"^\s*\((?P<label>[\w:.-]+)\)=\s*$")
_DOLLAR_LABEL = re.compile(r"\$\$(?P<body>.+?)\$\$\s*\((?P<label>[\w:.-]+)\)", re.S)
_ADMONITIONS = {"note", "tip", "warning", "important", "caution", "attention", "hint",
                "seealso", "danger", "error"}


def _format_glue(text: str, spec: str) -> str:
    from myst_nb.core.variables import format_plain_text

    return format_plain_text(text, spec)


def glue_values(notebook: dict) -> dict[str, str]:
    """text/plain of every glued variable, by key."""
    values = {}
    for cell in notebook.get("cells", []):
        for output in cell.get("outputs", []):
            meta = output.get("metadata", {}).get("scrapbook")
            if not meta:
                continue
            prefix = meta.get("mime_prefix", "")
            text = output.get("data", {}).get(prefix + "text/plain")
            if text is not None:
                values[meta["name"]] = "".join(text) if isinstance(text, list) else text
    return values


def html_numbers(page: Path) -> dict[str, str]:
    """label -> number shown on the built page (equations, exercises, figures)."""
    numbers = {}
    if not page.exists():
        return numbers
    text = page.read_text(encoding="utf-8")
    for match in re.finditer(r'id="equation-(?P<label>[^"]+)".*?<span class="eqno">\((?P<n>[^)<]+)\)',
                             text, re.S):
        numbers.setdefault(match["label"], match["n"])
    for match in re.finditer(r'<(?:div|figure|section)[^>]*\bid="(?P<label>[^"]+)"[^>]*>\s*'
                             r'(?:<p class="admonition-title">)?\s*<span class="caption-number">'
                             r'(?P<n>[^<]+)</span>', text, re.S):
        numbers.setdefault(match["label"], match["n"].strip())
    for match in re.finditer(r'<figure[^>]*\bid="(?P<label>[^"]+)".*?<span class="caption-number">'
                             r'(?P<n>[^<]+)</span>', text, re.S):
        numbers.setdefault(match["label"], match["n"].strip())
    return numbers


class Renderer:
    """Turns the MyST of one notebook into plain Jupyter Markdown."""

    def __init__(self, notebook: dict, numbers: dict[str, str], titles: dict[str, str],
                 citations: dict[str, str], glossary: dict[str, str], hide_solutions: bool):
        self.glue = glue_values(notebook)
        self.numbers = numbers
        self.titles = titles
        self.citations = citations
        self.glossary = glossary
        self.hide_solutions = hide_solutions
        self.exercise_numbers = {}

    # -- inline roles -------------------------------------------------------
    def role(self, match: re.Match) -> str:
        name, body = match["name"], match["body"]
        text, target = body, body
        explicit = re.fullmatch(r"(?P<text>.*?)\s*<(?P<target>[^<>]+)>", body, re.S)
        if explicit:
            text, target = explicit["text"], explicit["target"]
        if name.startswith("glue"):
            key, _, spec = target.rpartition(":") if ":" in target else (target, "", "")
            if "::" in key or key not in self.glue:
                key, spec = target, ""
            if key not in self.glue:
                raise KeyError(f"glue key {key!r} not found in the notebook's outputs")
            return _format_glue(self.glue[key], spec or "")
        if name == "printed":
            return f"\u201c{body}\u201d"
        if name == "term":
            return text
        if name == "doc":
            title = text if explicit else self.titles.get(Path(target).stem, Path(target).stem)
            return f"*{title}*"
        if name == "eq":
            return f"({self.numbers.get(target, target)})"
        if name in ("numref", "ref"):
            number = self.numbers.get(target)
            if explicit and name == "numref" and number and "%s" in text:
                return text.replace("%s", re.sub(r"^\D+", "", number))  # "Exercise 4.1" -> 4.1
            if explicit:
                return text
            return self.numbers.get(target, self.titles.get(target, target))
        if name.startswith("cite"):
            keys = [k.strip() for k in target.split(",")]
            cited = "; ".join(self.citations.get(k, k) for k in keys)
            return cited if name in ("cite:t",) else f"({cited})"
        if name == "math":
            return f"${body}$"
        return text

    def inline(self, text: str) -> str:
        return _ROLE.sub(self.role, text)

    # -- blocks -------------------------------------------------------------
    def render(self, text: str) -> str:
        text = _DOLLAR_LABEL.sub(
            lambda m: f"$${m['body'].rstrip()} \\tag{{{self.numbers.get(m['label'], m['label'])}}}\n$$",
            text)
        lines = text.splitlines()
        out = self._blocks(lines)
        return "\n".join(out).strip("\n") + ("\n" if text.endswith("\n") else "")

    def _blocks(self, lines: list[str]) -> list[str]:
        out, i = [], 0
        while i < len(lines):
            line = lines[i]
            if _LABEL_LINE.match(line):
                i += 1
                continue
            opened = _FENCE_OPEN.match(line)
            if not opened:
                out.append(self.inline(line))
                i += 1
                continue
            fence = opened["fence"]
            close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
            j, depth = i + 1, 0
            while j < len(lines):
                inner = _FENCE_OPEN.match(lines[j])
                if inner and inner["fence"] == fence:
                    depth += 1
                elif close.match(lines[j]):
                    if depth == 0:
                        break
                    depth -= 1
                j += 1
            body = lines[i + 1:j]
            options = {}
            while body and _OPTION.match(body[0]):
                option = _OPTION.match(body[0])
                options[option["key"]] = option["value"]
                body = body[1:]
            out.extend(self._directive(opened["name"], opened["arg"].strip(), options, body))
            i = j + 1
        return out

    def _directive(self, name, arg, options, body) -> list[str]:
        if name == "solution" and self.hide_solutions:
            return []  # before rendering: its glued values are gone from the student edition
        inner = self._blocks(body)
        if name == "math":
            label = options.get("label")
            tag = [f"\\tag{{{self.numbers.get(label, label)}}}"] if label else []
            return ["$$", *body, *tag, "$$", ""]
        if name == "exercise":
            number = self.numbers.get(options.get("label", ""), "Exercise")
            self.exercise_numbers[options.get("label", "")] = number
            title = f" ({self.inline(arg)})" if arg else ""
            return ["", f"**{number}**{title}", "", *inner, ""]
        if name == "solution":
            number = self.numbers.get(arg, arg)
            return ["", f"<details><summary>Solution to {number}</summary>", "", *inner, "",
                    "</details>", ""]
        if name == "admonition" or name in _ADMONITIONS:
            title = self.inline(arg) if name == "admonition" else name.capitalize()
            quoted = [f"> {line}" if line.strip() else ">" for line in inner]
            return ["", f"> **{title}**", ">", *quoted, ""]
        if name in ("code-block", "code", "sourcecode"):
            return [f"```{arg}", *body, "```"]
        return ["", *inner, ""]  # div, margin, ...: keep the content


def _plain_latex(text: str) -> str:
    """BibTeX text without LaTeX: J{\\"a}rvelin -> Järvelin."""
    try:
        import codecs

        import latexcodec  # noqa: F401  (registers the "ulatex" codec; pybtex needs it)

        text = codecs.decode(text, "ulatex")
    except (ImportError, ValueError):  # pragma: no cover
        pass
    return re.sub(r"[{}]", "", text)


def _citations(bibfiles: list[Path]) -> dict[str, str]:
    """bib key -> 'Author (year)' or 'Author et al. (year)'."""
    try:
        from pybtex.database import parse_file
    except ImportError:  # pragma: no cover - sphinxcontrib-bibtex brings pybtex
        return {}
    found = {}
    for path in bibfiles:
        if not path.exists():
            continue
        for key, entry in parse_file(str(path)).entries.items():
            alias = re.search(r"Cited in this book as ([^.}]+)", entry.fields.get("note", ""))
            if alias:  # the source posts: "post 002"
                found[key] = alias.group(1).strip()
                continue
            people = entry.persons.get("author") or entry.persons.get("editor") or []
            names = [_plain_latex(" ".join(p.prelast_names + p.last_names)) for p in people]
            if "others" in names:  # BibTeX's "and others"
                names = names[:1] + ["", ""]
            if not names:
                who = re.sub(r"[{}]", "", entry.fields.get("title", key))[:60]
            elif len(names) == 1:
                who = names[0]
            elif len(names) == 2:
                who = f"{names[0]} and {names[1]}"
            else:
                who = f"{names[0]} et al."
            found[key] = f"{who} {entry.fields.get('year', 'n.d.')}"
    return found


def _titles(srcdir: Path, docs: list[str]) -> dict[str, str]:
    titles = {}
    for doc in docs:
        for suffix in (".ipynb", ".md"):
            path = srcdir / (doc + suffix)
            if not path.exists():
                continue
            if suffix == ".ipynb":
                cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
                text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
            else:
                text = path.read_text(encoding="utf-8")
            heading = re.search(r"^#\s+(.+)$", text, re.M)
            if heading:
                titles[Path(doc).stem] = heading.group(1).strip()
    return titles


def render_notebook(notebook: dict, *, numbers, titles, citations, hide_solutions=False,
                    drop_cells=()) -> dict:
    """A copy of ``notebook`` with plain Markdown cells (and ``drop_cells`` left out)."""
    notebook = json.loads(json.dumps(notebook))
    renderer = Renderer(notebook, numbers, titles, citations, {}, hide_solutions)
    cells = []
    for index, cell in enumerate(notebook.get("cells", [])):
        if index in drop_cells:
            continue
        if cell.get("cell_type") == "markdown":
            source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            cell["source"] = renderer.render(source).splitlines(keepends=True)
        cells.append(cell)
    notebook["cells"] = cells
    return notebook


def rewrite_downloads(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    srcdir = Path(app.srcdir)
    docs = list(app.env.found_docs)
    titles = _titles(srcdir, docs)
    bibfiles = [srcdir / f for f in (app.config.bibtex_bibfiles or [])]
    citations = _citations(bibfiles)
    hide = bool(getattr(app.config, "hide_solutions", False))
    removed = {}
    for source in sorted((outdir / "_sources").rglob("*.ipynb")):
        doc = source.relative_to(outdir / "_sources").with_suffix("").as_posix()
        notebook = json.loads(source.read_text(encoding="utf-8"))
        if hide:
            from student_cells import student_notebook

            notebook = student_notebook(notebook, doc)[0]
            # counted on the book's own notebook: an incremental build finds this copy done
            original = json.loads((srcdir / f"{doc}.ipynb").read_text(encoding="utf-8"))
            counts = student_notebook(original, doc)[1]
            removed[doc] = {"solutions": _count_solutions(original), "cells": counts["cells"],
                            "values": counts["values"], "keys": counts["keys"]}
        numbers = html_numbers(outdir / (doc + ".html"))
        plain = render_notebook(notebook, numbers=numbers, titles=titles, citations=citations,
                                hide_solutions=hide)
        source.write_text(json.dumps(plain, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    if hide:  # read by tools/student_edition.py for its summary; not part of the site
        report = Path(app.doctreedir) / "student_removed.json"
        report.write_text(json.dumps(removed, indent=1) + "\n", encoding="utf-8")


def _count_solutions(notebook: dict) -> int:
    """How many ``{solution}`` blocks the Markdown cells of ``notebook`` hold."""
    from student_cells import SOLUTION_BLOCK

    return sum(len(SOLUTION_BLOCK.findall("".join(cell["source"]) if isinstance(
        cell["source"], list) else cell["source"])) for cell in notebook.get("cells", [])
        if cell.get("cell_type") == "markdown")


def setup(app):
    app.connect("build-finished", rewrite_downloads)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
