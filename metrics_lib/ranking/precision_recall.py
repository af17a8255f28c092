"""Precision, recall and F1 of the top ``k`` (trec_eval ``m_P.c``, ``m_recall.c``).

Definitions, for one user: ``h`` the relevant items (grade at or above
``relevance_level``) among the first ``k`` of the list, ``R`` the relevant
items judged, ``n`` the list's length.

* precision@k = ``h / k`` (trec_eval ``P_k``: a list shorter than ``k`` still
  divides by ``k``); ``denominator="min_k"`` divides by ``min(k, R)``,
  ``"retrieved"`` by ``min(k, n)``.
* recall@k = ``h / R``; ``denominator="min_k"`` divides by ``min(k, R)``.
* F1@k = ``2 P R / (P + R)``, 0 when both are 0.

Edge cases: ``R = 0`` (no relevant item) gives the ``empty`` policy (0 by
default, as trec_eval); without ``k`` the whole list counts.
"""

from __future__ import annotations

from .._validation import check_choice
from ._common import (_TREC_CUTOFFS, PRECISION_DENOMINATORS, RECALL_DENOMINATORS,
                      _binary_batch, _binary_inputs, _no_relevant, ordered_by_scores)
from ._docstrings import shared_parameters
from .registry import Metric, TrecMeasure, register


@shared_parameters
@ordered_by_scores("precision")
def precision_at_k(recommended, relevant, k=None, *, denominator="k",
                   relevance_level=1, empty="zero", judged_only=False,
                   truncate=None, candidates="all",
                   scores=None, ties="input", score_threshold=None):
    """Fraction of the top ``k`` recommendations that are relevant.

    Parameters
    ----------
    {{recommended_unique}}
    relevant : collection of hashable or mapping of hashable to float
        Relevant ids, or judged ids with their grades (>= 0).
    k : int or None, default=None
        Cut-off. ``None`` uses the whole list, so the denominator is
        ``len(recommended)``.
    denominator : {"k", "min_k", "retrieved"}, default="k"
        What the hits are divided by:

        - ``"k"``: ``k`` even when the list is shorter (trec_eval ``P_k``,
          ranx, RecBole, Recommenders, RecTools ``Precision``);
        - ``"min_k"``: ``min(k, |R|)``, so that a perfect list scores 1 when
          fewer than ``k`` items are relevant (RecTools 0.19.0
          ``rectools/metrics/classification.py``,
          ``Precision(r_precision=True)``);
        - ``"retrieved"``: ``min(k, len(recommended))``, the items actually
          shown (torchmetrics 1.9.0
          ``torchmetrics/functional/retrieval/precision.py``,
          ``retrieval_precision(adaptive_k=True)``).

        With ``k=None``, ``k`` stands for the list length.
    {{relevance_level}}
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        What to return when no item is relevant: ``0.0`` (trec_eval),
        ``nan`` (leave the user out of a later ``nanmean``), ``1.0``
        (``"one"``: torchmetrics ``empty_target_action="pos"``), or raise a
        ``ValueError``.
    {{judged_only truncate candidates scores ties score_threshold}}

    Returns
    -------
    float
        Precision in ``[0, 1]``.

    See Also
    --------
    recall_at_k, f1_at_k, hit_at_k

    Notes
    -----
    :math:`P@k = |\\{\\text{relevant in top } k\\}| / k`. As in trec_eval's
    ``P_k``, the denominator is ``k`` even when fewer than ``k`` items were
    recommended: the missing slots count as non-relevant. Libraries that
    divide by the list length instead (torchmetrics ``adaptive_k=True``)
    reward short lists.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] Manning, Raghavan and Schütze, *Introduction to Information
       Retrieval*, Cambridge University Press, 2008, ch. 8.
    .. [2] trec_eval, measure ``P``, https://github.com/usnistgov/trec_eval
    .. [3] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import precision_at_k
    >>> precision_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=3)
    0.6666666666666666
    >>> precision_at_k(["a"], {"a"}, k=2)  # short list: divides by k
    0.5
    >>> precision_at_k(["a"], {"a"}, k=2, denominator="retrieved")
    1.0
    >>> precision_at_k(["a", "x", "y"], {"a"}, k=3, denominator="min_k")
    1.0
    """
    check_choice("denominator", denominator, PRECISION_DENOMINATORS)
    hits, n_relevant, cutoff, n_items = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    if denominator == "min_k":
        cutoff = min(cutoff, n_relevant)
    elif denominator == "retrieved":
        cutoff = min(cutoff, n_items)
    if cutoff == 0:  # an empty list: nothing recommended, nothing right
        return 0.0
    return float(hits.sum() / cutoff)


