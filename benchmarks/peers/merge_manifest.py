"""Gather golden/<peer>.manifest.json into golden/manifest.json (a summary)."""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    peers = []
    for f in sorted((HERE / "golden").glob("*.manifest.json")):
        m = json.loads(f.read_text())
        entries = m.pop("entries")
        peers.append({
            **m,
            "file": f"golden/{m['peer']}.csv",
            "n_entries": len(entries),
            "n_entries_ties_reproducible": sum(e["ties_reproducible"] for e in entries),
            "entries": [{k: e[k] for k in ("metric", "k", "options", "ties_reproducible",
                                           "ties", "note", "n_users", "n_nan")}
                        for e in entries],
        })
    out = {
        "corpus": ["corpus/recommendations.csv", "corpus/recommendations_untied.csv",
                   "corpus/truth.csv", "corpus/users.json"],
        "columns": ["scores", "peer", "peer_version", "metric", "options", "k", "user", "value"],
        "scores": {"tied": "corpus/recommendations.csv",
                   "untied": "corpus/recommendations_untied.csv (trec_eval's order of the tied "
                             "corpus, scores n - position)"},
        "peers": peers,
    }
    (HERE / "golden" / "manifest.json").write_text(json.dumps(out, indent=1) + "\n")
    for p in peers:
        print(f"{p['peer']:14s} {p['peer_version']:32s} {p['n_entries']:4d} entries, "
              f"{p['n_entries_ties_reproducible']:4d} with reproducible ties")


if __name__ == "__main__":
    main()
