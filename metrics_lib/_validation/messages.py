"""How an error message shows a value, and its did-you-mean hint.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


def show(value) -> str:
    """``repr`` of a value for a message, numpy scalars written as Python's.

    numpy 2 writes ``repr(np.float64(-1.0))`` as ``np.float64(-1.0)``; a
    message shows the value the user knows, ``-1.0``. Containers are shown
    element by element (a tuple of numpy ints as ``(1, 2)``).
    """
    if isinstance(value, np.generic):
        return repr(value.item())
    if type(value) in (tuple, list):
        inner = ", ".join(show(item) for item in value)
        if type(value) is tuple:
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        return f"[{inner}]"
    return repr(value)


def did_you_mean(word: str, candidates, *, suffix: str = "", cutoff: float = 0.6) -> str:
    """``did you mean 'a' or 'b'?`` for the closest ``candidates``, or ``""``.

    Closeness is difflib's ratio of matching characters (at least
    ``cutoff``); at most three names, the closest first, each followed by
    ``suffix`` (a cut-off such as ``"@5"``). ``candidates`` may be a mapping
    of the text compared (lower case, say) to the name shown.
    """
    import difflib

    shown = dict(candidates) if isinstance(candidates, Mapping) \
        else {name: name for name in candidates}
    close = difflib.get_close_matches(word, list(shown), n=3, cutoff=cutoff)
    if not close:
        return ""
    return f"did you mean {' or '.join(repr(shown[c] + suffix) for c in close)}?"
