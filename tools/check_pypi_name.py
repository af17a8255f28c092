"""Is a distribution name free on PyPI under its similarity rule? (offline)

PyPI refuses a new project whose name is "too similar to an existing project".
Warehouse (the code behind PyPI) decides this with the SQL function
``ultranormalize_name``, defined in pypi/warehouse,
``warehouse/migrations/versions/d18d443f89f0_ultranormalize_name_function.py``
and compared by ``ProjectService.check_project_name`` in
``warehouse/packaging/services.py``: remove every ``.``, ``_`` and ``-``;
replace ``l``, ``L``, ``i``, ``I`` by ``1`` and ``o``, ``O`` by ``0``;
lowercase. Two names with the same result collide. (The same method also
refuses standard-library module names, and flags names close to the
most-depended-on projects for the admins without refusing them; neither is
reproduced here.)

This script compares names with a list of PyPI's project names, a tab-separated
file whose first column is the name (default: the workplace's copy,
``/work/.library/env/packages/pypi.tsv``; another with ``--names``). It runs
offline. Without the list it says so and exits 0: it is a release check, not
part of ``make test``.

    python tools/check_pypi_name.py                    # the names below
    python tools/check_pypi_name.py some-name other    # any names

Exit code 1 when a name that should be free collides (``ranking-matters``,
``trec-eval-py`` by default); the expected collision of the old name
``metrics_lib`` is shown, not an error.
"""

import argparse
import sys
from pathlib import Path

DEFAULT_LIST = Path("/work/.library/env/packages/pypi.tsv")
# name -> what it is here; the first is expected to collide (the reason for the rename)
DEFAULT_NAMES = {
    "metrics_lib": "the import name; the old distribution name",
    "ranking-matters": "the distribution name",
    "trec-eval-py": "the console script's name",
}
EXPECTED_TO_COLLIDE = {"metrics_lib"}

_CONFUSABLES = str.maketrans({".": None, "_": None, "-": None,
                              "l": "1", "L": "1", "i": "1", "I": "1", "o": "0", "O": "0"})


def ultranormalize(name: str) -> str:
    """Warehouse's ``ultranormalize_name``: drop ``._-``, ``l/i -> 1``, ``o -> 0``, lowercase.

    >>> ultranormalize("metrics_lib"), ultranormalize("metricslib")
    ('metr1cs11b', 'metr1cs11b')
    >>> ultranormalize("Ranking-Matters")
    'rank1ngmatters'
    """
    return name.translate(_CONFUSABLES).lower()


def collisions(names, listing: Path) -> dict[str, list[str]]:
    """Every listed PyPI name whose ultranormal form equals that of each name."""
    wanted = {ultranormalize(name): name for name in names}
    found: dict[str, list[str]] = {name: [] for name in names}
    with listing.open(encoding="utf-8", errors="replace") as handle:
        next(handle, None)  # the header: name, version, ...
        for line in handle:
            candidate = line.split("\t", 1)[0].strip()
            key = ultranormalize(candidate)
            if key in wanted:
                found[wanted[key]].append(candidate)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="names to check (default: this project's)")
    parser.add_argument("--names-list", type=Path, default=DEFAULT_LIST,
                        help=f"PyPI's names, first column of a TSV (default {DEFAULT_LIST})")
    args = parser.parse_args(argv)
    names = args.names or list(DEFAULT_NAMES)
    if not args.names_list.is_file():
        print(f"skipped: no list of PyPI names at {args.names_list} (pass --names-list)")
        return 0
    rows = sum(1 for _ in args.names_list.open(encoding="utf-8", errors="replace")) - 1
    print(f"{rows} PyPI names in {args.names_list}")
    failed = False
    for name, hits in collisions(names, args.names_list).items():
        role = DEFAULT_NAMES.get(name, "")
        verdict = "collides with " + ", ".join(sorted(hits)) if hits else "free"
        print(f"{name!r:20} -> {ultranormalize(name)!r:18} {verdict}" + (f"  ({role})" if role else ""))
        failed |= bool(hits) and name not in EXPECTED_TO_COLLIDE
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
