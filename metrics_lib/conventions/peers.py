"""The presets: for each peer library, its version, its metrics and their keywords.

Data only: one ``_Preset`` per peer, each metric of it a ``_Metric`` naming
the peer's file and function; :mod:`metrics_lib.conventions.resolve` reads
them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType

from .._validation import show


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
    # a parameter written in the metric's name: (peer option, our option, peer default);
    # rbp(p=0.9) from trec_eval's rbp.p=0.9, set_f(beta=1) from set_F.1.0
    parameter: tuple = ()
    score_dtype: str | None = "preset"  # "preset": the peer's; None: float64
    # refuse(k, peer options) -> "" or why no keyword reproduces the peer there
    refuse: object = None
    example: str = ""         # a name that resolves, for the table (default names[0])
    note: str = ""            # said after the preset's note (describe_convention, table)


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
            "no_hit": "zero", "candidates": "all", "score_threshold": None,
            "residual_tail": "unjudged", "rank_weights": "equal",
            "trec_eval_version": 10}

_TREC_KEYWORDS = {"ties": "item_desc", "missing": "skip", "unjudged": "skip",
                  "empty": "zero", "relevance_level": 1, "gain": "linear",
                  "ideal": "judged", "denominator": "relevant", "log_base": 2,
                  "judged_only": False, "precision_denominator": "k",
                  "recall_denominator": "relevant", "min_grade": None, "truncate": None,
                  "no_hit": "zero", "candidates": "all", "score_threshold": None,
                  "residual_tail": "unjudged", "rank_weights": "equal",
                  "trec_eval_version": 10}

# trec_eval 9.0.8, the code pytrec_eval 0.5 compiles (its setup.py fetches the
# v9.0.8 archive), differs from 10.0 in iprec_at_recall's target item
# (m_iprec_at_recall.c: (long) (p * R + 0.9), then lround(p * R)) and in reading
# scores as C floats (trec_format.h, TEXT_RESULTS.sim): score_dtype="float32"
_TREC9_KEYWORDS = {**_TREC_KEYWORDS, "trec_eval_version": 9}

def _trec_measure(prefix: str, kind: str, measure: str, cutoff: str, **more) -> _Metric:
    """A trec_eval measure that ``m_<measure>.c`` computes in ``te_calc_<measure>``."""
    return _Metric(kind, (measure,), f"{prefix}m_{measure}.c, te_calc_{measure}",
                   cutoff=cutoff, **more)


def _trec_metrics(prefix: str) -> tuple:
    """The measures of both trec_eval presets (10.0, and pytrec_eval's 9.0.8 code)."""
    return (
        _trec_measure(prefix, "precision", "P", "required"),
        _trec_measure(prefix, "recall", "recall", "required"),
        _trec_measure(prefix, "hit", "success", "required"),
        _trec_measure(prefix, "rr", "recip_rank", "none"),
        _Metric("ap", ("map", "map_cut"),
                f"{prefix}m_map.c, te_calc_map; m_map_cut.c, te_calc_map_cut"),
        _Metric("ndcg", ("ndcg", "ndcg_cut"),
                f"{prefix}m_ndcg.c, te_calc_ndcg; m_ndcg_cut.c, te_calc_ndcg_cut"),
        _trec_measure(prefix, "rprec", "Rprec", "none"),
        _trec_measure(prefix, "num_rel_ret", "num_rel_ret", "none"),
        _trec_measure(prefix, "num_ret", "num_ret", "none"),
        _trec_measure(prefix, "num_rel", "num_rel", "none"),
        _trec_measure(prefix, "iprec_at_recall", "iprec_at_recall", "optional"),
    )


def _no_list_residual(k, options) -> str:
    """trec_eval's rbp_resid with -c: a user without a list is not reproduced."""
    if options.get("c"):
        return ("with -c trec_eval 10.0 gives a user without a list rbp_resid 1.0: it "
                "scores the user as an empty list and then fails to clear the value "
                "(trec_eval.c compares the value's name with \"rbp_resid\", which "
                "\"rbp_resid_p=0.9\" is not); evaluate follows missing= for such users. "
                "Leave -c out (users without a list are then skipped)")
    return ""


def _trec_set_metrics(prefix: str) -> tuple:
    """trec_eval's set measures (m_set_*.c, m_rel_P.c; the same in 9.0.8 and 10.0)."""
    return (
        _trec_measure(prefix, "set_p", "set_P", "none"),
        _trec_measure(prefix, "set_recall", "set_recall", "none"),
        # pytrec_eval reports set_F.0.5 as "set_F": the name keeps no beta
        _trec_measure(prefix, "set_f", "set_F", "none", parameter=("beta", "beta", 1.0)),
        _trec_measure(prefix, "set_map", "set_map", "none"),
        _Metric("set_relative_p", ("set_relative_P",),
                f"{prefix}m_set_rel_P.c, te_calc_set_relative_P", cutoff="none"),
        _Metric("relative_p", ("relative_P",), f"{prefix}m_rel_P.c, te_calc_rel_P",
                cutoff="required"),
        _trec_measure(prefix, "num_nonrel_judged_ret", "num_nonrel_judged_ret", "none"),
    )


def _trec10_metrics(prefix: str) -> tuple:
    """trec_eval 10.0's measures of issue 29 (each checked against the binary)."""
    return (
        # the gains: the grade over max(1, largest judged grade), as the binary
        # behaves (m_rbp.c rescales with min and max that it never initialises)
        _trec_measure(prefix, "rbp", "rbp", "none", parameter=("p", "p", 0.9)),
        _trec_measure(prefix, "rbp_resid", "rbp_resid", "none", parameter=("p", "p", 0.9),
                      refuse=_no_list_residual, note=_no_list_residual(None, {"c": 1})),
    ) + _trec_set_metrics(prefix)


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
    metrics=_trec_metrics("trec_eval 10.0, ") + _trec10_metrics("trec_eval 10.0, "),
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
    ties_reproducible=True, keywords=dict(_TREC9_KEYWORDS),
    metrics=(_trec_metrics("pytrec_eval-terrier 0.5.11 (trec_eval 9.0.8 code), ")
             + _trec_set_metrics("pytrec_eval-terrier 0.5.11 (trec_eval 9.0.8 code), ")),
    parameters=_trec_parameters(), free=("relevance_level", "judged_only"),
    score_dtype="float32"))

