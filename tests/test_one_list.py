"""The explorable "One list, every library" (book/one_list.md, _static/one-list.js).

The browser comparison itself is tools/one_list_check.py (run by tools/check_book.py
after the book is built, in make test); here it runs when a build exists, and on
copies of the page's script with a planted bug, which it must catch. Without a built
book (make test runs pytest before the build) those tests skip, saying why.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "_ext"))
sys.path.insert(0, str(ROOT / "tools"))
import one_list  # noqa: E402 - _ext/ is not a package
import one_list_check  # noqa: E402 - tools/ is not a package

HTML = ROOT / "_build" / "html"
PAGE = HTML / "book" / "one_list.html"
SCRIPT = ROOT / "_static" / "one-list.js"
CHROMIUM = Path("/usr/bin/chromium")


def _need_build():
    if not PAGE.is_file():
        pytest.skip(f"{PAGE} not built (make book)")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} missing (make chromium)")


def test_payload_is_the_presets():
    """Every preset metric of the page carries the keywords metrics_lib resolves."""
    from metrics_lib import PEERS
    from metrics_lib.conventions.resolve import _resolve

    data = one_list.payload()
    assert list(data) == list(PEERS)
    for peer, spec in data.items():
        assert spec["version"] == PEERS[peer][0]
        for kind, _ in one_list.KINDS:
            name = one_list.metric_name(peer, kind, 7)
            if name is None:
                assert spec["metrics"][kind] is None
                continue
            info = _resolve(peer, name)
            got = spec["metrics"][kind]
            for key in one_list.SCRIPT_KEYWORDS:
                assert got[key] == info["keywords"][key], (peer, kind, key)
            assert got["float32"] == (info["score_dtype"] == "float32")
            assert got["at_k"] == name.endswith("@7")


def test_payload_refuses_what_the_script_lacks(monkeypatch):
    """A preset keyword the script does not implement stops the build, never a wrong cell."""
    from metrics_lib.conventions import peers

    preset = peers._PRESETS["ranx"]
    changed = type(preset)(**{**preset.__dict__, "keywords": {**preset.keywords,
                                                              "truncate": 10}})
    monkeypatch.setitem(peers._PRESETS, "ranx", changed)
    with pytest.raises(ValueError, match="truncate"):
        one_list.payload()


def test_built_page_has_todays_presets():
    """The JSON written into the built page equals the presets of this checkout."""
    if not PAGE.is_file():
        pytest.skip(f"{PAGE} not built (make book)")
    text = PAGE.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="one-list-data">(.*?)</script>',
                      text, re.S)
    assert found, "the page lacks its data"
    data = json.loads(html.unescape(found.group(1)) if "&quot;" in found.group(1)
                      else found.group(1))
    assert data["presets"] == json.loads(json.dumps(one_list.payload()))


def test_page_equals_metrics_lib_in_the_browser(capsys):
    """1,000 random lists, every preset metric, equal to the printed digit."""
    _need_build()
    status = one_list_check.main([str(HTML), "--cases", "1000"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "0 problems" in out


# Bugs a careless edit of the script could make, each of which must be caught.
PLANTED = {
    "discount": ("Math.log(rank + 1) / Math.log(spec.log_base)",
                 "Math.log(rank + 2) / Math.log(spec.log_base)"),
    "tie order": ('if (spec.ties === "item_desc") return byteCompare(b.id, a.id);',
                  'if (spec.ties === "item_desc") return byteCompare(a.id, b.id);'),
    "float32": ("score: spec.float32 ? Math.fround(item.score) : item.score",
                "score: item.score"),
}


@pytest.mark.parametrize("bug", sorted(PLANTED))
def test_planted_bug_is_caught(bug, tmp_path, capsys):
    _need_build()
    old, new = PLANTED[bug]
    text = SCRIPT.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the script changed: update PLANTED[{bug!r}]"
    broken = tmp_path / "one-list.js"
    broken.write_text(text.replace(old, new), encoding="utf-8")
    status = one_list_check.main([str(HTML), "--cases", "300", "--script", str(broken)])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "page" in out and "metrics_lib" in out
