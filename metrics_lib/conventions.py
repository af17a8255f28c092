"""Named presets: the keywords that reproduce another library's numbers.

Every convention in which the popular evaluation libraries disagree is a
keyword of :func:`metrics_lib.evaluate` (tie order, AP and precision
denominators, gains, ideal list, which users count, ...). A *preset* is the
set of those keywords that one library ("peer") uses for each metric it
defines: ``evaluate(..., convention="ranx")`` sets them all, and
:func:`describe_convention` says which they are. The presets are checked
against per-user values computed by the peers themselves
(``benchmarks/peers/golden/``, test ``tests/test_peer_goldens.py``).

Peers and the versions the presets were checked against are in
``metrics_lib.PEERS``; each metric entry names the file and function of the peer
that computes it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ._validation import did_you_mean, show
from .ranking import registry

__all__ = ["PEERS", "describe_convention", "convention_metrics", "convention_table"]


@dataclass(frozen=True)
class _Metric:
    """One metric of one peer: our metric kind and the keywords that give it."""

    kind: str                 # metric name of this library (parse_metric spelling)
    names: tuple              # the peer's own spellings (matched ignoring case), no "@k"
    source: str               # peer file and function
    keywords: dict = field(default_factory=dict)
    cutoff: str = "optional"  # "optional", "required" or "none"
    ties_reproducible: bool | None = None  # None: the peer's default
    ties: str | None = None   # overrides the peer's tie note for this metric


@dataclass(frozen=True)
class _Preset:
    peer: str
    version: str
    repository: str
    ties_note: str
    ties_reproducible: bool
    keywords: dict            # every metric's keywords unless the metric overrides
    metrics: tuple
    parameters: dict          # peer option -> function(value) -> our keywords
    free: tuple = ()          # our keywords that stand for a peer option: settable
    score_dtype: str | None = None  # "float32": the peer compares scores in float32
    note: str = ""            # what the caller must give the peer and this library alike


# The values evaluate uses when a keyword is not given: a preset keyword equal to
# one of these may be dropped when this version of evaluate lacks the keyword.
_NEUTRAL = {"precision_denominator": "k", "recall_denominator": "relevant",
            "judged_only": False, "unjudged": "skip", "min_grade": None, "truncate": None,
            "no_hit": "zero", "candidates": "all", "score_threshold": None}

# Our metric kind -> the name evaluate() accepts (the registry's first alias).
_EVALUATE_NAME = {metric.name: metric.display_name for metric in registry.metrics()}

_TREC_KEYWORDS = {"ties": "item_desc", "missing": "skip", "unjudged": "skip",
                  "empty": "zero", "relevance_level": 1, "gain": "linear",
                  "ideal": "judged", "denominator": "relevant", "log_base": 2,
                  "judged_only": False, "precision_denominator": "k",
                  "recall_denominator": "relevant", "min_grade": None, "truncate": None,
                  "no_hit": "zero", "candidates": "all", "score_threshold": None}


def _trec_metrics(prefix: str) -> tuple:
    src = prefix + "{}"
    return (
        _Metric("precision", ("P",), src.format("m_P.c, te_calc_P"), cutoff="required"),
        _Metric("recall", ("recall",), src.format("m_recall.c, te_calc_recall"),
                cutoff="required"),
        _Metric("hit", ("success",), src.format("m_success.c, te_calc_success"),
                cutoff="required"),
        _Metric("rr", ("recip_rank",), src.format("m_recip_rank.c, te_calc_recip_rank"),
                cutoff="none"),
        _Metric("ap", ("map", "map_cut"), src.format("m_map.c, te_calc_map; m_map_cut.c, "
                                                     "te_calc_map_cut")),
        _Metric("ndcg", ("ndcg", "ndcg_cut"), src.format("m_ndcg.c, te_calc_ndcg; "
                                                         "m_ndcg_cut.c, te_calc_ndcg_cut")),
        _Metric("rprec", ("Rprec",), src.format("m_Rprec.c, te_calc_Rprec"), cutoff="none"),
        _Metric("num_rel_ret", ("num_rel_ret",),
                src.format("m_num_rel_ret.c, te_calc_num_rel_ret"), cutoff="none"),
        _Metric("num_ret", ("num_ret",), src.format("m_num_ret.c, te_calc_num_ret"),
                cutoff="none"),
        _Metric("num_rel", ("num_rel",), src.format("m_num_rel.c, te_calc_num_rel"),
                cutoff="none"),
    )


def _trec_parameters():
    return {"relevance_level": lambda v: {"relevance_level": v},
            "judged_docs_only_flag": lambda v: {"judged_only": bool(v)}}


_TIE_UNREPRODUCIBLE = ("the order of tied scores is implementation-defined; the preset "
                       "orders them as trec_eval does (ties='item_desc'), which agrees "
                       "with the peer on scores without ties only")

_PRESETS = {}


def _add(preset: _Preset) -> None:
    _PRESETS[preset.peer] = preset


_add(_Preset(
    peer="trec_eval", version="10.0 (commit f425365)",
    repository="https://github.com/usnistgov/trec_eval",
    ties_note=("score descending (C double), then document id compared with strcmp, "
               "descending (form_res_rels.c, comp_sim_docno)"),
    ties_reproducible=True, keywords=dict(_TREC_KEYWORDS),
    metrics=_trec_metrics("trec_eval 10.0, "),
    parameters={**_trec_parameters(), "c": lambda v: {"missing": "zero" if v else "skip"}},
    free=("relevance_level", "judged_only", "missing"),
    note=("A user judged in the truth table without recommendations: trec_eval 10.0 "
          "without -c stops there (trec_eval.c, main: 'result qid ... not found in "
          "qrels', exit status 4), although its help text says such queries are "
          "ignored; the preset leaves them out (missing='skip', as pytrec_eval does). "
          "missing='raise' stops as 10.0 does, missing='zero' is -c.")))

_add(_Preset(
    peer="pytrec_eval", version="pytrec_eval-terrier 0.5.11",
    repository="https://github.com/terrierteam/pytrec_eval",
    ties_note=("as trec_eval, but the score is stored as a C float "
               "(src/pytrec_eval.cpp, ResultRankingBuilder.ProcessQueryDocumentPair, into "
               "trec_eval 9's TEXT_RESULTS.sim): scores equal in float32 tie"),
    ties_reproducible=True, keywords=dict(_TREC_KEYWORDS),
    metrics=_trec_metrics("pytrec_eval-terrier 0.5.11 (trec_eval 9.0.8 code), "),
    parameters=_trec_parameters(), free=("relevance_level", "judged_only"),
    score_dtype="float32"))

_IRM = "ir-measures 0.4.3, "
_add(_Preset(
    peer="ir_measures", version="0.4.3",
    repository="https://github.com/terrierteam/ir_measures",
    ties_note=("provider pytrec_eval (every measure but RR@k): trec_eval's order on float32 "
               "scores; provider msmarco (RR@k): score descending, then id as text "
               "ascending (ir_measures/providers/msmarco_provider.py)"),
    ties_reproducible=True,
    keywords={**_TREC_KEYWORDS, "missing": "zero"},
    metrics=(
        _Metric("precision", ("P",), _IRM + "ir_measures/measures/p.py, _P (pytrec_eval "
                "provider)", cutoff="required"),
        _Metric("recall", ("R",), _IRM + "ir_measures/measures/r.py, _R (pytrec_eval provider)",
                cutoff="required"),
        _Metric("hit", ("Success",), _IRM + "ir_measures/measures/success.py, _Success "
                "(pytrec_eval provider)", cutoff="required"),
        _Metric("rr", ("RR",), _IRM + "ir_measures/measures/rr.py, _RR (RR: pytrec_eval "
                "provider; RR@k: ir_measures/providers/msmarco_provider.py)"),
        _Metric("ap", ("AP",), _IRM + "ir_measures/measures/ap.py, _AP (pytrec_eval provider)"),
        _Metric("ndcg", ("nDCG",), _IRM + "ir_measures/measures/ndcg.py, _nDCG (pytrec_eval "
                "provider)"),
        _Metric("rprec", ("Rprec",), _IRM + "ir_measures/measures/rprec.py, _Rprec",
                cutoff="none"),
        _Metric("num_ret", ("NumRet",), _IRM + "ir_measures/measures/numret.py, _NumRet "
                "(rel=None)", cutoff="none"),
        _Metric("num_rel_ret", ("NumRelRet",), _IRM + "ir_measures/measures/numret.py, "
                "_NumRet(rel=...) (pytrec_eval num_rel_ret)", cutoff="none"),
    ),
    parameters={"rel": lambda v: {"relevance_level": v},
                "judged_only": lambda v: {"judged_only": bool(v)},
                "gains": lambda v: {"gain": {int(g): float(x) for g, x in dict(v).items()}},
                "provider": lambda v: {}, "measure": lambda v: {}},
    free=("relevance_level", "judged_only", "gain"), score_dtype="float32"))

_RANX = "ranx 0.3.21, "
_add(_Preset(
    peer="ranx", version="0.3.21", repository="https://github.com/AmenRa/ranx",
    # numba 0.68.1 numba/misc/quicksort.py: lists of at most SMALL_QUICKSORT = 15 items get
    # only its insertion sort, which is stable; longer ones are partitioned, which is not
    ties_note=("numba np.argsort of the negated scores (ranx/data_structures/common.py, "
               "sort_dict_by_value), a quicksort that keeps tied items in the run's order "
               "on lists of at most 15 items (ties='input' reproduces it there) and not "
               "beyond: " + _TIE_UNREPRODUCIBLE),
    ties_reproducible=False,
    keywords={**_TREC_KEYWORDS, "missing": "zero"},
    metrics=(
        _Metric("num_rel_ret", ("hits",), _RANX + "ranx/metrics/hits.py, hits()"),
        _Metric("hit", ("hit_rate",), _RANX + "ranx/metrics/hit_rate.py, hit_rate()"),
        _Metric("precision", ("precision",), _RANX + "ranx/metrics/precision.py, precision()"),
        _Metric("recall", ("recall",), _RANX + "ranx/metrics/recall.py, recall()"),
        _Metric("rr", ("mrr",), _RANX + "ranx/metrics/reciprocal_rank.py, reciprocal_rank()"),
        _Metric("ap", ("map",), _RANX + "ranx/metrics/average_precision.py, "
                "average_precision()"),
        _Metric("ndcg", ("ndcg",), _RANX + "ranx/metrics/ndcg.py, ndcg() (_ndcg with "
                "jarvelin=True)"),
        _Metric("ndcg", ("ndcg_burges",), _RANX + "ranx/metrics/ndcg.py, ndcg_burges() "
                "(_ndcg with jarvelin=False)", keywords={"gain": "exponential"}),
        _Metric("rprec", ("r-precision", "r_precision"), _RANX + "ranx/metrics/r_precision.py, "
                "r_precision()", cutoff="none"),
    ),
    parameters={"rel_lvl": lambda v: {"relevance_level": v},
                "make_comparable": lambda v: {"missing": "zero"} if v else {"missing": "skip"}},
    free=("relevance_level", "missing", "min_grade")))

_REC = "recommenders 1.2.1, recommenders/evaluation/python_evaluation.py, "
# Recommenders (merge_ranking_true_pred), RecTools (calc_per_user) and RecBole
# (FullSortEvalDataLoader) count every row of the truth table they are given as
# relevant, whatever its rating: their presets read no grade column
# (relevance_col=None makes every truth row relevant, grade 1)
_EVERY_ROW = {"relevance_col": None}
# A peer option that makes a metric read the grades: the caller's relevance_col
# (evaluate's default "relevance" when none is given) instead of _EVERY_ROW.
_GRADES = object()


def _score_type(value) -> dict:
    """Recommenders' ndcg_at_k(score_type=...) as keywords."""
    if value == "binary":
        return {"gain": "binary"}
    gain = {"raw": "linear", "exp": "exponential"}.get(value)
    if gain is None:
        raise ValueError("recommenders' score_type is 'binary', 'raw' or 'exp'; got "
                         f"{show(value)}")
    # rel = rating (raw) or 2**rating - 1 (exp); a user whose ratings are all 0 has an
    # ideal DCG of 0 and gets 0/0 = NaN, left out of ndcg_at_k's mean (empty="nan";
    # called on that user alone, the df_hit.shape[0] == 0 guard gives 0.0 without a hit)
    return {"gain": gain, "relevance_col": _GRADES, "empty": "nan"}


