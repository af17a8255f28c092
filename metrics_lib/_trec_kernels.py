"""Vectorised kernels of trec_eval's standard measures for :func:`metrics_lib.evaluate`.

R-precision, bpref, interpolated precision at a recall level and the counts
``num_ret``, ``num_rel``, ``num_rel_ret``, per user, from the block layout
of :mod:`metrics_lib._kernels` (one block of rows per user, in rank order).
No Python loop runs over users: per-user sums are ``np.bincount`` over user
codes, per-user "so far" counts are cumulative sums minus the value at the
start of the user's run. Each function equals its per-list twin in
:mod:`metrics_lib.trec_measures` (and trec_eval 10.0) user by user.

Unlike :class:`~metrics_lib._kernels.UserTable`, which keeps only the
retrieved rows with a positive grade, :class:`TrecTable` keeps every judged
retrieved row, because bpref needs the judged non-relevant ones.
"""

from __future__ import annotations

import numpy as np

from ._kernels import block_positions, block_starts

__all__ = ["TrecTable"]

# Which metrics read this table, and which of them the ``empty`` policy skips
# (the counts), is declared with each metric (metrics_lib/ranking/trec_standard.py).


def _run_start_values(codes: np.ndarray, running: np.ndarray) -> np.ndarray:
    """For sorted ``codes``, the value of ``running`` just before each run starts.

    ``running`` is an inclusive cumulative sum over the rows; subtracting the
    result turns it into a cumulative sum that restarts at every run.
    """
    first = np.ones(codes.size, dtype=bool)
    first[1:] = codes[1:] != codes[:-1]
    before = np.zeros(codes.size, dtype=running.dtype)
    before[1:] = running[:-1]
    index = np.maximum.accumulate(np.where(first, np.arange(codes.size), 0))
    return before[index]


_SET_KINDS = ("set_p", "set_recall", "set_map", "set_relative_p")


