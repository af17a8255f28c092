"""Tie-aware kernels: metrics of lists whose scores tie, in closed form.

A *tie group* is a run of items of one user with equal scores (or equal
ranks). The ordinary kernels (:mod:`metrics_lib._kernels`) score one fixed
order; the modes here do not depend on how a tie group happens to be ordered:

``"average"``
    the expectation of the metric over all orders of every tie group, each
    order equally likely (McSherry and Najork 2008). Computed in closed form,
    never by enumerating orders; see :class:`TieGroups` for the formulas.
``"block"``
    every item of a tie group gets the group's *last* rank (one threshold per
    distinct score, as scikit-learn's ``average_precision_score`` and
    ``label_ranking_average_precision_score`` rank).
``"best"`` / ``"worst"``
    the order inside every tie group that puts the higher grades first /
    last: the bounds of the metric over all tie orders (except AP with
    ``denominator="retrieved"``, see :mod:`metrics_lib.ranking`). These are ordinary
    orders, so they are computed by moving the judged rows
    (:func:`reorder_hits`) and running the ordinary kernels.

The same functions serve :func:`metrics_lib.evaluate` (many users, block
layout) and the per-list functions of :mod:`metrics_lib.ranking` (one user),
so the two agree bit for bit. No Python loop runs over users or positions:
per-user values are ``np.bincount`` over user codes, and the positions of a
tie group inside the cut-off are expanded with ``np.repeat`` (at most one
entry per recommendation row).
"""

from __future__ import annotations

import math

import numpy as np

from ._kernels import block_starts
from ._validation import show

__all__ = ["TIE_MODES", "EXPECTATION_MODES", "tie_starts", "reorder_hits",
           "TieGroups", "refuse_unsupported", "refuse_unknown_options"]

TIE_MODES = ("average", "block", "best", "worst")
# The modes computed here rather than by re-ordering rows.
EXPECTATION_MODES = ("average", "block")

# Metric kinds each expectation mode computes. "best"/"worst" are orders and
# support every kind.
# Metrics whose "best" / "worst" bounds come from the tie groups (TieGroups)
# rather than from re-ordered rows: Judged@k puts the judged items first or
# last, whatever their grades, where reorder_hits orders by grade.
GROUP_BOUNDS = ("judged",)
# trec_eval's set measures see the list as a set: every order, and so every
# mode, gives them the same value.
ORDER_FREE = ("set_p", "set_recall", "set_f", "set_map", "set_relative_p",
              "num_nonrel_judged_ret")
_SUPPORTED = {
    "average": ("precision", "recall", "f1", "hit", "rr", "ap", "dcg", "ndcg",
                "rprec", "num_ret", "num_rel", "num_rel_ret",
                # linear in the weights of the positions: see TieGroups
                "rbp", "rbp_resid", "judged", "relative_p") + ORDER_FREE,
    "block": ("precision", "recall", "f1", "hit", "rr", "ap",
              "rprec", "num_ret", "num_rel", "num_rel_ret",
              "judged", "relative_p") + ORDER_FREE,
}
_NOT_LINEAR = ("its value is not linear in the order of the items (a tied item's "
               "contribution depends on which items precede it), so its expectation "
               "over tie orders has no closed form, and enumerating the orders grows "
               "as the factorial of a tie group's size; report the bounds with "
               "ties='best' and ties='worst'")
_NOT_LINEAR_INTENTS = ("its value is not linear in the order of the items (an item's "
                       "gain depends on the intents of the items above it), so its "
                       "expectation over tie orders has no closed form, and "
                       "enumerating the orders grows as the factorial of a tie group's "
                       "size; evaluate it on a fixed order (ties='item_desc', "
                       "'item_asc', ...)")
_NO_BLOCK_RBP = ("an RBP in which every tied item takes the weight of the group's "
                 "last rank is the RBP of no order and matches no reference; use "
                 "ties='average' (the expectation over tie orders)")
