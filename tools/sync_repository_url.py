"""Write the repository's address from ``_config.yml`` into every file that states it.

The address has one source: ``repository.url`` (and ``repository.branch``) in
``_config.yml``, which the book's repository and launch buttons read. The other
files cannot read it, so they carry copies: ``[project.urls]`` in
``pyproject.toml``, ``repository-code`` in ``CITATION.cff``, the README, and the
notebooks' install cells and pages under ``book/``. Each notebook's install cell
installs ``<distribution>[book] @ git+<address>`` (the distribution's name from
``pyproject.toml``), the same line in every chapter, and so does Binder's
environment, ``binder/requirements.txt`` (written whole by this script). The
launch notebooks in ``launch/`` are built from ``book/``: ``make launch``
after this script. After changing
``_config.yml`` (or the distribution's name), run

    python tools/sync_repository_url.py

It replaces the previous address (the one ``CITATION.cff`` states) by the
configured one everywhere, rewrites ``[project.urls]`` from it and the
notebooks' install requirement from it and the name.
``tests/test_packaging.py`` fails while any copy disagrees.
"""

import re
import sys
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def configured(root: Path = ROOT) -> tuple[str, str]:
    """The repository's address (no trailing ``/``) and branch, from ``_config.yml``."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    repository = config["repository"]
    return repository["url"].rstrip("/"), repository.get("branch", "main")


def project_urls(url: str, branch: str) -> dict[str, str]:
    """``[project.urls]`` as derived from the address (a GitHub-style layout)."""
    return {
        "Homepage": url,
        "Documentation": f"{url}/tree/{branch}/book",
        "Source": url,
        "Issues": f"{url}/issues",
        "Changelog": f"{url}/blob/{branch}/CHANGELOG.md",
    }


def book_requirement(root: Path = ROOT) -> str:
    """What every notebook's install cell installs: the book extra from the repository."""
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    return f"{pyproject['project']['name']}[book] @ git+{configured(root)[0]}"


# A notebook's install requirement as it stands in the .ipynb file (JSON: the quotes are \")
_REQUIREMENT = re.compile(r'(?<=%pip install --quiet \\")[\w.-]+\[book\] @ git\+[^"\\\s]+(?=\\")')


BINDER = Path("binder") / "requirements.txt"


def binder_requirements(root: Path = ROOT) -> str:
    """``binder/requirements.txt``: what Binder installs before it opens a launch notebook."""
    return ("# Binder's environment (mybinder.org reads binder/ and then ignores the root's\n"
            "# requirements.txt): the book's package with its book extra, as every chapter's\n"
            "# install cell installs it. Written by tools/sync_repository_url.py: do not edit.\n"
            f"{book_requirement(root)}\n")


def copies(root: Path = ROOT) -> list[Path]:
    """The files, other than ``pyproject.toml``, that may state the address."""
    book = sorted((root / "book").glob("*.ipynb")) + sorted((root / "book").glob("*.md"))
    return [root / "CITATION.cff", root / "README.md", *book]


def citation_url(root: Path = ROOT) -> str:
    text = (root / "CITATION.cff").read_text(encoding="utf-8")
    return re.search(r'^repository-code:\s*"?([^"\s]+)"?\s*$', text, re.MULTILINE).group(1)


def _urls_block(url: str, branch: str) -> str:
    lines = [f'{key} = "{value}"' for key, value in project_urls(url, branch).items()]
    return "[project.urls]\n" + "\n".join(lines) + "\n"


def sync(root: Path = ROOT) -> list[Path]:
    """Rewrite every copy; return the files changed."""
    url, branch = configured(root)
    previous = citation_url(root).rstrip("/")
    changed = []
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    new = re.sub(r"^\[project\.urls\]\n(?:[^\[\n].*\n)*", _urls_block(url, branch), text,
                 count=1, flags=re.MULTILINE)
    for path, old_text, new_text in [(pyproject, text, new)] + [
            (p, p.read_text(encoding="utf-8"), None) for p in copies(root)]:
        if new_text is None:
            new_text = old_text.replace(previous, url) if previous != url else old_text
            if path.suffix == ".ipynb":
                new_text = _REQUIREMENT.sub(book_requirement(root), new_text)
        if new_text != old_text:
            path.write_text(new_text, encoding="utf-8")
            changed.append(path)
    binder = root / BINDER
    if not binder.is_file() or binder.read_text(encoding="utf-8") != binder_requirements(root):
        binder.parent.mkdir(exist_ok=True)
        binder.write_text(binder_requirements(root), encoding="utf-8")
        changed.append(binder)
    return changed


if __name__ == "__main__":
    for path in sync():
        print(f"rewrote {path.relative_to(ROOT)}")
    sys.exit(0)