_add(_Preset(
    peer="recommenders", version="1.2.1",
    repository="https://github.com/recommenders-team/recommenders",
    ties_note=("get_top_k_items sorts with pandas sort_values (a stable sort): tied scores "
               "keep the input order"),
    ties_reproducible=True,
    keywords={**_TREC_KEYWORDS, **_EVERY_ROW, "ties": "input", "missing": "skip"},
    metrics=(
        _Metric("precision", ("precision_at_k",), _REC + "precision_at_k()", cutoff="required"),
        _Metric("recall", ("recall_at_k",), _REC + "recall_at_k()", cutoff="required"),
        # ndcg_at_k merges its hits with the whole rating_true (how="outer") and takes
        # the mean over every user of it: a user without predictions scores 0 and
        # counts, unlike the other metrics' mean over the common users (n_users)
        _Metric("ndcg", ("ndcg_at_k",), _REC + "ndcg_at_k() (score_type='binary')",
                keywords={"gain": "binary", "missing": "zero"}, cutoff="required"),
        _Metric("ap", ("map_at_k",), _REC + "map_at_k()", keywords={"denominator": "min_k"},
                cutoff="required"),
        _Metric("ap", ("map",), _REC + "map()", cutoff="required"),
        # hits in the top min(k, |R|) over |R|; a user without one is NaN (dropped
        # from Recommenders' mean), while a user with no hit in the top k gets 0.0
        _Metric("rprec", ("r_precision_at_k",), _REC + "r_precision_at_k()",
                keywords={"no_hit": "nan"}, cutoff="required"),
    ),
    # relevancy_method="by_threshold": merge_ranking_true_pred takes the top `threshold`
    # items (default 10), whatever k is
    parameters={"relevancy_method": lambda v: ({"truncate": None} if v == "top_k"
                                               else {"truncate": 10}),
                "threshold": lambda v: {"truncate": v},
                "score_type": _score_type},
    # gain is not free: a graded gain needs the grade column, which only the peer's
    # own option score_type= switches on (see _score_type)
    free=("truncate",),
    note=("Give the preset the truth table given to Recommenders (rating_true), grades "
          "and all: Recommenders counts every row of rating_true as relevant, whatever its "
          "rating (merge_ranking_true_pred), and so does the preset, which reads no grade "
          "column (relevance_col=None) except for ndcg_at_k(score_type='raw' or 'exp'), "
          "whose gains are the grades of relevance_col. A relevance_col= passed with the "
          "other metrics is refused: filter the table (for both libraries) to leave "
          "rows out")))

