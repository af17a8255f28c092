"""Remove execution timestamps from notebooks, leaving outputs untouched.

Running a notebook with nbconvert/nbclient records when each cell started and
finished in the cell metadata. Those timestamps change on every run and make
every re-execution a noisy diff, so committed notebooks carry none.

Usage: python tools/clean_notebooks.py [NOTEBOOK ...]   (default: book/*.ipynb)
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def clean(path: Path) -> bool:
    """Strip the ``execution`` metadata of every cell; True if the file changed."""
    text = path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    for cell in notebook["cells"]:
        cell.get("metadata", {}).pop("execution", None)
    # nbformat's own layout: one-space indent, keys in file order, newline at end
    cleaned = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    if cleaned != text:
        path.write_text(cleaned, encoding="utf-8")
        return True
    return False


def main(argv):
    paths = [Path(p) for p in argv] or sorted((ROOT / "book").glob("*.ipynb"))
    for path in paths:
        if clean(path):
            print(f"cleaned {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
