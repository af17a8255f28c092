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


ACTIVE = """() => { const a = document.activeElement;
  return a && a.closest('#one-list') ? a.getAttribute('aria-label') || a.textContent : null; }"""


def test_keyboard_keeps_focus(tmp_path):
    """A reader without a mouse edits the list: after each key the focus stays on the
    control they used (or, after a removal, the next item's), not back at the page top,
    and the table follows the edit. Served with today's _static/one-list.js."""
    _need_build()
    order = "() => [...document.querySelectorAll('.one-list-items code')].map(c => c.textContent)"
    ndcg = ("() => document.querySelector('.one-list-table tbody tr')"
            ".querySelectorAll('td')[4].firstChild.textContent")
    with one_list_check.served_page(HTML, script=SCRIPT,
                                    viewport={"width": 1366, "height": 900}) as (page, _):
        page.focus('[aria-label="move down d1"]')
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")
        moved = (page.evaluate(order), page.evaluate(ACTIVE))
        before = page.evaluate(ndcg)
        page.focus('[aria-label="grade of d3"]')
        page.keyboard.press("ArrowDown")  # grade 1 -> 2
        graded = (page.evaluate(ACTIVE), page.evaluate(ndcg))
        page.focus('[aria-label="score of d4"]')
        page.keyboard.press("Tab")
        tabbed = page.evaluate(ACTIVE)
        page.focus('[aria-label="remove d4"]')
        page.keyboard.press("Space")
        removed = (page.evaluate(order), page.evaluate(ACTIVE))
    assert moved == (["d2", "d10", "d1", "d3", "d4", "d5"], "move down d1")
    assert graded[0] == "grade of d3" and graded[1] != before
    assert tabbed == "grade of d4"
    assert removed == (["d2", "d10", "d1", "d3", "d5"], "remove d5")


def _page_causes(cases):
    """OneList.causes of (peer, kind, list) cases against trec_eval, in the browser, with
    today's _static/one-list.js."""
    with one_list_check.served_page(HTML, script=SCRIPT) as (page, _):
        out = page.evaluate("""(cases) => {
          const data = JSON.parse(document.getElementById('one-list-data').textContent);
          return cases.map(([peer, kind, c]) => OneList.causes(kind, c.items, c.missing,
            c.k, data.presets[peer].metrics[kind], data.presets.trec_eval.metrics[kind]));
        }""", cases)
    return out


def test_labels_tell_alternatives_from_joint_causes():
    """Two conventions that each alone give trec_eval's number are shown as alternatives
    ("or"), not as a pair that acts together; a pair needed together stays one list. The
    alternatives are checked with metrics_lib: each switch set back alone gives trec_eval's
    printed value."""
    _need_build()
    import pandas as pd

    from metrics_lib import evaluate
    from metrics_lib.conventions.resolve import _resolve

    tiny = {"k": 2, "missing": [0, 1, 0],  # 1e-46 is 0 in float32: not a hit for torchmetrics
            "items": [{"id": "d1", "score": 1e-46, "grade": 2},
                      {"id": "d2", "score": -1e-46, "grade": 1}]}
    got = _page_causes([["torchmetrics", "rr", tiny], ["torchmetrics", "ap", one_list.EXAMPLE]])
    assert got[0] == ["scores as float32", "or: score <= 0 never a hit"]
    assert got[1] == ["only the listed items' judgements", "AP denominator: relevant retrieved"]

    recs = pd.DataFrame({"user": [1, 1], "item": ["d1", "d2"], "score": [1e-46, -1e-46]})
    truth = pd.DataFrame({"user": [1, 1, 1], "item": ["d1", "d2", "m2_0"],
                          "relevance": [2.0, 1.0, 2.0]})
    keywords = _resolve("torchmetrics", "RetrievalMRR@2")["keywords"]
    as32 = recs.assign(score=recs["score"].astype("float32").astype("float64"))
    want = f"{one_list.reference('trec_eval', 'rr', tiny['items'], tiny['missing'], 2):.4f}"
    peer = evaluate(as32, truth, ["mrr@2"], **keywords)["mrr@2"].iloc[0]
    float64 = evaluate(recs, truth, ["mrr@2"], **keywords)["mrr@2"].iloc[0]
    no_threshold = evaluate(as32, truth, ["mrr@2"],
                            **{**keywords, "score_threshold": None})["mrr@2"].iloc[0]
    assert f"{peer:.4f}" != want
    assert f"{float64:.4f}" == want and f"{no_threshold:.4f}" == want


def test_editor_refuses_a_score_float32_cannot_hold():
    """A score beyond float32's range is infinite for the float32 presets, which
    metrics_lib refuses (a non-finite score): the editor keeps the old score, as for text
    that is not a number, instead of showing values no reference checks."""
    _need_build()
    with one_list_check.served_page(HTML, script=SCRIPT) as (page, _):
        field = page.locator('[aria-label="score of d1"]')
        shown = []
        for text in ("1e39", "-4e38", "", "2.5"):
            field.fill(text)
            field.dispatch_event("change")
            shown.append(field.input_value())
    assert shown == ["0.9", "0.9", "0.9", "2.5"]
