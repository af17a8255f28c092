"""Layout checks of one book page at reader widths, light and dark (used by check_book.py).

At 390 (a phone), 1024, 1366 and 1920 px, in the light and the dark theme, with the page
already loaded and typeset:

* shape: every ``<img>`` in the article is drawn within 2 % of its own aspect ratio
  (naturalWidth / naturalHeight against the rendered box), and at 1024 px and wider
  every figure is shown whole (it does not scroll);
* legible figures: on a phone (390 px) the smallest text of every notebook figure is drawn
  at no less than 0.6 of the body text. That text's size is the smallest font size the code
  cell that drew the figure sets, or matplotlib's base ``font.size`` (tools/figure_text.py; the
  cell is found through the PNG's name, the SHA-256 of its bytes, in the notebooks the build
  copied to ``_sources``), at the PNG's own dpi (read from the file), so the size on screen is
  ``points / 72 * dpi * rendered width / naturalWidth`` CSS px. (Assuming the base size for
  every figure let tick labels set to 8 pt pass at 0.8 of their true size.);
* dark mode keeps figures as drawn: no invert filter, fully opaque (check_book.py checks
  that each figure has its own opaque light background), and its frame makes no figure that
  fits the column in the light theme scroll;
* nothing clipped: every display equation fits its box (at 1024 px and wider) or, on a
  phone, scrolls; every element that
  scrolls sideways because its content is wider (equations, tables, code, figures) carries
  the visible cue (class ``rm-scroll-cue``, a fading mask at the hidden side and an arrow on
  that edge, from ``_static/ranking-matters.js`` and ``_static/ranking-matters.css``); every table and
  every inline code box lies inside the article column or inside such a scroll box; no
  figure box leaves the screen; the page itself never scrolls sideways;
* API entries: every parameter name is drawn on one line and not under its type;
* a scroll box taller than 0.6 of the screen draws its arrows sticky (they stay in view
  while the page scrolls past it), with no scrolling ancestor that would hold them; any other
  box draws its arrows on itself (vertically centred on a box lower than the arrow), not on a
  printed line, an equation number or a caption that shares the arrow's parent element;
* the page's "Contents" column (from 1200 px): no entry is cut off at its edge (every level
  shown), and over a full-width block it collapses to its heading within 0.1 s, with no
  empty panel left hanging over the block.
"""

from __future__ import annotations

import functools
from pathlib import Path
from urllib.parse import unquote, urlsplit

from PIL import Image

import figure_text

WIDTHS = (390, 1024, 1366, 1920)
FIT_WIDTHS = (1024, 1366, 1920)  # every display equation fits, no scrolling
HEIGHTS = {390: 844}
MODES = ("light", "dark")
ASPECT_TOLERANCE = 0.02
LEGIBLE_SHARE = 0.6  # figure text / body text, at the least
LEGIBLE_WIDTHS = (390,)  # on a phone; wider screens show the whole figure, text may be smaller

