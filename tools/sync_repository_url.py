"""Write the repository's address from ``_config.yml`` into every file that states it.

The address has one source: ``repository.url`` (and ``repository.branch``) in
``_config.yml``, which the book's repository and launch buttons read. The other
files cannot read it, so they carry copies: ``[project.urls]`` in
``pyproject.toml``, ``repository-code`` in ``CITATION.cff``, the README, and the
notebooks' install cells and pages under ``book/``. After changing
``_config.yml``, run

    python tools/sync_repository_url.py

It replaces the previous address (the one ``CITATION.cff`` states) by the
configured one everywhere and rewrites ``[project.urls]`` from it.
``tests/test_packaging.py`` fails while any copy disagrees.
"""

import re
import sys
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
        if new_text != old_text:
            path.write_text(new_text, encoding="utf-8")
            changed.append(path)
    return changed


if __name__ == "__main__":
    for path in sync():
        print(f"rewrote {path.relative_to(ROOT)}")
    sys.exit(0)
