"""The batch pipeline: reading, users, keys and rank order, scoring, result.

:func:`evaluate_frames` is the pandas path of :func:`metrics_lib.evaluate`
once its options are checked (:mod:`metrics_lib.batch.options`); each step
is a module of this folder:

1. :mod:`~metrics_lib.batch.reading`: the columns, checked, as arrays;
2. :mod:`~metrics_lib.batch.users`: rows grouped by user, users coded;
3. :mod:`~metrics_lib.batch.keys`: items as join keys, lists in rank order;
4. :mod:`~metrics_lib.batch.scoring`: join and metric values, by chunks of
   users (:mod:`~metrics_lib.batch.chunks`), by each metric's batch kernel;
5. :mod:`~metrics_lib.batch.result`: the table of values per user.

No Python loop runs over users; time and memory grow linearly with the
number of rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..ranking import registry
from .intents import fold_intents
from .items import genre_rows, group_rows, popularity_rows
from .keys import item_keys, rank_lists
from .reading import check_grades, read_tables
from .result import raise_duplicates, result_table
from .scoring import score_users
from .users import code_users

__all__ = ["evaluate_frames"]


def evaluate_frames(recommendations, truth, options, *, user_col, item_col,
                    score_col, rank_col, relevance_col, n_jobs=1):
    """The pandas path of :func:`evaluate` (options already checked)."""
    if options["relevance_level"] == 0:
        return _at_level_zero(recommendations, truth, options, user_col=user_col,
                              item_col=item_col, score_col=score_col, rank_col=rank_col,
                              relevance_col=relevance_col, n_jobs=n_jobs)
    # 1. Read and check the columns.
    (user_kind, rec_users, truth_users), (item_kind, rec_items, truth_items), values, \
        grades = read_tables(recommendations, truth, options, user_col=user_col,
                             item_col=item_col, score_col=score_col, rank_col=rank_col,
                             relevance_col=relevance_col)
    if options.get("intent_col") is not None:
        # one judgement per (user, item) whose grade is a key to its intents
        truth_users, truth_items, grades, ptr, codes, count = fold_intents(
            truth[options["intent_col"]], truth_users, truth_items, grades,
            options["relevance_level"])
        options = dict(options, intent_ptr=ptr, intent_codes=codes, intent_count=count)
    # 2. Group the recommendations by user and code the users.
    lengths, order, truth_runs, n_blocks, n_extra, user_ids = code_users(
        rec_users, truth_users, kind=user_kind, dtype=recommendations[user_col].dtype,
        missing=options["missing"])
    del rec_users, truth_users
    # 3. Item keys, then the rank order inside each block: score (or rank),
    #    then the tie rule.
    rec_keys, truth_keys, decode_item, span = item_keys(item_kind, rec_items,
                                                        truth_items, n_blocks + n_extra)
    del rec_items, truth_items
    rec_keys, options = rank_lists(rec_keys, values, order, lengths, options,
                                   item_kind=item_kind, decode=decode_item,
                                   descending=rank_col is None)
    options = popularity_rows(options, rec_keys, decode_item, item_kind)
    options = group_rows(options, rec_keys, decode_item, item_kind)
    options = genre_rows(options, rec_keys, decode_item, item_kind, lengths, user_ids,
                         user_kind)
    del values, order
    # 4. Join and per-user values, by contiguous chunks of users (one per
    #    thread).
    parts = score_users(rec_keys, lengths, truth_runs, truth_keys, grades, options,
                        n_extra=n_extra, n_jobs=n_jobs, span=span)
    raise_duplicates(parts, lengths, rec_keys, truth_keys, truth_runs, decode_item,
                     user_ids)
    del rec_keys
    # 5. Empty users and the users to report, over all chunks at once.
    return result_table(parts, options, n_blocks, user_ids, user_col)


def _at_level_zero(recommendations, truth, options, *, relevance_col, **columns):
    """``relevance_level=0``: every judged item is relevant (trec_eval ``-l 0``).

    The kernels count only positive grades as hits, so the metrics that compare
    grades with the level run on the grades plus 1 at level 1 (grade >= 0 is
    grade + 1 >= 1); NDCG and DCG of the grades themselves run on the grades
    as given, in a second pass.
    """
    graded = [metric for metric in options["metrics"]
              if registry.get(metric[1]).graded and options["gain"] != "binary"]
    binary = [metric for metric in options["metrics"] if metric not in graded]
    if binary and options["min_grade"] is not None and options["gain"] == "binary":
        raise ValueError("relevance_level=0 with gain='binary' and min_grade is not "
                         "available; pass relevance_level above 0 or min_grade=None")
    parts = []
    if binary:
        shifted = truth
        if relevance_col is not None:
            grades = check_grades(truth[relevance_col], options)
            # grade >= 0 is grade + 1 >= 1; a negative grade (unjudged) stays as it is
            shifted = truth.assign(**{relevance_col: np.where(grades >= 0, grades + 1.0,
                                                              grades)})
        shifted_options = dict(options, metrics=binary, relevance_level=1.0)
        if isinstance(options["gain"], tuple):
            # a gain map is for the graded pass: the shifted grades are not its keys
            shifted_options.update(gain="linear",
                                   gain_transform=options["min_grade"] is not None)
        parts.append(evaluate_frames(recommendations, shifted, shifted_options,
                                     relevance_col=relevance_col, **columns))
    if graded:
        # the first pass has warned already: the warning is once per call
        missing = "zero" if binary and options["missing"] == "warn" else options["missing"]
        parts.append(evaluate_frames(recommendations, truth, dict(
            options, metrics=graded, relevance_level=1.0, missing=missing,
            level_zero=True),  # Rndcg: a user with a judgement is not empty
            relevance_col=relevance_col, **columns))
    result = parts[0] if len(parts) == 1 else pd.concat(parts, axis=1)
    return result[[name for name, _, _ in options["metrics"]]]