_IRM = "ir-measures 0.4.3, "

# ir-measures' own providers (not pytrec_eval) for the measures of issue 29: each
# sorts the run by score as a Python float (float64)
_GDEVAL = ("gdeval.pl 1.2a, sub runOrder: score descending, then docno descending "
           "(ir_measures/providers/gdeval_provider.py runs the gdeval.pl it ships)")
_STABLE = ("score descending, tied items in the run's order (ir_measures/util.py, "
           "as_sorted_namedtuple_iter: a stable sorted(..., reverse=True)): ties='input'")
_DOCID_ASC = "score descending, then document id as text ascending: ties='item_asc'"


def _cwl_rbp(k, options) -> str:
    """RBP: ir-measures 0.4.3 has a provider for it only with rel= (cwl_eval)."""
    if options.get("rel") is None:
        return ("ir-measures 0.4.3 computes RBP only with rel= (its cwl_eval provider, "
                "providers/cwl_eval.py: _RBP(rel=Any(required=True)); no other provider "
                "of its default pipeline has RBP); write it as RBP(p=0.8, rel=1)")
    return ""


def _ndeval_err_ia(k, options) -> str:
    """ERR-IA@1: ndeval 4.5 skips its normalisation at rank 1."""
    if k == 1:
        return ("ndeval 4.5 (pyndeval 0.0.8, ndeval.c) divides ERR-IA@k by the number of "
                "intents only from rank 2 on (its normalising loop starts at rank 2): its "
                "ERR-IA@1 is err_ia@1 times the user's number of intents, which no keyword "
                "gives; use k >= 2")
    return ""


def _ndeval_alpha(k, options) -> str:
    if options.get("alpha", 0.5) != 0.5:
        return ("evaluate's alpha_ndcg uses ndeval's alpha = 0.5; for another alpha use "
                "the per-list alpha_ndcg_at_k(..., alpha=...)")
    return ""


_NDEVAL = _IRM + "ir_measures/providers/pyndeval_provider.py (pyndeval 0.0.8, ndeval 4.5), "
_NDEVAL_NOTE = ("Ask ir-measures 0.4.3 for one rel= (and one judged_only=) per call: it runs "
                "one pyndeval invocation per rel and judged_only and hands them one iterator "
                "over the run (providers/pyndeval_provider.py, PyNdEvalEvaluator._iter_calc), "
                "which the first uses up; the later invocations score every user 0.")

