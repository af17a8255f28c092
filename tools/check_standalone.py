"""Every chapter runs alone, outside the repository.

    python tools/check_standalone.py [--venv DIR] [NOTEBOOK ...]

A reader downloads one chapter, or opens it in Colab, with nothing of this
repository around it. This check does what that reader's machine does: it
makes a fresh virtual environment, installs only the package with its
``book`` extra (``pip install "ranking-matters[book]"``, here from this checkout,
with the versions pinned in requirements.txt as constraints), copies each
chapter of ``_toc.yml`` alone into an empty folder and runs it top to bottom
there. A chapter that reads a file of the repository (``../benchmarks``), or
imports a package the extra does not bring, fails here.

Exit status 1 lists the chapters that failed, with the error.
"""

from __future__ import annotations

import argparse
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


def chapters() -> list[Path]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    return [ROOT / f"{name}.ipynb" for name in files if (ROOT / f"{name}.ipynb").exists()]


def write_constraints(path: Path) -> Path:
    """requirements.txt's pins as a pip constraints file (no extras, no ``-e .``)."""
    pins = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line and not line.startswith("-e"):
            pins.append(re.sub(r"\[[^\]]*\]", "", line))  # constraints take no extras
    path.write_text("\n".join(pins) + "\n")
    return path


def make_env(folder: Path) -> Path:
    """A new virtualenv with the package and its ``book`` extra; returns its python."""
    if folder.exists():
        shutil.rmtree(folder)
    venv.EnvBuilder(with_pip=True).create(folder)
    python = folder / "bin" / "python"
    constraints = write_constraints(folder / "constraints.txt")
    leftover = not (ROOT / "build").exists()
    subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                    "--constraint", str(constraints), f"{ROOT}[book]"], check=True)
    if leftover:  # setuptools builds in the source tree; leave it as it was
        shutil.rmtree(ROOT / "build", ignore_errors=True)
    return python


def run_alone(python: Path, notebook: Path):
    """Run one chapter copied alone into an empty folder: (name, None) or (name, error)."""
    with tempfile.TemporaryDirectory(prefix="chapter_alone_") as folder:
        copy = Path(folder) / notebook.name
        shutil.copyfile(notebook, copy)
        began = time.monotonic()
        result = subprocess.run([str(python), "-c", RUNNER, str(copy)],
                                capture_output=True, text=True, cwd=folder)
        took = time.monotonic() - began
        status = "ok" if result.returncode == 0 else "FAILED"
        print(f"check_standalone: {notebook.name}: {status} ({took:.0f} s)", flush=True)
        if result.returncode:
            return notebook.name, (result.stdout + result.stderr).strip()[-1500:]
        return notebook.name, None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", help="chapters to run (default: all in _toc.yml)")
    parser.add_argument("--venv", default=str(ROOT / "_build" / "standalone-venv"),
                        help="where to make the fresh environment (deleted first)")
    parser.add_argument("--jobs", type=int, default=2, help="chapters run at once (default: 2)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    python = make_env(Path(args.venv))
    print(f"check_standalone: fresh environment with ranking-matters[book] in "
          f"{time.monotonic() - started:.0f} s", flush=True)
    notebooks = [Path(n).resolve() for n in args.notebooks] or chapters()
    # two chapters at a time: each runs in its own kernel process, one per core of the CI machine
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(lambda notebook: run_alone(python, notebook), notebooks))
    failures = [(name, error) for name, error in outcomes if error is not None]
    for name, error in failures:
        print(f"\ncheck_standalone: {name} failed when run alone:\n{error}")
    print(f"check_standalone: {'FAIL' if failures else 'PASS'} "
          f"({time.monotonic() - started:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