_WHY_NOT = {
    ("block", "dcg"): "a DCG in which every tied item takes the discount of the "
                      "group's last rank is no DCG of any order and matches no "
                      "reference; use ties='average' (scikit-learn dcg_score)",
    ("block", "ndcg"): "a DCG in which every tied item takes the discount of the "
                       "group's last rank is no DCG of any order and matches no "
                       "reference; use ties='average' (scikit-learn ndcg_score)",
    ("average", "bpref"): "its expectation over tie orders has no closed form "
                          "here; report the bounds with ties='best' and "
                          "ties='worst'",
    ("average", "iprec_at_recall"): "its expectation over tie orders has no "
                                    "closed form here; report the bounds with "
                                    "ties='best' and ties='worst'",
    ("block", "bpref"): "bpref compares items pairwise and has no one-threshold "
                        "form; use ties='best' and ties='worst'",
    ("block", "iprec_at_recall"): "use ties='best' and ties='worst'",
    ("average", "err"): _NOT_LINEAR, ("block", "err"): _NOT_LINEAR,
    ("block", "rbp"): _NO_BLOCK_RBP, ("block", "rbp_resid"): _NO_BLOCK_RBP,
    **{(mode, kind): _NOT_LINEAR_INTENTS for mode in EXPECTATION_MODES
       for kind in ("alpha_ndcg", "err_ia", "s_recall")},
    # metrics_lib/ranking/exposure.py: linear in the exposures, but not implemented
    **{(mode, kind): "its expectation over tie orders is not implemented here; "
                     "ties='best' and ties='worst' give its bounds"
       for mode in EXPECTATION_MODES for kind in ("ee_loss", "ee_disparity", "ee_relevance")},
    **{(mode, "group_exposure"): "its expectation over tie orders is not implemented "
                                 "here; evaluate it on a fixed order (ties='item_desc', "
                                 "'item_asc', ...)" for mode in EXPECTATION_MODES},
    **{(mode, "p_ia"): "the tie kernels do not read the intents of the items "
                       "(P-IA is linear in the top k, like precision, but its "
                       "expectation is not implemented); evaluate it on a fixed "
                       "order (ties='item_desc', 'item_asc', ...)"
       for mode in EXPECTATION_MODES},
}


def refuse_unsupported(mode: str, kind: str, *, ideal: str = "judged",
                       name: str | None = None) -> None:
    """Raise a ``ValueError`` if ``mode`` does not define metric ``kind``."""
    if mode not in EXPECTATION_MODES:
        return
    label = name or kind
    if kind not in _SUPPORTED[mode]:
        why = _WHY_NOT.get((mode, kind), "it is not defined for this mode")
        raise ValueError(f"metric {show(label)} is not available with ties={show(mode)}: "
                         f"{why}")
    if kind == "ndcg" and ideal == "retrieved":
        raise ValueError(
            f"metric {show(label)} with ideal='retrieved' is not available with "
            f"ties={show(mode)}: the ideal list is re-sorted from the items in the top "
            "k, which are themselves random when k cuts a tie group, so the "
            "expectation is not a ratio of two expectations; use ideal='judged' "
            "or ties='best' / ties='worst'")
    if kind == "ndcg" and ideal != "judged":
        raise ValueError(f"metric {show(label)} with ideal={show(ideal)} is not available "
                         f"with ties={show(mode)}; use ideal='judged' or ties='best' / "
                         "ties='worst'")


# The options of evaluate that the closed forms read (their values are
# checked by TieGroups.measure) or that act outside the kernels (which users
# are reported, the empty policy, the sort), any value.
EVALUATE_OPTIONS = ("metrics", "relevance_level", "denominator", "gain", "ideal",
                    "log_base", "empty", "missing", "ties", "tie_first", "unjudged",
                    "gain_levels",
                    # the named parameters (rbp(p=0.8), set_f(beta=0.5)):
                    # TieGroups.measure reads each metric's own
                    "metric_parameters",
                    # read by arp and aplt only, which these modes refuse
                    "item_popularity",
                    # read by miscalibration only, which these modes refuse
                    "genre_data",
                    # read by group_exposure only, which these modes refuse
                    "item_groups",
                    # evaluate cuts the truth to the listed items before these
                    # kernels run (batch/scoring.py, _score_chunk), so they see the right |R|
                    "candidates",
                    # acts on iprec_at_recall only, which these modes refuse
                    # (_WHY_NOT above): any value leaves the closed forms exact
                    "trec_eval_version",
                    # read by TieGroups.rbp_resid
                    "residual_tail")
# Options (of other branches' conventions) that the closed forms support only
# at the value that changes nothing.
NEUTRAL_OPTIONS = {"precision_denominator": "k", "recall_denominator": "relevant",
                   "min_grade": None, "judged_only": False, "truncate": None,
                   "no_hit": "zero", "gain_transform": False, "score_threshold": None,
                   "rank_weights": "equal",
                   # the intent metrics, which these modes refuse, need one
                   "intent_col": None}


