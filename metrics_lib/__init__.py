"""metrics_lib: evaluation metrics for recommender systems and rankings.

The companion library of the *Ranking Matters* book. Defaults follow
trec_eval; every other convention in use by other libraries is an explicit
keyword, so that a number can always be traced to a definition.
"""

from .classification import (
    ConfusionMatrix,
    accuracy,
    confusion_matrix,
    f1_score,
    precision,
    recall,
    roc_auc,
)
from .online import (
    OffPolicyEstimate,
    doubly_robust_estimate,
    ips_estimate,
    slate_ips_estimate,
    snips_estimate,
)
from .datasets import (
    LoggedRankings,
    MovieLens100K,
    SimulatedWorld,
    load_movielens_100k,
    sample_rankings,
    simulate_world,
)
from .ranking import (
    average_precision,
    dcg_at_k,
    f1_at_k,
    hit_at_k,
    hit_count_at_k,
    mean_average_precision,
    mean_reciprocal_rank,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    reciprocal_rank,
)
from .ranks import hits_at_k, mean_rank, mean_reciprocal_rank_from_ranks, rank_with_ties
from .online import (
    RateEstimate,
    SampleRatioMismatch,
    TwoProportionTest,
    click_through_rate,
    power_two_proportions,
    sample_ratio_mismatch,
    sample_size_per_group,
    two_proportion_test,
)
from .online import (
    CupedTest,
    GroupSequentialBoundaries,
    RatioEstimate,
    RatioTest,
    SequentialEstimateBias,
    cuped_test,
    group_sequential_boundaries,
    ratio_metric,
    ratio_metric_test,
    sequential_bias_adjusted_estimate,
    sequential_estimate_bias,
)
from .online import (
    InterleavingCredit,
    InterleavingTest,
    TeamDraftBatch,
    TeamDraftList,
    interleaving_credit,
    interleaving_test,
    team_draft_interleave,
    team_draft_interleave_many,
)
from .rating import mae, rmse
from .evaluate import evaluate, parse_metric
from ._missing import MissingUsersWarning
from .conventions import PEERS, convention_metrics, convention_table, describe_convention
from .conventions import with_convention as _with_convention

# the per-list functions take convention= too (metrics_lib/conventions.py)
precision_at_k = _with_convention(precision_at_k)
recall_at_k = _with_convention(recall_at_k)
f1_at_k = _with_convention(f1_at_k)
hit_at_k = _with_convention(hit_at_k)
reciprocal_rank = _with_convention(reciprocal_rank)
average_precision = _with_convention(average_precision)
dcg_at_k = _with_convention(dcg_at_k)
ndcg_at_k = _with_convention(ndcg_at_k)
from .trec import read_trec_qrels, read_trec_run
from .trec_measures import (
    bpref,
    floored_geometric_mean,
    geometric_mean_average_precision,
    interpolated_precision,
    r_precision,
)
from .beyond import (
    catalog_coverage,
    gini_index,
    intra_list_diversity,
    novelty,
    personalization,
    serendipity,
)
from .online import (
    BootstrapInterval,
    PairedTTest,
    PermutationTest,
    paired_bootstrap_ci,
    paired_permutation_test,
    paired_t_test,
)

__version__ = "0.2.0"

__all__ = [
    # one ranked list
    "precision_at_k",
    "recall_at_k",
    "f1_at_k",
    "hit_at_k",
    "hit_count_at_k",
    "reciprocal_rank",
    "average_precision",
    "dcg_at_k",
    "ndcg_at_k",
    # one ranked list: trec_eval's other standard measures
    "r_precision",
    "bpref",
    "interpolated_precision",
    # many users
    "mean_reciprocal_rank",
    "mean_average_precision",
    "geometric_mean_average_precision",
    "floored_geometric_mean",
    # one answer per query
    "mean_rank",
    "hits_at_k",
    "mean_reciprocal_rank_from_ranks",
    "rank_with_ties",
    # many users from two tables (batch evaluation, TREC files)
    "evaluate",
    "parse_metric",
    "MissingUsersWarning",
    # other libraries' conventions, by name (evaluate(..., convention=peer))
    "describe_convention",
    "convention_metrics",
    "convention_table",
    "read_trec_run",
    "read_trec_qrels",
    # ratings
    "rmse",
    "mae",
    # binary classification
    "ConfusionMatrix",
    "confusion_matrix",
    "accuracy",
    "precision",
    "recall",
    "f1_score",
    "roc_auc",
    # online experiments
    "click_through_rate",
    "two_proportion_test",
    "power_two_proportions",
    "sample_size_per_group",
    "sample_ratio_mismatch",
    "RateEstimate",
    "TwoProportionTest",
    "SampleRatioMismatch",
    # online experiments at the randomisation unit
    "ratio_metric",
    "ratio_metric_test",
    "cuped_test",
    "group_sequential_boundaries",
    "sequential_estimate_bias",
    "sequential_bias_adjusted_estimate",
    "RatioEstimate",
    "RatioTest",
    "CupedTest",
    "GroupSequentialBoundaries",
    "SequentialEstimateBias",
    # interleaving
    "team_draft_interleave",
    "team_draft_interleave_many",
    "interleaving_credit",
    "interleaving_test",
    "TeamDraftList",
    "TeamDraftBatch",
    "InterleavingCredit",
    "InterleavingTest",
    # counterfactual evaluation from logs
    "ips_estimate",
    "snips_estimate",
    "doubly_robust_estimate",
    "slate_ips_estimate",
    "OffPolicyEstimate",
    # a simulated world with known preferences
    "SimulatedWorld",
    "simulate_world",
    "LoggedRankings",
    "sample_rankings",
    # a real data set (fetched from PyPI, not shipped)
    "load_movielens_100k",
    "MovieLens100K",
    # beyond accuracy
    "catalog_coverage",
    "gini_index",
    "intra_list_diversity",
    "novelty",
    "serendipity",
    "personalization",
    # paired comparison of two recommenders
    "paired_t_test",
    "paired_bootstrap_ci",
    "paired_permutation_test",
    "PairedTTest",
    "BootstrapInterval",
    "PermutationTest",
]

# issue 28: comparison reports (metrics_lib/comparison)
from .comparison import (ComparisonReport, compare, correct_p_values,
                         detectable_difference, online_report, power_of,
                         users_needed)

__all__ += ["compare", "ComparisonReport", "correct_p_values", "users_needed",
            "detectable_difference", "power_of", "online_report"]
