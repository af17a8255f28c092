"""Online experiments: what the package measures on live traffic and on logs.

One module per kind of question:

``ab_tests``
    click-through rates, the two-proportion test, power, sample size and the
    sample-ratio check, for counts of independent impressions;
``ratio_metrics``
    a ratio of per-user sums with its delta-method variance (the user, not
    the impression, is the randomisation unit);
``variance_reduction``
    the CUPED-adjusted difference of means;
``sequential``
    group-sequential boundaries and the bias of the estimate at the stopping
    look;
``significance``
    paired tests of two recommenders on the same users (t-test, bootstrap,
    permutation), shared by the modules above;
``interleaving``
    team-draft interleaving and its sign test;
``off_policy``
    counterfactual estimates from logged propensities (IPS, SNIPS, doubly
    robust, slate IPS).

These modules sit above the checks of :mod:`metrics_lib._validation` and
import nothing from the offline evaluation. Every public name is also
re-exported from :mod:`metrics_lib`, which is the path to use.
"""

from .ab_tests import (
    ALTERNATIVES,
    INTERVAL_METHODS,
    RateEstimate,
    SampleRatioMismatch,
    TwoProportionTest,
    click_through_rate,
    power_two_proportions,
    sample_ratio_mismatch,
    sample_size_per_group,
    two_proportion_test,
)
from .interleaving import (
    InterleavingCredit,
    InterleavingTest,
    TeamDraftBatch,
    TeamDraftList,
    interleaving_credit,
    interleaving_test,
    team_draft_interleave,
    team_draft_interleave_many,
)
from .off_policy import (
    OffPolicyEstimate,
    doubly_robust_estimate,
    ips_estimate,
    slate_ips_estimate,
    snips_estimate,
)
from .ratio_metrics import RatioEstimate, RatioTest, ratio_metric, ratio_metric_test
from .sequential import (
    GroupSequentialBoundaries,
    SequentialEstimateBias,
    group_sequential_boundaries,
    sequential_bias_adjusted_estimate,
    sequential_estimate_bias,
)
from .significance import (
    BootstrapInterval,
    PairedTTest,
    PermutationTest,
    paired_bootstrap_ci,
    paired_permutation_test,
    paired_t_test,
)
from .variance_reduction import CupedTest, cuped_test

__all__ = [
    # A/B tests on counts (the names of the former module metrics_lib.online)
    "RateEstimate",
    "TwoProportionTest",
    "SampleRatioMismatch",
    "click_through_rate",
    "two_proportion_test",
    "power_two_proportions",
    "sample_size_per_group",
    "sample_ratio_mismatch",
    # at the randomisation unit
    "RatioEstimate",
    "RatioTest",
    "CupedTest",
    "GroupSequentialBoundaries",
    "SequentialEstimateBias",
    "ratio_metric",
    "ratio_metric_test",
    "cuped_test",
    "group_sequential_boundaries",
    "sequential_estimate_bias",
    "sequential_bias_adjusted_estimate",
    # paired comparison of two recommenders
    "PairedTTest",
    "BootstrapInterval",
    "PermutationTest",
    "paired_t_test",
    "paired_bootstrap_ci",
    "paired_permutation_test",
    # interleaving
    "TeamDraftList",
    "TeamDraftBatch",
    "InterleavingCredit",
    "InterleavingTest",
    "team_draft_interleave",
    "team_draft_interleave_many",
    "interleaving_credit",
    "interleaving_test",
    # counterfactual evaluation from logs
    "OffPolicyEstimate",
    "ips_estimate",
    "snips_estimate",
    "doubly_robust_estimate",
    "slate_ips_estimate",
]
