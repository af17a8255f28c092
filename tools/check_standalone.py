"""Every chapter runs alone, outside the repository, as Colab or Binder opens it.

    python tools/check_standalone.py [--venv DIR] [--student | --sources] [NOTEBOOK ...]

A reader opens a chapter in Colab or Binder, or downloads it, with nothing of
this repository around it: the launch buttons open the committed clean
notebooks ``launch/<chapter>.ipynb`` and ``launch/student/<chapter>.ipynb``
(``tools/launch_notebooks.py``), which are also what the download buttons
serve. This check runs those, as that reader's machine does:

* a fresh virtual environment gets only a kernel (``ipykernel``, ``nbclient``);
* the first chapter's install cell installs the package. Its line must be
  exactly the one every chapter carries (``tools/sync_repository_url.py``:
  ``%pip install --quiet "ranking-matters[book] @ git+<_config.yml's address>"``);
  here ``git+<address>`` is replaced by ``file://<this checkout>`` and nothing
  else, so the check runs offline and tests the code being committed, and pip
  takes the versions pinned in requirements.txt (``PIP_CONSTRAINT``);
* every chapter is copied alone into an empty folder and run top to bottom
  (the others find the package installed, as Binder's image does, and skip
  their install cell, whose line is checked all the same).

``make test`` runs the full edition's launch notebooks (their code is the
sources' code). ``--student`` also runs the student ones whose code differs
(``_ext/student_cells.py`` dropped the code that only serves the solutions:
what is left must still run); on the 2-core machine that more than doubles
the time (13 of 15 chapters differ, the slowest among them), so it is left
to whoever changes ``_ext/student_cells.py`` or a solution. A chapter that
reads a file of the repository (``../benchmarks``), imports a package the
``book`` extra does not bring, or (``--student``) needs a dropped cell fails
here. ``--sources`` runs the MyST sources under ``book/`` instead.

Exit status 1 lists the chapters that failed, with the error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "_ext"), str(ROOT / "tools")]
import sync_repository_url as SYNC  # noqa: E402  (the install line every chapter carries)
from launch_targets import launch_folder  # noqa: E402

RUNNER = r"""
import sys, nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=600, kernel_name="python3",
                        resources={"metadata": {"path": str(__import__("pathlib").Path(path).parent)}})
try:
    client.execute()
except CellExecutionError as exc:
    print(str(exc)[-2000:])
    sys.exit(1)
"""


def _toc_names() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    return [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]


def chapters() -> list[Path]:
    """The MyST sources of the chapters (``--sources``)."""
    return [ROOT / f"{name}.ipynb" for name in _toc_names() if (ROOT / f"{name}.ipynb").exists()]


def _code(path: Path) -> list[str]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def launch_notebooks(student: bool = False) -> list[Path]:
    """The full edition's launch notebooks; with ``student``, the student ones whose code differs."""
    full, students = ROOT / launch_folder(False), ROOT / launch_folder(True)
    names = [Path(name).name for name in _toc_names()]
    notebooks = [full / f"{n}.ipynb" for n in names if (full / f"{n}.ipynb").exists()]
    if not notebooks:
        raise SystemExit(f"check_standalone: no notebook in {full}: run make launch")
    if not student:
        return notebooks
    return notebooks + [students / p.name for p in notebooks if (students / p.name).exists()
                        and _code(students / p.name) != _code(p)]


def install_line() -> str:
    """The install cell's line, as tools/sync_repository_url.py writes it in every chapter."""
    return f'%pip install --quiet "{SYNC.book_requirement(ROOT)}"'


def localise(notebook: dict, name: str, install: bool) -> dict:
    """Check the install cell's line; with ``install``, point it at this checkout."""
    line, (url, _) = install_line(), SYNC.configured(ROOT)
    hits = [c for c in notebook["cells"] if c["cell_type"] == "code"
            and line in "".join(c["source"])]
    if len(hits) != 1:
        raise SystemExit(f"check_standalone: {name}: {len(hits)} cells hold the install line "
                         f"{line!r}, not 1: run python tools/sync_repository_url.py, make launch")
    if install:  # git+<address> -> file://<checkout>, nothing else
        local = line.replace(f"git+{url}", ROOT.as_uri())
        hits[0]["source"] = "".join(hits[0]["source"]).replace(line, local)
    return notebook


