"""The explorable "One list, every library" against metrics_lib, in a real browser.

Loads the built page book/one_list.html in headless Chromium (as tools/check_book.py
does), evaluates the page's own ``OneList.value`` on seeded random lists (ties,
float32-equal scores, graded and unjudged items, short lists, k beyond the list, empty
lists, no relevant item, relevant items the list lacks) under every preset and metric
of the page, and compares every value with ``metrics_lib.evaluate(...,
convention=peer)`` for the same list (``_ext/one_list.py``, ``references``): equal
to the last printed digit (4 decimals), and "no value" on both sides alike. It also
checks that the page shows the interactive table and removes the static one.

Usage: python tools/one_list_check.py [HTML_DIR] [--cases N] [--seed S] [--script FILE]
(defaults: _build/html, 1200 cases, seed 27). Exit status 1 on any mismatch.
tools/check_book.py runs it on the built book; tests/test_one_list.py too, when a
build exists, and on copies of the script with a planted bug, which must fail.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import random
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "_ext"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import one_list  # noqa: E402 - _ext/ is not a package

# Scores with ties: equal values, values equal only in float32 (0.1 and its
# float32 neighbour in float64), zero and negative scores (torchmetrics' threshold).
SCORES = (1.0, 0.9, 0.7, 0.5, 0.5, 0.3, 0.1, 0.1 + 2e-9, 0.1 - 2e-9, 0.0, -0.5, 1 / 3)
IDS = tuple(f"d{i}" for i in range(1, 13))  # "d10" < "d2" as text
GRADES = (None, None, 0, 0, 1, 1, 2, 3)


def random_cases(n: int, seed: int) -> list[dict]:
    """``n`` lists, reproducible from ``seed``."""
    rng = random.Random(seed)
    cases = []
    for _ in range(n):
        size = rng.choice((0, 1, 2, 3, 4, 5, 6, 8, 10))
        ids = rng.sample(IDS, size)
        items = [{"id": i, "score": rng.choice(SCORES), "grade": rng.choice(GRADES)}
                 for i in ids]
        if rng.random() < 0.15:  # nothing relevant in the list
            for item in items:
                item["grade"] = rng.choice((None, 0))
        missing = [rng.choice((0, 0, 0, 1, 2)) for _ in range(3)]
        if not items and not any(missing):
            missing[0] = 1  # a user needs a list or a judgement
        cases.append({"items": items, "missing": missing, "k": rng.choice((1, 2, 3, 5, 10, 20))})
    return cases


def expected(cases) -> dict:
    """{(peer, kind): [value or None per case]} from metrics_lib."""
    out = {}
    for peer, spec in one_list.payload().items():
        for kind, _ in one_list.KINDS:
            if spec["metrics"][kind] is not None:
                out[peer, kind] = one_list.references(peer, kind, cases)
    return out


PAGE_VALUES = """([cases, pairs]) => {
  const data = JSON.parse(document.getElementById('one-list-data').textContent);
  return pairs.map(([peer, kind]) => cases.map(c =>
    OneList.value(kind, c.items, c.missing, c.k, data.presets[peer].metrics[kind])));
}"""

PAGE_STATE = """() => ({
  widget: !!document.querySelector('#one-list table.one-list-table'),
  rows: document.querySelectorAll('#one-list table.one-list-table tbody tr').length,
  static_gone: document.querySelectorAll('.one-list-static-box').length === 0,
  // on a laptop (1366 px) the whole table is in view, NDCG too, without scrolling sideways
  fits: (s => !!s && s.scrollWidth <= s.clientWidth)(
    document.querySelector('#one-list .one-list-results .one-list-scroll')),
})"""


def compare(cases, want: dict, got: dict) -> list[str]:
    """Messages for every value that differs in its printed form."""
    bad = []
    for key, values in want.items():
        for case, a, b in zip(cases, values, got[key]):
            shown_a = "no value" if a is None else f"{a:.4f}"
            shown_b = "no value" if b is None else f"{b:.4f}"
            if shown_a != shown_b:
                bad.append(f"{key[0]} {key[1]}: metrics_lib {shown_a}, page {shown_b} on {case}")
    return bad


@contextlib.contextmanager
def served_page(html_dir, *, script=None, viewport=None):
    """The built book/one_list.html open in headless Chromium, served from ``html_dir``.

    ``script``: a file served in place of _static/one-list.js (a planted bug, or the
    source copy); ``viewport``: ``{"width": ..., "height": ...}`` (Chromium's default
    otherwise). Yields ``(page, errors)``, errors being the page's script errors.
    """
    import check_book  # the browser and the quiet server of the book's test
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(check_book._QuietHandler, directory=str(html_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=check_book.CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])
            try:
                page = browser.new_page(**({"viewport": viewport} if viewport else {}))
                errors = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                if script:
                    page.route("**/_static/one-list.js*", lambda route: route.fulfill(
                        path=str(script), content_type="text/javascript"))
                page.goto(f"http://127.0.0.1:{server.server_address[1]}/book/one_list.html",
                          wait_until="load")
                yield page, errors
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html_dir", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--cases", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=27)
    parser.add_argument("--script", help="serve this file as _static/one-list.js (to see "
                        "the check fail on a changed copy)")
    args = parser.parse_args(argv)
    html_dir = Path(args.html_dir).resolve()
    page_path = html_dir / "book" / "one_list.html"
    if not page_path.exists():
        print(f"one_list_check: {page_path} not found: build the book first")
        return 1
    cases = random_cases(args.cases, args.seed)
    want = expected(cases)
    with served_page(html_dir, script=args.script,
                     viewport={"width": 1366, "height": 900}) as (page, errors):
        pairs = list(want)
        values = page.evaluate(PAGE_VALUES, [cases, [list(p) for p in pairs]])
        state = page.evaluate(PAGE_STATE)
    got = dict(zip(pairs, values))
    bad = compare(cases, want, got)
    if not state["widget"] or state["rows"] != len(one_list.payload()):
        bad.append(f"the interactive table is missing or incomplete: {state}")
    if not state["fits"]:
        bad.append("at 1366 px the table of every library scrolls sideways (NDCG out of view)")
    if not state["static_gone"]:
        bad.append("the static table is still there while the script runs")
    bad += [f"script error: {e}" for e in errors]
    n_values = sum(len(v) for v in want.values())
    for line in bad[:20]:
        print("one_list_check:", line)
    print(f"one_list_check: {len(cases)} random lists, {len(pairs)} preset metrics, "
          f"{n_values} values compared, {len(bad)} problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
