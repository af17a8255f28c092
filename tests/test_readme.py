"""The numbers in the README's example are what the library returns."""

import re
from pathlib import Path

import pytest

import metrics_lib as ml

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
BLOCK = README.split("```python\nimport metrics_lib as ml\n", 1)[1].split("```", 1)[0]
CLAIMS = re.findall(r"^(ml\.\w+\(.*\))\s+# ([0-9]+\.[0-9]+)\b", BLOCK, flags=re.MULTILINE)
SETUP = "\n".join(line for line in BLOCK.splitlines() if not line.startswith("ml."))


def test_readme_has_claims():
    assert len(CLAIMS) >= 5


@pytest.mark.parametrize("expression, stated", CLAIMS)
def test_readme_numbers(expression, stated):
    namespace = {"ml": ml}
    exec(SETUP, namespace)
    value = eval(expression, namespace)
    decimals = len(stated.split(".")[1])
    assert round(value, decimals) == float(stated)


def test_readme_error_message_is_current():
    stated = re.search(r"^ValueError: (.*)$", README, flags=re.MULTILINE).group(1)
    with pytest.raises(ValueError) as error:
        ml.precision_at_k(["a", "b", "a"], {"a"}, k=2)
    assert str(error.value) == stated
