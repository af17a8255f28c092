"""The student edition carries no answer: the code and values that serve only the solutions.

``_ext/student_cells.py`` cuts them out of the notebooks, ``tools/check_student.py``
proves it on a built edition; these tests run both on small notebooks made here and
the first on every chapter of the book (no build needed).
"""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "_ext"), str(ROOT / "tools")]

from check_student import notebook_leaks  # noqa: E402
from student_cells import _key_patterns, solution_only_keys, student_notebook  # noqa: E402

NOTEBOOKS = sorted((ROOT / "book").glob("*.ipynb"))


def glue_record(key, value):
    return {"output_type": "display_data", "metadata": {"scrapbook": {
        "name": key, "mime_prefix": "application/papermill.record/"}},
        "data": {"application/papermill.record/text/plain": repr(value)}}


def markdown(text, cell_id):
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": text}


def code(source, outputs, cell_id):
    return {"cell_type": "code", "id": cell_id, "metadata": {"tags": ["remove-cell"]},
            "execution_count": 1, "source": source, "outputs": outputs}


def chapter(glue_cell: str, glued: dict, *, solution="{glue:text}`answer:.4f`",
            text="{glue:text}`given`"):
    """A chapter: an exercise quoting ``given``, a solution quoting ``solution``'s keys."""
    return {"cells": [
        code("import numpy as np\nrng = np.random.default_rng(0)\n", [], "setup"),
        code(glue_cell, [glue_record(k, v) for k, v in glued.items()], "glue"),
        markdown(f"```{{exercise}}\n:label: ex-1\nTake n = {text}.\n```\n\n"
                 f"```{{solution}} ex-1\nThe answer is {solution}.\n```\n", "text"),
    ]}


MIXED = """\
# Values quoted in the exercise and its solution.
glue("given", 7, display=False)
# the answer: a mean of seven draws
draws = rng.normal(size=7)
glue("answer", float(draws.mean()), display=False)
"""


def test_solution_only_keys():
    notebook = chapter(MIXED, {"given": 7, "answer": 0.1234567})
    assert solution_only_keys(notebook["cells"]) == {"answer"}


def test_mixed_cell_keeps_the_text_values_and_loses_the_answer():
    notebook = chapter(MIXED, {"given": 7, "answer": 0.1234567})
    before = json.dumps(notebook)
    student, counts = student_notebook(notebook)
    assert json.dumps(notebook) == before, "the input notebook was changed"
    cell = student["cells"][1]
    source = "".join(cell["source"])
    assert 'glue("given"' in source and "Values quoted in the exercise" in source
    assert "answer" not in source and "draws" not in source, source
    assert [o["metadata"]["scrapbook"]["name"] for o in cell["outputs"]] == ["given"]
    assert counts["values"] == 1 and counts["cells"] == 0 and counts["keys"] == ["answer"]
    assert notebook_leaks(notebook, student, rest="", where="nb") == []


def test_cell_of_solution_values_only_is_dropped_with_its_feeders():
    glue_cell = ("best = max(rng.random(3))\n"
                 "glue(\"answer\", float(best), display=False)\n")
    notebook = chapter(glue_cell, {"answer": 0.75}, text="seven")
    student, counts = student_notebook(notebook)
    assert [c["id"] for c in student["cells"]] == ["setup", "text"]
    assert counts == {"cells": 1, "values": 1, "keys": ["answer"], "dropped": [1]}


def test_feeder_used_by_a_later_cell_stays():
    glue_cell = "draws = rng.normal(size=7)\nglue(\"answer\", float(draws.mean()), display=False)\n"
    notebook = chapter(glue_cell, {"answer": 0.5}, text="seven")
    notebook["cells"].append(code("print(draws.std())", [], "later"))
    student, _ = student_notebook(notebook)
    kept = "".join(student["cells"][1]["source"])
    assert kept.strip() == "draws = rng.normal(size=7)", kept


def test_f_string_keys_are_matched():
    glue_cell = ('for k in (1, 2):\n    glue(f"ex_mrr_at{k}", 1 / k, display=False)\n'
                 'glue("given", 2, display=False)\n')
    notebook = chapter(glue_cell, {"ex_mrr_at1": 1.0, "ex_mrr_at2": 0.5, "given": 2},
                       solution="{glue:text}`ex_mrr_at1` and {glue:text}`ex_mrr_at2:.2f`")
    student, counts = student_notebook(notebook)
    assert "".join(student["cells"][1]["source"]) == 'glue("given", 2, display=False)\n'
    assert counts["values"] == 2


@pytest.mark.parametrize("glue_cell", [
    # one loop glues a value the text quotes and one only the solution quotes
    'for k in ("given", "answer"):\n    glue(f"{k}", 1.0, display=False)\n',
    # a key that is not a literal: which statement glues "answer" cannot be told
    'for key in ("given", "answer"):\n    glue(key, 1.0, display=False)\n',
])
def test_a_value_that_cannot_be_cut_out_is_an_error(glue_cell):
    notebook = chapter(glue_cell, {"given": 1.0, "answer": 1.0})
    with pytest.raises(ValueError, match="answer"):
        student_notebook(notebook)


def test_solution_value_in_a_cell_with_visible_output_is_an_error():
    notebook = chapter('glue("answer", 0.25, display=False)\nprint("hello")\n',
                       {"answer": 0.25}, text="seven")
    notebook["cells"][1]["outputs"].append({"output_type": "stream", "name": "stdout",
                                            "text": "hello\n"})
    with pytest.raises(ValueError, match="also shows outputs"):
        student_notebook(notebook)


