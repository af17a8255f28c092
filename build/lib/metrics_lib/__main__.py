"""``python -m metrics_lib QRELS RUN -m METRIC ...``: see :mod:`metrics_lib.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
