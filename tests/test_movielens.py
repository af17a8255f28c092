"""The MovieLens 100K loader: parsing, checks, caching, failure messages.

Most tests run on small files written here, in RecBole's atomic-file format.
The last test reads the real data when a copy is at hand (the cache that
``make test`` fills, or an installed RecBole) and checks it against a parse
written independently with the csv module.
"""

from __future__ import annotations

import csv
import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from metrics_lib.datasets import _movielens as mlens
from metrics_lib import load_movielens_100k

INTER = ("user_id:token\titem_id:token\trating:float\ttimestamp:float\n"
         "196\t242\t3\t881250949\n186\t302\t3\t891717742\n22\t377\t1\t878887116\n")
ITEM = ("item_id:token\tmovie_title:token_seq\trelease_year:token\tclass:token_seq\n"
        "242\tKolya\t1996\tComedy\n302\tL.A. Confidential\t1997\tCrime Film-Noir Mystery Thriller\n"
        "377\tHeavyweights\t\tChildren's Comedy\n")
USER = ("user_id:token\tage:token\tgender:token\toccupation:token\tzip_code:token\n"
        "196\t49\tM\twriter\t55105\n186\t39\tF\texecutive\t00000\n22\t25\tM\twriter\t40206\n")


def _raw():
    return {"inter": INTER.encode(), "item": ITEM.encode("latin-1"), "user": USER.encode()}


def test_parse_small_files():
    data = mlens.parse(_raw(), check=False)
    assert data.ratings.dtypes.to_dict() == {
        "user": np.dtype("int32"), "item": np.dtype("int32"), "rating": np.dtype("int8"),
        "timestamp": np.dtype("int64"), "time": np.dtype("datetime64[s]")}
    assert data.ratings["user"].tolist() == [196, 186, 22]
    assert data.ratings["time"].iloc[0] == pd.Timestamp(881250949, unit="s")
    assert data.items["year"].tolist()[:2] == [1996, 1997]
    assert pd.isna(data.items["year"].iloc[2])          # an empty year is missing, not 0
    assert data.items["genres"].iloc[1] == ("Crime", "Film-Noir", "Mystery", "Thriller")
    assert data.users["zip_code"].iloc[1] == "00000"     # kept as text, leading zeros too


def test_checks_refuse_a_different_copy():
    with pytest.raises(ValueError, match="SHA-256"):
        mlens.parse(_raw(), check=True)


def test_wrong_columns_are_refused():
    raw = _raw()
    raw["inter"] = raw["inter"].replace(b"rating:float", b"stars:float")
    with pytest.raises(ValueError, match="columns"):
        mlens.parse(raw, check=False)


def test_wheel_is_checked_and_read(tmp_path, monkeypatch):
    wheel = tmp_path / mlens.WHEEL
    with zipfile.ZipFile(wheel, "w") as archive:
        for kind, data in _raw().items():
            archive.writestr(mlens.MEMBER.format(kind), data)
    with pytest.raises(ValueError, match="not the RecBole"):
        mlens._from_wheel(wheel)
    monkeypatch.setattr(mlens, "WHEEL_SHA256", mlens._sha256(wheel.read_bytes()))
    assert mlens._from_wheel(wheel) == _raw()


def test_no_copy_and_no_download(tmp_path, monkeypatch):
    monkeypatch.setattr(mlens, "_from_installed_recbole", lambda: None)
    with pytest.raises(FileNotFoundError, match="download=False"):
        load_movielens_100k(tmp_path, download=False)


def test_failed_download_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(mlens, "_from_installed_recbole", lambda: None)

    class Failed:
        returncode, stderr = 1, "ERROR: no network"

    monkeypatch.setattr(mlens.subprocess, "run", lambda *a, **k: Failed())
    with pytest.raises(RuntimeError, match="pip download recbole==1.2.1 --no-deps"):
        load_movielens_100k(tmp_path)


def test_cached_files_are_checked(tmp_path, monkeypatch):
    folder = tmp_path / "ml-100k"
    folder.mkdir()
    for kind, data in _raw().items():
        (folder / f"ml-100k.{kind}").write_bytes(data)
    with pytest.raises(ValueError, match="SHA-256"):   # a damaged or different copy
        load_movielens_100k(tmp_path, download=False)


def _real_copy():
    try:
        return load_movielens_100k(download=False)
    except FileNotFoundError:
        return None


def test_real_data_against_an_independent_parse():
    data = _real_copy()
    if data is None:
        pytest.skip("no copy of MovieLens 100K here (make test fetches one)")
    assert data.ratings.shape == (100_000, 5)
    assert data.ratings["user"].nunique() == len(data.users) == 943
    assert data.ratings["item"].nunique() == len(data.items) == 1_682
    raw, _ = mlens._raw_files(mlens.default_cache_dir(), download=False)
    rows = list(csv.reader(io.StringIO(raw["inter"].decode()), delimiter="\t"))[1:]
    assert [int(r[0]) for r in rows] == data.ratings["user"].tolist()
    assert [int(r[1]) for r in rows] == data.ratings["item"].tolist()
    assert [int(float(r[2])) for r in rows] == data.ratings["rating"].tolist()
    assert [int(float(r[3])) for r in rows] == data.ratings["timestamp"].tolist()
    assert data.ratings.groupby("user").size().min() == 20    # every user rated 20 films or more
