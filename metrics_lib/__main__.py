"""``python -m metrics_lib [-q] [-c] [-m MEASURE] QRELS RUN`` (trec_eval 10.0 drop-in): see :mod:`metrics_lib.cli`; ``python -m metrics_lib explain|find ...``: see :mod:`metrics_lib.explain.command`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