_IRM_ISSUE29 = (
    _Metric("err", ("ERR",), _IRM + "ir_measures/providers/gdeval_provider.py (gdeval.pl "
            "1.2a, sub err, $MAX_JUDGMENT = 4)", cutoff="required", score_dtype=None,
            ties_reproducible=True, ties=_GDEVAL),
    # cwl_eval 1.0.12: a grade at or above rel is gain 1, the others 0
    _Metric("rbp", ("RBP",), _IRM + "ir_measures/providers/cwl_eval.py (cwl_eval 1.0.12, "
            "RBP)", keywords={"gain": "binary", "ties": "input"}, cutoff="none",
            parameter=("p", "p", 0.8), score_dtype=None, ties_reproducible=True,
            ties=_STABLE, refuse=_cwl_rbp, example="RBP(rel=1)", note=_cwl_rbp(None, {})),
    # the pytrec_eval provider (trec_eval 9.0.8's m_set_*.c, float32 scores)
    _Metric("set_p", ("SetP",), _IRM + "ir_measures/measures/set_measures.py, _SetP "
            "(pytrec_eval set_P)", cutoff="none"),
    _Metric("set_relative_p", ("SetRelP",), _IRM + "ir_measures/measures/set_measures.py, "
            "SetP(relative=True) (pytrec_eval set_relative_P)", cutoff="none"),
    _Metric("set_recall", ("SetR",), _IRM + "ir_measures/measures/set_measures.py, _SetR "
            "(pytrec_eval set_recall)", cutoff="none"),
    _Metric("set_f", ("SetF",), _IRM + "ir_measures/measures/set_measures.py, _SetF "
            "(pytrec_eval set_F)", cutoff="none", parameter=("beta", "beta", 1.0)),
    _Metric("set_map", ("SetAP",), _IRM + "ir_measures/measures/set_measures.py, _SetAP "
            "(pytrec_eval set_map)", cutoff="none"),
    _Metric("judged", ("Judged",), _IRM + "ir_measures/providers/judged_provider.py",
            keywords={"ties": "item_asc"}, score_dtype=None, ties_reproducible=True,
            ties=_DOCID_ASC),
    _Metric("alpha_ndcg", ("alpha_nDCG",), _NDEVAL + "alpha-nDCG (greedy ideal)",
            keywords={"ties": "item_asc"}, cutoff="required", score_dtype=None,
            ties_reproducible=True, ties=_DOCID_ASC, refuse=_ndeval_alpha, note=_NDEVAL_NOTE),
    _Metric("err_ia", ("ERR_IA",), _NDEVAL + "ERR-IA", keywords={"ties": "item_asc"},
            cutoff="required", score_dtype=None, ties_reproducible=True, ties=_DOCID_ASC,
            refuse=_ndeval_err_ia, note=_ndeval_err_ia(1, {}) + ". " + _NDEVAL_NOTE),
    _Metric("p_ia", ("P_IA",), _NDEVAL + "P-IA", keywords={"ties": "item_asc"},
            cutoff="required", score_dtype=None, ties_reproducible=True, ties=_DOCID_ASC,
            note=_NDEVAL_NOTE),
    _Metric("s_recall", ("StRecall",), _NDEVAL + "strec", keywords={"ties": "item_asc"},
            cutoff="required", score_dtype=None, ties_reproducible=True, ties=_DOCID_ASC,
            note=_NDEVAL_NOTE),
)

_add(_Preset(
    peer="ir_measures", version="0.4.3",
    repository="https://github.com/terrierteam/ir_measures",
    ties_note=("provider pytrec_eval (every measure but RR@k): trec_eval's order on float32 "
               "scores; provider msmarco (RR@k): score descending, then id as text "
               "ascending (ir_measures/providers/msmarco_provider.py)"),
    ties_reproducible=True,
    keywords={**_TREC9_KEYWORDS, "missing": "zero"},
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
    ) + _IRM_ISSUE29,
    parameters={"rel": lambda v: {"relevance_level": v},
                "judged_only": lambda v: {"judged_only": bool(v)},
                "gains": lambda v: {"gain": {int(g): float(x) for g, x in dict(v).items()}},
                "provider": lambda v: {}, "measure": lambda v: {},
                "alpha": lambda v: {},  # alpha_nDCG's, checked by _ndeval_alpha
                "relative": lambda v: {}},  # SetP(relative=True): SetRelP (resolve.py)
    free=("relevance_level", "judged_only", "gain"), score_dtype="float32"))

_RANX = "ranx 0.3.21, "


def _ranx_rbp(k, options) -> str:
    """ranx's rbp: the raw grade as gain, which no gain= of ours gives."""
    return ("ranx 0.3.21 (ranx/metrics/rank_biased_precision.py, _rank_biased_precision) "
            "gains the grade itself (weighted_hit_list[i] = qrels[j, 1], grades below "
            "rel_lvl dropped), so its RBP exceeds 1 on graded truth; gain='linear' "
            "(trec_eval's grade over max(1, largest grade)) agrees only where no grade "
            "exceeds 1, gain='binary' only on binary truth: the preset refuses rather than "
            "give another number")

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
        _Metric("rbp", ("rbp",), _RANX + "ranx/metrics/rank_biased_precision.py, "
                "_rank_biased_precision", cutoff="none", refuse=_ranx_rbp,
                parameter=("p", "p", None)),  # rbp.95: p = 0.95
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

