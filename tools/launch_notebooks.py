"""The notebooks the Colab and Binder buttons open: written, then checked.

    python tools/launch_notebooks.py           (or: make launch) write them
    python tools/launch_notebooks.py --check   check them (make test)

Colab and Binder open a notebook from a branch of the repository, so the
clean notebooks that the download buttons serve (plain Jupyter Markdown,
glued numbers in; ``_ext/plain_downloads.py``) are committed:

* ``launch/<chapter>.ipynb``: the full edition's
  ``_build/html/_sources/book/<chapter>.ipynb``;
* ``launch/student/<chapter>.ipynb``: the student edition's
  (``_build/student/_build/html/_sources/...``, no solutions, no code that
  only computes their numbers).

They are generated from the committed sources, so after changing a chapter,
``make launch`` (both editions built, then this script) refreshes them, and
they are committed with the change. ``_ext/launch_targets.py`` points the
buttons at them.

``--check`` fails (exit 1, listing what) when

* a committed launch notebook differs from the one the current build
  generates, one is missing or one is left over ("run make launch");
* a notebook page's Colab or Binder link is not the one expected, built from
  ``repository.url`` and ``repository.branch`` of ``_config.yml``, to the page's
  launch notebook, or a launch link on any page names a file that does not exist;
* a launch notebook holds MyST syntax (``check_downloads.leftovers``);
* a student launch notebook holds a solution: a folded solution block, a
  solution's text or a solution-only value (``check_student.check`` and
  ``check_student.answer_leaks`` read ``launch/student/`` as the student
  edition's downloads).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import yaml
from bs4 import BeautifulSoup

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "_ext"))
sys.path.insert(0, str(ROOT / "tools"))
from check_downloads import leftovers  # noqa: E402
from launch_targets import PROVIDERS, launch_folder, launch_path  # noqa: E402

FULL_HTML = ROOT / "_build" / "html"
STUDENT_HTML = ROOT / "_build" / "student" / "_build" / "html"
BOOK = "book"  # the folder of the chapters, in the repository and in _sources/
EDITIONS = ((FULL_HTML, False), (STUDENT_HTML, True))


def generated(html: Path) -> dict[str, bytes]:
    """File name -> bytes of an edition's downloadable chapter notebooks."""
    return {p.name: p.read_bytes() for p in sorted((html / "_sources" / BOOK).glob("*.ipynb"))}