def test_check_finds_what_is_left():
    notebook = chapter(MIXED, {"given": 7, "answer": 0.1234567})
    # left as it is: the glue call and the record of the answer
    leaks = notebook_leaks(notebook, notebook, rest="", where="nb")
    assert any("1 solution-only value(s) computed: answer" in leak for leak in leaks), leaks
    # the value printed by some other cell, as the solution formats it
    student, _ = student_notebook(notebook)
    student["cells"].append(code("x", [{"output_type": "stream", "name": "stdout",
                                        "text": "0.1235\n"}], "other"))
    leaks = notebook_leaks(notebook, student, rest="", where="nb")
    assert leaks == ["nb: 1 solution-only value(s) shown: answer='0.1235'"]
    # unless the full edition shows that number outside the solutions as well
    assert notebook_leaks(notebook, student, rest="a rate of 0.1235", where="nb") == []


def test_check_finds_a_cell_that_only_served_the_solutions():
    glue_cell = 'glue("answer", 0.75, display=False)\n'
    notebook = chapter(glue_cell, {"answer": 0.75}, text="seven")
    student = json.loads(json.dumps(notebook))
    student["cells"][1]["outputs"] = []
    student["cells"][1]["source"] = "# emptied by hand\n"
    leaks = notebook_leaks(notebook, student, rest="", where="nb")
    assert leaks == ["nb: 1 code cell(s) that only serve the solutions"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_chapter_loses_all_its_solution_only_values(path):
    """What the student build does to each chapter: no solution-only key left defined."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    keys = solution_only_keys(notebook["cells"])
    student, counts = student_notebook(notebook, path.name)
    for cell in student["cells"]:
        if cell["cell_type"] != "code":
            continue
        records = {o["metadata"]["scrapbook"]["name"] for o in cell.get("outputs", [])
                   if "scrapbook" in o.get("metadata", {})}
        assert not records & keys, f"{path.name}: glue records {sorted(records & keys)} left"
        calls = [p for p in _key_patterns("".join(cell["source"])) if p.pattern != "^.*$"]
        left = sorted(k for k in keys if any(p.match(k) for p in calls))
        assert not left, f"{path.name}: glue calls for {left} left"
    assert counts["values"] >= len(keys)


# -- one exercise numbering: tools/check_exercise_numbers.py -------------------------------

def test_latex_exercise_numbers_and_references_are_read():
    from check_exercise_numbers import latex_exercises

    tex = ("\\phantomsection \\label{exercise:ex-a}\\label{\\detokenize{book/a:ex-a}}\n\n"
           "\\begin{sphinxadmonition}{note}{Exercise 4.11.1}\nText\n\\end{sphinxadmonition}\n"
           "see {\\hyperref[\\detokenize{book/a:ex-a}]{\\sphinxcrossref{\\DUrole{std,std-ref}"
           "{2}}}} and \\hyperref[exercise:ex-a]{Exercise 4.1}")
    numbers, refs = latex_exercises(tex)
    assert numbers == {"ex-a": "4.11.1"}
    assert refs == [("ex-a", "2"), ("ex-a", "Exercise 4.1")]


def test_html_exercise_numbers_and_links_are_read(tmp_path):
    from check_exercise_numbers import html_exercises

    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "a.html").write_text(
        '<div class="exercise admonition" id="ex-a"><p class="admonition-title">'
        '<span class="caption-number">Exercise 4.1 </span></p></div>', encoding="utf-8")
    (tmp_path / "book" / "teaching.html").write_text(
        '<td><a href="a.html#ex-a"><span>2</span></a></td>', encoding="utf-8")
    numbers, links = html_exercises(tmp_path)
    assert numbers == {"ex-a": "4.1"}
    assert links == [("book/teaching.html", "ex-a", "2")]


def test_latex_exercises_are_numbered_by_chapter_as_in_the_html():
    """sphinx-jupyterbook-latex's numfig_secnum_depth 2 gave (4, 11, 1); the HTML says 4.1."""
    import re
    from types import SimpleNamespace

    from latex_book import _exercise_number, number_exercises_by_chapter

    env = SimpleNamespace(toc_fignumbers={
        "book/ndcg": {"exercise": {"ex-b": (4, 11, 2), "ex-a": (4, 11, 1), "ex-c": (4, 12, 1)},
                      "figure": {"fig": (4, 2, 1)}},
        "book/pr": {"exercise": {"ex-p": (1, 7, 1)}}})
    app = SimpleNamespace(builder=SimpleNamespace(format="latex"))
    assert number_exercises_by_chapter(app, env) == []
    assert env.toc_fignumbers["book/ndcg"]["exercise"] == {"ex-a": (4, 1), "ex-b": (4, 2),
                                                           "ex-c": (4, 3)}
    assert env.toc_fignumbers["book/pr"]["exercise"] == {"ex-p": (1, 1)}
    assert env.toc_fignumbers["book/ndcg"]["figure"] == {"fig": (4, 2, 1)}  # LaTeX numbers those
    ref = re.search(r"\\ref\{\\detokenize\{([^:}]+):([^}]+)\}\}", r"\ref{\detokenize{book/ndcg:ex-c}}")
    assert _exercise_number(env, ref) == "4.3"
    html = SimpleNamespace(toc_fignumbers={"book/pr": {"exercise": {"ex-p": (1, 7, 1)}}})
    number_exercises_by_chapter(SimpleNamespace(builder=SimpleNamespace(format="html")), html)
    assert html.toc_fignumbers["book/pr"]["exercise"] == {"ex-p": (1, 7, 1)}


def test_a_page_number_is_not_taken_for_a_leaked_value():
    # the student PDF prints every number up to its page count as a footer, a line of the
    # contents or an index entry (a solution's user id 416 in a 476-page PDF)
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import check_student

    assert check_student._page_number("416", 476)
    assert not check_student._page_number("477", 476)
    assert not check_student._page_number("0.416", 476)
    assert not check_student._page_number("41.6", 476)
