"""Exposure as ``evaluate`` metrics: expected exposure and a group's share.

**Expected exposure** (Diaz, Mitra, Ekstrand, Biega and Carterette, CIKM
2020), with each user's list as ONE deterministic ranking. The item at
1-based rank ``r`` of the list cut at ``k`` (its first ``m = min(k, |L|)``
items; the whole list without a cut-off) gets exposure ``eps_i = p**(r - 1)``
(the RBP browsing model with patience ``p``, 0.5 by default); every other
item gets 0. The items with a place in the ideal ranking are the user's
judged items of grade at least ``relevance_level`` (``evaluate``'s keyword);
the ideal ranker orders them by grade and shuffles equal grades, so an item
of a grade held by ``n`` of them, below ``b`` of higher grades, has the target
exposure ``eps*_i = (p**b - p**(b + n)) / (n (1 - p))`` (0 for every other
item). Then::

    ee_disparity = sum_i eps_i**2  = (1 - p**(2 m)) / (1 - p**2)
    ee_relevance = sum_i eps_i * eps*_i
    ee_loss      = sum_i (eps_i - eps*_i)**2
                 = ee_disparity - 2 ee_relevance + sum_i eps*_i**2

Write the patience in the name: ``ee_loss(p=0.9)@20``. The values equal
:func:`metrics_lib.expected_exposure_batch` given each user's list as one
sample, cut at ``k`` (``relevance_level=1`` on integer grades is its
default, only positive grades placed; ``relevance_level=0`` is its
``complete=True``, expeval's ``-C``, every judged item placed). A
stochastic ranker, several sampled rankings per user, is what expected
exposure was made for: give the samples to
:func:`metrics_lib.expected_exposure_batch`, which averages the exposure over
them; ``evaluate`` sees one list per user.

Edge cases: a user without a judged item at or above ``relevance_level``
has no target; ``empty`` decides all three values (0 by default, ``"nan"``
to leave them out of a mean). diazf/expeval (commit 69ab070, the reference
code of the paper) leaves such a query out: ``data.py``, ``read_qrels``,
keeps only grades above 0 unless ``-C``, and ``expeval.py``, ``main``,
prints nothing for a query absent from the judgements it kept. A user
without recommendations (kept by ``missing="zero"``) has no exposure:
disparity and relevance 0, loss ``sum_i eps*_i**2``. expeval gives a query
absent from the run its metrics' bounds instead (``expeval.py``, ``main``):
the disparity's upper bound, the relevance's lower bound, and as loss the
relevance's upper bound, which ``metrics.py``, ``Relevance``, sets to
``sum_i eps*_i**2`` when the query has two grades or more and to 0 when it
has one. ``no_hit="nan"`` is
refused: 0 is no missed hit here (a loss of 0 is the best value). The
values are expeval's with ``-u rbp -U`` (RBP user model, unnormalised); its
default user model is ``gerr``. Ties: ``"best"``/``"worst"`` order each tie
group by grade, which gives the largest and smallest relevance, so the
smallest and largest loss (disparity does not depend on the order);
``"average"`` and ``"block"`` are refused.

**Group exposure** of one user: the share of the list's position-weighted
exposure that goes to the items of one group, ``exposure_group`` among the
labels of ``item_groups`` (both ``evaluate`` keywords)::

    group_exposure@k = sum over the first m items i in the group of w(r_i)
                       / sum over r = 1..m of w(r)

with ``w(r)`` as :func:`metrics_lib.group_exposure`'s ``weights``: ``log``,
``1 / log2(r + 1)`` (the DCG discount, the default), ``geometric``,
``p**(r - 1)``, or ``equal``, 1 (the share of the group's items in the
list): ``group_exposure(weights=geometric, p=0.8)@10``. The value lies in
[0, 1]. Its mean over users equals :func:`metrics_lib.group_exposure_batch`'s
``exposure_share`` of the group, over the same users (``evaluate`` leaves
out users without judgements unless ``unjudged="empty"``), when every list
has the same length ``m`` after the cut (the denominator is then the same
for every user); otherwise
it is a mean of shares, where ``exposure_share`` is a share of sums, which
weighs long lists more. An empty list (a user without recommendations, kept
by ``missing="zero"``) has no exposure to share: ``empty`` decides. A
recommended item without a label in ``item_groups`` is refused (a
``ValueError`` naming it), beyond the cut-off too. The values do not read
the judgements; ``"best"``/``"worst"`` (which order by grade),
``judged_only=True`` (which would drop the unjudged items) and
``no_hit="nan"`` are refused. For one column per group, evaluate once per
label.

Examples
--------
User 1's list a, b, c gets exposures 1, 0.5, 0.25; its judgements place c
(grade 2, target 1) above b (grade 1, target 0.5). User 2 has no positive
grade, so ``empty`` decides:

>>> import pandas as pd
>>> from metrics_lib import evaluate
>>> recs = pd.DataFrame({"user": [1, 1, 1, 2], "item": ["a", "b", "c", "a"],
...                      "rank": [1, 2, 3, 1]})
>>> truth = pd.DataFrame({"user": [1, 1, 2], "item": ["b", "c", "a"],
...                       "relevance": [1, 2, 0]})
>>> evaluate(recs, truth, ["ee_loss", "ee_disparity", "ee_relevance@2"],
...          rank_col="rank", empty="nan")
      ee_loss  ee_disparity  ee_relevance@2
user
1      1.5625        1.3125            0.25
2         NaN           NaN             NaN

Under the DCG discount, b and c of the group "tail" get (1/log2(3) +
1/log2(4)) / (1 + 1/log2(3) + 1/log2(4)) of user 1's exposure:

>>> groups = {"a": "head", "b": "tail", "c": "tail"}
>>> evaluate(recs, truth, ["group_exposure", "group_exposure(weights=equal)@2"],
...          rank_col="rank", item_groups=groups, exposure_group="tail").round(4)
      group_exposure  group_exposure(weights=equal)@2
user
1             0.5307                              0.5
2             0.0000                              0.0
"""