_RT = "RecTools 0.19.0, "
_add(_Preset(
    peer="rectools", version="0.19.0", repository="https://github.com/MobileTeleSystems/RecTools",
    ties_note=("RecTools takes ranks, not scores: the caller orders tied items; the preset "
               "uses trec_eval's order (ties='item_desc')"),
    ties_reproducible=True,
    keywords={**_TREC_KEYWORDS, **_EVERY_ROW, "missing": "zero", "gain": "binary"},
    metrics=(
        _Metric("precision", ("Precision",), _RT + "rectools/metrics/classification.py, "
                "Precision.calc_per_user", cutoff="required"),
        _Metric("recall", ("Recall",), _RT + "rectools/metrics/classification.py, "
                "Recall.calc_per_user", cutoff="required"),
        _Metric("hit", ("HitRate",), _RT + "rectools/metrics/classification.py, "
                "HitRate.calc_per_user", cutoff="required"),
        _Metric("rr", ("MRR",), _RT + "rectools/metrics/ranking.py, MRR.calc_per_user",
                cutoff="required"),
        _Metric("ap", ("MAP",), _RT + "rectools/metrics/ranking.py, MAP.calc_per_user",
                cutoff="required"),
        _Metric("ndcg", ("NDCG",), _RT + "rectools/metrics/ranking.py, NDCG.calc_per_user",
                keywords={"ideal": "k"}, cutoff="required"),
    ),
    parameters={"r_precision": lambda v: {"precision_denominator": "min_k" if v else "k"},
                "divide_by_k": lambda v: {"denominator": "k" if v else "relevant"},
                "divide_by_achievable": lambda v: {"ideal": "judged" if v else "k"}},
    free=("precision_denominator", "denominator", "ideal"),
    note=("Give the preset the interactions given to RecTools, weights or grades and all: "
          "RecTools counts every interaction as relevant whatever its weight (calc_per_user "
          "of each metric merges reco with interactions on user and item only, "
          "rectools/metrics/base.py, merge_reco), and so does the preset, which reads no "
          "grade column (relevance_col=None; a relevance_col= passed is refused: filter the "
          "table for both libraries to leave rows out). RecTools takes ranks: give it the "
          "ranks of trec_eval's order (score descending, then item id as text descending), "
          "or pass rank_col= with the ranks given to RecTools")))

_RB = "RecBole 1.2.1, recbole/evaluator/metrics.py, "
_add(_Preset(
    peer="recbole", version="1.2.1", repository="https://github.com/RUCAIBox/RecBole",
    ties_note=("torch.topk on float32 scores (recbole/evaluator/collector.py, "
               "Collector.eval_batch_collect): " + _TIE_UNREPRODUCIBLE),
    ties_reproducible=False,
    keywords={**_TREC_KEYWORDS, **_EVERY_ROW, "missing": "zero", "unjudged": "empty",
              "gain": "binary"},
    metrics=(
        _Metric("hit", ("hit",), _RB + "Hit.metric_info", cutoff="required"),
        _Metric("rr", ("mrr",), _RB + "MRR.metric_info", cutoff="required"),
        _Metric("ap", ("map",), _RB + "MAP.metric_info", keywords={"denominator": "min_k"},
                cutoff="required"),
        _Metric("recall", ("recall",), _RB + "Recall.metric_info", keywords={"empty": "nan"},
                cutoff="required"),
        _Metric("ndcg", ("ndcg",), _RB + "NDCG.metric_info", cutoff="required"),
        _Metric("precision", ("precision",), _RB + "Precision.metric_info", cutoff="required"),
    ),
    parameters={}, score_dtype="float32",
    note=("Give the preset the test interactions given to RecBole: RecBole's positives are "
          "every test interaction, whatever its rating or label (recbole 1.2.1, "
          "recbole/data/dataloader/general_dataloader.py, FullSortEvalDataLoader.__init__), "
          "and the preset reads no grade column either (relevance_col=None; a "
          "relevance_col= passed is refused: filter the table for both libraries to leave "
          "rows out)")))

