"""metrics_lib: evaluation metrics for recommender systems and rankings.

The companion library of the *Ranking Matters* book. Defaults follow
trec_eval; every other convention in use by other libraries is an explicit
keyword, so that a number can always be traced to a definition.

The public names load on first use (``__getattr__`` below, PEP 562), so that
``import metrics_lib`` imports nothing heavy: numpy, pandas, scipy, Arrow, the
data sets and the online experiments are imported by the first call that
needs them. ``from metrics_lib import evaluate``, ``dir()``, ``__all__`` and
``metrics_lib.beyond.novelty`` work as with eager imports.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # type checkers and IDEs see every public name
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
        BootstrapInterval,
        CupedTest,
        GroupSequentialBoundaries,
        InterleavingCredit,
        InterleavingTest,
        OffPolicyEstimate,
        PairedTTest,
        PermutationTest,
        RateEstimate,
        RatioEstimate,
        RatioTest,
        SampleRatioMismatch,
        SequentialEstimateBias,
        TeamDraftBatch,
        TeamDraftList,
        TwoProportionTest,
        click_through_rate,
        cuped_test,
        doubly_robust_estimate,
        group_sequential_boundaries,
        interleaving_credit,
        interleaving_test,
        ips_estimate,
        paired_bootstrap_ci,
        paired_permutation_test,
        paired_t_test,
        power_two_proportions,
        ratio_metric,
        ratio_metric_test,
        sample_ratio_mismatch,
        sample_size_per_group,
        sequential_bias_adjusted_estimate,
        sequential_estimate_bias,
        slate_ips_estimate,
        snips_estimate,
        team_draft_interleave,
        team_draft_interleave_many,
        two_proportion_test,
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
        alpha_ndcg_at_k,
        average_precision,
        dcg_at_k,
        err_at_k,
        err_ia_at_k,
        f1_at_k,
        hit_at_k,
        hit_count_at_k,
        judged_at_k,
        mean_average_precision,
        mean_reciprocal_rank,
        ndcg_at_k,
        precision_at_k,
        precision_ia_at_k,
        rank_biased_precision,
        recall_at_k,
        reciprocal_rank,
        subtopic_recall_at_k,
    )
    from .ranking.trec_gains import bin_g, ideal_dcg, ndcg_rel, rndcg, trec_g
    from .ranks import (
        hits_at_k,
        mean_rank,
        mean_reciprocal_rank_from_ranks,
        rank_with_ties,
    )
    from .rating import (
        mae,
        rmse,
    )
    from .evaluate import (
        evaluate,
    )
    from .ranking.registry import (
        parse_metric,
    )
    from ._missing import (
        MissingUsersWarning,
    )
    from .conventions import (
        PEERS,
        convention_metrics,
        convention_table,
        describe_convention,
    )
    from .trec import (
        read_trec_qrels,
        read_trec_run,
    )
    from .ranking.infap import infap
    from .ranking.trec_sets import (
        set_precision,
        set_recall,
        set_f,
        set_map,
        set_relative_precision,
        relative_precision_at_k,
        num_nonrel_judged_ret,
        geometric_mean_bpref,
    )
    from .ranking.trec_more import (
        eleven_point_average,
        r_precision_multiple,
        set_utility,
        unjudged_at_k,
        yaap,
    )
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
    from .beyond import (
        average_recommendation_popularity,
        expected_exposure,
        expected_exposure_batch,
        group_exposure,
        group_exposure_batch,
        long_tail_share,
        miscalibration,
        miscalibration_batch,
        popularity_bias_batch,
    )
    from .comparison import (
        ComparisonReport,
        compare,
        correct_p_values,
        detectable_difference,
        online_report,
        power_of,
        users_needed,
    )
    from .conventions import PEERS
    from .explain import (
        Explanation,
        explain_difference,
        find_convention,
    )

# module -> the public names it provides (read on first access)
_LAZY_MODULES = {
    ".classification": (
        "ConfusionMatrix", "accuracy", "confusion_matrix", "f1_score", "precision", "recall",
        "roc_auc"
    ),
    ".online": (
        "BootstrapInterval", "CupedTest", "GroupSequentialBoundaries", "InterleavingCredit",
        "InterleavingTest", "OffPolicyEstimate", "PairedTTest", "PermutationTest",
        "RateEstimate", "RatioEstimate", "RatioTest", "SampleRatioMismatch",
        "SequentialEstimateBias", "TeamDraftBatch", "TeamDraftList", "TwoProportionTest",
        "click_through_rate", "cuped_test", "doubly_robust_estimate",
        "group_sequential_boundaries", "interleaving_credit", "interleaving_test",
        "ips_estimate", "paired_bootstrap_ci", "paired_permutation_test", "paired_t_test",
        "power_two_proportions", "ratio_metric", "ratio_metric_test", "sample_ratio_mismatch",
        "sample_size_per_group", "sequential_bias_adjusted_estimate",
        "sequential_estimate_bias", "slate_ips_estimate", "snips_estimate",
        "team_draft_interleave", "team_draft_interleave_many", "two_proportion_test"
    ),
    ".datasets": (
        "LoggedRankings", "MovieLens100K", "SimulatedWorld", "load_movielens_100k",
        "sample_rankings", "simulate_world"
    ),
    ".ranking": (
        "average_precision", "dcg_at_k", "err_at_k", "f1_at_k", "hit_at_k",
        "hit_count_at_k", "judged_at_k",
        "mean_average_precision", "mean_reciprocal_rank", "ndcg_at_k", "precision_at_k",
        "rank_biased_precision", "recall_at_k", "reciprocal_rank",
        "alpha_ndcg_at_k", "err_ia_at_k", "precision_ia_at_k", "subtopic_recall_at_k"
    ),
    ".ranking.trec_gains": ("bin_g", "ideal_dcg", "ndcg_rel", "rndcg", "trec_g"),
    ".ranks": ("hits_at_k", "mean_rank", "mean_reciprocal_rank_from_ranks", "rank_with_ties"),
    ".rating": ("mae", "rmse"),
    ".evaluate": ("evaluate",),
    ".ranking.registry": ("parse_metric",),
    "._missing": ("MissingUsersWarning",),
    ".conventions": ("PEERS", "convention_metrics", "convention_table", "describe_convention"),
    ".explain": ("Explanation", "explain_difference", "find_convention"),
    ".trec": ("read_trec_qrels", "read_trec_run"),
    ".ranking.infap": ("infap",),
    ".ranking.trec_sets": (
        "set_precision", "set_recall", "set_f", "set_map", "set_relative_precision",
        "relative_precision_at_k", "num_nonrel_judged_ret", "geometric_mean_bpref",
    ),
    ".ranking.trec_more": (
        "eleven_point_average", "r_precision_multiple", "set_utility", "unjudged_at_k", "yaap"
    ),
    ".trec_measures": (
        "bpref", "floored_geometric_mean", "geometric_mean_average_precision",
        "interpolated_precision", "r_precision"
    ),
    ".beyond": (
        "catalog_coverage", "gini_index", "intra_list_diversity", "novelty", "personalization",
        "serendipity",
        "average_recommendation_popularity",
        "expected_exposure",
        "expected_exposure_batch",
        "group_exposure",
        "group_exposure_batch",
        "long_tail_share",
        "miscalibration",
        "miscalibration_batch",
        "popularity_bias_batch",
    ),
    ".comparison": (
        "ComparisonReport", "compare", "correct_p_values", "detectable_difference",
        "online_report", "power_of", "users_needed"
    ),
}
_LAZY = {name: module for module, names in _LAZY_MODULES.items() for name in names}
# the per-list functions take convention= too (metrics_lib/conventions/per_list.py)
_WITH_CONVENTION = frozenset({"precision_at_k", "recall_at_k", "f1_at_k", "hit_at_k",
                              "reciprocal_rank", "average_precision", "dcg_at_k", "ndcg_at_k"})
# the subpackages and modules reachable as attributes (metrics_lib.beyond.novelty)
_SUBMODULES = frozenset({
    "batch", "beyond", "classification", "comparison", "conventions", "counterfactual", "datasets",
    "explain",
    "experiments", "interleaving", "online", "ranking", "ranks", "rating", "significance",
    "trec", "trec_measures", "cli", "dropin", "dask_support",
})


def __getattr__(name: str):
    """Import a public name's module the first time the name is read (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        if name in _SUBMODULES:
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
    if name == "evaluate" or name in _WITH_CONVENTION:
        # the presets install convention= into evaluate when imported
        importlib.import_module(".conventions", __name__)
    value = getattr(importlib.import_module(module, __name__), name)
    if name in _WITH_CONVENTION:
        value = sys.modules[f"{__name__}.conventions"].with_convention(value)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__) | set(_LAZY))