LAYOUT_SCRIPT = """
async ([mode, resized, wait_ms]) => {
  const html = document.documentElement;
  html.dataset.theme = mode; html.dataset.mode = mode;
  const frame = () => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const sleep = ms => new Promise(r => setTimeout(r, ms));
  // the sidebars slide in or out (0.25 s): wait until the column keeps its width
  const column = () => (document.querySelector('.bd-article') || html).clientWidth;
  if (resized)
    for (let last = -1, i = 0; column() !== last && i < 20; i++) { last = column(); await sleep(60); }
  await frame();
  const deadline = Date.now() + wait_ms;
  while (html.dataset.rmScrollCues !== 'ready' && Date.now() < deadline)
    await new Promise(r => setTimeout(r, 50));
  await frame();
  const art = document.querySelector('.bd-article');
  const out = {theme: getComputedStyle(html).getPropertyValue('--pst-color-background').trim(),
               cues_ready: html.dataset.rmScrollCues === 'ready', images: [], equations: [],
               uncued: [], tables: [], code: [], page_scroll: html.scrollWidth - innerWidth,
               names: [], tall: [], off_box: [], toc: [], toc_panel: 0};
  if (!art) return out;
  const cs = getComputedStyle(art);
  const col = art.getBoundingClientRect();
  const left = col.left + parseFloat(cs.paddingLeft), right = col.right - parseFloat(cs.paddingRight);
  out.body_px = parseFloat(getComputedStyle(art.querySelector('p') || art).fontSize);
  const scrolls = e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  // an arrow on each hidden side, drawn by the parent (the fade alone read as a formula's end)
  const arrow = (e, side, pseudo, glyph) => !e.classList.contains(`rm-more-${side}`) ||
    (!!e.parentElement && e.parentElement.classList.contains(`rm-hint-${side}`) &&
     getComputedStyle(e.parentElement, pseudo).content.includes(glyph));
  const cued = e => {
    const s = getComputedStyle(e);
    const mask = s.maskImage || s.webkitMaskImage || '';
    return e.classList.contains('rm-scroll-cue') && mask.includes('gradient') &&
      arrow(e, 'right', '::after', '\u203a') && arrow(e, 'left', '::before', '\u2039');
  };
  const label = e => (e.id || (e.closest('[id]') || {}).id || e.tagName.toLowerCase()) +
    (e.textContent ? ` "${e.textContent.trim().slice(0, 40)}"` : '');
  // the nearest ancestor (or the element) that scrolls sideways, inside the article
  const scroller = e => { for (let a = e; a && a !== art; a = a.parentElement)
                            if (scrolls(a)) return a; return null; };
  const inside = (r, box) => r.left >= box.left - 1 && r.right <= box.right + 1;
  // the column: the article's, or a full-width block's (it takes the right margin too)
  const columnOf = e => { const f = e.closest('.full-width, .full_width, .tag_full-width, .tag_full_width');
    return f && art.contains(f) ? f.getBoundingClientRect() : {left, right}; };
  const inColumn = e => { const r = e.getBoundingClientRect(), s = scroller(e);
    return inside(r, columnOf(e)) || (s && s !== e && cued(s)) || (s === e && cued(e)); };
  for (const img of art.querySelectorAll('img')) {
    const r = img.getBoundingClientRect(), s = getComputedStyle(img);
    const box = (scroller(img) || img).getBoundingClientRect();
    // the picture itself: the content box (dark mode pads figures on a light frame)
    const edge = side => parseFloat(s[`padding${side}`]) + parseFloat(s[`border${side}Width`]);
    out.images.push({src: img.getAttribute('src'), nw: img.naturalWidth, nh: img.naturalHeight,
      w: r.width - edge('Left') - edge('Right'), h: r.height - edge('Top') - edge('Bottom'), figure: !!img.closest('.cell_output figure'),
      filter: s.filter, opacity: parseFloat(s.opacity),
      off_screen: box.left < -1 || box.right > innerWidth + 1,
      cut: !!scroller(img) && scroller(img).scrollWidth > scroller(img).clientWidth + 1});
  }
  for (const m of art.querySelectorAll('mjx-container[display="true"]')) {
    const box = m.closest('.math') || m.parentElement;
    const over = m.scrollWidth - m.clientWidth;
    const clipped = !inside(m.getBoundingClientRect(), box.getBoundingClientRect());
    out.equations.push({label: (box.id || label(m)).slice(0, 60), over,
                        scrolls: scrolls(m), cued: cued(m), clipped});
  }
  const walker = document.createTreeWalker(art, NodeFilter.SHOW_ELEMENT, {acceptNode: n =>
    n.parentElement.closest('mjx-container') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
  while (walker.nextNode()) {
    const e = walker.currentNode;
    if (e.scrollWidth > e.clientWidth + 1 && scrolls(e) && !cued(e))
      out.uncued.push(`${e.tagName.toLowerCase()}.${[...e.classList].join('.')} ` +
                      `(${e.scrollWidth} px in ${e.clientWidth} px) in ${label(e).slice(0, 60)}`);
  }
  for (const t of art.querySelectorAll('table'))
    if (!inColumn(t)) out.tables.push(label(t).slice(0, 60));
  for (const c of art.querySelectorAll('code'))
    if (!c.closest('pre') && ![...c.getClientRects()].every(r => inside(r, columnOf(c)))
        && !inColumn(c))
      out.code.push(c.textContent.trim().slice(0, 50));
  // API entries: each parameter name is drawn on one line (a line of several names,
  // "n_days, sessions_per_user, ...", may wrap at its spaces), clear of its type
  const wordLines = node => {  // the most lines any one word of a text node is drawn on
    let most = 1;
    for (const m of node.textContent.matchAll(/\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
      most = Math.max(most, new Set([...range.getClientRects()].filter(q => q.width > 0)
                                    .map(q => Math.round(q.top))).size);
    }
    return most;
  };
  for (const name of art.querySelectorAll('dl.field-list dd > dl > dt > strong')) {
    const texts = document.createTreeWalker(name, NodeFilter.SHOW_TEXT);
    let most = 1;
    while (texts.nextNode()) most = Math.max(most, wordLines(texts.currentNode));
    const type = name.parentElement.querySelector('.classifier');
    const n = name.getBoundingClientRect(), t = type && type.getClientRects()[0];
    const overlaps = t && t.top < n.bottom - 1 && t.bottom > n.top + 1 &&
                     t.left < n.right - 1 && t.right > n.left + 1;
    if (most > 1 || overlaps)
      out.names.push(`${name.textContent.trim()} (${most > 1 ? 'a word broken over ' + most +
        ' lines' : 'drawn under its type'}) in ${label(name.closest('dl.py') || name).slice(0, 40)}`);
  }
  // a scroll box taller than most of the screen: its arrows stay in view (sticky), or the
  // reader in its middle sees no sign that it scrolls
  for (const e of art.querySelectorAll('.rm-scroll-cue')) {
    if (e.getBoundingClientRect().height <= 0.6 * innerHeight || !e.parentElement) continue;
    for (const [side, pseudo] of [['right', '::after'], ['left', '::before']]) {
      if (!e.classList.contains(`rm-more-${side}`)) continue;
      let sticky = getComputedStyle(e.parentElement, pseudo).position === 'sticky';
      for (let a = e.parentElement.parentElement; sticky && a && a !== document.body; a = a.parentElement)
        if (!['visible', 'clip'].includes(getComputedStyle(a).overflowY)) sticky = false;  // it would stick to a
      if (!sticky) out.tall.push(`${e.tagName.toLowerCase()} ${Math.round(e.getBoundingClientRect().height)} px tall ` +
                                 `(${side} arrow) in ${label(e).slice(0, 50)}`);
    }
  }
  // each arrow of a box that is not tall lies on that box, not on what shares its parent (a
  // printed line above a table, an equation's number, a figure's caption): measured on a probe
  // element given the arrow's used style, in the arrow's place
  const arrowBox = (parent, pseudo) => {
    const s = getComputedStyle(parent, pseudo);
    if (!s.content || s.content === 'none') return null;
    const probe = document.createElement('span');
    for (const k of ['position', 'display', 'top', 'right', 'bottom', 'left', 'marginTop', 'marginRight',
                     'marginBottom', 'marginLeft', 'width', 'height', 'transform', 'boxSizing'])
      probe.style[k] = s[k];
    if (pseudo === '::before') parent.prepend(probe); else parent.append(probe);
    const r = probe.getBoundingClientRect();
    probe.remove();
    return r;
  };
  for (const e of art.querySelectorAll('.rm-scroll-cue')) {
    const p = e.parentElement, b = e.getBoundingClientRect();
    if (!p || p.classList.contains('rm-hint-tall') || !b.width) continue;  // tall: sticky, checked above
    for (const [side, pseudo] of [['right', '::after'], ['left', '::before']]) {
      const a = e.classList.contains(`rm-more-${side}`) && arrowBox(p, pseudo);
      if (!a) continue;
      const slack = Math.max(0, (a.height - b.height) / 2);  // a box lower than the arrow: centred on it
      const off = Math.max(b.top - slack - a.top, a.bottom - b.bottom - slack, b.left - a.left, a.right - b.right);
      if (off > 1) out.off_box.push(`${side} arrow of ${e.tagName.toLowerCase()} ${Math.round(off)} px off the box ` +
                                    `(arrow ${Math.round(a.left)},${Math.round(a.top)}; box ${Math.round(b.left)},` +
                                    `${Math.round(b.top)} to ${Math.round(b.right)},${Math.round(b.bottom)}) in ${label(e).slice(0, 50)}`);
    }
  }
  // the page's "Contents" column (shown from 1200 px): every entry within it, none cut off
  const side = document.querySelector('.bd-sidebar-secondary');
  const sideBox = side && side.getBoundingClientRect();
  if (sideBox && sideBox.width > 0 && sideBox.left >= 0 && sideBox.right <= innerWidth + 1 &&
      getComputedStyle(side).visibility !== 'hidden') {
    const limit = Math.min(innerWidth, sideBox.left + side.clientLeft + side.clientWidth) + 1;
    const closed = [...side.querySelectorAll('nav ul ul')].filter(u => getComputedStyle(u).display === 'none');
    closed.forEach(u => u.style.display = 'block');  // every level, as the reader scrolls on
    for (const a of side.querySelectorAll('nav a'))
      if (a.scrollWidth > a.clientWidth + 1 || a.getBoundingClientRect().right > limit)
        out.toc.push(a.textContent.trim().slice(0, 50));
    closed.forEach(u => u.style.display = '');
    // over a full-width block the theme collapses the column to its heading: at once, not
    // as an empty panel over the block
    const full = art.querySelector('.full-width, .full_width, .tag_full-width, .tag_full_width');
    if (full) {
      const y = scrollY;
      full.scrollIntoView();
      await frame(); await sleep(100);
      const head = side.querySelector('.onthispage');
      if (side.classList.contains('hide') && head) {
        const extra = side.getBoundingClientRect().bottom - head.getBoundingClientRect().bottom;
        if (extra > 8) out.toc_panel = Math.round(extra);
      }
      window.scrollTo(0, y);
      await frame(); await sleep(500);  // the column opens again
    }
  }
  return out;
}
"""


