"""``{one-list}``: the explorable "One list, every library" (book/one_list.md).

The page's script (``_static/one-list.js``) computes P@k, R@k, RR, AP and
NDCG of one list under every peer preset. What it needs of each preset (the
keyword values of :mod:`metrics_lib.conventions.peers`, the float32 scores,
whether the metric takes ``@k``) is written into the page at build time by
:func:`payload`, so the presets stay the one source of truth. The directive
also writes the table of the page's example list computed by
:func:`metrics_lib.evaluate` under each preset: what a reader without
scripts sees (the script removes it when it runs). tools/one_list_check.py
compares the script with ``evaluate`` on random lists in a real browser.
"""

from __future__ import annotations

import json
import math

from docutils import nodes
from docutils.parsers.rst import Directive

# The metrics of the page: this library's kind and the column heading.
KINDS = (("precision", "P@k"), ("recall", "R@k"), ("rr", "RR"), ("ap", "AP"),
         ("ndcg", "NDCG"))

# The keywords the script implements; every other keyword of evaluate must be at
# its neutral value in every preset, or payload() refuses (the script would be
# silently wrong).
SCRIPT_KEYWORDS = ("ties", "missing", "unjudged", "empty", "gain", "ideal",
                   "denominator", "precision_denominator", "relevance_level",
                   "candidates", "score_threshold", "log_base")
NEUTRAL = {"judged_only": False, "min_grade": None, "truncate": None, "no_hit": "zero",
           "recall_denominator": "relevant"}

# The page's example: a list with a tie, graded judgements, one unjudged item and
# one relevant item that the list lacks.
EXAMPLE = {"k": 5, "missing": [0, 1, 0],
           "items": [{"id": "d1", "score": 0.9, "grade": 0},
                     {"id": "d2", "score": 0.8, "grade": None},
                     {"id": "d10", "score": 0.8, "grade": 3},
                     {"id": "d3", "score": 0.5, "grade": 1},
                     {"id": "d4", "score": 0.3, "grade": 0},
                     {"id": "d5", "score": 0.1, "grade": 2}]}


def _entry(preset, kind):
    """The peer's first metric of ``kind`` (its own name for it), or None."""
    return next((e for e in preset.metrics if e.kind == kind), None)


def metric_name(peer: str, kind: str, k: int) -> str | None:
    """The name ``evaluate(..., convention=peer)`` is asked for (None: no such metric)."""
    from metrics_lib.conventions.resolve import _preset

    entry = _entry(_preset(peer), kind)
    if entry is None:
        return None
    return entry.names[0] + ("" if entry.cutoff == "none" else f"@{k}")


def payload() -> dict:
    """What the page's script needs of every preset: {peer: {kind: spec or None}}."""
    from metrics_lib import PEERS
    from metrics_lib.conventions.resolve import _resolve

    out = {}
    for peer in PEERS:
        specs = {}
        for kind, _ in KINDS:
            name = metric_name(peer, kind, 10)
            if name is None:
                specs[kind] = None
                continue
            info = _resolve(peer, name)
            keywords = info["keywords"]
            for key, value in NEUTRAL.items():
                if keywords.get(key, value) != value:
                    raise ValueError(f"{peer} {name}: {key}={keywords[key]!r}, which "
                                     "_static/one-list.js does not implement")
            spec = {key: keywords[key] for key in SCRIPT_KEYWORDS}
            if not isinstance(spec["gain"], str):
                raise ValueError(f"{peer} {name}: a gain mapping, which the script lacks")
            spec["every_row"] = ("relevance_col" in keywords
                                 and keywords["relevance_col"] is None)
            spec["float32"] = info["score_dtype"] == "float32"
            spec["at_k"] = name.endswith("@10")
            spec["name"] = info["peer_metric"] + ("@k" if spec["at_k"] else "")
            specs[kind] = spec
        out[peer] = {"version": PEERS[peer][0], "metrics": specs}
    return out


def reference(peer: str, kind: str, items, missing, k) -> float | None:
    """``evaluate(..., convention=peer)`` of one user's list; None: no value.

    ``items``: dicts with ``id``, ``score`` and ``grade`` (None: not judged), in
    the list's order; ``missing[g - 1]``: relevant items of grade ``g`` that the
    list lacks.
    """
    return references(peer, kind, [{"items": items, "missing": missing, "k": k}])[0]