class _Package(types.ModuleType):
    """This package's module type: ``metrics_lib.evaluate`` stays the function.

    Importing the submodule ``metrics_lib.evaluate`` (which the presets and
    the command line do) makes Python bind it on the package under the same
    name as the function; the eager imports used to rebind the function
    afterwards, and this keeps that meaning. The presets are imported then
    too: they install ``convention=`` into evaluate, and ``__getattr__``
    is not asked for a name that is already bound.
    """

    def __setattr__(self, name, value):
        if name == "evaluate" and isinstance(value, types.ModuleType):
            value = value.evaluate
            super().__setattr__(name, value)
            importlib.import_module(".conventions", self.__name__)
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

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
    "err_at_k",
    "rank_biased_precision",
    "judged_at_k",
    # one ranked list, several intents
    "alpha_ndcg_at_k",
    "err_ia_at_k",
    "precision_ia_at_k",
    "subtopic_recall_at_k",
    # one ranked list: trec_eval's experimental gain measures
    "trec_g",
    "bin_g",
    "ideal_dcg",
    "ndcg_rel",
    "rndcg",
    # one ranked list: trec_eval's other standard measures
    "r_precision",
    "bpref",
    "infap",
    "interpolated_precision",
    # one ranked list: trec_eval's set measures
    "set_precision",
    "set_recall",
    "set_f",
    "set_map",
    "set_relative_precision",
    "relative_precision_at_k",
    "num_nonrel_judged_ret",
    "eleven_point_average",
    "r_precision_multiple",
    "yaap",
    "unjudged_at_k",
    "set_utility",
    # many users
    "mean_reciprocal_rank",
    "mean_average_precision",
    "geometric_mean_average_precision",
    "geometric_mean_bpref",
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
    # why two conventions give two numbers, and which conventions give a number
    "explain_difference",
    "find_convention",
    "Explanation",
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
    "miscalibration",
    "miscalibration_batch",
    "expected_exposure",
    "expected_exposure_batch",
    "group_exposure",
    "group_exposure_batch",
    "average_recommendation_popularity",
    "long_tail_share",
    "popularity_bias_batch",
    # paired comparison of two recommenders
    "paired_t_test",
    "paired_bootstrap_ci",
    "paired_permutation_test",
    "PairedTTest",
    "BootstrapInterval",
    "PermutationTest",
    # comparison reports and planning (metrics_lib/comparison)
    "compare",
    "ComparisonReport",
    "correct_p_values",
    "users_needed",
    "detectable_difference",
    "power_of",
    "online_report",
]

