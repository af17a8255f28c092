/* Ranking Matters: wide content scrolls inside its own box, with a visible cue.
 *
 * 1. Figures keep legible text. The notebooks draw with matplotlib's default 10 pt text, and
 *    myst-nb writes each figure's width at the inline backend's 100 dpi into the <img> style,
 *    so at that width the text is 10 / 72 * 100 = 13.9 CSS px. The image gets a minimum
 *    width at which that text is at least LEGIBLE times the body text; in a narrower column
 *    the figure scrolls sideways instead of shrinking (the link around it is the scroll box).
 *    On phones only; wider screens show the whole figure.
 * 2. Every box in the article that scrolls sideways and whose content is wider than the box
 *    (display equations, tables, code, such figures) gets the class rm-scroll-cue, plus
 *    rm-more-left / rm-more-right for the sides where content is hidden; the book's CSS fades
 *    those sides out, and the box's parent gets rm-hint-left / rm-hint-right, which draw an
 *    arrow on that edge (rm-hint-tall too when the box is taller than 0.6 of the screen: its
 *    arrows then stay in view while the page scrolls past it). Marked again after MathJax has
 *    typeset, on resize and on scroll.
 * 3. Tables in a block of class rm-cards become cards on a phone; each cell gets its column's
 *    name as data-label.
 * 4. Function names in the page's "Contents" column may break after "." and "_".
 * 5. The left sidebar shows the current page's entry; a folded solution's title only unfolds it.
 * tools/check_book.py measures both in a real browser.
 */
