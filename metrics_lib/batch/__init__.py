"""The batch evaluation core: two tables in, one row of metric values per user out.

One module per step (see :mod:`metrics_lib.batch.pipeline`): ``options``
(checking), ``reading``, ``users``, ``keys``, ``chunks``, ``scoring``,
``result``. The public front door, :func:`metrics_lib.evaluate`, and the
Dask path (:mod:`metrics_lib.dask_support`) are layers above this package;
nothing here imports them.
"""
