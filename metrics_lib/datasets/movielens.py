"""MovieLens 100K, the real data set of the book: :func:`load_movielens_100k`
(the download and the checks are in ``_movielens``).
"""

from __future__ import annotations

from ._movielens import MovieLens100K

__all__ = ["load_movielens_100k", "MovieLens100K"]


def load_movielens_100k(cache_dir=None, *, download=True):
    """MovieLens 100K as three pandas tables: ratings, films and users.

    943 users rated 1,682 films, 100,000 ratings from 1 to 5 stars with a
    timestamp, from September 1997 to April 1998, every user at least 20
    ratings. The files come from the RecBole 1.2.1 wheel on PyPI, which
    ships MovieLens 100K as "atomic files"; RecBole itself and its
    dependencies are not installed.

    Parameters
    ----------
    cache_dir : str or path-like, optional
        Folder for the downloaded wheel and the three extracted files.
        Default: ``$METRICS_LIB_DATA``, else ``~/.cache/metrics_lib``.
    download : bool, default=True
        When the files are neither in ``cache_dir`` nor in an installed
        ``recbole`` package, fetch the wheel with ``pip download
        recbole==1.2.1 --no-deps`` (about 2 MB, once). With ``False``, a
        missing copy raises ``FileNotFoundError`` instead.

    Returns
    -------
    MovieLens100K
        A frozen dataclass with ``ratings`` (``user``, ``item`` int32,
        ``rating`` int8, ``timestamp`` int64 seconds, ``time``
        datetime64[s]), ``items`` (``item``, ``title``, ``year`` nullable
        Int16, ``genres`` tuple of str), ``users`` (``user``, ``age`` int8,
        ``gender``, ``occupation``, ``zip_code``) and ``source`` (where the
        files were read from).

    Raises
    ------
    RuntimeError
        The data cannot be had: no installed RecBole, no cached copy, and
        the download failed (the message says how to fetch the wheel by hand).
    FileNotFoundError
        No copy and ``download=False``.
    ValueError
        A file whose SHA-256 or table shape is not the known one.

    Notes
    -----
    **Terms of use.** MovieLens data sets are published by GroupLens
    Research (University of Minnesota) for research use. They may not be
    redistributed without permission, and a publication that uses them must
    cite Harper and Konstan (2015) [1]_. This is why the book's repository does
    not contain the data: the loader fetches it from PyPI, where RecBole
    distributes it.

    Every file is checked against its SHA-256 (and the wheel against its
    own) and against the known shapes, so that a damaged download or a
    different copy is refused rather than silently evaluated. RecBole's copy
    keeps the original ``u.data`` ratings; its item file drops the IMDb URL
    and the release date but keeps the year and the genres.

    References
    ----------
    .. [1] F. Maxwell Harper and Joseph A. Konstan, "The MovieLens Datasets:
       History and Context", ACM Transactions on Interactive Intelligent
       Systems 5(4), 2015. https://doi.org/10.1145/2827872
    .. [2] RecBole 1.2.1, ``recbole/dataset_example/ml-100k/``,
       https://pypi.org/project/recbole/1.2.1/

    Examples
    --------
    >>> from metrics_lib.datasets import load_movielens_100k
    >>> ml100k = load_movielens_100k()                       # doctest: +SKIP
    >>> ml100k.ratings.shape, ml100k.users.shape, ml100k.items.shape  # doctest: +SKIP
    ((100000, 5), (943, 5), (1682, 4))
    """
    from ._movielens import load

    return load(cache_dir, download=download)