def write_constraints(path: Path) -> Path:
    """requirements.txt's pins as a pip constraints file (no extras, no ``-e .``)."""
    pins = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-e"):
            pins.append(re.sub(r"\[[^\]]*\]", "", line))  # constraints take no extras
    path.write_text("\n".join(pins) + "\n")
    return path


def make_env(folder: Path) -> tuple[Path, dict]:
    """A new virtualenv with a kernel only (the first chapter installs the package).

    Returns its python and the environment to run it in (pip reads the pins
    from ``PIP_CONSTRAINT``, in the install cell too).
    """
    if folder.exists():
        shutil.rmtree(folder)
    venv.EnvBuilder(with_pip=True).create(folder)
    python = folder / "bin" / "python"
    env = dict(os.environ, PIP_CONSTRAINT=str(write_constraints(folder / "constraints.txt")),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    subprocess.run([str(python), "-m", "pip", "install", "-q", "ipykernel", "nbclient",
                    "nbformat"], check=True, env=env)
    return python, env


def run_alone(python: Path, env: dict, notebook: Path, install: bool = False):
    """Run one chapter copied alone into an empty folder: (name, None) or (name, error)."""
    name = notebook.relative_to(ROOT).as_posix() if notebook.is_relative_to(ROOT) else notebook.name
    with tempfile.TemporaryDirectory(prefix="chapter_alone_") as folder:
        copy = Path(folder) / notebook.name
        content = localise(json.loads(notebook.read_text(encoding="utf-8")), name, install)
        copy.write_text(json.dumps(content, indent=1, ensure_ascii=False), encoding="utf-8")
        leftover = not (ROOT / "build").exists()
        began = time.monotonic()
        result = subprocess.run([str(python), "-c", RUNNER, str(copy)],
                                capture_output=True, text=True, cwd=folder, env=env)
        took = time.monotonic() - began
        if install and leftover:  # setuptools builds in the source tree; leave it as it was
            shutil.rmtree(ROOT / "build", ignore_errors=True)
        status = "ok" if result.returncode == 0 else "FAILED"
        what = " (its install cell installed the package)" if install else ""
        print(f"check_standalone: {name}: {status}{what} ({took:.0f} s)", flush=True)
        if result.returncode:
            return name, (result.stdout + result.stderr).strip()[-1500:]
        return name, None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="chapters to run (default: the launch "
                        "notebooks of _toc.yml's chapters)")
    parser.add_argument("--student", action="store_true", help="also run the student "
                        "edition's launch notebooks whose code differs from the full edition's")
    parser.add_argument("--sources", action="store_true", help="run the MyST sources in book/")
    parser.add_argument("--venv", default=str(ROOT / "_build" / "standalone-venv"),
                        help="where to make the fresh environment (deleted first)")
    parser.add_argument("--jobs", type=int, default=2, help="chapters run at once (default: 2)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    notebooks = ([Path(n).resolve() for n in args.notebooks]
                 or (chapters() if args.sources else launch_notebooks(args.student)))
    python, env = make_env(Path(args.venv))
    print(f"check_standalone: fresh environment with a kernel in "
          f"{time.monotonic() - started:.0f} s; {len(notebooks)} notebooks to run", flush=True)
    # the first installs the package through its own install cell; then two chapters at a
    # time, each in its own kernel process, one per core of the CI machine
    outcomes = [run_alone(python, env, notebooks[0], install=True)]
    if outcomes[0][1] is None:
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            outcomes += pool.map(lambda notebook: run_alone(python, env, notebook), notebooks[1:])
    failures = [(name, error) for name, error in outcomes if error is not None]
    for name, error in failures:
        print(f"\ncheck_standalone: {name} failed when run alone:\n{error}")
    print(f"check_standalone: {'FAIL' if failures else 'PASS'} "
          f"({time.monotonic() - started:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
