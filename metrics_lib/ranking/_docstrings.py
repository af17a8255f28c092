"""Parameter descriptions that several per-list metrics share, written once.

A docstring names shared blocks with a line ``{{name other_name ...}}`` where
the parameters would be described (indented like one); :func:`shared_parameters`
puts their text in, in that order, when the module is imported, so ``help()``, the API page and the
doctests all see the whole docstring. A name that is not here raises
``KeyError`` at import time: a typo cannot reach a reader.
"""

from __future__ import annotations

import re

# Each entry is exactly what the docstrings said before, indented by four
# spaces as a parameter of a function docstring.
PARAMETERS = {
    "relevance_level": (
        "    relevance_level : float, default=1\n"
        "        Minimum grade for an item to count as relevant (``>= 0``); 0, as\n"
        "        trec_eval's ``-l 0``, makes every judged item relevant, grade 0\n"
        "        included, and no unjudged one."
    ),
    "judged_only": (
        "    judged_only : bool, default=False\n"
        "        ``True`` removes the items that ``relevant`` does not judge from the\n"
        "        list before anything is counted: a \"condensed\" list (trec_eval 10.0\n"
        "        ``-J``; ir-measures 0.4.3 ``judged_only=True``)."
    ),
    "truncate": (
        "    truncate : int or None, default=None\n"
        "        Keep the first ``truncate`` items of the list and count the hits in\n"
        "        all of them, whatever ``k``; ``k`` then only sets the denominator.\n"
        "        Microsoft Recommenders 1.2.1 ``relevancy_method=\"by_threshold\"``\n"
        "        (``recommenders/evaluation/python_evaluation.py``,\n"
        "        ``merge_ranking_true_pred``: ``top_k = threshold``, a number of items,\n"
        "        default 10)."
    ),
    "candidates": (
        "    candidates : {\"all\", \"recommended\"}, default=\"all\"\n"
        "        ``\"recommended\"`` keeps only the judgements of the items in the list,\n"
        "        as a peer does that is given the scored items only: torchmetrics\n"
        "        1.9.0 (``torchmetrics/retrieval/base.py``: each metric sees the\n"
        "        ``preds`` and ``target`` it is given, so ``RetrievalRecall`` divides\n"
        "        by the relevant items passed and ``RetrievalRPrecision`` takes R\n"
        "        from them) and scikit-learn 1.9.1's ``ndcg_score`` and ``dcg_score``\n"
        "        given the recommended items."
    ),
    "scores": (
        "    scores : sequence of float, optional\n"
        "        Model scores parallel to ``recommended`` (higher is better). The list\n"
        "        is then sorted by them, stably; equal scores are ties."
    ),
    "score_threshold": (
        "    score_threshold : float or None, default=None\n"
        "        With ``scores``: an item scored at or below this value is never a\n"
        "        hit. It keeps its rank but counts as judged non-relevant, while\n"
        "        ``relevant`` is unchanged (the number of relevant items and the\n"
        "        ideal list still include it): torchmetrics 1.9.0's\n"
        "        ``torch.where(preds > 0, target, 0)`` in AP, precision, recall and\n"
        "        reciprocal rank is ``score_threshold=0``. Not available with\n"
        "        ``ties=\"average\"`` or ``\"block\"``."
    ),
    "recommended": (
        "    recommended : sequence of hashable\n"
        "        Item ids in rank order, best first."
    ),
    "relevant": (
        "    relevant : collection of hashable or mapping of hashable to float\n"
        "        Relevant ids, or judged ids with their grades."
    ),
    "k": (
        "    k : int or None, default=None\n"
        "        Cut-off; ``None`` uses the whole list."
    ),
    "empty": (
        "    empty : {\"zero\", \"nan\", \"one\", \"raise\"}, default=\"zero\"\n"
        "        Result when no item is relevant."
    ),
    "ties": (
        "    ties : {\"input\", \"average\", \"block\", \"best\", \"worst\"}, default=\"input\"\n"
        "        Rank of tied items: the list's order, the expectation over all tie\n"
        "        orders, the tie group's last rank, or the best / worst order; see\n"
        "        the module notes (:mod:`metrics_lib.ranking`). All but ``\"input\"``\n"
        "        need ``scores``."
    ),
    "recommended_lists": (
        "    recommended_lists : sequence of sequences\n"
        "        One ranked list per user."
    ),
    "relevant_lists": (
        "    relevant_lists : sequence of collections or mappings\n"
        "        One relevance judgement per user, aligned with ``recommended_lists``."
    ),
    "k_lists": (
        "    k : int or None, default=None\n"
        "        Cut-off applied to every list."
    ),
    "scores_lists": (
        "    scores_lists : sequence of sequences of float, optional\n"
        "        One score list per user, parallel to ``recommended_lists`` (see the\n"
        "        ``scores`` of the per-list function)."
    ),
    "ties_lists": (
        "    ties : {\"input\", \"average\", \"block\", \"best\", \"worst\"}, default=\"input\"\n"
        "        Rank of tied items in every list, as in the per-list function."
    ),
    "recommended_unique": (
        "    recommended : sequence of hashable\n"
        "        Item ids in rank order, best first. Ids must be unique."
    ),
    "recommended_set": (
        "    recommended : sequence of hashable\n"
        "        Item ids; which items are listed matters, not their order. Ids must\n"
        "        be unique."
    ),
    "relevant_pool": (
        "    relevant : collection of hashable or mapping of hashable to float\n"
        "        Judged ids with their grades: ``>= relevance_level`` relevant,\n"
        "        ``0 <= grade < relevance_level`` judged non-relevant, a negative grade\n"
        "        \"in the pool but unjudged\" (trec_eval's reading of a negative qrels\n"
        "        grade), which counts as an item absent from ``relevant``. A plain\n"
        "        collection of ids makes each relevant."
    ),
    "relevant_intents": (
        "    relevant : mapping of hashable to mapping of hashable to float\n"
        "        ``item -> {intent: grade}``, the judged items."
    ),
    "k_required": (
        "    k : int\n"
        "        Cut-off (a positive integer)."
    ),
    "relevance_level_intents": (
        "    relevance_level : float, default=1\n"
        "        Minimum grade for an item to be relevant to an intent."
    ),
    "empty_intents": (
        "    empty : {\"zero\", \"nan\", \"one\", \"raise\"}, default=\"zero\"\n"
        "        Result when no intent has a relevant item."
    ),
    # beyond/popularity.py: ARP and APLT of one list
    "training_interactions": (
        "    interactions : sequence of (user, item) pairs, or array of shape (n, 2)\n"
        "        The training interactions that define popularity."
    ),
    "item_popularity": (
        "    popularity : {\"interactions\", \"users\"}, default=\"interactions\"\n"
        "        :math:`\\phi(i)`: the number of interactions with :math:`i` (the\n"
        "        paper's \"number of times rated\"), or of distinct users (Elliot's\n"
        "        ``Popularity``, which counts users)."
    ),
    "list_cutoff": (
        "    k : int or None, default=None\n"
        "        Cut-off applied to the list."
    ),
    # ranking/trec_gains.py: ideal_dcg, ndcg_rel, rndcg and trec_g
    "relevant_gains": (
        "    relevant : collection of hashable or mapping of hashable to float\n"
        "        Judged ids with their grades (a plain collection: grade 1 each)."
    ),
    "gain_trec": (
        "    gain : {\"linear\", \"exponential\", \"binary\"} or mapping, default=\"linear\"\n"
        "        As in :func:`dcg_at_k`; trec_eval's gains by grade\n"
        "        (``-m ideal_dcg.1=3,2=7``, likewise for ``ndcg_rel``, ``Rndcg`` and\n"
        "        ``G``) are a mapping listing every judged grade."
    ),
    "min_grade_dcg": (
        "    min_grade : float or None, default=None\n"
        "        As in :func:`dcg_at_k`."
    ),
    "relevance_level_binary_gain": (
        "    relevance_level : float, default=1\n"
        "        Only used by ``gain=\"binary\"``."
    ),
    # ranking/trec_gains.py: ndcg_rel and trec_g
    "empty_positive_gain": (
        "    empty : {\"zero\", \"nan\", \"one\", \"raise\"}, default=\"zero\"\n"
        "        Result when no judged item has a positive gain."
    ),
}

