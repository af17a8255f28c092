"""Beyond-accuracy metrics: coverage, diversity, novelty, serendipity, personalization, Gini.

Accuracy metrics compare one user's list with that user's relevant items.
The metrics here look at other properties of the lists:

``catalog_coverage``
    how much of the catalogue is ever recommended;
``gini_index``
    how unequally the recommendations (the *exposure*) are spread over items;
``intra_list_diversity``
    how different the items inside one list are from each other;
``novelty``
    how unknown (unpopular) the recommended items are;
``serendipity``
    how many recommendations are relevant *and* unexpected;
``personalization``
    how different the lists of different users are;
``miscalibration``
    how far a list's genre mix is from the user's history (Steck);
``expected_exposure``, ``group_exposure``
    how attention is spread over items and item groups;
``average_recommendation_popularity``, ``long_tail_share``
    how popular the recommended items are (popularity bias).

The ``*_batch`` functions take long tables (pandas, Polars, pyarrow) and
compute every user at once.

One module per question: ``coverage`` (catalogue coverage, Gini index),
``diversity`` (intra-list diversity, personalization) and
``novelty_serendipity``; ``_lists`` reads the lists and ``_similarity`` the
item similarities. Every public name is also re-exported from
:mod:`metrics_lib`.

Every function takes ``recommended_lists``: one ranked list of item ids per
user (a sequence of sequences, or a 2-D array with one row per user), and an
optional cut-off ``k`` applied to every list. Libraries disagree on several
of these definitions; each docstring says where, and a keyword picks the
variant.

Item ids are of one kind across all lists and the other arguments that
hold ids (``catalog``, ``interactions``, ``relevant_lists``,
``baseline_lists``, ``history_lists``, the keys of ``features``), as in
:func:`~metrics_lib.evaluate`: the string ``"1"`` and the integer ``1`` would
count as two items, so a mix is refused with a ``TypeError``.
"""

from .coverage import GINI_DENOMINATORS, catalog_coverage, gini_index
from .diversity import intra_list_diversity, personalization
from .novelty_serendipity import AVERAGES, POPULARITY_KINDS, novelty, serendipity
from .calibration import RANK_WEIGHTS, miscalibration, miscalibration_batch
from .exposure import (POSITION_WEIGHTS, expected_exposure, expected_exposure_batch,
                       group_exposure, group_exposure_batch)
from .popularity import (HEAD_RULES, average_recommendation_popularity, long_tail_share,
                         popularity_bias_batch)

__all__ = [
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "novelty",
    "serendipity",
    "personalization",
    "miscalibration",
    "miscalibration_batch",
    "expected_exposure",
    "expected_exposure_batch",
    "group_exposure",
    "group_exposure_batch",
    "average_recommendation_popularity",
    "long_tail_share",
    "popularity_bias_batch",
]