_TM = "torchmetrics 1.9.0, src/torchmetrics/"
_add(_Preset(
    peer="torchmetrics", version="1.9.0",
    repository="https://github.com/Lightning-AI/torchmetrics",
    ties_note=("torch.topk / torch.argsort on float32 scores: " + _TIE_UNREPRODUCIBLE),
    ties_reproducible=False,
    keywords={**_TREC_KEYWORDS, "unjudged": "empty", "missing": "skip",
              "candidates": "recommended"},
    metrics=(
        # precision, recall, RR and AP count a relevant item as found only if its
        # float32 score is > 0 (torch.where(preds > 0, target, 0) before the top k),
        # while |R| and the empty check (retrieval/base.py, RetrievalMetric.compute:
        # `if not mini_target.sum()`) use the unfiltered target: score_threshold=0.
        # hit_rate.py, ndcg.py and r_precision.py do not filter.
        _Metric("precision", ("RetrievalPrecision",), _TM + "functional/retrieval/precision.py, "
                "retrieval_precision", keywords={"score_threshold": 0.0}),
        _Metric("recall", ("RetrievalRecall",), _TM + "functional/retrieval/recall.py, "
                "retrieval_recall", keywords={"score_threshold": 0.0}),
        _Metric("hit", ("RetrievalHitRate",), _TM + "functional/retrieval/hit_rate.py, "
                "retrieval_hit_rate"),
        _Metric("rr", ("RetrievalMRR",), _TM + "functional/retrieval/reciprocal_rank.py, "
                "retrieval_reciprocal_rank", keywords={"score_threshold": 0.0}),
        _Metric("ap", ("RetrievalMAP",), _TM + "functional/retrieval/average_precision.py, "
                "retrieval_average_precision",
                keywords={"denominator": "retrieved", "score_threshold": 0.0}),
        # _dcg_sample_scores(target, preds, top_k, ignore_ties=False): scikit-learn's
        # average over the orders of each tied block, on float32 scores
        _Metric("ndcg", ("RetrievalNormalizedDCG",), _TM + "functional/retrieval/ndcg.py, "
                "retrieval_normalized_dcg, _dcg_sample_scores(ignore_ties=False)",
                keywords={"ties": "average"}, ties_reproducible=True,
                ties=("the average over the orders of each block of float32-equal scores "
                      "(_dcg_sample_scores with ignore_ties=False, as scikit-learn)")),
        _Metric("rprec", ("RetrievalRPrecision",), _TM + "functional/retrieval/r_precision.py, "
                "retrieval_r_precision", cutoff="none"),
    ),
    parameters={"top_k": lambda v: {},
                "adaptive_k": lambda v: {"precision_denominator": "retrieved" if v else "k"},
                "empty_target_action": lambda v: {"empty": {"neg": "zero", "skip": "nan",
                                                            "pos": "one"}[v]}},
    free=("precision_denominator", "empty"), score_dtype="float32",
    note=("torchmetrics scores the items it is given (the preset: candidates='recommended', "
          "the judgements of listed items only); relevant items a list lacks count only "
          "when they are passed to it, with scores below the list, and then belong in the "
          "recommendations given to this library too. AP, precision, recall and RR treat an "
          "item scored <= 0 as not found (torch.where(preds > 0, target, 0)) but keep it "
          "among the relevant items: score_threshold=0 (the per-list functions apply it "
          "when they are given scores=). torchmetrics refuses a graded target in every "
          "metric but RetrievalNormalizedDCG (utilities/checks.py, "
          "_check_retrieval_target_and_prediction_types: \"`target` must contain `binary` "
          "values\"): it is given grade >= relevance_level there, which the preset "
          "computes from the graded truth table itself; NDCG takes the grades")))

_SK = "scikit-learn 1.9.1, sklearn/metrics/_ranking.py, "
_add(_Preset(
    peer="sklearn", version="1.9.1", repository="https://github.com/scikit-learn/scikit-learn",
    ties_note=("ndcg_score and dcg_score average over the orders of each tied block "
               "(ignore_ties=False, _tie_averaged_dcg); average_precision_score makes a "
               "tied block one threshold"),
    ties_reproducible=True,
    keywords={**_TREC_KEYWORDS, "unjudged": "empty", "missing": "skip",
              "candidates": "recommended"},
    metrics=(
        _Metric("ndcg", ("ndcg_score",), _SK + "ndcg_score, _tie_averaged_dcg",
                keywords={"ties": "average"}, cutoff="optional"),
        _Metric("dcg", ("dcg_score",), _SK + "dcg_score, _tie_averaged_dcg",
                keywords={"ties": "average"}, cutoff="optional"),
        _Metric("ap", ("average_precision_score",), _SK + "average_precision_score, "
                "_binary_clf_curve", keywords={"ties": "block"}, cutoff="none"),
        _Metric("ap", ("label_ranking_average_precision_score",),
                _SK + "label_ranking_average_precision_score",
                # scikit-learn gives 1.0 to a user with no relevant label
                keywords={"ties": "block", "empty": "one"}, cutoff="none",
                ties="one threshold per tied block (a tied block counts at its last rank)"),
    ),
    parameters={"ignore_ties": lambda v: {"ties": "item_desc"} if v else {}},
    free=("ties",),
    note=("scikit-learn scores the items it is given (the preset: candidates='recommended', "
          "the judgements of listed items only); relevant items a list lacks count only "
          "when they are passed to it, with scores below the list, and then belong in the "
          "recommendations given to this library too")))

#: Peer name -> (version the preset was checked against, repository).
PEERS = MappingProxyType({name: (p.version, p.repository) for name, p in _PRESETS.items()})

_NAME = re.compile(r"^(?P<base>.+?)(?:@(?P<k>[0-9]+))?(?:-l(?P<level>[0-9]+))?$")
# A metric with the peer's own options, in call syntax (ir-measures writes its
# measures so): Measure(option=value, ...)@k
_CALL_NAME = re.compile(r"^(?P<base>[A-Za-z_][A-Za-z0-9_-]*)\((?P<args>.*)\)"
                        r"(?:@(?P<k>[0-9]+))?(?:-l(?P<level>[0-9]+))?$")
