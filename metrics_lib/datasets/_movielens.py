"""MovieLens 100K, read from the RecBole 1.2.1 wheel on PyPI.

The repository does not carry the data (GroupLens does not allow
redistribution). RecBole's wheel ships MovieLens 100K as three "atomic files"
(``recbole/dataset_example/ml-100k/ml-100k.{inter,item,user}``); the loader
finds them in an installed RecBole, in a cache folder, or downloads the wheel
once with ``pip download recbole==1.2.1 --no-deps`` (no RecBole dependency is
installed), checks every file against its SHA-256 and the table shapes, and
parses them into pandas tables. :func:`metrics_lib.datasets.load_movielens_100k`
is the public entry point.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

RECBOLE_VERSION = "1.2.1"
WHEEL = f"recbole-{RECBOLE_VERSION}-py3-none-any.whl"
WHEEL_SHA256 = "9c9948202011f37eb0a7c6768129313f00d6403ad221ec940d5e2d5d5f33a407"
MEMBER = "recbole/dataset_example/ml-100k/ml-100k.{}"
FILES = {
    "inter": "4edb74e2a81178c2ba9ff381495f754f996c4aea351b1272ca36b43da0935eff",
    "item": "51d7cdf777ce5c0f5b32c1d947a4a81fe07d75e78abbe761e0cd4d0756064532",
    "user": "4f670007d9cfbeb9807e757209af1555b9bcc186bde25e767f67cb67c6dd5972",
}
SHAPES = {"ratings": 100_000, "items": 1_682, "users": 943}
ENV_DIR = "METRICS_LIB_DATA"


@dataclass(frozen=True)
class MovieLens100K:
    """The three tables of MovieLens 100K.

    Attributes
    ----------
    ratings : pandas.DataFrame
        One row per rating: ``user`` (int32), ``item`` (int32), ``rating``
        (int8, 1 to 5 stars), ``timestamp`` (int64, seconds since 1970, UTC)
        and ``time`` (the same as a ``datetime64[s]``), in the file's order.
    items : pandas.DataFrame
        One row per film: ``item`` (int32), ``title`` (str), ``year``
        (nullable Int16: release year, missing for a few films) and
        ``genres`` (a tuple of genre names).
    users : pandas.DataFrame
        One row per user: ``user`` (int32), ``age`` (int8), ``gender``
        ("M"/"F"), ``occupation`` (str) and ``zip_code`` (str).
    source : str
        Where the files were read from.
    """

    ratings: pd.DataFrame
    items: pd.DataFrame
    users: pd.DataFrame
    source: str


def default_cache_dir() -> Path:
    """``$METRICS_LIB_DATA``, else ``~/.cache/metrics_lib``."""
    base = os.environ.get(ENV_DIR)
    return Path(base) if base else Path.home() / ".cache" / "metrics_lib"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _from_installed_recbole() -> dict[str, bytes] | None:
    try:
        from importlib.resources import files

        root = files("recbole") / "dataset_example" / "ml-100k"
        return {kind: (root / f"ml-100k.{kind}").read_bytes() for kind in FILES}
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None


def _from_wheel(wheel: Path) -> dict[str, bytes]:
    if _sha256(wheel.read_bytes()) != WHEEL_SHA256:
        raise ValueError(f"{wheel} is not the RecBole {RECBOLE_VERSION} wheel this loader "
                         "knows (SHA-256 differs); delete it and try again")
    with zipfile.ZipFile(wheel) as archive:
        return {kind: archive.read(MEMBER.format(kind)) for kind in FILES}


def _download_wheel(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
               "--disable-pip-version-check", f"recbole=={RECBOLE_VERSION}", "-d", str(folder)]
    result = subprocess.run(command, capture_output=True, text=True)
    wheel = folder / WHEEL
    if result.returncode or not wheel.exists():
        raise RuntimeError(
            "MovieLens 100K could not be had: no installed RecBole, no cached copy in "
            f"{folder}, and `{' '.join(command)}` failed:\n{result.stderr.strip()[-800:]}\n"
            f"Fetch the wheel on a machine with access to PyPI (pip download "
            f"recbole=={RECBOLE_VERSION} --no-deps -d DIR) and pass cache_dir=DIR, or set "
            f"${ENV_DIR}.")
    return wheel


def _raw_files(cache_dir: Path, download: bool) -> tuple[dict[str, bytes], str]:
    folder = cache_dir / "ml-100k"
    cached = {kind: folder / f"ml-100k.{kind}" for kind in FILES}
    if all(path.exists() for path in cached.values()):
        return {kind: path.read_bytes() for kind, path in cached.items()}, str(folder)
    installed = _from_installed_recbole()
    if installed is not None:
        return installed, "the installed recbole package"
    wheel = cache_dir / WHEEL
    if not wheel.exists():
        if not download:
            raise FileNotFoundError(
                f"MovieLens 100K is not in {folder} and download=False; call "
                "load_movielens_100k() once with download=True, or put the RecBole "
                f"{RECBOLE_VERSION} wheel in {cache_dir}")
        wheel = _download_wheel(cache_dir)
    raw = _from_wheel(wheel)
    folder.mkdir(parents=True, exist_ok=True)
    for kind, data in raw.items():
        cached[kind].write_bytes(data)
    return raw, f"{wheel} (files cached in {folder})"


def _read(data: bytes, kind: str) -> pd.DataFrame:
    import io

    return pd.read_csv(io.BytesIO(data), sep="\t", dtype=str, keep_default_na=False,
                       quoting=3, encoding="latin-1" if kind == "item" else "utf-8")


def parse(raw: dict[str, bytes], *, check: bool = True, source: str = "") -> MovieLens100K:
    """Parse the three atomic files (bytes) into :class:`MovieLens100K`."""
    if check:
        for kind, expected in FILES.items():
            digest = _sha256(raw[kind])
            if digest != expected:
                raise ValueError(f"ml-100k.{kind} has SHA-256 {digest}, not {expected}: the "
                                 "file is damaged or not RecBole's copy of MovieLens 100K")
    inter, item, user = (_read(raw[k], k) for k in ("inter", "item", "user"))
    for frame, kind, columns in ((inter, "inter", ["user_id:token", "item_id:token",
                                                   "rating:float", "timestamp:float"]),
                                 (item, "item", ["item_id:token", "movie_title:token_seq",
                                                 "release_year:token", "class:token_seq"]),
                                 (user, "user", ["user_id:token", "age:token", "gender:token",
                                                 "occupation:token", "zip_code:token"])):
        if list(frame.columns) != columns:
            raise ValueError(f"ml-100k.{kind} has the columns {list(frame.columns)}, "
                             f"expected {columns}")
    ratings = pd.DataFrame({
        "user": inter["user_id:token"].astype(np.int32),
        "item": inter["item_id:token"].astype(np.int32),
        "rating": pd.to_numeric(inter["rating:float"]).astype(np.int8),
        "timestamp": pd.to_numeric(inter["timestamp:float"]).astype(np.int64),
    })
    ratings["time"] = pd.to_datetime(ratings["timestamp"], unit="s").astype("datetime64[s]")
    year = pd.to_numeric(item["release_year:token"].replace("", None), errors="coerce")
    items = pd.DataFrame({
        "item": item["item_id:token"].astype(np.int32),
        "title": item["movie_title:token_seq"].astype(str),
        "year": year.astype("Int16"),
        "genres": item["class:token_seq"].map(lambda s: tuple(s.split())),
    })
    users = pd.DataFrame({
        "user": user["user_id:token"].astype(np.int32),
        "age": user["age:token"].astype(np.int8),
        "gender": user["gender:token"].astype(str),
        "occupation": user["occupation:token"].astype(str),
        "zip_code": user["zip_code:token"].astype(str),
    })
    if check:
        sizes = {"ratings": len(ratings), "items": len(items), "users": len(users)}
        if sizes != SHAPES:
            raise ValueError(f"MovieLens 100K has {sizes}, expected {SHAPES}")
        if not ratings["rating"].between(1, 5).all():
            raise ValueError("MovieLens 100K ratings must be 1 to 5 stars")
        if ratings.duplicated(["user", "item"]).any():
            raise ValueError("MovieLens 100K rates a (user, item) pair twice")
    return MovieLens100K(ratings, items, users, source)


def load(cache_dir=None, *, download: bool = True) -> MovieLens100K:
    folder = default_cache_dir() if cache_dir is None else Path(cache_dir)
    raw, source = _raw_files(folder, download)
    return parse(raw, source=source)