from __future__ import annotations

import functools

import numpy as np

from .._kernels import block_starts
from .._validation import show
from ..beyond.exposure import POSITION_WEIGHTS, _position_weight
from .judgements import _refuse_bounds
from .registry import Metric, Parameter, register


def _refuse_no_hit(name, options):
    if options["no_hit"] == "nan":
        raise ValueError(f"metric {show(name)}: no_hit='nan' does not apply (a value of "
                         "0 is no missed hit here); evaluate it in a call without no_hit")


# ------------------------------------------------------------ expected exposure
def _targets(users, code, width, gamma):
    """Target exposure of each (user, grade) pair of the placed judgements.

    ``code`` is each judgement's grade as its place among the ``width``
    distinct grades, ascending. Returns the sorted pair keys (``user * width
    + place of the grade from the top``), each pair's user, its number of
    items and its target.
    """
    key = users.astype(np.int64) * width + (width - 1 - code)
    pairs, count = _counted(key)
    pair_user = pairs // width
    # b: the user's items of higher grades (pairs are sorted by user, then
    # by decreasing grade)
    before = np.cumsum(count) - count
    first = np.r_[True, pair_user[1:] != pair_user[:-1]] if pairs.size else \
        np.zeros(0, bool)
    start = before[np.maximum.accumulate(np.where(first, np.arange(pairs.size), 0))]
    b, n = (before - start).astype(np.float64), count.astype(np.float64)
    target = (gamma ** b - gamma ** (b + n)) / (n * (1.0 - gamma))
    return pairs, pair_user, n, target


def _counted(key):
    """``np.unique(key, return_counts=True)`` of keys >= 0, by counting when
    their span is moderate (users x grades usually is) instead of sorting."""
    span = int(key.max(initial=-1)) + 1
    if 0 < span <= 4 * key.size + (1 << 16):
        counts = np.bincount(key, minlength=span)
        pairs = np.flatnonzero(counts)
        return pairs, counts[pairs]
    return np.unique(key, return_counts=True)


def _grade_places(grades, top):
    """``np.unique(grades, return_inverse=True)`` of the placed grades (no NaN).

    ``top`` >= 0 (:func:`metrics_lib._kernels.grade_levels`) says the grades
    are whole numbers up to ``top``: then counted, not sorted; otherwise the
    distinct grades are sorted and each grade found among them, which spares
    np.unique's argsort.
    """
    if top >= 0 and grades.size and grades.min() >= 0:
        whole = grades.astype(np.int64)
        present = np.bincount(whole, minlength=top + 1) > 0
        place = np.cumsum(present) - 1
        return np.flatnonzero(present).astype(grades.dtype), place.take(whole)
    levels = np.unique(grades)
    return levels, np.searchsorted(levels, grades)


