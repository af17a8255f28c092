"""The distribution's metadata: one repository address, one version, nothing left out.

Static checks on the files (no build): the wheel itself is built and installed by
tests/test_wheel_install.py.
"""

import importlib.util
import inspect
import json
import re
import subprocess
import tomllib
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import setuptools

import metrics_lib
import metrics_lib.__main__
import metrics_lib.cli

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PROJECT = PYPROJECT["project"]
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _load_tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SYNC = _load_tool("sync_repository_url")
URL, BRANCH = SYNC.configured(ROOT)
URL_RE = re.compile(r"""(?:git\+)?https?://[^\s"'<>)\]\\`]+""")


def test_configured_address_is_an_https_url():
    parts = urlsplit(URL)
    assert parts.scheme == "https" and parts.netloc and parts.path.strip("/"), URL


def test_project_urls_come_from_the_configured_address():
    assert PROJECT["urls"] == SYNC.project_urls(URL, BRANCH), (
        "pyproject.toml's [project.urls] differ from _config.yml's repository: "
        "run python tools/sync_repository_url.py")


def test_citation_states_the_configured_address_and_version():
    assert SYNC.citation_url(ROOT) == URL
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(rf"^version: {re.escape(metrics_lib.__version__)}\s*$", text, re.MULTILINE)


CODE_HOSTS = {"github.com", "gitlab.com", "codeberg.org", "bitbucket.org", urlsplit(URL).netloc}


def _names_this_project(url: str) -> bool:
    """A git+ install address, or a code host's link to a repository named like this one."""
    if url.startswith("git+"):
        return True
    parts = urlsplit(url)
    repository = "/".join(parts.path.strip("/").split("/")[:2])
    return parts.netloc in CODE_HOSTS and (
        repository == urlsplit(URL).path.strip("/") or "ranking-matters" in repository)


def _stale(text: str) -> list[str]:
    found = {u.rstrip(".,;:") for u in URL_RE.findall(text)}  # a sentence's full stop
    return sorted({u for u in found
                   if _names_this_project(u) and not re.match(
                       rf"(?:git\+)?{re.escape(URL)}(?:[/#?@]|$)", u)})


def test_readme_states_the_configured_address_and_no_other():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert URL in readme
    assert _stale(readme) == []


@pytest.mark.parametrize("path", SYNC.copies(ROOT), ids=lambda p: p.name)
def test_no_file_states_another_address(path):
    assert _stale(path.read_text(encoding="utf-8")) == [], (
        f"{path.name} names a repository address other than _config.yml's {URL}: "
        "run python tools/sync_repository_url.py")


def test_the_check_sees_a_stale_address():
    # the same text with the address of another repository must be caught
    other = "https://github.com/ranking-matters/ranking-matters-old"
    assert _stale(f'pip install "ranking-matters @ git+{other}"') == [f"git+{other}"]
    assert _stale(f"see {URL}/issues and {URL}.") == []
    # a copy left on another code host is caught too
    assert _stale("https://gitlab.com/ranking-matters/ranking-matters") != []


def test_version_has_one_source():
    assert "version" not in PROJECT and "version" in PROJECT["dynamic"]
    assert SETUPTOOLS["dynamic"]["version"] == {"attr": "metrics_lib.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", metrics_lib.__version__)


def test_changelog_has_the_current_version():
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (\d+\.\d+\.\d+)\b", changelog, re.MULTILINE)
    assert headings and headings[0] == metrics_lib.__version__, headings


def test_licence_is_spdx_with_its_file():
    assert PROJECT["license"] == "MIT"
    assert not any(c.startswith("License ::") for c in PROJECT["classifiers"])
    for name in PROJECT["license-files"]:
        assert (ROOT / name).read_text(encoding="utf-8").startswith("MIT License")


def test_names_and_extras():
    assert PROJECT["name"] == "ranking-matters"
    assert {"polars", "arrow", "dask", "book"} <= set(PROJECT["optional-dependencies"])
    assert PROJECT["readme"]["file"] == "README.md"


def test_console_script_is_the_command_lines_main():
    target = PROJECT["scripts"]["trec-eval-py"]
    module, _, name = target.partition(":")
    assert module == "metrics_lib.cli" and getattr(metrics_lib.cli, name) is metrics_lib.__main__.main
    assert inspect.signature(metrics_lib.cli.main).parameters["argv"].default is None
    # the name its error messages give (tests/test_wheel_install.py runs the installed script)
    assert list(PROJECT["scripts"]) == [metrics_lib.cli._SCRIPT]


def test_every_package_is_found():
    found = set(setuptools.find_packages(ROOT, **SETUPTOOLS["packages"]["find"]))
    on_disk = {".".join(p.parent.relative_to(ROOT).parts)
               for p in (ROOT / "metrics_lib").rglob("__init__.py")}
    assert found == on_disk