_TREC_CUT = re.compile(r"^(?P<base>p|recall|success|map_cut|ndcg_cut)_(?P<k>[0-9]+)$")


def _preset(peer) -> _Preset:
    if not isinstance(peer, str):
        raise TypeError(f"convention must be a peer name (a string); got "
                        f"{type(peer).__name__}")
    try:
        return _PRESETS[peer]
    except KeyError:
        raise ValueError(f"unknown convention {show(peer)}; use one of "
                         f"{', '.join(sorted(_PRESETS))}") from None


def _find(preset: _Preset, name: str):
    """(metric entry, k, peer options implied by the name) for a metric name."""
    if not isinstance(name, str):
        raise TypeError(f"metric names must be strings; got {type(name).__name__} "
                        f"{show(name)}")
    lowered = name.strip().lower()
    implied = {}
    cut = _TREC_CUT.match(lowered)
    call = _CALL_NAME.match(name.strip())
    if call:
        base = call.group("base").lower()
        k = None if call.group("k") is None else int(call.group("k"))
        implied = _call_args(name, call.group("args"))
        if call.group("level") is not None:
            implied["rel_lvl"] = int(call.group("level"))
    elif cut:
        base, k = cut.group("base"), int(cut.group("k"))
    else:
        match = _NAME.match(lowered)
        if match is None:
            raise ValueError(f"convention {show(preset.peer)} has no metric {show(name)}")
        base = match.group("base")
        k = None if match.group("k") is None else int(match.group("k"))
        if match.group("level") is not None:
            implied["rel_lvl"] = int(match.group("level"))
    for entry in preset.metrics:  # the peer's own vocabulary first
        if base in (n.lower() for n in entry.names):
            return entry, k, implied
    try:
        kind, k2 = registry.parse_metric(base if k is None else f"{base}@{k}")
    except ValueError:
        kind, k2 = None, None
    for entry in preset.metrics:  # then ours: the peer's first metric of that kind
        if kind is not None and entry.kind == kind:
            return entry, k2, implied
    names = sorted({n for e in preset.metrics for n in e.names})
    hint = did_you_mean(base, {n.lower(): n for n in names},
                        suffix="" if k is None else f"@{k}")
    raise ValueError(f"convention {show(preset.peer)} has no metric {show(name)} (a metric "
                     f"{preset.peer} does not define, or one the preset does not cover); "
                     f"its metrics are {', '.join(names)}" + (f"; {hint}" if hint else ""))


