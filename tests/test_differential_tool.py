"""tools/differential_refactor.py tells apart what a refactoring must not change.

The tool itself runs two trees (minutes); these tests check, in a second,
that its comparison sees the differences it promises to see: the last bit
of a float, NaN positions, dtypes, column order, the index, an error's type
and message, and a warning.
"""

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

_PATH = Path(__file__).resolve().parents[1] / "tools" / "differential_refactor.py"
_SPEC = importlib.util.spec_from_file_location("differential_refactor", _PATH)
tool = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(tool)


def _frame(**changes):
    data = {"user": [1, 2, 3], "ndcg@10": [0.5, np.nan, 1.0], "map": [0.25, 0.0, 1.0]}
    frame = pd.DataFrame(data).set_index("user")
    for name, value in changes.items():
        frame = value(frame)
    return frame


@pytest.mark.parametrize("change", [
    lambda f: f.assign(**{"ndcg@10": f["ndcg@10"] * (1 + 2**-52)}),  # the last bit
    lambda f: f.assign(**{"ndcg@10": [0.5, 0.0, np.nan]}).iloc[[0, 1, 2]],  # NaN moves
    lambda f: f.astype({"map": np.float32}),  # a dtype
    lambda f: f[["map", "ndcg@10"]],  # column order
    lambda f: f.set_axis(pd.Index([1, 2, 3], dtype="int32", name="user")),  # index dtype
    lambda f: f.set_axis(pd.Index(["1", "2", "3"], name="user")),  # index values' kind
    lambda f: f.rename_axis("users"),  # index name
    lambda f: f.assign(map=[0.25, -0.0, 1.0]),  # a signed zero
])
def test_a_changed_frame_is_seen(change):
    assert tool.canon(_frame()) == tool.canon(_frame())
    assert tool.canon(_frame()) != tool.canon(change(_frame()))


def test_values_not_module_paths_are_compared():
    from dataclasses import make_dataclass

    a = make_dataclass("RateEstimate", ["rate"], frozen=True)
    b = make_dataclass("RateEstimate", ["rate"], frozen=True)
    b.__module__ = "elsewhere"  # a moved class: the same result
    assert tool.canon(a(0.5)) == tool.canon(b(0.5))
    assert tool.canon(a(0.5)) != tool.canon(b(0.5 + 2**-53))


def test_errors_and_warnings_are_outcomes():
    record = tool.Recorder()

    def refuse(message):
        raise ValueError(message)

    def warn():
        warnings.warn("careful", UserWarning)
        return 1

    record("a", refuse, "k must be positive")
    record("b", refuse, "k must be a positive integer")
    record("c", lambda: (_ for _ in ()).throw(TypeError("k must be positive")))
    assert record.outcomes[0][1] == ("error", "ValueError", "k must be positive")
    assert len({outcome[1] for outcome in record.outcomes}) == 3
    record("d", warn)
    assert record.outcomes[-1][1:] == (("ok", ("int", 1)), (("UserWarning", "careful"),))

    def foreign():  # as if raised inside an installed library
        warnings.warn_explicit("scheduler detail", UserWarning,
                               "/x/site-packages/dask/base.py", 1)
        return 1

    record("e", foreign)
    assert record.outcomes[-1][1:] == (("ok", ("int", 1)), ())


def test_report_counts_differences(capsys):
    same = {"outcomes": [("x", ("ok", ("int", 1)), ())], "available": [],
            "timings": {}, "file": "old"}
    other = dict(same, outcomes=[("x", ("ok", ("int", 2)), ())], file="new")
    assert tool.report(same, same, 0.0) == 0
    assert tool.report(same, other, 0.0) == 1
    assert "1 different" in capsys.readouterr().out


def test_the_first_difference_is_located():
    a = pd.DataFrame({"ndcg@10": [0.1, 0.2, np.nan]})
    b = a.assign(**{"ndcg@10": [0.1, 0.2 * (1 + 2**-52), np.nan]})
    where, old, new = tool._first_difference(tool.canon(a), tool.canon(b))
    assert where.endswith("nd[1]") and old != new
    c = a.assign(**{"ndcg@10": [0.1, 0.2, 0.0]})  # NaN became 0
    assert tool._first_difference(tool.canon(a), tool.canon(c))[0].endswith("nd[2]")
