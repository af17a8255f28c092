"""Shared plumbing for the peer scripts: read the corpus, write golden rows.

Standard library only (each peer runs in its own virtualenv).
Output of one peer script ``<peer>.py``:

- ``golden/<peer>.csv``: scores,peer,peer_version,metric,options,k,user,value
  (``scores`` is ``tied`` for corpus/recommendations.csv and ``untied`` for
  corpus/recommendations_untied.csv; ``options`` is JSON with sorted keys;
  ``k`` is empty for a metric without cut-off; ``value`` is ``repr(float)``,
  ``nan`` when the peer returned NaN);
- ``golden/<peer>.manifest.json``: the peer, its version, the source of its
  values, and one entry per (metric, k, options) with the tie handling, the
  users the peer left out (per ``scores``) and a note.
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path

HERE = Path(__file__).resolve().parent
KS = (1, 3, 5, 10, 20)
SCORES = ("tied", "untied")


def load_recs(scores: str) -> dict[int, list[tuple[int, float]]]:
    """user -> [(item, score), ...] in file order."""
    name = "recommendations.csv" if scores == "tied" else "recommendations_untied.csv"
    out: dict[int, list[tuple[int, float]]] = {}
    with open(HERE / "corpus" / name) as f:
        for r in csv.DictReader(f):
            out.setdefault(int(r["user"]), []).append((int(r["item"]), float(r["score"])))
    return out


def load_truth() -> dict[int, dict[int, int]]:
    """user -> {item: grade} (grades 0-3; 0 = judged not relevant)."""
    out: dict[int, dict[int, int]] = {}
    with open(HERE / "corpus" / "truth.csv") as f:
        for r in csv.DictReader(f):
            out.setdefault(int(r["user"]), {})[int(r["item"])] = int(r["grade"])
    return out


def all_users() -> list[int]:
    return list(range(1, 201))


def trec_order(rows: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """trec_eval's order: score descending, then item id as text descending."""
    rows = sorted(rows, key=lambda r: str(r[0]).encode(), reverse=True)
    return sorted(rows, key=lambda r: r[1], reverse=True)


def append_judged(rows: list[tuple[int, float]], truth: dict[int, int],
                  scores: str) -> list[tuple[int, float]]:
    """The list followed by the judged items it lacks (option ``recommended+judged``).

    On the tied corpus they share one score, ``min(list) - 1`` (a tied block after
    the list); on the untied corpus each gets its own score, ``min(list) - 1``,
    ``min(list) - 2``, ... in trec_eval's order (item id as text, descending), so
    that the untied input has no ties at all and every peer sees one order.
    """
    listed = {i for i, _ in rows}
    extra = [i for i in truth if i not in listed]
    low = min(s for _, s in rows) - 1.0
    if scores == "tied":
        return rows + [(i, low) for i in extra]
    extra.sort(key=lambda i: str(i).encode(), reverse=True)
    return rows + [(i, low - j) for j, i in enumerate(extra)]


class Golden:
    def __init__(self, peer: str, version: str, source: str, extra: dict | None = None):
        self.peer, self.version, self.source = peer, version, source
        self.extra = extra or {}
        self.rows: list[list[str]] = []
        self.entries: dict[tuple, dict] = {}

    def add(self, scores: str, metric: str, options: dict, k, user: int, value) -> None:
        value = float(value)
        opt = json.dumps(options, sort_keys=True)
        self.rows.append([scores, self.peer, self.version, metric, opt,
                          "" if k is None else str(k), str(user),
                          "nan" if math.isnan(value) else repr(value)])
        key = (metric, opt, "" if k is None else str(k))
        e = self.entries.setdefault(key, {"users": {s: set() for s in SCORES}})
        e["users"][scores].add(user)

    def note(self, metric: str, options: dict, k, *, ties: str, ties_reproducible: bool,
             note: str = "") -> None:
        key = (metric, json.dumps(options, sort_keys=True), "" if k is None else str(k))
        e = self.entries.setdefault(key, {"users": {s: set() for s in SCORES}})
        e.update(ties=ties, ties_reproducible=ties_reproducible, note=note)

    def write(self) -> None:
        out = HERE / "golden"
        out.mkdir(exist_ok=True)
        self.rows.sort(key=lambda r: (r[0], r[3], r[4], int(r[5] or 0), int(r[6])))
        with open(out / f"{self.peer}.csv", "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["scores", "peer", "peer_version", "metric", "options", "k", "user", "value"])
            w.writerows(self.rows)
        universe = set(all_users())
        entries = []
        for (metric, opt, k), e in sorted(self.entries.items()):
            users = e.pop("users")
            entries.append({
                "metric": metric, "options": json.loads(opt), "k": int(k) if k else None,
                **e,
                "n_users": {s: len(users[s]) for s in SCORES},
                "users_left_out": {s: sorted(universe - users[s]) for s in SCORES},
                "n_nan": {s: sum(1 for r in self.rows if r[0] == s and r[3] == metric
                                 and r[4] == opt and r[5] == k and r[7] == "nan")
                          for s in SCORES},
            })
        manifest = {"peer": self.peer, "peer_version": self.version, "source": self.source,
                    **self.extra, "entries": entries}
        with open(out / f"{self.peer}.manifest.json", "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
        print(f"{self.peer} {self.version}: {len(entries)} (metric, k, options) entries, "
              f"{len(self.rows)} rows")
