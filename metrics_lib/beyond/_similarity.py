"""Item-item similarity (features -> cosine, a square matrix, or a callable),
shared by ``intra_list_diversity`` and ``serendipity``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from .._validation import show, check_same_kind, id_list, ids_kind


class _Similarity:
    """Similarity between two items, from exactly one of three sources."""

    def __init__(self, features=None, similarity=None):
        if (features is None) == (similarity is None):
            raise TypeError("give exactly one of features= (item feature vectors, "
                            "compared by cosine) or similarity= (a square matrix "
                            "or a callable)")
        self._matrix = None     # square similarity matrix, ids 0..n-1
        self._unit = None       # unit feature rows, ids 0..n-1
        self._unit_map = None   # id -> unit feature vector
        self._zero_rows = None  # rows of _unit that were all zeros
        self._zero_ids: set = set()
        self._func = None
        if features is not None:
            self._init_features(features)
        elif callable(similarity) and not isinstance(similarity, np.ndarray):
            self._func = similarity
        else:
            self._init_matrix(similarity)

    @staticmethod
    def _unit_rows(array):
        """Rows scaled to length 1; all-zero rows stay zero (checked on use)."""
        norms = np.linalg.norm(array, axis=1)
        safe = np.where(norms == 0, 1.0, norms)
        return array / safe[:, None], norms == 0

    def _init_features(self, features):
        if isinstance(features, Mapping):
            if not features:
                raise ValueError("features is empty")
            keys = list(features)
            ids = id_list(keys)
            try:
                rows = [np.asarray(features[i], dtype=float) for i in keys]
            except (TypeError, ValueError):
                raise TypeError("features must map item ids to numeric vectors") from None
            dims = {row.shape for row in rows}
            if len(dims) != 1 or rows[0].ndim != 1:
                raise ValueError("features must map every item to a 1-D vector of "
                                 f"the same length; got shapes {sorted(dims)}")
            array = np.vstack(rows)
            if not np.all(np.isfinite(array)):
                raise ValueError("features contains a non-finite value")
            unit, zero = self._unit_rows(array)
            self._kind = ids_kind("features", ids)
            self._unit_map = {item: unit[row] for row, item in enumerate(ids)}
            self._zero_ids = {item for row, item in enumerate(ids) if zero[row]}
            return
        try:
            array = np.array(features, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("features must be a 2-D numeric array (one row per item "
                            "id 0..n-1) or a mapping of id to vector") from None
        if array.ndim != 2 or array.shape[0] == 0 or array.shape[1] == 0:
            raise ValueError("features must be a non-empty 2-D array with one row per "
                             f"item id 0..n-1; got shape {array.shape}")
        if not np.all(np.isfinite(array)):
            raise ValueError("features contains a non-finite value")
        self._unit, self._zero_rows = self._unit_rows(array)

    def _init_matrix(self, similarity):
        try:
            matrix = np.array(similarity, dtype=float)
        except (TypeError, ValueError):
            raise TypeError("similarity must be a square numeric matrix or a "
                            "callable sim(item_a, item_b)") from None
        if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.size == 0:
            raise ValueError("similarity must be a square (n_items, n_items) matrix; "
                             f"got shape {matrix.shape}")
        if not np.all(np.isfinite(matrix)):
            raise ValueError("similarity contains a non-finite value")
        if not np.allclose(matrix, matrix.T):
            raise ValueError("similarity must be symmetric: sim(a, b) == sim(b, a)")
        self._matrix = matrix

    # -- lookups ------------------------------------------------------------
    def _indices(self, items, size):
        index = []
        for item in items:
            if (not isinstance(item, numbers.Integral) or isinstance(item, bool)
                    or not 0 <= item < size):
                raise ValueError(f"item {show(item)} is unknown: ids must be integers "
                                 f"0..{size - 1} (one row of the matrix per item)")
            index.append(int(item))
        return np.array(index, dtype=np.intp)

    def _vectors(self, items):
        if self._unit is not None:
            index = self._indices(items, self._unit.shape[0])
            zero = self._zero_rows[index]
            bad = items[int(np.flatnonzero(zero)[0])] if zero.any() else None
            vectors = self._unit[index]
        else:
            check_same_kind("recommended_lists", items, "features", self._kind)
            try:
                vectors = np.vstack([self._unit_map[item] for item in items])
            except KeyError as error:
                raise ValueError(f"item {show(error.args[0])} is unknown: it has no "
                                 "feature vector") from None
            bad = next((item for item in items if item in self._zero_ids), None)
        if bad is not None:
            raise ValueError(f"the features of item {show(bad)} are an all-zero vector; "
                             "its cosine similarity is undefined")
        return vectors

    def _call(self, a, b) -> float:
        value = self._func(a, b)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
            raise TypeError(f"similarity({show(a)}, {show(b)}) must return a number; got "
                            f"{type(value).__name__}")
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"similarity({show(a)}, {show(b)}) returned {value}")
        return value

    def pair_mean(self, items) -> float:
        """Mean similarity over the unordered pairs of ``items`` (len >= 2)."""
        n = len(items)
        if self._func is not None:
            total = sum(self._call(items[i], items[j])
                        for i in range(n) for j in range(i + 1, n))
            return total / (n * (n - 1) / 2)
        if self._matrix is not None:
            idx = self._indices(items, self._matrix.shape[0])
            block = self._matrix[np.ix_(idx, idx)]
            return float((block.sum() - np.trace(block)) / (n * (n - 1)))
        vectors = self._vectors(items)
        # sum_{i != j} v_i . v_j = |sum v|^2 - sum |v_i|^2, and |v_i| = 1
        total = vectors.sum(axis=0)
        return float((total @ total - n) / (n * (n - 1)))

    def cross_mean(self, item, others) -> float:
        """Mean similarity between ``item`` and each of ``others``."""
        if self._func is not None:
            return sum(self._call(item, other) for other in others) / len(others)
        if self._matrix is not None:
            size = self._matrix.shape[0]
            i = self._indices([item], size)[0]
            return float(self._matrix[i, self._indices(others, size)].mean())
        vectors = self._vectors([item, *others])
        return float((vectors[1:] @ vectors[0]).mean())