@functools.lru_cache(maxsize=None)
def _png_dpi(path: Path) -> float | None:
    """The horizontal dpi a PNG declares (matplotlib writes its savefig dpi)."""
    try:
        with Image.open(path) as image:
            dpi = image.info.get("dpi")
    except OSError:
        return None
    return float(dpi[0]) if dpi else None


@functools.lru_cache(maxsize=None)
def _figure_cells(html_dir: Path) -> dict[str, str]:
    """PNG SHA-256 -> source of the cell that drew it, over the notebooks of the build."""
    return figure_text.figure_cells(sorted((html_dir / "_sources").rglob("*.ipynb")))


def _figure_text(html_dir: Path, image: dict) -> tuple[float, float] | None:
    """(pt, CSS px) of the figure's smallest text as drawn; None without a dpi or a cell."""
    url = urlsplit(image["src"] or "")
    name = unquote(url.path).lstrip("/").split("_images/")[-1]
    dpi = _png_dpi(html_dir / "_images" / name)
    if not dpi or not image["nw"]:
        return None
    source = _figure_cells(html_dir).get(Path(name).stem)
    if source is None:
        return None
    points = figure_text.smallest_text_pt(source)
    return points, points / 72 * dpi * image["w"] / image["nw"]


def _image_problems(html_dir, base, out, where):
    for image in out["images"]:
        name = (image["src"] or "?").split("/")[-1][:16]
        if image["nw"] and image["nh"] and image["w"] and image["h"]:
            ratio = (image["w"] / image["h"]) / (image["nw"] / image["nh"])
            if abs(ratio - 1) > ASPECT_TOLERANCE:
                yield (f"image {name} drawn at {ratio:.1%} of its own aspect ratio "
                       f"({image['w']:.0f}x{image['h']:.0f} px for {image['nw']}x{image['nh']}) {where}")
        if "invert" in image["filter"] or image["opacity"] < 0.99:
            yield f"image {name} altered by the theme (filter {image['filter']}, opacity {image['opacity']}) {where}"
        if image["off_screen"]:
            yield f"figure {name} reaches past the edge of the screen {where}"
        if image["cut"] and out["width"] in FIT_WIDTHS:
            yield f"figure {name} does not fit the column (it scrolls) {where}"
        if not image["figure"] or out["width"] not in LEGIBLE_WIDTHS:
            continue
        text = _figure_text(html_dir, image)
        need = LEGIBLE_SHARE * out["body_px"]
        if text is None:
            yield (f"figure {name}: its text size is unknown (no dpi in the PNG, or no notebook "
                   f"cell in _sources drew it) {where}")
        elif text[1] < need:
            yield (f"figure {name}: its {text[0]:g} pt text drawn at {text[1]:.1f} px, below "
                   f"{LEGIBLE_SHARE} x {out['body_px']:.0f} px body text ({image['w']:.0f} px "
                   f"wide, {image['nw']} px natural) {where}")