def _expected_exposure(tables, k, options):
    """Per-user (loss, disparity, relevance) of one deterministic list, and the empty mask."""
    table = tables.binary
    gamma, level = options["parameters"]["p"], options["relevance_level"]
    placed = table.truth_grade >= level
    users, grades = table.truth_code[placed], table.truth_grade[placed]
    levels, code = _grade_places(grades, table.levels)
    width = len(levels)
    pairs, pair_user, n, target = _targets(users, code, width, gamma)
    ideal = np.bincount(pair_user, weights=n * target ** 2, minlength=table.n_users)
    keep = table.hit_grade >= level
    if k is not None:
        keep &= table.hit_pos <= k
    hit_user, hit_pos = table.hit_user[keep], table.hit_pos[keep]
    hit_key = hit_user.astype(np.int64) * width + (
        width - 1 - np.searchsorted(levels, table.hit_grade[keep]))
    at = np.searchsorted(pairs, hit_key)  # every listed placed item has its pair
    # float64 even without hits: np.bincount of no rows gives int64, weights or not
    relevance = np.bincount(hit_user, weights=gamma ** (hit_pos - 1.0) * target[at],
                            minlength=table.n_users).astype(np.float64, copy=False)
    shown = table.list_len if k is None else np.minimum(table.list_len, k)
    disparity = (1.0 - gamma ** (2.0 * shown)) / (1.0 - gamma ** 2)
    loss = np.maximum(disparity - 2.0 * relevance + ideal, 0.0)
    empty = np.bincount(users, minlength=table.n_users) == 0
    return {"loss": loss, "disparity": disparity, "relevance": relevance}, empty


def _ee_batch(tables, k, options, *, part):
    _refuse_no_hit(f"ee_{part}", options)
    values, empty = _expected_exposure(tables, k, options)
    return values[part], empty


def _leading_rows(lengths, cut):
    """``(owner, row, rank)`` of the first ``min(length, cut)`` rows of each block.

    In block order: the block of each row, its index among all rows and its
    0-based rank in its block. Built from the rows kept only (with top-10
    cuts of 100-item lists, a tenth of a mask over every row).
    """
    kept = np.minimum(lengths, cut)
    owner = np.repeat(np.arange(lengths.size), kept)
    rank = np.arange(owner.size) - np.repeat(block_starts(kept), kept)
    return owner, rank + np.repeat(block_starts(lengths), kept), rank


# --------------------------------------------------------------- group exposure
def _group_exposure_batch(tables, k, options):
    """Each user's share of position-weighted exposure that goes to ``exposure_group``."""
    name = "group_exposure"
    _refuse_bounds(f"metric {show(name)}", options["ties"])
    _refuse_no_hit(name, options)
    if options["judged_only"]:
        raise ValueError(f"metric {show(name)} reads every recommended item: "
                         "judged_only=True, which keeps the judged ones only, does not "
                         "apply; evaluate it in a call without judged_only")
    lengths = tables.rows[0]
    chunk = slice(tables.first_row, tables.first_row + int(lengths.sum()))
    in_group = options["group_rows"][chunk]
    cut = [c for c in (k, options["truncate"]) if c is not None]
    cut = min(cut) if cut else None
    if cut is None:
        owner = np.repeat(np.arange(lengths.size), lengths)
        rank = np.arange(owner.size) - block_starts(lengths)[owner]
    else:  # only the rows kept
        owner, row, rank = _leading_rows(lengths, cut)
        in_group = in_group[row]
    weight = _position_weight(rank.astype(np.float64) + 1.0,
                              options["parameters"]["weights"], options["parameters"]["p"])
    n_users = tables.binary.n_users
    total = np.bincount(owner, weights=weight, minlength=n_users)
    mine = np.bincount(owner, weights=weight * in_group, minlength=n_users)
    values = np.divide(mine, total, out=np.zeros(n_users), where=total > 0)
    return values, ~(total > 0)


# -------------------------------------------------------------- declarations
_PATIENCE = Parameter("p", "(0, 1)", "patience", default=0.5)
for _part in ("loss", "disparity", "relevance"):
    register(Metric(
        name=f"ee_{_part}", aliases=(f"ee_{_part}",),
        batch=functools.partial(_ee_batch, part=_part),
        empty_reason="no judged item at or above relevance_level (no target exposure)",
        keywords=("empty",), parameters=(_PATIENCE,),
        reads_grades=True))  # the targets rank the grades
register(Metric(
    name="group_exposure", aliases=("group_exposure",), batch=_group_exposure_batch,
    empty_reason="no recommended item (no exposure to share)", keywords=("empty",),
    item_data="groups",
    parameters=(Parameter("weights", None, "position weights", default="log",
                          choices=POSITION_WEIGHTS),
                Parameter("p", "(0, 1)", "patience of geometric weights", default=0.5))))