def references(peer: str, kind: str, cases) -> list:
    """:func:`reference` of many lists (``cases``: dicts of items, missing, k), one
    user each, in one call of ``evaluate`` per cut-off."""
    import warnings

    import pandas as pd

    from metrics_lib import evaluate

    out = [None] * len(cases)
    for k in sorted({case["k"] for case in cases}):
        name = metric_name(peer, kind, k)
        if name is None:
            continue
        users = [u for u, case in enumerate(cases) if case["k"] == k]
        recs, truth = [], []
        for u in users:
            case = cases[u]
            recs += [(u, i["id"], float(i["score"])) for i in case["items"]]
            truth += [(u, i["id"], float(i["grade"])) for i in case["items"]
                      if i["grade"] is not None]
            truth += [(u, f"m{grade}_{n}", float(grade))
                      for grade, count in enumerate(case["missing"], 1) for n in range(count)]
        truth.append((-1, "x", 1.0))  # a user of no case: the truth table is never empty
        frames = [pd.DataFrame({"user": pd.Series([r[0] for r in rows], dtype="int64"),
                                "item": pd.Series([r[1] for r in rows], dtype=object),
                                col: pd.Series([r[2] for r in rows], dtype="float64")})
                  for rows, col in ((recs, "score"), (truth, "relevance"))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # users without a list, on purpose
            result = evaluate(frames[0], frames[1], [name], convention=peer)
        values = result[name].to_dict()  # indexed by user
        for u in users:
            value = values.get(u)
            out[u] = None if value is None or math.isnan(value) else float(value)
    return out


def _table(example) -> nodes.table:
    """The example's values under every preset, as docutils nodes (HTML and PDF)."""
    from metrics_lib import PEERS

    header = ["library"] + [title for _, title in KINDS]
    group = nodes.tgroup(cols=len(header))
    group += [nodes.colspec(colwidth=1) for _ in header]
    head, body = nodes.thead(), nodes.tbody()
    head += _row(header)
    for peer in PEERS:
        cells = [peer]
        for kind, _ in KINDS:
            if metric_name(peer, kind, example["k"]) is None:
                cells.append("\u2014")  # a dash, as the script writes it
                continue
            value = reference(peer, kind, example["items"], example["missing"],
                              example["k"])
            cells.append("no value" if value is None else f"{value:.4f}")
        body += _row(cells)
    group += [head, body]
    table = nodes.table(classes=["one-list-static"])
    table += group
    return table


def _row(texts) -> nodes.row:
    row = nodes.row()
    for text in texts:
        entry = nodes.entry()
        entry += nodes.paragraph(text=text)
        row += entry
    return row


def _example_text(example) -> str:
    parts = []
    for item in example["items"]:
        grade = "not judged" if item["grade"] is None else f"grade {item['grade']}"
        parts.append(f"{item['id']} (score {item['score']}, {grade})")
    lacks = ", ".join(f"{n} of grade {g}" for g, n in enumerate(example["missing"], 1) if n)
    return ("The page's example list, computed by metrics_lib when the book was built: "
            "what the printed book and a browser without scripts show instead of the table "
            "you edit (a dash: the library has no such metric). "
            f"The list, best first: {'; '.join(parts)}. Relevant items it lacks: "
            f"{lacks or 'none'}. k = {example['k']}.")


class OneList(Directive):
    has_content = False

    def run(self):
        presets = payload()
        data = json.dumps({"presets": presets, "peers": list(presets), "example": EXAMPLE,
                           "kinds": [list(pair) for pair in KINDS]}, sort_keys=True)
        # "</" cannot end the script element early: JSON allows "<\/"
        script = ('<script type="application/json" id="one-list-data">'
                  + data.replace("</", "<\\/") + "</script>"
                  '<div id="one-list" class="one-list full-width"></div>')
        static = nodes.container(classes=["one-list-static-box"])
        static += nodes.paragraph(text=_example_text(EXAMPLE))
        static += _table(EXAMPLE)
        return [nodes.raw("", script, format="html"), static]


def _reread(app, env, added, changed, removed):
    # the page's data comes from metrics_lib, not from its source: read it every build
    return [name for name in env.found_docs if name.endswith("one_list")]


def setup(app):
    app.add_directive("one-list", OneList)
    app.connect("env-get-outdated", _reread)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
