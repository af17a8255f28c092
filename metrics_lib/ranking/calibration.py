"""Steck's miscalibration as an ``evaluate`` metric: ``miscalibration@k``.

For one user ``u`` with history ``H`` (the rows of ``evaluate``'s
``history=``, a repeated row counting again) and list ``L`` cut at ``k``
(its first ``min(k, |L|)`` items; the whole list without a cut-off), with
``p(g|i)`` the share of genre ``g`` in item ``i`` (``item_genres=``; equal
shares of an item's genres unless a dict gives shares) and ``w(r)`` the
weight of rank ``r`` (``rank_weights``: 1, ``1/r`` or ``1/log2(r + 1)``)::

    p(g|u) = sum over i in H of p(g|i) / |H|
    q(g|u) = sum over i in L of w(r(i)) p(g|i) / sum over i in L of w(r(i))
    miscalibration@k = sum over g with p(g|u) > 0 of
                       p(g|u) * ln( p(g|u) / ((1 - alpha) q(g|u) + alpha p(g|u)) )

Steck (RecSys 2018) defines it (his C_KL); ``alpha``, 0.01 by default, is
written in the name: ``miscalibration(alpha=0.05)@10``. The value lies in
``[0, ln(1/alpha)]``, 0 when the two mixes are equal. It is
:func:`metrics_lib.miscalibration` of each user's list (in the order of
``ties``) and history, and :func:`metrics_lib.miscalibration_batch`.

Edge cases: the values do not depend on the judgements, so no user is
"empty". A user without history, or without recommendations (kept by
``missing="zero"`` or ``"warn"``), gets ``nan``: the genre mix of an empty
history or list is undefined (the per-list function refuses both), and 0
would claim a perfect calibration. An item of the recommendations or of the
history without a genre in ``item_genres`` is refused (a ``ValueError``
naming it), beyond the cut-off too, as :func:`miscalibration_batch` does.
The order inside a tie group matters only where ``k`` cuts it or with rank
weights, and follows ``ties``; the bounds ``"best"`` / ``"worst"`` (which
order by grade) and ``judged_only=True`` (which would drop the unjudged
items) are refused.
"""

from __future__ import annotations

import numpy as np

from .._kernels import block_starts
from .._validation import show
from ..beyond.calibration import _genre_mix, _kl, _rank_weight
from .judgements import _refuse_bounds
from .registry import Metric, Parameter, register


def _cut_rows(tables, k, options):
    """(owner, share-matrix row, rank) of each row among each user's first m."""
    _refuse_bounds("metric 'miscalibration'", options["ties"])
    if options["judged_only"]:
        raise ValueError("metric 'miscalibration' reads every recommended item: "
                         "judged_only=True, which keeps the judged ones only, does not "
                         "apply; evaluate it in a call without judged_only")
    lengths = tables.rows[0]
    item_rows, row_users = options["genre_rows"]
    chunk = slice(tables.first_row, tables.first_row + int(lengths.sum()))
    item_rows, row_users = item_rows[chunk], row_users[chunk]
    owner = np.repeat(np.arange(lengths.size), lengths)
    rank = np.arange(owner.size) - block_starts(lengths)[owner] + 1
    cut = [c for c in (k, options["truncate"]) if c is not None]
    keep = rank <= min(cut) if cut else np.ones(owner.size, dtype=bool)
    # the global code of each of the chunk's users with a list (their first row)
    users = row_users[block_starts(lengths)[lengths > 0]]
    return owner[keep], item_rows[keep], rank[keep], users, lengths > 0


def _miscalibration_batch(tables, k, options):
    owner, items, rank, users, listed = _cut_rows(tables, k, options)
    n_users = tables.binary.n_users
    shares = options["genre_data"]["shares"]
    q = _genre_mix(owner, items, _rank_weight(rank.astype(np.float64),
                                              options["rank_weights"]), shares, n_users)
    p = np.full((n_users, shares.shape[1]), np.nan)
    p[np.flatnonzero(listed)] = options["history_mix"][users]
    # no history (p undefined) or no list (q undefined): nan, never 0; a mix is
    # nan in every genre or in none (0 / 0 for a user without rows)
    undefined = np.isnan(p[:, 0]) | np.isnan(q[:, 0])
    p[undefined], q[undefined] = 0.0, 0.0
    values = _kl(p, q, options["parameters"]["alpha"])
    values[undefined] = np.nan
    return values, None


register(Metric(
    name="miscalibration", aliases=("miscalibration",), batch=_miscalibration_batch,
    can_be_empty=False, item_data="genres", keywords=("rank_weights",),
    parameters=(Parameter("alpha", "(0, 1]", "smoothing weight of the history's "
                          "genre mix", default=0.01),)))
