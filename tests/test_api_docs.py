"""The public API is documented to the numpydoc standard the project promises."""

import inspect

import pytest

import metrics_lib

PUBLIC_FUNCTIONS = [
    name for name in metrics_lib.__all__
    if inspect.isfunction(getattr(metrics_lib, name))
]
REQUIRED_SECTIONS = ("Parameters\n", "Returns\n", "Notes\n", "References\n", "Examples\n")


def test_all_names_exist():
    missing = [name for name in metrics_lib.__all__ if not hasattr(metrics_lib, name)]
    assert not missing


@pytest.mark.parametrize("name", PUBLIC_FUNCTIONS)
def test_numpydoc_sections(name):
    doc = inspect.getdoc(getattr(metrics_lib, name)) or ""
    missing = [section.strip() for section in REQUIRED_SECTIONS if section not in doc]
    assert not missing, f"{name} docstring lacks {missing}"
    assert ">>> " in doc, f"{name} has no runnable example"