@shared_parameters
@ordered_by_scores("recall")
def recall_at_k(recommended, relevant, k=None, *, denominator="relevant",
                relevance_level=1, empty="zero", judged_only=False, truncate=None,
                candidates="all",
                scores=None, ties="input", score_threshold=None):
    """Fraction of the relevant items that appear in the top ``k``.

    Parameters
    ----------
    {{recommended_unique relevant k}}
    denominator : {"relevant", "min_k"}, default="relevant"
        ``"relevant"``: all relevant items ``|R|`` (trec_eval and most
        libraries); ``"min_k"``: ``min(k, |R|)`` ("capped recall"; with
        ``k=None``, ``k`` stands for the list length).
    {{relevance_level}}
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when no item is relevant (the ratio is 0/0).
    {{judged_only truncate candidates scores ties score_threshold}}

    Returns
    -------
    float
        Recall in ``[0, 1]``.

    See Also
    --------
    precision_at_k, hit_at_k

    Notes
    -----
    :math:`R@k = |\\{\\text{relevant in top } k\\}| / |R|`, the denominator
    being all relevant items (trec_eval ``recall_k``, ranx, RecBole,
    Microsoft Recommenders). Some metric-learning code divides by
    ``min(k, |R|)`` ("capped recall") so that a perfect list scores 1 even
    when ``|R| > k``.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] trec_eval, measure ``recall``, https://github.com/usnistgov/trec_eval
    .. [2] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import recall_at_k
    >>> recall_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=3)
    0.5
    >>> recall_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=2, denominator="min_k")
    0.5
    """
    check_choice("denominator", denominator, RECALL_DENOMINATORS)
    hits, n_relevant, cutoff, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    divisor = n_relevant if denominator == "relevant" else min(cutoff, n_relevant)
    if divisor == 0:  # min_k on an empty list with k=None
        return 0.0
    return float(hits.sum() / divisor)


@shared_parameters
@ordered_by_scores("f1")
def f1_at_k(recommended, relevant, k=None, *, relevance_level=1, empty="zero",
            judged_only=False, truncate=None, candidates="all",
            scores=None, ties="input", score_threshold=None):
    """Harmonic mean of precision@k and recall@k.

    Parameters
    ----------
    {{recommended relevant k relevance_level empty judged_only truncate candidates scores ties score_threshold}}

    Returns
    -------
    float
        F1 in ``[0, 1]``; 0 when there is no hit.

    See Also
    --------
    precision_at_k, recall_at_k

    Notes
    -----
    :math:`F1@k = 2 P R / (P + R)` with ``P`` and ``R`` as in
    :func:`precision_at_k` and :func:`recall_at_k` (both trec_eval style).
    Equivalently ``2 * hits / (k + |R|)``.

    With ``scores``, equal scores are ties and ``ties`` ranks them (the
    expectation over tie orders, the tie group's last rank, or the tie
    bounds): see the notes of :mod:`metrics_lib.ranking`, which also say
    why the tie orders of ranx, ``torch.topk`` and ``np.argsort`` cannot be
    reproduced.

    References
    ----------
    .. [1] van Rijsbergen, *Information Retrieval*, 2nd ed., 1979, ch. 7.
    .. [2] McSherry and Najork, "Computing information retrieval performance
       measures efficiently in the presence of tied scores", ECIR 2008
       (``ties="average"``).

    Examples
    --------
    >>> from metrics_lib import f1_at_k
    >>> round(f1_at_k(["x", "a", "b"], {"a", "b", "c", "d"}, k=3), 4)
    0.5714
    """
    hits, n_relevant, cutoff, _ = _binary_inputs(
        recommended, relevant, k, relevance_level, empty, judged_only, truncate,
        candidates)
    if n_relevant == 0:
        return _no_relevant(empty)
    n_hits = int(hits.sum())
    if n_hits == 0:
        return 0.0
    return float(2 * n_hits / (cutoff + n_relevant))


# -- the declarations (metrics_lib/ranking/registry.py) -------------------------------

register(Metric(
    name="precision", aliases=("precision", "p", "prec"), per_list=precision_at_k,
    batch=_binary_batch("precision"), keywords=("precision_denominator", "empty"),
    per_list_keywords={"precision_denominator": "denominator"},
    trec_eval=(TrecMeasure("P", "P@{}", _TREC_CUTOFFS),)))
register(Metric(
    name="recall", aliases=("recall", "r"), per_list=recall_at_k,
    batch=_binary_batch("recall"), keywords=("recall_denominator", "empty"),
    per_list_keywords={"recall_denominator": "denominator"},
    trec_eval=(TrecMeasure("recall", "recall@{}", _TREC_CUTOFFS),)))
register(Metric(
    name="f1", aliases=("f1", "f"), per_list=f1_at_k, batch=_binary_batch("f1"),
    keywords=("empty",)))
