"""Why one user's value differs between two sides: facts read from the data.

Each fact is checked on the user's own rows (ties at the cut-off, scores
equal only in float32, no relevant item, fewer than k items, a graded item,
unjudged items, missing on one side); the explanation lists those that bear
on a convention that differs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def user_reasons(user, recs: pd.DataFrame, truth: pd.DataFrame, k, level, columns: dict,
                 present: tuple[bool, bool]) -> list[str]:
    """Plain-language facts about one user that conventions act on.

    ``recs`` and ``truth`` hold only that user's rows; ``columns`` maps
    ``item``, ``score``, ``rank`` and ``relevance`` to column names (a
    missing grade column means every truth row is relevant).
    """
    reasons = []
    if not all(present):
        side = "a" if not present[0] else "b"
        reasons.append(f"missing on side {side} (no value there: missing= or empty=)")
    if len(recs) == 0:
        reasons.append("no recommendations")
    if len(truth) == 0:
        reasons.append("no truth rows")
    grades = (truth[columns["relevance"]].to_numpy(dtype=float)
              if columns["relevance"] in truth.columns else np.ones(len(truth)))
    if len(truth) and not (grades >= level).any():
        reasons.append(f"no relevant item (no grade >= {level})")
    n_relevant = int((grades >= level).sum())
    if k is not None and 0 < n_relevant < k:
        reasons.append(f"fewer relevant items than k ({n_relevant} < {k}: ideal lists differ)")
    if k is not None and 0 < len(recs) < k:
        reasons.append(f"fewer than k items ({len(recs)} < {k})")
    if (grades > 1).any():
        judged = set(truth[columns["item"]][grades > 1])
        if judged & set(recs[columns["item"]]):
            reasons.append("a graded item (grade > 1) is recommended")
    unjudged = ~recs[columns["item"]].isin(truth[columns["item"]])
    if len(recs) and unjudged.any():
        reasons.append(f"{int(unjudged.sum())} unjudged recommended item(s)")
    reasons.extend(_tie_reasons(recs, k, columns))
    return reasons


def _tie_reasons(recs: pd.DataFrame, k, columns: dict) -> list[str]:
    score = columns["score"]
    if columns.get("rank") is not None or score not in recs.columns or len(recs) < 2:
        return []
    values = np.sort(recs[score].to_numpy(dtype=float))[::-1]
    reasons = []
    if k is not None and len(values) > k and values[k - 1] == values[k]:
        reasons.append(f"tied scores at the cut-off (positions {k} and {k + 1})")
    elif np.any(values[1:] == values[:-1]):
        reasons.append("tied scores")
    as32 = values.astype(np.float32)
    if np.sum(as32[1:] == as32[:-1]) > np.sum(values[1:] == values[:-1]):
        reasons.append("scores that tie only in float32")
    return reasons
