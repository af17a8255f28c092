"""Binary classification metrics: the "will the user like it?" view.

Labels are 0/1 (or False/True): 1 means relevant / liked / positive.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validation import (
    check_binary_labels,
    check_empty,
    check_real_array,
    check_same_length,
    handle_empty,
)

__all__ = [
    "ConfusionMatrix",
    "confusion_matrix",
    "accuracy",
    "precision",
    "recall",
    "f1_score",
    "roc_auc",
]


class ConfusionMatrix(NamedTuple):
    """Counts of a binary confusion matrix, named so they cannot be swapped."""

    tn: int
    fp: int
    fn: int
    tp: int


def _labels(y_true, y_pred):
    truth = check_binary_labels("y_true", y_true)
    pred = check_binary_labels("y_pred", y_pred)
    check_same_length("y_true", truth, "y_pred", pred)
    return truth, pred


def confusion_matrix(y_true, y_pred):
    """Count true/false positives and negatives.

    Parameters
    ----------
    y_true : sequence of {0, 1}
        Actual labels.
    y_pred : sequence of {0, 1}
        Predicted labels, aligned with ``y_true``.

    Returns
    -------
    ConfusionMatrix
        A named tuple ``(tn, fp, fn, tp)``, the order of
        ``sklearn.metrics.confusion_matrix(...).ravel()``.

    See Also
    --------
    accuracy, precision, recall, f1_score

    Notes
    -----
    Label 1 is the positive class. A prediction counts as *true* when it
    equals the label, so ``fn`` counts positives predicted as 0.

    References
    ----------
    .. [1] Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 2006.

    Examples
    --------
    >>> from metrics_lib import confusion_matrix
    >>> confusion_matrix([1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
    ConfusionMatrix(tn=1, fp=1, fn=1, tp=2)
    """
    truth, pred = _labels(y_true, y_pred)
    return ConfusionMatrix(
        tn=int(np.sum((truth == 0) & (pred == 0))),
        fp=int(np.sum((truth == 0) & (pred == 1))),
        fn=int(np.sum((truth == 1) & (pred == 0))),
        tp=int(np.sum((truth == 1) & (pred == 1))),
    )


def accuracy(y_true, y_pred):
    """Fraction of labels predicted correctly, ``(TP + TN) / n``.

    Parameters
    ----------
    y_true : sequence of {0, 1}
        Actual labels.
    y_pred : sequence of {0, 1}
        Predicted labels.

    Returns
    -------
    float
        Accuracy in ``[0, 1]``.

    See Also
    --------
    confusion_matrix

    Notes
    -----
    On the sparse data of recommendation (a user likes a handful of a
    million items) predicting "no" everywhere is almost perfectly accurate
    and completely useless.

    References
    ----------
    .. [1] Fawcett, "An introduction to ROC analysis", 2006.

    Examples
    --------
    >>> from metrics_lib import accuracy
    >>> accuracy([1, 1, 0, 0, 1], [1, 0, 0, 1, 1])
    0.6
    """
    cm = confusion_matrix(y_true, y_pred)
    return (cm.tp + cm.tn) / (cm.tp + cm.tn + cm.fp + cm.fn)


def precision(y_true, y_pred, *, empty="zero"):
    """Share of predicted positives that are positive, ``TP / (TP + FP)``.

    Parameters
    ----------
    y_true : sequence of {0, 1}
        Actual labels.
    y_pred : sequence of {0, 1}
        Predicted labels.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when nothing is predicted positive (0/0); ``"zero"`` matches
        scikit-learn's ``zero_division=0``.

    Returns
    -------
    float
        Precision in ``[0, 1]``.

    See Also
    --------
    recall, f1_score, precision_at_k

    Notes
    -----
    The undefined case (no predicted positive) follows the same ``empty``
    policy as every ranking metric in this package; scikit-learn's
    ``zero_division=0`` is ``empty="zero"``, ``zero_division=np.nan``
    is ``empty="nan"`` and ``zero_division=1.0`` is ``empty="one"``.

    References
    ----------
    .. [1] Fawcett, "An introduction to ROC analysis", 2006.

    Examples
    --------
    >>> from metrics_lib import precision
    >>> round(precision([1, 1, 0, 0, 1], [1, 0, 0, 1, 1]), 4)
    0.6667
    """
    check_empty(empty)
    cm = confusion_matrix(y_true, y_pred)
    if cm.tp + cm.fp == 0:
        return handle_empty(empty, "precision is undefined: nothing was predicted positive")
    return cm.tp / (cm.tp + cm.fp)


def recall(y_true, y_pred, *, empty="zero"):
    """Share of actual positives that are predicted positive, ``TP / (TP + FN)``.

    Parameters
    ----------
    y_true : sequence of {0, 1}
        Actual labels.
    y_pred : sequence of {0, 1}
        Predicted labels.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when there is no actual positive (0/0).

    Returns
    -------
    float
        Recall (true positive rate) in ``[0, 1]``.

    See Also
    --------
    precision, f1_score, recall_at_k

    Notes
    -----
    Also called sensitivity or the true positive rate (the y axis of the ROC
    curve). Undefined when ``y_true`` has no positive; see ``empty``.

    References
    ----------
    .. [1] Fawcett, "An introduction to ROC analysis", 2006.

    Examples
    --------
    >>> from metrics_lib import recall
    >>> round(recall([1, 1, 0, 0, 1], [1, 0, 0, 1, 1]), 4)
    0.6667
    """
    check_empty(empty)
    cm = confusion_matrix(y_true, y_pred)
    if cm.tp + cm.fn == 0:
        return handle_empty(empty, "recall is undefined: y_true has no positive label")
    return cm.tp / (cm.tp + cm.fn)


def f1_score(y_true, y_pred, *, empty="zero"):
    """Harmonic mean of precision and recall, ``2TP / (2TP + FP + FN)``.

    Parameters
    ----------
    y_true : sequence of {0, 1}
        Actual labels.
    y_pred : sequence of {0, 1}
        Predicted labels.
    empty : {"zero", "nan", "one", "raise"}, default="zero"
        Result when there is neither an actual nor a predicted positive.

    Returns
    -------
    float
        F1 in ``[0, 1]``.

    See Also
    --------
    precision, recall, f1_at_k

    Notes
    -----
    Written with counts, ``2TP / (2TP + FP + FN)`` is defined whenever
    precision or recall is, and equals their harmonic mean. True negatives
    do not enter it, which suits the sparse data of recommendation.

    References
    ----------
    .. [1] van Rijsbergen, *Information Retrieval*, 2nd ed., 1979.

    Examples
    --------
    >>> from metrics_lib import f1_score
    >>> round(f1_score([1, 1, 0, 0, 1], [1, 0, 0, 1, 1]), 4)
    0.6667
    """
    check_empty(empty)
    cm = confusion_matrix(y_true, y_pred)
    if 2 * cm.tp + cm.fp + cm.fn == 0:
        return handle_empty(empty, "F1 is undefined: no positive label in y_true or y_pred")
    return 2 * cm.tp / (2 * cm.tp + cm.fp + cm.fn)


def roc_auc(y_true, y_score):
    """Area under the ROC curve: the chance a positive outscores a negative.

    Parameters
    ----------
    y_true : sequence of {0, 1}
        Actual labels; both classes must be present.
    y_score : sequence of float
        Scores, higher meaning "more likely positive".

    Returns
    -------
    float
        AUC in ``[0, 1]``; 0.5 is chance.

    See Also
    --------
    confusion_matrix

    Notes
    -----
    Computed as the Mann-Whitney U statistic divided by ``n_pos * n_neg``,
    using average ranks, so a tied (positive, negative) pair counts one half.
    This equals the trapezoidal area under the ROC curve
    (``sklearn.metrics.roc_auc_score``). Runs in ``O(n log n)``.

    References
    ----------
    .. [1] Hanley and McNeil, "The meaning and use of the area under a
       receiver operating characteristic (ROC) curve", Radiology 143, 1982.

    Examples
    --------
    >>> from metrics_lib import roc_auc
    >>> roc_auc([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc([0, 1], [0.5, 0.5])  # a tie counts one half
    0.5
    """
    truth = check_binary_labels("y_true", y_true)
    scores = check_real_array("y_score", y_score)
    check_same_length("y_true", truth, "y_score", scores)
    n_pos = int(truth.sum())
    n_neg = truth.size - n_pos
    if n_pos == 0 or n_neg == 0:
        only = "positive" if n_neg == 0 else "negative"
        raise ValueError(f"roc_auc needs both classes in y_true; every label is {only}")
    ranks = _average_ranks(scores)
    u_statistic = ranks[truth == 1].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u_statistic / (n_pos * n_neg))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks in ascending order, tied values sharing their mean rank."""
    order = np.argsort(values, kind="mergesort")
    sorted_values = values[order]
    # start of each run of equal values
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], sorted_values.size]
    mean_rank_of_run = (starts + 1 + ends) / 2.0
    ranks = np.empty(values.size, dtype=float)
    ranks[order] = np.repeat(mean_rank_of_run, ends - starts)
    return ranks