def _call_args(name: str, text: str) -> dict:
    """``rel=2, judged_only=True, gains={2: 3}`` as a dict (Python literals only)."""
    import ast

    try:
        call = ast.parse(f"f({text})", mode="eval").body
        if call.args:
            raise ValueError
        return {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except (SyntaxError, ValueError, TypeError):
        raise ValueError(f"metric {show(name)}: cannot read the options {show(text)}; write "
                         "them as option=value, e.g. 'MAP(divide_by_k=True)@10'") from None


def _resolve(peer, name, options=None) -> dict:
    """Everything :func:`describe_convention` reports, for one metric name."""
    preset = _preset(peer)
    entry, k, implied = _find(preset, name)
    if entry.cutoff == "required" and k is None:
        raise ValueError(f"{preset.peer}'s {entry.names[0]} needs a cut-off, such as "
                         f"'{name}@10'")
    if entry.cutoff == "none" and k is not None:
        raise ValueError(f"{preset.peer}'s {entry.names[0]} takes no cut-off")
    opts = {**implied, **(options or {})}
    if preset.peer == "ir_measures" and entry.kind == "num_ret" and opts.get("rel") is not None:
        # NumRet(rel=r) counts the retrieved items of grade >= r: num_rel_ret
        entry = next(e for e in preset.metrics if e.kind == "num_rel_ret")
    keywords = {**preset.keywords, **entry.keywords}
    score_dtype = preset.score_dtype
    ties_note = entry.ties or preset.ties_note
    if preset.peer == "ir_measures" and entry.kind == "rr" and k is not None:
        # RR@k is answered by the msmarco provider: float64, ids ascending
        keywords["ties"], score_dtype = "item_asc", None
        ties_note = ("provider msmarco (ir_measures/providers/msmarco_provider.py): score "
                     "descending, then id as text ascending")
    applied, by_options = {}, {}
    for option, value in opts.items():
        if option not in preset.parameters:
            raise ValueError(f"{preset.peer} has no option {show(option)} here; its options "
                             f"are {', '.join(sorted(preset.parameters)) or 'none'}")
        changes = preset.parameters[option](value)
        applied[option] = value
        by_options.update(changes)  # what the metric's name sets (see _caller_keyword)
        keywords.update(changes)
    if keywords.get("relevance_col", "") is _GRADES:
        del keywords["relevance_col"]  # the caller's grade column (see _score_type)
    if "rel_lvl" in applied and entry.kind == "ndcg":
        # ranx/metrics/ndcg.py _dcg: clean_qrels(qrels, rel_lvl) drops the grades below
        # the level from DCG and ideal DCG; the others keep their gain
        keywords["min_grade"] = applied["rel_lvl"]
        by_options["min_grade"] = applied["rel_lvl"]
    metric = _EVALUATE_NAME[entry.kind] + ("" if k is None else f"@{k}")
    ties_ok = preset.ties_reproducible if entry.ties_reproducible is None \
        else entry.ties_reproducible
    if preset.peer == "sklearn" and applied.get("ignore_ties"):
        ties_ok = False
    return {"peer": preset.peer, "peer_version": preset.version, "metric": metric,
            "peer_metric": entry.names[0], "keywords": keywords,
            "score_dtype": score_dtype, "source": entry.source,
            "ties": ties_note, "ties_reproducible": ties_ok,
            "options": applied, "option_keywords": by_options, "note": preset.note}


def describe_convention(peer: str, metric: str, **options) -> dict:
    """The keywords with which this library computes ``metric`` as ``peer`` does.

    Parameters
    ----------
    peer : str
        One of ``"trec_eval"``, ``"pytrec_eval"``, ``"ranx"``,
        ``"recommenders"``, ``"recbole"``, ``"torchmetrics"``, ``"sklearn"``,
        ``"rectools"``, ``"ir_measures"`` (see ``metrics_lib.PEERS``).
    metric : str
        A metric of that peer, in the peer's own spelling (``"ndcg_burges@10"``
        for ranx, ``"P_10"`` for trec_eval, ``"RetrievalMAP@10"`` for
        torchmetrics, ``"NDCG@10"`` for RecTools) or in this library's
        (``"ndcg@10"``: the peer's first metric of that kind). ranx's
        ``-lN`` suffix sets its relevance level.
    **options
        The peer's own options for the metric, by the peer's name
        (``empty_target_action="skip"`` for torchmetrics,
        ``divide_by_k=True`` for RecTools, ``rel=2`` for ir-measures,
        ``relevance_level=2`` or ``judged_docs_only_flag=True`` for
        trec_eval, ...).

    Returns
    -------
    dict
        ``metric`` (the name :func:`evaluate` computes), ``keywords`` (the
        keyword values of :func:`evaluate`), ``score_dtype`` (``"float32"``
        when the peer compares scores in single precision, else ``None``),
        ``source`` (the peer's file and function), ``ties`` and
        ``ties_reproducible`` (whether the peer's order of tied scores can
        be reproduced; when it cannot, the values agree on untied scores
        only), ``note`` (what the peer must be given for the values to
        agree), ``peer``, ``peer_version``, ``peer_metric``, ``options``
        and ``option_keywords`` (the keywords those options set).

    Raises
    ------
    ValueError
        An unknown peer, a metric the peer does not define, a missing or
        superfluous cut-off, or an option the peer does not have.

    See Also
    --------
    evaluate : ``evaluate(..., convention=peer)`` applies these keywords.

    Notes
    -----
    The presets were checked against the per-user values of the peer
    versions in ``metrics_lib.PEERS`` on a seeded corpus with ties, graded
    judgements, short lists and users on one side only
    (``benchmarks/peers/``). Where a peer's order of tied scores is an
    implementation accident (a quicksort, ``torch.topk``), the preset
    orders ties as trec_eval does, and the description says so.

    ``evaluate(..., convention=peer)`` and the per-list functions'
    ``convention=`` use these keywords for every keyword the caller does
    not pass. A keyword passed, at any value (its default included), is
    never ignored: if it stands for one of the peer's own options
    (trec_eval's ``missing``, its ``-c``; RecTools' ``denominator``, its
    ``divide_by_k``) it sets that option, unless the metric's name sets it
    otherwise; if it equals the preset's value it is accepted; any other
    raises ``ValueError`` naming the keyword and both values.

    References
    ----------
    .. [1] The peers' repositories and versions are in ``metrics_lib.PEERS``; the
       per-user values checked against them are in ``benchmarks/peers/golden``
       of this project's repository.

    Examples
    --------
    >>> from metrics_lib import describe_convention
    >>> d = describe_convention("ranx", "ndcg_burges@10")
    >>> d["metric"], d["keywords"]["gain"], d["ties_reproducible"]
    ('ndcg@10', 'exponential', False)
    >>> describe_convention("rectools", "MAP@10", divide_by_k=True)["keywords"]["denominator"]
    'k'
    """
    return _resolve(peer, metric, options)


def convention_metrics(peer: str) -> list[str]:
    """The metric names ``peer``'s preset covers, in the peer's own spelling.

    Parameters
    ----------
    peer : str
        A key of ``metrics_lib.PEERS``.

    Returns
    -------
    list of str
        The peer's names (without cut-off), in the order of the preset.

    Notes
    -----
    A metric the peer defines but the preset does not cover (such as ranx's
    ``bpref``) is refused by ``evaluate(..., convention=peer)``: only the
    metrics checked against the peer's own values are offered.

    References
    ----------
    .. [1] The peers' repositories and versions are in ``metrics_lib.PEERS``; the
       per-user values checked against them are in ``benchmarks/peers/golden``
       of this project's repository.

    Examples
    --------
    >>> from metrics_lib import convention_metrics
    >>> convention_metrics("ranx")[:3]
    ['hits', 'hit_rate', 'precision']
    """
    return [entry.names[0] for entry in _preset(peer).metrics]


def _evaluate_with_convention(evaluate, given: dict, passed: set):
    """``evaluate(**given)`` with ``given["convention"]`` applied.

    ``given`` holds every argument (defaults filled in), ``passed`` the names
    the caller wrote. A keyword not passed is the preset's; a keyword passed
    follows :func:`_caller_keyword` (at any value: issue 22 found
    ``missing="zero"`` dropped because it equals the default). Metrics whose
    keywords differ are computed by separate calls and joined.
    """
    import inspect

    import numpy as np
    import pandas as pd

    peer = given.pop("convention")
    preset = _preset(peer)
    defaults = {name: p.default for name, p in inspect.signature(evaluate).parameters.items()
                if p.default is not inspect.Parameter.empty}
    metrics = given.pop("metrics")
    names = [metrics] if isinstance(metrics, str) else list(metrics)
    if not names:
        raise ValueError("metrics is empty: name at least one metric")
    if len(set(names)) != len(names):
        raise ValueError("a metric is listed twice")
    explicit = {key: given[key] for key in passed if key in defaults and key != "convention"}
    groups, described = {}, {}
    for name in names:
        info = _resolve(peer, name)
        keywords = dict(info["keywords"])
        for key, value in explicit.items():
            if key not in keywords:  # a column name or n_jobs: not a convention
                continue
            keywords[key] = _caller_keyword(preset, name, key, value, keywords[key],
                                            info["option_keywords"])
        for key, value in list(keywords.items()):
            if key not in defaults:
                if _same(value, _NEUTRAL.get(key, object())):
                    del keywords[key]  # this version of evaluate has no such keyword
                else:
                    raise ValueError(
                        f"convention {show(peer)} computes {show(name)} with "
                        f"{key}={show(value)}, a "
                        "keyword this version of evaluate does not have")
        info["keywords"] = keywords
        described[name] = info
        key = (info["score_dtype"], repr(sorted(keywords.items(), key=lambda kv: kv[0])))
        groups.setdefault(key, []).append(name)
    original = given.pop("recommendations")
    if not isinstance(original, pd.DataFrame) or not isinstance(
            given.get("truth"), pd.DataFrame):
        raise TypeError("convention= takes pandas DataFrames (for Polars, Arrow or Dask "
                        "tables, compute the keywords with describe_convention and pass "
                        "them to evaluate)")
    frames = []
    for (score_dtype, _), members in groups.items():
        recommendations = original
        score_col = given.get("score_col", "score")
        if (score_dtype == "float32" and given.get("rank_col") is None
                and score_col in original.columns):
            # the peer stores scores in single precision: equal there, tied here
            try:
                as32 = np.asarray(original[score_col], dtype=np.float64).astype(np.float32)
            except (TypeError, ValueError):
                as32 = None  # evaluate's own check names the problem
            if as32 is not None:
                recommendations = original.assign(**{score_col: as32.astype(np.float64)})
        keywords = described[members[0]]["keywords"]
        unique = list(dict.fromkeys(described[name]["metric"] for name in members))
        call = {**given, **keywords, "metrics": unique}
        frame = evaluate(recommendations, **call)
        frames.append(pd.DataFrame({name: frame[described[name]["metric"]]
                                    for name in members}, index=frame.index))
    result = frames[0] if len(frames) == 1 else pd.concat(frames, axis=1)
    result = result[names]
    result.attrs["convention"] = {
        "peer": preset.peer, "peer_version": preset.version,
        "score_dtype": preset.score_dtype,
        "metrics": {name: {key: info[key] for key in
                           ("metric", "keywords", "score_dtype", "source", "ties",
                            "ties_reproducible")}
                    for name, info in described.items()}}
    return result


def _caller_keyword(preset, name, key, value, preset_value, by_options, renamed=None):
    """The value of keyword ``key`` that the caller passed with ``convention=``.

    The rule of :func:`evaluate` and of the per-list functions: a value equal
    to the preset's is accepted; a keyword that stands for one of the peer's
    own options (``preset.free``) wins, unless the metric's name sets that
    option otherwise; anything else is refused, never ignored. ``renamed`` is
    the per-list function's name of ``key`` (``denominator``), for messages.
    """
    shown = renamed or key
    if _same(value, preset_value):
        return value  # the caller's own value, so that evaluate checks its type
    if key in by_options:
        raise ValueError(
            f"metric {show(name)} of convention {show(preset.peer)} sets {shown}="
            f"{show(preset_value)} by its name; {shown}={show(value)} contradicts it (drop "
            "the keyword, or change the metric's name)")
    if key in preset.free:
        return value
    raise ValueError(
        f"convention {show(preset.peer)} computes {show(name)} with "
        f"{shown}={show(preset_value)}; "
        f"{shown}={show(value)} contradicts it (drop the keyword to keep the preset's value, "
        "or drop convention= and pass every keyword yourself: describe_convention "
        "lists them)")


def _same(a, b) -> bool:
    """Equal keyword values (``1 == 1.0``; a mapping equals only a mapping)."""
    if isinstance(a, dict) or isinstance(b, dict):
        return isinstance(a, dict) and isinstance(b, dict) and a == b
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


# Keywords that matter only for some metric kinds (the table leaves the others
# out): those a metric declares in the registry (Metric.keywords).
_RELEVANT = {}
for _metric in registry.metrics():
    for _key in _metric.keywords:
        _RELEVANT[_key] = _RELEVANT.get(_key, ()) + (_metric.name,)
del _metric, _key


def convention_table():
    """Every preset as a table: one row per (peer, metric).

    Parameters
    ----------
    None

    Returns
    -------
    pandas.DataFrame
        Columns ``peer``, ``peer_version``, ``peer_metric`` (the peer's own
        name), ``metric`` (this library's name; ``@k`` where the peer needs a
        cut-off), ``keywords`` (those that differ from :func:`evaluate`'s
        defaults, as ``key=value`` text), ``score_dtype``, ``ties``,
        ``ties_reproducible``, ``source`` and ``note``.

    Notes
    -----
    The conventions appendix of the book shows this table next to values
    computed by the peers themselves.

    References
    ----------
    .. [1] The peers' repositories and versions are in ``metrics_lib.PEERS``; the
       per-user values checked against them are in ``benchmarks/peers/golden``
       of this project's repository.

    Examples
    --------
    >>> from metrics_lib import convention_table
    >>> table = convention_table()
    >>> table.loc[table.peer_metric == "ndcg_burges", "keywords"].iloc[0]
    "gain='exponential', missing='zero'"
    """
    import inspect

    import pandas as pd

    from .evaluate import evaluate

    defaults = {name: p.default for name, p in inspect.signature(evaluate).parameters.items()
                if p.default is not inspect.Parameter.empty}
    defaults = {**_NEUTRAL, **defaults}
    rows = []
    for peer, preset in _PRESETS.items():
        for entry in preset.metrics:
            name = entry.names[0] + ("@k" if entry.cutoff == "required" else "")
            info = _resolve(peer, entry.names[0] + ("@10" if entry.cutoff == "required"
                                                    else ""))
            keywords = ", ".join(f"{key}={show(value)}" for key, value in
                                 sorted(info["keywords"].items())
                                 if not _same(value, defaults.get(key, object()))
                                 and entry.kind in _RELEVANT.get(key, (entry.kind,)))
            if entry.cutoff == "optional":
                # a cut-off can change the keywords (ir-measures answers RR@k with
                # another provider, which orders ties otherwise): say so
                cut = _resolve(peer, entry.names[0] + "@10")
                changed = ", ".join(f"{key}={show(value)}" for key, value in
                                    sorted(cut["keywords"].items())
                                    if not _same(value, info["keywords"].get(key, object())))
                if cut["score_dtype"] != info["score_dtype"]:
                    changed += (", " if changed else "") + (
                        f"{cut['score_dtype'] or 'float64'} scores")
                if changed:
                    keywords += ("; " if keywords else "") + f"with a cut-off: {changed}"
            rows.append({"peer": peer, "peer_version": preset.version,
                         "peer_metric": entry.names[0],
                         "metric": _EVALUATE_NAME[entry.kind] + (
                             "@k" if entry.cutoff == "required" else ""),
                         "keywords": keywords, "score_dtype": info["score_dtype"],
                         "ties": info["ties"], "ties_reproducible": info["ties_reproducible"],
                         "source": entry.source, "note": info["note"]})
            del name
    return pd.DataFrame(rows)


# -- the per-list functions ---------------------------------------------------------

# per-list function -> (metric kind, {evaluate keyword: the function's keyword}),
# as each metric declares them in the registry
_PER_LIST = {metric.per_list.__name__: (metric.name, metric.per_list_keywords)
             for metric in registry.metrics() if metric.per_list is not None}
_CONVENTION_DOC = """    convention : str or None, default=None
        Compute the metric as another library does (``"trec_eval"``,
        ``"ranx"``, ``"sklearn"``, ...; see :func:`describe_convention`):
        the keywords of the metric that ``evaluate(..., convention=...)``
        computes for this library's name of it (``"ndcg"``: ranx's
        ``ndcg``, not ``ndcg_burges``) replace the defaults above.
        A keyword passed here, even at its default value, is never ignored:
        one that stands for one of the library's own options sets it, one
        equal to the library's value is accepted, any other raises
        ``ValueError``. The list is taken in the order given, which has no
        ties: a library's rule for ordering tied scores applies in
        :func:`evaluate`.
        A library's score threshold (torchmetrics: ``score_threshold=0``)
        applies only when ``scores`` are given.
"""


def _per_list_keywords(function, kind, renames, peer, k, given):
    """The function's keyword values under ``peer``'s preset (see with_convention).

    ``given`` holds the keywords the caller passed; each follows
    :func:`_caller_keyword`, compared with the value the function runs with
    under the preset (or with the preset's own value).
    """
    import inspect

    preset = _preset(peer)
    # the metric evaluate(..., convention=peer) computes for this library's name
    try:
        entry, _, _ = _find(preset, _EVALUATE_NAME[kind])
    except ValueError:
        raise ValueError(f"convention {show(peer)} has no metric of kind {show(kind)} "
                         f"({function.__name__}); its metrics are "
                         f"{', '.join(e.names[0] for e in preset.metrics)}") from None
    if entry.cutoff == "required" and k is None:
        raise ValueError(f"{peer}'s {entry.names[0]} needs a cut-off: pass k")
    if entry.cutoff == "none" and k is not None:
        raise ValueError(f"{peer}'s {entry.names[0]} takes no cut-off: pass k=None")
    info = _resolve(peer, entry.names[0] + ("" if k is None else f"@{k}"))
    parameters = inspect.signature(function).parameters
    defaults = {name: p.default for name, p in parameters.items()
                if p.default is not inspect.Parameter.empty}
    out, preset_values, sources = {}, {}, {}
    for key, value in info["keywords"].items():
        target = renames.get(key, key if key not in _RENAMED_AWAY else None)
        if target is None or target not in parameters:
            continue
        if key == "denominator" and kind != "ap":
            continue
        preset_values[target], sources[target] = value, key
        if key == "ties":  # evaluate's orders of equal scores; see below
            continue
        if key == "score_threshold" and given.get("scores") is None:
            # a list without scores has no score to compare with the threshold
            continue
        out[target] = value
    ties = info["keywords"].get("ties")
    if ties in ("average", "block") and given.get("scores") is not None:
        # without scores a list has no ties: its order is the only order
        if "ties" not in parameters:
            raise ValueError(f"convention {show(peer)} treats tied scores with "
                             f"ties={show(ties)} for {entry.names[0]}, which "
                             f"{function.__name__} cannot do in this version; use "
                             "evaluate(..., convention=...)")
        out["ties"] = ties
    for key, value in given.items():
        if key == "scores" or key not in defaults:  # data, or not a keyword: let it say
            out[key] = value
            continue
        # what the function runs with under the preset (ties="input" where the
        # preset's order of tied scores does not apply), or the preset's own value
        applied = out.get(key, defaults[key])
        if key in preset_values and _same(value, preset_values[key]):
            applied = preset_values[key]
        out[key] = _caller_keyword(preset, function.__name__, sources.get(key, key), value,
                                   applied, info["option_keywords"], renamed=key)
    return out


def _every_row_relevant(peer, kind, k) -> bool:
    """Whether ``peer``'s metric of ``kind`` reads no grade (relevance_col=None)."""
    entry, _, _ = _find(_preset(peer), _EVALUATE_NAME[kind])
    info = _resolve(peer, entry.names[0] + ("" if k is None else f"@{k}"))
    return "relevance_col" in info["keywords"] and info["keywords"]["relevance_col"] is None


# evaluate keywords whose per-list counterpart has another name (see _PER_LIST)
_RENAMED_AWAY = ("precision_denominator", "recall_denominator")


def with_convention(function):
    """``function`` with a ``convention=`` keyword (see :func:`describe_convention`).

    The wrapper's ``**kwargs`` are exactly the keywords the caller passed,
    each of which :func:`_per_list_keywords` applies or refuses (never drops).
    """
    import functools
    import inspect

    kind, renames = _PER_LIST[function.__name__]
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(recommended, relevant, k=None, *args, convention=None, **kwargs):
        if convention is None:
            return function(recommended, relevant, k, *args, **kwargs)
        if args:
            raise TypeError(f"{function.__name__}() takes the list, the relevant "
                            "items and k positionally; pass the rest by name")
        keywords = _per_list_keywords(function, kind, renames, convention, k, kwargs)
        if isinstance(relevant, Mapping) and _every_row_relevant(convention, kind, k):
            # the peer counts every judged item as relevant, whatever its grade
            relevant = dict.fromkeys(relevant, 1)
        if (keywords.get("ties") in ("average", "block")
                and keywords.get("candidates") == "recommended"):
            # the closed forms take no candidates= keyword: keep the judgements of
            # the listed items, which is what candidates="recommended" means
            listed = set(recommended)
            if isinstance(relevant, dict):
                relevant = {item: grade for item, grade in relevant.items()
                            if item in listed}
            else:
                relevant = [item for item in relevant if item in listed]
            del keywords["candidates"]
        return function(recommended, relevant, k, **keywords)

    parameters = list(signature.parameters.values())
    parameters.append(inspect.Parameter("convention", inspect.Parameter.KEYWORD_ONLY,
                                        default=None))
    wrapper.__signature__ = signature.replace(parameters=parameters)
    doc = function.__doc__ or ""
    marker = "\n    Returns\n    -------\n"
    if marker in doc:
        head, tail = doc.split(marker, 1)
        wrapper.__doc__ = head.rstrip("\n") + "\n" + _CONVENTION_DOC + marker + tail
    return wrapper