def _box_problems(out, where):
    if not out["cues_ready"]:
        yield f"_static/ranking-matters.js did not mark the scroll boxes {where}"
    for eq in out["equations"]:
        if eq["clipped"]:
            yield f"equation {eq['label']} clipped by its box {where}"
        if eq["over"] > 1 and out["width"] in FIT_WIDTHS:
            yield f"equation {eq['label']} is {eq['over']} px wider than its box {where}"
        elif eq["over"] > 1 and not (eq["scrolls"] and eq["cued"]):
            yield f"equation {eq['label']} is {eq['over']} px too wide and does not scroll with a cue {where}"
    for text in out["uncued"]:
        yield f"scrolls sideways without a cue: {text} {where}"
    for text in out["tables"]:
        yield f"table outside the column and not in a scroll box with a cue: {text} {where}"
    for text in out["code"]:
        yield f"inline code leaves the column: {text!r} {where}"
    for text in out["names"]:
        yield f"API parameter name not drawn whole: {text} {where}"
    for text in out["tall"]:
        yield f"tall scroll box whose arrow does not stay in view: {text} {where}"
    for text in out["off_box"]:
        yield f"scroll cue arrow drawn off its own box (over other content): {text} {where}"
    for text in out["toc"]:
        yield f"'Contents' entry cut off at the column's edge: {text!r} {where}"
    if out["toc_panel"]:
        yield (f"the collapsed 'Contents' box hangs {out['toc_panel']} px of empty panel "
               f"over the full-width block 0.1 s after it came into view {where}")
    if out["page_scroll"] > 1:
        yield f"the page scrolls sideways by {out['page_scroll']} px {where}"