def refuse_unknown_options(mode: str, options: dict) -> None:
    """Raise a ``ValueError`` for an evaluate option the closed forms would ignore.

    An option added to evaluate after these kernels were written is refused
    with ``"average"`` / ``"block"`` (unless it is at its neutral value) until
    the kernels take it into account: never silently ignored.
    """
    if mode not in EXPECTATION_MODES:
        return
    unknown = sorted(key for key, value in options.items()
                     if key not in EVALUATE_OPTIONS
                     and not (key in NEUTRAL_OPTIONS and value == NEUTRAL_OPTIONS[key]))
    if unknown:
        raise ValueError(f"ties={show(mode)} does not support the option(s) {unknown} "
                         "at these values yet; use ties='best' / ties='worst' or a "
                         "fixed order")


def tie_starts(values: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Mask of the rows that start a tie group.

    ``values`` are the scores (or ranks) in block layout, sorted inside every
    block; a group starts at every block start and wherever the value
    changes. Values are compared exactly (float32 scores that are equal stay
    equal in float64; ``-0.0 == 0.0``).
    """
    first = np.ones(values.size, dtype=bool)
    if values.size > 1:
        first[1:] = values[1:] != values[:-1]
    if lengths.size:
        first[block_starts(lengths)[lengths > 0]] = True
    return first


def _rank_in_run(codes: np.ndarray) -> np.ndarray:
    """0-based index of each element inside its run of equal (sorted) codes."""
    if codes.size == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.ones(codes.size, dtype=bool)
    first[1:] = codes[1:] != codes[:-1]
    index = np.arange(codes.size)
    return index - np.maximum.accumulate(np.where(first, index, 0))


def reorder_hits(first: np.ndarray, hit_rows: np.ndarray, hit_grades: np.ndarray,
                 mode: str):
    """Judged rows moved to the best or worst places inside their tie groups.

    Returns new ``(hit_rows, hit_grades)`` (rows increasing) for the order in
    which, inside every tie group, the judged rows with a positive grade come
    first by decreasing grade (``"best"``) or last by increasing grade
    (``"worst"``), stably. Judged rows of grade 0 go to the opposite end
    (last for ``"best"``, first for ``"worst"``): for every metric an unjudged
    row and a judged non-relevant row are the same, except bpref, which
    counts the judged non-relevant rows ranked above a relevant one. Unjudged
    rows fill the remaining places; which unjudged row sits where changes no
    metric, so they are not moved.
    """
    if hit_rows.size == 0:
        return hit_rows, hit_grades
    group_first = np.flatnonzero(first)
    row_group = np.cumsum(first) - 1
    group = row_group[hit_rows]
    sizes = np.diff(np.r_[group_first, first.size])
    positive = hit_grades > 0
    # Sort the judged rows by (group, end they go to, grade order, row).
    front = positive if mode == "best" else ~positive
    grade_key = -hit_grades if mode == "best" else hit_grades
    order = np.lexsort((hit_rows, grade_key, ~front, group))
    group, front, grades = group[order], front[order], hit_grades[order]
    # Front rows take the first places of the group, the others its last places.
    code = group * 2 + (~front)
    rank = _rank_in_run(code)
    n_back = np.bincount(group[~front], minlength=sizes.size)
    rows = np.where(front, group_first[group] + rank,
                    group_first[group] + sizes[group] - n_back[group] + rank)
    # rows are increasing already: groups ascend, front before back.
    return rows.astype(np.int64), grades


def _log_choose(n, k):
    """log C(n, k) for arrays with 0 <= k <= n (float)."""
    from scipy.special import gammaln  # here: scipy loads only when ties are averaged

    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


class TieGroups:
    """Tie groups of many users and the closed forms over tie orders.

    Parameters
    ----------
    lengths : int array (B,)
        Recommendation rows per block (user codes ``0 .. B-1``).
    first : bool array (n,)
        :func:`tie_starts` of the sorted scores.
    hit_rows, hit_grades : arrays
        Block-layout indices (increasing) of the judged recommendation rows
        and their grades.
    truth_code, truth_grade : arrays (m,)
        User code and grade of every judgement.
    n_users : int
        Number of user codes (blocks plus users without recommendations).

    Notes
    -----
    Notation for one tie group: ``s`` items of the user come before it, it
    holds ``n`` items of which ``r`` are relevant, and ``m`` of its positions
    lie inside the cut-off ``k`` (``m = clip(k - s, 0, n)``). In a uniformly
    random order of the group, the item at a given position is relevant with
    probability ``r / n``; given that it is, each of the ``j - 1`` positions
    before it inside the group holds a relevant item with probability
    ``(r - 1) / (n - 1)``. Hence, with ``j`` the position inside the group
    and ``R_before`` the relevant items of the earlier groups:

    - expected hits in the top k: ``sum r m / n`` (precision, recall, F1,
      R-precision and the count are linear in it, so exact);
    - hit@k: ``1 - C(n - r, m) / C(n, m)`` for the one group cut by ``k``
      (1 if a whole group inside ``k`` holds a relevant item);
    - reciprocal rank: the first relevant item of the first group with
      ``r > 0`` sits at its position ``j`` with probability
      ``C(n - j, r - 1) / C(n, r)``; the sum of these over ``1/(s + j)``;
    - AP (sum of precisions at the relevant ranks, before the denominator):
      ``sum_j (r / n) (R_before + 1 + (j - 1)(r - 1)/(n - 1)) / (s + j)``;
      with ``denominator="retrieved"`` the number of hits is random when
      ``k`` cuts a group, and the expectation conditions on the number ``h``
      of its relevant items inside ``k`` (hypergeometric);
    - DCG: every item of the group gets the group's mean gain, i.e. the
      group's gain sum times the mean discount of its positions inside
      ``k`` (scikit-learn 1.9.1, ``sklearn/metrics/_ranking.py``,
      ``_tie_averaged_dcg``).

    In ``"block"`` mode every item of a group has rank ``s + n``, and is in
    the top k when ``s + n <= k``.
    """

    def __init__(self, lengths, first, hit_rows, hit_grades, truth_code,
                 truth_grade, n_users):
        starts = block_starts(lengths)
        group_first = np.flatnonzero(first)
        self.n_users = n_users
        self.size = np.diff(np.r_[group_first, first.size]).astype(np.int64)
        self.user = (np.searchsorted(starts, group_first, side="right") - 1
                     ).astype(np.int64)
        self.start = (group_first - starts[self.user]).astype(np.int64)
        self.list_len = np.zeros(n_users, dtype=np.int64)
        self.list_len[:lengths.size] = lengths
        positive = hit_grades > 0
        row_group = np.cumsum(first) - 1
        self.hit_group = row_group[hit_rows[positive]]
        self.hit_grade = hit_grades[positive]
        self.truth_code = truth_code
        self.truth_grade = truth_grade
        self.has_positive = np.bincount(truth_code[truth_grade > 0],
                                        minlength=n_users) > 0
        # every judged row, whatever its grade (a negative grade is unjudged,
        # as in trec_eval): Judged@k, the RBP residual, relative_P
        judged = hit_grades >= 0
        self.judged_group = row_group[hit_rows[judged]]
        self.judged_grade = hit_grades[judged]
        # the order-free measures run on the rows as they are (any order)
        self._rows = (lengths, hit_rows, hit_grades)

    # -- helpers ----------------------------------------------------------
    def n_relevant(self, level):
        return np.bincount(self.truth_code[self.truth_grade >= level],
                           minlength=self.n_users)

    def _relevant_in_group(self, level):
        keep = self.hit_grade >= level
        return np.bincount(self.hit_group[keep],
                           minlength=self.size.size).astype(np.float64)

    def _cutoff(self, k):
        """Per-group cut-off (int64 array); ``k`` is None, an int or per user."""
        if k is None:
            return self.list_len[self.user]
        if np.ndim(k):
            return np.asarray(k, dtype=np.int64)[self.user]
        return np.full(self.size.size, min(int(k), 2**62), dtype=np.int64)

    def _inside(self, k):
        """Positions of every group inside the cut-off, ``m``."""
        return np.clip(self._cutoff(k) - self.start, 0, self.size)

    def _expand(self, groups, counts):
        """Group index and 1-based position inside it, ``counts[g]`` per group."""
        keep = counts > 0  # most groups often expand to nothing
        groups, counts = groups[keep], counts[keep]
        rep = np.repeat(groups, counts)
        offsets = np.repeat(np.cumsum(counts) - counts, counts)
        return rep, np.arange(rep.size) - offsets + 1

    def _users(self, weights, groups=None):
        users = self.user if groups is None else self.user[groups]
        return np.bincount(users, weights=weights, minlength=self.n_users)

    def _before(self, per_group):
        """Sum of ``per_group`` over the earlier groups of the same user.

        Computed over the groups where ``per_group > 0`` only (the others
        add nothing), which are few: the result is valid there and 0
        elsewhere, which is all its callers read.
        """
        out = np.zeros(per_group.size)
        some = np.flatnonzero(per_group > 0)
        if not some.size:
            return out
        users, values = self.user[some], per_group[some]
        exclusive = np.cumsum(values) - values
        first = np.ones(some.size, dtype=bool)
        first[1:] = users[1:] != users[:-1]
        index = np.maximum.accumulate(np.where(first, np.arange(some.size), 0))
        out[some] = exclusive - exclusive[index]
        return out

    # -- binary relevance -------------------------------------------------
    def hits(self, mode, k, level):
        """Expected (``average``) or block-rank (``block``) hits in the top k."""
        r = self._relevant_in_group(level)
        if mode == "average":
            return self._users(r * self._inside(k) / self.size)
        inside = self.start + self.size <= self._cutoff(k)
        return self._users(r * inside)

    def binary(self, mode, kind, k, level, denominator="relevant"):
        """``(values, empty_users)`` of a binary metric, as UserTable.binary."""
        n_rel = self.n_relevant(level)
        empty_users = n_rel == 0
        if kind == "num_ret":
            return self.list_len.astype(np.float64), None
        if kind == "num_rel":
            return n_rel.astype(np.float64), None
        if kind == "num_rel_ret":
            return self.hits(mode, k, level), None
        if kind == "rprec":  # precision at R, R the user's number of relevant items
            hits = self.hits(mode, n_rel, level)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.where(n_rel > 0, hits / n_rel, 0.0), empty_users
        cutoff = self.list_len.astype(np.float64) if k is None else float(k)
        with np.errstate(divide="ignore", invalid="ignore"):
            if kind in ("precision", "recall", "f1"):
                hits = self.hits(mode, k, level)
                if kind == "precision":
                    values = np.where(cutoff > 0, hits / cutoff, 0.0)
                elif kind == "recall":
                    values = hits / n_rel
                else:
                    values = np.where(hits > 0, 2.0 * hits / (cutoff + n_rel), 0.0)
            elif kind == "hit":
                values = self._hit(mode, k, level)
            elif kind == "rr":
                values = self._rr(mode, k, level)
            elif kind == "ap":
                values = self._ap(mode, k, level, denominator, n_rel)
            else:  # pragma: no cover - refuse_unsupported runs first
                raise ValueError(f"unknown binary metric {show(kind)}")
        return values, empty_users

    def _hit(self, mode, k, level):
        r = self._relevant_in_group(level)
        if mode == "block":
            inside = self.start + self.size <= self._cutoff(k)
            return (self._users(r * inside) > 0).astype(np.float64)
        m = self._inside(k).astype(np.float64)
        n = self.size.astype(np.float64)
        # q: probability that none of the r relevant items of the group lies
        # in its first m positions, C(n - r, m) / C(n, m).
        certain_hit = m > n - r
        log_q = np.zeros(n.size)
        free = (r > 0) & (m > 0) & ~certain_hit
        log_q[free] = (_log_choose(n[free] - r[free], m[free])
                       - _log_choose(n[free], m[free]))
        certain = certain_hit & (r > 0) & (m > 0)
        any_certain = self._users(certain.astype(np.float64)) > 0
        miss = np.exp(self._users(log_q))
        return np.where(any_certain, 1.0, 1.0 - miss)

    def _first_relevant_group(self, r, reachable):
        """Index of every user's first group with a relevant item, if reachable."""
        candidates = np.flatnonzero(r > 0)
        users = self.user[candidates]
        first = np.ones(candidates.size, dtype=bool)
        first[1:] = users[1:] != users[:-1]
        groups = candidates[first]
        return groups[reachable[groups]]

    def _rr(self, mode, k, level):
        r = self._relevant_in_group(level)
        values = np.zeros(self.n_users)
        if mode == "block":
            last = self.start + self.size
            groups = self._first_relevant_group(r, last <= self._cutoff(k))
            values[self.user[groups]] = 1.0 / last[groups]
            return values
        m = self._inside(k)
        groups = self._first_relevant_group(r, m > 0)
        group, j = self._expand(groups, m[groups])
        n, rr = self.size[group].astype(np.float64), r[group]
        # P(first relevant item at position j of the group) = C(n-j, r-1) / C(n, r)
        possible = n - j >= rr - 1
        prob = np.zeros(group.size)
        prob[possible] = np.exp(
            _log_choose(n[possible] - j[possible], rr[possible] - 1)
            - _log_choose(n[possible], rr[possible]))
        return self._users(prob / (self.start[group] + j), group)

    def _ap(self, mode, k, level, denominator, n_rel):
        r = self._relevant_in_group(level)
        if mode == "block":
            last = self.start + self.size
            inside = last <= self._cutoff(k)
            upto = self._before(r) + r
            sums = self._users(np.where(inside, r * upto / last, 0.0))
            hits = self._users(r * inside)
        else:
            m = self._inside(k)
            hits = self._users(r * m / self.size)
            before = self._before(r)
            scoring = np.flatnonzero(r > 0)
            group, j = self._expand(scoring, m[scoring])
            n, rr = self.size[group].astype(np.float64), r[group]
            with np.errstate(divide="ignore", invalid="ignore"):
                others = np.where(n > 1, (rr - 1.0) / (n - 1.0), 0.0)
            terms = (rr / n) * (before[group] + 1.0 + (j - 1) * others) \
                / (self.start[group] + j)
            sums = self._users(terms, group)
        if denominator == "relevant":
            divisor = n_rel.astype(np.float64)
        elif denominator == "min_k":
            divisor = (n_rel.astype(np.float64) if k is None
                       else np.minimum(n_rel, min(k, 2**62)).astype(np.float64))
        else:
            if mode == "average":
                return self._ap_retrieved_average(r, k, sums, hits)
            divisor = hits
        return np.where(sums > 0, sums / divisor, 0.0)

    def _ap_retrieved_average(self, r, k, sums, hits):
        """E[sum of precisions / hits in the top k] over tie orders.

        The number of hits is fixed unless ``k`` cuts a group holding both
        relevant and non-relevant items (at most one group per user). For
        those users, condition on the number ``h`` of that group's relevant
        items inside ``k`` (hypergeometric); given ``h`` they are spread
        uniformly over the group's ``m`` positions inside ``k``.
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(hits > 0, sums / hits, 0.0)
        m = self._inside(k)
        n = self.size
        cut = np.flatnonzero((m > 0) & (m < n) & (r > 0) & (r < n))
        if not cut.size:
            return values
        users = self.user[cut]
        # Sums and hits of the groups wholly inside k (all before the cut one).
        whole = m == n
        full_sum = self._ap_whole_groups(r, whole)[users]
        full_hits = self._users(r * whole)[users]
        s = self.start[cut].astype(np.float64)
        mc, nc, rc = m[cut].astype(np.float64), n[cut].astype(np.float64), r[cut]
        # S0 = sum_j 1/(s+j), S1 = sum_j (j-1)/(s+j) over the m positions
        pos_group, j = self._expand(np.arange(cut.size), m[cut])
        denom = s[pos_group] + j
        s0 = np.bincount(pos_group, weights=1.0 / denom, minlength=cut.size)
        s1 = np.bincount(pos_group, weights=(j - 1) / denom, minlength=cut.size)
        low = np.maximum(0.0, mc - (nc - rc))
        high = np.minimum(rc, mc)
        count = (high - low + 1).astype(np.int64)
        which, offset = self._expand(np.arange(cut.size), count)
        h = low[which] + offset - 1
        mw, nw, rw = mc[which], nc[which], rc[which]
        log_p = (_log_choose(rw, h) + _log_choose(nw - rw, mw - h)
                 - _log_choose(nw, mw))
        with np.errstate(divide="ignore", invalid="ignore"):
            others = np.where(mw > 1, (h - 1.0) / (mw - 1.0), 0.0)
            cut_sum = (h / mw) * ((full_hits[which] + 1.0) * s0[which]
                                  + others * s1[which])
            total_hits = full_hits[which] + h
            ratio = np.where(total_hits > 0,
                             (full_sum[which] + cut_sum) / total_hits, 0.0)
        expected = np.bincount(which, weights=np.exp(log_p) * ratio,
                               minlength=cut.size)
        values[users] = expected
        return values

    def _ap_whole_groups(self, r, whole):
        """AP sums (before the denominator) over the groups wholly inside k."""
        before = self._before(r)
        counts = np.where(whole & (r > 0), self.size, 0)
        group, j = self._expand(np.arange(self.size.size), counts)
        n, rr = self.size[group].astype(np.float64), r[group]
        with np.errstate(divide="ignore", invalid="ignore"):
            others = np.where(n > 1, (rr - 1.0) / (n - 1.0), 0.0)
        terms = (rr / n) * (before[group] + 1.0 + (j - 1) * others) \
            / (self.start[group] + j)
        return self._users(terms, group)

    # -- graded relevance -------------------------------------------------
    @staticmethod
    def _gain(grades, gain, shift=None):
        if gain == "linear":
            return grades
        if shift is None:
            return np.exp2(grades) - 1.0
        return np.exp2(grades - shift) - np.exp2(-shift)

    def _user_shift(self, gain, scale_from):
        if gain != "exponential" or self.truth_grade.max(initial=0.0) < scale_from:
            return None
        top = np.zeros(self.n_users)
        np.maximum.at(top, self.truth_code, self.truth_grade)
        return top

    def dcg(self, k, gain, log_base, shift=None):
        """Tie-averaged DCG: every item of a group gets the group's mean gain."""
        group_users = self.user[self.hit_group]
        gains = self._gain(self.hit_grade, gain,
                           None if shift is None else shift[group_users])
        mean_gain = np.bincount(self.hit_group, weights=gains,
                                minlength=self.size.size) / self.size
        m = np.where(mean_gain != 0, self._inside(k), 0)  # only groups that score
        group, j = self._expand(np.arange(self.size.size), m)
        discount = np.log(self.start[group] + j + 1.0) / math.log(log_base)
        return self._users(mean_gain[group] / discount, group)

    def ideal_dcg(self, k, gain, log_base, shift=None):
        """DCG of every user's judged grades sorted, cut at k (``ideal="judged"``)."""
        positive = self.truth_grade > 0
        codes, grades = self.truth_code[positive], self.truth_grade[positive]
        order = np.lexsort((-grades, codes))
        codes, grades = codes[order], grades[order]
        pos = _rank_in_run(codes) + 1
        if k is not None:
            keep = pos <= k
            codes, pos, grades = codes[keep], pos[keep], grades[keep]
        gains = self._gain(grades, gain, None if shift is None else shift[codes])
        discount = np.log(pos + 1.0) / math.log(log_base)
        return np.bincount(codes, weights=gains / discount, minlength=self.n_users)

    def ndcg(self, k, gain, log_base, scale_from=512):
        """``(values, empty_users)`` of the tie-averaged NDCG (judged ideal).

        The ideal DCG does not depend on the order, so the expectation of the
        ratio is the ratio of the expected DCG to it.
        """
        shift = self._user_shift(gain, scale_from)
        dcg = self.dcg(k, gain, log_base, shift)
        ideal = self.ideal_dcg(k, gain, log_base, shift)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(ideal > 0, dcg / ideal, 0.0)
        return values, ~self.has_positive

    # -- metrics linear in the weights of the positions -------------------
    # RBP, its residual, Judged@k and relative_P are sums over items of a
    # value times a weight of the item's rank. In a uniformly random order of
    # a tie group every item takes each of the group's ranks with probability
    # 1 / n, so its expected weight is the mean weight of those ranks: exact.
    def _share_inside(self, mode, k):
        """Per group: the expected share of its items inside the top k."""
        if mode == "block":
            return (self.start + self.size <= self._cutoff(k)).astype(np.float64)
        return self._inside(k) / self.size

    def _rbp_weight(self, p):
        """Per group: the mean of ``p**(rank - 1)`` over its ranks ``s + 1 .. s + n``,
        ``p**s (1 - p**n) / (n (1 - p))``."""
        return (np.power(p, self.start.astype(np.float64))
                * -np.expm1(self.size * math.log(p)) / (self.size * (1.0 - p)))

    def rbp(self, p):
        """Tie-averaged RBP, gains ``g / max(1, G)`` as :mod:`~metrics_lib.ranking.user_models`."""
        top = np.zeros(self.n_users)
        np.maximum.at(top, self.truth_code, self.truth_grade)
        users = self.user[self.hit_group]
        gains = self.hit_grade / np.maximum(top, 1.0)[users]
        values = (1.0 - p) * self._users(gains * self._rbp_weight(p)[self.hit_group],
                                         self.hit_group)
        return values, ~self.has_positive

    def rbp_resid(self, p, tail):
        """Tie-averaged RBP residual: 1 minus the expected weight of the judged items."""
        group = self.judged_group
        judged = self._users(self._rbp_weight(p)[group], group)
        residual = 1.0 - (1.0 - p) * judged
        if tail == "always":
            return residual, None
        has_unjudged = self._users(np.ones(group.size), group) < self.list_len
        return np.where(has_unjudged, residual, 0.0), None

    def judged(self, mode, k):
        """Judged@k: the (expected, largest or smallest) judged items in the top k
        over ``min(k, n)``.

        With ``j`` judged items among a group's ``n`` and ``m`` of its ranks
        inside k, the top k holds ``min(j, m)`` of them at best and
        ``max(0, j - (n - m))`` at worst.
        """
        group = self.judged_group
        if mode in ("best", "worst"):
            judged = np.bincount(group, minlength=self.size.size)
            m = self._inside(k)
            within = (np.minimum(judged, m) if mode == "best"
                      else np.maximum(0, judged - (self.size - m)))
            count = self._users(within.astype(np.float64))
        else:
            count = self._users(self._share_inside(mode, k)[group], group)
        size = self.list_len if k is None else np.minimum(self.list_len, k)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(size > 0, count / size, 0.0), None

    def relative_p(self, mode, k, level):
        """trec_eval's relative_P: the expected relevant items in the top k over ``min(k, R)``."""
        group = self.judged_group[self.judged_grade >= level]
        in_top = self._users(self._share_inside(mode, k)[group], group)
        n_rel = self.n_relevant(level)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(n_rel > 0, in_top / np.minimum(n_rel, k), 0.0), n_rel == 0

    def order_free(self, kind, param, level):
        """A set measure, which every order of the list gives the same value."""
        from ._trec_kernels import TrecTable  # one definition of the set measures

        lengths, hit_rows, hit_grades = self._rows
        table = TrecTable(self.list_len, lengths, hit_rows, hit_grades,
                          self.truth_code, self.truth_grade, self.n_users)
        return table.measure(kind, param, level)

    # -- dispatch -----------------------------------------------------------
    def measure(self, mode, kind, k, options):
        """``(values, empty_users)`` of one metric, as evaluate's kernels return.

        Only the option values the closed forms implement are accepted; any
        other (a gain map, another AP denominator) raises ``ValueError``.
        """
        level = options["relevance_level"]
        gain = options.get("gain", "linear")
        denominator = options.get("denominator", "relevant")
        if kind in ("dcg", "ndcg") and gain not in ("linear", "exponential"):
            raise ValueError(f"gain={show(gain)} is not available with ties={show(mode)}; "
                             "use gain='linear' or 'exponential', or ties='best' / "
                             "ties='worst'")
        if kind == "ap" and denominator not in ("relevant", "min_k", "retrieved"):
            raise ValueError(f"denominator={show(denominator)} is not available with "
                             f"ties={show(mode)}; use 'relevant', 'min_k' or "
                             "'retrieved', or ties='best' / ties='worst'")
        if kind == "rprec" and k is not None:
            raise ValueError(f"rprec with a cut-off is not available with "
                             f"ties={show(mode)}; use ties='best' / ties='worst'")
        if kind == "dcg":
            with np.errstate(over="ignore"):
                values = self.dcg(k, options["gain"], options["log_base"])
            if not np.all(np.isfinite(values)):
                top = float(self.hit_grade.max(initial=0.0))
                raise ValueError(
                    f"dcg with gain='exponential' exceeds the largest float64 (a "
                    f"grade of {top:g} gives 2**{top:g} - 1); use gain='linear', "
                    "smaller grades, or ndcg, which is scaled per user")
            return values, None
        if kind == "ndcg":
            return self.ndcg(k, options["gain"], options["log_base"])
        parameters = options.get("parameters", {})  # rbp(p=0.8), set_f(beta=0.5)
        if kind in ORDER_FREE:
            return self.order_free(kind, parameters.get("beta") if kind == "set_f" else k,
                                   level)
        if kind in ("rbp", "rbp_resid"):
            if gain not in ("linear", "binary"):  # as the kernel of user_models.py
                raise ValueError(f"metric 'rbp' is not available with gain={show(gain)}: "
                                 "RBP takes gain='linear' or 'binary'")
            if kind == "rbp":
                return self.rbp(parameters["p"])
            return self.rbp_resid(parameters["p"], options.get("residual_tail", "unjudged"))
        if kind == "judged":
            if mode in ("best", "worst") and (options.get("judged_only")
                                             or options.get("truncate") is not None):
                raise ValueError(f"metric 'judged' with ties={show(mode)} is not "
                                 "available with judged_only=True or truncate=; use "
                                 "ties='average' or a fixed order")
            return self.judged(mode, k)
        if kind == "relative_p":
            return self.relative_p(mode, k, level)
        return self.binary(mode, kind, k, level, denominator)
