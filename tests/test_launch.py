"""The Colab and Binder buttons open the clean notebooks committed in launch/.

The built book is checked by ``tools/launch_notebooks.py --check`` in ``make test``
(after both editions are built); here the pieces are checked on small inputs, and the
committed notebooks themselves, which need no build.
"""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "_ext"), str(ROOT / "tools")]
import check_standalone  # noqa: E402
import launch_notebooks as launch  # noqa: E402
import launch_targets  # noqa: E402
import sync_repository_url as sync  # noqa: E402

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
URL, BRANCH = sync.configured(ROOT)
SLUG = URL.split("github.com/")[1]


def _notebook(*cells):
    return {"cells": [{"cell_type": kind, "metadata": {}, "source": text,
                       **({"outputs": [], "execution_count": None} if kind == "code" else {})}
                      for kind, text in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _write(path: Path, content) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def test_launch_paths_of_both_editions():
    assert launch_targets.launch_path("book/ndcg", False) == "launch/ndcg.ipynb"
    assert launch_targets.launch_path("book/ndcg", True) == "launch/student/ndcg.ipynb"


def test_retarget_swaps_the_trailing_source_path_only():
    url = "https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/book/ndcg.ipynb"
    assert (launch_targets.retarget(url, "book/ndcg.ipynb", "launch/ndcg.ipynb")
            == "https://mybinder.org/v2/gh/o/r/main?urlpath=lab/tree/launch/ndcg.ipynb")
    with pytest.raises(ValueError, match="does not end with the page's source path"):
        launch_targets.retarget(url + "#x", "book/ndcg.ipynb", "launch/ndcg.ipynb")


def _theme_buttons(pagename):
    """The launch group as sphinx-book-theme 1.3 (header_buttons/launch.py) builds it."""
    source = f"{pagename}.ipynb"
    return [{"label": "download-buttons", "buttons": [{"text": ".ipynb", "url": "x.ipynb"}]},
            {"label": "launch-buttons", "buttons": [
                {"text": "Binder", "url": f"https://mybinder.org/v2/gh/{SLUG}/{BRANCH}"
                                          f"?urlpath=lab/tree/{source}"},
                {"text": "Colab", "url": f"https://colab.research.google.com/github/{SLUG}"
                                         f"/blob/{BRANCH}/{source}"}]}]


class _Config(SimpleNamespace):
    """Sphinx's config: values as attributes and as items."""

    def __getitem__(self, key):
        return getattr(self, key)


@pytest.mark.parametrize("hide_solutions", [False, True])
def test_the_hook_points_the_theme_links_at_the_launch_notebook(hide_solutions):
    app = SimpleNamespace(config=_Config(hide_solutions=hide_solutions,
                                         html_theme_options={"path_to_docs": ""}),
                          env=SimpleNamespace(doc2path=lambda doc, base: f"{doc}.ipynb"))
    context = {"header_buttons": _theme_buttons("book/ndcg")}
    launch_targets.point_launch_buttons(app, "book/ndcg", "page.html", context, None)
    target = "launch/student/ndcg.ipynb" if hide_solutions else "launch/ndcg.ipynb"
    urls = {b["text"]: b["url"] for b in context["header_buttons"][1]["buttons"]}
    assert urls == launch.expected_links(target, CONFIG)
    assert context["header_buttons"][0]["buttons"][0]["url"] == "x.ipynb"


def test_expected_links_are_built_from_the_one_configured_address():
    links = launch.expected_links("launch/ndcg.ipynb", CONFIG)
    assert links == {
        "Colab": f"https://colab.research.google.com/github/{SLUG}/blob/{BRANCH}/launch/ndcg.ipynb",
        "Binder": f"https://mybinder.org/v2/gh/{SLUG}/{BRANCH}?urlpath=lab/tree/launch/ndcg.ipynb"}


def _page(html: Path, doc: str, hrefs):
    _write(html / "_sources" / f"{doc}.ipynb", _notebook())
    _write(html / f"{doc}.html", "".join(f'<a href="{h}">x</a>' for h in hrefs))


def test_links_to_the_myst_source_or_to_a_missing_file_are_caught(tmp_path):
    html, root = tmp_path / "html", tmp_path / "repo"
    _write(root / "launch" / "ndcg.ipynb", _notebook())
    good = launch.expected_links("launch/ndcg.ipynb", CONFIG)
    _page(html, "book/ndcg", good.values())
    assert launch.link_problems(html, False, CONFIG, root) == ([], 1)
    # what the theme made before: the repository's MyST source
    _page(html, "book/ndcg", launch.expected_links("book/ndcg.ipynb", CONFIG).values())
    problems, _ = launch.link_problems(html, False, CONFIG, root)
    assert sum("no Colab link" in p or "no Binder link" in p for p in problems) == 2
    assert sum("opens book/ndcg.ipynb" in p for p in problems) == 2
    # the student edition must open launch/student/, which is missing here
    _page(html, "book/ndcg", good.values())
    problems, _ = launch.link_problems(html, True, CONFIG, root)
    assert len(problems) == 4, problems
    (root / "launch" / "ndcg.ipynb").unlink()
    problems, _ = launch.link_problems(html, False, CONFIG, root)
    assert [p for p in problems if "not a file of launch/" in p] and len(problems) == 2


def test_myst_and_folded_solutions_in_launch_notebooks_are_caught(tmp_path):
    _write(tmp_path / "launch" / "a.ipynb", _notebook(("markdown", "NDCG is {glue:text}`n:.3f`.")))
    _write(tmp_path / "launch" / "b.ipynb", _notebook(("markdown", "NDCG is 0.613.")))
    solution = "<details><summary>Solution to Exercise 4.1</summary>\n\n42\n</details>"
    _write(tmp_path / "launch" / "c.ipynb", _notebook(("markdown", solution)))
    _write(tmp_path / "launch" / "student" / "c.ipynb", _notebook(("markdown", solution)))
    problems = launch.content_problems(tmp_path)
    assert len(problems) == 2, problems
    assert "launch/a.ipynb: cell 0: a MyST role" in problems[0]
    assert problems[1] == "launch/student/c.ipynb: a folded solution block"


def test_check_downloads_finds_a_role_and_leaves_code_spans_alone():
    from check_downloads import leftovers

    found = leftovers(_notebook(("markdown", "NDCG is {glue:text}`ndcg:.3f`, see `x`.")))
    assert found == ["cell 0: a MyST role: '{glue:text}`ndcg:.3f`'"]
    shown = "Write `{glue:text}` or ``{term}`x` `` in MyST; `a` and `b`."
    assert leftovers(_notebook(("markdown", shown))) == []


def test_stale_lists_missing_leftover_and_changed_notebooks(tmp_path):
    built = tmp_path / "html" / "_sources" / "book"
    _write(built / "a.ipynb", "A")
    _write(built / "b.ipynb", "B")
    _write(tmp_path / "launch" / "b.ipynb", "B, edited")
    _write(tmp_path / "launch" / "c.ipynb", "C")
    assert launch.stale(tmp_path / "html", tmp_path / "launch") == [
        "launch/a.ipynb: missing", "launch/c.ipynb: no such chapter in the build",
        "launch/b.ipynb: differs from the build"]
    _write(tmp_path / "launch" / "b.ipynb", "B")
    (tmp_path / "launch" / "c.ipynb").unlink()
    _write(tmp_path / "launch" / "a.ipynb", "A")
    assert launch.stale(tmp_path / "html", tmp_path / "launch") == []


def test_committed_launch_notebooks_are_plain_and_without_solutions_for_students():
    names = {p.name for p in (ROOT / "launch").glob("*.ipynb")}
    assert names == {p.name for p in (ROOT / "launch" / "student").glob("*.ipynb")}
    assert names == {f"{Path(c['file']).name}.ipynb" for part in yaml.safe_load(
        (ROOT / "_toc.yml").read_text())["parts"] for c in part["chapters"]
        if (ROOT / f"{c['file']}.ipynb").exists()}
    assert launch.content_problems(ROOT) == []


def test_every_launch_notebook_carries_the_synced_install_line_once():
    line = f'%pip install --quiet "{sync.book_requirement(ROOT)}"'
    assert line == check_standalone.install_line()
    for path in sorted((ROOT / "launch").rglob("*.ipynb")):
        sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                   if c["cell_type"] == "code"]
        assert sum(line in s for s in sources) == 1, path


def test_standalone_run_swaps_only_the_address_for_this_checkout():
    line = check_standalone.install_line()
    cell = f'import importlib.util\nif x is None:\n    {line}'
    local = check_standalone.localise(_notebook(("code", cell)), "c", install=True)
    assert local["cells"][0]["source"] == cell.replace(f"git+{URL}", ROOT.as_uri())
    kept = check_standalone.localise(_notebook(("code", cell)), "c", install=False)
    assert kept["cells"][0]["source"] == cell
    other = cell.replace(URL, "https://github.com/someone/else")
    with pytest.raises(SystemExit, match="0 cells hold the install line"):
        check_standalone.localise(_notebook(("code", other)), "c", install=False)


@pytest.mark.skipif(not (launch.STUDENT_HTML / "search.html").is_file()
                    or not (launch.FULL_HTML / "search.html").is_file(),
                    reason="needs both built editions (make launch)")
def test_check_student_reads_launch_student_and_finds_the_full_notebooks(tmp_path):
    # (launch.student_leaks(ROOT) == [] is checked by make test: launch_notebooks.py --check)
    # a launch/student/ holding the full edition's notebooks, solutions and all
    (tmp_path / "book").mkdir()  # one chapter's answers looked for: quicker
    (tmp_path / "book" / "ndcg.ipynb").symlink_to(ROOT / "book" / "ndcg.ipynb")
    (tmp_path / "launch").mkdir()
    (tmp_path / "launch" / "student").symlink_to(ROOT / "launch")
    leaks = launch.student_leaks(tmp_path)
    assert any("solution text in its downloadable source" in f for f in leaks), leaks
    assert any("solution-only value(s) computed" in f for f in leaks), leaks


def test_standalone_runs_the_full_launch_notebooks_and_student_ones_on_request():
    full = check_standalone.launch_notebooks()
    assert [p.parent for p in full] == [ROOT / "launch"] * len(full)
    assert {p.name for p in full} == {p.name for p in (ROOT / "launch").glob("*.ipynb")}
    both = check_standalone.launch_notebooks(student=True)
    assert both[:len(full)] == full
    students = both[len(full):]
    assert students and all(p.parent == ROOT / "launch" / "student" for p in students)
    # only those whose code the student edition changed: the others would run the same code
    for path in students:
        assert check_standalone._code(path) != check_standalone._code(ROOT / "launch" / path.name)


def test_download_citations_keep_the_von_part(tmp_path):
    # _ext/plain_downloads.py writes {cite} as "Author year" in the downloads; a name's
    # lower-case particle ("van", "de") is part of the surname there too
    import plain_downloads

    bib = _write(tmp_path / "refs.bib",
                 "@book{a, author = {van Rijsbergen, C. J.}, title = {IR}, year = {1979}}\n"
                 "@inproceedings{b, author = {Van Gysel, Christophe and de Rijke, Maarten},"
                 " title = {T}, year = {2018}}\n")
    cites = plain_downloads._citations([bib])
    assert cites == {"a": "van Rijsbergen 1979", "b": "Van Gysel and de Rijke 2018"}