(function () {
  "use strict";
  const FIGURE_TEXT_PX = (10 / 72) * 100;
  const LEGIBLE = 0.605; // check_book.py requires 0.6
  // Phones only: on wider screens the whole figure stays in view (a click opens it full size).
  const PHONE = window.matchMedia("(max-width: 575.98px)");
  const CUE = "rm-scroll-cue";

  function article() {
    return document.querySelector(".bd-article");
  }

  function sizeFigures(root) {
    const body = parseFloat(getComputedStyle(root).fontSize) || 16;
    for (const img of root.querySelectorAll(".cell_output figure img")) {
      const designed = parseFloat(img.style.width);
      if (!designed) continue;
      if (!PHONE.matches) {
        img.style.minWidth = "";
        continue;
      }
      // min-width counts the padding and border too (dark mode frames figures)
      const style = getComputedStyle(img);
      const frame = ["paddingLeft", "paddingRight", "borderLeftWidth", "borderRightWidth"]
        .reduce((sum, side) => sum + (parseFloat(style[side]) || 0), 0);
      const picture = Math.ceil((designed * LEGIBLE * body) / FIGURE_TEXT_PX);
      img.style.minWidth = picture + frame + "px";
    }
  }

  function updateSides(box) {
    const hidden = box.scrollWidth - box.clientWidth;
    const left = hidden > 1 && box.scrollLeft > 1;
    const right = hidden > 1 && box.scrollLeft < hidden - 1;
    box.classList.toggle("rm-more-left", left);
    box.classList.toggle("rm-more-right", right);
    // the arrows: on the parent, which the fading mask of the box does not cover
    if (box.parentElement) {
      box.parentElement.classList.toggle("rm-hint-left", left);
      box.parentElement.classList.toggle("rm-hint-right", right);
      // a box taller than most of the screen: its arrows follow the reader (ranking-matters.css)
      const tall = (left || right) && box.getBoundingClientRect().height > 0.6 * window.innerHeight;
      box.parentElement.classList.toggle("rm-hint-tall", tall);
      if (left || right) placeHints(box);
    }
  }

  // The parent may hold more than the box (a cell's printed line above its table, a figure's
  // caption below it, an equation's number beside it): the arrows go on the box's own edges,
  // whose offsets inside the parent ranking-matters.css reads from these variables.
  function placeHints(box) {
    const parent = box.parentElement;
    const outer = parent.getBoundingClientRect(), inner = box.getBoundingClientRect();
    const style = getComputedStyle(parent);
    const border = (side) => parseFloat(style[`border${side}Width`]) || 0;
    const px = (name, value) => parent.style.setProperty(name, `${Math.round(value)}px`);
    px("--rm-box-top", inner.top - outer.top - border("Top"));
    px("--rm-box-bottom", outer.bottom - inner.bottom - border("Bottom"));
    px("--rm-box-left", inner.left - outer.left - border("Left"));
    px("--rm-box-right", outer.right - inner.right - border("Right"));
    px("--rm-box-middle", inner.height / 2);
  }

  // Tables shown as cards on a phone (ranking-matters.css): each cell gets its column's name.
  function labelCards(root) {
    for (const table of root.querySelectorAll(".rm-cards table")) {
      if (table.dataset.rmLabelled) continue;
      const names = [...table.querySelectorAll("thead th")].map((th) => th.textContent.trim());
      for (const row of table.querySelectorAll("tbody tr"))
        [...row.cells].forEach((cell, i) => cell.setAttribute("data-label", names[i] || ""));
      table.dataset.rmLabelled = "1";
    }
  }

  // The page's "Contents" column: long function names in it wrap (ranking-matters.css); a
  // break after "." or "_" keeps the words whole ("SimulatedWorld.", "examination_").
  function breakTocNames() {
    for (const pre of document.querySelectorAll(".bd-sidebar-secondary code span.pre")) {
      if (pre.dataset.rmBreaks || pre.children.length) continue;
      const parts = pre.textContent.split(/(?<=[._])/);
      pre.replaceChildren(...parts.flatMap((part, i) =>
        i ? [document.createElement("wbr"), part] : [part]));
      pre.dataset.rmBreaks = "1";
    }
  }

  // The left sidebar: pydata-sphinx-theme reopens it where the previous page left it
  // (sessionStorage "sidebar-scroll-top"), so a chapter opened after the API page (at the list's
  // end) showed the list scrolled, its top cut off, often with the chapter's own entry hidden
  // above. The list now opens at its top whenever the current entry is seen there (in the upper
  // three quarters); an entry further down stays where the reader left it if it is in view, and
  // is otherwise put a quarter of the way down (the theme's rule for a first visit).
  function showCurrentInSidebar() {
    const sidebar = document.querySelector(".bd-sidebar-primary");
    const entry = sidebar && [...sidebar.querySelectorAll(".bd-docs-nav li.active > a")].pop();
    if (!entry || sidebar.clientHeight === 0) return;
    const box = sidebar.getBoundingClientRect(), link = entry.getBoundingClientRect();
    const offset = link.top - box.top + sidebar.scrollTop; // from the list's top
    if (offset + link.height <= 0.75 * sidebar.clientHeight) sidebar.scrollTop = 0;
    else if (link.top < box.top || link.bottom > box.bottom)
      sidebar.scrollTop = offset - 0.25 * sidebar.clientHeight;
  }

  // A folded solution's title ("Solution to Exercise 4.1") unfolds it when clicked
  // (sphinx-togglebutton), but most of the title is the link to its exercise: a tap there
  // followed the link, and togglebutton's handler, finding no button under a link, threw (or
  // toggled the solution clicked before). A click on that link now only unfolds or folds its own
  // solution (through its toggle button); with Ctrl, Shift or Cmd it opens the link as usual.
  function onTitleClick(event) {
    const link = event.target.closest && event.target.closest(".admonition.dropdown > .admonition-title a[href]");
    if (!link) return;
    event.stopPropagation(); // before togglebutton's handler on the title
    if (event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    const button = link.closest(".admonition-title").querySelector(".toggle-button");
    if (button) button.click();
  }

  function onScroll(event) {
    updateSides(event.currentTarget);
  }

  // Elements of the article, MathJax's inner ones left out (the equation's own
  // container is the box).
  function* elements(root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT, {
      acceptNode: (node) =>
        node.parentElement && node.parentElement.closest("mjx-container")
          ? NodeFilter.FILTER_REJECT
          : NodeFilter.FILTER_ACCEPT,
    });
    while (walker.nextNode()) yield walker.currentNode;
  }

  // Scroll boxes: elements whose content is wider and whose computed overflow-x scrolls.
  function markScrollBoxes(root) {
    for (const el of elements(root)) {
      const over = el.scrollWidth > el.clientWidth + 1;
      if (!over && !el.classList.contains(CUE)) continue; // the cheap test first
      const overflowX = over ? getComputedStyle(el).overflowX : "";
      const wide = over && (overflowX === "auto" || overflowX === "scroll");
      if (wide && !el.classList.contains(CUE)) {
        el.classList.add(CUE);
        el.addEventListener("scroll", onScroll, { passive: true });
      } else if (!wide && el.classList.contains(CUE)) {
        el.classList.remove(CUE, "rm-more-left", "rm-more-right");
        if (el.parentElement)
          el.parentElement.classList.remove("rm-hint-left", "rm-hint-right", "rm-hint-tall");
        el.removeEventListener("scroll", onScroll);
      }
      if (wide) updateSides(el);
    }
  }

  function mark() {
    const root = article();
    if (!root) return;
    labelCards(root);
    sizeFigures(root);
    markScrollBoxes(root);
  }

  let pending = false;
  function markSoon() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      mark();
    });
  }

  document.addEventListener("click", onTitleClick, true); // capture: ahead of the title's handler

  async function start() {
    showCurrentInSidebar();
    breakTocNames();
    mark();
    // MathJax loads after this script and typesets asynchronously.
    if (document.querySelector(".math")) {
      const deadline = Date.now() + 20000;
      while (!(window.MathJax && MathJax.startup && MathJax.startup.promise) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100));
      if (window.MathJax && MathJax.startup && MathJax.startup.promise) await MathJax.startup.promise;
    }
    mark();
    document.documentElement.dataset.rmScrollCues = "ready"; // for tools/check_book.py
    window.addEventListener("resize", markSoon);
    // a column that changes width without a window resize (sidebars, fonts)
    if (window.ResizeObserver) new ResizeObserver(markSoon).observe(article() || document.body);
    window.addEventListener("load", markSoon); // images that arrived late
    document.addEventListener("transitionend", markSoon); // the sidebars slide in and out
    // the light/dark switch changes the figures' frame
    new MutationObserver(markSoon).observe(document.documentElement,
                                           { attributes: true, attributeFilter: ["data-theme"] });
    if (document.fonts) document.fonts.ready.then(markSoon);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
