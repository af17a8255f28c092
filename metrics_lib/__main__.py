"""``python -m metrics_lib [-q] [-c] [-m MEASURE] QRELS RUN`` (trec_eval 10.0 drop-in): see :mod:`metrics_lib.cli`."""

import os
import sys

if __name__ == "__main__":
    # pyarrow's default pool (mimalloc) keeps about 30 MiB more resident than
    # the C library's malloc on the same files (benchmarks/dropin.py, 50,000
    # and 500,000 lines). pyarrow reads this when it makes its pool, so it is
    # set before anything imports pyarrow (pandas does), and only when run as
    # a program: importing this module changes no environment. A user's own
    # choice wins.
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")

from .cli import main  # noqa: E402  (after the pool choice)

if __name__ == "__main__":
    sys.exit(main())
