"""Screenshots of every chapter for a person to look at (not part of ``make test``).

For every page of the built book, at 390 px (a phone) and 1366 px (a laptop): the first
screen; the screen around the first box that scrolls sideways (a wide equation, table or
figure, marked ``rm-scroll-cue`` by ``_static/ranking-matters.js``), if any; and the first
figure in the dark theme.

Usage: python tools/book_shots.py [HTML_DIR] [OUT_DIR]
(defaults: _build/html and _build/shots)
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_book  # noqa: E402 - tools/ is not a package

ROOT = Path(__file__).resolve().parent.parent
WIDTHS = {390: 844, 1366: 900}
READY = """async () => {
  const deadline = Date.now() + 20000;
  while (document.documentElement.dataset.rmScrollCues !== 'ready' && Date.now() < deadline)
    await new Promise(r => setTimeout(r, 100));
  await document.fonts.ready;
}"""
# Scroll to the first box that scrolls sideways (equations first, then tables, then the rest).
TO_WIDE = """() => {
  const cued = [...document.querySelectorAll('.bd-article .rm-scroll-cue')];
  const pick = cued.find(e => e.matches('mjx-container')) ||
               cued.find(e => e.querySelector('table') || e.matches('table')) ||
               cued.find(e => !e.matches('pre'));
  if (!pick) return null;
  pick.scrollIntoView({block: 'center'});
  return pick.tagName.toLowerCase() + '.' + [...pick.classList].join('.');
}"""
TO_FIGURE = """() => { const f = document.querySelector('.bd-article .cell_output figure');
  if (f) f.scrollIntoView({block: 'center'}); return !!f; }"""


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    html_dir = Path(argv[0] if argv else ROOT / "_build" / "html").resolve()
    out_dir = Path(argv[1] if len(argv) > 1 else ROOT / "_build" / "shots")
    out_dir.mkdir(parents=True, exist_ok=True)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(check_book._QuietHandler, directory=str(html_dir)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    pages = [p for p in check_book._pages(html_dir)
             if p.name not in check_book.SKIP_PAGES and not check_book._parse(p).refresh]
    saved = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=check_book.CHROMIUM, headless=True,
                                         args=["--no-sandbox", "--disable-gpu"])
            for width, height in WIDTHS.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                for path in pages:
                    rel = path.relative_to(html_dir).as_posix()
                    stem = rel.replace("/", "_").removesuffix(".html")
                    page.goto(base + rel, wait_until="load")
                    page.evaluate(READY)
                    shot = out_dir / f"{stem}-{width}-top.png"
                    page.screenshot(path=str(shot))
                    saved.append(shot)
                    wide = page.evaluate(TO_WIDE)
                    if wide:
                        page.wait_for_timeout(200)
                        shot = out_dir / f"{stem}-{width}-wide.png"
                        page.screenshot(path=str(shot))
                        saved.append(shot)
                    if page.evaluate(TO_FIGURE):
                        page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
                        page.wait_for_timeout(300)
                        shot = out_dir / f"{stem}-{width}-figure-dark.png"
                        page.screenshot(path=str(shot))
                        saved.append(shot)
                        page.evaluate("() => { document.documentElement.dataset.theme = 'light'; }")
                page.close()
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
    print(f"book_shots: {len(saved)} screenshots of {len(pages)} pages in {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