def check_layout(page, html_dir: Path, base: str, fail, stats) -> None:
    """Run LAYOUT_SCRIPT at every width and mode; report through fail(message)."""
    backgrounds = {}
    wait_ms = 10_000  # for _static/ranking-matters.js; not again if it never came
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": HEIGHTS.get(width, 1000)})
        cut_light = set()
        for mode in MODES:
            out = page.evaluate(LAYOUT_SCRIPT, [mode, mode == MODES[0], wait_ms])
            wait_ms = wait_ms if out["cues_ready"] else 0
            out["width"] = width
            where = f"at {width} px ({mode})"
            backgrounds[mode] = out["theme"]
            stats["layouts"] += 1
            stats["image_renderings"] += len(out["images"])
            stats["equation_renderings"] += len(out["equations"])
            for message in _image_problems(html_dir, base, out, where):
                fail(message)
            # the dark theme's frame must not push a figure that fits past its column
            cut = {image["src"] for image in out["images"] if image["cut"]}
            if mode == MODES[0]:
                cut_light = cut
            for src in sorted(cut - cut_light):
                fail(f"figure {(src or '?').split('/')[-1][:16]} fits its column in the light "
                     f"theme but scrolls in the dark one {where}")
            for message in _box_problems(out, where):
                fail(message)
    if backgrounds.get("light") == backgrounds.get("dark"):
        fail(f"the dark theme did not apply (page background {backgrounds.get('dark')!r} in both)")
    page.evaluate("() => { document.documentElement.dataset.theme = 'light';"
                  " document.documentElement.dataset.mode = 'light'; }")