def committed(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.ipynb"))}


def write(root: Path = ROOT) -> list[str]:
    """Copy both editions' notebooks into ``launch/``; return the files changed or removed."""
    changed = []
    for html, student in EDITIONS:
        folder = root / launch_folder(student)
        new, old = generated(html), committed(folder)
        if not new:
            raise SystemExit(f"launch_notebooks: no notebook in {html / '_sources' / BOOK}: "
                             "build the book first (make launch builds both editions)")
        folder.mkdir(parents=True, exist_ok=True)
        for name in sorted(set(old) - set(new)):
            (folder / name).unlink()
            changed.append(f"removed {folder.relative_to(root) / name}")
        for name, data in new.items():
            if old.get(name) != data:
                (folder / name).write_bytes(data)
                changed.append(f"wrote {folder.relative_to(root) / name}")
    return changed


def stale(html: Path, folder: Path) -> list[str]:
    """How the committed ``folder`` differs from what the build in ``html`` generates."""
    new, old = generated(html), committed(folder)
    if not new:
        return [f"no built notebook in {html / '_sources' / BOOK}"]
    return ([f"{folder.name}/{n}: missing" for n in sorted(set(new) - set(old))]
            + [f"{folder.name}/{n}: no such chapter in the build" for n in sorted(set(old) - set(new))]
            + [f"{folder.name}/{n}: differs from the build" for n in sorted(set(new) & set(old))
               if new[n] != old[n]])


def expected_links(target: str, config: dict) -> dict[str, str]:
    """Colab and Binder links to the repository file ``target``, from ``_config.yml``."""
    repository, launch = config["repository"], config.get("launch_buttons") or {}
    slug = repository["url"].rstrip("/").split("github.com/")[-1]
    branch = repository.get("branch") or "main"
    ui = {"classic": "tree", "jupyterlab": "lab/tree"}[launch.get("notebook_interface", "classic")]
    links = {}
    if launch.get("colab_url"):
        links["Colab"] = f"{launch['colab_url'].rstrip('/')}/github/{slug}/blob/{branch}/{target}"
    if launch.get("binderhub_url"):
        links["Binder"] = (f"{launch['binderhub_url'].rstrip('/')}/v2/gh/{slug}/{branch}"
                           f"?urlpath={ui}/{target}")
    return links


def link_problems(html: Path, student: bool, config: dict, root: Path = ROOT) -> tuple[list[str], int]:
    """Launch links of the built edition ``html`` that do not open its launch notebooks."""
    problems, pages = [], 0
    prefixes = tuple(expected_links("", config).values())
    for page in sorted(html.rglob("*.html")):
        rel = page.relative_to(html)
        if rel.parts[0].startswith("_"):
            continue
        hrefs = {a["href"] for a in BeautifulSoup(page.read_text(encoding="utf-8"),
                                                  "html.parser").find_all("a", href=True)}
        launch = sorted(h for h in hrefs if prefixes and h.startswith(prefixes))
        doc = rel.with_suffix("").as_posix()
        if (html / "_sources" / f"{doc}.ipynb").is_file():
            pages += 1
            target = launch_path(doc, student)
            for name, want in expected_links(target, config).items():
                if want not in hrefs:
                    problems.append(f"{rel}: no {name} link to {target} ({want}); "
                                    f"launch links found: {launch}")
        for href in launch:
            file = href[len(next(p for p in prefixes if href.startswith(p))):]
            if not (file.startswith(launch_folder(student) + "/") and (root / file).is_file()):
                problems.append(f"{rel}: launch link {href} opens {file}, not a file of "
                                f"{launch_folder(student)}/")
    if pages == 0:
        problems.append(f"{html}: no notebook page found: nothing was checked")
    return problems, pages


def content_problems(root: Path = ROOT) -> list[str]:
    """MyST left in any launch notebook; solutions left in the student ones."""
    problems = []
    for student in (False, True):
        for path in sorted((root / launch_folder(student)).glob("*.ipynb")):
            text = path.read_text(encoding="utf-8")
            problems += [f"{path.relative_to(root)}: {p}" for p in leftovers(json.loads(text))]
            if student and "<summary>Solution" in text:
                problems.append(f"{path.relative_to(root)}: a folded solution block")
    return problems


def student_leaks(root: Path = ROOT) -> list[str]:
    """check_student's checks of the downloads, run on ``launch/student/`` instead."""
    import check_student

    with tempfile.TemporaryDirectory(prefix="launch_student_") as tmp:
        view = Path(tmp)  # the student HTML, with launch/student/ as its _sources/book/
        for entry in STUDENT_HTML.iterdir():
            if entry.name != "_sources":
                (view / entry.name).symlink_to(entry)
        (view / "_sources").mkdir()
        (view / "_sources" / BOOK).symlink_to(root / launch_folder(True))
        failures = check_student.check(FULL_HTML, view)[0]
        failures += check_student.answer_leaks(FULL_HTML, view, root)[0]
    return [f"{launch_folder(True)}: {f}" for f in failures]


def check(root: Path = ROOT) -> list[str]:
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    problems = []
    for html, student in EDITIONS:
        problems += stale(html, root / launch_folder(student))
        found, pages = link_problems(html, student, config, root)
        problems += found
        print(f"launch_notebooks: {pages} notebook pages of {html.relative_to(root)} checked "
              f"for their {' and '.join(PROVIDERS)} links", flush=True)
    problems += content_problems(root)
    problems += student_leaks(root)
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="check the committed launch notebooks and the built links")
    args = parser.parse_args(argv)
    if not args.check:
        for line in write():
            print("launch_notebooks:", line)
        print(f"launch_notebooks: {launch_folder(False)}/ and {launch_folder(True)}/ "
              "hold the built notebooks; commit them")
        return 0
    problems = check()
    for problem in problems:
        print("launch_notebooks:", problem)
    print(f"launch_notebooks: {'FAIL' if problems else 'PASS'}, {len(problems)} problem(s)"
          + (" (make launch refreshes the notebooks; commit them)" if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