def _tracked_data_files() -> list[Path]:
    try:
        # tracked files and new ones not ignored: a data file not yet committed counts too
        command = ["git", "ls-files", "--cached", "--others", "--exclude-standard", "metrics_lib"]
        listed = subprocess.run(command, cwd=ROOT, check=True, capture_output=True,
                                text=True).stdout.split()
        files = [ROOT / name for name in listed]
    except (OSError, subprocess.CalledProcessError):  # no git: every file on disk
        files = [p for p in (ROOT / "metrics_lib").rglob("*") if p.is_file()]
    return [p for p in files if p.suffix not in {".py", ".pyc"} and "__pycache__" not in p.parts]


def test_every_data_file_is_package_data():
    packages = setuptools.find_packages(ROOT, **SETUPTOOLS["packages"]["find"])
    covered = set()
    for key, patterns in SETUPTOOLS["package-data"].items():
        for package in (packages if key == "*" else [key]):
            folder = ROOT.joinpath(*package.split("."))
            covered |= {p for pattern in patterns for p in folder.glob(pattern)}
    data = _tracked_data_files()
    assert any(p.name == "py.typed" for p in data)
    missing = [str(p.relative_to(ROOT)) for p in data if p not in covered]
    assert not missing, f"not in [tool.setuptools.package-data], so not in the wheel: {missing}"


def _install_cells(book: Path) -> list[tuple[str, dict, str]]:
    cells = []
    for path in sorted(book.glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code" and "pip install" in "".join(cell["source"]):
                cells.append((path.name, cell["metadata"], "".join(cell["source"])))
    return cells


def test_notebook_install_cells_install_the_distribution_from_the_address():
    # every chapter installs the same requirement, <name>[book] @ git+<_config.yml's address>,
    # in a cell the book does not show (nbval runs it: find_spec finds the package, no output)
    requirement = SYNC.book_requirement(ROOT)
    assert requirement == f"{PROJECT['name']}[book] @ git+{URL}"
    cells = _install_cells(ROOT / "book")
    assert {p.name for p in (ROOT / "book").glob("*.ipynb")} == {name for name, _, _ in cells}
    for name, metadata, source in cells:
        assert f'%pip install --quiet "{requirement}"' in source, (
            f"{name}'s install cell differs: run python tools/sync_repository_url.py")
        assert "remove-cell" in metadata.get("tags", []), name


def test_sync_rewrites_an_install_cell_left_with_another_name_or_address(tmp_path):
    for name in ("_config.yml", "pyproject.toml", "CITATION.cff", "README.md",
                 "binder/requirements.txt"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    (tmp_path / "book").mkdir()
    old_cell = {"cell_type": "code", "metadata": {"tags": ["remove-cell"]}, "outputs": [],
                "execution_count": 1, "source": [
                    'if importlib.util.find_spec("metrics_lib") is None:\n',
                    '    %pip install --quiet "metrics_lib[book] @ git+https://example.org/x"']}
    notebook = tmp_path / "book" / "chapter.ipynb"
    notebook.write_text(json.dumps({"cells": [old_cell]}, indent=1), encoding="utf-8")
    assert SYNC.sync(tmp_path) == [notebook]
    ((_, _, source),) = _install_cells(tmp_path / "book")
    assert source.endswith(f'%pip install --quiet "{SYNC.book_requirement(ROOT)}"')
    assert SYNC.sync(tmp_path) == []


def test_binder_installs_what_the_install_cells_install():
    # Binder builds its image from binder/ (and then ignores the root's requirements.txt
    # and runtime.txt): the book's package from the configured address, the same Python
    binder = ROOT / "binder"
    requirements = (binder / "requirements.txt").read_text(encoding="utf-8")
    assert requirements == SYNC.binder_requirements(ROOT), (
        "binder/requirements.txt differs: run python tools/sync_repository_url.py")
    lines = [line for line in requirements.splitlines() if not line.startswith("#")]
    assert lines == [f"{PROJECT['name']}[book] @ git+{URL}"]
    assert (binder / "runtime.txt").read_text() == (ROOT / "runtime.txt").read_text()


def test_sync_rewrites_binder_requirements_left_with_another_address(tmp_path):
    for name in ("_config.yml", "pyproject.toml", "CITATION.cff", "README.md"):
        (tmp_path / name).write_bytes((ROOT / name).read_bytes())
    (tmp_path / "book").mkdir()
    (tmp_path / "binder").mkdir()
    binder = tmp_path / "binder" / "requirements.txt"
    binder.write_text("ranking-matters[book] @ git+https://example.org/x\n", encoding="utf-8")
    assert SYNC.sync(tmp_path) == [binder]
    assert binder.read_text(encoding="utf-8") == SYNC.binder_requirements(ROOT)
    assert SYNC.sync(tmp_path) == []