class TrecTable:
    """Per-user quantities of the trec_eval measures for one chunk of users.

    Parameters
    ----------
    list_len : int array (n_users,)
        Recommendation rows per user code (0 for users without any).
    lengths : int array (B,)
        Rows per block (the first B user codes).
    hit_rows, hit_grades : arrays
        Block-layout indices (increasing) of every judged recommendation
        row, whatever its grade, and their grades.
    truth_code, truth_grade : arrays (m,)
        User code and grade of every judgement.
    n_users : int
        Number of user codes.
    """

    def __init__(self, list_len, lengths, hit_rows, hit_grades, truth_code,
                 truth_grade, n_users):
        self.n_users = n_users
        self.list_len = list_len
        # Grades below 0 are "in the pool but unjudged" (trec_eval's
        # RELVALUE_UNJUDGED): never relevant, never non-relevant.
        judged = hit_grades >= 0
        # block-layout rows of the retrieved unjudged ones, for infAP
        self.starts = block_starts(lengths)
        self.unjudged_rows = hit_rows[~judged]
        if judged.all():  # the usual case: no copies
            judged = slice(None)
        self.user, self.pos = block_positions(lengths, hit_rows[judged])
        self.grade = hit_grades[judged]
        self.truth_code = truth_code
        self.truth_grade = truth_grade
        self._cache = {}

    def _cached(self, key, compute):
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def n_relevant(self, level):
        return self._cached(("n_rel", level), lambda: np.bincount(
            self.truth_code[self.truth_grade >= level], minlength=self.n_users))

    def _relevant_rows(self, level):
        """User codes and ranks of the retrieved relevant rows, in rank order."""
        def compute():
            keep = self.grade >= level
            return self.user[keep], self.pos[keep]
        return self._cached(("rel_rows", level), compute)

    def n_relevant_retrieved(self, level):
        return self._cached(("n_rel_ret", level), lambda: np.bincount(
            self._relevant_rows(level)[0], minlength=self.n_users))

    # -- the measures ------------------------------------------------------
    def measure(self, kind, param, level, cut=None, version=10):
        """``(values, empty_users)`` of one measure over the chunk's users.

        ``empty_users`` (users with no relevant judgement) is ``None`` for the
        counts, which are defined for everyone.
        """
        n_rel = self.n_relevant(level)
        empty_users = n_rel == 0
        if kind == "num_ret":
            return self.list_len.astype(np.float64), None
        if kind == "num_rel":
            return n_rel.astype(np.float64), None
        if kind == "num_rel_ret":
            return self.n_relevant_retrieved(level).astype(np.float64), None
        if kind == "rprec":
            return self.rprec(level, cut), empty_users
        if kind == "bpref":
            return self.bpref(level), empty_users
        if kind == "iprec_at_recall":
            return self.iprec(float(param), level, version), empty_users
        if kind == "relative_p":
            return self.relative_p(int(param), level), empty_users
        if kind == "set_f":
            return self.set_f(1.0 if param is None else float(param), level), empty_users
        if kind in _SET_KINDS:
            return self.set_measure(kind, level), (None if kind == "set_p" else empty_users)
        if kind == "num_nonrel_judged_ret":
            judged_ret = np.bincount(self.user, minlength=self.n_users)
            return (judged_ret - self.n_relevant_retrieved(level)).astype(np.float64), None
        raise ValueError(f"unknown trec_eval measure {kind!r}")  # pragma: no cover

    def set_measure(self, kind, level):
        """trec_eval's set measures (``m_set_P.c``, ``m_set_recall.c``, ``m_set_map.c``,
        ``m_set_rel_P.c``).

        With ``N`` retrieved, ``R`` relevant and ``h`` relevant retrieved:
        ``h / N``, ``h / R``, ``h * h / (N * R)`` and ``h / min(N, R)`` in the same double
        operations as trec_eval; 0 where the denominator is 0.
        """
        n_ret = self.list_len.astype(np.float64)
        n_rel = self.n_relevant(level).astype(np.float64)
        hits = self.n_relevant_retrieved(level).astype(np.float64)
        denominator = {"set_p": n_ret, "set_recall": n_rel, "set_map": n_ret * n_rel,
                       "set_relative_p": np.minimum(n_ret, n_rel)}[kind]
        numerator = hits * hits if kind == "set_map" else hits
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denominator > 0, numerator / denominator, 0.0)

    def set_f(self, beta, level):
        """trec_eval's ``set_F`` (``m_set_F.c``): ``(beta + 1) P R / (beta P + R)``.

        ``P`` and ``R`` are the set precision and recall; 0 when nothing
        relevant is retrieved. The same double operations as ``te_calc_set_F``.
        """
        hits = self.n_relevant_retrieved(level).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            p = hits / self.list_len
            r = hits / self.n_relevant(level)
            return np.where(hits > 0, (beta + 1.0) * p * r / (beta * p + r), 0.0)

    def relative_p(self, k, level):
        """trec_eval's ``relative_P`` (``m_rel_P.c``): relevant in the top k over ``min(k, R)``.

        0 when ``R = 0``; a list shorter than k counts what it has.
        """
        n_rel = self.n_relevant(level)
        users, pos = self._relevant_rows(level)
        in_top = np.bincount(users[pos <= k], minlength=self.n_users)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n_rel > 0, in_top / np.minimum(n_rel, k), 0.0)

    def rprec(self, level, cut=None):
        """Relevant items in the top R, over R (0 when R = 0).

        ``cut``: only the top ``min(cut, R)`` ranks count (the list cut at
        ``cut`` first; Recommenders' ``r_precision_at_k``).
        """
        n_rel = self.n_relevant(level)
        users, pos = self._relevant_rows(level)
        depth = n_rel[users] if cut is None else np.minimum(n_rel[users], cut)
        in_top_r = np.bincount(users[pos <= depth], minlength=self.n_users)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n_rel > 0, in_top_r / n_rel, 0.0)

    def bpref(self, level):
        """trec_eval's bpref (``m_bpref.c``) for every user at once."""
        n_rel = self.n_relevant(level)
        judged_nonrel = (self.truth_grade >= 0) & (self.truth_grade < level)
        n_nonrel = np.bincount(self.truth_code[judged_nonrel], minlength=self.n_users)
        # Judged non-relevant rows ranked above each row of the same user.
        nonrel = (self.grade < level).astype(np.int64)
        running = np.cumsum(nonrel)
        above = running - nonrel - _run_start_values(self.user, running)
        rel = nonrel == 0
        users, above = self.user[rel], above[rel]
        r, n = n_rel[users], n_nonrel[users]
        with np.errstate(divide="ignore", invalid="ignore"):
            # Same double operations as te_calc_bpref, summed in rank order.
            terms = np.where(above > 0,
                             1.0 - np.minimum(above, r) / np.minimum(n, r), 1.0)
            sums = np.bincount(users, weights=terms, minlength=self.n_users)
            return np.where(n_rel > 0, sums / n_rel, 0.0)

    def _best_below(self, level):
        """For each retrieved relevant row, the highest precision at its rank or below.

        A running maximum from the bottom of each user's list, computed
        exactly: the precisions are replaced by their integer rank among all
        precision values, packed under the user code so that one
        ``np.maximum.accumulate`` over the reversed rows restarts at each user.
        """
        def compute():
            users, pos = self._relevant_rows(level)
            if users.size == 0:
                return np.zeros(0)
            nth = np.arange(1, users.size + 1) - _run_start_values(
                users, np.arange(1, users.size + 1))
            precision = nth / pos
            uniques, rank = np.unique(precision, return_inverse=True)
            span = uniques.size
            if (self.n_users + 1) * span >= 2**62:  # pragma: no cover - astronomically large
                raise OverflowError("too many users and precision values for 64-bit keys")
            # Reversed rows see users in decreasing code order: key them by
            # (n_users - user) so that the key grows from one user to the next.
            packed = (self.n_users - users.astype(np.int64)) * span + rank
            best = np.maximum.accumulate(packed[::-1])[::-1] % span
            return uniques[best]
        return self._cached(("best_below", level), compute)

    def iprec(self, recall_level, level, version=10):
        """trec_eval's iprec_at_recall at one recall level, for every user.

        ``version``: 10 targets the ``lround(p * R)``-th relevant item, 9 the
        ``(long) (p * R + 0.9)``-th (see ``trec_measures.iprec_target``).
        """
        n_rel = self.n_relevant(level)
        n_rel_ret = self.n_relevant_retrieved(level)
        users, _ = self._relevant_rows(level)
        best = self._best_below(level)
        # The target is the lround(p * R)-th relevant item (halves away from 0);
        # trec_eval 9 truncated p * R + 0.9 (a floor: p * R >= 0).
        scaled = recall_level * n_rel.astype(np.float64)
        if version == 9:
            target = np.floor(scaled + 0.9).astype(np.int64)
        else:
            whole = np.floor(scaled)
            target = (whole + (scaled - whole >= 0.5)).astype(np.int64)
        values = np.zeros(self.n_users)
        ok = (n_rel_ret > 0) & (target <= n_rel_ret)
        first_row = np.searchsorted(users, np.arange(self.n_users))
        at = first_row[ok] + np.maximum(target[ok], 1) - 1
        values[ok] = best[at]
        return values
