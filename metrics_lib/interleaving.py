"""Former module path of team-draft interleaving.

The code lives in :mod:`metrics_lib.online.interleaving`; this module keeps
the old path importable with the names it had.
"""

from .online.interleaving import (
    ALTERNATIVES,
    InterleavingCredit,
    InterleavingTest,
    TeamDraftBatch,
    TeamDraftList,
    interleaving_credit,
    interleaving_test,
    team_draft_interleave,
    team_draft_interleave_many,
)

__all__ = [
    "TeamDraftList",
    "TeamDraftBatch",
    "InterleavingCredit",
    "InterleavingTest",
    "team_draft_interleave",
    "team_draft_interleave_many",
    "interleaving_credit",
    "interleaving_test",
]