# Blocks of other sections (Returns, Raises) that several docstrings share,
# placed the same way; they read as a section's entry, not as a parameter.
SECTIONS = {
    "returns_intents": (
        "    float\n"
        "        In [0, 1]; the ``empty`` policy's value (0 by default) when no intent\n"
        "        has a relevant item."
    ),
    "raises_intents": (
        "    TypeError, ValueError\n"
        "        For a ``relevant`` that is not a mapping of mappings, a negative or\n"
        "        non-number grade, a ``k`` that is not a positive integer, an\n"
        "        ``alpha`` outside [0, 1] (the functions that take one), an ``empty``\n"
        "        policy that is not one of the four, ``empty=\"raise\"`` when no intent\n"
        "        has a relevant item, and the checks of the list."
    ),
    # ranking/trec_gains.py: the five gain measures
    "raises_ndcg_checks": (
        "    ValueError\n"
        "        For an input the checks of :func:`ndcg_at_k` refuse (a gain map\n"
        "        without a judged grade, a repeated item, ...)."
    ),
    # ranking/trec_sets.py: the set measures
    "raises_bpref_checks": (
        "    TypeError, ValueError\n"
        "        For a list or grades that :func:`metrics_lib.bpref` refuses too."
    ),
    "raises_bpref_checks_empty": (
        "    TypeError, ValueError\n"
        "        For a list or grades that :func:`metrics_lib.bpref` refuses too, and\n"
        "        ``empty=\"raise\"`` without a relevant item."
    ),
}

_PLACEHOLDER = re.compile(r"^    \{\{(\w+(?: \w+)*)\}\}$", re.MULTILINE)


def shared_parameters(function):
    """Replace each ``{{name ...}}`` line of ``function``'s docstring by the named blocks."""
    function.__doc__ = _PLACEHOLDER.sub(
        lambda match: "\n".join({**PARAMETERS, **SECTIONS}[name]
                                 for name in match.group(1).split()),
        function.__doc__)
    return function
