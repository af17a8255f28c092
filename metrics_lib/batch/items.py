"""Item data: the popularity of each recommended item, for ``arp`` and ``aplt``.

``evaluate(..., item_popularity=...)`` takes the popularity of each item
(phi(i) of :mod:`metrics_lib.beyond.popularity`: its number of training
interactions, or of distinct users) as an explicit table, item id -> a
number >= 0; an item absent from it has popularity 0. The metrics that read
it declare ``item_data="popularity"`` in the registry. Once the lists are in
rank order, each recommended row gets its item's row of the table
(:func:`popularity_rows`); the kernels of
:mod:`metrics_lib.ranking.popularity_bias` read the rows of their chunk.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._validation import check_id_column, kinds_differ, show
from ..ranking import registry


def check_item_popularity(metrics, item_popularity):
    """``(ids kind, ids, values)`` of ``item_popularity``, or None; refused where unread."""
    readers = [name for name, kind, _ in metrics
               if registry.get(kind).item_data == "popularity"]
    if item_popularity is None:
        if readers:
            raise ValueError(f"metric {show(readers[0])} reads the popularity of each "
                             "item: pass item_popularity=, a pandas Series (or a dict) "
                             "item id -> its number of training interactions, such as "
                             "train.groupby('item').size()")
        return None
    if not readers:
        raise ValueError("item_popularity= is read by the metrics arp and aplt only; "
                         "none of them is asked for")
    if isinstance(item_popularity, Mapping):
        item_popularity = pd.Series(item_popularity, dtype=object if not item_popularity
                                    else None)
    if not isinstance(item_popularity, pd.Series):
        raise TypeError("item_popularity must be a pandas Series indexed by item id, "
                        f"or a dict item id -> popularity; got "
                        f"{type(item_popularity).__name__}")
    kind, ids = check_id_column("item_popularity", item_popularity.index.to_series(),
                                where="the index of item_popularity", needs="an item id")
    if not pd.Index(ids).is_unique:
        duplicated = pd.Index(ids)[pd.Index(ids).duplicated()][0]
        raise ValueError(f"item_popularity lists item {show(duplicated)} twice; give "
                         "each item one popularity")
    try:
        values = item_popularity.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        raise TypeError("item_popularity must hold numbers (a popularity per item); got "
                        f"dtype {item_popularity.dtype}") from None
    bad = ~(values >= 0) | ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"item_popularity gives item {show(ids[row])} the popularity "
                         f"{show(values[row])}; popularities must be finite numbers >= 0")
    return kind, ids, values


def popularity_rows(options, rec_keys, decode, item_kind):
    """``options`` with ``popularity_rows``: each row's popularity, in rank order."""
    checked = options.get("item_popularity")
    if checked is None:
        return options
    kind, ids, values = checked
    if len(ids) and len(rec_keys) and kind != item_kind:
        raise TypeError("item ids: " + kinds_differ("recommendations", item_kind,
                                                    "item_popularity", kind))
    where = pd.Index(ids).get_indexer(np.asarray(decode(rec_keys)))
    rows = np.where(where >= 0, values[np.maximum(where, 0)] if len(values) else 0.0, 0.0)
    return dict(options, popularity_rows=rows)
