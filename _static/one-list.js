/* Ranking Matters: "One list, every library" (book/one_list.md).
 *
 * The reader edits one ranked list; the page shows P@k, R@k, RR, AP and NDCG under every
 * peer preset of metrics_lib, each value that differs from trec_eval's labelled with the
 * conventions that cause it. The presets' keywords are written into the page at build time
 * (_ext/one_list.py, from metrics_lib/conventions/peers.py); this file holds no preset.
 * OneList.value() computes one metric of one list for one preset's keywords, as
 * metrics_lib.evaluate(..., convention=peer) does for a single user: tools/one_list_check.py
 * compares the two on random lists in a real browser. Pages without the data do nothing.
 */
(function (root) {
  "use strict";

  // A list item: {id, score, grade}, grade null when not judged. missing[g - 1]: the
  // relevant items of grade g that the list lacks.
  function byteCompare(a, b) {
    // item ids compared as text (ASCII ids: UTF-16 order is the UTF-8 byte order)
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // The user's judgements as [id, grade] pairs, before any preset's filter.
  function judgements(items, missing) {
    const out = [];
    for (const item of items) if (item.grade !== null) out.push([item.id, item.grade]);
    missing.forEach((count, i) => {
      for (let n = 0; n < count; n++) out.push(["m" + (i + 1) + "_" + n, i + 1]);
    });
    return out;
  }

  function emptyValue(spec) {
    return spec.empty === "zero" ? 0 : spec.empty === "one" ? 1 : null; // null: NaN
  }

  // The list in the preset's order, as groups of tied items (one item per group unless
  // ties is "average" or "block", which treat a tied group as one).
  function ordered(items, spec) {
    const rows = items.map((item, at) => ({
      id: item.id, at,
      score: spec.float32 ? Math.fround(item.score) : item.score,
    }));
    rows.sort((a, b) => {
      if (a.score !== b.score) return b.score - a.score;
      if (spec.ties === "item_desc") return byteCompare(b.id, a.id);
      if (spec.ties === "item_asc") return byteCompare(a.id, b.id);
      return a.at - b.at; // input, average, block: stable
    });
    const groups = [];
    for (const row of rows) {
      const last = groups[groups.length - 1];
      const joins = (spec.ties === "average" || spec.ties === "block") && last &&
        last[0].score === row.score;
      if (joins) last.push(row);
      else groups.push([row]);
    }
    return groups;
  }

  function gainOf(grade, spec) {
    if (spec.gain === "binary") return grade >= spec.relevance_level ? 1 : 0;
    if (spec.gain === "exponential") return Math.pow(2, grade) - 1;
    return grade;
  }

  function discount(rank, spec) {
    return Math.log(rank + 1) / Math.log(spec.log_base);
  }

  // One metric ("precision", "recall", "rr", "ap", "ndcg") of one list under one
  // preset's keywords; k is ignored when spec.at_k is false. Returns a number, or null
  // when the preset gives no value (the user is left out, or NaN).
  function value(kind, items, missing, k, spec) {
    let truth = judgements(items, missing);
    if (items.length === 0 && truth.length === 0) return null; // no user at all
    if (items.length === 0 && spec.missing === "skip") return null;
    if (truth.length === 0 && spec.unjudged === "skip") return null;
    if (spec.every_row) truth = truth.map(([id]) => [id, 1]);
    if (spec.candidates === "recommended") {
      const listed = new Set(items.map((item) => item.id));
      truth = truth.filter(([id]) => listed.has(id));
    }
    const grades = new Map(truth);
    const level = spec.relevance_level;
    const nRelevant = truth.filter(([, g]) => g >= level).length;
    const cut = spec.at_k ? k : null;
    const groups = ordered(items, spec);
    const n = items.length;
    const top = cut === null ? n : Math.min(cut, n);
    // per rank (1-based order of the groups' items): grade and whether it is a hit
    const ranks = [];
    for (const group of groups)
      for (const row of group) {
        const grade = grades.has(row.id) ? grades.get(row.id) : null;
        const below = spec.score_threshold !== null && row.score <= spec.score_threshold;
        ranks.push({grade, hit: grade !== null && grade >= level && !below, group});
      }
    if (kind === "ndcg") return ndcg(ranks, groups, truth, cut, top, spec);
    if (nRelevant === 0) return emptyValue(spec);
    let hits = 0;
    for (let i = 0; i < top; i++) if (ranks[i].hit) hits++;
    if (kind === "precision") {
      const denominator = spec.precision_denominator === "min_k" ? Math.min(cut, nRelevant)
        : spec.precision_denominator === "retrieved" ? Math.min(cut, n) : cut;
      return denominator === 0 ? 0 : hits / denominator;
    }
    if (kind === "recall") return hits / nRelevant;
    if (kind === "rr") {
      for (let i = 0; i < top; i++) if (ranks[i].hit) return 1 / (i + 1);
      return 0;
    }
    if (kind === "ap") return averagePrecision(ranks, groups, cut, top, nRelevant, hits, spec);
    throw new Error("unknown metric " + kind);
  }

  function averagePrecision(ranks, groups, cut, top, nRelevant, hits, spec) {
    if (spec.ties === "block") {
      // every item of a tied group at the group's last rank (scikit-learn's thresholds)
      let sum = 0, seen = 0, found = 0;
      for (const group of groups) {
        const inGroup = ranks.slice(seen, seen + group.length).filter((r) => r.hit).length;
        seen += group.length;
        if (cut !== null && seen > cut) break;
        found += inGroup;
        sum += inGroup * (found / seen);
      }
      return sum / nRelevant;
    }
    let sum = 0, found = 0;
    for (let i = 0; i < top; i++)
      if (ranks[i].hit) {
        found++;
        sum += found / (i + 1);
      }
    const denominator = spec.denominator === "relevant" ? nRelevant
      : spec.denominator === "min_k" ? Math.min(cut, nRelevant)
        : spec.denominator === "retrieved" ? hits : cut;
    return denominator === 0 ? 0 : sum / denominator;
  }

  function ndcg(ranks, groups, truth, cut, top, spec) {
    const judged = truth.map(([, g]) => gainOf(g, spec)).sort((a, b) => b - a);
    if (!judged.some((g) => g > 0)) return emptyValue(spec);
    const gain = (r) => (r.grade === null ? 0 : gainOf(r.grade, spec));
    let dcg = 0;
    if (spec.ties === "average") {
      // each tied group: its mean gain at every rank of the group inside the cut-off
      let start = 0;
      for (const group of groups) {
        const mean = ranks.slice(start, start + group.length)
          .reduce((s, r) => s + gain(r), 0) / group.length;
        for (let i = start; i < Math.min(start + group.length, top); i++)
          dcg += mean / discount(i + 1, spec);
        start += group.length;
      }
    } else {
      for (let i = 0; i < top; i++) dcg += gain(ranks[i]) / discount(i + 1, spec);
    }
    let ideal;
    if (spec.ideal === "k") ideal = new Array(cut).fill(judged[0]);
    else ideal = cut === null ? judged : judged.slice(0, cut);
    const idealDcg = ideal.reduce((s, g, i) => s + g / discount(i + 1, spec), 0);
    return idealDcg === 0 ? 0 : dcg / idealDcg;
  }

  // -- labels: which conventions make a value differ from trec_eval's ---------------------

  const CONVENTIONS = {
    ties: (v) => "tie order: " + ({item_desc: "id descending", item_asc: "id ascending",
      input: "input order", average: "average over tie orders",
      block: "tied group as one threshold"}[v] || v),
    float32: (v) => (v ? "scores as float32" : "scores as float64"),
    at_k: (v) => (v ? "cut at k" : "whole list (no @k)"),
    every_row: (v) => (v ? "every judged row relevant (grade 0 too)" : "grade >= level relevant"),
    candidates: (v) => (v === "recommended" ? "only the listed items' judgements" : "all judgements"),
    score_threshold: (v) => (v === null ? "no score threshold" : "score <= " + v + " never a hit"),
    gain: (v) => "gain: " + v,
    ideal: (v) => "ideal list: " + ({judged: "judged grades", k: "k copies of the best grade"}[v] || v),
    denominator: (v) => "AP denominator: " + ({relevant: "|R|", min_k: "min(k, |R|)",
      retrieved: "relevant retrieved", k: "k"}[v] || v),
    precision_denominator: (v) => "P denominator: " + ({k: "k", min_k: "min(k, |R|)",
      retrieved: "min(k, list length)"}[v] || v),
    relevance_level: (v) => "relevance level " + v,
    empty: (v) => "no relevant item: " + ({zero: "0", nan: "NaN (left out)", one: "1"}[v] || v),
    missing: (v) => "empty list: " + ({zero: "scored 0", skip: "user left out"}[v] || v),
    unjudged: (v) => "no judgement: " + ({empty: "scored", skip: "user left out"}[v] || v),
    log_base: (v) => "log base " + v,
  };

  function shown(x) {
    return x === null ? "no value" : x.toFixed(4);
  }

  // The conventions that account for a difference from trec_eval's value: the smallest
  // sets of the conventions in which `spec` differs from `base` that, set to base's
  // values, give base's printed value. One set: its conventions, one line each. Several
  // sets of that size: one line per set (its conventions joined by " + "), the second and
  // later marked "or:", since each set alone accounts for the difference.
  function causes(kind, items, missing, k, spec, base) {
    const target = shown(value(kind, items, missing, k, base));
    const differ = Object.keys(CONVENTIONS).filter((key) => spec[key] !== base[key]);
    const label = (key) => CONVENTIONS[key](spec[key]);
    for (let size = 1; size <= differ.length; size++) {
      const found = [];
      for (let mask = 1; mask < 1 << differ.length; mask++) {
        const set = differ.filter((_, i) => mask & (1 << i));
        if (set.length !== size) continue;
        const changed = Object.assign({}, spec);
        for (const key of set) changed[key] = base[key];
        if (shown(value(kind, items, missing, k, changed)) === target) found.push(set);
      }
      if (found.length === 1) return found[0].map(label);
      if (found.length > 1)
        return found.map((set, i) => (i ? "or: " : "") + set.map(label).join(" + "));
    }
    return differ.map(label);
  }

  // The whole table: {peer: {kind: {value, text, causes}}} (null: the peer lacks the metric).
  function table(data, list) {
    const out = {};
    const base = data.presets.trec_eval.metrics;
    for (const peer of data.peers) { // metrics_lib.PEERS' order, trec_eval first
      out[peer] = {};
      for (const [kind] of data.kinds) {
        const spec = data.presets[peer].metrics[kind];
        if (!spec) { out[peer][kind] = null; continue; }
        const v = value(kind, list.items, list.missing, list.k, spec);
        const reference = shown(value(kind, list.items, list.missing, list.k, base[kind]));
        out[peer][kind] = {value: v, text: shown(v),
          causes: shown(v) === reference ? [] : causes(kind, list.items, list.missing, list.k,
                                                       spec, base[kind])};
      }
    }
    return out;
  }

  const api = {value, table, shown, causes};
  root.OneList = api;
  if (typeof module !== "undefined" && module.exports) module.exports = api;

  // -- the page: the list editor and the table ----------------------------------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, val] of Object.entries(attrs || {})) {
      if (key === "on") for (const [ev, fn] of Object.entries(val)) node.addEventListener(ev, fn);
      else if (key in node && key !== "list") node[key] = val;
      else node.setAttribute(key, val);
    }
    for (const child of children)
      if (child !== null) node.append(child);
    return node;
  }

  // A whole-number field; `set` gets the value, then the table is drawn again (the field
  // stays, and keeps the focus a Tab gave the next control); a value refused is undone.
  function number(labelText, get, min, set, redraw) {
    return el("label", {className: "one-list-field"}, labelText + " ",
      el("input", {type: "number", value: String(get()), min: String(min), step: "1",
        on: {change: (e) => { const v = parseFloat(e.target.value);
          if (Number.isFinite(v) && v >= min) set(v);
          e.target.value = String(get());
          redraw(); }}}));
  }

  // One value of the table, with the conventions that make it differ from trec_eval's.
  function cell(entry, peer) {
    if (entry === null) return el("td", {className: "one-list-none"}, "\u2014",
      el("span", {className: "one-list-why"}, "no such metric"));
    const td = el("td", {}, entry.text);
    if (entry.causes.length) {
      td.className = "one-list-differs";
      td.append(el("ul", {className: "one-list-why"},
        ...entry.causes.map((text) => el("li", {}, text))));
    }
    td.dataset.peer = peer;
    return td;
  }

  function start() {
    const source = document.getElementById("one-list-data");
    const box = document.getElementById("one-list");
    if (!source || !box) return;
    const data = JSON.parse(source.textContent);
    const list = JSON.parse(JSON.stringify(data.example));
    // the table for readers without scripts goes (removed, not hidden: a hidden table has
    // no box, which tools/book_layout.py would measure as outside the column)
    for (const fallback of document.querySelectorAll(".one-list-static-box")) fallback.remove();
    const editor = el("div", {className: "one-list-editor"});
    const results = el("div", {className: "one-list-results"});
    box.append(editor, results);
    let dragged = null;

    function nextId() {
      const used = new Set(list.items.map((item) => item.id));
      for (let i = 1; ; i++) if (!used.has("d" + i)) return "d" + i;
    }

    function move(at, by) {
      const to = at + by;
      if (to < 0 || to >= list.items.length) return;
      const items = list.items;
      // the two items trade places and scores: the list stays in score order
      [items[at].score, items[to].score] = [items[to].score, items[at].score];
      [items[at], items[to]] = [items[to], items[at]];
      render();
    }

    function remove(at) {
      list.items.splice(at, 1);
      // the focus goes to the item now in its place (or the one above, or "add an item")
      const next = list.items[Math.min(at, list.items.length - 1)];
      render(next ? "remove " + next.id : "add");
    }

    function itemRow(item, at) {
      const grade = el("select", {"aria-label": "grade of " + item.id,
        "data-key": "grade " + item.id,
        on: {change: (e) => { item.grade = e.target.value === "" ? null : Number(e.target.value);
          renderResults(); }}},
        ...[["", "unjudged"], ["0", "0"], ["1", "1"], ["2", "2"], ["3", "3"]].map(([v, t]) =>
          el("option", {value: v, selected: String(item.grade === null ? "" : item.grade) === v}, t)));
      const score = el("input", {type: "number", step: "0.1", value: String(item.score),
        "aria-label": "score of " + item.id, className: "one-list-score",
        "data-key": "score " + item.id,
        on: {change: (e) => { const v = parseFloat(e.target.value);
          // finite in float32 too: the float32 presets' scores (metrics_lib refuses infinity)
          if (Number.isFinite(Math.fround(v))) item.score = v;
          e.target.value = String(item.score);
          renderResults(); }}});
      const button = (text, label, fn) => el("button", {type: "button", title: label,
        "aria-label": label + " " + item.id, "data-key": label + " " + item.id,
        on: {click: fn}}, text);
      return el("tr", {draggable: "true", on: {
        dragstart: () => { dragged = at; },
        dragover: (e) => e.preventDefault(),
        drop: (e) => { e.preventDefault(); if (dragged !== null && dragged !== at) {
          const step = dragged < at ? 1 : -1;
          for (let i = dragged; i !== at; i += step) move(i, step);
        } dragged = null; }}},
        el("td", {}, String(at + 1) + " ", el("code", {}, item.id)), el("td", {}, score),
        el("td", {}, grade),
        el("td", {className: "one-list-buttons"}, button("\u2191", "move up", () => move(at, -1)),
          button("\u2193", "move down", () => move(at, 1)),
          button("\u00d7", "remove", () => remove(at))));
    }

    function renderEditor() {
      const rows = list.items.map(itemRow);
      const last = list.items.length ? list.items[list.items.length - 1].score : 1;
      editor.replaceChildren(
        el("div", {className: "one-list-scroll"}, el("table", {className: "one-list-items"},
          el("thead", {}, el("tr", {}, ...["item", "score", "grade", ""].map((t) =>
            el("th", {}, t)))),
          el("tbody", {}, ...rows))),
        el("div", {className: "one-list-controls"},
          el("button", {type: "button", "data-key": "add", on: {click: () => {
            list.items.push({id: nextId(), score: Math.round((last - 0.1) * 10) / 10, grade: null});
            render(); }}}, "add an item"),
          number("k =", () => list.k, 1, (v) => { list.k = Math.round(v); }, renderResults),
          el("span", {className: "one-list-field"}, "relevant items not in the list, of grade"),
          ...[0, 1, 2].map((g) => number(String(g + 1) + ":", () => list.missing[g], 0,
            (v) => { list.missing[g] = Math.round(v); }, renderResults))));
    }

    function renderResults() {
      const values = table(data, list);
      const head = el("tr", {}, el("th", {}, "library"), ...data.kinds.map(([, title]) =>
        el("th", {}, title.replace("@k", "@" + list.k))));
      const rows = data.peers.map((peer) => el("tr", {},
        el("th", {scope: "row"}, peer, el("span", {className: "one-list-why"},
          data.presets[peer].version)),
        ...data.kinds.map(([kind]) => cell(values[peer][kind], peer))));
      results.replaceChildren(
        el("p", {className: "one-list-caption"}, "Each library's value of this list. A marked " +
          "cell differs from trec_eval's (first row); under it, the conventions that account " +
          "for the difference (a line marked or: is another way to account for it)."),
        el("div", {className: "one-list-scroll"},
          el("table", {className: "one-list-table"}, el("thead", {}, head),
            el("tbody", {}, ...rows))));
      // ranking-matters.js marks the boxes that scroll sideways again
      window.dispatchEvent(new Event("resize"));
    }

    // Draws the editor and the table again. The control that had the focus gets it back
    // (the same control of the same item, wherever the item now is), or `fallback`'s: a
    // keyboard user stays where they were instead of at the top of the page.
    function render(fallback) {
      const active = document.activeElement;
      const key = active && editor.contains(active) ? active.dataset.key : undefined;
      renderEditor();
      renderResults();
      const again = (key && editor.querySelector('[data-key="' + key + '"]')) ||
        (fallback && editor.querySelector('[data-key="' + fallback + '"]'));
      if (again) again.focus();
    }
    render();
  }

  if (typeof document !== "undefined") {
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }
})(typeof window !== "undefined" ? window : globalThis);
