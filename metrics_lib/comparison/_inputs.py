"""The input of :func:`compare`: per-user results of several systems, paired by user.

Every system's table is read to a pandas DataFrame indexed by user (the
table :func:`metrics_lib.evaluate` returns: users as the named index of a
pandas DataFrame, or as a ``user_col`` column of a pandas, Polars or Arrow
table), and the systems are put on their common users.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import check_choice, check_column_names, check_id_column, show

__all__ = ["MISSING", "per_user_tables", "paired_matrices"]

MISSING = ("raise", "warn", "skip")


def _users(name: str, ids, where: str) -> pd.Index:
    """Checked user ids (one kind, none missing, none twice)."""
    users = pd.Index(check_id_column(name, pd.Series(ids), where=where,
                                     needs="a user id")[1])
    if users.has_duplicates:
        raise ValueError(f"{name} holds user {show(users[users.duplicated()][0])} more "
                         "than once; per-user results need one row per user")
    return users


def _read_one(name: str, table, user_col) -> pd.DataFrame:
    """One system's results as a float DataFrame indexed by user id."""
    from .._frames import column_names, native_library, read_columns

    if native_library(table) is not None:  # Polars or Arrow: a user column
        names = column_names(table)
        check_column_names(name, names, [user_col],
                           hint="pass user_col= to name the column of user ids")
        frame = read_columns(name, table, ids=[user_col],
                             values=[c for c in names if c != user_col])
        users = _users(name, frame[user_col], f"{name} column {show(user_col)}")
        frame = frame.drop(columns=[user_col])
    elif isinstance(table, pd.DataFrame):
        if user_col in table.columns:
            users = _users(name, table[user_col], f"{name} column {show(user_col)}")
            frame = table.drop(columns=[user_col])
        elif isinstance(table.index, pd.MultiIndex) or table.index.name is None:
            raise ValueError(f"{name} has no user column {show(user_col)} (user_col=) and "
                             "its index is not a named index of users (as evaluate "
                             "returns it); pass user_col= or set the users as the index")
        else:
            users = _users(name, table.index, f"the index of {name}")
            frame = table
    else:
        raise TypeError(f"{name} must be a table of per-user results (pandas, Polars or "
                        f"pyarrow, as evaluate returns it); got {type(table).__name__}")
    values = frame.copy(deep=False)  # the caller's table keeps its index
    values.index = users
    return values


def _column(name: str, table: pd.DataFrame, metric, users: pd.Index) -> np.ndarray:
    """One metric of one system, as floats in the order of ``users``."""
    try:
        return table[metric].reindex(users).to_numpy(dtype=float, na_value=np.nan)
    except (TypeError, ValueError):
        raise TypeError(f"results[{show(name)}] column {show(metric)} is not numeric "
                        f"(dtype {table[metric].dtype}); per-user results hold one "
                        "number per user and metric") from None


def per_user_tables(results) -> dict:
    """``results`` checked: a mapping of at least two system names to tables."""
    if not isinstance(results, Mapping):
        raise TypeError("results must be a mapping of system name to its per-user "
                        f"results (a dict); got {type(results).__name__}")
    if len(results) < 2:
        raise ValueError(f"results must hold at least two systems; got {len(results)}")
    for name in results:
        if not isinstance(name, str):
            raise TypeError(f"results must be keyed by system names (str); got "
                            f"{type(name).__name__} {show(name)}")
    return dict(results)


def _common_users(tables: dict, missing: str) -> pd.Index:
    """The users every system has; others are refused, or dropped (``missing``)."""
    names = list(tables)
    common = tables[names[0]].index
    for name in names[1:]:
        first, other = common, tables[name].index
        if first.inferred_type != other.inferred_type and len(first) and len(other):
            raise TypeError(f"results[{show(names[0])}] and results[{show(name)}] have user "
                            f"ids of different kinds ({first.inferred_type} and "
                            f"{other.inferred_type}): no user could be paired")
        common = common.intersection(other, sort=False)
    unpaired = {name: int(len(t.index) - t.index.isin(common).sum())
                for name, t in tables.items()}
    if any(unpaired.values()):
        described = ", ".join(f"{name}: {count}" for name, count in unpaired.items() if count)
        text = (f"users not present for every system ({described}); "
                f"{len(common)} users are paired")
        if missing == "raise":
            raise ValueError(f"{text}. missing='raise' refuses this: pass missing='skip' "
                             "to compare on the common users, or missing='warn' to do so "
                             "with a warning")
        if missing == "warn":
            from .._missing import MissingUsersWarning

            warnings.warn(f"{text}; the others are left out of the comparison "
                          "(missing='skip' says nothing)", MissingUsersWarning,
                          stacklevel=3)
    return common


def paired_matrices(results, metrics, missing: str, user_col="user"):
    """``(systems, metrics, users, {metric: (n users, m systems) array})``."""
    check_choice("missing", missing, MISSING)
    tables = {name: _read_one(f"results[{show(name)}]", table, user_col)
              for name, table in per_user_tables(results).items()}
    names = list(tables)
    shared = [c for c in tables[names[0]].columns
              if all(c in t.columns for t in tables.values())]
    if metrics is None:
        metrics = shared
        if not metrics:
            raise ValueError("results have no metric column common to every system")
    else:
        metrics = [metrics] if isinstance(metrics, str) else list(metrics)
        for name, table in tables.items():
            check_column_names(f"results[{show(name)}]", list(table.columns), metrics,
                               hint="metrics= names columns of every system's results")
    users = _common_users(tables, missing)
    if len(users) < 2:
        raise ValueError(f"only {len(users)} user(s) are paired across the systems; a "
                         "comparison needs at least two")
    order = np.argsort(users.to_numpy(), kind="stable")  # ids of one kind always sort
    users = users[order]
    matrices = {}
    for metric in metrics:
        matrix = np.column_stack([_column(name, tables[name], metric, users)
                                  for name in names])
        bad = ~np.isfinite(matrix)
        if bad.any():
            row, col = np.argwhere(bad)[0]
            raise ValueError(f"results[{show(names[col])}] has the non-finite value "
                             f"{matrix[row, col]} for user {show(users[row])} in "
                             f"{show(metric)}; NaN (empty='nan' in evaluate) is not "
                             "compared: drop those users or evaluate with empty='zero'")
        matrices[metric] = matrix
    return names, metrics, users, matrices

