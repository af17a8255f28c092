"""Real-browser test of the built book (run by ``make test`` after the build).

Serves the built HTML on 127.0.0.1 with Python's http.server, opens every page
in Debian's chromium (headless, driven by Playwright) and checks, page by page:

* math: every ``.math`` element was typeset by MathJax (it holds an
  ``mjx-container``), and there is no ``mjx-merror``; MathJax is served from
  the book itself, so it must work with no network;
* images: every ``<img>`` loaded (``naturalWidth > 0``), and every notebook
  figure has an opaque light background, so it stays legible in dark mode,
  a numbered caption, alt text, and at least 1.8 image pixels per CSS pixel
  (sharp on a high-density screen);
* no console error, no uncaught exception, no failed or 4xx/5xx request, and
  no request to any host other than 127.0.0.1 (those are blocked and listed);
* links: every link into the book points at an existing file, and a
  ``#fragment`` exists as an id in the target page;
* notebook pages: Colab and Binder launch buttons open this chapter's clean
  notebook, ``launch/<chapter>.ipynb``, on the repository's branch (read from
  ``_config.yml``), and the .ipynb download link exists (checked with the
  other links);

* layout (tools/book_layout.py), at 390, 1024, 1366 and 1920 px in the light
  and the dark theme: every image keeps its aspect ratio (within 2 %), figure
  text is drawn at 0.6 of the body text or more on a phone, dark mode leaves
  figures as drawn, every display equation fits its box (at 1024 px and
  wider) or scrolls (on a phone), and whatever scrolls
  sideways (equations, tables, code, figures) shows a cue; tables and inline
  code stay in the column; the page never scrolls sideways;
* Korean glyphs: every Hangul character on the page is drawn, on a canvas
  with the page's own font, as a real glyph: not blank and not the box
  (.notdef) that a missing glyph gives. The browser runs with a fontconfig
  that offers it only Latin fonts (DejaVu, Liberation), as on a reader's
  machine without any CJK font, whatever this machine has installed (make
  pdf installs NanumGothic), so only the book's own web-font subset
  (``_ext/korean_font.py``) can pass;

* reading aids, at 1366x768 on a touch screen, page after page from the left sidebar's last
  entry: the sidebar opens with the current page's entry in view, at the list's top when the
  entry shows there; a tap on the link in a folded solution's title unfolds the solution and
  neither follows the link nor moves the page;

then that the search page returns a result for "NDCG". It saves screenshots of
two chapters (light and dark mode) for a person to look at, and exits 1 with a
list of every failure.

Usage: python tools/check_book.py [HTML_DIR] [--screenshots DIR]
       [--readme-shot PNG]
HTML_DIR defaults to _build/html; screenshots go next to it, in screenshots/.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import os
import re
import sys
import tempfile
import threading
import time
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
import book_layout  # noqa: E402 - tools/ is not a package
sys.path.insert(0, str(ROOT / "_ext"))
from launch_targets import launch_path  # noqa: E402  (where the launch buttons point)

CHROMIUM = "/usr/bin/chromium"
# Sphinx helper pages: the index and search page have no content of their own
# (search.html is checked separately, with a query).
SKIP_PAGES = {"genindex.html", "search.html", "py-modindex.html"}
NON_PAGE_DIRS = {"_static", "_sources", "_images", "_downloads", "screenshots"}
# Chapters to photograph, in order of preference.
SCREENSHOT_PAGES = ["book/ndcg.html", "book/precision_recall.html",
                    "book/average_precision.html", "book/rr_mrr.html"]
SEARCH_TERM = "NDCG"
PAGE_TIMEOUT_MS = 30_000


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature of the base class
        pass

    def do_GET(self):
        # Sphinx emits no favicon; browsers ask for one anyway.
        if self.path == "/favicon.ico":
            self.send_response(204)
            self.end_headers()
            return
        super().do_GET()


class _Anchors(HTMLParser):
    """Collect the ids (and legacy ``<a name>``) of one HTML file."""

    def __init__(self):
        super().__init__()
        self.ids = set()
        self.refresh = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            match = re.search(r"url=(.+)", attrs.get("content") or "", re.I)
            self.refresh = match.group(1).strip() if match else None


@functools.lru_cache(maxsize=None)
def _parse(path: Path) -> _Anchors:
    parser = _Anchors()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser


def _pages(html_dir: Path) -> list[Path]:
    """The pages of the current build: Sphinx's own list (searchindex.js), so
    that pages left over from an earlier build are not checked; plus the
    top-level redirect. Falls back to every .html file."""
    try:
        text = (html_dir / "searchindex.js").read_text(encoding="utf-8")
        docnames = json.loads(text[text.index("(") + 1:text.rindex(")")])["docnames"]
        pages = [html_dir / f"{name}.html" for name in docnames]
        pages += [html_dir / "index.html"] if (html_dir / "index.html").is_file() else []
        return sorted(pages)
    except (OSError, ValueError, KeyError):
        pass
    pages = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        if rel.parts[0] in NON_PAGE_DIRS or rel.as_posix() in SKIP_PAGES:
            continue
        pages.append(path)
    return pages


def _target_file(html_dir: Path, url_path: str) -> Path:
    path = html_dir / unquote(url_path).lstrip("/")
    if url_path.endswith("/") or path.is_dir():
        path = path / "index.html"
    return path


def _check_links(html_dir, base, page_rel, hrefs, fail):
    """Every link into the book lands on a file and, if any, on an existing id."""
    checked = 0
    for href in hrefs:
        if not href.startswith(base):
            continue  # external (GitHub, Colab, ...) or javascript:/mailto:
        parts = urlsplit(href)
        target = _target_file(html_dir, parts.path)
        checked += 1
        if not target.is_file():
            fail(page_rel, f"broken link {href[len(base):]} (no file {target.relative_to(html_dir)})")
            continue
        fragment = unquote(parts.fragment)
        if fragment and target.suffix == ".html" and fragment not in _parse(target).ids:
            fail(page_rel, f"broken anchor {href[len(base):]} (no id {fragment!r} in {target.relative_to(html_dir)})")
    return checked


def _launch_urls(html_dir: Path) -> dict | None:
    """Expected Colab/Binder URL prefixes, from the repository section of _config.yml."""
    config_file = ROOT / "_config.yml"
    if not config_file.is_file():
        return None
    config = yaml.safe_load(config_file.read_text(encoding="utf-8")) or {}
    repo = config.get("repository") or {}
    launch = config.get("launch_buttons") or {}
    match = re.match(r"https://github\.com/([^/]+/[^/]+?)/?$", repo.get("url") or "")
    if not match:
        return None
    slug, branch = match.group(1), repo.get("branch") or "main"
    urls = {}  # {nb}: the launch notebook's path from the repository's root
    if launch.get("colab_url"):
        urls["Colab"] = f"{launch['colab_url'].rstrip('/')}/github/{slug}/blob/{branch}/{{nb}}"
    if launch.get("binderhub_url"):
        urls["Binder"] = f"{launch['binderhub_url'].rstrip('/')}/v2/gh/{slug}/{branch}?urlpath="
    return urls


PAGE_SCRIPT = """
async () => {
  const out = {};
  const maths = [...document.querySelectorAll('.math')];
  out.math = maths.length;
  if (maths.length) {
    const deadline = Date.now() + 20000;
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise) && Date.now() < deadline)
      await new Promise(r => setTimeout(r, 100));
    if (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
      out.mathjax = false;
    } else {
      out.mathjax = true;
      await MathJax.startup.promise;
      out.untypeset = maths.filter(e => !e.querySelector('mjx-container'))
                           .map(e => e.textContent.trim().slice(0, 60));
      out.merrors = [...document.querySelectorAll('mjx-merror')]
                      .map(e => e.getAttribute('data-mjx-error') || e.textContent.slice(0, 60));
      // a TeX command MathJax did not understand in text mode shows up as a
      // literal backslash (an escaped underscore in text mode without the
      // textmacros extension)
      out.backslashes = [...document.querySelectorAll('mjx-container')]
                          .map(e => e.textContent).filter(t => t.includes('\\\\'))
                          .map(t => t.slice(0, 60));
    }
  }
  out.mjx = document.querySelectorAll('mjx-container').length;
  const imgs = [...document.images];
  imgs.forEach(i => { if (i.loading === 'lazy') i.loading = 'eager'; });
  await Promise.all(imgs.map(i => i.complete ? null : new Promise(r => {
    i.addEventListener('load', r); i.addEventListener('error', r); setTimeout(r, 15000); })));
  out.images = imgs.length;
  out.broken_images = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  // Notebook figures: opaque, light corners (drawn with a white facecolor).
  out.dark_figures = [];
  for (const img of document.querySelectorAll('.cell_output img')) {
    if (!(img.complete && img.naturalWidth > 0)) continue;
    const c = document.createElement('canvas');
    c.width = img.naturalWidth; c.height = img.naturalHeight;
    const ctx = c.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const w = c.width - 1, h = c.height - 1;
    for (const [x, y] of [[0, 0], [w, 0], [0, h], [w, h]]) {
      const [r, g, b, a] = ctx.getImageData(x, y, 1, 1).data;
      if (a < 250 || 0.2126 * r + 0.7152 * g + 0.0722 * b < 200) {
        out.dark_figures.push(img.getAttribute('src')); break;
      }
    }
  }
  // Notebook figures: a numbered caption, alt text, and pixels for high-density screens.
  out.figure_problems = [];
  for (const img of document.querySelectorAll('.cell_output img')) {
    const src = (img.getAttribute('src') || '').split('/').pop();
    const figure = img.closest('figure');
    const caption = figure && figure.querySelector('figcaption');
    if (!caption || !caption.textContent.trim())
      out.figure_problems.push(`${src}: no caption`);
    else if (!caption.querySelector('.caption-number'))
      out.figure_problems.push(`${src}: caption without a figure number`);
    const alt = (img.getAttribute('alt') || '').trim();
    if (!alt || /^(png|image|figure|<Figure)/i.test(alt))
      out.figure_problems.push(`${src}: no alt text`);
    const shown = img.getBoundingClientRect().width;
    if (img.complete && shown > 0 && img.naturalWidth < 1.8 * shown)
      out.figure_problems.push(`${src}: ${img.naturalWidth} px drawn in ${Math.round(shown)} px (not sharp on a high-density screen)`);
  }
  out.hrefs = [...document.querySelectorAll('a[href]')].map(a => a.href);
  await document.fonts.ready;  // MathJax fonts load after typesetting
  return out;
}
"""


# Draws every distinct Hangul character of the page with the font of the
# element that holds it and compares it with the glyph of a private-use code
# point, which no font has: equal (or blank) means the reader sees a box.
KOREAN_SCRIPT = """
async () => {
  const hangul = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]/g;
  const seen = new Map();
  const walker = document.createTreeWalker(document.querySelector('main') || document.body,
                                           NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const chars = node.textContent.match(hangul);
    if (!chars) continue;
    const font = getComputedStyle(node.parentElement).font;
    for (const ch of chars) if (!seen.has(ch)) seen.set(ch, font);
  }
  const out = {count: seen.size, boxes: [], blank: [], errors: []};
  if (!seen.size) return out;
  await document.fonts.ready;
  for (const [ch, font] of seen) {
    try { await document.fonts.load(font, ch); }
    catch (e) { if (!out.errors.length) out.errors.push(String(e)); }
  }
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (ch, font) => {
    ctx.clearRect(0, 0, 64, 64);
    ctx.font = font.replace(/\d+(\.\d+)?px/, '40px');
    ctx.fillStyle = '#000'; ctx.textBaseline = 'top';
    ctx.fillText(ch, 4, 4);
    return ctx.getImageData(0, 0, 64, 64).data.join(',');
  };
  for (const [ch, font] of seen) {
    const glyph = draw(ch, font);
    if (!/[1-9]/.test(glyph.replace(/(^|,)0,0,0,0/g, ''))) { out.blank.push(ch); continue; }
    if (glyph === draw('\ue000', font)) out.boxes.push(ch);
  }
  return out;
}
"""


# The left sidebar of a page just opened: where its current entry is, and how far the list
# is scrolled (pydata-sphinx-theme restores the previous page's position; ranking-matters.js
# corrects it).
SIDEBAR_SCRIPT = """
() => {
  const side = document.querySelector('.bd-sidebar-primary');
  const entry = side && [...side.querySelectorAll('.bd-docs-nav li.active > a')].pop();
  if (!entry || !side.clientHeight) return null;
  const box = side.getBoundingClientRect(), link = entry.getBoundingClientRect();
  return {name: entry.textContent.trim().slice(0, 40), scroll: Math.round(side.scrollTop),
          client: side.clientHeight, top: link.top - box.top, bottom: link.bottom - box.top,
          at_top: link.bottom - box.top + side.scrollTop};
}
"""
SIDEBAR_VIEWPORT = {"width": 1366, "height": 768}
SOLUTION_TITLE = ".admonition.dropdown.toggle-hidden > .admonition-title a[href]"


def _check_reading_aids(context, base, pages, fail):
    """At 1366x768 on a touch screen, page after page as a reader goes (so the theme carries
    the sidebar's scroll position over): the left sidebar shows the current page's entry, and
    at the list's top when the entry is seen there (in its upper three quarters); a tap on the
    link in a folded solution's title unfolds that solution and leaves the page where it is."""
    page = context.new_page()
    page.set_default_timeout(PAGE_TIMEOUT_MS)
    current = {"page": "?"}
    page.on("pageerror", lambda e: fail(current["page"], f"uncaught exception: {e}"))
    checked = 0
    # start from the sidebar's last entry, so that the list is scrolled to its end
    page.goto(base + pages[0], wait_until="load")
    last = page.evaluate("() => [...document.querySelectorAll('.bd-docs-nav a[href]')].pop()?.href")
    first = [last[len(base):].split("#")[0]] if last and last.startswith(base) else []
    for rel in first + pages:
        current["page"] = rel
        page.goto(base + rel, wait_until="load")
        page.wait_for_function("() => document.documentElement.dataset.rmScrollCues === 'ready'")
        side = page.evaluate(SIDEBAR_SCRIPT)
        if side:
            checked += 1
            where = f"at {SIDEBAR_VIEWPORT['width']}x{SIDEBAR_VIEWPORT['height']} after the page before"
            if side["top"] < -1 or side["bottom"] > side["client"] + 1:
                fail(rel, f"the left sidebar opens with the current entry ({side['name']!r}) out "
                     f"of view (scrolled {side['scroll']} px) {where}")
            elif side["scroll"] > 1 and side["at_top"] <= 0.75 * side["client"]:
                fail(rel, f"the left sidebar opens scrolled by {side['scroll']} px although the "
                     f"current entry ({side['name']!r}) shows at its top {where}")
        title = page.locator(SOLUTION_TITLE).first
        if not title.count():
            continue
        checked += 1
        title.scroll_into_view_if_needed()
        solution = title.evaluate("a => a.closest('.admonition').id")
        url, y = page.url, page.evaluate("() => scrollY")
        title.tap()
        page.wait_for_timeout(300)
        opened = page.evaluate("(id) => !document.getElementById(id).classList.contains('toggle-hidden')",
                               solution)
        moved = abs(page.evaluate("() => scrollY") - y)
        if page.url != url or moved > 1:
            fail(rel, f"a tap on a folded solution's title followed its link (to {page.url[len(base):]!r}, "
                 f"page moved {moved:.0f} px)")
        if not opened:
            fail(rel, f"a tap on the link in a folded solution's title did not unfold it ({solution})")
    page.close()
    return checked


# Fonts the browser may use: Latin only, so that a missing Korean web font
# shows up as boxes even on a machine that has CJK fonts installed.
LATIN_FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")


def _latin_only_fontconfig(folder: Path) -> Path:
    """A fonts.conf that lists the Latin font folders and nothing else."""
    dirs = "".join(f"  <dir>{d}</dir>\n" for d in LATIN_FONT_DIRS if Path(d).is_dir())
    conf = folder / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n'
                    f"<fontconfig>\n{dirs}  <cachedir>{folder / 'cache'}</cachedir>\n"
                    "</fontconfig>\n", encoding="utf-8")
    return conf


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html_dir", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--screenshots", help="directory for the screenshots "
                        "(default: screenshots/ next to HTML_DIR)")
    parser.add_argument("--readme-shot", help="also save a small PNG of one chapter for the README")
    args = parser.parse_args(argv)

    html_dir = Path(args.html_dir).resolve()
    shots_dir = Path(args.screenshots) if args.screenshots else html_dir.parent / "screenshots"
    if not (html_dir / "search.html").is_file():
        print(f"check_book: no built book in {html_dir} (run jupyter-book build first)")
        return 2
    if not Path(CHROMIUM).exists():
        print(f"check_book: {CHROMIUM} is missing (make test installs Debian's chromium)")
        return 2

    started = time.monotonic()
    failures: dict[str, list[str]] = defaultdict(list)

    def fail(page, message):
        if message not in failures[page]:
            failures[page].append(message)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(html_dir)))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    launch = _launch_urls(html_dir)
    stats = defaultdict(int)
    pages = _pages(html_dir)
    current = {"page": "?"}

    fonts_dir = tempfile.TemporaryDirectory(prefix="check_book_fonts_")
    browser_env = dict(os.environ,
                       FONTCONFIG_FILE=str(_latin_only_fontconfig(Path(fonts_dir.name))))
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, headless=True, env=browser_env,
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                      "--disable-background-networking", "--disable-component-update",
                      "--no-first-run"])
            context = browser.new_context(viewport={"width": 1280, "height": 1000})

            def route(r):
                url = r.request.url
                if url.startswith(base):
                    r.continue_()
                else:
                    stats["external"] += 1
                    fail(current["page"], f"request leaves 127.0.0.1: {url}")
                    r.abort()

            context.route("**/*", route)
            page = context.new_page()
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.on("console", lambda m: m.type == "error" and fail(
                current["page"], f"console error: {m.text}"))
            page.on("pageerror", lambda e: fail(current["page"], f"uncaught exception: {e}"))
            page.on("response", lambda r: r.status >= 400 and fail(
                current["page"], f"HTTP {r.status} for {r.url}"))
            # net::ERR_ABORTED only means the browser cancelled a request when
            # it left the page (a missing file is a 404, reported above).
            page.on("requestfailed", lambda r: r.url.startswith(base)
                    and "ERR_ABORTED" not in (r.failure or "") and fail(
                        current["page"], f"request failed: {r.url} ({r.failure})"))

            for number, path in enumerate(pages, 1):
                rel = path.relative_to(html_dir).as_posix()
                current["page"] = rel
                stats["pages"] += 1
                if number % 5 == 1:  # a line now and then: the whole run takes a minute or two
                    print(f"check_book: page {number}/{len(pages)} ({rel}), "
                          f"{time.monotonic() - started:.0f} s", flush=True)
                if not path.is_file():
                    fail(rel, "listed in searchindex.js but not built")
                    continue
                refresh = _parse(path).refresh
                if refresh:  # index.html: a redirect, no content of its own
                    if not (path.parent / urlsplit(refresh).path).is_file():
                        fail(rel, f"redirect to a missing page: {refresh}")
                    continue
                try:
                    response = page.goto(base + rel, wait_until="load")
                    if response is None or response.status != 200:
                        fail(rel, f"page did not load ({response and response.status})")
                        continue
                    out = page.evaluate(PAGE_SCRIPT)
                except PlaywrightError as exc:
                    fail(rel, f"browser error: {exc}")
                    continue
                if out["math"]:
                    stats["pages_with_math"] += 1
                    if not out.get("mathjax"):
                        fail(rel, f"MathJax did not load; {out['math']} math elements left as TeX")
                    else:
                        for tex in out["untypeset"]:
                            fail(rel, f"math not typeset: {tex}")
                        for err in out["merrors"]:
                            fail(rel, f"MathJax error: {err}")
                        for tex in out["backslashes"]:
                            fail(rel, f"a TeX command shown as text: {tex}")
                        if out["mjx"] == 0:
                            fail(rel, "no mjx-container on a page with math")
                stats["math"] += out["mjx"]
                # 390 to 1920 px, light and dark: figures keep their shape and legible
                # text, nothing is clipped, whatever scrolls sideways shows a cue.
                book_layout.check_layout(page, html_dir, base,
                                         functools.partial(fail, rel), stats)
                page.set_viewport_size({"width": 1280, "height": 1000})
                korean = page.evaluate(KOREAN_SCRIPT)
                stats["hangul"] += korean["count"]
                for error in korean["errors"]:
                    fail(rel, f"a font for the Korean text did not load: {error}")
                if korean["boxes"] or korean["blank"]:
                    fail(rel, f"Korean characters drawn as boxes: {''.join(korean['boxes'][:20])!r}, "
                         f"blank: {''.join(korean['blank'][:20])!r} (of {korean['count']})")
                stats["images"] += out["images"]
                for src in out["broken_images"]:
                    fail(rel, f"image did not load: {src}")
                for problem in out["figure_problems"]:
                    fail(rel, f"figure {problem}")
                for src in out["dark_figures"]:
                    fail(rel, f"figure without an opaque white background (illegible in dark mode): {src}")
                stats["links"] += _check_links(html_dir, base, rel, out["hrefs"], fail)
                source_nb = html_dir / "_sources" / Path(rel).with_suffix(".ipynb")
                if source_nb.is_file():
                    stats["notebooks"] += 1
                    nb = Path(rel).with_suffix(".ipynb").as_posix()
                    if f"{base}_sources/{nb}" not in out["hrefs"]:
                        fail(rel, "no .ipynb download link")
                    target = launch_path(Path(rel).with_suffix("").as_posix(), False)
                    for name, prefix in (launch or {}).items():
                        want = prefix.replace("{nb}", target)
                        ok = [h for h in out["hrefs"] if h.startswith(want)
                              and (name != "Binder" or h.endswith(f"/{target}"))]
                        if not ok:
                            fail(rel, f"no {name} launch button for {want}")

            # The left sidebar after the page before; a tap on a folded solution's title.
            reading = browser.new_context(viewport=SIDEBAR_VIEWPORT, has_touch=True)
            reading.route("**/*", route)
            stats["reading_checks"] = _check_reading_aids(
                reading, base, [p.relative_to(html_dir).as_posix() for p in pages
                                if p.is_file() and not _parse(p).refresh], fail)
            reading.close()

            # Search: the index must find the book's main topic.
            current["page"] = "search.html"
            page.goto(f"{base}search.html?q={SEARCH_TERM}", wait_until="load")
            try:
                # Sphinx fetches every hit to show a summary; wait until all
                # are shown ("Search finished, ...") and nothing is in flight.
                page.wait_for_function(
                    "() => /finished/i.test((document.querySelector('#search-results')"
                    " || {}).innerText || '')", timeout=PAGE_TIMEOUT_MS)
                page.wait_for_load_state("networkidle")
                if not page.locator("#search-results ul.search li").count():
                    raise PlaywrightError("no hit")
                results = page.evaluate(
                    "() => [...document.querySelectorAll('#search-results ul.search li a')]"
                    ".map(a => a.href)")
                stats["search_results"] = len(results)
                _check_links(html_dir, base, "search.html", results, fail)
            except PlaywrightError:
                summary = page.evaluate(
                    "() => (document.querySelector('#search-results') || {}).innerText || ''")
                fail("search.html", f"no result for {SEARCH_TERM!r} ({summary.strip()[:120]!r})")

            # Screenshots of two chapters, light and dark, for a person to look at.
            shots_dir.mkdir(parents=True, exist_ok=True)
            chosen = [p for p in SCREENSHOT_PAGES if (html_dir / p).is_file()][:2]
            for rel in chosen:
                current["page"] = rel
                name = Path(rel).stem
                page.goto(base + rel, wait_until="load")
                page.evaluate(PAGE_SCRIPT)  # waits for MathJax and images
                page.screenshot(path=str(shots_dir / f"{name}.png"))
                page.screenshot(path=str(shots_dir / f"{name}-full.png"), full_page=True)
                page.evaluate("() => { document.documentElement.dataset.theme = 'dark';"
                              " document.documentElement.dataset.mode = 'dark'; }")
                page.evaluate("() => { const f = document.querySelector('.cell_output img');"
                              " if (f) f.scrollIntoView({block: 'center'}); }")
                page.wait_for_timeout(300)
                filters = page.evaluate(
                    "() => [...document.querySelectorAll('.cell_output img')]"
                    ".map(i => getComputedStyle(i).filter)")
                for value in filters:
                    if "invert" in value:
                        fail(rel, f"dark mode inverts figures (filter: {value})")
                page.screenshot(path=str(shots_dir / f"{name}-dark.png"))
                stats["screenshots"] += 3
                if args.readme_shot and rel == chosen[0]:
                    _readme_shot(page, base + rel, Path(args.readme_shot))
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
        fonts_dir.cleanup()

    # book/one_list.md: its script against metrics_lib on random lists
    if (html_dir / "book" / "one_list.html").is_file():
        import one_list_check  # noqa: E402 - tools/ is not a package

        if one_list_check.main([str(html_dir)]) != 0:
            fail("book/one_list.html", "its values differ from metrics_lib "
                 "(tools/one_list_check.py, above)")

    elapsed = time.monotonic() - started
    print(f"check_book: {stats['pages']} pages ({stats['notebooks']} notebooks, "
          f"{stats['pages_with_math']} with math, {stats['math']} formulas typeset), "
          f"{stats['images']} images, {stats['links']} internal links, "
          f"{stats['search_results']} search results for {SEARCH_TERM!r}, "
          f"{stats['layouts']} page layouts (widths x themes) with "
          f"{stats['image_renderings']} image and {stats['equation_renderings']} display-equation "
          f"renderings measured, "
          f"{stats['hangul']} distinct Hangul characters drawn (summed over pages), "
          f"{stats['external']} requests outside 127.0.0.1, "
          f"{stats['reading_checks']} sidebar and solution-title checks at 1366 px, "
          f"{stats['screenshots']} screenshots in {shots_dir} ({elapsed:.0f} s)")
    if failures:
        total = sum(map(len, failures.values()))
        print(f"check_book: FAIL, {total} problem(s):")
        for page_rel, messages in sorted(failures.items()):
            for message in messages:
                print(f"  {page_rel}: {message}")
        return 1
    print("check_book: PASS")
    return 0


def _readme_shot(page, url, out: Path):
    """A 1280x860 view of a chapter, shrunk to a palette PNG for the README."""
    from PIL import Image

    page.set_viewport_size({"width": 1280, "height": 860})
    page.goto(url, wait_until="load")
    page.evaluate(PAGE_SCRIPT)
    # the theme scrolls the sidebar to the current chapter; show it from the top
    page.evaluate("() => document.querySelectorAll('.bd-sidebar-primary, .bd-sidebar-primary *')"
                  ".forEach(e => { e.scrollTop = 0; })")
    raw = out.with_suffix(".raw.png")
    page.screenshot(path=str(raw))
    page.set_viewport_size({"width": 1280, "height": 1000})
    image = Image.open(raw).convert("RGB")
    image = image.resize((960, 645), Image.LANCZOS).quantize(colors=128, method=Image.MEDIANCUT)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, optimize=True)
    raw.unlink()
    print(f"check_book: README screenshot {out} ({out.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    sys.exit(main())
