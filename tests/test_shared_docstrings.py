"""The shared parameter descriptions of the per-list metrics (metrics_lib/ranking/_docstrings.py).

Every placeholder is filled at import time, so no public docstring shows a
``{{name}}`` line, and a misspelt name stops the import instead of reaching
a reader.
"""

import importlib
import inspect
import pkgutil
import re

import pytest

import metrics_lib
import metrics_lib.beyond as beyond
import metrics_lib.ranking as ranking
from metrics_lib.ranking._docstrings import PARAMETERS, SECTIONS, shared_parameters


def _ranking_functions():
    """Every function of the packages that use the shared blocks (ranking/, beyond/)."""
    for package in (ranking, beyond):
        for info in pkgutil.iter_modules(package.__path__):
            if info.name == "_docstrings":
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            for name, value in vars(module).items():
                if inspect.isfunction(value) and value.__module__ == module.__name__:
                    yield f"{module.__name__}.{name}", value


def test_no_placeholder_is_left_in_any_docstring():
    left = [name for name, function in _ranking_functions()
            if function.__doc__ and "{{" in function.__doc__]
    left += [name for name in metrics_lib.__all__
             if "{{" in (getattr(getattr(metrics_lib, name), "__doc__", None) or "")]
    assert left == []


def test_every_shared_block_is_used_and_reads_as_a_parameter():
    used = set()
    for _, function in _ranking_functions():
        source = inspect.getsource(function)
        for names in re.findall(r"\{\{([\w ]+)\}\}", source):
            used.update(names.split())
    assert used == set(PARAMETERS) | set(SECTIONS)
    for name, text in {**PARAMETERS, **SECTIONS}.items():
        head, *body = text.split("\n")
        # a parameter reads "name : type"; a Returns / Raises entry is a type
        assert head.startswith("    ") and (" : " in head) == (name in PARAMETERS), name
        assert body and all(line.startswith("        ") for line in body), name


def test_a_filled_docstring_lists_the_parameter_in_numpydoc_form():
    from metrics_lib.ranking.hit_rate import hit_at_k

    assert "\n    relevance_level : float, default=1\n" in hit_at_k.__doc__
    assert "\n    score_threshold : float or None, default=None\n" in hit_at_k.__doc__


def test_an_unknown_name_fails_at_decoration():
    def metric():
        """Doc.

        Parameters
        ----------
        {{no_such_parameter}}
        """

    metric.__doc__ = "Doc.\n\n    Parameters\n    ----------\n    {{k no_such_parameter}}\n"
    with pytest.raises(KeyError, match="no_such_parameter"):
        shared_parameters(metric)
